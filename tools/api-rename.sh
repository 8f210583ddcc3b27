#!/bin/sh
# tools/api-rename.sh [FILE...]: apply tools/api-renames.sed in place to FILEs, or to every
# tracked source, build and documentation file of the repository (not the sed script itself,
# not docs/api-changes.md, which names the old names on purpose).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [ $# -eq 0 ]; then
  cd "$root"
  set -- $(git ls-files '*.c' '*.h' '*.h.in' '*.cmake' 'CMakeLists.txt' '*/CMakeLists.txt' \
           '*.py' '*.md' '*.f90' '*.sh' | grep -v -e '^docs/api-changes.md$' -e '^tools/api-rename')
fi
sed -i -f "$here/api-renames.sed" "$@"

# tests/scripts/cache.sh (sourced): what the network-needing tests download, made once and
# kept under ~/.cache/hybridkit (XDG_CACHE_HOME), one maker at a time.
#   hk_cached NAME LOG CMD...   runs `CMD... DIR` (DIR = the cache's NAME) unless DIR/.ok exists,
#                               under a lock, its output in LOG; DIR complete when CMD succeeded.
#                               Status 0 when DIR is there, else 1 (LOG says why).
#   hk_venv SPEC... DIR         a venv in DIR with pip's SPECs (for hk_cached)
hk_cache=${XDG_CACHE_HOME:-$HOME/.cache}/hybridkit

hk_cached() {
  local name=$1 log=$2
  shift 2
  local dir=$hk_cache/$name
  [ -e "$dir/.ok" ] && return 0
  mkdir -p "$hk_cache" || return 1
  (
    flock 9
    [ -e "$dir/.ok" ] && exit 0
    rm -rf "$dir"
    "$@" "$dir" && touch "$dir/.ok"
  ) 9> "$hk_cache/$name.lock" > "$log" 2>&1
  [ -e "$dir/.ok" ]
}

hk_venv() {
  local dir=${!#}
  python3 -m venv "$dir" && "$dir/bin/pip" install -q --disable-pip-version-check "${@:1:$#-1}"
}

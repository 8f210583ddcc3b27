#!/bin/bash
# tools/fresh-check.sh [COMMAND...]   (make fresh-check)
# Runs the README's quick start the way a new user would: in a minimal Debian 12 root that
# has only a compiler, make, cmake, git and python3 (built once with debootstrap and cached),
# on a clone of the committed HEAD, nothing else installed. Default commands: make test,
# make run, then HK_MPI=mpich make test (the same root: MPICH is installed beside Open MPI,
# as a user who switches would have it). Prints each command's exit code, seconds and the
# tail of its log. Run it before resolving an issue that changes setup, packages or tests.
#
# Catches what a long-lived development machine hides: packages installed by hand, a
# browser or Python package that behaves differently when new (see python/tests/browser.py).
# Needs root, debootstrap (installed when missing) and the right to mount proc/sys/dev in
# a chroot; where that is not possible it says so and exits 77 (skipped).
#   env: HK_FRESH_DIR  cache of the base root and the logs (default /var/tmp/hybridkit-fresh)
#        HK_FRESH_TIMEOUT  seconds per command (default 3000)
#        HK_FRESH_USER  a user of the root (e.g. nobody): the build dependencies of both MPIs are
#                       installed first as root (make deps, HK_MPI=mpich make deps: what a
#                       cluster's administrators or modules provide), then the clone is that
#                       user's and the commands run as that user (issue 41: no root)
set -u
top=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel) || exit 2
dir=${HK_FRESH_DIR:-/var/tmp/hybridkit-fresh}
limit=${HK_FRESH_TIMEOUT:-3000}
[ $# -gt 0 ] && cmds=("$@") || cmds=("make test" "make run" "HK_MPI=mpich make test")

skip() { echo "fresh-check: SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mounts)"
if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null 2>&1 \
    || skip "debootstrap is not installed and cannot be installed"
fi
mkdir -p "$dir" || exit 2

# the Debian mirror of this machine's own apt configuration
mirror=$(grep -h -o -E '^(URIs:|deb) *https?://[^ ]+' /etc/apt/sources.list \
           /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
         | grep -v security | head -1 | grep -o -E 'https?://[^ ]+')
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
base=$dir/base
if [ ! -x "$base/usr/bin/python3" ]; then
  echo "fresh-check: building a minimal Debian 12 root in $base (once)"
  rm -rf "$base"
  debootstrap --variant=minbase \
      --include=ca-certificates,git,make,gcc,g++,cmake,pkg-config,procps,python3,python3-venv \
      bookworm "$base" "$mirror" > "$dir/debootstrap.log" 2>&1 \
    || { echo "fresh-check: debootstrap failed, see $dir/debootstrap.log"; rm -rf "$base"; exit 2; }
fi

root=$(mktemp -d "$dir/root.XXXXXX")
mounts=()
cleanup() {
  local i
  for (( i=${#mounts[@]}-1; i>=0; i-- )); do umount -l "${mounts[i]}" 2>/dev/null; done
  # what the tests mounted inside (ip netns: /run/netns and its namespaces), and the root
  umount -R -l "$root" 2>/dev/null
  rm -rf "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cp -a "$base/." "$root/"
# name resolution, and package mirrors that sit behind a local CA or pip configuration
cp /etc/resolv.conf /etc/hosts "$root/etc/" 2>/dev/null
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt" 2>/dev/null
mnt() { mount "$@" && mounts+=("${@: -1}"); }
# the root a mount point of its own: `ip netns exec` (the emulated cluster's tests) makes "/"
# a slave mount, which fails with EINVAL when "/" is only a directory of the host's tree
mnt --bind "$root" "$root" && mount --make-rprivate "$root" && mnt -t proc proc "$root/proc" && mnt -t sysfs sysfs "$root/sys" && mnt --bind /dev "$root/dev" \
  && mnt -t devpts devpts "$root/dev/pts" && mnt -t tmpfs tmpfs "$root/dev/shm" \
  || skip "cannot mount proc/sys/dev in the chroot (a container without CAP_SYS_ADMIN?)"
# the cgroup hierarchies a booted machine has (systemd mounts them; slurmd 22.05 of the
# emulated cluster's Slurm test needs them), never propagating back to the host's
if mountpoint -q /sys/fs/cgroup; then
  mnt --rbind /sys/fs/cgroup "$root/sys/fs/cgroup" && mount --make-rslave "$root/sys/fs/cgroup" \
    || skip "cannot bind /sys/fs/cgroup into the chroot"
fi
git clone -q "$top" "$root/home/project" || exit 2
echo "fresh-check: $(git -C "$top" log -1 --format='%h %s' | cut -c1-72)"

rc=0
as=() home=/root
run() {  # run TITLE COMMAND: COMMAND in the clone (as HK_FRESH_USER once it is set up)
  local log r t0
  log=$dir/$(echo "$1" | tr -c 'A-Za-z0-9_.-' '_').log
  echo "=== $1"
  t0=$(date +%s)
  chroot "${as[@]}" "$root" /usr/bin/env -i HOME="$home" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    TERM=dumb LANG=C.UTF-8 /bin/bash -c "cd /home/project && timeout $limit env $2" > "$log" 2>&1
  r=$?
  echo "    exit $r after $(( $(date +%s) - t0 )) s; log: $log"
  tail -n 5 "$log" | sed 's/^/    | /'
  [ $r -eq 0 ] || rc=1
  return $r
}
if [ -n "${HK_FRESH_USER:-}" ]; then
  user=$HK_FRESH_USER
  uid=$(chroot "$root" id -u "$user" 2>/dev/null) && gid=$(chroot "$root" id -g "$user") ||
    { echo "fresh-check: no user '$user' in the root"; exit 2; }
  [ "$uid" != 0 ] || { echo "fresh-check: HK_FRESH_USER=$user is root"; exit 2; }
  run "root: make deps" "make deps HK_MPI=openmpi" && run "root: HK_MPI=mpich make deps" "make deps HK_MPI=mpich" ||
    exit 1
  mkdir -p "$root/home/$user-home" && chown -R "$uid:$gid" "$root/home/project" "$root/home/$user-home" || exit 2
  as=(--userspec="$uid:$gid") home=/home/$user-home
  echo "fresh-check: as $user (uid $uid) from here on"
fi
for c in "${cmds[@]}"; do
  run "${HK_FRESH_USER:+$HK_FRESH_USER: }$c" "$c"
done
exit $rc

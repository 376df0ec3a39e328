#!/bin/bash
# scripts/kernel-build.sh's refusals, each one line naming the problem and the
# way out, a non-zero exit and nothing cached: a --set option the version does
# not have, one olddefconfig drops (with the unmet dependency), bad --set
# syntax, a source package that is not installed, a tree that is no kernel,
# and a disk that fills up during the build.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KB=$ROOT/scripts/kernel-build.sh
TMP=$(mktemp -d /tmp/kp-kb.XXXXXX)
cleanup() {
	umount "$TMP/small" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (mounts a small tmpfs to fill)"
[ "$(dpkg-query -W -f='${db:Status-Status}' linux-source-6.1 2>/dev/null)" = installed ] ||
	fail "linux-source-6.1 is not installed: run scripts/install-deps.sh"

# expect STATUS LINE -- ARGS...: the exit status and the whole last line of stderr
expect() {
	local want_rc=$1 want=$2 rc=0 got
	shift 3
	"$KB" -q "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	got=$(tail -1 "$TMP/err")
	[ "$rc" -eq "$want_rc" ] || fail "kernel-build.sh $*: exit $rc, want $want_rc ($got)"
	[ "$got" = "$want" ] || fail "kernel-build.sh $*:"$'\n'"  got:  $got"$'\n'"  want: $want"
	[ ! -s "$TMP/out" ] || fail "kernel-build.sh $*: printed a result: $(cat "$TMP/out")"
}

expect 1 "kernel-build: --set NO_SUCH_OPTION=y: linux 6.1.192 has no option CONFIG_NO_SUCH_OPTION" \
	-- --check --set NO_SUCH_OPTION=y
expect 1 "kernel-build: kprotperf.config CONFIG_SLAB_FREELIST_RANDOM=y: make olddefconfig made it n: it depends on 'SLAB || SLUB' (here SLAB=n SLUB=n): change those too" \
	-- --check --set SLUB=n
expect 1 "kernel-build: --set SLAB_FREELIST_RANDOM: want OPT=VALUE, e.g. --set SLAB_FREELIST_RANDOM=n" \
	-- --check --set SLAB_FREELIST_RANDOM
expect 1 "kernel-build: --set SLUB=yes: value 'yes' is not y, n, m, a number or a \"string\"" \
	-- --check --set SLUB=yes
expect 1 "kernel-build: linux-source-5.10 is not installed: run scripts/install-deps.sh (or apt-get install linux-source-5.10), or give --src DIR" \
	-- --check --version 5.10
expect 1 "kernel-build: --src $TMP: not a kernel source tree (no Makefile and Kconfig)" \
	-- --check --src "$TMP"
expect 2 "kernel-build: unknown argument '--frobnicate' (see --help)" -- --frobnicate

# A full disk during the build: the cache on a 2 MB tmpfs (configuring takes
# 0.9 MB; full after the host tools and 6 objects, 47 CPU s where 8 MB took
# 58), the unpacked source borrowed from the real cache through a symlink.
real=${KP_KBUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf/kbuild}
"$KB" -q --check >/dev/null 2>&1 || fail "kernel-build.sh --check fails on the real cache"
srcid=$(find "$real/src" -mindepth 1 -maxdepth 1 -name 'linux-source-6.1_*' -printf '%f\n' -quit)
mkdir -p "$TMP/small"
mount -t tmpfs -o size=2m tmpfs "$TMP/small"
mkdir -p "$TMP/small/src"
ln -s "$real/src/$srcid" "$TMP/small/src/$srcid"
rc=0
KP_KBUILD_CACHE=$TMP/small "$KB" -q -o "$TMP/k" >"$TMP/out" 2>"$TMP/err" || rc=$?
got=$(tail -1 "$TMP/err")
[ "$rc" -eq 1 ] || fail "a full disk: exit $rc, want 1 ($got)"
[ "$got" = "kernel-build: the build: no space left on device under $TMP/small: free some, or set KP_KBUILD_CACHE to a roomier place (nothing was cached)" ] ||
	fail "a full disk: $got"
[ ! -e "$TMP/k" ] || fail "a full disk: -o $TMP/k was made"
[ -z "$(ls -A "$TMP/small/out" 2>/dev/null)" ] || fail "a full disk left a cache entry: $(ls -A "$TMP/small/out")"
echo "kernel-build.sh: 7 refusals and a full disk, each one line, nothing cached"

#!/bin/bash
# scripts/kernel-build.sh's --set refusals that need no kernel source, each
# its whole one line on stderr, exit 1 and nothing made in the cache: a
# newline inside a quoted value (bash's =~ lets ^ and $ match around it, and
# the broken .config line it made was blamed on olddefconfig), a value that
# is no Kconfig value, OPT without =VALUE.  --src names an empty folder, so
# a refusal that came too late would fail there, not build.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-kbargs.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$TMP/src"

# expect LINE SET: kernel-build.sh --set SET refused with LINE
expect() {
	local rc=0
	KP_KBUILD_CACHE=$TMP/cache "$ROOT/scripts/kernel-build.sh" -q --check --src "$TMP/src" --set "$2" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "--set ${2@Q}: exit $rc, want 1: $(cat "$TMP/err")"
	printf '%s\n' "$1" | diff -u - "$TMP/err" || fail "--set ${2@Q}: stderr"
	[ ! -s "$TMP/out" ] || fail "--set ${2@Q}: stdout: $(cat "$TMP/out")"
	[ ! -e "$TMP/cache" ] || fail "--set ${2@Q}: made $TMP/cache"
}

expect "kernel-build: --set CMDLINE: a newline or another control character in it: a config option is one line" \
	'CONFIG_CMDLINE="console=ttyS0'$'\n''quiet"'
expect "kernel-build: --set LOCALVERSION: a newline or another control character in it: a config option is one line" \
	'LOCALVERSION="-kp'$'\r''"'
expect "kernel-build: --set SLUB=yes: value 'yes' is not y, n, m, a number or a \"string\"" SLUB=yes
expect "kernel-build: --set SLAB_FREELIST_RANDOM: want OPT=VALUE, e.g. --set SLAB_FREELIST_RANDOM=n" SLAB_FREELIST_RANDOM
echo "kernel-build.sh: 4 --set refusals, each one line before any source is read"

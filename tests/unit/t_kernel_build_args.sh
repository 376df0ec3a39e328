#!/bin/bash
# scripts/kernel-build.sh's --set refusals that need no kernel source, each
# its whole one line on stderr, exit 1 and nothing made in the cache: a
# newline inside a quoted value (bash's =~ lets ^ and $ match around it, and
# the broken .config line it made was blamed on olddefconfig), a value that
# is no Kconfig value, OPT without =VALUE; RANDSTRUCT's seed that is no 64
# hex digits or seeds nothing, both layouts, BUILD_SALT (where the seed
# goes) asked for.  --src names an empty folder, so
# a refusal that came too late would fail there, not build.
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-kbargs.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$TMP/src"

# refused LINE ARGS...: kernel-build.sh ARGS refused with LINE
refused() {
	local rc=0 want=$1
	shift
	KP_KBUILD_CACHE=$TMP/cache "$ROOT/scripts/kernel-build.sh" -q --check --src "$TMP/src" "$@" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "${*@Q}: exit $rc, want 1: $(cat "$TMP/err")"
	printf '%s\n' "$want" | diff -u - "$TMP/err" || fail "${*@Q}: stderr"
	[ ! -s "$TMP/out" ] || fail "${*@Q}: stdout: $(cat "$TMP/out")"
	[ ! -e "$TMP/cache" ] || fail "${*@Q}: made $TMP/cache"
}
# expect LINE SET: kernel-build.sh --set SET refused with LINE
expect() { refused "$1" --set "$2"; }

expect "kernel-build: --set CMDLINE: a newline or another control character in it: a config option is one line" \
	'CONFIG_CMDLINE="console=ttyS0'$'\n''quiet"'
expect "kernel-build: --set LOCALVERSION: a newline or another control character in it: a config option is one line" \
	'LOCALVERSION="-kp'$'\r''"'
expect "kernel-build: --set SLUB=yes: value 'yes' is not y, n, m, a number or a \"string\"" SLUB=yes
expect "kernel-build: --set SLAB_FREELIST_RANDOM: want OPT=VALUE, e.g. --set SLAB_FREELIST_RANDOM=n" SLAB_FREELIST_RANDOM

# RANDSTRUCT's seed: 64 hex digits, only with a randomized layout asked for,
# one layout of the two, and BUILD_SALT left to hold it
SEED=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
refused "kernel-build: --randstruct-seed 1234: want 64 hex digits (256 bits, as the kernel's gen-randstruct-seed.sh makes)" \
	--set RANDSTRUCT_FULL=y --randstruct-seed 1234
refused "kernel-build: --randstruct-seed ${SEED%?}g: want 64 hex digits (256 bits, as the kernel's gen-randstruct-seed.sh makes)" \
	--set RANDSTRUCT_PERFORMANCE=y --randstruct-seed "${SEED%?}g"
refused "kernel-build: --randstruct-seed: no --set RANDSTRUCT_FULL=y or RANDSTRUCT_PERFORMANCE=y: the seed would lay nothing out" \
	--set RANDSTRUCT_FULL=n --randstruct-seed "$SEED"
refused "kernel-build: --set RANDSTRUCT_FULL=y and RANDSTRUCT_PERFORMANCE=y: one of them (a Kconfig choice)" \
	--set RANDSTRUCT_FULL=y --set RANDSTRUCT_PERFORMANCE=y
refused "kernel-build: --set BUILD_SALT: with RANDSTRUCT kernel-build.sh keeps the seed there (the kernel's config shows it): leave it out" \
	--set RANDSTRUCT_FULL=y --set 'BUILD_SALT="x"'
refused "kernel-build: --randstruct-seed needs 64 hex digits" --set RANDSTRUCT_FULL=y --randstruct-seed
# the stand-in for gen-randstruct-seed.sh writes the seed given and its hash as the kernel's does
KP_RANDSTRUCT_SEED=$SEED sh "$ROOT/scripts/lib/randstruct-seed.sh" "$TMP/seed" "$TMP/hash.h"
echo "$SEED" | diff -u - "$TMP/seed" || fail "randstruct-seed.sh: the seed file"
echo "#define RANDSTRUCT_HASHED_SEED \"$(printf '%s' "$SEED" | sha256sum | cut -d' ' -f1)\"" |
	diff -u - "$TMP/hash.h" || fail "randstruct-seed.sh: the hash header"

# --cmdline: each parameter must be one the source documents, checked before
# anything is configured.  A fake tree: its make prints a version, its
# kernel-parameters.txt documents two parameters; anything past the check
# fails at make tinyconfig.
for t in make gcc flex bison bc pahole xz sha256sum; do
	command -v "$t" >/dev/null || { echo "kernel-build.sh: 4 --set and 6 RANDSTRUCT refusals; --cmdline skipped: no $t"; exit 0; }
done
mkdir -p "$TMP/fake/Documentation/admin-guide"
printf 'kernelversion:\n\t@echo 6.1.0\n' >"$TMP/fake/Makefile"
: >"$TMP/fake/Kconfig"
printf '\tinit_on_alloc=\t[MM] Fill newly allocated pages\n\tpage_alloc.shuffle=\n\t\t\tRandomize\n' \
	>"$TMP/fake/Documentation/admin-guide/kernel-parameters.txt"
cmdline() {	# $1: --cmdline's value; stderr's last line into $TMP/last
	local rc=0
	KP_KBUILD_CACHE=$TMP/cache2 "$ROOT/scripts/kernel-build.sh" -q --check --src "$TMP/fake" \
		--cmdline "$1" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "--cmdline ${1@Q}: exit $rc, want 1: $(cat "$TMP/err")"
	tail -1 "$TMP/err" >"$TMP/last"
}
doc="(Documentation/admin-guide/kernel-parameters.txt): check its spelling (the kernel hands a parameter it does not know to init)"
for w in init_on_aloc=1 pagexalloc.shuffle=1 Randomize; do
	cmdline "init_on_alloc=1 $w"
	echo "kernel-build: --cmdline $w: linux 6.1.0 documents no parameter ${w%%=*} $doc" |
		diff -u - "$TMP/err" || fail "--cmdline $w: stderr"
done
cmdline "init_on_alloc=1 page_alloc.shuffle=1"
grep -q "^kernel-build: make tinyconfig failed" "$TMP/last" ||
	fail "--cmdline of documented parameters did not get past the check: $(cat "$TMP/err")"
echo "kernel-build.sh: 4 --set and 6 RANDSTRUCT refusals, each one line before any source is read; 3 undocumented --cmdline parameters refused"

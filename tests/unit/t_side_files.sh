#!/bin/bash
# Opening a recording writes nothing beside it (docs/datafile.md): report,
# diff, annotate, folded and features leave the folder of the files they
# read as they found it, names, sizes, times and bytes, whatever the files
# are.  The copies of the golden recordings are: as record wrote them;
# marked WAL in their header (bytes 18 and 19 = 2, which made SQLite
# create -wal and -shm files beside a file opened read-only); and with a
# -wal, -shm and -journal of someone else's beside them (neither read nor
# removed).  What each command prints must be the same for all three.
set -u
if [[ ${KP-} == */* && $KP != /* ]]; then KP=$PWD/$KP; fi
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
[ -x "$KP" ] || { echo "skipped: no $KP to run: run make"; exit 77; }
TMP=$(mktemp -d /tmp/kp-side.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# folder KIND: TMP/KIND holding the golden recordings, made KIND's way
folder() {
	local d=$TMP/$1 f
	mkdir "$d"
	cp tests/golden/data/sl.data tests/golden/data/bf-a.data tests/golden/data/bf-b.data "$d"
	for f in "$d"/*.data; do
		case $1 in
		wal) printf '\002\002' | dd of="$f" bs=1 seek=18 conv=notrunc status=none ;;
		beside) for s in -wal -shm -journal; do head -c 4096 /dev/urandom > "$f$s"; done ;;
		esac
	done
	chmod -R a-w "$d"
}

# the folder's listing: every name, size, time and checksum
listing() {
	(cd "$1" && find . -printf '%p %s %T@ %C@ %m\n' | sort && sha256sum -- * | sort)
}

# run KIND: each command on KIND's files, its output and status
run() {
	local d=$TMP/$1
	(
		cd "$d" || exit 1
		for args in "report sl.data" "report --json bf-a.data" "diff bf-a.data bf-b.data" \
			"annotate --func copy_process bf-a.data" "folded bf-b.data" \
			"features bf-a.data"; do
			echo "== kprotperf $args"
			# shellcheck disable=SC2086  # args holds the words
			"$KP" $args < /dev/null 2>&1
			echo "exit $?"
		done
	) | sed "s|$d|DIR|g"
}

for kind in plain wal beside; do
	folder "$kind"
	listing "$TMP/$kind" > "$TMP/$kind.before"
	run "$kind" > "$TMP/$kind.out"
	listing "$TMP/$kind" > "$TMP/$kind.after"
	diff -u "$TMP/$kind.before" "$TMP/$kind.after" > "$TMP/$kind.changed" ||
		{ cat "$TMP/$kind.changed"; fail "the $kind folder changed"; }
	[ "$kind" = plain ] && continue
	diff -u "$TMP/plain.out" "$TMP/$kind.out" > "$TMP/$kind.diff" ||
		{ head -40 "$TMP/$kind.diff"; fail "the $kind files read otherwise than as record wrote them"; }
done
# each command read its files (annotate then wants the kernel's DWARF, which
# no machine has for these recordings), or the comparison would compare refusals
status=$(sed -n 's/^exit //p' "$TMP/plain.out" | tr '\n' ' ')
[ "$status" = "0 0 0 1 0 0 " ] || { cat "$TMP/plain.out"; fail "exit statuses: $status"; }
grep -q '^kprotperf annotate: annotate needs the kernel.s DWARF' "$TMP/plain.out" ||
	fail "annotate refused the file itself"
echo "ok: 6 commands on 3 recordings, plain, WAL-marked and with side files: nothing written, same output"

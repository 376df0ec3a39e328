#!/bin/bash
# Every schema the reader still accepts (KP_SCHEMA_OLDEST up to the current
# one) reads as docs/datafile.md says: "what an older schema lacks reading
# as empty".  From each current recording of tests/golden/data, a file of
# schema S is made by dropping the tables docs/datafile.md dates after S and
# setting user_version to S; beside it, the same recording with those tables
# emptied.  report and diff --json (on sl and burn, on bf-a and bf-b: three
# runs), folded and features --json (on sl and burn) must print the same for
# both, but for the schema number diff names.  The older files
# kprotperf really wrote are covered by the golden cases on old/ (schema 4);
# the unit suites craft some of their own (2: test_inline_report, 3:
# test_diff, 5: test_report_blocks, 6: test_diff_blocks).
set -u
# a relative KP is relative to where the test was started
if [[ ${KP-} == */* && $KP != /* ]]; then KP=$PWD/$KP; fi
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
[ -x "$KP" ] || { echo "skipped: no $KP to run: run make"; exit 77; }
command -v sqlite3 > /dev/null || { echo "skipped: no sqlite3 (Debian package sqlite3)"; exit 77; }
TMP=$(mktemp -d /tmp/kp-schemas.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

define() { sed -n "s/^#define $1 *\([0-9]*\).*/\1/p" src/data/datafile.h; }
current=$(define KP_SCHEMA_VERSION)
oldest=$(define KP_SCHEMA_OLDEST)
# "| `table` | columns | (schema N) ..." rows: the tables schema N added
# shellcheck disable=SC2016  # the backquotes are markdown's
tables=$(sed -n 's/^| `\([a-z_0-9]*\)` |.*| (schema \([0-9]*\)).*/\1 \2/p' docs/datafile.md)
if [ -z "$current" ] || [ -z "$oldest" ] || [ "$oldest" -ge "$current" ]; then
	fail "no KP_SCHEMA_VERSION and KP_SCHEMA_OLDEST in src/data/datafile.h"
fi
[ "$(awk '$2 == '"$current" <<< "$tables" | wc -l)" -gt 0 ] ||
	fail "docs/datafile.md dates no table to schema $current"

# run FOLDER CMD...: CMD's stdout, stderr and status, run in FOLDER
run() {
	local dir=$1 rc
	shift
	(cd "$dir" && "$KP" "$@" < /dev/null > out 2> err); rc=$?
	cat "$dir/out" "$dir/err"
	echo "exit $rc"
}
normalize() {	# SCHEMA: diff's ", schema S" and "schema":S read as the current
	sed -e "s/, schema $1\$/, schema $current/" -e "s/\"schema\":$1,/\"schema\":$current,/g"
}

# derive SCHEMA REC FOLDER: FOLDER/REC.data of schema SCHEMA, and beside it
# FOLDER/../new/REC.data of the current schema with the same tables empty
derive() {
	local s=$1 rec=$2 old=$3/old new=$3/new src=tests/golden/data/$2.data drop="" empty="" t since
	[ "$(sqlite3 "$src" 'PRAGMA user_version')" = "$current" ] ||
		fail "$src is not of schema $current: run tests/golden/regen.sh"
	while read -r t since; do
		[ "$since" -gt "$s" ] || continue
		drop+="DROP TABLE $t; "
		empty+="DELETE FROM $t; "
	done <<< "$tables"
	mkdir -p "$old" "$new"
	cp "$src" "$old/$rec.data"
	cp "$src" "$new/$rec.data"
	sqlite3 "$old/$rec.data" "$drop PRAGMA user_version = $s" ||
		fail "$rec: cannot make a schema-$s file"
	sqlite3 "$new/$rec.data" "$empty" || fail "$rec: cannot empty its tables"
}

# no user inline frames from whatever debug files the host has (golden.sh)
nosyms=$TMP/nosyms
mkdir "$nosyms"
# commands A B: what runs on the pair A, B (the multi-run pair: report and diff)
commands() {
	echo "report --symfs $nosyms $1.data"
	echo "diff --json --symfs $nosyms $1.data $2.data"
	[ "$1" = sl ] || return 0
	echo "folded --symfs $nosyms $2.data"
	echo "features --json $1.data"
}
checked=0
for pair in "sl burn" "bf-a bf-b"; do
	read -r a b <<< "$pair"
	for ((s = oldest; s < current; s++)); do
		dir=$TMP/$a-$s
		derive "$s" "$a" "$dir"
		derive "$s" "$b" "$dir"
		while read -r args; do
			# shellcheck disable=SC2086  # args are words by design
			want=$(run "$dir/new" $args)
			# shellcheck disable=SC2086
			got=$(run "$dir/old" $args | normalize "$s")
			[ "$got" = "$want" ] || fail "$a as schema $s: kprotperf $args differs from" \
				"the schema-$current file with those tables empty:" \
				"$(diff <(echo "$want") <(echo "$got") | head -20)"
			[[ $want == *"exit 0" ]] || fail "kprotperf $args failed: $want"
			checked=$((checked + 1))
		done < <(commands "$a" "$b")
	done
done
echo "schemas $oldest to $((current - 1)): $checked outputs as the schema-$current file's"

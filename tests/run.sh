#!/bin/bash
# Runs the named test tiers and ends with one summary line
# "tests: N passed, N failed, N skipped".  Tier scripts exit 0 (pass),
# 77 (skipped: they print the reason) or anything else (fail); unit test
# binaries are cmocka suites whose per-test lines are counted.
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0 skip=0
failed=()

count_cmocka() {	# $1: binary
	local out rc
	out=$("$1" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^\[ *(OK|FAILED|SKIPPED|ERROR) *\] [a-z_]' || true
	local ok bad sk
	ok=$(printf '%s\n' "$out" | grep -cE '^\[ +OK \] ')
	# cmocka lists failed and skipped tests again at the end: count names once
	bad=$(printf '%s\n' "$out" | grep -E '^\[ +(FAILED|ERROR) +\] [a-z_]' | sort -u | wc -l)
	sk=$(printf '%s\n' "$out" | grep -E '^\[ +SKIPPED +\] [a-z_]' | sort -u | wc -l)
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		printf '%s\n' "$out" | tail -5
		bad=1
	fi
	pass=$((pass + ok)); fail=$((fail + bad)); skip=$((skip + sk))
	[ "$bad" -eq 0 ] || failed+=("$1")
}

run_script() {	# $1: script
	local name out rc
	name=${1#tests/}
	out=$(bash "$1" 2>&1); rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(printf '%s\n' "$out" | grep -m1 -i 'skipped' || echo 'skipped')" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc)"; printf '%s\n' "$out" | tail -25 | sed 's/^/    /' ;;
	esac
}

for tier in "$@"; do
	echo "== $tier tests"
	case $tier in
	unit)
		for t in "${OUTPUT:-build}"/tests/test_*; do [ -x "$t" ] && count_cmocka "$t"; done
		for s in tests/unit/t_*.sh; do run_script "$s"; done ;;
	live|vm)
		shopt -s nullglob
		scripts=(tests/$tier/t_*.sh)
		if [ ${#scripts[@]} -eq 0 ]; then
			echo "SKIP $tier: skipped: no tests in this tier yet"
			skip=$((skip + 1))
		fi
		for s in "${scripts[@]}"; do run_script "$s"; done ;;
	*) echo "unknown tier $tier" >&2; exit 2 ;;
	esac
done

[ ${#failed[@]} -eq 0 ] || printf 'failed: %s\n' "${failed[@]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

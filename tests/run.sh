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

# KP_REQUIRE_VM=1 (.ci/run sets it): a vm-tier test that skips fails, so CI
# cannot go green without having booted the kernels.
run_script() {	# $1: script
	local name out rc t0=$SECONDS took
	name=${1#tests/}
	out=$(bash "$1" 2>&1); rc=$?
	took="$((SECONDS - t0)) s"
	if [ "$rc" -eq 77 ] && [ "${KP_REQUIRE_VM:-0}" = 1 ] && [[ $name == vm/* ]]; then
		echo "    $(printf '%s\n' "$out" | grep -m1 -i 'skipped') (KP_REQUIRE_VM=1: the vm tier must run)"
		rc=1
	fi
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name ($took)" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(printf '%s\n' "$out" | grep -m1 -i 'skipped' || echo 'skipped')" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc, $took)"; printf '%s\n' "$out" | tail -25 | sed 's/^/    /' ;;
	esac
}

run_unit() {
	local t s
	for t in "${OUTPUT:-build}"/tests/test_*; do [ -x "$t" ] && count_cmocka "$t"; done
	for s in tests/unit/t_*.sh; do run_script "$s"; done
}

run_dir() {	# $1: live or vm
	local s scripts
	shopt -s nullglob
	scripts=(tests/$1/t_*.sh)
	if [ ${#scripts[@]} -eq 0 ]; then
		echo "SKIP $1: skipped: no tests in this tier yet"
		skip=$((skip + 1))
	fi
	for s in "${scripts[@]}"; do run_script "$s"; done
}

# The unit and live tiers again with the AddressSanitizer + UBSan build
# (make asan): its unit suites and, through KP, its tool.  Every report is
# written to a log of its own and fails the tier, even from a command whose
# failure a test expects; halt_on_error stops at the first one.
run_asan() {
	local out logs f n
	out=${OUTPUT:-build}/asan
	if [ ! -x "$out/kprotperf" ]; then
		fail=$((fail + 1)); failed+=("asan: no $out/kprotperf (make asan)")
		return
	fi
	logs=$(mktemp -d /tmp/kp-asan.XXXXXX)
	export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$logs/asan"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
	OUTPUT=$out KP=$(realpath "$out/kprotperf") run_unit
	KP=$(realpath "$out/kprotperf") run_dir live
	unset ASAN_OPTIONS UBSAN_OPTIONS
	n=0
	for f in "$logs"/*; do
		[ -e "$f" ] || continue
		n=$((n + 1)); echo "FAIL sanitizer report $f:"; sed 's/^/    /' "$f" | head -40
	done
	if [ "$n" -gt 0 ]; then
		fail=$((fail + n)); failed+=("asan: $n sanitizer reports in $logs")
	else
		pass=$((pass + 1)); echo "PASS asan: no sanitizer report"; rm -rf "$logs"
	fi
}

# One short libFuzzer run per target (tests/fuzz/run.sh), after replaying
# its regression inputs.
run_fuzz() {
	local t name
	if ! compgen -G "${OUTPUT:-build}/fuzz/fuzz_*" >/dev/null; then
		fail=$((fail + 1)); failed+=("fuzz: no ${OUTPUT:-build}/fuzz/fuzz_* (make fuzz-build)")
		return
	fi
	for t in "${OUTPUT:-build}"/fuzz/fuzz_*; do
		[ -x "$t" ] || continue
		name=${t##*/fuzz_}
		if OUTPUT=${OUTPUT:-build} FUZZ_TIME=${FUZZ_TIME:-20} tests/fuzz/run.sh "$name"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1)); failed+=("fuzz $name")
		fi
	done
}

for tier in "$@"; do
	echo "== $tier tests"
	case $tier in
	unit) run_unit ;;
	live|vm) run_dir "$tier" ;;
	asan) run_asan ;;
	fuzz) run_fuzz ;;
	*) echo "unknown tier $tier" >&2; exit 2 ;;
	esac
done

[ ${#failed[@]} -eq 0 ] || printf 'failed: %s\n' "${failed[@]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

#!/bin/bash
# Runs the named test tiers and ends with the slowest tests and one summary
# line "tests: N passed, N failed, N skipped".  Tier scripts exit 0 (pass),
# 77 (skipped: they print the reason) or anything else (fail); unit test
# binaries are cmocka suites whose per-test lines are counted.
#
# Environment: T, a pattern: only the tests whose name (unit/t_golden.sh,
# test_diff, vm/t_kernel_pair.sh, fuzz datafile, ...) contains it run
# (`make test T=kernel_pair`); none matching fails.  KP_TEST_TIMEOUT
# overrides each test's time limit in seconds (unit and live 300, the asan
# tier 600, vm 1200, the vm tier's fixture 3600, its kernel builds 5400):
# a test that outlives it is killed with its process group and fails by
# name.  KP_VM_JOBS: how many vm tests run at once when that tier runs
# alone (default: one more than the CPUs).  KP_VM_TIMES: the file of the
# vm tests' last times, which orders them (longest first; default
# ~/.cache/kprotperf/vm-times).
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0 skip=0 ran=0
failed=() times=()
prefix=	# the asan tier's tests are named "asan unit/t_golden.sh", ...
FILTER=${T:-}

selected() {	# $1: a test's name
	[ -z "$FILTER" ] || [[ $1 == *"$FILTER"* ]]
}

# children_ticks: $ticks, the CPU time (user + system, in clock ticks) of
# the children this shell has reaped, with what they reaped: a test's own
# and its processes', guests and compilers included.  Bash reaps a child
# when it ends, so around a command run in the foreground it is that
# command's (and the vm tier runs each test in a shell of its own).  A
# variable, not output: $(...) would read its own subshell's.
HZ=$(getconf CLK_TCK)
children_ticks() {
	local stat
	read -r stat <"/proc/$BASHPID/stat"
	# shellcheck disable=SC2086 # the fields after "pid (comm) ", split
	set -- ${stat##*) }
	ticks=$((${14} + ${15}))
}

# timed LIMIT NAME CMD...: CMD under LIMIT seconds (KP_TEST_TIMEOUT wins),
# its output in $out, its status in $rc, its time in $took, and a line in
# the table of times (seconds, CPU seconds).  timeout(1) signals CMD's
# whole process group, so a hung guest's QEMU goes with its test.
timed() {
	local limit=${KP_TEST_TIMEOUT:-$1} name=$2 t0=$SECONDS ticks t1
	shift 2
	children_ticks; t1=$ticks
	out=$(timeout -k 10 "$limit" "$@" 2>&1); rc=$?
	took=$((SECONDS - t0))
	children_ticks
	times+=("$took $(((ticks - t1) / HZ)) $name")
	ran=$((ran + 1))
	if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$took" -ge "$limit" ]; then
		out+=$'\n'"timed out after $limit s (KP_TEST_TIMEOUT)"
		rc=124
	fi
}

count_cmocka() {	# $1: binary, $2: its time limit
	local ok bad sk
	selected "$prefix${1##*/}" || return 0
	timed "$2" "$prefix${1##*/}" "$1"
	printf '%s\n' "$out" | grep -E '^\[ *(OK|FAILED|SKIPPED|ERROR) *\] [a-z_]' || true
	ok=$(printf '%s\n' "$out" | grep -cE '^\[ +OK \] ')
	# cmocka lists failed and skipped tests again at the end: count names once
	bad=$(printf '%s\n' "$out" | grep -E '^\[ +(FAILED|ERROR) +\] [a-z_]' | sort -u | wc -l)
	sk=$(printf '%s\n' "$out" | grep -E '^\[ +SKIPPED +\] [a-z_]' | sort -u | wc -l)
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		printf '%s\n' "$out" | tail -5
		bad=1
	fi
	pass=$((pass + ok)); fail=$((fail + bad)); skip=$((skip + sk))
	[ "$bad" -eq 0 ] || failed+=("$prefix$1")
}

# KP_REQUIRE_VM=1 (.ci/run sets it): a vm-tier test that skips fails, so CI
# cannot go green without having booted the kernels.
run_script() {	# $1: script, $2: its time limit
	local name=$prefix${1#tests/}
	selected "$name" || return 0
	timed "$2" "$name" bash "$1"
	if [ "$rc" -eq 77 ] && [ "${KP_REQUIRE_VM:-0}" = 1 ] && [[ $name == vm/* ]]; then
		echo "    $(printf '%s\n' "$out" | grep -m1 -i 'skipped') (KP_REQUIRE_VM=1: the vm tier must run)"
		rc=1
	fi
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name ($took s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(printf '%s\n' "$out" | grep -m1 -i 'skipped' || echo 'skipped')" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name ($(status_text), $took s)"; printf '%s\n' "$out" | tail -25 | sed 's/^/    /' ;;
	esac
}

status_text() { [ "$rc" -eq 124 ] && echo "timed out" || echo "exit $rc"; }

# $1: each script's time limit; $2: "tool" for the asan tier, which runs
# only the scripts that run kprotperf: one marked "# runs no kprotperf"
# (fakes, the layout, the simulator's own C) would run the same code again.
run_unit() {
	local t s
	for t in "${OUTPUT:-build}"/tests/test_*; do [ -x "$t" ] && count_cmocka "$t" "$1"; done
	for s in tests/unit/t_*.sh; do
		[ "${2:-}" = tool ] && grep -qx '# runs no kprotperf' "$s" && continue
		run_script "$s" "$1"
	done
}

# The vm tier's fixture: the kernels its selected tests name on a
# "# kernels:" line, built once (tests/vm/kernels.sh, in the background),
# and the Debian kernels it boots, fetched (tests/vm/fixture.sh): the
# builds' and downloads' time is the fixture's, not a test's.  The tier then
# runs each test as soon as the kernels it names are built, those naming
# none first: the guests boot while the builds compile, so that a cold run
# pays for the builds beside the tests, not before them.
kernels_of() {	# $1: a test script: the kernels it names, one per line
	sed -n 's/^# kernels: *//p' "$1" | tr ' ' '\n' | sed '/^$/d'
}

kernels_start() {	# $@: the selected vm tests
	local s kernels=()
	mapfile -t kernels < <(for s in "$@"; do kernels_of "$s"; done | awk '!seen[$0]++')
	kb_t0=$SECONDS kb_pid=
	[ ${#kernels[@]} -gt 0 ] || return 0
	kb_log=$(mktemp /tmp/kp-kernels.XXXXXX)
	# niced: the tests beside them (the other tiers', the guests) first
	timeout -k 10 "${KP_TEST_TIMEOUT:-5400}" nice -n 10 bash tests/vm/kernels.sh build "${kernels[@]}" >"$kb_log" 2>&1 &
	kb_pid=$!
}

# kernels_ready KERNELS: the builds of those named (words) are done (or all
# builds ended: a test whose kernel failed to build then fails by name)
kernels_ready() {
	local k built
	[ -n "$kb_pid" ] || return 0
	built=$'\n'$(<"$kb_log")
	for k in $1; do
		[[ $built == *$'\n'"kernel $k: "* ]] || return 1
	done
}

# reaps the builds and prints their line; their CPU time is that of each
# build's line (bash reaps a background job when it ends, not at wait)
kernels_wait() {
	local cpu
	rc=0
	[ -n "$kb_pid" ] || return 0
	wait "$kb_pid" || rc=$?
	kb_pid=
	out=$(cat "$kb_log")
	rm -f "$kb_log"
	took=$((SECONDS - kb_t0))
	cpu=$(printf '%s\n' "$out" | awk -F', ' '/^kernel .* CPU s\)$/ { c += $NF } END { print c + 0 }')
	times+=("$took $cpu vm/kernels.sh build (background)")
	case $rc in
	# each kernel's wall and CPU time: what a cold run pays for it
	0) echo "PASS vm/kernels.sh: $(printf '%s\n' "$out" | tail -1) (started $took s ago)"
		printf '%s\n' "$out" | grep '^kernel ' | sed 's/^/    /' ;;
	77) echo "SKIP vm/kernels.sh: $(printf '%s\n' "$out" | grep -m1 -i 'skipped')" ;;
	*) fail=$((fail + 1)); failed+=("vm/kernels.sh"); echo "FAIL vm/kernels.sh ($(status_text), $took s)"; printf '%s\n' "$out" | tail -25 | sed 's/^/    /' ;;
	esac
}

# fixture_fetch: the Debian kernels, in the foreground; a machine where the
# tier cannot run skips it whole (its builds stopped)
fixture_fetch() {
	timed "${KP_TEST_TIMEOUT:-3600}" vm/fixture.sh bash tests/vm/fixture.sh
	case $rc in
	0) echo "PASS vm/fixture.sh: $(printf '%s\n' "$out" | tail -1)"; return 0 ;;
	77) echo "SKIP vm: $(printf '%s\n' "$out" | grep -m1 -i 'skipped')" ;;
	*) echo "FAIL vm/fixture.sh ($(status_text), $took s)"; printf '%s\n' "$out" | tail -25 | sed 's/^/    /' ;;
	esac
	[ -z "$kb_pid" ] || kill_tree "$kb_pid"
	kernels_wait >/dev/null
	if [ "$rc" -eq 77 ] && [ "${KP_REQUIRE_VM:-0}" != 1 ]; then
		skip=$((skip + 1))
	else
		fail=$((fail + 1)); failed+=("vm/fixture.sh")
	fi
	return 1
}

# The loop below looks each second at the tests, the builds and the other
# tiers with builtins only: a fork costs ~7 ms of CPU on the development
# machine, and a subshell per waiting test each second came to ~8% of a
# CPU over a cold run.
run_vm() {	# $1: each test's time limit
	local s pending=() waiting jobdir running=() slots cpus tick
	local -A needs
	for s in tests/vm/t_*.sh; do selected "${s#tests/}" && pending+=("$s"); done
	[ ${#pending[@]} -gt 0 ] || return 0
	vm_order
	for s in "${pending[@]}"; do needs[$s]=$(kernels_of "$s" | tr '\n' ' '); done
	cpus=$(nproc)
	kernels_start "${pending[@]}"
	fixture_fetch || return 0
	jobdir=$(mktemp -d /tmp/kp-vmjobs.XXXXXX)
	# a pipe whose writer we hold: read -t on it is a sleep without a fork
	exec {tick}<> <(:)
	while [ $((${#pending[@]} + ${#running[@]})) -gt 0 ]; do
		waiting=()
		vm_slots
		for s in "${pending[@]}"; do
			if [ ${#running[@]} -lt "$slots" ] && kernels_ready "${needs[$s]}"; then
				vm_launch "$s" "$1"
			else
				waiting+=("$s")
			fi
		done
		pending=("${waiting[@]}")
		# a test's end, the next build, the builds' end or the other tiers'
		read -rt 1 -u "$tick" || true
		vm_reap
		[ -z "$kb_pid" ] || kill -0 "$kb_pid" 2>/dev/null || kernels_wait
	done
	exec {tick}>&-
	rm -rf "$jobdir"
	[ -z "$kb_pid" ] || kernels_wait
	vm_times_save
}

# The vm tests start longest first, by the seconds each took in the last
# run that ran it ($KP_VM_TIMES, default the kernel cache's vm-times: a
# line "SECONDS NAME" a test), those never timed first of all and in name
# order: the tier ends when its last test does, and a long test started
# last kept one CPU busy for minutes after the others had ended (a test
# still waits for the kernels it names).
vm_times_file() {
	echo "${KP_VM_TIMES:-${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf/vm-times}"
}

vm_order() {	# sorts run_vm's $pending
	local f s t name
	local -A took
	f=$(vm_times_file)
	if [ -r "$f" ]; then
		while read -r t name; do took[$name]=$t; done <"$f"
	fi
	mapfile -t pending < <(for s in "${pending[@]}"; do
		t=${took[${s#tests/}]:-}
		printf '%s %s\n' "${t:-999999}" "$s"
	done | sort -s -k1,1nr | cut -d' ' -f2-)
}

# vm_times_save: the seconds of each vm test this run ran, in place of
# those the file had (its other lines kept)
vm_times_save() {
	local f e
	f=$(vm_times_file)
	mkdir -p "${f%/*}" 2>/dev/null || return 0
	{
		for e in "${times[@]}"; do
			# "SECONDS CPU vm/t_NAME.sh": the tests only, not the fixture
			[[ $e =~ ^([0-9]+)\ [0-9]+\ (vm/t_[^ ]*\.sh)$ ]] &&
				echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
		done
		[ ! -r "$f" ] || cat "$f"
	} | awk '!seen[$2]++' >"$f.tmp.$$"
	mv "$f.tmp.$$" "$f" 2>/dev/null || rm -f "$f.tmp.$$"
}

# Sets run_vm's $slots, how many vm tests run at once: one while the other
# tiers test beside the tier or its kernels build (a guest's CPU beside
# theirs), $KP_VM_JOBS once the tier has the machine to itself.  A guest
# runs on one CPU (TCG), and a test keeps it busy ~85% of its time (the
# rest: 9p, the host's checks between boots), so the default is one more
# than the CPUs.
vm_slots() {
	if [ -e "$vm_alone" ] && [ -z "$kb_pid" ]; then
		slots=${KP_VM_JOBS:-$((cpus + 1))}
	else
		slots=1
	fi
}

# vm_launch SCRIPT LIMIT: run_script in the background (in run_vm's
# $running, by pid), its lines and counts kept in a file for vm_reap
vm_launch() {
	local f=$jobdir/${1##*/}
	# shellcheck disable=SC2030 # the job's own counts, for counts_add
	(
		pass=0 fail=0 skip=0 ran=0
		failed=() times=()
		run_script "$1" "$2"
		counts_out
	) >"$f" 2>&1 &
	running[$!]=$f
}

vm_reap() {	# the ended tests of $running: their lines printed, counts added
	local pid
	for pid in "${!running[@]}"; do
		! kill -0 "$pid" 2>/dev/null || continue
		wait "$pid"
		counts_add "${running[$pid]}"
		unset "running[$pid]"
	done
}

run_dir() {	# $1: the tier (live), $2: each script's time limit
	local s scripts
	shopt -s nullglob
	scripts=(tests/$1/t_*.sh)
	if [ ${#scripts[@]} -eq 0 ]; then
		echo "SKIP $1: skipped: no tests in this tier yet"
		skip=$((skip + 1))
	fi
	for s in "${scripts[@]}"; do run_script "$s" "$2"; done
}

# The unit and live tiers again with the AddressSanitizer + UBSan build
# (make asan): its unit suites and, through KP, its tool.  Every report is
# written to a log of its own and fails the tier, even from a command whose
# failure a test expects; halt_on_error stops at the first one.
run_asan() {
	local dir kp logs f n
	dir=${OUTPUT:-build}/asan
	if [ ! -x "$dir/kprotperf" ]; then
		fail=$((fail + 1)); failed+=("asan: no $dir/kprotperf (make asan)")
		return
	fi
	# before run_unit: timed() sets the global $out (a test's output)
	kp=$(realpath "$dir/kprotperf")
	logs=$(mktemp -d /tmp/kp-asan.XXXXXX)
	export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$logs/asan"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
	prefix="asan "
	OUTPUT=$dir KP=$kp run_unit 600 tool
	KP=$kp KP_ASAN=1 run_dir live 600
	prefix=
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
		selected "fuzz $name" || continue
		timed $((${FUZZ_TIME:-10} + 120)) "fuzz $name" \
			env OUTPUT="${OUTPUT:-build}" FUZZ_TIME="${FUZZ_TIME:-10}" FUZZ_RUNS= tests/fuzz/run.sh "$name"
		printf '%s\n' "$out"
		if [ "$rc" -eq 0 ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1)); failed+=("fuzz $name")
		fi
	done
}

# The ten slowest tests, so that the budget's spending shows in CI's log,
# and the CPU time of all of them: on a machine of few CPUs it, more than
# their seconds, bounds a run's length.
slowest() {
	[ ${#times[@]} -gt 0 ] || return 0
	echo "== slowest tests (s, CPU s)"
	printf '%s\n' "${times[@]}" | sort -rn | head -10 |
		awk '{ t = $1; c = $2; $1 = $2 = ""; printf "%6d %6d %s\n", t, c, substr($0, 3) }'
	printf '%s\n' "${times[@]}" | awk '{ c += $2 } END { printf "CPU time in all: %d s\n", c }'
}

# The vm tier (its builds, fixture and tests) runs from the start, beside
# the other tiers: its guests mostly wait on one CPU for TCG, the other tiers
# mostly run on one, and a warm run took the sum of both (its guests are
# clocked by instructions where a test measures time, so the host's load
# does not move what they assert); once they are done, it runs one test
# more than the CPUs (vm_slots).  Its lines are kept and printed, and its
# counts added, where the vm tier comes in the order of the tiers.
quoted() {	# the arguments as shell words, for an array's ( ... )
	[ $# -eq 0 ] || printf '%q ' "$@"
}

# counts_out: this shell's counts, as the lines counts_add reads
counts_out() {
	printf 'kp_counts_pass=%d kp_counts_fail=%d kp_counts_skip=%d kp_counts_ran=%d\n' \
		"$pass" "$fail" "$skip" "$ran"
	printf 'kp_counts_failed=(%s)\nkp_counts_times=(%s)\n' "$(quoted "${failed[@]}")" \
		"$(quoted "${times[@]}")"
}

# counts_add FILE: prints FILE, a subshell's output, but for counts_out's
# lines, whose counts it adds to this shell's
# shellcheck disable=SC2031 # the parent's own counts, which the subshell's add to
counts_add() {
	local kp_counts_pass=0 kp_counts_fail=0 kp_counts_skip=0 kp_counts_ran=0
	local kp_counts_failed=() kp_counts_times=()
	grep -vE '^kp_counts_(pass|failed|times)=' "$1"
	# shellcheck disable=SC1090 # written by counts_out, with printf %q
	. <(grep -E '^kp_counts_(pass|failed|times)=' "$1")
	pass=$((pass + kp_counts_pass)); fail=$((fail + kp_counts_fail))
	skip=$((skip + kp_counts_skip)); ran=$((ran + kp_counts_ran))
	failed+=("${kp_counts_failed[@]}"); times+=("${kp_counts_times[@]}")
}

# vm_alone, made when the run gets to the vm tier in the order of the
# tiers: from then on the other tiers are done and the tier runs alone
vm_start() {
	vm_log=$(mktemp /tmp/kp-vmtier.XXXXXX)
	vm_alone=$vm_log.alone
	# shellcheck disable=SC2030 # the subshell's own counts, printed at its end
	(
		pass=0 fail=0 skip=0 ran=0
		failed=() times=()
		run_vm 1200
		counts_out
	) >"$vm_log" 2>&1 &
	vm_pid=$!
}

vm_finish() {
	touch "$vm_alone"
	wait "$vm_pid"
	vm_pid=
	counts_add "$vm_log"
	rm -f "$vm_log" "$vm_alone"
}

# a run stopped early (^C, CI's limit) takes the vm tier's guests with it:
# each test's timeout(1) passes the signal on to its own process group
kill_tree() {	# $1: pid
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill -TERM "$1" 2>/dev/null
}
vm_pid=
trap '[ -z "$vm_pid" ] || kill_tree "$vm_pid"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

case " $* " in *" vm "*) vm_start ;; esac
for tier in "$@"; do
	echo "== $tier tests"
	case $tier in
	unit) run_unit 300 ;;
	live) run_dir live 300 ;;
	vm) vm_finish ;;
	asan) run_asan ;;
	fuzz) run_fuzz ;;
	*) echo "unknown tier $tier" >&2; exit 2 ;;
	esac
done

slowest
if [ -n "$FILTER" ] && [ "$ran" -eq 0 ]; then
	fail=$((fail + 1)); failed+=("T=$FILTER: no test of the tiers run ($*) has that in its name")
fi
[ ${#failed[@]} -eq 0 ] || printf 'failed: %s\n' "${failed[@]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

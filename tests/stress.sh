#!/bin/bash
# tests/stress.sh T=NAME N: the tests whose name contains NAME, run N times
# in a row through tests/run.sh (T=NAME tests/run.sh TIER..., the tiers
# among unit, live and vm that hold such a test), each run with two
# cpu-burn processes beside it, as a loaded machine or CI's other tiers
# would be.  Prints a row per run (run, result, seconds) and a summary
# line; exits 1 if any run failed, 77 if none failed but one skipped (it
# proved nothing), 2 on a bad command line.  T may come from the
# environment instead.  Each run's output is kept in a folder the summary
# names when a run did not pass.
#
# The burners are a copy of ./cpu-burn named kp-stress-burn, so that the
# tests that look for their own cpu-burn by name never count them; they
# are started before each run and killed after it (and on any exit), and
# each would end by itself within KP_STRESS_LIMIT seconds (default 3600)
# were this script killed outright.
set -u
cd "$(dirname "$0")/.." || exit 2

usage() {
	echo "usage: tests/stress.sh T=NAME N  (or T=NAME in the environment): the tests matching NAME, N times, beside two cpu-burn" >&2
	exit 2
}

n=
for a; do
	case $a in
	T=*) T=${a#T=} ;;
	*) [ -z "$n" ] || usage; n=$a ;;
	esac
done
if [ -z "${T:-}" ] || ! [[ $n =~ ^[1-9][0-9]*$ ]]; then usage; fi

# the tiers holding a script whose name (tier/t_x.sh, as run.sh names it)
# contains NAME; the unit tier's cmocka suites (test_x) count too
tiers=()
for tier in unit live vm; do
	for s in tests/"$tier"/t_*.sh; do
		if [[ ${s#tests/} == *"$T"* ]]; then
			tiers+=("$tier")
			continue 2
		fi
	done
	if [ "$tier" = unit ]; then
		for s in tests/unit/test_*.c; do
			[[ $(basename "$s" .c) == *"$T"* ]] && { tiers+=(unit); break; }
		done
	fi
done
[ ${#tiers[@]} -gt 0 ] || { echo "stress: no unit, live or vm test has '$T' in its name" >&2; exit 2; }
[ -x cpu-burn ] || { echo "stress: no ./cpu-burn: run make" >&2; exit 2; }

dir=$(mktemp -d /tmp/kp-stress.XXXXXX)
cp cpu-burn "$dir/kp-stress-burn"
burners=()
stop_burners() {
	local p
	for p in "${burners[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${burners[@]}"; do wait "$p" 2>/dev/null; done
	burners=()
}
# kill_tree PID: PID and its processes, children first (a test's
# timeout(1) passes the TERM on to the test's process group)
# shellcheck disable=SC2317 # called by the EXIT trap
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill -TERM "$1" 2>/dev/null
}
runpid='' keep=''
# on any exit: the run under way, the burners, and the logs unless a run
# did not pass
trap '[ -z "$runpid" ] || kill_tree "$runpid"; stop_burners; [ -n "$keep" ] || rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

pass=0 fail=0 skip=0
echo "stress: T=$T tests/run.sh ${tiers[*]}, $n runs, 2 cpu-burn beside each"
printf '%-4s %-6s %s\n' run result seconds
for ((i = 1; i <= n; i++)); do
	for _ in 1 2; do
		"$dir/kp-stress-burn" "${KP_STRESS_LIMIT:-3600}" >/dev/null 2>&1 &
		burners+=($!)
	done
	t0=$SECONDS
	# in the background, so that a signal's trap runs at once, not after it
	T=$T tests/run.sh "${tiers[@]}" >"$dir/run-$i.log" 2>&1 &
	runpid=$!
	wait "$runpid"
	rc=$?
	runpid=
	took=$((SECONDS - t0))
	stop_burners
	# run.sh's last line: "tests: N passed, N failed, N skipped"
	read -r p f _ < <(sed -n 's/^tests: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' \
		"$dir/run-$i.log" | tail -1)
	if [ "$rc" -eq 0 ] && [ "${f:-1}" = 0 ] && [ "${p:-0}" -gt 0 ]; then
		result=PASS pass=$((pass + 1))
	elif [ "$rc" -eq 0 ] && [ "${f:-1}" = 0 ]; then
		result=SKIP skip=$((skip + 1))
	else
		result=FAIL fail=$((fail + 1))
	fi
	printf '%-4d %-6s %d\n' "$i" "$result" "$took"
	# a run that did not pass: run.sh's FAIL and SKIP lines, with what follows them
	[ "$result" = PASS ] || awk '/^== slowest/ { exit } /^(FAIL|SKIP) / { p = 1; print; next }
		p && /^    / { print; next } { p = 0 }' "$dir/run-$i.log" | head -30 | sed 's/^/     /'
done
# with more than one test matched, a row per test over the runs (the
# table docs/developing.md keeps): run.sh's "PASS|FAIL|SKIP tier/t_x.sh (...)" lines
if [ "$(cat "$dir"/run-*.log | awk '/^(PASS|FAIL|SKIP) [a-z]+\/t_/ { sub(/:$/, "", $2); print $2 }' | sort -u | wc -l)" -gt 1 ]; then
	printf '%-34s %-6s %-6s %-6s %s\n' test passed failed skipped seconds
	cat "$dir"/run-*.log | awk '/^(PASS|FAIL|SKIP) [a-z]+\/t_/ {
		t = $2; sub(/:$/, "", t); if (!(t in seen)) { seen[t] = 1; order[++nt] = t }
		r[t, $1]++
		if (match($0, /[0-9]+ s\)$/)) s[t] = s[t] (s[t] == "" ? "" : ", ") substr($0, RSTART, RLENGTH - 3)
	} END { for (i = 1; i <= nt; i++) { t = order[i]
		printf "%-34s %-6d %-6d %-6d %s\n", t, r[t, "PASS"], r[t, "FAIL"], r[t, "SKIP"], s[t] } }'
fi
echo "stress: T=$T: $n runs, $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$skip" -eq 0 ] && exit 0
keep=1
echo "stress: each run's output in $dir"
[ "$fail" -eq 0 ] && exit 77
exit 1

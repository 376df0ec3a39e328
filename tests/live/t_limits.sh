#!/bin/bash
# BPF maps sized by --ring-size / --max-stacks / --max-tasks are checked against the
# memory available (MemAvailable, here a copy of /proc/meminfo with 512 MiB
# bound over it in a mount namespace) before they are created: refused at
# once with one line naming the option and the memory, the workload never
# started.  The documented maximum itself is refused by the option parser.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
sed 's/^MemAvailable:.*/MemAvailable:     524288 kB/' /proc/meminfo > meminfo
# children_ticks: $ticks, the CPU time (user + system, in clock ticks) of
# the children this shell has reaped (a variable: $(...) would read its own
# subshell's)
children_ticks() {
	local stat
	read -r stat < "/proc/$BASHPID/stat"
	# shellcheck disable=SC2086 # the fields after "pid (comm) ", split
	set -- ${stat##*) }
	ticks=$((${14} + ${15}))
}
HZ=$(getconf CLK_TCK)
# limited CODE WANT ARGS...: under 512 MiB available, exit CODE with exactly
# WANT, in under 1 s of CPU time, CMD never run.  CPU time, not the clock's:
# a loaded host stretches the seconds a refusal takes, not its CPU (~20 ms here).
limited() {
	local code=$1 want=$2 rc t0 ticks
	shift 2
	children_ticks; t0=$ticks
	unshare -m sh -c 'mount --bind "$0" /proc/meminfo && exec "$@"' "$TMP/meminfo" \
		"$KP" record -q -o l.data "$@" -- touch "$TMP/ran" > out 2> err && rc=0 || rc=$?
	[ "$rc" = "$code" ] || fail "$*: exit $rc, want $code: $(cat err)"
	[ "$(sed 's/ need [0-9]*\.[0-9] MiB / need N MiB /' err)" = "$want" ] ||
		fail "$* said '$(cat err)', want '$want'"
	[ ! -e ran ] || fail "$*: the workload ran"
	children_ticks
	[ $((ticks - t0)) -lt "$HZ" ] || fail "$*: not refused at once: $((ticks - t0)) ticks of CPU time"
}
limited 1 "kprotperf record: --ring-size 2048 needs 2048.0 MiB of kernel memory for its BPF maps, more than half of the 512.0 MiB available (MemAvailable in /proc/meminfo): give a smaller --ring-size" \
	--ring-size 2048
limited 1 "kprotperf record: --max-tasks 4194304 needs 768.0 MiB of kernel memory for its BPF maps, more than half of the 512.0 MiB available (MemAvailable in /proc/meminfo): give a smaller --max-tasks" \
	--max-tasks 4194304
# each fits in half of 512 MiB alone (128 and 176 MiB), not both together: the larger is
# named; the total holds per-CPU maps, so its number depends on the machine
limited 1 "kprotperf record: --ring-size 128, --max-stacks 16384 and --max-tasks 1048576 need N MiB of kernel memory for the BPF maps together, more than half of the 512.0 MiB available (MemAvailable in /proc/meminfo): give a smaller --max-tasks" \
	--ring-size 128 --max-tasks 1048576
limited 2 "kprotperf record: invalid --max-stacks '16777216': expected 64..1048576" --max-stacks 16777216
limited 2 "kprotperf record: invalid --ring-size '3': expected a power of two, 1..2048 (MiB)" --ring-size 3
[ ! -e l.data ] && ! ls | grep -q '\.tmp\.' || fail "a file was left at -o: $(ls)"
# the defaults fit in far less
unshare -m sh -c 'mount --bind "$0" /proc/meminfo && exec "$@"' "$TMP/meminfo" \
	"$KP" record -q -o l.data -- "$ROOT/syscall-loop" 100 > /dev/null || fail "the default sizes were refused"
echo "map sizes are checked against the memory available"

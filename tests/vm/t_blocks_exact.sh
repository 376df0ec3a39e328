#!/bin/bash
# record --blocks counts exactly: __task_pid_nr_ns takes one fixed path for
# getppid, so under `record -r 3 --blocks __task_pid_nr_ns -- syscall-loop N`
# each run makes the same calls with the same instructions: the calls made in
# getppid are N per run, all with one and the same instruction count, and
# every run's block and edge counts (block_runs, block_run_edges) are
# identical.  On Debian's 6.1 (kprobe/kretprobe pairs, where the kernel cannot
# say what its kprobes missed) and 6.12 (the entry and return by kprobe.multi,
# the kernel's misses read from its links).
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
N=3000
F="func = '__task_pid_nr_ns'"

check() {	# $1: kernel label, $2: blocks.attach wanted, $3: 1 when lost_blocks_missed is due
	local D=$VM_SHARE/x.data calls value runs missed
	[ -s "$D" ] || fail "$1: no data file: $(cat "$VM_SHARE/x.err")"
	[ "$(q "$D" "SELECT value FROM meta WHERE key = 'blocks.attach'")" = "$2" ] ||
		fail "$1: entry and return attached by $(q "$D" "SELECT value FROM meta WHERE key = 'blocks.attach'"), not $2"
	read -r calls value < <(q "$D" "SELECT SUM(calls), SUM(insns) FROM block_contexts WHERE $F AND syscall = 110" | tr '|' ' ')
	[ "$calls" = $((3 * N)) ] || fail "$1: $calls calls in getppid, not $((3 * N))"
	[ $((value % calls)) = 0 ] || fail "$1: $value instructions in $calls getppid calls: not one value per call"
	value=$((value / calls))
	# every getppid call ran that many: at least that many calls have exactly it
	[ "$(q "$D" "SELECT count FROM block_values WHERE $F AND what = 'insns' AND value = $value")" -ge "$calls" ] ||
		fail "$1: fewer than $calls calls of $value instructions: $(q "$D" "SELECT value, count FROM block_values WHERE $F AND what = 'insns'" | tr '\n' ' ')"
	runs=$(q "$D" "SELECT COUNT(DISTINCT run) FROM block_runs WHERE $F")
	[ "$runs" = 3 ] || fail "$1: block counts for $runs runs, not 3"
	# the three runs alike, block by block and edge by edge; none unknown
	[ "$(q "$D" "SELECT COUNT(*) FROM (SELECT block FROM block_runs WHERE $F GROUP BY block
		HAVING COUNT(DISTINCT count) != 1 OR COUNT(count) != 3)")" = 0 ] ||
		fail "$1: runs differ: $(q "$D" "SELECT run, block, count FROM block_runs WHERE $F" | tr '\n' ' ')"
	[ "$(q "$D" "SELECT COUNT(*) FROM (SELECT edge FROM block_run_edges WHERE $F GROUP BY edge
		HAVING COUNT(DISTINCT count) != 1 OR COUNT(count) != 3)")" = 0 ] || fail "$1: run edges differ or are unknown"
	[ "$(q "$D" "SELECT COUNT(DISTINCT calls) FROM block_run_calls WHERE $F")" = 1 ] || fail "$1: calls differ between runs"
	missed=$(q "$D" "SELECT value FROM counters WHERE name = 'lost_blocks_missed'")
	if [ "$3" = 1 ]; then
		[ -n "$missed" ] || fail "$1: the kernel's kprobe misses were not read"
	else
		[ -z "$missed" ] || fail "$1: lost_blocks_missed written ($missed) where the kernel cannot say"
	fi
	echo "$1: $calls getppid calls of $value instructions each in __task_pid_nr_ns, 3 runs alike, attached by $2${missed:+, missed $missed}"
}

vm_prepare
vm_run <<GUEST || fail "guest script exited $?"
kprotperf record -q -F 99 -r 3 --blocks __task_pid_nr_ns -o /mnt/host/x.data -- syscall-loop $N 2> /mnt/host/x.err
GUEST
check 6.1 kprobe 0

vm_use_kernel linux-image-6.12-amd64
vm_run <<GUEST || fail "guest script exited $?"
kprotperf record -q -F 99 -r 3 --blocks __task_pid_nr_ns -o /mnt/host/x.data -- syscall-loop $N 2> /mnt/host/x.err
GUEST
check 6.12 kprobe.multi 1

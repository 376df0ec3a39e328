#!/bin/bash
# The core-operations suite: `core-ops all` measures every operation that
# `core-ops list` names, one line each, in order; and each operation makes
# exactly COUNT of its system call (the fixed amount of work the sweep's
# cells compare): getppid for null, pread64 for read-small, pwrite64 for
# write-small, clone for fork, sendto and recvfrom for unix, as kprotperf
# record counts them: a run of 2N operations makes N more than a run of N
# (the dynamic loader and the setup make a few of their own).
. "$(dirname "$0")/lib.sh"
CO=$ROOT/core-ops
[ -x "$CO" ] || fail "$CO missing: run make"
cd "$TMP" || fail "cd $TMP"
"$CO" list >list.txt || fail "core-ops list exited $?"
"$CO" all >all.txt 2>err || fail "core-ops all exited $?: $(cat err)"
names=$(awk '{print $1}' list.txt)
measured=$(sed -E 's/^core-ops ([a-z-]+): [0-9]+ operations in [0-9]+ batches: mean [0-9.]+ ns, kbest\(5, 5%\) [0-9.]+ ns \(spread [0-9.]+%, (NOT )?within tolerance\)$/\1/' all.txt)
[ "$measured" = "$names" ] || fail "core-ops all measured: $(cat all.txt) (list: $names)"
[ ! -s err ] || fail "core-ops all wrote on stderr: $(cat err)"
# a bad operation or count: exit 2, one line
"$CO" nope >out 2>err && fail "core-ops nope exited 0"
[ "$(cat err)" = "core-ops: no operation 'nope' (core-ops list shows them)" ] || fail "core-ops nope said: $(cat err)"
"$CO" null 0 >out 2>err && fail "core-ops null 0 exited 0"
[ "$(cat err)" = "core-ops: bad COUNT '0': want 1..100000000 operations" ] || fail "core-ops null 0 said: $(cat err)"
left=$(find . -name 'core-ops.*')
[ -z "$left" ] || fail "core-ops left files behind: $left"

need_bpf
N=300
calls() {	# $1 recording, $2 syscall: its calls
	q "$1" "SELECT calls FROM latency WHERE kind = 'syscall' AND name = '$2'"
}
counts() {	# $1 operation, then the syscalls it makes one of per operation
	local op=$1 s one two
	shift
	"$KP" record -q -o "$op-1.data" -- "$CO" "$op" $N >out || fail "record core-ops $op $N exited $?"
	"$KP" record -q -o "$op-2.data" -- "$CO" "$op" $((2 * N)) >out ||
		fail "record core-ops $op $((2 * N)) exited $?"
	for s in "$@"; do
		one=$(calls "$op-1.data" "$s") two=$(calls "$op-2.data" "$s")
		[ -n "$one" ] && [ -n "$two" ] && [ $((two - one)) = $N ] ||
			fail "core-ops $op: ${one:-no} $s calls for $N operations, ${two:-no} for $((2 * N))"
	done
}
counts null getppid
counts read-small pread64
counts write-small pwrite64
counts fork clone
counts unix sendto recvfrom
echo "core-ops: $(wc -l <list.txt) operations measured; null, read-small, write-small, fork and unix made $N of their system call"

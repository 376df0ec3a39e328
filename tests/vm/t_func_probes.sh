#!/bin/bash
# record --func on Debian's 6.1 kernel, where fentry and kprobes work:
# both methods count exactly N calls of __task_pid_nr_ns inside the
# workload's N getppid calls (it is called once per getppid); allocate_slab under big-fork is split by real slab caches; nested
# functions and allocate_slab's own recursion are timed without unmatched
# returns; a name two files define gets a kprobe per copy; wrong names get
# the errors a user can act on.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
N=3000
vm_prepare
vm_run <<GUEST || fail "guest script exited $?"
kprotperf record -q --probe fentry --func __task_pid_nr_ns -o /mnt/host/fentry.data -- syscall-loop $N
kprotperf record -q --probe kprobe --func __task_pid_nr_ns -o /mnt/host/kprobe.data -- syscall-loop $N
# in a child memory cgroup, slab accounting allocates each new slab's objcg
# vector with kmalloc, which can need a slab of its own: allocate_slab recurses
mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/kp
echo \$\$ > /sys/fs/cgroup/kp/cgroup.procs
kprotperf record -q -F 499 --func allocate_slab --func ksys_read --func vfs_read --func-stacks \
	-o /mnt/host/slab.data -- big-fork 50
# a function of which only compiler clones exist
clone=\$(sed -n 's/^[0-9a-f]* t \([a-z_]*\)\.isra\.0\$/\1/p' /proc/kallsyms | while read -r f; do
	grep -q " \$f\$" /proc/kallsyms || { echo "\$f"; break; }; done)
echo "\$clone" > /mnt/host/clone.name
set +e
# a static function name two files define: each copy needs its own kprobe
for dup in \$(awk '\$2 == "t" && NF == 3 && \$3 !~ /[.]/ {c[\$3]++} END {for (n in c) if (c[n] == 2) print n}' /proc/kallsyms | head -20); do
	# the workload runs while the probes are attached: it lists what the kernel registered
	kprotperf record -q --probe kprobe --func "\$dup" -o /mnt/host/dup.data -- \
		cat /sys/kernel/debug/kprobes/list > /mnt/host/kprobes.list 2> /dev/null && break
done
echo "\$dup" > /mnt/host/dup.name
kprotperf record -q --probe fentry --func "\$clone" -o /mnt/host/no.data -- true 2> /mnt/host/clone.err
echo \$? > /mnt/host/clone.rc
kprotperf record -q --probe kprobe --func "\$clone" -o /mnt/host/clone.data -- true 2>> /mnt/host/clone.err
kprotperf record -q --func alocate_slab -o /mnt/host/no.data -- true 2> /mnt/host/unknown.err
echo \$? > /mnt/host/unknown.rc
GUEST
S=$VM_SHARE
for m in fentry kprobe; do
	method=$(q "$S/$m.data" "SELECT method FROM funcs WHERE name = '__task_pid_nr_ns'")
	[[ $method == "$m"* ]] || fail "--probe $m used '$method'"
	inside=$(q "$S/$m.data" "SELECT calls FROM func_syscalls WHERE nr = 110")
	[ "$inside" = $N ] || fail "$m: $inside calls inside getppid, want $N"
	calls=$(q "$S/$m.data" "SELECT calls FROM latency WHERE kind = 'func'")
	hist=$(q "$S/$m.data" "SELECT SUM(count) FROM latency_hist WHERE kind = 'func'")
	[ "$hist" = "$calls" ] || fail "$m: histogram holds $hist of $calls calls"
	echo "$m ($method): $inside calls inside getppid, $calls in all"
done
D=$S/slab.data
id() { q "$D" "SELECT id FROM funcs WHERE name = '$1'"; }
slab=$(id allocate_slab)
[ "$(q "$D" "SELECT calls > 0 FROM latency WHERE kind = 'func' AND id = $slab")" = 1 ] ||
	fail "allocate_slab never called under big-fork"
caches=$(q "$D" "SELECT group_concat(context, ' ') FROM func_contexts WHERE func = $slab")
grep -qwE 'vm_area_struct|mm_struct|task_struct|anon_vma(_chain)?|kmalloc-[0-9k]+' <<<"$caches" ||
	fail "allocate_slab contexts are no slab caches: '$caches'"
read -r kr vr < <(q "$D" "SELECT (SELECT total_ns FROM latency WHERE kind = 'func' AND id = $(id ksys_read)),
	(SELECT total_ns FROM latency WHERE kind = 'func' AND id = $(id vfs_read))" | tr '|' ' ')
[ "$kr" -ge "$vr" ] || fail "nested vfs_read ($vr ns) took longer than ksys_read around it ($kr ns)"
[ "$(q "$D" "SELECT value FROM counters WHERE name = 'lost_func_unmatched_returns'")" = 0 ] ||
	fail "returns without their entries: the depth stack lost track"
rec=$(q "$D" "SELECT COUNT(*) FROM func_stacks s WHERE func = $slab AND (SELECT COUNT(*)
	FROM kstack_frames f JOIN ksyms k ON k.addr = (SELECT MAX(addr) FROM ksyms WHERE addr <= f.addr)
	WHERE f.stack = s.kstack AND k.name = 'allocate_slab') > 1")
[ "$rec" -gt 0 ] || fail "allocate_slab never ran inside itself: no recursion to check"
echo "allocate_slab: caches $caches; $rec stacks with allocate_slab inside allocate_slab, no unmatched returns"
"$KP" folded --weight latency "$D" > "$TMP/lat.folded" || fail "folded --weight latency exited $?"
grep -qE '^allocate_slab;.*copy_process_\[k\];.*allocate_slab_\[k\] [0-9]+$' "$TMP/lat.folded" ||
	fail "no fork path to allocate_slab in the latency flame graph: $(head -3 "$TMP/lat.folded")"
# the whole report first: grep -q stops reading at its match, and under pipefail
# the report's SIGPIPE would fail the test
R=$("$KP" report "$D") || fail "report exited $?"
grep -qE '^allocate_slab +(fentry|kprobe)' <<<"$R" || fail "report lacks the allocate_slab row"
clone=$(cat "$S/clone.name")
[ -n "$clone" ] || fail "the guest kernel has no clone-only function"
[ "$(cat "$S/clone.rc")" = 1 ] || fail "--probe fentry on clone-only $clone did not fail"
grep -q "$clone cannot be probed with fentry: only compiler clones of it exist" "$S/clone.err" ||
	fail "clone message: $(cat "$S/clone.err")"
[ "$(q "$S/clone.data" "SELECT symbol FROM funcs")" = "$clone.isra.0" ] ||
	fail "kprobe on clone-only $clone did not probe $clone.isra.0: $(cat "$S/clone.err")"
dup=$(cat "$S/dup.name")
[ -s "$S/dup.data" ] || fail "no twice-defined static function could be probed (last tried: $dup)"
[ "$(q "$S/dup.data" "SELECT symbol FROM funcs")" = "$dup,$dup" ] ||
	fail "both copies of $dup not probed: $(q "$S/dup.data" "SELECT symbol FROM funcs")"
addrs=$(grep -E " [kr]  $dup\+0x0 " "$S/kprobes.list" | awk '{print $1}' | sort -u | wc -l)
[ "$addrs" = 2 ] || fail "$dup: kprobes at $addrs distinct addresses, want 2: $(grep "$dup" "$S/kprobes.list")"
echo "$dup: both copies probed, each at its own address"
[ "$(cat "$S/unknown.rc")" = 1 ] || fail "unknown function accepted"
grep -q "closest: allocate_slab" "$S/unknown.err" || fail "unknown: $(cat "$S/unknown.err")"
echo "clone-only $clone: fentry refused, kprobe on $clone.isra.0; unknown names get suggestions"

#!/bin/bash
# kprotperf explore on this kernel: without kprobes it cannot count the
# target's blocks, so a search and a replay each get one line naming the
# reason and the way out, exit 1, and leave no folder or data file (a
# folder that was there already stays).  Where kprobes exist the VM tier
# tests explore (tests/vm/t_explore.sh).
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
[ -e /sys/bus/event_source/devices/kprobe ] &&
	skip "this kernel has kprobes: explore is tested in the VM tier instead"
want="kprotperf explore: this kernel has no kprobes (CONFIG_KPROBES not set), and explore counts --target's blocks with them: run it on a kernel with kprobes (in a VM: scripts/vm-run.sh)"
printf 'fork count=2 depth=1 hold=0\n' > one.scn
mkdir kept
for args in "-o ex" "-o kept" "--replay one.scn -o r.data"; do
	# shellcheck disable=SC2086
	"$KP" explore -q --target shuffle_freelist --budget 2 $args > out 2> err
	rc=$?
	[ "$rc" = 1 ] || fail "explore $args exited $rc: $(cat err)"
	[ "$(cat err)" = "$want" ] || fail "explore $args said: $(cat err)"
	[ ! -s out ] || fail "explore $args printed: $(cat out)"
done
[ ! -e ex ] && [ ! -e r.data ] || fail "a failed explore left $(ls)"
[ -d kept ] && [ -z "$(ls kept)" ] || fail "the folder given was removed or filled: $(ls -R kept)"
echo "explore without kprobes: one line, exit 1, nothing left"

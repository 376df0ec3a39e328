#!/bin/bash
# --func on this kernel: unknown names get suggestions, and a kernel without
# kprobes and without fentry gets one line saying so, not a fake recording.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
"$KP" record -q --func alocate_slab -o u.data -- true 2> err && fail "unknown name accepted"
grep -q "no kernel function matches 'alocate_slab' (closest: allocate_slab" err ||
	fail "unknown-name message: $(cat err)"
grep -q "inlined into all its callers" err || fail "no word on inlined functions: $(cat err)"
[ ! -e u.data ] || fail "data file written for an unknown function"
[ -e /sys/bus/event_source/devices/kprobe ] &&
	skip "this kernel has kprobes: the no-probe message is tested in the VM tier instead"
"$KP" record -q --func allocate_slab -o f.data -- true 2> err && fail "--func succeeded without kprobes"
[ "$(wc -l < err)" = 1 ] || fail "more than one error line: $(cat err)"
grep -q "no kprobes (CONFIG_KPROBES not set)" err || fail "capability message: $(cat err)"
grep -q "still work without --func" err || fail "no way out named: $(cat err)"
[ ! -e f.data ] || fail "data file written though --func could not probe"
cat err

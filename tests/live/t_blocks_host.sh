#!/bin/bash
# record --blocks on this kernel: a kernel without kprobes gets one line
# naming the function, the reason and the way out, and no data file.
# Where kprobes exist the VM tier tests --blocks (tests/vm/t_blocks.sh).
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
[ -e /sys/bus/event_source/devices/kprobe ] &&
	skip "this kernel has kprobes: --blocks is tested in the VM tier instead"
"$KP" record -q --blocks allocate_slab -o b.data -- true 2> err && fail "--blocks succeeded without kprobes"
[ "$(wc -l < err)" = 1 ] || fail "more than one error line: $(cat err)"
grep -q "^kprotperf record: --blocks allocate_slab: this kernel has no kprobes (CONFIG_KPROBES not set)" err ||
	fail "capability message: $(cat err)"
grep -q "sampling and --func work without" err || fail "no way out named: $(cat err)"
[ ! -e b.data ] || fail "data file written though --blocks could not probe"
# the option's own errors
"$KP" record -q --blocks-limit 0 --blocks allocate_slab -o b.data -- true 2> err && fail "--blocks-limit 0 accepted"
grep -q "1..1024" err || fail "--blocks-limit range: $(cat err)"
cat err

#!/bin/bash
# diff --blocks explains a change of input by the variable that drove it:
# Debian's 6.1 booted with its default slab orders and with
# slub_max_order=0, which shrinks the slabs of caches that use pages of
# higher order, each recorded with --repeat 3 --blocks shuffle_freelist
# under big-fork.  The diff names the freelist loop as changed (its trips
# per call, significantly) and its bound slab->objects as the cause, with
# the caches whose objects per slab changed: exactly those whose
# /sys/kernel/slab/CACHE/objs_per_slab (read independently in each boot)
# differs between the boots, each with both values.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-400}
boot() {	# $1: name, $2: kernel command line
	vm_run "$2" <<GUEST || fail "guest script ($1) exited $?"
kprotperf record -q -F 99 -r 3 --blocks shuffle_freelist --vmlinux $VM_GUEST_VMLINUX \
	-o /mnt/host/$1.data -- big-fork 30 >/dev/null
for c in /sys/kernel/slab/*; do echo "\${c##*/} \$(cat "\$c/objs_per_slab")"; done > /mnt/host/$1.objs
GUEST
	cp "$VM_SHARE/$1.data" "$VM_SHARE/$1.objs" "$TMP/"
}
boot def ""
boot ord0 slub_max_order=0
J=$TMP/d.json
"$KP" diff --blocks --json --vmlinux "$VM_VMLINUX" "$TMP/def.data" "$TMP/ord0.data" >"$J" ||
	fail "diff --blocks exited $?"
python3 - "$J" "$TMP/def.objs" "$TMP/ord0.objs" <<'EOF' || fail "diff --blocks does not explain slub_max_order=0"
import json, sys
objs = [dict(l.split() for l in open(p)) for p in sys.argv[2:4]]
f = json.load(open(sys.argv[1]))["functions"][0]
loop = [l for l in f["loops"] if l["bound"]["base"] and l["bound"]["base"]["expr"] == "slab->objects"]
assert len(loop) == 1, [l["bound"] for l in f["loops"]]
loop = loop[0]
t = loop["trips_per_call"]
assert t["significant"] and t["method"] == "bootstrap", t
c = loop["cause"]
assert c and c["base_bound"] == c["hardened_bound"] == "slab->objects", c
seen = {x["ctx"]: x for x in loop["bound"]["base"]["values"]}
seen_h = {x["ctx"]: x for x in loop["bound"]["hardened"]["values"]}
moved = {k for k in seen if k in seen_h and k in objs[0] and k in objs[1] and objs[0][k] != objs[1][k]}
assert moved, "no cache the workload used changed its objects per slab"
got = {x["ctx"]: x for x in c["changed"]}
assert set(got) == moved, (sorted(got), sorted(moved))
for k, x in got.items():
    assert (x["base"], x["hardened"]) == (int(objs[0][k]), int(objs[1][k])), (k, x, objs[0][k], objs[1][k])
print("loop at %s:%d: %.2f -> %.2f trips per call [%+.1f%%, %+.1f%%]; %s" % (loop["file"], loop["line"],
      t["base"], t["hardened"], t["ci_low_pct"], t["ci_high_pct"], c["text"]))
EOF
"$KP" diff --blocks --vmlinux "$VM_VMLINUX" "$TMP/def.data" "$TMP/ord0.data" >"$TMP/d.txt" || fail "diff --blocks (text) exited $?"
grep -q "^  loop at mm/slub.c:[0-9]*: .* trips per call, .*; its bound slab->objects went " "$TMP/d.txt" ||
	fail "the text names no loop and its bound: $(head -20 "$TMP/d.txt")"

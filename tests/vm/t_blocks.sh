#!/bin/bash
# record --blocks on Debian's 6.1 kernel (SLAB_FREELIST_RANDOM=y), where
# shuffle_freelist is inlined into allocate_slab: both recorded at once
# while big-fork runs, the instance found through the -dbg vmlinux's DWARF.
# (a) The freelist loop, whose bound the recording names slab->objects and
#     reads in every call, runs slab->objects - 1 times in every call; per
#     slab cache its most common value is /sys/kernel/slab/CACHE/objs_per_slab
#     (read independently), any other one smaller (a fall-back slab).
# (b) The counts hold together, for the function and the instance alike:
#     the entry block ran once per call, the edges leaving carry every
#     complete call, flow is conserved at every block, each complete call has
#     its instructions and its trips recorded, a loop's iterations are its
#     trips summed; the parent counts the instance's loop as often as the
#     instance does.
# report --blocks and its --json agree with the tables.  Refused in one line
# each: more blocks than --blocks-limit, a name that is nowhere, an inlined
# function without the kernel's DWARF.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-400}
vm_run <<GUEST || fail "guest script exited $?"
kprotperf record -F 99 --blocks allocate_slab --blocks shuffle_freelist --vmlinux $VM_GUEST_VMLINUX \
	-o /mnt/host/b.data -- big-fork 30 2> /mnt/host/b.err
for c in /sys/kernel/slab/*; do echo "\${c##*/} \$(cat "\$c/objs_per_slab")"; done > /mnt/host/objs
set +e
kprotperf record -q --blocks allocate_slab --blocks-limit 2 -o /mnt/host/no.data -- true 2> /mnt/host/limit.err
echo \$? > /mnt/host/limit.rc
kprotperf record -q --blocks no_such_function_kp --vmlinux $VM_GUEST_VMLINUX -o /mnt/host/no.data -- true 2> /mnt/host/nowhere.err
echo \$? > /mnt/host/nowhere.rc
kprotperf record -q --blocks shuffle_freelist -o /mnt/host/no.data -- true 2> /mnt/host/nodwarf.err
echo \$? > /mnt/host/nodwarf.rc
true
GUEST
S=$VM_SHARE
D=$S/b.data
[ -s "$D" ] || fail "no data file: $(cat "$S/b.err")"
cat "$S/b.err"
[ ! -e "$S/no.data" ] || fail "a data file was written for a refused --blocks"
for e in limit nowhere nodwarf; do
	[ "$(cat "$S/$e.rc")" = 1 ] && [ "$(wc -l <"$S/$e.err")" = 1 ] || fail "$e: rc $(cat "$S/$e.rc"): $(cat "$S/$e.err")"
done
grep -q "^kprotperf record: --blocks allocate_slab: [0-9]* basic blocks, more than the 2 probes --blocks-limit allows; raise --blocks-limit" "$S/limit.err" ||
	fail "limit: $(cat "$S/limit.err")"
grep -q "^kprotperf record: --blocks no_such_function_kp: no function of that name in /proc/kallsyms or the kernel's DWARF" "$S/nowhere.err" ||
	fail "nowhere: $(cat "$S/nowhere.err")"
grep -q "^kprotperf record: --blocks shuffle_freelist: no function of that name in /proc/kallsyms; if it is inlined into all its callers, kprotperf counts it at each inline instance with the kernel's debug info: none found for $VM_KV here (install linux-image-$VM_KV-dbg, or give its vmlinux with --vmlinux)$" "$S/nodwarf.err" ||
	fail "nodwarf: $(cat "$S/nodwarf.err")"

[ "$(q "$D" "SELECT name, parent, call_line FROM block_inlines WHERE func = 'shuffle_freelist'")" = "shuffle_freelist|allocate_slab|1978" ] ||
	fail "shuffle_freelist is not recorded as the instance in allocate_slab: $(q "$D" "SELECT * FROM block_inlines")"

# (b), for each of the two
for fn in allocate_slab shuffle_freelist; do
	F="func = '$fn'"
	read -r calls complete lost < <(q "$D" "SELECT calls, complete, lost FROM block_funcs WHERE $F" | tr '|' ' ')
	[ "${calls:-0}" -gt 0 ] || fail "$fn never called under big-fork"
	[ "$lost" = 0 ] && [ "$complete" = "$calls" ] || fail "$fn: calls $calls, complete $complete, lost $lost"
	[ "$(q "$D" "SELECT COUNT(*) FROM blocks WHERE $F AND count IS NULL")" = 0 ] || fail "$fn: blocks without counts"
	entry=$(q "$D" "SELECT count FROM blocks WHERE $F AND block = (SELECT dst FROM block_edges WHERE $F AND src = -1)")
	[ "$entry" = "$calls" ] || fail "$fn: entry block ran $entry times for $calls calls"
	[ "$(q "$D" "SELECT COUNT(*) FROM block_edges WHERE $F AND count IS NULL")" = 0 ] || fail "$fn: edges left unknown"
	out=$(q "$D" "SELECT SUM(count) FROM block_edges WHERE $F AND dst = -2")
	[ "$out" = "$complete" ] || fail "$fn: edges leaving carry $out calls, $complete ended"
	bad=$(q "$D" "SELECT b.block FROM blocks b WHERE b.$F AND (b.count != (SELECT SUM(count) FROM block_edges e WHERE e.$F AND e.dst = b.block)
		OR b.count != (SELECT SUM(count) FROM block_edges e WHERE e.$F AND e.src = b.block)) LIMIT 1")
	[ -z "$bad" ] || fail "$fn: block $bad: its count is not its edges'"
	[ "$(q "$D" "SELECT SUM(count) FROM block_values WHERE $F AND what = 'insns'")" = "$complete" ] ||
		fail "$fn: instructions recorded for other than its $complete calls"
	bad=$(q "$D" "SELECT loop FROM block_values WHERE $F AND what = 'trips' GROUP BY loop HAVING SUM(count) != $complete LIMIT 1")
	[ -z "$bad" ] || fail "$fn: loop $bad: trips recorded for other than $complete calls"
	bad=$(q "$D" "SELECT l.loop FROM block_loops l WHERE l.$F AND l.loop < 16 AND l.iterations !=
		(SELECT SUM(value * count) FROM block_values v WHERE v.$F AND v.what = 'trips' AND v.loop = l.loop) LIMIT 1")
	[ -z "$bad" ] || fail "$fn: loop $bad: iterations are not the sum of its trips"
	[ "$(q "$D" "SELECT SUM(calls) FROM block_contexts WHERE $F")" = "$complete" ] || fail "$fn: contexts miss calls"
	echo "$fn: $calls calls, $(q "$D" "SELECT COUNT(*) FROM blocks WHERE $F") blocks, $(q "$D" "SELECT COUNT(*) FROM block_loops WHERE $F") loops"
done
for c in lost_blocks_values lost_blocks_unmatched lost_blocks_side_entries lost_blocks_bounds; do
	[ "$(q "$D" "SELECT value FROM counters WHERE name = '$c'")" = 0 ] || fail "$c: $(q "$D" "SELECT value FROM counters WHERE name = '$c'")"
done

# (a) the freelist loop: named, read in every call, trips = bound - 1 in every call
F="func = 'shuffle_freelist'"
L=$(q "$D" "SELECT loop FROM block_bounds WHERE $F AND bound = 'slab->objects' AND cond = 'idx < slab->objects'")
[ -n "$L" ] || fail "no loop of shuffle_freelist bounded by slab->objects: $(q "$D" "SELECT * FROM block_bounds WHERE $F")"
[ "$(q "$D" "SELECT SUM(count) FROM block_bound_values WHERE $F AND loop = $L")" = "$complete" ] ||
	fail "the bound was read in $(q "$D" "SELECT SUM(count) FROM block_bound_values WHERE $F AND loop = $L") of $complete calls"
bad=$(q "$D" "SELECT ctx, bound, trips FROM block_bound_values WHERE $F AND loop = $L AND trips != bound - 1 LIMIT 3")
[ -z "$bad" ] || fail "calls whose trips are not slab->objects - 1: $bad"
# the parent saw the same loop run as often
[ "$(q "$D" "SELECT iterations FROM block_loops WHERE $F AND loop = $L")" = \
	"$(q "$D" "SELECT MAX(iterations) FROM block_loops WHERE func = 'allocate_slab' AND head = (SELECT b.block FROM blocks b WHERE b.func = 'allocate_slab'
		AND b.start = (SELECT s.start FROM blocks s JOIN block_loops l ON l.head = s.block AND l.func = s.func WHERE s.$F AND l.loop = $L))")" ] ||
	fail "allocate_slab and its instance count the freelist loop differently"
n=0
while IFS='|' read -r ctx mode top; do
	want=$(awk -v c="$ctx" '$1 == c {print $2}' "$S/objs")
	[ -n "$want" ] || continue
	[ "$mode" = "$want" ] && [ "$top" -le "$want" ] ||
		fail "$ctx: slab->objects most often $mode (at most $top), objs_per_slab says $want"
	n=$((n + 1))
done < <(q "$D" "SELECT ctx, (SELECT bound FROM block_bound_values w WHERE w.$F AND w.loop = $L AND w.ctx = v.ctx ORDER BY count DESC LIMIT 1),
	MAX(bound) FROM block_bound_values v WHERE v.$F AND v.loop = $L AND v.ctx != '' GROUP BY ctx")
[ "$n" -ge 3 ] || fail "only $n slab caches seen in the freelist loop"
echo "freelist loop: trips = slab->objects - 1 in all $complete calls; slab->objects = objs_per_slab in all $n caches"

# report --blocks reads the same file whole, with the kernel's vmlinux for the
# disassembly and lines: its figures are the tables', and it says the relation
"$KP" report --blocks --json --vmlinux "$VM_VMLINUX" "$D" >"$S/rb.json" || fail "report --blocks exited $?"
python3 - "$S/rb.json" "$complete" "$L" <<'PY' || fail "report --blocks --json disagrees with the tables"
import json, sys
fs = {x["function"]: x for x in json.load(open(sys.argv[1]))["functions"]}
f = fs["shuffle_freelist"]
assert f["calls"] == int(sys.argv[2]), f["calls"]
assert f["inline"]["parent"] == "allocate_slab", f["inline"]
assert all(b["file"] and b["line"] > 0 and b["instructions"] for b in f["blocks"]), "a block without its line"
b = [l for l in f["loops"] if l["loop"] == int(sys.argv[3])][0]["bound"]
assert b["expr"] == "slab->objects" and b["relation"]["offset"] == -1 and b["relation"]["every_call"], b
assert all(b["file"] and b["line"] > 0 for b in fs["allocate_slab"]["blocks"]), "allocate_slab: a block without its line"
PY
"$KP" report --blocks --func shuffle_freelist --vmlinux "$VM_VMLINUX" "$D" >"$S/rb.txt" || fail "report --blocks exited $?"
grep -q "^    trips per call = slab->objects - 1 in all [0-9,]* calls$" "$S/rb.txt" ||
	fail "report --blocks does not say the loop ran slab->objects - 1 times: $(grep -A3 bound: "$S/rb.txt")"
echo "report --blocks: $(wc -l <"$S/rb.txt") lines"
[ -z "${KP_KEEP_REPORT:-}" ] || cp "$S/rb.txt" "$KP_KEEP_REPORT"

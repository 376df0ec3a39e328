#!/bin/bash
# record --blocks on Debian's 6.1 kernel (SLAB_FREELIST_RANDOM=y, where
# shuffle_freelist is inlined into allocate_slab): --blocks allocate_slab
# while big-fork runs finds allocate_slab's loops, and its counts are
# consistent: the entry block ran once per call, the edges leaving the
# function carry every complete call, each complete call has its
# instructions and its trips recorded, split by slab cache, and the freelist
# loop of a cache runs about as many times per call as its slabs hold objects
# (/sys/kernel/slab/CACHE/objs_per_slab, read independently).  An inlined-only
# function and one with more blocks than --blocks-limit get one line each.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-400}
vm_run <<'GUEST' || fail "guest script exited $?"
kprotperf record -F 99 --blocks allocate_slab -o /mnt/host/b.data -- big-fork 30 2> /mnt/host/b.err
for c in /sys/kernel/slab/*; do echo "${c##*/} $(cat "$c/objs_per_slab")"; done > /mnt/host/objs
set +e
kprotperf record -q --blocks shuffle_freelist -o /mnt/host/no.data -- true 2> /mnt/host/inlined.err
echo $? > /mnt/host/inlined.rc
kprotperf record -q --blocks allocate_slab --blocks-limit 2 -o /mnt/host/no.data -- true 2> /mnt/host/limit.err
echo $? > /mnt/host/limit.rc
true
GUEST
S=$VM_SHARE
D=$S/b.data
[ -s "$D" ] || fail "no data file: $(cat "$S/b.err")"
cat "$S/b.err"
[ ! -e "$S/no.data" ] || fail "a data file was written for a refused --blocks"
for e in inlined limit; do
	[ "$(cat "$S/$e.rc")" = 1 ] && [ "$(wc -l < "$S/$e.err")" = 1 ] || fail "$e: rc $(cat "$S/$e.rc"): $(cat "$S/$e.err")"
done
grep -q "^kprotperf record: --blocks shuffle_freelist: no function of that name in /proc/kallsyms: it is inlined" "$S/inlined.err" ||
	fail "inlined: $(cat "$S/inlined.err")"
grep -q "^kprotperf record: --blocks allocate_slab: [0-9]* basic blocks, more than the 2 probes --blocks-limit allows; raise --blocks-limit" "$S/limit.err" ||
	fail "limit: $(cat "$S/limit.err")"

F="func = 'allocate_slab'"
read -r calls complete lost < <(q "$D" "SELECT calls, complete, lost FROM block_funcs WHERE $F" | tr '|' ' ')
[ "${calls:-0}" -gt 0 ] || fail "allocate_slab never called under big-fork"
[ "$lost" = 0 ] && [ "$complete" = "$calls" ] || fail "calls $calls, complete $complete, lost $lost"
[ "$(q "$D" "SELECT COUNT(*) FROM blocks WHERE $F AND count IS NULL")" = 0 ] || fail "blocks without counts: $(q "$D" "SELECT block, start FROM blocks WHERE $F AND count IS NULL"); edges: $(q "$D" "SELECT src, dst, kind, count FROM block_edges WHERE $F" | tr "\n" " ")"
nb=$(q "$D" "SELECT COUNT(*) FROM blocks WHERE $F")
echo "allocate_slab: $calls calls, $nb blocks"
# (b) the entry block ran once per call; the edges leaving carry every complete call
entry=$(q "$D" "SELECT count FROM blocks WHERE $F AND block = (SELECT dst FROM block_edges WHERE $F AND src = -1)")
[ "$entry" = "$calls" ] || fail "entry block ran $entry times for $calls calls"
[ "$(q "$D" "SELECT COUNT(*) FROM block_edges WHERE $F AND count IS NULL")" = 0 ] ||
	fail "edges left unknown: $(q "$D" "SELECT edge, src, dst, kind FROM block_edges WHERE $F AND count IS NULL")"
out=$(q "$D" "SELECT SUM(count) FROM block_edges WHERE $F AND dst = -2")
[ "$out" = "$complete" ] || fail "edges leaving carry $out calls, $complete returned"
# flow: each block's count is the sum of its in-edges and of its out-edges
bad=$(q "$D" "SELECT b.block FROM blocks b WHERE b.$F AND (b.count != (SELECT SUM(count) FROM block_edges e WHERE e.$F AND e.dst = b.block)
	OR b.count != (SELECT SUM(count) FROM block_edges e WHERE e.$F AND e.src = b.block)) LIMIT 1")
[ -z "$bad" ] || fail "block $bad: its count is not its edges'"
# a loop, and every complete call's instructions (> 0) and trips recorded
nloops=$(q "$D" "SELECT COUNT(*) FROM block_loops WHERE $F")
[ "$nloops" -gt 0 ] || fail "no loop found in allocate_slab"
[ "$(q "$D" "SELECT SUM(count) FROM block_values WHERE $F AND what = 'insns'")" = "$complete" ] ||
	fail "instructions recorded for $(q "$D" "SELECT SUM(count) FROM block_values WHERE $F AND what = 'insns'") of $complete calls"
[ "$(q "$D" "SELECT MIN(value) FROM block_values WHERE $F AND what = 'insns'")" -gt 0 ] || fail "a call of 0 instructions"
bad=$(q "$D" "SELECT loop FROM block_values WHERE $F AND what = 'trips' GROUP BY loop HAVING SUM(count) != $complete LIMIT 1")
[ -z "$bad" ] || fail "loop $bad: trips recorded for other than $complete calls"
# a loop's iterations are the per-call trips summed
bad=$(q "$D" "SELECT l.loop FROM block_loops l WHERE l.$F AND l.loop < 16 AND l.iterations !=
	(SELECT SUM(value * count) FROM block_values v WHERE v.$F AND v.what = 'trips' AND v.loop = l.loop) LIMIT 1")
[ -z "$bad" ] || fail "loop $bad: iterations are not the sum of its trips"
[ "$(q "$D" "SELECT COUNT(DISTINCT ctx) FROM block_values WHERE $F AND ctx != ''")" -gt 0 ] || fail "no slab cache context"
q "$D" "SELECT loop, head, depth, entries, iterations FROM block_loops WHERE $F"
q "$D" "SELECT loop, ctx, value, count FROM block_values WHERE $F AND what = 'trips' AND value > 0 ORDER BY count DESC LIMIT 12"
# (a) the freelist loop: for each cache, its most common trips per call are the
# objects per slab less one (a slab's first object starts the freelist), as
# /sys/kernel/slab/CACHE/objs_per_slab says; fall-back smaller slabs are rarer
loops=""
for l in $(q "$D" "SELECT loop FROM block_loops WHERE $F AND loop < 16"); do
	ok=1 n=0
	while IFS='|' read -r ctx mode; do
		want=$(awk -v c="$ctx" '$1 == c {print $2 - 1}' "$S/objs")
		[ -n "$want" ] || continue
		n=$((n + 1))
		[ "$mode" = "$want" ] || ok=0
	done < <(q "$D" "SELECT ctx, (SELECT value FROM block_values w WHERE w.$F AND w.what = 'trips' AND w.loop = $l AND w.ctx = v.ctx
		ORDER BY count DESC LIMIT 1) FROM block_values v WHERE v.$F AND v.what = 'trips' AND v.loop = $l AND v.ctx != '' GROUP BY ctx")
	[ "$ok" = 1 ] && [ "$n" -gt 0 ] && loops="$loops $l"
done
[ -n "$loops" ] || fail "no loop runs objs_per_slab - 1 times per call for every cache"
echo "loops running objs_per_slab - 1 times per call, cache by cache:$loops"
# report --blocks reads the same file whole, with the kernel's vmlinux for the
# disassembly and lines: its calls and blocks are the tables', every block
# has a source line, and its text names the loops' trips per slab cache
"$KP" report --blocks --json --vmlinux "$VM_RO_SHARE/vmlinux-$VM_KV" "$D" > "$S/rb.json" ||
	fail "report --blocks exited $?"
python3 - "$S/rb.json" "$calls" "$nb" <<'PY' || fail "report --blocks --json disagrees with the tables"
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["functions"] if x["function"] == "allocate_slab"][0]
assert f["calls"] == int(sys.argv[2]), f["calls"]
assert len(f["blocks"]) == int(sys.argv[3]), len(f["blocks"])
assert all(b["file"] and b["line"] > 0 for b in f["blocks"]), "a block without a line"
assert all(b["instructions"] for b in f["blocks"]), "a block without its disassembly"
PY
"$KP" report --blocks --vmlinux "$VM_RO_SHARE/vmlinux-$VM_KV" "$D" > "$S/rb.txt" || fail "report --blocks exited $?"
grep -q "slub.c" "$S/rb.txt" || fail "report --blocks names no line of mm/slub.c"
echo "report --blocks: $(wc -l < "$S/rb.txt") lines"
[ -z "${KP_KEEP_REPORT:-}" ] || cp "$S/rb.txt" "$KP_KEEP_REPORT"

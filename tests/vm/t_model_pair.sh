#!/bin/bash
# The machine model on the FREELIST_RANDOM pair that t_kernel_pair builds (no
# new build): `kprotperf record --model` of big-fork under scripts/vm-run.sh
# --model cache on the baseline build twice and on the hardened build once,
# the counts merged into each recording by vm-run.sh, then `diff --model`.
# Asserts only what the model makes certain:
#   - each recording holds the counts of exactly its one window, complete;
#   - shuffle_freelist (inlined into allocate_slab, named through the
#     build's DWARF) has instructions on the hardened side only;
#   - the two baseline runs count the same instructions in allocate_slab to
#     within 5 % (the same program on the same kernel: what differs is the
#     slab caches' state and the timer's interrupts, not the code);
#   - diff --json has every field the docs promise for each function;
#   - the baseline's and the hardened boot simulate a second geometry, LL
#     1M instead of 8M, of the same access stream: diff --model matches
#     the two geometries by size and, per function on each side, counts
#     the same instructions, D1 reads and writes and I1 and D1 misses in
#     both (the L1s are equal) and no fewer LL misses at 1M than at 8M
#     (LRU, sets picked by address bits, one line size and associativity,
#     the same references: each set of the 8M cache sees a subset of one
#     set's of the 1M cache, so a hit at 1M is one at 8M); base2's one
#     geometry leaves the baseline's second one listed as its own;
#   - inject refuses the hardened run's table on a baseline recording
#     (another kernel build), and a recording merged once;
#   - the kernel half of t_model (issue 29, item 6), here because this is
#     where the baseline build boots (t_model.sh runs Debian's kernel, whose
#     allocate_slab has the shuffle's loops): in the first baseline boot,
#     after the model's window, `record --blocks allocate_slab` of the same
#     workload.  annotate --model -f allocate_slab (its graph from the
#     build's file, the counts laid on it, no probe in the model's run)
#     finds the plain freelist loop at the offset where --blocks finds it
#     in the running text, bounded there by slab->objects with trips per
#     call = objects - 1 in every call.  The two runs allocate different
#     slabs, so their totals are not compared: what is certain is that
#     the model's loop head runs exactly objects - 1 times per entry for
#     each call's cache, so its trips per entry lie within the per-cache
#     objects - 1 that --blocks saw (the same caches: big-fork's), and
#     that every allocate_slab call enters the loop once (its entries
#     equal the entry block's count).  No boot added.
#   - the data view of the first baseline boot (issue 58): every patched
#     kernel instruction the window ran kept with its running bytes and
#     none "unknown" in report --model --data; the string helpers' call
#     sites kept, clear_page_erms's writes typed at a caller as "(page
#     data)" (big-fork's page faults zero pages).
# kernels: hard base
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
FORKS=${KP_MODEL_FORKS:-10}
vm_need_model
KHARD=$(vm_kbuild hard)
KBASE=$(vm_kbuild base)

# a second geometry, LL 1M, in two of the boots (the first is vm-run.sh's default)
# shellcheck disable=SC2054 # the commas are within each option's value
SWEEP=(--LL=8388608,16,64 --LL=1048576,16,64)
vm_model_pair_run "model pair" base "$KBASE" "kprotperf record --blocks allocate_slab -q -o b.data -- big-fork $FORKS" "${SWEEP[@]}"
vm_model_pair_run "model pair" base2 "$KBASE" ""
vm_model_pair_run "model pair" hard "$KHARD" "" "${SWEEP[@]}"

J=$TMP/diff.json
"$KP" diff --model --json -n 100000 "$TMP/base/m.data" "$TMP/hard/m.data" >"$J" ||
	fail "diff --model base hard failed"
python3 - "$J" <<'EOF' || fail "diff --model base hard: $(head -c 2000 "$J")"
import json, sys
d = json.load(open(sys.argv[1]))
# the cache fields, and with a table of format 2 the TLBs', the events' and est_cycles
fields = {"name", "module", "insns", "i1_misses", "d1_reads", "d1_read_misses", "d1_writes",
          "d1_write_misses", "ll_misses", "itlb_misses", "dtlb_misses", "cr3_writes",
          "tlb_flushes", "serializing", "indirect_branches", "returns", "retpolines",
          "return_thunks", "est_cycles"}
for r in d["functions"]:
    for s in ("base", "hardened"):
        assert r[s] is None or set(r[s]) == fields, (s, r)
inl = [r for r in d["inlines"] if r["name"] == "shuffle_freelist"]
assert inl and all(r["only"] == "hardened" and r["hardened"]["insns"] > 0 for r in inl), inl
top = d["functions"][:5]
print("diff --model: shuffle_freelist %d instructions, hardened only (inlined in %s); "
      "most changed misses: %s" % (sum(r["hardened"]["insns"] for r in inl),
      ",".join(r["module"] for r in inl),
      ", ".join("%s %+d" % (r["name"], r["delta_misses"]) for r in top)))
EOF

python3 - "$J" <<'EOF' || fail "diff --model base hard: the geometries disagree where one access stream makes them agree"
import json, sys
g = json.load(open(sys.argv[1]))["geometries"]
assert [(x["base_geometry"], x["hardened_geometry"], x["ll"]["size"]) for x in g] == \
    [(0, 0, 8388608), (1, 1, 1048576)], g
same = ("insns", "d1_reads", "d1_writes", "i1_misses", "d1_read_misses", "d1_write_misses")
bad = []
for s in ("base", "hardened"):
    at = [{r["name"] + " " + r["module"]: r[s] for r in x["functions"] if r[s]} for x in g]
    assert at[0].keys() == at[1].keys() and len(at[0]) > 100, (s, len(at[0]), len(at[1]))
    for name, r8 in at[0].items():
        r1 = at[1][name]
        bad += [(s, name, k, r8[k], r1[k]) for k in same if r8[k] != r1[k]]
        if r1["ll_misses"] < r8["ll_misses"]:
            bad.append((s, name, "ll_misses 1M < 8M", r1["ll_misses"], r8["ll_misses"]))
assert not bad, bad[:10]
k = [x["kernel"] for x in g]
print("geometries: LL 8M and 1M matched, %d functions agree; the kernel's change in LL misses"
      " %+d at 8M, %+d at 1M (of %d, %d)" % (len(at[0]), k[0]["delta_ll_misses"],
      k[1]["delta_ll_misses"], k[0]["base"]["ll_misses"], k[1]["base"]["ll_misses"]))
EOF

"$KP" diff --model --json -n 100000 "$TMP/base/m.data" "$TMP/base2/m.data" >"$J" ||
	fail "diff --model base base2 failed"
python3 - "$J" <<'EOF' || fail "the two baseline runs differ in allocate_slab's instructions"
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["functions"] if r["name"] == "allocate_slab"][0]
b, h = r["base"]["insns"], r["hardened"]["insns"]
assert b > 0 and abs(h - b) <= 0.05 * b, (b, h)
print("null pair: allocate_slab %d and %d instructions (%+.2f%%)" % (b, h, 100.0 * (h - b) / b))
g = [(x["base_geometry"], x["hardened_geometry"], x["only"]) for x in d["geometries"]]
assert g == [(0, 0, None), (1, None, "base")], g
EOF

# the hardened boot's table onto a baseline recording: another kernel build
cp "$TMP/base2/m.data" "$TMP/again.data"
rc=0
"$KP" inject --model "$TMP/hard/model.txt" "$TMP/again.data" 2>"$TMP/err" || rc=$?
grep -q "the table counted kernel build .*, the recording was made on" "$TMP/err" && [ "$rc" = 1 ] ||
	fail "inject of another build's table: exit $rc, $(cat "$TMP/err")"
cmp -s "$TMP/base2/m.data" "$TMP/again.data" || fail "a refused inject changed the recording"
rc=0
"$KP" inject --model "$TMP/base2/model.txt" "$TMP/again.data" 2>"$TMP/err" || rc=$?
grep -q "it holds the model's counts already" "$TMP/err" && [ "$rc" = 1 ] ||
	fail "a second inject: exit $rc, $(cat "$TMP/err")"
echo "inject: another build's table and a second merge refused, the recording unchanged"

# the kernel half of t_model: the model's loop against --blocks' (header)
[ -s "$TMP/base/b.data" ] || fail "record --blocks allocate_slab left no recording"
"$KP" annotate --model --json -f allocate_slab "$TMP/base/m.data" >"$TMP/ann.json" 2>"$TMP/err" ||
	fail "annotate --model -f allocate_slab: $(cat "$TMP/err")"
"$KP" report --blocks --json --func allocate_slab "$TMP/base/b.data" >"$TMP/blk.json" 2>"$TMP/err" ||
	fail "report --blocks allocate_slab: $(cat "$TMP/err")"
python3 - "$TMP/ann.json" "$TMP/blk.json" <<'EOF' || fail "the model's allocate_slab loop is not --blocks'"
import json, sys
m = json.load(open(sys.argv[1]))["functions"][0]
b = [f for f in json.load(open(sys.argv[2]))["functions"] if f["function"] == "allocate_slab"][0]
bl = [l for l in b["loops"] if l.get("bound") and "objects" in l["bound"]["expr"]]
assert len(bl) == 1, b["loops"]
bl = bl[0]
assert bl["bound"]["relation"]["every_call"], bl["bound"]
off = b["blocks"][bl["head"]]["start"] - b["addr"]
ml = [l for l in m["loops"] if m["blocks"][l["head"]]["offset"] == off]
assert len(ml) == 1, (off, m["loops"])
ml = ml[0]
# per cache: trips = the bound's value + the relation's offset, in every call
rel = bl["bound"]["relation"]["offset"]
vals = [v for c in bl["bound"]["values"] for v in c["values"]]
assert vals and all(v["trips"] == v["bound"] + rel for v in vals), (rel, vals)
trips = sorted({v["trips"] for v in vals})
head, entry = m["blocks"][ml["head"]], m["blocks"][0]
assert ml["iterations"] == head["count"] > 0 and ml["entries"] == entry["count"], (ml, entry)
per = ml["iterations"] / ml["entries"]
assert trips[0] <= per <= trips[-1], (per, trips)
print("model vs --blocks: allocate_slab's freelist loop at +0x%x in both; model: %d entries, "
      "%d iterations, %.2f per entry; --blocks: %.2f per call, %s%s in every call "
      "(%d to %d by cache)" % (off, ml["entries"], ml["iterations"], per,
      bl["iterations"] / bl["entries"], bl["bound"]["expr"], " %+d" % rel if rel else "",
      trips[0], trips[-1]))
EOF

# the data view on the baseline boot (issue 58, items 2 and 3): vm-run.sh
# gave the plugin the image (vmlinux=), so the recording holds the bytes of
# every patched kernel instruction the window ran (at most 2^18 kept: big-fork
# runs far fewer) and the string helpers' accesses per call site (at most
# 65,536 pairs); no patched site is then left "unknown", and big-fork's page
# faults zero pages through clear_page_erms, typed at its caller as a page's
# contents
D=$TMP/base/m.data
meta() { q "$D" "SELECT value FROM meta WHERE key = 'model.$1'"; }
patched=$(meta patched_sites) running=$(q "$D" "SELECT count(*) FROM model_running")
[ "$patched" -gt 0 ] && [ "$patched" = "$running" ] && [ "$(meta patched_dropped)" = 0 ] ||
	fail "patched sites: meta $patched (dropped $(meta patched_dropped)), model_running $running"
sites=$(q "$D" "SELECT count(*) FROM model_sites WHERE site != 0")
[ "$sites" -gt 0 ] && [ "$(meta callsites_dropped)" = 0 ] ||
	fail "call sites: $sites with a site, $(meta callsites_dropped) accesses dropped"
"$KP" report --model --data --json -n 1000000 --vmlinux "$KBASE/vmlinux" "$D" >"$TMP/data.json" 2>"$TMP/err" ||
	fail "report --model --data: $(cat "$TMP/err")"
python3 - "$TMP/data.json" <<'EOF2' || fail "report --model --data: patched or call sites not typed (above)"
import json, sys
d = json.load(open(sys.argv[1]))
unknown = [u for u in d["untyped"] if u["reason"].startswith("patched at boot")]
assert not unknown, unknown[:3]
pages = [c for c in d["callers"] if c["helper"] == "clear_page_erms" and (c["type"] or "").startswith("(page data)")]
assert pages, [c for c in d["callers"] if c["helper"] == "clear_page_erms"][:5]
print("data view: patched sites all decoded from their running bytes; clear_page_erms's writes "
      "typed at %d caller(s) (%s, %d accesses); kernel typed %.1f%%" % (len(pages),
      pages[0]["caller"], sum(c["accesses"] for c in pages), 100 * d["kernel_typed_share"]))
EOF2

#!/bin/bash
# kprotperf explore on Debian's 6.1 (SLAB_FREELIST_RANDOM=y), --target
# shuffle_freelist (inlined into allocate_slab: its blocks and its slab
# cache argument found through the -dbg vmlinux) within a fixed budget and
# seed:
# - it reaches at least 5 distinct slab caches, each checked independently:
#   the scenario explore names for a cache, run under record --func
#   allocate_slab (which splits its calls by its own struct kmem_cache *
#   argument, read through BTF, not DWARF), makes allocate_slab run for that
#   cache, which /sys/kernel/slab lists;
# - each scenario kept for a context replays to that context (explore
#   --replay; a slab is new only when the cache's partial slabs are used up,
#   so the caches are shrunk before each replay and a replay may take three
#   tries);
# - a target no scenario reaches is said to be unreached, not an empty table.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-900}
RUNS=${KP_EXPLORE_RUNS:-60}
X="kprotperf explore -q --target shuffle_freelist --vmlinux $VM_GUEST_VMLINUX"
vm_run <<GUEST || fail "guest script exited $?"
$X --budget $RUNS --seed 1 --json -o /mnt/host/ex > /mnt/host/ex.json 2> /mnt/host/ex.err
ls /sys/kernel/slab > /mnt/host/caches
shrink() { for c in /sys/kernel/slab/*/shrink; do echo 1 > "\$c" 2>/dev/null || true; done; }
for f in /mnt/host/ex/corpus/*.scn; do
	n=\${f##*/}
	n=\${n%.scn}
	kprotperf record -q -F 99 --func allocate_slab -o /mnt/host/a-\$n.data -- kprotperf scenario "\$f" 2>> /mnt/host/ex.err
	for try in 1 2 3; do
		shrink
		$X --replay "\$f" -o /mnt/host/r-\$n-\$try.data 2>> /mnt/host/ex.err
	done
done
kprotperf explore -q --target __x64_sys_acct --budget 12 --seed 1 -o /mnt/host/un > /mnt/host/un.txt 2> /mnt/host/un.err
kprotperf explore -q --target __x64_sys_acct --budget 12 --seed 1 --json -o /mnt/host/un2 > /mnt/host/un.json 2>> /mnt/host/un.err
GUEST
S=$VM_SHARE
[ -s "$S/ex.json" ] || fail "no result: $(tail -5 "$S/ex.err")"
python3 - "$S" <<'EOF' || fail "explore: $(head -c 2000 "$S/ex.json")"
import json, os, sqlite3, sys
S = sys.argv[1]
d = json.load(open(S + "/ex.json"))
caches = set(open(S + "/caches").read().split())
assert d["reached"] and d["runs"] > 0, d["runs"]
def q(path, sql):
    return sqlite3.connect(path).execute(sql).fetchall()
seen = {}
for c in d["contexts"]:
    if not c["ctx"]:
        continue
    assert c["ctx"] in caches, c["ctx"]
    i = c["scenario"]["id"]
    # independently: allocate_slab's own cache argument under that scenario
    a = "%s/a-%04d.data" % (S, i)
    got = {r[0] for r in q(a, "SELECT context FROM func_contexts")}
    assert c["ctx"] in got, (c["ctx"], i, got)
    seen[c["ctx"]] = i
    # the replay reaches the context again (cache and syscall)
    nr = None if c["syscall"] is None else c["syscall"]
    ok = False
    for t in (1, 2, 3):
        r = "%s/r-%04d-%d.data" % (S, i, t)
        if not os.path.exists(r):
            continue
        rows = q(r, "SELECT ctx, syscall FROM block_contexts WHERE func = 'shuffle_freelist'")
        ok |= any(x[0] == c["ctx"] for x in rows)
    assert ok, ("replay of %d never reached %s" % (i, c["ctx"]))
assert len(seen) >= 5, sorted(seen)
print("explore: %d runs, %d reached shuffle_freelist, %d slab caches: %s" %
      (d["runs"], d["reached_runs"], len(seen), ", ".join(sorted(seen))))
u = json.load(open(S + "/un.json"))
assert not u["reached"] and u["contexts"] == [] and u["runs"] == 12, u
EOF
grep -q "^explore: __x64_sys_acct was not reached: none of the 12 scenarios" "$S/un.txt" ||
	fail "unreached target not said: $(cat "$S/un.txt" "$S/un.err")"

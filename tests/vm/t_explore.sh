#!/bin/bash
# kprotperf explore on Debian's 6.1 (SLAB_FREELIST_RANDOM=y), --target
# shuffle_freelist (inlined into allocate_slab: its blocks and its slab
# cache argument found through the -dbg vmlinux), a fixed budget and seed.
# A slab cache shows only when a scenario uses up its partial slabs, which
# depends on what ran before, so the contexts whose scenario made the most
# calls in them (the search keeps those) are the ones checked, in a second
# boot, at most 7 of them, each with the caches shrunk first:
# - independently: its scenario run twice under record --func allocate_slab,
#   which splits its calls by its own struct kmem_cache * argument (read
#   through BTF, not DWARF), makes allocate_slab run for that cache;
# - replayed: explore --replay -r 2 of its scenario reaches that cache again.
# At least 5 distinct caches must pass both, each listed in /sys/kernel/slab.
# report --blocks reads the search's recording and agrees with its contexts.
# A target no scenario reaches is said to be unreached, not an empty table.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
RUNS=${KP_EXPLORE_RUNS:-40}
X="kprotperf explore -q --target shuffle_freelist --vmlinux $VM_GUEST_VMLINUX"
vm_run <<GUEST || fail "guest script exited $?"
$X --budget $RUNS --seed 1 --json -o /mnt/host/ex > /mnt/host/ex.json 2> /mnt/host/ex.err
ls /sys/kernel/slab > /mnt/host/caches
kprotperf explore -q --target __x64_sys_acct --budget 12 --seed 1 -o /mnt/host/un > /mnt/host/un.txt 2> /mnt/host/un.err
kprotperf explore -q --target __x64_sys_acct --budget 12 --seed 1 --json -o /mnt/host/un2 > /mnt/host/un.json 2>> /mnt/host/un.err
GUEST
S=$VM_SHARE
[ -s "$S/ex.json" ] || fail "no result: $(tail -5 "$S/ex.err")"
cp -r "$S/ex" "$S/ex.json" "$S/caches" "$TMP/"
python3 - "$S" <<'EOF' || fail "unreached target: $(cat "$S/un.json" "$S/un.txt" "$S/un.err")"
import json, sys
u = json.load(open(sys.argv[1] + "/un.json"))
assert not u["reached"] and u["contexts"] == [] and u["runs"] == 12, u
EOF
# the search's recording is one like record's: report --blocks reads it, its
# calls by syscall at least those of any one run explore listed
"$KP" report --blocks --json --vmlinux "$VM_VMLINUX" "$TMP/ex/explore.data" >"$TMP/rb.json" ||
	fail "report --blocks of explore.data exited $?"
python3 - "$TMP/ex.json" "$TMP/rb.json" <<'EOF' || fail "explore.data disagrees with explore's contexts"
import json, sys
d = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))["functions"][0]
calls = {s["syscall"]: s["calls"] for s in f["contexts"]["syscalls"]}
assert f["function"] == "shuffle_freelist" and f["calls"] > 0, f["function"]
for c in d["contexts"]:
    assert calls.get(c["syscall"], 0) >= c["calls"], (c, calls)
EOF
grep -q "^explore: __x64_sys_acct was not reached: none of the 12 scenarios" "$S/un.txt" ||
	fail "unreached target not said: $(cat "$S/un.txt" "$S/un.err")"
# the context of each cache the most runs reached, at most 7 caches
python3 - "$TMP/ex.json" "$TMP/caches" >"$TMP/picked" <<'EOF' || fail "explore: $(head -c 1500 "$TMP/ex.json")"
import json, sys
d = json.load(open(sys.argv[1]))
caches = set(open(sys.argv[2]).read().split())
assert d["reached"] and d["runs"] > 0, d
best = {}
for c in d["contexts"]:
    if c["ctx"] and (c["ctx"] not in best or c["calls"] > best[c["ctx"]]["calls"]):
        assert c["ctx"] in caches, c["ctx"]
        best[c["ctx"]] = c
for c in sorted(best.values(), key=lambda c: (-c["calls"], c["ctx"]))[:7]:
    print(c["ctx"], c["scenario"]["id"])
EOF
echo "explore: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["runs"], "runs,", d["reached_runs"], "reached it,", len(d["contexts"]), "contexts")' "$TMP/ex.json"); checking $(tr '\n' ' ' <"$TMP/picked")"
# the share is new at every boot: the scenarios go in the guest script itself
{
	echo 'shrink() { for c in /sys/kernel/slab/*/shrink; do echo 1 > "$c" 2>/dev/null || true; done; }'
	while read -r cache id; do
		echo "cat > /tmp/$id.scn <<'SCN'"
		cat "$(printf '%s/ex/corpus/%04d.scn' "$TMP" "$id")"
		echo "SCN"
		echo "shrink"
		echo "kprotperf record -q -r 2 -F 99 --func allocate_slab -o /mnt/host/a-$id.data -- kprotperf scenario -q /tmp/$id.scn 2>> /mnt/host/check.err"
		echo "shrink"
		echo "$X --replay /tmp/$id.scn -r 2 -o /mnt/host/r-$id.data 2>> /mnt/host/check.err"
	done <"$TMP/picked"
	# Ctrl-C once the corpus has a scenario (a script's background job starts
	# with SIGINT ignored, which kprotperf takes back).  Its target is
	# allocate_slab, shuffle_freelist's caller, a function of its own: no
	# DWARF to read first (--vmlinux cost each explore ~15 s under TCG)
	echo "kprotperf explore -q --target allocate_slab --budget 100000 --seed 2 --json -o /mnt/host/int > /mnt/host/int.json 2> /mnt/host/int.err &"
	echo 'p=$!; i=0'
	echo 'while [ $i -lt 300 ] && [ -z "$(ls /mnt/host/int/corpus 2>/dev/null)" ]; do sleep 1; i=$((i + 1)); done'
	echo 'kill -INT $p; rc=0; wait $p || rc=$?; echo $rc > /mnt/host/int.rc'
} >"$TMP/check.sh"
vm_run <"$TMP/check.sh" || fail "guest script exited $?"
# interrupted: status 130, the kept scenarios those the result lists, the
# cut-short run in the recording but not judged, nothing half-written
[ "$(cat "$VM_SHARE/int.rc")" = 130 ] || fail "Ctrl-C: exit $(cat "$VM_SHARE/int.rc"): $(cat "$VM_SHARE/int.err")"
python3 - "$VM_SHARE" <<'EOF' || fail "the interrupted search's folder disagrees with its result"
import json, os, sqlite3, sys
S = sys.argv[1] + "/int"
d = json.load(open(S + ".json"))
files = sorted(os.listdir(S + "/corpus") + os.listdir(S + "/findings"))
assert d["kept"] and sorted(os.path.basename(k["file"]) for k in d["kept"]) == files, (d["kept"], files)
assert not os.path.exists(S + "/next.scn")
runs = sqlite3.connect(S + "/explore.data").execute("SELECT end FROM runs ORDER BY run").fetchall()
assert len(runs) in (d["runs"], d["runs"] + 1), (len(runs), d["runs"])
assert all(r[0] != "interrupted" for r in runs[:d["runs"]]), runs
EOF
"$KP" report "$VM_SHARE/int/explore.data" >/dev/null || fail "report of the interrupted search's recording exited $?"
python3 - "$VM_SHARE" "$TMP/picked" <<'EOF' || fail "fewer than 5 caches confirmed: $(tail -5 "$VM_SHARE/check.err")"
import sqlite3, sys
S = sys.argv[1]
def q(path, sql):
    try:
        return {r[0] for r in sqlite3.connect(path).execute(sql)}
    except sqlite3.Error:
        return set()
ok, missed = [], []
for line in open(sys.argv[2]):
    cache, i = line.split()
    a = q("%s/a-%s.data" % (S, i), "SELECT context FROM func_contexts")
    r = q("%s/r-%s.data" % (S, i), "SELECT ctx FROM block_contexts WHERE func = 'shuffle_freelist'")
    (ok if cache in a and cache in r else missed).append(cache)
print("confirmed (allocate_slab's own argument, and the replay): %s; not this time: %s"
      % (", ".join(ok), ", ".join(missed) or "none"))
assert len(ok) >= 5, (ok, missed)
EOF

#!/bin/bash
# kprotperf sweep end to end, on the vm tier's kernels (nothing new is
# built).  First a plan naming a config option 6.1 does not have and a
# command-line parameter it does not document: refused by --dry-run, both
# lines named, nothing built or printed.  Then a plan of base (the
# FREELIST_RANDOM pair's baseline), the pair's hardened build
# (freelist_random), a command-line toggle on the base build
# (init_on_free=1) and a null variant (base again, booted again), over
# three core operations, -j 2 here.  Checked: every cell compared (exit
# 0); each row's kernel differs from base in exactly what its line changed
# (diff's provenance), the null variant in nothing; the null variant has
# no significant cell (the matrix's marks hold the family-wise error at
# 5%); every marked cell names the kernel functions that changed most,
# every unmarked one none, saying the change is not significant;
# init_on_free=1, which zeroes every page and slab object freed, makes fork
# slower, significantly (measured: +19%), and mmap slower (+30%; a run in
# which the address space's random layout made mmap and munmap cheaper, as
# one in ten can, leaves it short of significance).  Last, a plan of base
# and a variant whose boot cannot succeed (--timeout 2: no kernel reaches
# user mode in 2 s under TCG), in a folder holding base's results: base's
# job is not run again, the broken row says vm-run's reason.  Prints the
# matrix and the time each step took.
# kernels: hard base
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (the kernel cache is root's here)"
vm_need_host_test
OPS=null,fork,mmap
export KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
# the jobs' vm-run.sh finds the static binaries from the folder the test works in
export OUTPUT=$VM_OUTPUT
cd "$TMP" || fail "cd $TMP"

# refused before anything is built: each bad line named, no job printed
cat >bad.plan <<'EOF'
base: --set SLAB_FREELIST_RANDOM=n
nosuch: --set NO_SUCH_OPTION=y
typo: --append init_on_aloc=1
EOF
start=$SECONDS rc=0
"$KP" sweep --dry-run -o bad-out --ops $OPS bad.plan >dry.txt 2>err || rc=$?
[ "$rc" = 1 ] || fail "--dry-run of a bad plan: exit $rc, want 1: $(cat err)"
[ ! -s dry.txt ] && [ ! -e bad-out ] || fail "--dry-run of a bad plan printed or made something: $(cat dry.txt)"
want="kprotperf sweep: bad.plan:2: nosuch: kernel-build: --set NO_SUCH_OPTION=y: linux 6.1.192 has no option CONFIG_NO_SUCH_OPTION
kprotperf sweep: bad.plan:3: typo: kernel-build: --cmdline init_on_aloc=1: linux 6.1.192 documents no parameter init_on_aloc (Documentation/admin-guide/kernel-parameters.txt): check its spelling (the kernel hands a parameter it does not know to init)
kprotperf sweep: bad.plan: 3 variants checked (kernel-build.sh --check run 3 times): refused"
[ "$(sed 's/linux 6\.1\.[0-9]*/linux 6.1.192/' err)" = "$want" ] ||
	fail "--dry-run of a bad plan said: $(cat err)"
echo "sweep: a bad plan refused by --dry-run in $((SECONDS - start)) s, both lines named"

cat >plan <<'EOF'
# the vm tier's FREELIST_RANDOM pair, a command-line toggle, a null variant
base: --set SLAB_FREELIST_RANDOM=n
freelist_random: --set SLAB_FREELIST_RANDOM=y
init_on_free: --append init_on_free=1
null:
EOF
start=$SECONDS rc=0
"$KP" sweep -j 2 -r 5 --ops $OPS -o out --svg m.svg --csv m.csv plan >m.txt 2>err || rc=$?
took=$((SECONDS - start))
[ "$rc" = 0 ] || fail "sweep: exit $rc, want 0 (every cell compared): $(tail -5 err)"
"$KP" sweep --merge out --json >m.json 2>>err || fail "sweep --merge --json exited $?: $(tail -3 err)"
cat m.txt
xmllint --noout m.svg 2>/dev/null || ! command -v xmllint >/dev/null || fail "m.svg is not well-formed XML"
[ "$(wc -l <m.csv)" = 4 ] || fail "m.csv has not a line per variant: $(cat m.csv)"
python3 - m.json <<'PY' || fail "the matrix: $(head -c 3000 m.json)"
import json, sys
m = json.load(open(sys.argv[1]))
rows = {r["variant"]: r for r in m["rows"]}
assert m["operations"] == ["null", "fork", "mmap"] and list(rows) == [
    "freelist_random", "init_on_free", "null"], (m["operations"], list(rows))
for r in rows.values():
    assert r["ok"] and len(r["cells"]) == 3 and all(c["ok"] for c in r["cells"]), r
assert m["tests"] == 9, m["tests"]
assert rows["freelist_random"]["differs"] == [
    "config SLAB_FREELIST_RANDOM: n -> y (freelist_random)"], rows["freelist_random"]["differs"]
assert rows["init_on_free"]["differs"] == ["cmdline init_on_free: (not set) -> 1"], rows["init_on_free"]["differs"]
assert rows["null"]["differs"][0].startswith("nothing"), rows["null"]["differs"]
assert not any(c["significant"] for c in rows["null"]["cells"]), rows["null"]["cells"]
iof = {c["operation"]: c for c in rows["init_on_free"]["cells"]}
assert iof["fork"]["significant"] and iof["fork"]["change_pct"] > 5, iof["fork"]
# a marked cell names the kernel functions whose time changed most, an unmarked one none
for c in (c for r in rows.values() for c in r["cells"]):
    assert bool(c["functions"]) == c["significant"], c
    assert c["significant"] or c["functions_why"] == "the change is not significant", c
assert iof["mmap"]["change_pct"] > 5, iof["mmap"]
print("sweep: null variant %s; init_on_free fork %+.1f%%, mmap %+.1f%%" % (
    ", ".join("%s %+.2f%% (p %.2g)" % (c["operation"], c["change_pct"], c["p"])
              for c in rows["null"]["cells"]),
    iof["fork"]["change_pct"], iof["mmap"]["change_pct"]))
PY
echo "sweep: 4 variants x 3 operations, -j 2, in $took s"

# a variant whose boot fails: its row says why; base's results are there
# for the same setup, so its job is not run again
mkdir out2 && cp -a out/base out2/ || fail "cannot copy base's results"
printf 'base: --set SLAB_FREELIST_RANDOM=n\nbroken: --timeout 2\n' >plan2
start=$SECONDS rc=0
"$KP" sweep --ops $OPS -o out2 plan2 >m2.txt 2>err2 || rc=$?
[ "$rc" = 1 ] || fail "a sweep with a broken variant: exit $rc, want 1: $(tail -5 err2)"
grep -qx 'kprotperf sweep: base: done already (.*/out2/base/job)' err2 ||
	fail "base's job ran again: $(cat err2)"
rc=0
"$KP" sweep --merge out2 --json >m2.json 2>>err2 || rc=$?
[ "$rc" = 1 ] || fail "sweep --merge out2: exit $rc, want 1: $(tail -3 err2)"
python3 - m2.json <<'PY' || fail "the broken row: $(head -c 2000 m2.json)"
import json, sys
m = json.load(open(sys.argv[1]))
(r,) = m["rows"]
assert r["variant"] == "broken" and not r["ok"] and r["cells"] == [], r
assert r["why"].startswith("boot: vm-run: kernel 6.1.") and "no result within 2 s" in r["why"], r["why"]
print("sweep: the broken variant's row: %s" % r["why"])
PY
echo "sweep: a broken variant said in its row in $((SECONDS - start)) s"

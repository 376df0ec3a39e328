#!/bin/bash
# Structure layout randomization as a protection (issue 46, item 4): the vm
# tier's base build and rand, the same config with RANDSTRUCT_FULL built by
# the GCC plugin from kernel-build.sh's fixed seed.  Asserts only what is
# certain:
#   - features --layout task_struct and mm_struct on both vmlinux files:
#     the same members on both sides, each of the same type and size (the
#     DWARF's), rand's offsets those kernel-build.sh asked of the compiler
#     (the plugin's DWARF keeps the declared layout), most members moved;
#   - what the code uses: the offsets of task_struct's alloc_lock and comm
#     in __get_task_comm (task_lock, then strscpy_pad(buf, tsk->comm, ...),
#     each a lea N(%reg) of the task pointer) are features --layout's on
#     each build, and differ between them (the DWARF of rand has others);
#   - rand's manifest and config hold the seed (CONFIG_BUILD_SALT), and a
#     recording made on rand keeps both in its provenance, which diff
#     names (the seed, and RANDSTRUCT_FULL as randstruct_full's option);
#   - record (BPF) on rand is refused in one line, no file: its BTF, made
#     from the plugin's DWARF, has task_struct's declared layout;
#   - each kernel boots under vm-run.sh --model cache and records big-fork
#     in the model's window (a warm-up run outside it), the counts merged;
#   - diff --model --data: task_struct on both sides and every access and
#     miss of a side's window in its types and (untyped): the counts are
#     the recordings'; each of task_struct's top-level members at the
#     offsets of each build's layout, rand's those its code uses (the
#     resolver names rand's members by randstruct.offsets, not by the
#     plugin's DWARF).
# kernels: base rand
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
FORKS=${KP_RANDSTRUCT_FORKS:-10}
SEED=6b70726f74706572662072616e64737472756374207365656420303030303031
vm_need_model
vm_need_tools objdump python3
KBASE=$(vm_kbuild base)
KRAND=$(vm_kbuild rand)

# the seed, where kernel-build.sh keeps it
grep -qx "randstruct_seed=$SEED" "$KRAND/manifest" || fail "rand's manifest lacks its seed"
grep -qx "CONFIG_BUILD_SALT=\"randstruct-seed=$SEED\"" "$KRAND/.config" ||
	fail "rand's .config lacks the seed in CONFIG_BUILD_SALT"
grep -qx 'CONFIG_RANDSTRUCT_FULL=y' "$KRAND/.config" || fail "rand is not built with RANDSTRUCT_FULL"
! grep -qx 'CONFIG_RANDSTRUCT_FULL=y' "$KBASE/.config" || fail "base is built with RANDSTRUCT_FULL"

# the layouts side by side
for t in task_struct mm_struct; do
	"$KP" features --layout "$t" --vmlinux "$KBASE/vmlinux" --vmlinux "$KRAND/vmlinux" --json \
		>"$TMP/$t.json" 2>"$TMP/err" || fail "features --layout $t: $(cat "$TMP/err")"
	"$KP" features --layout "$t" --vmlinux "$KBASE/vmlinux" --vmlinux "$KRAND/vmlinux" \
		>"$TMP/$t.txt" 2>"$TMP/err" || fail "features --layout $t (text): $(cat "$TMP/err")"
done
python3 - "$TMP/task_struct.json" "$TMP/mm_struct.json" <<'EOF' || fail "the layouts: $(head -c 3000 "$TMP/task_struct.txt")"
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    m = d["members"]
    assert d["base_only"] == 0 and d["hardened_only"] == 0, (d["type"], d["base_only"], d["hardened_only"])
    assert d["base"]["members"] == d["hardened"]["members"] == len(m), d["type"]
    assert not d["base"]["randstruct_plugin"] and d["hardened"]["randstruct_plugin"], (d["base"], d["hardened"])
    assert d["base"]["code_offsets"] is None and d["hardened"]["code_offsets"].endswith("/randstruct.offsets")
    assert 2 * d["moved"] > len(m), (d["type"], d["moved"], len(m))
    print("features --layout %s: %d members on both sides, %d moved (%d bytes, %d on base); %s" % (
          d["type"], len(m), d["moved"], d["hardened"]["size"], d["base"]["size"],
          ", ".join("%s %d -> %s" % (r["member"], r["base_offset"], r["hardened_offset"])
                    for r in m if r["member"] in ("pid", "tgid", "comm", "mm", "cred", "pgd", "mmap_base"))))
EOF
grep -q "^# hardened: note: built with GCC's randstruct plugin, whose DWARF keeps a randomized struct's declared layout: these offsets are those the code uses" "$TMP/task_struct.txt" ||
	fail "features --layout's text does not note rand's plugin: $(head -5 "$TMP/task_struct.txt")"
# each member's type and size from each side's own view
for side in base rand; do
	k=$KBASE
	[ $side = base ] || k=$KRAND
	"$KP" features --layout task_struct --vmlinux "$k/vmlinux" --json >"$TMP/ts-$side.json" ||
		fail "features --layout task_struct --vmlinux $k/vmlinux"
done
python3 - "$TMP/ts-base.json" "$TMP/ts-rand.json" <<'EOF' || fail "task_struct's members differ in type or size"
import json, sys
b, r = (json.load(open(p)) for p in sys.argv[1:])
tb = {m["member"]: (m["type"], m["size"]) for m in b["members"]}
tr = {m["member"]: (m["type"], m["size"]) for m in r["members"]}
assert tb == tr, sorted(set(tb.items()) ^ set(tr.items()))[:10]
print("task_struct: %d bytes on base, %d on rand; every member of the same type and size" %
      (b["size"], r["size"]))
EOF

# the code uses the layout DWARF gives: __get_task_comm takes task_lock
# (the address of alloc_lock into %rdi for _raw_spin_lock), then hands
# tsk->comm to strscpy_pad in %rsi, each a lea N(%reg) of the task pointer
lea_into() {	# $1 kernel folder, $2 register: the displacement of the first lea into it
	local a
	a=$(awk '$3 == "__get_task_comm" { print $1 }' "$1/System.map")
	[ -n "$a" ] || return 1
	objdump -d --no-show-raw-insn --start-address=0x"$a" --stop-address=$((0x$a + 64)) \
		"$1/vmlinux" >"$TMP/comm.s"
	sed -nE "/lea +0x[0-9a-f]+\(%r[a-z0-9]+\),%$2\$/{s/.*lea +0x([0-9a-f]+)\(.*/\1/p;q}" "$TMP/comm.s"
}
code_base='' code_rand=''
for side in base rand; do
	k=$KBASE
	[ $side = base ] || k=$KRAND
	for mr in comm:rsi alloc_lock:rdi; do
		m=${mr%:*} r=${mr#*:}
		hex=$(lea_into "$k" "$r") && [ -n "$hex" ] ||
			fail "$side: no lea N(%reg),%$r in __get_task_comm: $(cat "$TMP/comm.s")"
		dw=$(python3 -c 'import json, sys
print([m["offset"] for m in json.load(open(sys.argv[1]))["members"] if m["member"] == sys.argv[2]][0])' \
			"$TMP/ts-$side.json" "$m")
		[ $((0x$hex)) -eq "$dw" ] || fail "$side: __get_task_comm has $m at $((0x$hex)), features --layout at $dw"
		if [ $side = base ]; then
			code_base+=" $dw"
		else
			code_rand+=" $dw"
		fi
		printf '%s ' "$side: $m at $dw in the code and features --layout;"
	done
	echo
done
[ "$code_base" != "$code_rand" ] || fail "rand's code has comm and alloc_lock where base's has them"

vm_model_pair_run randstruct base "$KBASE" ""
vm_model_pair_run randstruct rand "$KRAND" "kprotperf record -q -o plain.data -- true 2>refused.err; echo \$? >refused.rc"

# record's BPF on rand: refused, its BTF having the DWARF's declared layout
want="kprotperf record: this kernel was built by GCC's randstruct plugin, whose BTF keeps the declared layout of the structures it shuffles (task_struct): BPF would read the wrong fields; record --model only, or build it with clang's randstruct"
[ "$(cat "$TMP/rand/refused.rc")" = 1 ] && [ "$(cat "$TMP/rand/refused.err")" = "$want" ] &&
	[ ! -e "$TMP/rand/plain.data" ] ||
	fail "record on rand: exit $(cat "$TMP/rand/refused.rc"): $(cat "$TMP/rand/refused.err")"
echo "record on rand: refused in one line, no file (record --model ran)"

# the provenance: rand's config and seed kept, base's without them
[ "$(q "$TMP/rand/m.data" "SELECT value FROM config WHERE option = 'CONFIG_RANDSTRUCT_FULL'")" = y ] ||
	fail "rand's recording does not keep CONFIG_RANDSTRUCT_FULL=y"
[ "$(q "$TMP/rand/m.data" "SELECT value FROM config WHERE option = 'CONFIG_BUILD_SALT'")" = "\"randstruct-seed=$SEED\"" ] ||
	fail "rand's recording does not keep the seed: $(q "$TMP/rand/m.data" "SELECT * FROM config WHERE option LIKE '%SALT%'")"
[ "$(q "$TMP/base/m.data" "SELECT value FROM config WHERE option = 'CONFIG_RANDSTRUCT_FULL'")" != y ] ||
	fail "base's recording says RANDSTRUCT_FULL=y"
"$KP" diff "$TMP/base/m.data" "$TMP/rand/m.data" >"$TMP/diff.txt" 2>&1 || fail "diff base rand: $(tail -3 "$TMP/diff.txt")"
grep -qx "#   config BUILD_SALT: \"\" -> \"randstruct-seed=$SEED\"" "$TMP/diff.txt" &&
	grep -qx '#   config RANDSTRUCT_FULL: (not set) -> y (randstruct_full)' "$TMP/diff.txt" ||
	fail "diff base rand does not name the seed and randstruct_full: $(head -20 "$TMP/diff.txt")"
echo "provenance: rand's recording keeps CONFIG_RANDSTRUCT_FULL=y and its seed; diff names both"

# --- diff --model --data: the data view (issue 46 items 1 and 3) -----------
J=$TMP/data.json
"$KP" diff --model --data --json -n 1000000 "$TMP/base/m.data" "$TMP/rand/m.data" >"$J" 2>"$TMP/err" ||
	fail "diff --model --data: $(cat "$TMP/err")"
for side in base rand; do
	q "$TMP/$side/m.data" "SELECT SUM(d1_reads + d1_writes), SUM(d1_read_misses + d1_write_misses)
		FROM model_misses WHERE geom = 0" >"$TMP/$side.totals"
done
python3 - "$J" "$TMP/task_struct.json" "$TMP/base.totals" "$TMP/rand.totals" <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
lay = {r["member"]: r for r in json.load(open(sys.argv[2]))["members"]}
tot = [tuple(int(x) for x in open(p).read().strip().split("|")) for p in sys.argv[3:5]]
# every access and miss of a side's window is in one of its types or (untyped)
for s, (acc, mis) in zip(("base", "hardened"), tot):
    a = d[s]["untyped"]["accesses"] + sum(t[s]["accesses"] for t in d["data_types"] if t[s])
    m = d[s]["untyped"]["misses"] + sum(t[s]["misses"] for t in d["data_types"] if t[s])
    assert (a, m) == (acc, mis), (s, a, m, acc, mis)
ts = [t for t in d["data_types"] if t["type"] == "struct task_struct"]
assert len(ts) == 1 and ts[0]["side"] == "both", ts[:1]
ts = ts[0]
assert ts["base"]["accesses"] > 0 and ts["hardened"]["accesses"] > 0, ts
# a top-level member's offsets are those of each build's layout
n = 0
for m in ts["members"]:
    top = lay.get(m["member"])
    if not top:
        continue
    if m["base_offset"] is not None:
        assert m["base_offset"] == top["base_offset"], (m, top)
    if m["hard_offset"] is not None:
        assert m["hard_offset"] == top["hardened_offset"], (m, top)
    n += 1
moved = sorted(ts["members"], key=lambda m: -abs(m["change"]))[:5]
print("diff --model --data: task_struct %+d misses (%d accesses base, %d rand), %d members at "
      "their layouts' offsets; most changed: %s; types most changed: %s" % (ts["change"],
      ts["base"]["accesses"], ts["hardened"]["accesses"], n,
      ", ".join("%s %+d" % (m["member"], m["change"]) for m in moved),
      ", ".join("%s %+d" % (t["type"], t["change"]) for t in d["data_types"][:6])))
EOF
	fail "diff --model --data base rand: $(head -c 2000 "$J")"

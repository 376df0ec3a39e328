#!/bin/bash
# The machine model's data view (report --model --data, diff --model --data)
# against valgrind's cachegrind on the host, on tests/workloads/data-walk.c:
# one struct, struct dw_rec, in two layouts (data-walk, data-walk-b: val
# swapped onto key's cache line), each recorded with `kprotperf record
# --model` in a boot of its own (vm-run.sh merges one window's table into a
# recording) of Debian's 6.1 kernel under scripts/vm-run.sh --model cache,
# with cachegrind's geometry (I1 and D1 32 KiB 8-way, LL 1 MiB 16-way,
# 64-byte lines).  Asserts, per layout:
#   - per line of data-walk.c marked "member: M", the model's reads and
#     writes (annotate --model's lines: no typing involved) equal
#     cachegrind's Dr and Dw exactly, but for the line marked (rmw), one
#     add to memory, which the model counts as a read and a write and
#     cachegrind as a read (its Dw must be 0): there the model's writes
#     equal cachegrind's Dr.  Certain: each such line is one access
#     instruction executed a known number of times, the same file in both
#     tools (static, not PIE: the same PCs), no access faulting (every page
#     is written before); interrupt deliveries charge their accesses to the
#     last ret or indirect call (see t_model_cachegrind.sh), never to these
#     loads and stores.  D1 misses within 5 % of the line's accesses
#     (cachegrind has all or none of them missing; an interrupt's kernel
#     code can evict a line the model would have hit);
#   - report --model --data --json: struct dw_rec of that binary
#     (/bin/data-walk or /bin/data-walk-b, size 128) with exactly the
#     members key, val, pos.y, count, flags and stamp accessed (flags
#     through a pointer formed from the global array's address: typed by
#     the global's type, stepped by whole records), each at its
#     layout's offset and size (data-walk.c asserts them at compile time),
#     its reads and writes the sums of its lines' above, exactly (nothing
#     else touches these members: main fills the array with memset, which
#     has no DWARF), its D1 misses within 5 % of its accesses;
# and diff --model --data --json of A and B: struct dw_rec on both sides
# (matched by name across the two binaries), each member with the same
# accesses on both sides (the same program), its offsets in both layouts,
# its change in D1 misses (hardened minus base) within 5 % of its accesses
# of cachegrind's change, val's change the most negative and pos.y's the
# most positive, those two first by the size of the change: in A val is the
# first access of a record's second line and pos.y hits after it, in B val
# shares key's line and pos.y is the second line's first access, so 8192
# misses (one a record and pass) move from val to pos.y, in both tools.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
SRC=$ROOT/tests/workloads/data-walk.c
I1=32768,8,64 D1=32768,8,64 LL=1048576,16,64
vm_need_model
command -v valgrind >/dev/null || skip "no valgrind (scripts/install-deps.sh installs it)"
valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null true >/dev/null 2>&1 ||
	skip "valgrind's cachegrind does not run here"
command -v python3 >/dev/null || skip "no python3"
for b in data-walk data-walk-b; do
	[ -x "$VM_STATIC/$b" ] || fail "$VM_STATIC/$b missing: run make static"
	# the lines the test reads are the source's: the binaries must be of it
	[ "$VM_STATIC/$b" -nt "$SRC" ] || fail "$VM_STATIC/$b is older than data-walk.c: run make static"
done

# the guest's copies stripped of DWARF (the initramfs): the host's files by
# their recorded path, under --symfs
mkdir -p "$TMP/symfs/bin"
cp "$VM_STATIC/data-walk" "$VM_STATIC/data-walk-b" "$TMP/symfs/bin/"

# cg LAYOUT BINARY: cachegrind's Dr Dw D1mr D1mw per line of data-walk.c
# ("LINE Dr Dw D1mr D1mw", summed over the fn= records; events by name)
cg() {
	local start=$SECONDS
	valgrind --tool=cachegrind --cache-sim=yes --I1=$I1 --D1=$D1 --LL=$LL \
		--cachegrind-out-file="$TMP/cg-$1.out" "$2" >"$TMP/cg-$1.stdout" 2>"$TMP/cg-$1.err" ||
		fail "cachegrind of $2 exited $?: $(tail -3 "$TMP/cg-$1.err")"
	for want in "D1 cache: *32768 B, 64 B, 8-way" "LL cache: *1048576 B, 64 B, 16-way"; do
		grep -q "^desc: $want" "$TMP/cg-$1.out" || fail "cachegrind did not simulate $want"
	done
	awk '
	/^events:/ { for (i = 2; i <= NF; i++) c[$i] = i; next }
	/^fl=/ { f = ($0 ~ /\/data-walk\.c$/); next }
	f && /^[0-9]/ {
		dr[$1] += $c["Dr"]; dw[$1] += $c["Dw"]; mr[$1] += $c["D1mr"]; mw[$1] += $c["D1mw"]
	}
	END { for (l in dr) print l, dr[l], dw[l], mr[l], mw[l] }' "$TMP/cg-$1.out" | sort -n >"$TMP/cg-$1.lines"
	echo "model-data: cachegrind of $1 on the host: $((SECONDS - start)) s"
}

# rec LAYOUT BINARY: record --model of it in a boot of its own (one window a
# recording: vm-run.sh merges one table into each recording of the boot)
rec() {
	local start=$SECONDS rc=0
	KP="$KP" "$VR" --model cache --I1=$I1 --D1=$D1 --LL=$LL --out "$TMP/vm-$1" --timeout 300 -- \
		kprotperf record --model -q -o "$1.data" -- "$2" >"$TMP/vm-$1.stdout" 2>"$TMP/vm-$1.err" </dev/null ||
		rc=$?
	[ "$rc" -eq 0 ] || fail "$1: vm-run exited $rc: $(tail -3 "$TMP/vm-$1.err")"
	[ "$(q "$TMP/vm-$1/$1.data" "SELECT value FROM meta WHERE key = 'model.state'")" = counted ] ||
		fail "$1: the model's counts were not merged: $(tail -3 "$TMP/vm-$1.err")"
	[ "$(q "$TMP/vm-$1/$1.data" "SELECT value FROM meta WHERE key = 'model.window'")" = complete ] ||
		fail "$1: the model's window is not complete"
	[ "$(cat "$TMP/vm-$1.stdout")" = "$(cat "$TMP/cg-$1.stdout")" ] ||
		fail "$1: the program's output differs: guest '$(cat "$TMP/vm-$1.stdout")', cachegrind '$(cat "$TMP/cg-$1.stdout")'"
	echo "model-data: $1 booted, recorded and merged in $((SECONDS - start)) s"
}

cg a "$VM_STATIC/data-walk"
cg b "$VM_STATIC/data-walk-b"
rec a data-walk
rec b data-walk-b

# the marked lines: "LINE MEMBER rmw|-"
awk '/\/\* member: / { m = $0; sub(/.*\/\* member: /, "", m); sub(/ *\*\/.*/, "", m)
	rmw = sub(/ \(rmw\)$/, "", m) ? "rmw" : "-"; print FNR, m, rmw }' "$SRC" >"$TMP/marks"
[ "$(awk '{ print $2 }' "$TMP/marks" | tr '\n' ' ')" = "key val pos.y stamp flags count " ] ||
	fail "data-walk.c's marks: $(cat "$TMP/marks")"
FNS="dw_read dw_stamp dw_flags dw_count"

# lines LAYOUT: the model's counts per line of the measured functions
# (annotate --model, the same PCs placed by the file's DWARF under --symfs)
lines() {
	local f
	for f in $FNS; do
		"$KP" annotate --model --json --symfs "$TMP/symfs" -f "$f" "$TMP/vm-$1/$1.data" \
			>"$TMP/ann-$1-$f.json" 2>"$TMP/err" || fail "$1: annotate --model -f $f: $(cat "$TMP/err")"
	done
}

# check_lines LAYOUT: the model's per line against cachegrind's (header);
# writes the per-member sums, "MEMBER reads writes d1_misses accesses", to
# want-LAYOUT for the data view
check_lines() {
	python3 - "$1" "$TMP" <<'EOF' || fail "$1: the model's lines and cachegrind's disagree (above)"
import glob, json, sys
lay, tmp = sys.argv[1], sys.argv[2]
marks = [l.split() for l in open(tmp + "/marks")]
cg = {int(l.split()[0]): [int(x) for x in l.split()[1:]] for l in open(tmp + "/cg-%s.lines" % lay)}
model = {}
for f in glob.glob(tmp + "/ann-%s-*.json" % lay):
    for fn in json.load(open(f))["functions"]:
        for r in fn["lines"]:
            if r["file"].endswith("data-walk.c"):
                m = model.setdefault(r["line"], [0, 0, 0])
                m[0] += r["d1_reads"]; m[1] += r["d1_writes"]
                m[2] += r["d1_read_misses"] + r["d1_write_misses"]
bad, want = [], {}
print("%s: %-6s %5s %21s %21s %21s" % (lay, "member", "line", "reads cg / model",
      "writes cg / model", "D1 misses cg / model"))
for line, member, rmw in marks:
    line = int(line)
    dr, dw, mr, mw = cg.get(line, [0, 0, 0, 0])
    mo = model.get(line, [0, 0, 0])
    # an add to memory: a read for cachegrind, a read and a write for the model
    exp = (dr, dr if rmw == "rmw" else dw)
    print("%s: %-6s %5d %10d %10d %10d %10d %10d %10d%s" % (lay, member, line, dr, mo[0], dw, mo[1],
          mr + mw, mo[2], "  (rmw: model writes = cachegrind reads)" if rmw == "rmw" else ""))
    if dr + dw == 0 or (rmw == "rmw" and dw):
        bad.append("line %d (%s): cachegrind %d reads %d writes" % (line, member, dr, dw))
    if tuple(mo[:2]) != exp:
        bad.append("line %d (%s): model reads/writes %s, want %s" % (line, member, mo[:2], exp))
    if abs(mo[2] - (mr + mw)) > 0.05 * (dr + dw):
        bad.append("line %d (%s): D1 misses model %d, cachegrind %d" % (line, member, mo[2], mr + mw))
    w = want.setdefault(member, [0, 0, 0, 0])
    for i, v in enumerate(exp + (mr + mw, dr + dw)):
        w[i] += v
with open(tmp + "/want-" + lay, "w") as f:
    for member, w in want.items():
        print(member, *w, file=f)
if bad:
    print("off:\n  " + "\n  ".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
	echo "model-data: $1: per marked line, the model's reads and writes equal cachegrind's, D1 misses within 5 % of the accesses"
}

# check_view LAYOUT VAL_OFFSET: report --model --data against want-LAYOUT (header)
check_view() {
	"$KP" report --model --data --json --symfs "$TMP/symfs" "$TMP/vm-$1/$1.data" >"$TMP/data-$1.json" \
		2>"$TMP/err" || fail "$1: report --model --data: $(cat "$TMP/err")"
	python3 - "$1" "$2" "$TMP" <<'EOF' || fail "$1: the data view and cachegrind disagree (above)"
import json, sys
lay, val_off, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
want = {l.split()[0]: [int(x) for x in l.split()[1:]] for l in open(tmp + "/want-" + lay)}
off = {"key": (0, 8), "val": (val_off, 8), "pos.y": (76, 4), "count": (80, 4), "flags": (84, 4),
       "stamp": (88, 8)}
bad = []
d = json.load(open(tmp + "/data-%s.json" % lay))
t = [t for t in d["data_types"] if t["type"] == "struct dw_rec"]
binary = "/bin/data-walk" + ("-b" if lay == "b" else "")
if len(t) != 1 or t[0]["module"] != binary or t[0]["size"] != 128:
    bad.append("struct dw_rec: %s" % [(x["type"], x["module"], x["size"]) for x in t])
else:
    got = {m["member"]: m for m in t[0]["members"] if m["reads"] + m["writes"]}
    if set(got) != set(off):
        bad.append("struct dw_rec's members accessed: %s, want %s" % (sorted(got), sorted(off)))
    for name, m in sorted(got.items(), key=lambda x: x[1]["offset"]):
        if name not in off:
            continue
        w = want[name]
        miss = m["d1_read_misses"] + m["d1_write_misses"]
        print("%s: data view +%-3d %d %-6s reads %5d writes %5d D1 misses %5d (cachegrind %5d %5d %5d)" % (
              lay, m["offset"], m["size"], name, m["reads"], m["writes"], miss, w[0], w[1], w[2]))
        if (m["offset"], m["size"]) != off[name]:
            bad.append("%s at +%d size %d, want +%d size %d" % ((name, m["offset"], m["size"]) + off[name]))
        if (m["reads"], m["writes"]) != (w[0], w[1]):
            bad.append("%s: data view reads/writes %d %d, want %d %d" % (name, m["reads"], m["writes"], w[0], w[1]))
        if abs(miss - w[2]) > 0.05 * w[3]:
            bad.append("%s: data view D1 misses %d, cachegrind %d" % (name, miss, w[2]))
if bad:
    print("off:\n  " + "\n  ".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
	echo "model-data: $1: report --model --data: struct dw_rec's members, reads and writes equal cachegrind's"
}

for l in a b; do
	lines $l
	check_lines $l
done
check_view a 64
check_view b 8

# diff --model --data A B: struct dw_rec matched across the two binaries by
# name; val's D1 misses fell, pos.y's rose (header)
"$KP" diff --model --data --json --symfs "$TMP/symfs" "$TMP/vm-a/a.data" "$TMP/vm-b/b.data" \
	>"$TMP/diff.json" 2>"$TMP/err" || fail "diff --model --data: $(cat "$TMP/err")"
python3 - "$TMP" <<'EOF' || fail "diff --model --data: not the change the layouts make (above)"
import json, sys
tmp = sys.argv[1]
want = [{l.split()[0]: [int(x) for x in l.split()[1:]] for l in open(tmp + "/want-" + s)} for s in "ab"]
d = json.load(open(tmp + "/diff.json"))
t = [t for t in d["data_types"] if t["type"] == "struct dw_rec"]
assert len(t) == 1, [x["type"] for x in d["data_types"]][:20]
t = t[0]
assert (t["side"], t["base_module"], t["hard_module"], t["base_size"], t["hard_size"]) == \
    ("both", "/bin/data-walk", "/bin/data-walk-b", 128, 128), t
m = {x["member"]: x for x in t["members"] if x["side"] != "both" or x["base"]["accesses"] + x["hardened"]["accesses"]}
assert set(m) == set(want[0]), sorted(m)
bad = []
for name, x in sorted(m.items(), key=lambda x: x[1]["change"]):
    cg = want[1][name][2] - want[0][name][2]
    print("diff: %-6s +%-3s -> +%-3s D1 misses %5d -> %5d change %+6d (cachegrind %+6d)" % (name,
          x["base_offset"], x["hard_offset"], x["base"]["misses"], x["hardened"]["misses"], x["change"], cg))
    # the same program: the same accesses on both sides
    if x["side"] != "both" or x["base"]["accesses"] != x["hardened"]["accesses"]:
        bad.append("%s: %s" % (name, x))
    if abs(x["change"] - cg) > 0.05 * want[0][name][3]:
        bad.append("%s: change %+d, cachegrind's %+d" % (name, x["change"], cg))
    if x["change"] != x["hardened"]["misses"] - x["base"]["misses"]:
        bad.append("%s: change %+d is not hardened - base" % (name, x["change"]))
offs = {n: (x["base_offset"], x["hard_offset"]) for n, x in m.items()}
if offs != {"key": (0, 0), "val": (64, 8), "pos.y": (76, 76), "count": (80, 80), "flags": (84, 84),
            "stamp": (88, 88)}:
    bad.append("offsets %s" % offs)
ch = sorted(m, key=lambda n: m[n]["change"])
if ch[0] != "val" or m["val"]["change"] >= 0 or ch[-1] != "pos.y" or m["pos.y"]["change"] <= 0:
    bad.append("the most fallen %s (%+d), the most risen %s (%+d): want val and pos.y" % (
               ch[0], m[ch[0]]["change"], ch[-1], m[ch[-1]]["change"]))
if sorted(n for n in [x["member"] for x in t["members"]][:2]) != ["pos.y", "val"]:
    bad.append("members not by |change|: %s" % [x["member"] for x in t["members"]])
if bad:
    print("off:\n  " + "\n  ".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
echo "model-data: diff --model --data: val's D1 misses fell by one a record and pass, pos.y's rose as much"

# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What tests/vm/t_sweep_slurm.sh and t_sweep_parallel.sh share, sourced after
# vm.sh: the smallest plan of t_sweep.sh (base, the FREELIST_RANDOM pair's
# hardened build, a variant whose boot cannot succeed: --timeout 2; the vm
# tier's kernels, nothing built), its local run, and the comparison of a
# matrix made elsewhere with the local one.
#
#   eng_plan                      writes $TMP/plan
#   eng_local                     the local run: $TMP/local, $TMP/local.json
#   eng_same LOCAL.json DIR.json  the two matrices alike, or the test fails
#   eng_step NAME                 prints the time since the last step

ENG_OPS=null,fork
ENG_T=$SECONDS

eng_step() {
	echo "$1: $((SECONDS - ENG_T)) s"
	ENG_T=$SECONDS
}

eng_plan() {
	cat >"$TMP/plan" <<'EOF'
base: --set SLAB_FREELIST_RANDOM=n
freelist_random: --set SLAB_FREELIST_RANDOM=y
broken: --timeout 2
EOF
}

# the plan run here, -j 2: exit 1 (broken's row says why), the matrix as JSON
eng_local() {
	local rc=0
	"$KP" sweep -j 2 -r 2 --ops $ENG_OPS -o "$TMP/local" "$TMP/plan" >"$TMP/local.txt" \
		2>"$TMP/local.err" || rc=$?
	[ "$rc" = 1 ] || fail "the local sweep: exit $rc, want 1 (broken's row): $(tail -5 "$TMP/local.err")"
	rc=0
	"$KP" sweep --merge "$TMP/local" --json >"$TMP/local.json" 2>>"$TMP/local.err" || rc=$?
	[ "$rc" = 1 ] || fail "sweep --merge local: exit $rc, want 1: $(tail -3 "$TMP/local.err")"
}

# eng_same A.json B.json: the matrices of two folders of one plan alike: the
# same operations, rows in the same order, each with the same options, setup,
# kernel, verdict and reason (its folder's path as DIR; a boot's console line
# left out: where QEMU was when its 2 s ran out), the same differences from
# base, and every cell of a row compared in both, with as many runs.  The
# numbers are two boots' and differ a little; the marks follow them.
eng_same() {
	python3 - "$1" "$2" <<'PY' || fail "the matrices of $1 and $2 differ"
import json, sys
def shape(path):
    m = json.load(open(path))
    d = m["dir"].rstrip("/")
    def norm(s):
        return None if s is None else s.replace(d + "/", "DIR/").split("; the console's last line")[0]
    rows = []
    for r in [m["base"]] + m["rows"]:
        rows.append((r["variant"], r["line"], r["options"], r["setup"], r["kernel"], r["ok"],
                     norm(r["why"]), r.get("differs"),
                     [(c["operation"], c["ok"], norm(c["why"]), c["runs"]) for c in r.get("cells", [])]))
    return {"operations": m["operations"], "model": m["model"], "tests": m["tests"], "rows": rows}
a, b = shape(sys.argv[1]), shape(sys.argv[2])
if a != b:
    print("local:  %s\nengine: %s" % (json.dumps(a), json.dumps(b)))
    sys.exit(1)
rows = a["rows"]
assert [r[0] for r in rows] == ["base", "freelist_random", "broken"], rows
assert rows[1][5] and len(rows[1][8]) == len(a["operations"]) and all(c[1] for c in rows[1][8]), rows[1]
assert not rows[2][5] and rows[2][6].startswith("boot: vm-run: kernel 6.1.") and "no result within 2 s" in rows[2][6], rows[2]
print("alike: %d rows, %d cells compared in each, broken: %s" % (len(rows), a["tests"], rows[2][6]))
PY
}

# eng_why JSON VARIANT: the reason of VARIANT's row
eng_why() {
	python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(next(r["why"] for r in m["rows"] if r["variant"] == sys.argv[2]))' "$1" "$2"
}

#!/bin/bash
# The motivating case end to end: two 6.1 kernels built from the same Debian
# source (scripts/kernel-build.sh) that differ only in
# CONFIG_SLAB_FREELIST_RANDOM, big-fork recorded with --repeat in each with
# --func allocate_slab --func shuffle_freelist (the instance inlined into
# allocate_slab, found through the build's DWARF), and diffed on the host.
# Asserts: the provenance names that one option and nothing else;
# shuffle_freelist exists, with calls, on the hardened side only;
# allocate_slab is slower there, significantly; the feature roll-up names
# freelist randomization and its option.  A second recording on the baseline
# build is the null pair: no probed function changes by a quarter of what
# the option changed allocate_slab by (a 95% interval over 5 + 5 runs is
# "significant" by chance in one null pair of twenty or more).  Then
# record --blocks allocate_slab on each build and diff --blocks: matched by
# source line, allocate_slab's plain freelist loop (bound slab->objects - 1)
# runs on the baseline and not on the hardened build, where shuffle_freelist's
# loop (bound slab->objects) and next_freelist_entry's (bound page_limit)
# exist on the hardened side only, with their lines.
# kernels: hard base
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
RUNS=${KP_PAIR_RUNS:-5}
FORKS=${KP_PAIR_FORKS:-10}
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
# Without KVM, TCG with icount: latencies are then instruction counts, which
# the host's load cannot move (plain TCG's moved 3x between recordings on a
# busy host) and which is all TCG can show faithfully anyway.
if [ -z "${KP_VM_ACCEL:-}" ]; then
	vm_accel
	[ "$VM_ACCEL" = kvm ] || export KP_VM_ACCEL=icount
fi

[ "$(id -u)" -eq 0 ] || skip "needs root (apt, and files the guest's root writes)"
# A build that cannot happen fails the test: the builds are its subject.
KHARD=$(vm_kbuild hard -o "$TMP/k-hard")
KBASE=$(vm_kbuild base -o "$TMP/k-base")
# the two configs differ in exactly that line
cfg_diff=$(diff <(grep -v '^#' "$KBASE/.config") <(grep -v '^#' "$KHARD/.config") | grep '^[<>]' || true)
[ "$cfg_diff" = '> CONFIG_SLAB_FREELIST_RANDOM=y' ] ||
	fail "the builds' configs differ in more than SLAB_FREELIST_RANDOM: $cfg_diff"

record() {	# $1: kernel folder, then the names of the recordings, one after the other
	local kdir=$1
	shift
	if [ -z "${PREPARED:-}" ]; then
		vm_prepare "$kdir"
		PREPARED=1
	else
		vm_use_kernel "$kdir"
	fi
	# The warm-up run: the first run after boot meets cold caches and slab
	# caches yet to grow (and under plain TCG pays for translating the code
	# it reaches: allocate_slab's first run took 4-5x the later ones).
	vm_run <<GUEST || fail "guest script ($*) exited $?"
big-fork $FORKS >/dev/null
for f in $*; do
	kprotperf record -q -r $RUNS -F 499 --func allocate_slab --func shuffle_freelist \
		-o /mnt/host/\$f.data -- big-fork $FORKS
done
kprotperf record -q -r 3 -F 99 --blocks allocate_slab -o /mnt/host/blk-$1.data -- big-fork $FORKS
GUEST
	cp "$VM_SHARE"/*.data "$TMP/"
}
record "$KBASE" base base2
record "$KHARD" hard

# No --vmlinux: kernel-build.sh filed both vmlinux files by build id.
J=$TMP/diff.json
diff_json() {	# $1 $2: the recordings
	"$KP" diff --json "$TMP/$1.data" "$TMP/$2.data" >"$J" || fail "diff $1 $2 failed"
}
# $1: a python expression over d (the JSON diff) and row(table, name); fails with $2
check() {
	python3 - "$J" "$1" <<'EOF' || fail "$2: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["provenance"], d["functions"][:4], d["one_side_only"], d["features"][:3])' "$J")"
import json, sys
d = json.load(open(sys.argv[1]))
def row(table, name):
    return next((r for r in d[table] if r["name"] == name), None)
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

diff_json base hard
hard_delta=$(python3 -c 'import json,sys; print(next(r for r in json.load(open(sys.argv[1]))["functions"] if r["name"] == "allocate_slab")["delta_per_run_ns"])' "$J")
check "[(c['name'], c['base'], c['hardened'], c['feature']) for c in d['provenance']['config']] == [('SLAB_FREELIST_RANDOM', 'n', 'y', 'freelist_random')] and d['provenance']['cmdline'] == [] and d['provenance']['vulnerabilities'] == []" \
	"the provenance does not show exactly CONFIG_SLAB_FREELIST_RANDOM n -> y"
check "d['provenance']['kernel_release']['base'] == d['provenance']['kernel_release']['hardened']" \
	"the two builds have different releases"
check "all(x['debuginfo'].get('vmlinux') for x in (d['base'], d['hardened']))" \
	"diff did not find both builds' vmlinux by build id"
check "row('functions', 'shuffle_freelist')['only'] == 'hardened' and [r for r in d['one_side_only'] if r['name'] == 'shuffle_freelist'][0]['hardened_calls'] > 0" \
	"shuffle_freelist is not hardened-only with calls"
check "row('functions', 'allocate_slab')['ratio'] > 1 and row('functions', 'allocate_slab')['significant']" \
	"allocate_slab is not significantly slower on the hardened build"
check "row('features', 'freelist_random')['config'] == [{'option': 'SLAB_FREELIST_RANDOM', 'base': 'n', 'hardened': 'y'}]" \
	"the feature roll-up does not name freelist randomization's config option"
"$KP" diff "$TMP/base.data" "$TMP/hard.data" >"$TMP/diff.txt" || fail "diff (text) failed"
# the text provenance: that one option, nothing else
prov=$(sed -n '/^# differs/,/^# [a-z]*:/p' "$TMP/diff.txt" | grep '^#   ' || true)
[ "$prov" = "#   config SLAB_FREELIST_RANDOM: n -> y (freelist_random)" ] ||
	fail "the text provenance is not exactly the one option: $prov"
sed -n '/^# differs/,/^$/p;/^Probed/,/^$/p;/^On one kernel only/,/^$/p;/^Hardening features/,/^$/p' "$TMP/diff.txt"

# the null pair: no probed function changes by a quarter of the option's effect
diff_json base base2
check "d['provenance']['config'] == [] and d['provenance']['cmdline'] == []" \
	"the two baseline recordings differ in provenance"
check "[r['name'] for r in d['functions'] if r['significant'] and abs(r['delta_per_run_ns']) >= 0.25 * abs($hard_delta)] == []" \
	"null pair: a probed function changed by a quarter of allocate_slab's change between builds ($hard_delta ns per run), on one build"
python3 -c 'import json,sys; print("null pair: " + ", ".join("%s %+.1f%%%s" % (r["name"], r["change_pct"] or 0, " (significant)" if r["significant"] else "") for r in json.load(open(sys.argv[1]))["functions"]))' "$J"

# diff --blocks by source line: each loop by its bound, the plain freelist
# loop's on both builds (it is still compiled in), the shuffle's hardened-only
"$KP" diff --blocks --json "$TMP/blk-base.data" "$TMP/blk-hard.data" >"$J" || fail "diff --blocks failed"
python3 - "$J" <<'EOF' || fail "diff --blocks: the freelist loops are not where they belong: $(head -c 3000 "$J")"
import json, sys
f = json.load(open(sys.argv[1]))["functions"][0]
assert f["function"] == "allocate_slab" and f["only"] is None, f["function"]
def side(l, s):
    b = l["bound"][s]
    return b["expr"] if b else None
def trips(l, s):
    return l["trips_per_call"][s] or 0
plain = [l for l in f["loops"] if side(l, "base") == "slab->objects - 1"]
assert len(plain) == 1, [(l["line"], side(l, "base"), side(l, "hardened")) for l in f["loops"]]
plain = plain[0]
assert plain["file"].endswith("mm/slub.c") and trips(plain, "base") > 1, plain
assert side(plain, "hardened") == "slab->objects - 1" and trips(plain, "hardened") < trips(plain, "base") / 10, plain
shuffle = [l for l in f["loops"] if side(l, "hardened") == "slab->objects"]
assert len(shuffle) == 1 and shuffle[0]["only"] == "hardened" and trips(shuffle[0], "hardened") > 1, shuffle
nfe = [l for l in f["loops"] if side(l, "hardened") == "page_limit"]
assert nfe and all(l["only"] == "hardened" for l in nfe), nfe
lines = {(l["file"], l["line"]): l for l in f["lines"]}
for l in [shuffle[0]] + nfe:
    assert lines[(l["file"], l["line"])]["only"] == "hardened", l["line"]
assert lines[(plain["file"], plain["line"])]["only"] is None
print("diff --blocks: plain freelist loop at %s:%d %.1f -> %.2f trips per call; shuffle loop at line %d and next_freelist_entry's at %s hardened-only"
      % (plain["file"], plain["line"], trips(plain, "base"), trips(plain, "hardened"), shuffle[0]["line"], ",".join(str(l["line"]) for l in nfe)))
EOF

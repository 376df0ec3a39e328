#!/bin/bash
# The protection map (features --svg BASE HARDENED) rendered by headless
# Chromium (Debian's chromium package).  The recordings are two real
# big-fork recordings kept for the golden tests (the schema-4 pair in old/,
# which regen.sh does not replace); the feature mapping is made
# for the test so that every kind of cell shows: features whose functions
# gained samples from the base to the hardened recording (a cost: red),
# lost some (a saving: blue), have none on either side (white), and cells
# with no feature (grey).  Checked: xmllint and Chromium read the SVG as
# well-formed XML, every type x position cell is there with its tooltip,
# and the fill Chromium computes for each cell is the colour --json gives
# it, which itself follows from the cell's change and the legend's scale
# (the formula of src/features/protection_map.c, recomputed here).
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/chromium.sh
. "$ROOT/tests/lib/chromium.sh"
chromium_need
data=$ROOT/tests/golden/data/old
cd "$TMP"
cat > map.conf <<'EOF'
[gained]
about = functions the hardened recording spent more samples in
type = config
position = data
functions = __kmem_cache_alloc_bulk unmap_page_range vm_area_dup
[lost]
about = functions the hardened recording spent fewer samples in
type = boot
position = layout
functions = __split_vma dup_mmap new_inode
[idle]
about = a function neither recording ran
type = source
position = code
functions = kp_no_such_function
EOF
"$KP" features --features map.conf --svg "$data/v4-bf-a.data" "$data/v4-bf-b.data" > map.svg ||
	fail "features --svg exited $?"
"$KP" features --features map.conf --json "$data/v4-bf-a.data" "$data/v4-bf-b.data" > map.json ||
	fail "features --json exited $?"
svg_parses map.svg

# Each cell's fill as Chromium computes it, written into the page it dumps
{
	echo '<!DOCTYPE html><html><body>'
	sed 1d map.svg
	cat <<'EOF'
<pre id="out"></pre><script>
var out = [];
document.querySelectorAll("svg g.cell").forEach(function (g) {
	var r = g.querySelector("rect"), t = g.querySelector("title");
	out.push(g.id + " " + getComputedStyle(r).fill + " " + (t ? t.textContent.length : 0));
});
document.getElementById("out").textContent = "CELLS\n" + out.join("\n") + "\nEND";
</script></body></html>
EOF
} > page.html
chrome --dump-dom "file://$TMP/page.html" > page.txt || fail "chromium exited $?"
sed -n '/CELLS$/,/^END/p' page.txt | sed '1d;$d' > fills.txt
[ -s fills.txt ] || fail "chromium gave no cell: $(head -c 400 page.txt)"

python3 - map.json fills.txt <<'PY' || fail "the map's cells disagree with its numbers"
import json, sys
m = json.load(open(sys.argv[1]))
fills = {}
for line in open(sys.argv[2]):
    cid, rest = line.split(" ", 1)
    rgb, title = rest.rsplit(" ", 1)
    fills[cid] = (rgb.strip(), int(title))
types = ["source", "compiler", "config", "boot"]
positions = ["code", "data", "layout"]
cells = {(c["type"], c["position"]): c for c in m["cells"]}
assert set(cells) == {(t, p) for t in types for p in positions}, sorted(cells)
assert set(fills) == {"cell-%s-%s" % k for k in cells}, sorted(fills)
def rgb(hexcol):
    return "rgb(%d, %d, %d)" % tuple(int(hexcol[i:i + 2], 16) for i in (1, 3, 5))
def expected(c):
    if not c["features"]:
        return "#e0e0e0"
    x = max(-1.0, min(1.0, c["delta_pct"] / m["scale_pct"]))
    end = (0xb2, 0x18, 0x2b) if x >= 0 else (0x21, 0x66, 0xac)
    # C's lround: halves away from zero
    col = [255 - int(abs(x) * (255 - e) + 0.5) for e in end]
    return "#%02x%02x%02x" % tuple(col)
seen = set()
for k, c in cells.items():
    got, title = fills["cell-%s-%s" % k]
    assert got == rgb(c["color"]), (k, got, c["color"])
    assert c["color"] == expected(c), (k, c["color"], expected(c), c["delta_pct"])
    assert title > 0, (k, "no tooltip")
    d = sum(f["delta_ns"] for f in c["features"])
    assert abs(d - c["delta_ns"]) < 1e-3 * max(1, abs(d)), (k, d, c["delta_ns"])
    if c["features"]:
        seen.add("red" if c["delta_ns"] > 0 else "blue" if c["delta_ns"] < 0 else "white")
    else:
        seen.add("grey")
assert seen == {"red", "blue", "white", "grey"}, seen
assert max(abs(c["delta_pct"]) for c in cells.values()) <= m["scale_pct"], m["scale_pct"]
print("map: 12 cells as --json colours them (%s), scale +-%g%% of %.1f ms per run"
      % (", ".join(sorted(seen)), m["scale_pct"], m["base_kernel_ns_per_run"] / 1e6))
PY

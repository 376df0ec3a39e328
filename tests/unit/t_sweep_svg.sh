#!/bin/bash
# kprotperf sweep's heat map (--svg) rendered by headless Chromium (Debian's
# chromium package): the matrix of test_sweep's fixture (test_sweep
# --fixture DIR: a variant 10% slower, a null one, one whose boot failed,
# one never run, one with a failed operation, one with a broken job file).
# Checked: xmllint and Chromium read the SVG as well-formed XML; every cell
# compared is there with its tooltip, and the fill Chromium computes for it
# is the protection map's colour of its change (--json's change_pct) on the
# legend's scale, recomputed here; the cell that failed is grey and its
# tooltip says why; each row that was not compared is one grey band whose
# tooltip holds --json's reason.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTPUT=${OUTPUT:-build}
[[ $OUTPUT == /* ]] || OUTPUT=$ROOT/$OUTPUT
KP=${KP:-$ROOT/kprotperf}
TMP=$(mktemp -d /tmp/kp-sweep-svg.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=tests/lib/chromium.sh
. "$ROOT/tests/lib/chromium.sh"
chromium_need
cd "$TMP" || fail "cd $TMP"
"$OUTPUT/tests/test_sweep" --fixture "$TMP/d" || fail "test_sweep --fixture exited $?"
rc=0
"$KP" sweep --merge d --svg m.svg --json >m.json 2>err || rc=$?
[ "$rc" = 1 ] || fail "sweep --merge: exit $rc, want 1 (rows not compared): $(cat err)"
svg_parses m.svg

# what Chromium computes for each cell and band, written into the page it dumps
{
	echo '<!DOCTYPE html><html><body>'
	sed 1d m.svg
	cat <<'EOF'
<pre id="out"></pre><script>
var out = [];
document.querySelectorAll("svg g.cell, svg g.failed").forEach(function (g) {
	var r = g.querySelector("rect"), t = g.querySelector("title");
	out.push(JSON.stringify({kind: g.getAttribute("class"), variant: g.dataset.variant,
		operation: g.dataset.operation || null, fill: getComputedStyle(r).fill,
		title: t ? t.textContent : ""}));
});
document.getElementById("out").textContent = "CELLS\n" + out.join("\n") + "\nEND";
</script></body></html>
EOF
} >page.html
chrome --dump-dom "file://$TMP/page.html" >page.txt || fail "chromium exited $?"
sed -n '/CELLS$/,/^END/p' page.txt | sed '1d;$d' >cells.txt
[ -s cells.txt ] || fail "chromium gave no cell: $(head -c 400 page.txt)"

python3 - m.json cells.txt <<'PY' || fail "the heat map disagrees with the matrix"
import html, json, math, re, sys
m = json.load(open(sys.argv[1]))
got = [json.loads(html.unescape(l)) for l in open(sys.argv[2])]
cells = {(g["variant"], g["operation"]): g for g in got if g["kind"] == "cell"}
bands = {g["variant"]: g for g in got if g["kind"] == "failed"}
def nice(x):
    p = 10 ** math.floor(math.log10(max(x, 0.1)))
    return next(k * p for k in (1, 2, 5, 10) if x <= k * p)
changes = [abs(c["change_pct"]) for r in m["rows"] for c in r["cells"] if c["ok"]]
scale = nice(max(changes))
def colour(pct):
    x = max(-1.0, min(1.0, pct / scale))
    end = (0xb2, 0x18, 0x2b) if x >= 0 else (0x21, 0x66, 0xac)
    # C's lround: halves away from zero
    return "rgb(%d, %d, %d)" % tuple(255 - int(abs(x) * (255 - e) + 0.5) for e in end)
def esc(s):
    # as src/util/esc escapes text: a control character as \xNN
    return re.sub(r"[\x00-\x1f\x7f]", lambda c: "\\x%02x" % ord(c.group()), s)
n = 0
for r in m["rows"]:
    if not r["ok"]:
        b = bands[r["variant"]]
        assert b["fill"] == "rgb(224, 224, 224)" and esc(r["why"]) in b["title"], (b, r["why"])
        assert not any(v == r["variant"] for v, _ in cells), r["variant"]
        continue
    for c in r["cells"]:
        g = cells[(r["variant"], c["operation"])]
        if c["ok"]:
            assert g["fill"] == colour(c["change_pct"]), (g, c["change_pct"], colour(c["change_pct"]))
            assert ("%+.2f%%" % c["change_pct"]) in g["title"], g
        else:
            assert g["fill"] == "rgb(224, 224, 224)" and esc(c["why"]) in g["title"], (g, c["why"])
        n += 1
assert n == len(cells) and set(bands) == {"failed", "missing", "garbage"}, (n, sorted(bands))
print("sweep heat map: %d cells as --json has them (scale +-%g%%), %d rows not compared, each saying why"
      % (n, scale, len(bands)))
PY

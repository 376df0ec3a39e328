#!/bin/bash
# kprotperf features on this kernel.  Without /proc/kcore (this machine's
# kernel has none) and without a vmlinux of this kernel to fall back to, it
# says so in one line, names --vmlinux as the way out, exits 1 and prints
# nothing on stdout.  With it, a function's sites
# (--func) are among the feature totals, and with the mitigations off
# (spectre_v2 and retbleed vulnerable or not affected) the boot left few
# retpoline and return-thunk sites: under 1000 of each (Debian's 6.1 has
# 8822 and 48579 as linked, and leaves 0 and 4).
. "$(dirname "$0")/lib.sh"
need_root
cd "$TMP"
if ! head -c 1 /proc/kcore > /dev/null 2>&1; then
	want="kprotperf features: cannot read the running kernel's text from /proc/kcore: No such file or directory (a kernel without CONFIG_PROC_KCORE, or locked down): give its vmlinux with --vmlinux, inventoried as linked, before the boot's patching; no vmlinux of kernel $(uname -r) found either (install its -dbg package)"
	"$KP" features > out 2> err && fail "features without /proc/kcore exited 0"
	[ "$(cat err)" = "$want" ] || fail "features said: $(cat err)"
	[ ! -s out ] || fail "features printed: $(cat out)"
	echo "features without /proc/kcore: one line, exit 1"
	exit 0
fi
"$KP" features --json > run.json || fail "features exited $?"
"$KP" features --json --func do_sys_openat2 > func.json || fail "features --func exited $?"
(cd /sys/devices/system/cpu/vulnerabilities && grep . ./*) > vuln || true
python3 - <<'PY' || fail "features disagrees with the kernel's account: $(cat vuln)"
import json
d = json.load(open("run.json"))
s = {f["feature"]: f["sites"] for f in d["features"]}
v = dict(l.strip()[2:].split(":", 1) for l in open("vuln") if ":" in l)
if "Retpolines" not in v.get("spectre_v2", ""):
    assert s["retpoline"] < 1000, (s, v)
if not any(w in v.get(k, "") for k in ("retbleed", "spec_rstack_overflow")
           for w in ("return thunk", "Safe RET")):
    assert s["return_thunk"] < 1000, (s, v)
f = json.load(open("func.json"))
assert f["function"] == "do_sys_openat2"
for x in f["sites"]:
    assert s[x["feature"]] > 0, x
PY
echo "features: the running text agrees with the vulnerabilities files"

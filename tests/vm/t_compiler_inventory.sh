#!/bin/bash
# kprotperf features on Debian's 6.1 (RETHUNK, RETPOLINE and
# STACKPROTECTOR_STRONG built in), booted with its default mitigations and
# with mitigations=off: the running text (/proc/kcore) keeps most of the
# return-thunk and retpoline sites the vmlinux has exactly when
# /sys/devices/system/cpu/vulnerabilities says those mitigations are in use,
# and else under 1% of them (the boot patches the others back to ret and
# call *%reg; the thunks' own code and a few sites missing from
# .return_sites stay), while the canaries, which no boot patches, stay: as many in
# both boots, do_sys_openat2's two (load, check) among them; the vmlinux as
# linked has every kind the running text has, and more.  With /proc/kcore
# hidden (a bind mount of /dev/null), features falls back to the kernel's
# vmlinux (found by build id), says so, and counts as the file does.
#
# The CPU is QEMU's max as AMD family 15h (KP_VM_CPU): retbleed applies to
# it, so the default boot keeps the return thunks (untrained return thunk)
# where QEMU's own family 15 would have them patched out.  Each boot also
# records big-fork 5 times: report charges the samples on return-thunk sites
# and in the thunks to return_thunk, and diff (mitigations=off as base)
# shows its cost per run with an interval above zero.  And each records
# --blocks __task_pid_nr_ns under syscall-loop: every call leaves through
# one return, so with the thunks on their sites run exactly once a call.
export KP_VM_CPU=${KP_VM_CPU:-max,family=21}
# each boot records six times: ~130 s on a quiet 2-core host, over the
# default 180 s when the tier's kernel builds and the other tiers share it
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
"$KP" features --json --vmlinux "$VM_VMLINUX" >"$TMP/file.json" ||
	fail "features --vmlinux exited $?"
for boot in default off; do
	args=()
	[ "$boot" = off ] && args=(mitigations=off)
	vm_run "${args[@]}" <<'GUEST' || fail "guest script ($boot) exited $?"
# the whole kernel's table and do_sys_openat2's sites in one run: each run
# decodes the whole text, ~25 s under TCG
kprotperf features --json --func do_sys_openat2 > /mnt/host/run.json
# no /proc/kcore (a bind mount of /dev/null in its place): the vmlinux stands
# in, where a distribution puts it (/boot/vmlinux-RELEASE)
if grep -qw mitigations=off /proc/cmdline; then
	mkdir -p /boot && ln -sf "/mnt/ro/vmlinux-$(uname -r)" "/boot/vmlinux-$(uname -r)"
	mount --bind /dev/null /proc/kcore && kprotperf features --json > /mnt/host/fallback.json
	umount /proc/kcore
	# gone again: the recordings below are made as in the default boot, and
	# record --blocks does not read the 630 MB file's DWARF under TCG
	rm "/boot/vmlinux-$(uname -r)"
fi
cd /sys/devices/system/cpu/vulnerabilities && grep . * > /mnt/host/vuln || true
cd /tmp && kprotperf record -q -r 5 -o /mnt/host/bf.data -- big-fork 20 >/dev/null
kprotperf record -q --blocks __task_pid_nr_ns -o /mnt/host/bl.data -- syscall-loop 2000 >/dev/null
GUEST
	for f in run.json vuln bf.data bl.data; do
		cp "$VM_SHARE/$f" "$TMP/$boot.$f"
	done
	# reported on the host, as on another machine: the sites of the code
	# that ran are in the recording (read from /proc/kcore at record time).
	# In the guest, under TCG, the report of bf.data took 91 s of a boot's
	# 530 (mitigations=off's, whose /boot/vmlinux link made it read the DWARF)
	"$KP" report --json "$TMP/$boot.bf.data" >"$TMP/$boot.report.json" ||
		fail "report of $boot's bf.data exited $?"
	"$KP" report --json "$TMP/$boot.bl.data" >"$TMP/$boot.blocks.json" ||
		fail "report of $boot's bl.data exited $?"
	[ "$boot" = default ] || cp "$VM_SHARE/fallback.json" "$TMP/"
	echo "$boot: $(tr '\n' ' ' <"$TMP/$boot.vuln" | cut -c1-300)"
done
python3 - "$TMP" <<'PY' || fail "the inventories disagree with the kernel's own account"
import json, sys
T = sys.argv[1]
def sites(doc):
    return {f["feature"]: f["sites"] for f in doc["features"]}
linked = sites(json.load(open(T + "/file.json")))
vuln = {}
for boot in ("default", "off"):
    vuln[boot] = dict(l.strip().split(":", 1) for l in open("%s/%s.vuln" % (T, boot)) if ":" in l)
# each boot's one features run: the whole table, and do_sys_openat2's sites
doc = {b: json.load(open("%s/%s.run.json" % (T, b))) for b in ("default", "off")}
run = {b: sites(d) for b, d in doc.items()}
for b, s in run.items():
    v = vuln[b]
    rethunk = any(w in v.get(k, "") for k in ("retbleed", "spec_rstack_overflow")
                  for w in ("return thunk", "Safe RET"))
    retpoline = "Retpolines" in v.get("spectre_v2", "")
    # in use: the sites as linked, less the few the boot leaves (the thunks'
    # own code, sites missing from .return_sites); else those few alone
    assert (s["return_thunk"] > linked["return_thunk"] / 2) == rethunk, (b, s, v)
    assert (s["retpoline"] > linked["retpoline"] / 2) == retpoline, (b, s, v.get("spectre_v2"))
    for k in ("return_thunk", "retpoline", "stack_canary"):
        assert s[k] <= linked[k], (b, k, s[k], linked[k])
    f = doc[b]["sites"]
    assert [x["feature"] for x in f].count("stack_canary") == 2, (b, f)
assert run["off"]["return_thunk"] < linked["return_thunk"] / 100, run["off"]
assert run["off"]["retpoline"] < linked["retpoline"] / 100, run["off"]
assert run["default"]["stack_canary"] == run["off"]["stack_canary"] > 0, run
assert linked["return_thunk"] > 0 and linked["retpoline"] > 0, linked
fb = json.load(open(T + "/fallback.json"))
assert fb["as_linked"] and fb["note"] and "/proc/kcore" in fb["note"], fb
assert sites(fb) == linked, fb["features"]
print("no /proc/kcore: %s; %s" % (fb["source"], fb["note"]))
print("inventory: as linked %d return-thunk, %d retpoline, %d canary sites; running: %s"
      % (linked["return_thunk"], linked["retpoline"], linked["stack_canary"],
         ", ".join("%s %d/%d/%d" % (b, s["return_thunk"], s["retpoline"], s["stack_canary"])
                   for b, s in run.items())))
PY
"$KP" diff --json "$TMP/off.bf.data" "$TMP/default.bf.data" >"$TMP/diff.json" ||
	fail "diff exited $?"
"$KP" diff "$TMP/off.bf.data" "$TMP/default.bf.data" | sed -n '/^Hardening features/,/^$/p'
python3 - "$TMP" <<'PY' || fail "return_thunk's cost is not where the inventory says it is"
import json, sqlite3, sys
T = sys.argv[1]
def rows(boot):
    r = json.load(open("%s/%s.report.json" % (T, boot)))["features"]
    assert r["sites_source"] == "/proc/kcore", r["sites_source"]
    return {x["name"]: x for x in r["rows"]}
d, o = rows("default"), rows("off")
# sites in the code that ran: the default boot's functions return through
# the thunk, mitigations=off's through ret; canaries on both
assert d["return_thunk"]["sites"] > 0 and d["return_thunk"]["samples"] > 0, d.get("return_thunk")
assert o.get("return_thunk", {}).get("sites", 0) == 0, o.get("return_thunk")
assert d["stack_protector"]["sites"] > 0 and o["stack_protector"]["sites"] > 0, (d, o)
def blocks(boot):
    j = json.load(open("%s/%s.blocks.json" % (T, boot)))
    return {x["name"]: x for x in j["features"]["rows"]}
bd, bo = blocks("default"), blocks("off")
rt = bd["return_thunk"]["blocks"]
assert rt["sites_probed"] >= 1 and rt["sites_reached"] >= 1, rt
db = sqlite3.connect("file:%s/default.bl.data?mode=ro" % T, uri=True)
calls, complete = db.execute("SELECT calls, complete FROM block_funcs").fetchone()
assert rt["executions"] == complete, (rt, calls, complete)
assert bo.get("return_thunk", {}).get("blocks") in (None, {"sites_probed": 0, "sites_reached": 0, "executions": 0}), bo.get("return_thunk")
print("--blocks __task_pid_nr_ns: %d calls, return-thunk sites %d probed, %d reached, %d executions"
      % (calls, rt["sites_probed"], rt["sites_reached"], rt["executions"]))
diff = {x["name"]: x for x in json.load(open(T + "/diff.json"))["features"]}
rt = diff["return_thunk"]
assert rt["delta_ci_low_ns"] is not None and rt["delta_ci_low_ns"] > 0, rt
print("return_thunk: %d sites in the code that ran, %.1f%% of kernel samples; diff +%.1f ms"
      " per run [%.1f, %.1f]" % (d["return_thunk"]["sites"], d["return_thunk"]["kernel_pct"],
      rt["delta_per_run_ns"] / 1e6, rt["delta_ci_low_ns"] / 1e6, rt["delta_ci_high_ns"] / 1e6))
PY

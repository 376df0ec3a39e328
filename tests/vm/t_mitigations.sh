#!/bin/bash
# The mitigations under the machine model (issue 45): Debian's 6.1 under
# --model cache with its TLBs, three boots of one workload, `kprotperf
# record --model` of N getppid calls (syscall-loop):
#   vuln    --cpu Skylake-Client-v1: the guest believes itself vulnerable
#           to Meltdown and turns page-table isolation on by itself;
#   nopti   the same CPU booted with pti=off;
#   max     QEMU's default CPU (max), default command line.
# What the model makes certain:
#   - vuln's guest says "Mitigation: PTI", nopti's "Vulnerable", max's
#     "Not affected" (the recording keeps the file, report --json shows it);
#   - vuln writes CR3 at least twice per call in the kernel (an entry and an
#     exit switch the page tables), nopti and max fewer than once per 100
#     calls (context switches only);
#   - vuln's kernel misses its TLBs more than nopti's: TCG has no PCID
#     (QEMU 7.2 offers none to a TCG guest), so each of those writes
#     flushes every entry PTI leaves non-global;
#   - est_cycles rises much more than instructions from nopti to vuln: the
#     CR3 writes and the misses cost cycles, their instructions few (at
#     least twice the relative change);
#   - max shows nothing of it: its CR3 writes per call as nopti's.
# Reuses Debian's 6.1 package the tier already fetched; builds nothing.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
N=${KP_MITIGATIONS_CALLS:-20000}
vm_need_model

VULN=/sys/devices/system/cpu/vulnerabilities/meltdown
boot() {	# $1 label, then vm-run's options
	local label=$1 start=$SECONDS rc=0
	shift
	KP="$KP" "$VR" --model cache "$@" --out "$TMP/$label" --timeout 900 -- sh -c \
		"syscall-loop 1000 >/dev/null; cat $VULN; kprotperf record --model -q -o m.data -- syscall-loop $N >/dev/null" \
		>"$TMP/$label.out" 2>"$TMP/$label.err" </dev/null || rc=$?
	[ "$rc" -eq 0 ] || fail "$label: vm-run exited $rc: $(tail -3 "$TMP/$label.err")"
	[ "$(q "$TMP/$label/m.data" "SELECT value FROM meta WHERE key = 'model.state'")" = counted ] ||
		fail "$label: the counts were not merged: $(tail -3 "$TMP/$label.err")"
	"$KP" report --model --json --costs "$ROOT/share/costs/skylake.json" "$TMP/$label/m.data" \
		>"$TMP/$label.json" 2>"$TMP/$label.rerr" ||
		fail "$label: report --model --json failed: $(tail -1 "$TMP/$label.rerr")"
	echo "mitigations: $label booted, ran and merged in $((SECONDS - start)) s: $(head -1 "$TMP/$label.out")"
}
boot vuln --cpu Skylake-Client-v1
boot nopti --cpu Skylake-Client-v1 --append pti=off
boot max

python3 - "$TMP" "$N" <<'EOF' || fail "the mitigations are not measured as the model makes certain"
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
want = {"vuln": "Mitigation: PTI", "nopti": "Vulnerable", "max": "Not affected"}
k = {}
for label, status in want.items():
    said = open("%s/%s.out" % (tmp, label)).readline().strip()
    assert said == status, (label, said)
    d = json.load(open("%s/%s.json" % (tmp, label)))
    assert d["totals"]["kernel"]["itlb_misses"] is not None, (label, "no TLB")
    k[label] = d["totals"]["kernel"]
v, o, m = k["vuln"], k["nopti"], k["max"]
assert v["cr3_writes"] >= 2 * n, ("vuln", v["cr3_writes"], n)
for label, t in (("nopti", o), ("max", m)):
    assert t["cr3_writes"] * 100 < n, (label, t["cr3_writes"], n)
tlb = lambda t: t["itlb_misses"] + t["dtlb_misses"]
assert tlb(v) > tlb(o), ("TLB misses", tlb(v), tlb(o))
di = v["insns"] / o["insns"] - 1
dc = v["est_cycles"] / o["est_cycles"] - 1
assert dc > 0 and dc >= 2 * di, ("est_cycles", dc, "insns", di)
print("mitigations: %d calls: CR3 writes %.2f a call with PTI, %.3f without, %.3f on max; "
      "kernel TLB misses %d vs %d; instructions %+.1f%%, est_cycles %+.1f%%"
      % (n, v["cr3_writes"] / n, o["cr3_writes"] / n, m["cr3_writes"] / n, tlb(v), tlb(o),
         100 * di, 100 * dc))
EOF

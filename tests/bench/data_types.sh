#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The data view's typed share (a part of `make bench`; issue 58's goals:
# kernel_typed_share >= 0.90 on big-fork, the report within 3 s; issue 46's
# was 0.75): one boot of the vm tier's base
# build (tests/vm/kernels.sh's "base", built or taken from the cache) under
# `scripts/vm-run.sh --model cache`, `big-fork 10` once before the window and
# once in it, then on the host `kprotperf report --model --data --json`
# (`--symfs` of the build's static programs, which the guest runs stripped):
# the shares typed (all, kernel, user), the kernel's untyped PCs by
# accesses with their reasons, and the report's own time and peak memory
# (/usr/bin/time): the view is resolved when read, so the model's run is
# what it was without it; each goal met or MISSED (not a failure).
# KP (default ./kprotperf), OUTPUT (default build: results in
# OUTPUT/bench/data_types.txt).  Exit: 0 when measured, 77 when the VM
# could not run (why in one line).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
KP=${KP:-$ROOT/kprotperf}
OUT=${OUTPUT:-$ROOT/build}/bench
mkdir -p "$OUT"
TMP=$(mktemp -d /tmp/kp-bench-data.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if ! scripts/vm-run.sh --check-host >"$TMP/check" 2>&1; then
	echo "data_types: skipped: $(tail -1 "$TMP/check")"
	exit 77
fi
args=$(bash tests/vm/kernels.sh args base)
mapfile -t args <<<"$args"
kdir=$(scripts/kernel-build.sh -q "${args[@]}" | tail -1)
KP="$KP" scripts/vm-run.sh --kernel "$kdir" --model cache --out "$TMP/vm" --timeout 900 -- sh -c \
	'big-fork 10 >/dev/null; kprotperf record --model -q -o m.data -- big-fork 10' \
	>"$TMP/vm.out" 2>"$TMP/vm.err" </dev/null || {
	echo "data_types: skipped: vm-run failed: $(tail -1 "$TMP/vm.err")"
	exit 77
}
# the guest's /bin holds the build's static programs stripped of their DWARF
# (scripts/lib/vm.sh), the same build ids: --symfs gives the user side its DWARF
mkdir "$TMP/symfs"
ln -s "$(realpath "${OUTPUT:-$ROOT/build}/static")" "$TMP/symfs/bin"
/usr/bin/time -f '%e %M' -o "$TMP/time" "$KP" report --model --data --json -n 100000 \
	--symfs "$TMP/symfs" "$TMP/vm/m.data" >"$TMP/data.json"
python3 - "$TMP/data.json" "$TMP/time" <<'PY' | tee "$OUT/data_types.txt"
import json, sys
d = json.load(open(sys.argv[1]))
secs, kb = open(sys.argv[2]).read().split()
share = d["kernel_typed_share"]
print("data types, big-fork 10 on the base build: %d loads and stores; typed %.1f%%, kernel %.1f%%, user %s"
      % (d["accesses"], 100 * d["typed_share"], 100 * share,
         "-" if d["user_typed_share"] is None else "%.1f%%" % (100 * d["user_typed_share"])))
print("goal: kernel_typed_share >= 0.90: %s (%.4f)" % ("met" if share >= 0.90 else "MISSED", share))
print("goal: report --model --data <= 3 s: %s (%s s, %d MB)"
      % ("met" if float(secs) <= 3 else "MISSED", secs, int(kb) // 1024))
print("the kernel's untyped PCs by accesses:")
for u in [u for u in d["untyped"] if u["module"] == "[kernel]"][:8]:
    print("%12d  %#x  %s+%#x  %s" % (u["accesses"], u["pc"], u["function"], u["offset"], u["reason"]))
PY

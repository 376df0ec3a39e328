#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 57's check on a machine lent for it (docs/benchmarks.md, "The same
# on the lent Intel core"), which has no QEMU and no package registry: run
# there from this checkout with the static binaries carried (build/static
# from `make static`, build/bench/model-est/model-est from a run of
# model_est.sh here), OUT the folder whose files come back.  kprotperf
# calibrate twice (its clock's spread), then the native half of
# tests/bench/model_est.sh, which calibrates once more beside its runs;
# the VM half then runs here on OUT/mest/bench/model_est.rows and
# costs.json (BENCH_EST_NATIVE, BENCH_EST_COSTS).  RUNS (default 3).
set -u
O=${OUT:?OUT: the folder the results go to}
cd "$(dirname "$0")/../.." || exit 1
exec > >(tee "$O/log.txt") 2>&1
date -u
uname -a
nproc
cat /proc/loadavg
grep -m4 -E '^(vendor_id|cpu family|model|model name)' /proc/cpuinfo
for i in /sys/devices/system/cpu/cpu0/cache/index*; do
	echo "cache $(cat "$i/level" "$i/type" "$i/size" | tr '\n' ' ')"
done
cat /sys/kernel/mm/transparent_hugepage/enabled
KP=$PWD/build/static/kprotperf
[ -x "$KP" ] && [ -x build/bench/model-est/model-est ] && command -v python3 >/dev/null || {
	echo "model_est_device: needs build/static/kprotperf, build/bench/model-est/model-est and python3"
	exit 1
}
for i in 1 2; do
	timeout 150 "$KP" calibrate --out "$O/costs$i.json" >"$O/cal$i.txt" 2>&1
	echo "calibrate $i: exit $?, $(head -1 "$O/cal$i.txt")"
done
# the script builds model-est unless a copy newer than its sources is there
mkdir -p "$O/mest/bench/model-est"
cp build/bench/model-est/model-est "$O/mest/bench/model-est/"
touch "$O/mest/bench/model-est/model-est"
KP=$KP OUTPUT=$O/mest BENCH_EST_VM=0 BENCH_EST_RUNS=${RUNS:-3} timeout 400 tests/bench/model_est.sh
echo "model_est: exit $? (77: the VM half not run, as asked)"
date -u

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A VM part of `make bench`: what --func costs per probed call, in one boot
# of Debian's 6.1 kernel, against Debian's funclatency (libbpf-tools; it
# attaches kprobes), and how long record takes to start with 20 functions;
# then, in one boot of Debian's 6.12 (kprobe.multi), record's start-up with
# those 20 functions against bpftrace attaching the same 20 (and funclatency
# with one, all it takes).
#
# The workload makes N getppid calls; each calls __task_pid_nr_ns once, so
# (ns/call with the probe) - (ns/call without it) is the cost of one probed
# call. kprotperf always traces syscalls too: its baseline is kprotperf
# without --func, funclatency's is the untraced loop.
set -euo pipefail
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/../vm/vm.sh"
# shellcheck source=tests/bench/vm_bench.sh
. "$(dirname "$0")/vm_bench.sh"
N=${BENCH_VM_N:-20000}
# the 20 functions of the start-up measurements, on both kernels
FUNCS="vfs_read vfs_write ksys_read ksys_write __task_pid_nr_ns allocate_slab kmem_cache_free kfree
	do_sys_openat2 do_filp_open path_openat filp_close __fput dput do_mmap do_munmap
	copy_process wake_up_new_task do_exit mm_release"
ROUNDS=${BENCH_VM_ROUNDS:-5}
FUNC=__task_pid_nr_ns
command -v funclatency >/dev/null || fail "funclatency missing: apt-get install libbpf-tools"
command -v bpftrace >/dev/null || fail "bpftrace missing: apt-get install bpftrace (scripts/install-deps.sh)"
START_ROUNDS=${BENCH_VM_START_ROUNDS:-5}
OUT=${OUTPUT:-$ROOT/build}/bench
mkdir -p "$OUT"
VM_HOST_BINS=("$(command -v funclatency)")
vm_prepare
{
	bench_guest_lib
	cat <<GUEST
loop() { ns_loop $N; }
for r in \$(seq $ROUNDS); do
	echo "untraced \$(loop)"
	kprotperf record -q -o /tmp/b.data -- syscall-loop $N > /tmp/out && echo "kprotperf \$(ns_call < /tmp/out)"
	for m in fentry kprobe; do
		kprotperf record -q --probe \$m --func $FUNC -o /tmp/f.data -- syscall-loop $N > /tmp/out
		echo "kprotperf-\$m \$(ns_call < /tmp/out)"
	done
	funclatency $FUNC > /tmp/fl 2>&1 &
	fl=\$!
	sleep 4
	echo "funclatency \$(loop)"
	kill -INT \$fl
	wait \$fl || true
done
funcs="$FUNCS"
args=\$(for f in \$funcs; do printf -- '--func %s ' \$f; done)
for m in none auto kprobe; do
	s=\$(cut -d' ' -f1 /proc/uptime)
	if [ \$m = none ]; then
		kprotperf record -q -o /tmp/s.data -- true
	else
		kprotperf record -q --probe \$m \$args -o /tmp/s.data -- true
	fi
	e=\$(cut -d' ' -f1 /proc/uptime)
	echo "start-\$m \$(awk "BEGIN {print \$e - \$s}")"
done
GUEST
} | vm_run >"$TMP/funcs.log" || fail "guest script exited $?: $(tail -5 "$TMP/funcs.log")"
out=$(cat "$TMP/funcs.log")
med() { bench_med "$1" <<<"$out"; }
base=$(med untraced) kbase=$(med kprotperf) fl=$(med funclatency)
fe=$(med kprotperf-fentry) kp=$(med kprotperf-kprobe)
flc=$(awk "BEGIN {print $fl - $base}")
{
	echo "VM ($VM_KV, $VM_ACCEL): added ns per probed call of $FUNC, medians of $ROUNDS rounds of $N calls"
	printf '%-24s %10s %14s %10s\n' config ns/call "added/call" "x funclat"
	printf '%-24s %10.1f %14s %10s\n' untraced "$base" - -
	printf '%-24s %10.1f %14.1f %10.2f\n' "funclatency (kprobe)" "$fl" "$flc" 1
	printf '%-24s %10.1f %14s %10s\n' "kprotperf, no --func" "$kbase" - -
	for m in fentry kprobe; do
		v=$(med "kprotperf-$m")
		awk -v m="kprotperf --func, $m" -v v="$v" -v b="$kbase" -v f="$flc" \
			'BEGIN {printf "%-24s %10.1f %14.1f %10.2f\n", m, v, v - b, (v - b) / f}'
	done
	# the same record without --func takes $host s on this host: TCG's slowdown
	host=$( { TIMEFORMAT=%R; time "$KP" record -q -o "$TMP/s.data" -- true; } 2>&1)
	echo "record -- true: $(med start-none) s under $VM_ACCEL, $host s on the host"
	for m in auto kprobe; do
		awk -v m="$m" -v t="$(med "start-$m")" -v n="$(med start-none)" -v h="$host" -v a="$VM_ACCEL" \
			'BEGIN {printf "record start with 20 --func (--probe %s): %.2f s under %s, ~%.2f s native by the same slowdown (aim < 1 s)\n", m, t, a, h + (t - n) * h / n}'
	done
} | tee "$OUT/vm_funcs.txt"
awk -v k="$kp" -v b="$kbase" -v f="$flc" 'BEGIN {r = (k - b) / f
	printf "kprotperf kprobe cost per probed call = %.2f x funclatency (required <= 1.00): %s\n", r, r <= 1 ? "ok" : "MISSED"}'
echo "fentry: $(awk -v e="$fe" -v b="$kbase" -v f="$flc" 'BEGIN {printf "%.2f", (e - b) / f}') x funclatency's kprobe (funclatency has no fentry mode)"

# Start-up on 6.12, where --probe kprobe attaches one kprobe.multi link: each
# tool's whole run (load, attach, the workload `true`, detach, output) with
# the 20 functions and without any, interleaved, medians.  bpftrace's run
# with none is `BEGIN { exit(); }` (start, compile, one uprobe), kprotperf's
# `record -- true`; bpftrace runs BEGIN after attaching every probe.
# funclatency takes one function: its `-d 1` run minus the 1 s it traces,
# against kprotperf with that one function.
VM_HOST_BINS=("$(command -v bpftrace)" "$(command -v funclatency)")
vm_use_kernel linux-image-6.12-amd64
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-900}
{
	echo "ROUNDS=$START_ROUNDS"
	echo "FUNCS='$(tr -s ' \t\n' ' ' <<<"$FUNCS")'"
	cat <<'GUEST'
args=$(for f in $FUNCS; do printf -- '--func %s ' "$f"; done)
probes=$(for f in $FUNCS; do printf 'kprobe:%s,' "$f"; done)
probes=${probes%,}
# t NAME CMD...: the command's whole run, in seconds
t() {
	local name=$1 s e rc
	shift
	s=$(cut -d' ' -f1 /proc/uptime)
	"$@" >/tmp/t.out 2>&1 && rc=0 || rc=$?
	e=$(cut -d' ' -f1 /proc/uptime)
	[ "$rc" = 0 ] || { echo "$name failed ($rc): $(tail -3 /tmp/t.out)"; exit 1; }
	echo "$name $(awk "BEGIN {print $e - $s}")"
}
# warm: the libraries and kallsyms in the page cache, as on a used machine
bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1
kprotperf record -q -o /tmp/s.data -- true
for r in $(seq "$ROUNDS"); do
	t kp-0 kprotperf record -q -o /tmp/s.data -- true
	t kp-20 kprotperf record -q --probe kprobe $args -o /tmp/kp20.data -- true
	t bt-0 bpftrace -e 'BEGIN { exit(); }'
	t bt-20 bpftrace -e "$probes { @[probe] = count(); } BEGIN { exit(); }"
	cp /tmp/t.out /tmp/bt20.out
	t kp-1 kprotperf record -q --probe kprobe --func vfs_read -o /tmp/s.data -- true
	t fl-1 funclatency -d 1 vfs_read
done
cp /tmp/kp20.data /tmp/bt20.out /mnt/host/
GUEST
} | vm_run >"$TMP/start.log" || fail "guest script on $VM_KV exited $?: $(tail -5 "$TMP/start.log")"
out=$(cat "$TMP/start.log")
methods=$(q "$VM_SHARE/kp20.data" "SELECT group_concat(DISTINCT method) FROM funcs")
nf=$(q "$VM_SHARE/kp20.data" "SELECT COUNT(DISTINCT name) FROM funcs")
[[ $methods == kprobe.multi && $nf == 20 ]] ||
	fail "kprotperf on $VM_KV: $nf functions by '$methods', want 20 by kprobe.multi"
grep -qx 'Attaching 21 probes...' "$VM_SHARE/bt20.out" ||
	fail "bpftrace did not attach 20 kprobes and BEGIN: $(head -3 "$VM_SHARE/bt20.out")"
{
	echo "VM ($VM_KV, $VM_ACCEL): start-up with 20 kernel functions, whole runs, medians of $START_ROUNDS"
	printf '%-44s %9s %9s %12s\n' tool "none, s" "20, s" "20 - none, s"
	row() {	# label, median without functions, with them
		awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN {printf "%-44s %9.2f %9.2f %12.2f\n", l, a, b, b - a}'
	}
	row "kprotperf record --probe kprobe (kprobe.multi)" "$(med kp-0)" "$(med kp-20)"
	row "bpftrace (20 kprobes)" "$(med bt-0)" "$(med bt-20)"
	awk -v k0="$(med kp-0)" -v k="$(med kp-20)" -v b0="$(med bt-0)" -v b="$(med bt-20)" 'BEGIN {
		printf "kprotperf / bpftrace, whole run with 20 functions: %.2f; the 20 functions alone: %.2f (goal < 1: %s)\n",
			k / b, (k - k0) / (b - b0), k / b < 1 ? "met" : "MISSED" }'
	awk -v k="$(med kp-1)" -v k0="$(med kp-0)" -v f="$(med fl-1)" 'BEGIN {
		printf "one function (vfs_read): kprotperf %.2f s (%.2f s more than without --func), funclatency %.2f s (its -d 1 run minus 1 s)\n",
			k, k - k0, f - 1 }'
} | tee "$OUT/vm_start.txt"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The VM half of `make bench`: what --func costs per probed call, in one boot
# of Debian's 6.1 kernel, against Debian's funclatency (libbpf-tools; it
# attaches kprobes), and how long record takes to start with 20 functions.
#
# The workload makes N getppid calls; each calls __task_pid_nr_ns once, so
# (ns/call with the probe) - (ns/call without it) is the cost of one probed
# call. kprotperf always traces syscalls too: its baseline is kprotperf
# without --func, funclatency's is the untraced loop.
set -euo pipefail
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/../vm/vm.sh"
N=${BENCH_VM_N:-20000}
ROUNDS=${BENCH_VM_ROUNDS:-5}
FUNC=__task_pid_nr_ns
command -v funclatency >/dev/null || fail "funclatency missing: apt-get install libbpf-tools"
VM_HOST_BINS=("$(command -v funclatency)")
vm_prepare
vm_run <<GUEST || fail "guest script exited $?"
loop() { syscall-loop $N | sed -n 's/.* \([0-9.]*\) ns\/call/\1/p'; }
for r in \$(seq $ROUNDS); do
	echo "untraced \$(loop)"
	kprotperf record -q -o /tmp/b.data -- syscall-loop $N > /tmp/out && echo "kprotperf \$(sed -n 's/.* \([0-9.]*\) ns\/call/\1/p' /tmp/out)"
	for m in fentry kprobe; do
		kprotperf record -q --probe \$m --func $FUNC -o /tmp/f.data -- syscall-loop $N > /tmp/out
		echo "kprotperf-\$m \$(sed -n 's/.* \([0-9.]*\) ns\/call/\1/p' /tmp/out)"
	done
	funclatency $FUNC > /tmp/fl 2>&1 &
	fl=\$!
	sleep 4
	echo "funclatency \$(loop)"
	kill -INT \$fl
	wait \$fl || true
done
funcs="vfs_read vfs_write ksys_read ksys_write $FUNC allocate_slab kmem_cache_free kfree
	do_sys_openat2 do_filp_open path_openat filp_close __fput dput do_mmap do_munmap
	copy_process wake_up_new_task do_exit mm_release"
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
out=$(cat "$VM_SHARE/guest.log")
med() {	# median of a configuration's figures
	awk -v c="$1" '$1 == c {print $2}' <<<"$out" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
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
} | tee "$ROOT/build/bench/vm_funcs.txt"
awk -v k="$kp" -v b="$kbase" -v f="$flc" 'BEGIN {r = (k - b) / f
	printf "kprotperf kprobe cost per probed call = %.2f x funclatency (required <= 1.00): %s\n", r, r <= 1 ? "ok" : "MISSED"}'
echo "fentry: $(awk -v e="$fe" -v b="$kbase" -v f="$flc" 'BEGIN {printf "%.2f", (e - b) / f}') x funclatency's kprobe (funclatency has no fentry mode)"

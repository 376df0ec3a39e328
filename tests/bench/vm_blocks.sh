#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The VM part of `make bench` for --blocks: what one block hit costs against
# one kprobe hit of a peer on the same kernel, and how much --blocks slows
# the workload against --func, in one boot of Debian's 6.1 and one of its
# 6.12 (where --blocks attaches the entry and return by kprobe.multi).
#
# The workload makes N getppid calls; each calls __task_pid_nr_ns once, on
# one fixed path, so (ns/call with probes) - (ns/call without) divided by
# the hits per call is the cost of one hit.  kprotperf always traces the
# syscalls too: its baseline is `record` alone; bpftrace's is the untraced
# loop.  The peer's kprobes are bpftrace's, as small as it makes them
# (`@n = count()`): at the function's entry (ftrace-based), at one block head
# inside it, and at every block head kprotperf probes, whose hits are jump-
# optimized or int3 traps exactly as kprotperf's are.
#
# It runs under QEMU's icount (KP_VM_ACCEL=icount unless set): the guest's
# clock counts executed instructions, 1 ns each, so the host's load cannot
# move the figures; no caches are modelled, so these are instruction counts,
# not times.  Rounds are interleaved; the table shows medians.
set -euo pipefail
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/../vm/vm.sh"
# shellcheck source=tests/bench/vm_bench.sh
. "$(dirname "$0")/vm_bench.sh"
N=${BENCH_VM_N:-20000}
# icount figures hardly move between the rounds of one boot: 3 are enough
ROUNDS=${BENCH_VM_ROUNDS:-3}
FUNC=__task_pid_nr_ns
KERNELS=${BENCH_VM_KERNELS:-linux-image-amd64 linux-image-6.12-amd64}
KP_VM_ACCEL=${KP_VM_ACCEL:-icount}
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-900}
for t in bpftrace bpftool; do
	command -v $t >/dev/null || fail "$t missing: apt-get install $t (scripts/install-deps.sh)"
done
OUT=${OUTPUT:-$ROOT/build}/bench
mkdir -p "$OUT"
# sqlite3 reads the warm-up recording in the guest: the probe points of the
# same boot; bpftool shows the BPF programs' run time while they are loaded
VM_HOST_BINS=("$(command -v bpftrace)" "$(command -v bpftool)" "$(command -v sqlite3)")

guest() {
	echo "N=$N ROUNDS=$ROUNDS F=$FUNC"
	bench_guest_lib
	cat <<'GUEST'
q() { sqlite3 -batch -noheader "$@"; }
OPT=/proc/sys/debug/kprobes-optimization
# Each timed run starts on an idle kernel: what the run before left to do
# later (RCU callbacks, the kprobe optimizer's delayed work, freeing the
# programs) would otherwise land in its loop.  Under icount with sleep=off
# an idle guest's clock jumps ahead, so this costs next to no host time.
settle() { sleep 1; }
# kp NAME ARG...: `record ARG... -- syscall-loop N`, its ns per call
kp() {
	local name=$1
	shift
	settle
	kprotperf record -q "$@" -- syscall-loop "$N" >/tmp/kp.out
	echo "$name $(ns_call </tmp/kp.out)"
}
# bt NAME PROBES: bpftrace counting PROBES' hits; -c starts the loop once
# every probe is attached
bt() {
	settle
	bpftrace -e "$2 { @n = count(); }" -c "syscall-loop $N" >/tmp/bt.out 2>&1 ||
		{ echo "bpftrace $2 failed: $(tail -3 /tmp/bt.out)"; exit 1; }
	echo "$1 $(ns_call </tmp/bt.out)"
	echo "hits-$1 $(sed -n 's/^@n: //p' /tmp/bt.out)"
}
# int3 CMD...: CMD with kprobes' jump optimization off, every kprobe off a
# function's entry an int3 trap: what the optimization saves
int3() {
	echo 0 >$OPT
	"$@"
	echo 1 >$OPT
}
# Warm-up (TCG translates code at its first run), and the probe points:
# the block heads of F in the recording, the entry as kprobe:F
syscall-loop "$N" >/dev/null
kprotperf record -q --blocks "$F" -o /tmp/w.data -- syscall-loop "$N" >/dev/null
bpftrace -e "kprobe:$F { @n = count(); }" -c "syscall-loop $N" >/dev/null 2>&1
heads="FROM blocks b JOIN block_funcs f USING (func) WHERE b.func = '$F' AND b.probed"
probes=$(q /tmp/w.data "SELECT group_concat('kprobe:$F' ||
	CASE b.start - f.addr WHEN 0 THEN '' ELSE '+' || (b.start - f.addr) END, ',') $heads")
# the first head inside F run once per call
mid=$(q /tmp/w.data "SELECT b.start - f.addr $heads AND b.start > f.addr
	AND b.count = (SELECT count FROM blocks WHERE func = '$F' AND start = f.addr) ORDER BY b.start LIMIT 1")
echo "mid $mid"
for r in $(seq "$ROUNDS"); do
	settle
	echo "untraced $(ns_loop "$N")"
	kp record -o /tmp/r.data
	kp func --func "$F" -o /mnt/host/func.data
	kp func-kprobe --probe kprobe --func "$F" -o /mnt/host/func-kprobe.data
	kp blocks --blocks "$F" -o /mnt/host/blocks.data
	int3 kp blocks-int3 --blocks "$F" -o /tmp/i.data
	bt bt-entry "kprobe:$F"
	bt bt-mid "kprobe:$F+$mid"
	bt bt-heads "$probes"
	int3 bt bt-heads-int3 "$probes"
done
# Where the time goes, outside the timed rounds: which kprobes the kernel
# optimized, and the BPF programs' run time per run (kernel BPF statistics,
# which cost every run two clock reads more), read by bpftool in the
# workload while the programs are loaded
cat >/tmp/insp.sh <<EOF
syscall-loop $N >/dev/null
cat /sys/kernel/debug/kprobes/list >/mnt/host/kprobes.\$1
bpftool prog show >/mnt/host/progs.\$1
EOF
kprotperf record -q --bpf-stats --blocks "$F" -o /mnt/host/stats.data -- sh /tmp/insp.sh blocks
echo 1 >/proc/sys/kernel/bpf_stats_enabled
bpftrace -e "$probes { @n = count(); }" -c "sh /tmp/insp.sh bpftrace" >/dev/null 2>&1
echo 0 >/proc/sys/kernel/bpf_stats_enabled
GUEST
}

# prog_runs FILE NAME...: "ns runs" of the programs NAME... (all kprobe
# programs without one) in a `bpftool prog show` listing
prog_runs() {
	local f=$1
	shift
	awk -v names=" $* " '
		{ name = ""; ns = 0; cnt = 0
		  for (i = 1; i < NF; i++) {
			if ($i == "name") name = $(i + 1)
			if ($i == "run_time_ns") ns = $(i + 1)
			if ($i == "run_cnt") cnt = $(i + 1) } }
		$2 == "kprobe" && (names == "  " || index(names, " " name " ")) { t += ns; n += cnt }
		END { printf "%.0f %.0f\n", t, n }' "$f"
}

# calc EXPR: EXPR by awk
calc() { awk "BEGIN {print $*}"; }

# report: the table of one boot, from its guest output in $out and files in $VM_SHARE
report() {
	local D=$VM_SHARE/blocks.data F="func = '$FUNC'" base rec fn fk blk blk3 bte btm bth bth3
	local calls getppid hits hpc mid attach off opt_off=() int3_off=() entry_kind opt_hits int3_hits
	local kb kbn km kmn kr krn bb bbn stats_note
	med() { bench_med "$1" <<<"$out"; }
	base=$(med untraced) rec=$(med record) fn=$(med func) fk=$(med func-kprobe)
	blk=$(med blocks) blk3=$(med blocks-int3)
	bte=$(med bt-entry) btm=$(med bt-mid) bth=$(med bt-heads) bth3=$(med bt-heads-int3)
	mid=$(awk '$1 == "mid" {print $2}' <<<"$out")
	[ -s "$D" ] || fail "$VM_KV: no --blocks recording"
	calls=$(q "$D" "SELECT SUM(calls) FROM block_contexts WHERE $F")
	getppid=$(q "$D" "SELECT SUM(calls) FROM block_contexts WHERE $F AND syscall = 110")
	[ "$getppid" = "$N" ] || fail "$VM_KV: $getppid getppid calls of $FUNC recorded, not $N"
	hits=$(q "$D" "SELECT SUM(count) FROM blocks WHERE $F AND probed")
	hpc=$(calc "$hits / $calls")
	attach=$(q "$D" "SELECT value FROM meta WHERE key = 'blocks.attach'")
	# the heads' kprobes as the kernel put them: [OPTIMIZED] (a jump), [FTRACE]
	# (the entry, on 6.1), or an int3 trap; kprobe.multi's fprobes are not listed
	while read -r off kind; do
		off=$((16#${off#*+0x}))
		case $kind in
		'[OPTIMIZED]') opt_off+=("$off") ;;
		'[FTRACE]') ;;
		*) int3_off+=("$off") ;;
		esac
	done < <(awk -v f="$FUNC+0x" '$2 == "k" && index($3, f) == 1 {print $3, $4}' "$VM_SHARE/kprobes.blocks")
	hits_at() {	# hits per call at the heads at offsets $@
		q "$D" "SELECT printf('%.2f', 1.0 * COALESCE(SUM(b.count), 0) / $calls) FROM blocks b JOIN block_funcs f USING (func)
			WHERE b.$F AND b.probed AND b.start - f.addr IN (${*:--1})"
	}
	opt_hits=$(hits_at "$(IFS=,; echo "${opt_off[*]}")")
	int3_hits=$(hits_at "$(IFS=,; echo "${int3_off[*]}")")
	entry_kind=$([ "$attach" = kprobe.multi ] && echo fprobe || echo ftrace)
	read -r kb kbn < <(prog_runs "$VM_SHARE/progs.blocks" kp_block)
	read -r km kmn < <(prog_runs "$VM_SHARE/progs.blocks" kp_block_multi)
	read -r kr krn < <(prog_runs "$VM_SHARE/progs.blocks" kp_block_ret kp_block_ret_multi)
	read -r bb bbn < <(prog_runs "$VM_SHARE/progs.bpftrace")
	stats_note="read by bpftool: record --bpf-stats saved none of the --blocks programs' figures"
	[ "$(q "$VM_SHARE/stats.data" "SELECT COUNT(*) FROM counters WHERE name LIKE 'bpf_runs.kp_block%'")" = 0 ] ||
		stats_note="as record --bpf-stats saved them too"
	echo "VM ($VM_KV, $VM_ACCEL: 1 ns = 1 instruction, no caches modelled): $FUNC under getppid," \
		"medians of $ROUNDS interleaved rounds of $N calls"
	printf '%-50s %9s %10s %9s %8s\n' config ns/call added/call hits/call ns/hit
	row() {	# label, ns/call, its baseline (or -), hits per call
		awk -v l="$1" -v v="$2" -v b="$3" -v h="$4" 'BEGIN {
			if (b == "-") printf "%-50s %9.1f %10s %9s %8s\n", l, v, "-", "-", "-"
			else printf "%-50s %9.1f %10.1f %9.2f %8.1f\n", l, v, v - b, h, (v - b) / h }'
	}
	row untraced "$base" - -
	row "kprotperf record (baseline of those below)" "$rec" - -
	row "--func ($(q "$VM_SHARE/func.data" "SELECT group_concat(DISTINCT method) FROM funcs"), per call)" "$fn" "$rec" 1
	row "--func --probe kprobe ($(q "$VM_SHARE/func-kprobe.data" "SELECT group_concat(DISTINCT method) FROM funcs"))" "$fk" "$rec" 1
	row "--blocks (entry+return: $attach)" "$blk" "$rec" "$hpc"
	row "--blocks, kprobes unoptimized" "$blk3" "$rec" "$hpc"
	row "bpftrace kprobe:$FUNC (entry, ftrace)" "$bte" "$base" "$(calc "$(med hits-bt-entry) / $N")"
	row "bpftrace kprobe:$FUNC+$(printf '0x%x' "$mid") (mid, $(
		[[ " ${opt_off[*]} " == *" $mid "* ]] && echo jump || echo int3))" "$btm" "$base" "$(calc "$(med hits-bt-mid) / $N")"
	row "bpftrace kprobes at the same heads" "$bth" "$base" "$(calc "$(med hits-bt-heads) / $N")"
	row "bpftrace at the heads, unoptimized" "$bth3" "$base" "$(calc "$(med hits-bt-heads-int3) / $N")"
	echo "block hits per call: $(printf %.2f "$hpc") ($hits in $calls calls, $getppid of them getppid's): 1 at the entry ($entry_kind)," \
		"$opt_hits at jump-optimized kprobes, $int3_hits at int3 ones; plus the return ($attach)"
	# the goal: a block hit costs no more than a peer's kprobe hit
	ratio() {	# label, the peer's ns/call, its hits
		awk -v l="$1" -v p="$2" -v h="$3" -v n="$N" -v k="$blk" -v r="$rec" -v kh="$hpc" -v b="$base" 'BEGIN {
			x = ((k - r) / kh) / ((p - b) / (h / n))
			printf "  per block hit / %-44s %5.2f (goal <= 1.00) %s\n", l ":", x, x <= 1 ? "MET" : "MISSED" }'
	}
	ratio "bpftrace entry kprobe hit" "$bte" "$(med hits-bt-entry)"
	ratio "bpftrace mid-function kprobe hit" "$btm" "$(med hits-bt-mid)"
	ratio "bpftrace kprobe hit at the same heads" "$bth" "$(med hits-bt-heads)"
	awk -v k="$blk" -v f="$fn" -v fk="$fk" 'BEGIN {
		printf "  workload slowdown, --blocks / --func: %.2fx (/ --func --probe kprobe: %.2fx)\n", k / f, k / fk }'
	# where a block hit's time goes: the kprobe machinery (a peer's hit at
	# the same heads less its program), kprotperf's program, and a share of
	# the return probe's program (its machinery left out)
	awk -v bt="$(calc "($bth - $base) / ($(med hits-bt-heads) / $N)")" -v bb="$bb" -v bbn="$bbn" \
		-v kb="$kb" -v kbn="$kbn" -v km="$km" -v kmn="$kmn" -v kr="$kr" -v krn="$krn" -v h="$hpc" -v k="$(calc "($blk - $rec) / $hpc")" \
		-v k3="$(calc "($blk3 - $blk) / $opt_hits")" -v b3="$(calc "($bth3 - $bth) / $opt_hits")" -v note="$stats_note" 'BEGIN {
		printf "where a block hit goes (BPF statistics on, %s):\n", note
		printf "  kprobe machinery %.0f: a peer hit at the same heads %.0f less its program (count()) %.0f a run\n", bt - bb / bbn, bt, bb / bbn
		p = (kb + km) / (kbn + kmn)
		if (kmn) printf "  kp_block %.0f a run, kp_block_multi (the entry) %.0f: %.0f a block hit\n", kb / kbn, km / kmn, p
		else printf "  kp_block %.0f a run (the entry included)\n", p
		printf "  kp_block_ret%s %.0f a call, %.0f a block hit; machinery + programs %.0f (measured %.0f)\n",
			kmn ? "_multi" : "", kr / krn, kr / krn / h, bt - bb / bbn + p + kr / krn / h, k
		printf "  an int3 trap instead of the jump: +%.0f a hit (kprotperf), +%.0f (bpftrace)\n", k3, b3 }'
}

run() {	# one boot of the current kernel: the guest, then its report
	local log=$OUT/vm_blocks-$VM_KV.log
	guest | vm_run >"$log" || fail "guest script on $VM_KV exited $?: $(tail -5 "$log")"
	out=$(cat "$log")
	report | tee "$OUT/vm_blocks-$VM_KV.txt"
}

for k in $KERNELS; do
	if [ "$VM_RUNS" = 0 ]; then
		vm_prepare "$k"
	else
		echo
		vm_use_kernel "$k"
	fi
	run
done

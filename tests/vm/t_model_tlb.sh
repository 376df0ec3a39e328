#!/bin/bash
# The machine model's TLBs (plugin/kp_model.c, scripts/vm-run.sh --model
# cache --ITLB --DTLB) on Debian's 6.1 kernel, one boot with two
# geometries side by side:
#   A  I-TLB 128 entries 8-way, D-TLB 64 entries 4-way (16 sets)
#   B  I-TLB 8 entries 2-way,   D-TLB 16 entries 2-way (8 sets)
# A static-PIE program of the test's own (tests/vm/model_tlb.c) touches 4
# pages 64 KiB apart, so in one D-TLB set of each geometry (a set no other
# page it touches in a window maps to), by a load each, in two model
# windows of its own (the markers of include/model_marker.h):
#   window 1  kp_pass, one pass: the TLBs are cold, 4 D-TLB misses in A and
#             B, 1 I-TLB miss (its page)
#   between   fork, the child exits, waitpid: the guest switches to the
#             child and back, each a MOV to CR3 whose value comes from
#             memory, so not derived: a new epoch (the old tag's entries
#             unreachable) and, bit 63 not set, every non-global entry
#             flushed (either alone fails kp_pass's counts below)
#   window 2  kp_pass again, one pass: 4 D-TLB misses in A too (flushed;
#             without the flush, 0) and 1 I-TLB miss (0 without); then
#             kp_again, two passes: in A the 4 pages fit their 4-way set, 0
#             misses; in B 4 pages cycle through 2 ways, LRU: all 8 miss;
#             its page is new to the I-TLBs: 1 miss in each
# so kp_pass has exactly 8 D-TLB and 2 I-TLB misses in both geometries,
# kp_again 0 and 8 D-TLB misses and 1 I-TLB miss.  Only its loads touch
# data in kp_pass and kp_again but their ret (the stack's page, whose set
# differs), and each sits alone in a page.  A first, empty window takes the
# model's start (QEMU translates everything again: kernel code is counted
# there), and both functions run once before the measured windows, which
# then take microseconds.  A timer interrupt inside one would still run
# kernel code that evicts entries.  The boot runs under icount, whose
# clock counts instructions: the plugin's work at a window's start and a
# loaded host (CI's tiers beside it) then stretch no window; and each
# window opens right after the timer's tick (the program waits for the
# coarse clock to move), so the next is a period (4 ms at HZ=250: 4 M
# instructions) away.  The program says whether one may have come inside
# anyway (the coarse clock moved, or a period passed) and the interrupts
# it took between two reads of /proc/interrupts around each, after the
# tick: the local timer's (LOC: an hrtimer's too, which does not move the
# coarse clock) and the others.  Counts that differ are excused once, by a
# second boot, when one may have come; otherwise they fail.  The header says what the
# guest's hint said (under -cpu max: no PTI, no PCID), the refusals of bad
# TLB geometries come before any boot.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
vm_need_model
command -v cc >/dev/null || skip "no C compiler"

# expect LINE -- ARGS...: vm-run refuses with exit 125 and that line, no boot
expect() { vm_expect 125 "$@"; }
expect "vm-run: --DTLB=48,4: want ENTRIES,ASSOC, each a power of two, ASSOC <= ENTRIES" \
	-- --model cache --DTLB=48,4 -- true
expect "vm-run: --ITLB=8,16: want ENTRIES,ASSOC, each a power of two, ASSOC <= ENTRIES" \
	-- --model cache --ITLB=8,16 -- true
expect "vm-run: --ITLB and --DTLB are TLB geometries: they need --model cache" \
	-- --model insns --DTLB=64,4 -- true
echo "model tlb: bad TLB geometries refused before boot"

mkdir -p "$TMP/ro"
# static PIE: away from busybox and model-window near 0x401000; no stack
# protector: no %fs access in the windows
cc -O2 -static-pie -fPIE -fno-stack-protector -I"$ROOT/include" "$ROOT/tests/vm/model_tlb.c" \
	-o "$TMP/ro/model-tlb" || fail "cc exited $?"
size() { nm -S "$TMP/ro/model-tlb" | awk -v n="$1" '$4 == n { print $2 }'; }
pass_size=$(size kp_pass) again_size=$(size kp_again)
[ -n "$pass_size" ] && [ -n "$again_size" ] || fail "no kp_pass or kp_again in nm's output"
pass_size=$((16#$pass_size)) again_size=$((16#$again_size))

# col TABLE NAME: the column of NAME in the table's '# columns' line
col() { awk -v n="$2" '$1 == "#" && $2 == "columns" { for (i = 3; i <= NF; i++) if ($i == n) print i - 2 }' "$1"; }
# sum TABLE ADDR SIZE COLUMN: the column summed over the function's PCs
sum() {
	local pcs a
	for ((a = $2; a < $2 + $3; a++)); do pcs+="$(printf '0x%x' "$a") "; done
	awk -v pcs="$pcs" -v c="$(col "$1" "$4")" '
		BEGIN { split(pcs, l, " "); for (i in l) in_fn[l[i]] = 1 }
		($1 in in_fn) { s += $c } END { print s + 0 }' "$1"
}
header() { sed -n "s/^# $2 //p" "$1"; }

# boot: the program once, both geometries
boot() {
	local rc=0 start
	start=$(date +%s)
	rm -rf "$TMP/out.d"
	KP_VM_ACCEL=icount "$VR" --model cache --DTLB=64,4 --DTLB=16,2 --ITLB=128,8 --ITLB=8,2 --ro "$TMP/ro" \
		--out "$TMP/out.d" --timeout 600 -- sh -c \
		'cat /sys/devices/system/cpu/vulnerabilities/meltdown
		grep -qw pcid /proc/cpuinfo && echo pcid 1 || echo pcid 0
		/mnt/ro/model-tlb' >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq 0 ] || fail "vm-run exited $rc: $(tail -3 "$TMP/err")"
	T=$TMP/out.d/model.txt
	[ -s "$T" ] || fail "no model.txt: $(tail -3 "$TMP/err")"
	echo "model tlb: boot and run: $(($(date +%s) - start)) s"
}

addr() { awk -v n="$1" '$1 == n { print $2 }' "$TMP/out"; }
# interrupts: "ticks T1 T2 irqs I1 I2 locs L1 L2", what the program said of its two windows
interrupts() { awk '$1 == "ticks" || $1 == "irqs" || $1 == "locs" { printf "%s%s", sep, $0; sep = " " }' "$TMP/out"; }
# the header: the windows, the TLBs, what the guest said against what the plugin heard
headers() {
	local pti=0 want
	[ "$(header "$T" windows)" = "opened 3 closed 3 restarts 0 stray_stops 0" ] ||
		fail "windows: $(header "$T" windows)"
	[ "$(header "$T" "tlb 0")" = "itlb=128:8 dtlb=64:4" ] && [ "$(header "$T" "tlb 1")" = "itlb=8:2 dtlb=16:2" ] ||
		fail "the header's TLBs: $(grep '^# tlb' "$T")"
	grep -q '^Mitigation: PTI' "$TMP/out" && pti=1
	want="pti $pti $(grep '^pcid ' "$TMP/out")"
	[ "$(header "$T" guest)" = "$want" ] || fail "header: guest $(header "$T" guest), want $want"
	guest=$want
}

# counts: every count as expected, else the first one that is not, on stdout
counts() {
	local pass again g got
	pass=$(addr kp_pass) again=$(addr kp_again)
	[ -n "$pass" ] && [ -n "$again" ] || fail "the program printed no addresses: $(cat "$TMP/out")"
	# NAME ADDR SIZE COLUMN.G WANT
	check() {
		got=$(sum "$T" "$2" "$3" "$4")
		[ "$got" = "$5" ] || { echo "$1 ($2): $got $4, want $5"; return 1; }
	}
	for g in 0 1; do
		check kp_pass "$pass" "$pass_size" "dtlb_miss.$g" 8 &&
			check kp_pass "$pass" "$pass_size" "itlb_miss.$g" 2 &&
			check kp_again "$again" "$again_size" "itlb_miss.$g" 1 &&
			check kp_pass "$pass" "$pass_size" "d1_read.$g" 10 || return 1
	done
	check kp_again "$again" "$again_size" "dtlb_miss.0" 0 &&
		check kp_again "$again" "$again_size" "dtlb_miss.1" 8
}

boot
headers
if ! why=$(counts); then
	[ "$(interrupts)" != "ticks 0 0 irqs 0 0 locs 0 0" ] || fail "$why (no interrupt in the windows: $(interrupts))"
	echo "model tlb: $why, with interrupts in the windows ($(interrupts)): once more"
	boot
	headers
	why=$(counts) || fail "$why, in a second boot (interrupts in the windows: $(interrupts))"
fi
echo "model tlb: kp_pass 8 D-TLB and 2 I-TLB misses in both geometries (4 and 1 after the CR3 writes" \
	"between its windows: flushed); kp_again 0 D-TLB misses in 4 ways, 8 in 2, 1 I-TLB miss; guest $guest"

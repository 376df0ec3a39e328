# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the VM parts of `make bench` (tests/bench/vm_*.sh) share, sourced
# after tests/vm/vm.sh: the guest's way of reading syscall-loop's figure and
# the host's medians of the figures the guest printed.
#
#   { bench_guest_lib; cat <<'GUEST'
#   echo "untraced $(ns_loop 1000)"
#   GUEST
#   } | vm_run >"$TMP/x.log"
#   bench_med untraced <"$TMP/x.log"

# bench_guest_lib: shell functions for a guest script (busybox sh), printed
# to go before it:
#   ns_call    syscall-loop's ns per call, from its output on stdin
#   ns_loop N  run syscall-loop N untraced: its ns per call.  Its output goes
#              to a file first: a pipe's reader would start up while the loop
#              runs, and be timed with it on a single vCPU (icount)
bench_guest_lib() {
	cat <<'EOF'
ns_call() { sed -n 's/.* \([0-9.]*\) ns\/call/\1/p'; }
ns_loop() { syscall-loop "$1" >/tmp/ns_loop.out && ns_call </tmp/ns_loop.out; }
EOF
}

# bench_med CONFIG: the median of CONFIG's figures, from the guest's lines
# "CONFIG VALUE" on stdin (of an even count, the lower middle one)
bench_med() {
	awk -v c="$1" '$1 == c {print $2}' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

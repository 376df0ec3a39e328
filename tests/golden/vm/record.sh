#!/bin/bash
# Makes the VM recordings of tests/golden/vm/data anew (two boots of Debian's
# stock kernel, as tests/vm/t_golden.sh reads them), then rewrites
# expected/ with this checkout's kprotperf: review the git diff.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/../../vm/vm.sh"
G=$ROOT/tests/golden/vm
vm_prepare
vm_dbg_vmlinux
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
boot() {	# $1: suffix of the files, then kernel parameters
	local side=$1
	shift
	vm_run "$@" <<'GUEST' || fail "guest script ($side) exited $?"
V=$(ls /mnt/ro/vmlinux-*)
kprotperf record -q -F 499 --func shuffle_freelist --func allocate_slab --func new_slab \
	--func-stacks --vmlinux $V -o /mnt/host/inl.data -- big-fork 6
kprotperf record -q -r 3 -F 499 -o /mnt/host/af.data -- alloc-free 4
GUEST
	cp "$VM_SHARE/inl.data" "$G/data/inl-$side.data"
	cp "$VM_SHARE/af.data" "$G/data/af-$side.data"
}
boot base init_on_alloc=0 init_on_free=0 mitigations=off
boot hard init_on_alloc=1 init_on_free=1
vm_dbg_recorded "$G/data/inl-base.data"
"$ROOT/tests/golden/golden.sh" --update --cases "$G/cases" -- --vmlinux "$VM_VMLINUX"

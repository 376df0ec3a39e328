#!/bin/bash
# Whole outputs of report --inline, annotate, folded --srcline and diff on
# recordings made in the VM (tests/golden/vm), with the recorded kernel's
# DWARF from the -dbg package the vm tier caches.  No boot: the recordings
# are kept; tests/golden/vm/record.sh makes them anew.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
G=$ROOT/tests/golden/vm
vm_need_host
vm_kernel
vm_dbg_vmlinux
rel=$(q "$G/data/inl-base.data" "SELECT value FROM meta WHERE key = 'kernel.release'")
[ "$rel" = "$VM_KV" ] ||
	skip "the golden recordings are of $rel but Debian now serves $VM_KV: run tests/golden/vm/record.sh and review the new expected outputs"
"$ROOT/tests/golden/golden.sh" --cases "$G/cases" -- --vmlinux "$VM_RO_SHARE/vmlinux-$VM_KV"

#!/bin/bash
# Whole outputs of report --inline, annotate, folded --srcline and diff on
# recordings made in the VM (tests/golden/vm), with the recorded kernel's
# DWARF from its -dbg package (vm_dbg_recorded).  No boot: the recordings
# are kept; tests/golden/vm/record.sh makes them anew.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
G=$ROOT/tests/golden/vm
vm_need_host
# the kernel the recordings were made on, not the one Debian serves now
first=
for d in "$G"/data/*.data; do
	vm_dbg_recorded "$d"
	[ "${first:=$VM_VMLINUX}" = "$VM_VMLINUX" ] ||
		fail "$d was made on another kernel (its vmlinux is not $first): make the recordings anew (tests/golden/vm/record.sh)"
done
"$ROOT/tests/golden/golden.sh" --cases "$G/cases" -- --vmlinux "$VM_VMLINUX"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The vm tier's fixture: fetches the Debian kernels the tier boots (6.1 with
# its -dbg vmlinux, and 6.12) into the cache, booting nothing, so that no
# test's time or time limit pays for a download.  tests/run.sh runs it when
# the vm tier starts, while the kernels its tests name build in the
# background (tests/vm/kernels.sh build).  Prints one line per kernel, then
# what is ready; exit 77 (skipped, with the reason) where the tier cannot
# run.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_need_host_test
start=$SECONDS
# the default kernel last: vm_dbg_vmlinux fetches the -dbg of the current one
for k in linux-image-6.12-amd64 linux-image-amd64; do
	vm_kernel "$k"
	echo "debian kernel $VM_KV"
done
vm_dbg_vmlinux
echo "debian kernels and the $VM_KV -dbg vmlinux fetched in $((SECONDS - start)) s"

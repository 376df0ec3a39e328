#!/bin/bash
# The unit tests' checks against the real Debian 6.1 vmlinux (its -dbg
# package, which this tier fetches and caches): found by build id, _stext at
# its link address, shuffle_freelist's one instance in allocate_slab with the
# ranges llvm-dwarfdump lists, its inline chain and call line as
# eu-addr2line gives them; shuffle_freelist's s and slab read and named, and
# allocate_slab's graph and its four loops' bounds (slab->objects,
# page_limit).  The unit tier runs the same binaries without it and reports
# these checks as skipped.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
export KP_TEST_VMLINUX=$VM_RO_SHARE/vmlinux-$VM_KV
bins=${OUTPUT:-build}/tests
[[ $bins == /* ]] || bins=$ROOT/$bins
for t in test_cfg test_debuginfo test_symbolize test_inlines test_dwarf_fetch test_loopbound; do
	out=$("$bins/$t" 2>&1) || fail "$t: $(tail -20 <<<"$out")"
	grep -q '^\[ *OK *\] test_real_vmlinux' <<<"$out" || fail "$t did not run its real-vmlinux test: $(tail -20 <<<"$out")"
	echo "$t: real vmlinux checks passed"
done

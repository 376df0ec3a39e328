#!/bin/bash
# --func on a function the compiler inlined into every caller: with the
# kernel's DWARF (Debian's -dbg vmlinux) kprotperf says plainly that it is
# inlined and where, instead of "not found"; without DWARF it says it cannot
# tell; a vmlinux of another build is refused.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
vm_run <<GUEST || fail "guest script exited $?"
set +e
V=/mnt/ro/vmlinux-$VM_KV
kprotperf record -q --func new_slab --vmlinux \$V -o /mnt/host/x.data -- true 2> /mnt/host/new_slab.err
echo \$? > /mnt/host/new_slab.rc
kprotperf record -q --func shuffle_freelist --vmlinux \$V -o /mnt/host/x.data -- true 2> /mnt/host/shuffle.err
kprotperf record -q --func new_slab -o /mnt/host/x.data -- true 2> /mnt/host/nodwarf.err
kprotperf record -q --func new_slab --vmlinux /bin/kprotperf -o /mnt/host/x.data -- true 2> /mnt/host/nodebug.err
true
GUEST
S=$VM_SHARE
[ "$(cat "$S/new_slab.rc")" = 1 ] || fail "--func new_slab did not fail"
[ ! -e "$S/x.data" ] || fail "a data file was written for an unprobeable function"
grep -q "new_slab is inlined into its callers in this kernel, in .*___slab_alloc (mm/slub.c:[0-9]*)" \
	"$S/new_slab.err" || fail "new_slab: $(cat "$S/new_slab.err")"
grep -q "shuffle_freelist is inlined into its callers in this kernel, in allocate_slab (mm/slub.c:1978)" \
	"$S/shuffle.err" || fail "shuffle_freelist: $(cat "$S/shuffle.err")"
grep -q "with the kernel's debug info (--vmlinux, or linux-image-RELEASE-dbg) kprotperf can tell" \
	"$S/nodwarf.err" || fail "without DWARF: $(cat "$S/nodwarf.err")"
grep -q "vmlinux /bin/kprotperf: no DWARF debug info in it, so kprotperf cannot tell whether new_slab is inlined" "$S/nodebug.err" ||
	fail "a vmlinux without DWARF: $(cat "$S/nodebug.err")"
cat "$S/new_slab.err" "$S/shuffle.err"

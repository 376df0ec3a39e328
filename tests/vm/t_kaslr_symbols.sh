#!/bin/bash
# Kernel stacks recorded under KASLR (on by default in Debian's kernel) are
# named here, on another kernel, from the symbols the file saved: every
# kernel frame of big-fork's samples is a symbol, and fork's own functions
# are among them.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
# the bzImage, whose decompressor picks the offset (a direct boot has none)
export KP_VM_KASLR=1
vm_prepare
# A high rate: TCG runs the guest ~20x slower, and the test wants many stacks.
vm_run <<'EOF' || fail "guest script exited $?"
kprotperf record -q -F 499 -o /mnt/host/k.data -- big-fork 30
EOF
D=$VM_SHARE/k.data
[ -s "$D" ] || fail "the guest wrote no data file"
grep -qw nokaslr <<<"$(q "$D" "SELECT value FROM meta WHERE key = 'kernel.cmdline'")" &&
	fail "the guest ran with nokaslr"
stext=$(q "$D" "SELECT value FROM meta WHERE key = 'kernel.stext'")
[ -n "$stext" ] || fail "no kernel.stext in meta"
# KASLR may, rarely, pick no offset at all: the check below still holds
[ "$stext" != 0xffffffff81000000 ] || echo "note: KASLR left _stext at its link address"
"$KP" folded -K "$D" >"$TMP/k.folded" || fail "folded exited $?"
grep -o '[^;]*_\[k\]' "$TMP/k.folded" | sed 's/_\[k\]$//' | sort -u >"$TMP/frames"
n=$(wc -l <"$TMP/frames")
[ "$n" -ge 10 ] || fail "only $n distinct kernel frames: $(head -5 "$TMP/k.folded")"
unnamed=$(grep -c '^0x' "$TMP/frames" || true)
[ "$unnamed" = 0 ] || fail "$unnamed of $n kernel frames have no symbol, e.g. $(grep -m3 '^0x' "$TMP/frames" | tr '\n' ' ')"
grep -qxE 'copy_process|dup_mmap|kernel_clone' "$TMP/frames" ||
	fail "no copy_process, dup_mmap or kernel_clone among $n kernel frames"
echo "_stext $stext: $n distinct kernel frames, all named"

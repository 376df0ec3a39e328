#!/bin/bash
# The machine model's x86 instruction classes (plugin/kp_x86.c, no QEMU
# needed) on instructions the host's assembler encodes: registers only,
# cannot leave its block in the kernel, changes address translation, each
# as QEMU 7.2 runs it; the kind of the model's events; what a block's MOV to
# CR3 writes, relative to the CR3 before, in Linux 6.1's PTI entry and exit
# (tests/unit/model_x86.c says what it covers).  The whole output compared.
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-x86.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the instructions are assembled for x86-64, not $(uname -m)"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_x86.c" "$ROOT/plugin/kp_x86.c" \
	-o "$TMP/model_x86" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_x86" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
cat >"$TMP/want" <<'EOF'
76 instructions, 0 wrong
ev lfence    lfence
ev mfence    mfence
ev sfence    sfence
ev cpuid     cpuid
ev wrmsr     wrmsr
ev rdmsr     rdmsr
ev verw      verw (%rax)
ev verw      verw -0x1e7(%rip)
ev -         verr (%rax)
ev iret      iretq
ev iret      iretl
ev sysret    sysretq
ev sysexit   sysexitq
ev swapgs    swapgs
ev mov_cr3   mov %rax, %cr3
ev mov_cr3   mov %rdi, %cr3
ev mov_cr    mov %rax, %cr4
ev mov_cr    mov %rax, %cr0
ev mov_cr    mov %rax, %cr8
ev -         mov %cr3, %rax
ev mov_dr    mov %rax, %db7
ev -         mov %db7, %rax
ev invlpg    invlpg (%rax)
ev invpcid   invpcid (%rax), %rcx
ev wbinvd    wbinvd
ev lxdt      lgdt (%rax)
ev lxdt      lidt (%rax)
ev lxdt      lldt %ax
ev lxdt      ltr %ax
ev -         sgdt (%rax)
ev serialize .byte 0x0f, 0x01, 0xe8 /* serialize */
ev -         .byte 0xf3, 0x0f, 0x01, 0xe8 /* setssbsy */
ev call_ind  call *%rax
ev call_ind  call *8(%rax)
ev call_ind  call *%r11
ev call_ind  lcall *(%rax)
ev -         call .+5
ev jmp_ind   jmp *%rax
ev jmp_ind   notrack jmp *%rax
ev jmp_ind   jmp *(%rax,%rbx,8)
ev -         jmp .+2
ev ret       ret
ev ret       ret $8
ev ret       lretq
ev ret       rep ret
ev syscall   syscall
ev -         clflush (%rax)
ev -         xrstor (%rax)
ev -         .byte 0x66, 0x0f, 0xae, 0xf0 /* tpause %eax */
ev -         pause
ev -         rdtsc
ev -         endbr64
cr3 derived mask=0x8000000000001800 val=0x8000000000000000 noflush <- entry, PTI with PCID: swapgs; mov %rsp,%gs:0x6014; nop; mov %cr3,%rsp; bts $0x3f,%rsp; and $0xffffffffffffe7ff,%rsp; mov %rsp,%cr3
cr3 derived mask=0x0000000000001800 val=0x0000000000000000 flush <- entry, PTI without PCID: the same, nopl 0x0(%rax,%rax,1) for the bts
cr3 derived mask=0x0000000000001800 val=0x0000000000000000 flush <- entry, PTI without PCID, the bts's five nops unoptimized
cr3 new mask=0x8000000000001800 val=0x8000000000001800 noflush <- exit, PCID, no flush needed: mov %rax,%rdi; bts $0x3f,%rdi; or $0x800,%rdi; or $0x1000,%rdi; mov %rdi,%cr3
cr3 new mask=0x0000000000001800 val=0x0000000000001800 flush <- exit, PCID, flush: or $0x800,%rdi; or $0x1000,%rdi; mov %rdi,%cr3
cr3 new mask=0x0000000000001000 val=0x0000000000001000 flush <- exit, no PCID: or $0x1000,%rdi; mov %rdi,%cr3
cr3 derived mask=0x8000000000001800 val=0x8000000000001800 noflush <- exit in one block, bts: mov %cr3,%rdi; mov %rdi,%rax; bts $0x3f,%rdi; or $0x800,%rdi; or $0x1000,%rdi; mov %rdi,%cr3
cr3 derived mask=0x0000000000001800 val=0x0000000000001800 flush <- exit in one block, no bts: mov %cr3,%rdi; or $0x800,%rdi; or $0x1000,%rdi; mov %rdi,%cr3
cr3 derived mask=0x0000000000000008 val=0x0000000000000000 flush <- via another register, btr, btc: mov %cr3,%rax; mov %rax,%rdi; btr $0x3,%rdi; btc $0x3f,%rdi; btc $0x4,%rdi; mov %rdi,%cr3
cr3 derived mask=0xfffffffffffff000 val=0x0000000000000000 flush <- 32-bit and: mov %cr3,%rdi; and $0xfff,%edi; mov %rdi,%cr3
cr3 derived mask=0xffffffffffffffff val=0x8000000000001000 noflush <- a constant: movabs $0x8000000000001000,%rax; mov %rax,%cr3
cr3 new mask=0x8000000000000000 val=0x8000000000000000 noflush <- from memory, bit 63 or-ed in: mov 0x10(%rax),%rdi; movabs $0x8000000000000000,%rdx; or %rdx,%rdi; mov %rdi,%cr3
cr3 new mask=0x8000000000000000 val=0x8000000000000000 noflush <- an instruction not understood between: mov %cr3,%rdi; push %rax; bts $0x3f,%rdi; mov %rdi,%cr3
cr3 derived mask=0x0000000000000000 val=0x0000000000000000 flush <- another register clobbered: mov %cr3,%rdi; xor %eax,%eax; cmp $0x1,%rdi; mov %rdi,%cr3
cr3 none <- no MOV to CR3: mov %cr3,%rdi; mov %rdi,%cr4
EOF
diff -u "$TMP/want" "$TMP/out" >"$TMP/diff" || fail "unexpected output:"$'\n'"$(cat "$TMP/diff")"
echo "model x86: $(sed -n 's/ instructions, 0 wrong$//p' "$TMP/out") instructions classed as QEMU 7.2 runs them," \
	"$(grep -c '^ev ' "$TMP/out") event kinds, $(grep -c '^cr3 ' "$TMP/out") CR3 evaluations as expected"

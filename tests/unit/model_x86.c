// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's x86 instruction classes (plugin/kp_x86.c) on
 * instructions the host's assembler encodes: for each, whether it touches
 * registers only (R), cannot leave its block early in the Linux kernel (K),
 * may leave it there only by a fault of its memory operand (P), may change
 * address translation (T), against what QEMU 7.2's translator
 * does with it (target/i386/tcg/translate.c).  A false R or K costs a
 * counter; a true one that is wrong would make counts inexact, so the
 * memory forms Linux may fault on, the prefixes that change an address
 * (%fs, an address size), lock and rep, and the encodings QEMU refuses
 * (f6 /1) must all be false.
 */
#include <stdio.h>
#include <string.h>

#include "kp_x86.h"

#define R 1
#define K 2
#define T 4
#define P 8

#define STR(x)	#x
#define XSTR(x) STR(x)

/* an instruction's bytes (between 1: and 2:), its classes and its text */
#define KPX_CODE(text) ".pushsection .text.kpx, \"ax\"\n1: " text "\n2:\n.popsection\n"
#define KPX_ENTRY(classes) \
	".pushsection kpx, \"aw\"\n.balign 8\n.quad 1b, 2b, " XSTR(classes) ", 3f\n"
#define KPX_TEXT(text)	 ".pushsection .rodata.kpx, \"a\"\n3: .asciz \"" text "\"\n.popsection\n"
#define I(classes, text) __asm__(KPX_CODE(text) KPX_ENTRY(classes) ".popsection\n" KPX_TEXT(text))

struct kpx {
	const unsigned char *start, *end;
	unsigned long classes;
	const char *text;
};

/* registers only */
I(R | K | P, "add %rbx, %rax");
I(R | K | P, "mov $1, %eax");
I(R | K | P, "lea 8(%rax,%rbx,4), %rcx");
I(R | K | P, "nopl 0(%rax)");
I(R | K | P, "endbr64");
I(R | K | P, "cmovne %rbx, %rax");
I(R | K | P, "imul %rbx, %rax");
I(R | K | P, "test %eax, %eax");
I(R | K | P, "shl $3, %rax");
I(R | K | P, "xchg %rax, %rbx");
I(R | K | P, "cmpxchg %rbx, %rcx");
I(R | K | P, "bt %rax, %rbx");
I(R | K | P, "negq %rax");
I(R | K | P, "jne .+2");
/* the stack, per-CPU data, rip-relative data */
I(K | P, "push %rbx");
I(K | P, "pop %r12");
I(K | P, "pushq $1");
I(K | P, "pushw %ax");
I(K | P, "mov 8(%rsp), %rax");
I(K | P, "mov %rax, 0x10(%rsp)");
I(K | P, "movw %ax, 0x200(%rsp)");
I(K | P, "addq $1, (%rsp)");
I(K | P, "movzbl 3(%rsp), %eax");
I(K | P, "cmove 8(%rsp), %rax");
I(K | P, "sete 7(%rsp)");
I(K | P, "btsq $3, 8(%rsp)");
I(K | P, "pushq 8(%rsp)");
I(K | P, "popq 16(%rsp)");
I(K | P, "mov %gs:0x1234, %rax");
I(K | P, "mov %gs:(%rax), %rdx");
I(K | P, "incl %gs:8(%rbx,%rcx,8)");
I(K | P, "cmpxchg %rbx, %gs:(%rax)");
I(K | P, "pushq %gs:0x10");
I(K | P, "mov 0x100(%rip), %rax");
I(K | P, "mov %eax, 0x10(%rip)");
I(K | P, "cmpb $0, 0x20(%rip)");
I(K | P, "xadd %eax, 0x10(%rip)");
I(K | P, "notq 0x10(%rip)");
I(K | P, "mulq 8(%rsp)");
/* memory that may fault, or an operation that may raise */
I(P, "mov (%rax), %rbx");
I(P, "mov 8(%rsp,%rax,8), %rbx");
I(P, "mov 8(%r12), %rax");
I(P, "mov 8(%rbp), %rax");
I(0, "mov %fs:0x28, %rax");
I(0, "mov %fs:8(%rsp), %rax");
I(0, "mov %fs:0x10(%rip), %rax");
I(P, "mov %rax, (%rdi)");
I(P, "addl $1, 8(%rbx)");
I(P, "cmpxchg %rbx, (%rax)");
I(P, "pushq (%rax)");
I(P, "movzbl (%rsi,%rcx), %eax");
I(0, "lock incl 8(%rsp)");
I(0, "lock cmpxchg %rbx, (%rax)");
I(0, "bt %rax, (%rbx)");
I(0, "bt %rax, 8(%rsp)");
I(0, "btsq %rax, %gs:8");
I(0, "divq 8(%rsp)");
I(0, "divq %rcx");
I(0, ".byte 0xf6, 0xc8, 0x01");
I(0, "rep movsb");
I(0, "mov 8(%esp), %eax");
I(0, "mov 8(%rsp), %ds");
I(0, "call .+5");
I(0, "ret");
I(0, "leave");
I(0, "pushfq");
I(0, "popfq");
I(0, "syscall");
I(0, "cpuid");
I(0, "int3");
I(0, "hlt");
I(0, "wrmsr");
I(0, "movaps 16(%rsp), %xmm0");
I(T, "mov %rax, %cr3");
I(T, "invlpg (%rax)");
I(T, "invpcid (%rax), %rcx");

/* the linker's bounds of the section kpx */
extern const struct kpx __start_kpx[], __stop_kpx[];

static unsigned long classes(const unsigned char *b, size_t len)
{
	return (kp_x86_regs_only(b, len) ? R : 0) | (kp_x86_kernel_stays(b, len) ? K : 0) |
	       (kp_x86_kernel_plain(b, len) ? P : 0) | (kp_x86_flushes_tlb(b, len) ? T : 0);
}

int main(void)
{
	const struct kpx *e;
	int bad = 0, n = 0;

	for (e = __start_kpx; e < __stop_kpx; e++, n++) {
		unsigned long got = classes(e->start, e->end - e->start);

		if (got != e->classes) {
			printf("%-32s got%s%s%s%s, want%s%s%s%s\n", e->text, got & R ? " R" : "",
			       got & K ? " K" : "", got & P ? " P" : "", got & T ? " T" : "",
			       e->classes & R ? " R" : "", e->classes & K ? " K" : "",
			       e->classes & P ? " P" : "", e->classes & T ? " T" : "");
			bad++;
		}
	}
	printf("%d instructions, %d wrong\n", n, bad);
	return bad || !n;
}

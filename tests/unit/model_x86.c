// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's x86 instruction classes (plugin/kp_x86.c) on
 * instructions the host's assembler encodes: for each, whether it touches
 * registers only (R), may change address translation (T), against what
 * QEMU 7.2's translator does with it (target/i386/tcg/translate.c).  A
 * false R costs a counter; a true one that is wrong would make counts
 * inexact, so memory forms, lock and rep, and the encodings QEMU refuses
 * (f6 /1) must all be false.
 */
#include <stdio.h>
#include <string.h>

#include "kp_x86.h"

#define R 1
#define T 4

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
I(R, "add %rbx, %rax");
I(R, "mov $1, %eax");
I(R, "lea 8(%rax,%rbx,4), %rcx");
I(R, "nopl 0(%rax)");
I(R, "endbr64");
I(R, "cmovne %rbx, %rax");
I(R, "imul %rbx, %rax");
I(R, "test %eax, %eax");
I(R, "shl $3, %rax");
I(R, "xchg %rax, %rbx");
I(R, "cmpxchg %rbx, %rcx");
I(R, "bt %rax, %rbx");
I(R, "negq %rax");
I(R, "jne .+2");
/* memory */
I(0, "push %rbx");
I(0, "pop %r12");
I(0, "pushq $1");
I(0, "pushw %ax");
I(0, "mov 8(%rsp), %rax");
I(0, "mov %rax, 0x10(%rsp)");
I(0, "movw %ax, 0x200(%rsp)");
I(0, "addq $1, (%rsp)");
I(0, "movzbl 3(%rsp), %eax");
I(0, "cmove 8(%rsp), %rax");
I(0, "sete 7(%rsp)");
I(0, "btsq $3, 8(%rsp)");
I(0, "pushq 8(%rsp)");
I(0, "popq 16(%rsp)");
I(0, "mov %gs:0x1234, %rax");
I(0, "mov %gs:(%rax), %rdx");
I(0, "incl %gs:8(%rbx,%rcx,8)");
I(0, "cmpxchg %rbx, %gs:(%rax)");
I(0, "pushq %gs:0x10");
I(0, "mov 0x100(%rip), %rax");
I(0, "mov %eax, 0x10(%rip)");
I(0, "cmpb $0, 0x20(%rip)");
I(0, "xadd %eax, 0x10(%rip)");
I(0, "notq 0x10(%rip)");
I(0, "mulq 8(%rsp)");
I(0, "mov (%rax), %rbx");
I(0, "mov 8(%rsp,%rax,8), %rbx");
I(0, "mov 8(%r12), %rax");
I(0, "mov 8(%rbp), %rax");
I(0, "mov %fs:0x28, %rax");
I(0, "mov %fs:8(%rsp), %rax");
I(0, "mov %fs:0x10(%rip), %rax");
I(0, "lock incl 8(%rsp)");
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
	return (kp_x86_regs_only(b, len) ? R : 0) | (kp_x86_flushes_tlb(b, len) ? T : 0);
}

int main(void)
{
	const struct kpx *e;
	int bad = 0, n = 0;

	for (e = __start_kpx; e < __stop_kpx; e++, n++) {
		unsigned long got = classes(e->start, e->end - e->start);

		if (got != e->classes) {
			printf("%-32s got%s%s, want%s%s\n", e->text, got & R ? " R" : "",
			       got & T ? " T" : "", e->classes & R ? " R" : "",
			       e->classes & T ? " T" : "");
			bad++;
		}
	}
	printf("%d instructions, %d wrong\n", n, bad);
	return bad || !n;
}

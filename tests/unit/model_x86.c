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
 *
 * Then the kind of each instruction of a second list (kp_x86_event, the
 * model's EV column), and the tiny symbolic evaluation of blocks that end
 * in a MOV to CR3 (kp_x86_sym_step): Linux 6.1's page-table isolation
 * switches, byte for byte as Debian's 6.1.0-56 kernel runs them (its
 * alternatives patched in), and a few others.  Those two parts print one
 * line each; tests/unit/t_model_x86.sh compares the whole output.
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

/* an instruction whose kind is printed (section kpe) */
#define KPE_ENTRY ".pushsection kpe, \"aw\"\n.balign 8\n.quad 1b, 2b, 0, 3f\n"
#define E(text)	  __asm__(KPX_CODE(text) KPE_ENTRY ".popsection\n" KPX_TEXT(text))

E("lfence");
E("mfence");
E("sfence");
E("cpuid");
E("wrmsr");
E("rdmsr");
E("verw (%rax)");
E("verw -0x1e7(%rip)");
E("verr (%rax)");
E("iretq");
E("iretl");
E("sysretq");
E("sysexitq");
E("swapgs");
E("mov %rax, %cr3");
E("mov %rdi, %cr3");
E("mov %rax, %cr4");
E("mov %rax, %cr0");
E("mov %rax, %cr8");
E("mov %cr3, %rax");
E("mov %rax, %db7");
E("mov %db7, %rax");
E("invlpg (%rax)");
E("invpcid (%rax), %rcx");
E("wbinvd");
E("lgdt (%rax)");
E("lidt (%rax)");
E("lldt %ax");
E("ltr %ax");
E("sgdt (%rax)");
E(".byte 0x0f, 0x01, 0xe8 /* serialize */");
E(".byte 0xf3, 0x0f, 0x01, 0xe8 /* setssbsy */");
E("call *%rax");
E("call *8(%rax)");
E("call *%r11");
E("lcall *(%rax)");
E("call .+5");
E("jmp *%rax");
E("notrack jmp *%rax");
E("jmp *(%rax,%rbx,8)");
E("jmp .+2");
E("ret");
E("ret $8");
E("lretq");
E("rep ret");
E("syscall");
E("clflush (%rax)");
E("xrstor (%rax)");
E(".byte 0x66, 0x0f, 0xae, 0xf0 /* tpause %eax */");
E("pause");
E("rdtsc");
E("endbr64");

extern const struct kpx __start_kpe[], __stop_kpe[];

/* a block: its instructions' bytes, each up to 15 */
struct blk {
	const char *name;
	unsigned int n;
	unsigned char insn[8][16]; /* [0]: length */
};

/* Linux 6.1's entry_SYSCALL_64 and syscall_return_via_sysret, as patched at boot */
static const struct blk blocks[] = {
	{"entry, PTI with PCID: swapgs; mov %rsp,%gs:0x6014; nop; mov %cr3,%rsp; "
	 "bts $0x3f,%rsp; and $0xffffffffffffe7ff,%rsp; mov %rsp,%cr3",
	 7,
	 {{3, 0x0f, 0x01, 0xf8},
	  {9, 0x65, 0x48, 0x89, 0x24, 0x25, 0x14, 0x60, 0x00, 0x00},
	  {2, 0x66, 0x90},
	  {3, 0x0f, 0x20, 0xdc},
	  {5, 0x48, 0x0f, 0xba, 0xec, 0x3f},
	  {7, 0x48, 0x81, 0xe4, 0xff, 0xe7, 0xff, 0xff},
	  {3, 0x0f, 0x22, 0xdc}}},
	{"entry, PTI without PCID: the same, nopl 0x0(%rax,%rax,1) for the bts",
	 7,
	 {{3, 0x0f, 0x01, 0xf8},
	  {9, 0x65, 0x48, 0x89, 0x24, 0x25, 0x14, 0x60, 0x00, 0x00},
	  {2, 0x66, 0x90},
	  {3, 0x0f, 0x20, 0xdc},
	  {5, 0x0f, 0x1f, 0x44, 0x00, 0x00},
	  {7, 0x48, 0x81, 0xe4, 0xff, 0xe7, 0xff, 0xff},
	  {3, 0x0f, 0x22, 0xdc}}},
	{"entry, PTI without PCID, the bts's five nops unoptimized",
	 8,
	 {{3, 0x0f, 0x20, 0xdc},
	  {1, 0x90},
	  {1, 0x90},
	  {1, 0x90},
	  {1, 0x90},
	  {1, 0x90},
	  {7, 0x48, 0x81, 0xe4, 0xff, 0xe7, 0xff, 0xff},
	  {3, 0x0f, 0x22, 0xdc}}},
	{"exit, PCID, no flush needed: mov %rax,%rdi; bts $0x3f,%rdi; or $0x800,%rdi; "
	 "or $0x1000,%rdi; mov %rdi,%cr3",
	 5,
	 {{3, 0x48, 0x89, 0xc7},
	  {5, 0x48, 0x0f, 0xba, 0xef, 0x3f},
	  {7, 0x48, 0x81, 0xcf, 0x00, 0x08, 0x00, 0x00},
	  {7, 0x48, 0x81, 0xcf, 0x00, 0x10, 0x00, 0x00},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"exit, PCID, flush: or $0x800,%rdi; or $0x1000,%rdi; mov %rdi,%cr3",
	 3,
	 {{7, 0x48, 0x81, 0xcf, 0x00, 0x08, 0x00, 0x00},
	  {7, 0x48, 0x81, 0xcf, 0x00, 0x10, 0x00, 0x00},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"exit, no PCID: or $0x1000,%rdi; mov %rdi,%cr3",
	 2,
	 {{7, 0x48, 0x81, 0xcf, 0x00, 0x10, 0x00, 0x00}, {3, 0x0f, 0x22, 0xdf}}},
	{"exit in one block, bts: mov %cr3,%rdi; mov %rdi,%rax; bts $0x3f,%rdi; "
	 "or $0x800,%rdi; or $0x1000,%rdi; mov %rdi,%cr3",
	 6,
	 {{3, 0x0f, 0x20, 0xdf},
	  {3, 0x48, 0x89, 0xf8},
	  {5, 0x48, 0x0f, 0xba, 0xef, 0x3f},
	  {7, 0x48, 0x81, 0xcf, 0x00, 0x08, 0x00, 0x00},
	  {7, 0x48, 0x81, 0xcf, 0x00, 0x10, 0x00, 0x00},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"exit in one block, no bts: mov %cr3,%rdi; or $0x800,%rdi; or $0x1000,%rdi; "
	 "mov %rdi,%cr3",
	 4,
	 {{3, 0x0f, 0x20, 0xdf},
	  {7, 0x48, 0x81, 0xcf, 0x00, 0x08, 0x00, 0x00},
	  {7, 0x48, 0x81, 0xcf, 0x00, 0x10, 0x00, 0x00},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"via another register, btr, btc: mov %cr3,%rax; mov %rax,%rdi; btr $0x3,%rdi; "
	 "btc $0x3f,%rdi; btc $0x4,%rdi; mov %rdi,%cr3",
	 6,
	 {{3, 0x0f, 0x20, 0xd8},
	  {3, 0x48, 0x89, 0xc7},
	  {5, 0x48, 0x0f, 0xba, 0xf7, 0x03},
	  {5, 0x48, 0x0f, 0xba, 0xff, 0x3f},
	  {5, 0x48, 0x0f, 0xba, 0xff, 0x04},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"32-bit and: mov %cr3,%rdi; and $0xfff,%edi; mov %rdi,%cr3",
	 3,
	 {{3, 0x0f, 0x20, 0xdf}, {6, 0x81, 0xe7, 0xff, 0x0f, 0x00, 0x00}, {3, 0x0f, 0x22, 0xdf}}},
	{"a constant: movabs $0x8000000000001000,%rax; mov %rax,%cr3",
	 2,
	 {{10, 0x48, 0xb8, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80}, {3, 0x0f, 0x22, 0xd8}}},
	{"from memory, bit 63 or-ed in: mov 0x10(%rax),%rdi; movabs $0x8000000000000000,%rdx; "
	 "or %rdx,%rdi; mov %rdi,%cr3",
	 4,
	 {{4, 0x48, 0x8b, 0x78, 0x10},
	  {10, 0x48, 0xba, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80},
	  {3, 0x48, 0x09, 0xd7},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"an instruction not understood between: mov %cr3,%rdi; push %rax; bts $0x3f,%rdi; "
	 "mov %rdi,%cr3",
	 4,
	 {{3, 0x0f, 0x20, 0xdf},
	  {1, 0x50},
	  {5, 0x48, 0x0f, 0xba, 0xef, 0x3f},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"another register clobbered: mov %cr3,%rdi; xor %eax,%eax; cmp $0x1,%rdi; "
	 "mov %rdi,%cr3",
	 4,
	 {{3, 0x0f, 0x20, 0xdf},
	  {2, 0x31, 0xc0},
	  {4, 0x48, 0x83, 0xff, 0x01},
	  {3, 0x0f, 0x22, 0xdf}}},
	{"no MOV to CR3: mov %cr3,%rdi; mov %rdi,%cr4",
	 2,
	 {{3, 0x0f, 0x20, 0xdf}, {3, 0x0f, 0x22, 0xe7}}},
};

/* one line per block: what its MOV to CR3 writes, relative to the CR3 before */
static void cr3_blocks(void)
{
	size_t i;

	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		const struct blk *k = &blocks[i];
		struct kp_x86_sym s;
		struct kp_x86_cr3 c;
		unsigned int j, seen = 0;

		kp_x86_sym_init(&s);
		for (j = 0; j < k->n; j++) {
			if (!kp_x86_sym_step(&s, k->insn[j] + 1, k->insn[j][0], &c))
				continue;
			seen++;
			printf("cr3 %s mask=0x%016llx val=0x%016llx %s <- %s\n",
			       c.derived ? "derived" : "new", (unsigned long long)c.mask,
			       (unsigned long long)c.val,
			       kp_x86_cr3_flushes(&c) ? "flush" : "noflush", k->name);
		}
		if (!seen)
			printf("cr3 none <- %s\n", k->name);
	}
}

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
	for (e = __start_kpe; e < __stop_kpe; e++)
		printf("ev %-9s %s\n", kp_ev_names[kp_x86_event(e->start, e->end - e->start)],
		       e->text);
	cr3_blocks();
	return bad || !n;
}

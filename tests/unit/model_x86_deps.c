// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timing model's decoder (plugin/kp_x86_deps.c) on instructions the
 * host's assembler encodes, each against the whole struct kp_x86_deps
 * written out by hand: registers read (r), written (w), read by the memory
 * access's address (a), memory loaded and stored (m: l, s), latency,
 * uops, kind, zero idiom; "unknown" for those it must not recognise.  What
 * every line covers is what the timing model relies on: partial registers
 * (ah is rax), implicit operands (mul, div, cpuid, string instructions,
 * the stack), VEX's third operand, the dependence-breaking idioms.
 * Prints the instructions whose struct differs, and a count.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kp_x86_deps.h"

/* an instruction's bytes (between 1: and 2:), its expected struct and its text */
#define KPX_CODE(text) ".pushsection .text.kpd, \"ax\"\n1: " text "\n2:\n.popsection\n"
#define KPX_ENTRY      ".pushsection kpd, \"aw\"\n.balign 8\n.quad 1b, 2b, 3f, 4f\n"
#define KPX_TEXT(text, want)                                                         \
	".pushsection .rodata.kpd, \"a\"\n3: .asciz \"" text "\"\n4: .asciz \"" want \
	"\"\n.popsection\n"
#define I(text, want) __asm__(KPX_CODE(text) KPX_ENTRY ".popsection\n" KPX_TEXT(text, want))

struct kpd {
	const unsigned char *start, *end;
	const char *text, *want;
};

/* general purpose */
I("add %rbx, %rax", "r=rax,rbx w=rax,flags a= m=- lat=1 u=1 k=-");
I("add %bh, %al", "r=rax,rbx w=rax,flags a= m=- lat=1 u=1 k=-");
I("add %sil, %al", "r=rax,rsi w=rax,flags a= m=- lat=1 u=1 k=-");
I("adc $1, %r9d", "r=r9,flags w=r9,flags a= m=- lat=1 u=1 k=-");
I("cmp %rax, 8(%rbx,%rcx,4)", "r=rax,rcx,rbx w=flags a=rcx,rbx m=l lat=1 u=1 k=-");
I("addq $1, (%rsp)", "r=rsp w=flags a=rsp m=ls lat=1 u=2 k=-");
I("lock addl $1, (%rdi)", "r=rdi w=flags a=rdi m=ls lat=18 u=9 k=-");
I("test %eax, %eax", "r=rax w=flags a= m=- lat=1 u=1 k=-");
I("test $1, %al", "r=rax w=flags a= m=- lat=1 u=1 k=-");
I("xor %eax, %eax", "r= w=rax,flags a= m=- lat=1 u=1 k=- zi");
I("sub %r12, %r12", "r= w=r12,flags a= m=- lat=1 u=1 k=- zi");
I("sbb %edx, %edx", "r=flags w=rdx,flags a= m=- lat=1 u=1 k=- zi");
I("xor %ecx, %eax", "r=rax,rcx w=rax,flags a= m=- lat=1 u=1 k=-");
I("xor $1, %esi", "r=rsi w=rsi,flags a= m=- lat=1 u=1 k=-");
I("sub $1, %rbp", "r=rbp w=rbp,flags a= m=- lat=1 u=1 k=-");
I("xor $1, %al", "r=rax w=rax,flags a= m=- lat=1 u=1 k=-");
I("mov (%rsi), %rax", "r=rsi w=rax a=rsi m=l lat=1 u=1 k=-");
I("mov %r8, 0x10(%rip)", "r=r8 w= a= m=s lat=1 u=1 k=-");
I("mov %ah, (%rdi,%rcx,2)", "r=rax,rcx,rdi w= a=rcx,rdi m=s lat=1 u=1 k=-");
I("movabs $0x1122334455667788, %r15", "r= w=r15 a= m=- lat=1 u=1 k=-");
I("movzbl %ch, %eax", "r=rcx w=rax a= m=- lat=1 u=1 k=-");
I("movsbq (%rax), %rdx", "r=rax w=rdx a=rax m=l lat=1 u=1 k=-");
I("movslq %edi, %rdi", "r=rdi w=rdi a= m=- lat=1 u=1 k=-");
I("lea 8(%rax,%rbx,4), %rcx", "r=rax,rbx w=rcx a= m=- lat=3 u=1 k=-");
I("lea (%rax,%rbx,4), %rcx", "r=rax,rbx w=rcx a= m=- lat=1 u=1 k=-");
I("lea 0x100(%rip), %rsi", "r= w=rsi a= m=- lat=1 u=1 k=-");
I("push %rbp", "r=rsp,rbp w=rsp a=rsp m=s lat=1 u=1 k=-");
I("pop %r12", "r=rsp w=rsp,r12 a=rsp m=l lat=1 u=1 k=-");
I("pushq 8(%rax)", "r=rax,rsp w=rsp a=rax,rsp m=ls lat=1 u=2 k=-");
I("leave", "r=rbp w=rsp,rbp a=rbp m=l lat=1 u=2 k=-");
I("inc %r10", "r=r10 w=r10,flags a= m=- lat=1 u=1 k=-");
I("neg %ecx", "r=rcx w=rcx,flags a= m=- lat=1 u=1 k=-");
I("not %eax", "r=rax w=rax a= m=- lat=1 u=1 k=-");
I("shl $3, %rax", "r=rax w=rax,flags a= m=- lat=1 u=1 k=-");
I("sar %cl, %edx", "r=rcx,rdx w=rdx,flags a= m=- lat=2 u=3 k=-");
I("rcl $1, %ebx", "r=rbx,flags w=rbx,flags a= m=- lat=6 u=8 k=-");
I("shld $4, %rbx, %rax", "r=rax,rbx w=rax,flags a= m=- lat=3 u=1 k=-");
I("imul %rbx, %rax", "r=rax,rbx w=rax,flags a= m=- lat=3 u=1 k=-");
I("imul $10, %esi, %edi", "r=rsi w=rdi,flags a= m=- lat=3 u=1 k=-");
I("mul %rcx", "r=rax,rcx w=rax,rdx,flags a= m=- lat=3 u=2 k=-");
I("mulb %bl", "r=rax,rbx w=rax,flags a= m=- lat=3 u=1 k=-");
I("div %ecx", "r=rax,rcx,rdx w=rax,rdx,flags a= m=- lat=26 u=10 k=-");
I("idivq 8(%rsp)", "r=rax,rdx,rsp w=rax,rdx,flags a=rsp m=l lat=40 u=10 k=-");
I("xchg %rax, %rbx", "r=rax,rbx w=rax,rbx a= m=- lat=2 u=3 k=-");
I("xchg %ecx, (%rdx)", "r=rcx,rdx w=rcx a=rdx m=ls lat=18 u=11 k=-");
I("cmovne %rbx, %rax", "r=rax,rbx,flags w=rax a= m=- lat=1 u=1 k=-");
I("sete %dl", "r=flags w=rdx a= m=- lat=1 u=1 k=-");
I("bt %rax, %rbx", "r=rax,rbx w=flags a= m=- lat=1 u=1 k=-");
I("btsq $3, 8(%rsp)", "r=rsp w=flags a=rsp m=ls lat=1 u=2 k=-");
I("cltq", "r=rax w=rax a= m=- lat=1 u=1 k=-");
I("cqto", "r=rax w=rdx a= m=- lat=1 u=1 k=-");
I("bsf %rdi, %rax", "r=rdi w=rax,flags a= m=- lat=3 u=1 k=-");
I("tzcnt %esi, %eax", "r=rsi w=rax,flags a= m=- lat=3 u=1 k=-");
I("popcnt %rdi, %rax", "r=rdi w=rax,flags a= m=- lat=3 u=1 k=-");
I("bswap %r9", "r=r9 w=r9 a= m=- lat=1 u=1 k=-");
I("lock cmpxchg %rcx, (%rdi)", "r=rax,rcx,rdi w=rax,flags a=rdi m=ls lat=18 u=13 k=-");
I("xadd %eax, %edx", "r=rax,rdx w=rax,rdx,flags a= m=- lat=2 u=3 k=-");
I("cmpxchg16b (%rsi)", "r=rax,rcx,rdx,rbx,rsi w=rax,rdx,flags a=rsi m=ls lat=10 u=11 k=-");
I("nopw 0x0(%rax,%rax,1)", "r= w= a= m=- lat=1 u=1 k=-");
I("nop", "r= w= a= m=- lat=1 u=1 k=-");
I("xchg %r8, %rax", "r=rax,r8 w=rax,r8 a= m=- lat=2 u=3 k=-");
I("endbr64", "r= w= a= m=- lat=1 u=1 k=-");
I("prefetcht0 0x40(%rsi)", "r=rsi w= a= m=- lat=1 u=1 k=-");
I("rdtsc", "r= w=rax,rdx a= m=- lat=25 u=15 k=-");
I("xlat", "r=rax,rbx w=rax a=rax,rbx m=l lat=1 u=3 k=-");
I("vprotd $1, %xmm1, %xmm2", "unknown");
/* branches and the like */
I("jne .+2", "r=flags w= a= m=- lat=1 u=1 k=jcc");
I("jmp .+5", "r= w= a= m=- lat=1 u=1 k=jmp");
I("call .+5", "r=rsp w=rsp a=rsp m=s lat=1 u=2 k=call");
I("call *%rax", "r=rax,rsp w=rsp a=rsp m=s lat=1 u=2 k=call_ind");
I("call *8(%rax)", "r=rax,rsp w=rsp a=rax,rsp m=ls lat=1 u=2 k=call_ind");
I("jmp *(%rax,%rbx,8)", "r=rax,rbx w= a=rax,rbx m=l lat=1 u=1 k=jmp_ind");
I("notrack jmp *%rdx", "r=rdx w= a= m=- lat=1 u=1 k=jmp_ind");
I("ret", "r=rsp w=rsp a=rsp m=l lat=1 u=1 k=ret");
I("loop .+2", "r=rcx w=rcx a= m=- lat=1 u=1 k=jcc");
I("jrcxz .+2", "r=rcx w= a= m=- lat=1 u=1 k=jcc");
/* strings */
I("rep movsb", "r=rcx,rsi,rdi w=rcx,rsi,rdi a=rsi,rdi m=ls lat=1 u=4 k=rep_movs");
I("rep stosq", "r=rax,rcx,rdi w=rcx,rdi a=rdi m=s lat=1 u=3 k=rep_stos");
I("repne scasb", "r=rax,rcx,rdi w=rcx,rdi,flags a=rdi m=l lat=1 u=3 k=rep_str");
I("movsq", "r=rsi,rdi w=rsi,rdi a=rsi,rdi m=ls lat=1 u=4 k=-");
I("lodsb", "r=rsi w=rax,rsi a=rsi m=l lat=1 u=2 k=-");
/* serializing, system */
I("cpuid", "r=rax,rcx w=rax,rcx,rdx,rbx a= m=- lat=100 u=100 k=serial");
I("lfence", "r= w= a= m=- lat=1 u=1 k=serial");
I("wrmsr", "r=rax,rcx,rdx w= a= m=- lat=1 u=1 k=serial");
I("mov %rax, %cr3", "r=rax w= a= m=- lat=1 u=1 k=serial");
I("mov %cr3, %rax", "r= w=rax a= m=- lat=1 u=1 k=-");
I("swapgs", "r= w= a= m=- lat=1 u=1 k=serial");
I("iretq", "r=rsp w=rsp,flags a=rsp m=l lat=1 u=1 k=serial");
I("ud2", "r= w= a= m=- lat=1 u=1 k=serial");
I("syscall", "r=flags w=rcx,r11 a= m=- lat=1 u=1 k=syscall");
I("sysretq", "r=rcx,r11 w=flags a= m=- lat=1 u=1 k=syscall");
I("xgetbv", "r=rcx w=rax,rdx a= m=- lat=1 u=1 k=-");
I("stac", "r= w= a= m=- lat=1 u=1 k=-");
I("rdgsbase %rax", "r= w=rax a= m=- lat=1 u=1 k=-");
I("fldt 8(%rsp)", "r=rsp,state w=state a=rsp m=l lat=3 u=1 k=-");
I("fnstsw %ax", "r=state w=rax,state a= m=- lat=3 u=1 k=-");
/* SSE, AVX, BMI */
I("movdqu (%rsi), %xmm1", "r=rsi w=xmm1 a=rsi m=l lat=1 u=1 k=-");
I("movdqa %xmm0, 0x10(%rdi)", "r=rdi,xmm0 w= a=rdi m=s lat=1 u=1 k=-");
I("movups %xmm9, %xmm2", "r=xmm9 w=xmm2 a= m=- lat=1 u=1 k=-");
I("pcmpeqb %xmm1, %xmm0", "r=xmm0,xmm1 w=xmm0 a= m=- lat=1 u=1 k=-");
I("pcmpeqd %xmm3, %xmm3", "r= w=xmm3 a= m=- lat=1 u=1 k=- zi");
I("pxor %xmm0, %xmm0", "r= w=xmm0 a= m=- lat=1 u=1 k=- zi");
I("pxor %xmm1, %xmm0", "r=xmm0,xmm1 w=xmm0 a= m=- lat=1 u=1 k=-");
I("pmovmskb %xmm0, %eax", "r=xmm0 w=rax a= m=- lat=2 u=1 k=-");
I("pminub 0x10(%rdi), %xmm2", "r=rdi,xmm2 w=xmm2 a=rdi m=l lat=1 u=1 k=-");
I("por %xmm1, %xmm15", "r=xmm1,xmm15 w=xmm15 a= m=- lat=1 u=1 k=-");
I("pslldq $4, %xmm2", "r=xmm2 w=xmm2 a= m=- lat=1 u=1 k=-");
I("movd %xmm0, %eax", "r=xmm0 w=rax a= m=- lat=2 u=1 k=-");
I("movq %rdi, %xmm5", "r=rdi w=xmm5 a= m=- lat=2 u=1 k=-");
I("movq %xmm1, %xmm2", "r=xmm1 w=xmm2 a= m=- lat=1 u=1 k=-");
I("movss %xmm1, %xmm2", "r=xmm1,xmm2 w=xmm2 a= m=- lat=1 u=1 k=-");
I("movss (%rax), %xmm2", "r=rax w=xmm2 a=rax m=l lat=1 u=1 k=-");
I("paddq %mm1, %mm0", "r=state w=state a= m=- lat=1 u=1 k=-");
I("addsd %xmm1, %xmm0", "r=xmm0,xmm1 w=xmm0 a= m=- lat=4 u=1 k=-");
I("divsd %xmm1, %xmm0", "r=xmm0,xmm1 w=xmm0 a= m=- lat=13 u=1 k=-");
I("cvttsd2si %xmm0, %rax", "r=xmm0 w=rax a= m=- lat=6 u=2 k=-");
I("ucomisd %xmm1, %xmm0", "r=xmm0,xmm1 w=flags a= m=- lat=3 u=1 k=-");
I("ptest %xmm1, %xmm0", "r=xmm0,xmm1 w=flags a= m=- lat=3 u=2 k=-");
I("pshufb %xmm1, %xmm0", "r=xmm0,xmm1 w=xmm0 a= m=- lat=1 u=1 k=-");
I("palignr $8, %xmm1, %xmm0", "r=xmm0,xmm1 w=xmm0 a= m=- lat=1 u=1 k=-");
I("pcmpistri $0x1a, (%rdi), %xmm1", "r=rdi,xmm1 w=rcx,flags a=rdi m=l lat=10 u=3 k=-");
I("pblendvb %xmm0, %xmm2, %xmm1", "r=xmm0,xmm1,xmm2 w=xmm1 a= m=- lat=1 u=1 k=-");
I("pextrb $1, %xmm2, %eax", "r=xmm2 w=rax a= m=- lat=3 u=2 k=-");
I("pinsrq $1, %rax, %xmm2", "r=rax,xmm2 w=xmm2 a= m=- lat=2 u=2 k=-");
I("vmovdqu (%rsi), %ymm1", "r=rsi w=xmm1 a=rsi m=l lat=1 u=1 k=-");
I("vmovdqu %ymm8, -0x20(%rdi,%rdx)", "r=rdx,rdi,xmm8 w= a=rdx,rdi m=s lat=1 u=1 k=-");
I("vpcmpeqb (%rdi), %ymm0, %ymm1", "r=rdi,xmm0 w=xmm1 a=rdi m=l lat=1 u=1 k=-");
I("vpminub %ymm2, %ymm3, %ymm4", "r=xmm2,xmm3 w=xmm4 a= m=- lat=1 u=1 k=-");
I("vpxor %xmm9, %xmm9, %xmm9", "r= w=xmm9 a= m=- lat=1 u=1 k=- zi");
I("vpxor %xmm1, %xmm2, %xmm3", "r=xmm1,xmm2 w=xmm3 a= m=- lat=1 u=1 k=-");
I("vpmovmskb %ymm1, %ecx", "r=xmm1 w=rcx a= m=- lat=2 u=1 k=-");
I("vpbroadcastb %xmm0, %ymm0", "r=xmm0 w=xmm0 a= m=- lat=3 u=2 k=-");
I("vpsrldq $4, %xmm1, %xmm2", "r=xmm1 w=xmm2 a= m=- lat=1 u=1 k=-");
I("vinserti128 $1, %xmm1, %ymm2, %ymm3", "r=xmm1,xmm2 w=xmm3 a= m=- lat=3 u=1 k=-");
I("vblendvps %xmm4, %xmm1, %xmm2, %xmm3", "r=xmm1,xmm2,xmm4 w=xmm3 a= m=- lat=2 u=2 k=-");
I("vfmadd231sd %xmm1, %xmm2, %xmm3", "r=xmm1,xmm2,xmm3 w=xmm3 a= m=- lat=4 u=1 k=-");
I("vmovss %xmm1, %xmm2, %xmm3", "r=xmm1,xmm2 w=xmm3 a= m=- lat=1 u=1 k=-");
I("vzeroupper",
  "r= w=xmm0,xmm1,xmm2,xmm3,xmm4,xmm5,xmm6,xmm7,xmm8,xmm9,xmm10,xmm11,xmm12,xmm13,xmm14,xmm15 a= m=- lat=1 u=4 k=-");
I("kmovd %k0, %eax", "r=state w=rax a= m=- lat=1 u=1 k=-");
I("kortestd %k0, %k1", "r=state w=flags a= m=- lat=1 u=1 k=-");
I("andn %rsi, %rdi, %rax", "r=rsi,rdi w=rax,flags a= m=- lat=1 u=1 k=-");
I("blsr %ecx, %edx", "r=rcx w=rdx,flags a= m=- lat=1 u=1 k=-");
I("bzhi %eax, %esi, %edi", "r=rax,rsi w=rdi,flags a= m=- lat=1 u=1 k=-");
I("sarx %rcx, (%rdx), %rax", "r=rcx,rdx w=rax a=rdx m=l lat=1 u=1 k=-");
I("shlx %eax, %ebx, %ecx", "r=rax,rbx w=rcx a= m=- lat=1 u=1 k=-");
I("mulx %r8, %r9, %r10", "r=rdx,r8 w=r9,r10 a= m=- lat=4 u=2 k=-");
I("rorx $3, %esi, %edi", "r=rsi w=rdi a= m=- lat=1 u=1 k=-");
I("crc32b %cl, %eax", "r=rax,rcx w=rax a= m=- lat=3 u=1 k=-");
I("cvtps2pi %xmm1, %mm0", "r=xmm1 w=state a= m=- lat=4 u=2 k=-");
I("sha256rnds2 %xmm0, %xmm1, %xmm2", "r=xmm0,xmm1,xmm2 w=xmm2 a= m=- lat=4 u=2 k=-");

extern const struct kpd __start_kpd[], __stop_kpd[];

static const char *const reg_names[] = {
	"rax",	"rcx",	 "rdx",	  "rbx",   "rsp",   "rbp",   "rsi",   "rdi",   "r8",
	"r9",	"r10",	 "r11",	  "r12",   "r13",   "r14",   "r15",   "flags", "state",
	"xmm0", "xmm1",	 "xmm2",  "xmm3",  "xmm4",  "xmm5",  "xmm6",  "xmm7",  "xmm8",
	"xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
};

static size_t regs(char *buf, size_t size, const char *key, uint64_t m)
{
	size_t o = snprintf(buf, size, "%s=", key);
	unsigned int r;
	int first = 1;

	for (r = 0; r < sizeof(reg_names) / sizeof(reg_names[0]) && o < size; r++)
		if (m & KP_R_BIT(r)) {
			o += snprintf(buf + o, size - o, "%s%s", first ? "" : ",", reg_names[r]);
			first = 0;
		}
	return o < size ? o : size - 1;
}

/* the whole struct, every field, in the table's words */
static void render(char *buf, size_t size, const struct kp_x86_deps *d)
{
	static const char *const mem[] = {"-", "l", "s", "ls"};
	size_t o;

	if (!d->known && !d->src && !d->dst && !d->addr && !d->load && !d->store && d->lat == 1 &&
	    d->uops == 1 && !d->kind && !d->zero_idiom) {
		snprintf(buf, size, "unknown");
		return;
	}
	o = regs(buf, size, "r", d->src);
	o += regs(buf + o, size - o, " w", d->dst);
	o += regs(buf + o, size - o, " a", d->addr);
	snprintf(buf + o, size - o, " m=%s lat=%u u=%u k=%s%s%s",
		 mem[(d->load ? 1 : 0) | (d->store ? 2 : 0)], d->lat, d->uops,
		 d->kind < KP_DK_KINDS ? kp_dk_names[d->kind] : "?", d->zero_idiom ? " zi" : "",
		 d->known ? "" : " known=0");
}

int main(void)
{
	const struct kpd *e;
	int bad = 0, n = 0;
	char got[512];

	for (e = __start_kpd; e < __stop_kpd; e++, n++) {
		struct kp_x86_deps d;
		bool known;

		memset(&d, 0xa5, sizeof(d)); /* every field must be set */
		known = kp_x86_deps(e->start, e->end - e->start, &d);
		render(got, sizeof(got), &d);
		if (strcmp(got, e->want) || known != d.known) {
			printf("%s\n  got  %s\n  want %s\n", e->text, got, e->want);
			bad++;
		}
	}
	printf("%d instructions, %d wrong\n", n, bad);
	return bad || !n;
}

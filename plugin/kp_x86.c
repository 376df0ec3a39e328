// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86-64 instructions as QEMU 7.2's TCG runs them (target/i386/tcg/
 * translate.c), for plugin/kp_model.c: see kp_x86.h.
 */
#include <string.h>

#include "kp_x86.h"
#include "kp_x86_dec.h"

/* a legacy prefix that means nothing to an instruction kp_x86_regs_only accepts */
static bool kp_harmless_prefix(uint8_t b)
{
	/* operand size, segment overrides (no memory operand is accessed) */
	return b == 0x66 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 ||
	       b == 0x65;
}

/*
 * Opcodes whose operation on their ModRM operand raises nothing, whatever
 * its reg field: after 0f, bt, shld, bts, shrd, imul, btr, movzx, btc, bsf,
 * bsr, movsx (cmovcc and setcc are ranges); alone, movsxd, imul, arithmetic
 * with an immediate, test, xchg, mov, shifts (add, or, adc, sbb, and, sub,
 * xor, cmp are a pattern).
 */
static const uint8_t kp_rr_0f[] = {0xa3, 0xa4, 0xa5, 0xab, 0xac, 0xad, 0xaf, 0xb3,
				   0xb6, 0xb7, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf};
static const uint8_t kp_rr_1[] = {0x63, 0x69, 0x6b, 0x80, 0x81, 0x83, 0x84, 0x85, 0x86, 0x87,
				  0x88, 0x89, 0x8a, 0x8b, 0xc0, 0xc1, 0xd0, 0xd1, 0xd2, 0xd3};
/* and without a ModRM: test al/eax, jmp, cmc, clc, stc, cld, std */
static const uint8_t kp_rr_none[] = {0xa8, 0xa9, 0xe9, 0xeb, 0xf5, 0xf8, 0xf9, 0xfc, 0xfd};

static bool kp_in(uint8_t op, const uint8_t *ops, size_t n)
{
	return memchr(ops, op, n);
}

/*
 * 0f op with ModRM m: true when the operation raises nothing but what an
 * access to its operand may (none when m names a register)
 */
static bool kp_plain_0f(uint8_t op, uint8_t m)
{
	if ((op >= 0x40 && op <= 0x4f) || (op >= 0x90 && op <= 0x9f)) /* cmovcc, setcc */
		return true;
	if (op == 0xba) /* bt, bts, btr, btc with an immediate (/0-/3 are undefined) */
		return ((m >> 3) & 7) >= 4;
	/* cmpxchg, xadd: plain loads and stores without a lock prefix */
	if (op == 0xb0 || op == 0xb1 || op == 0xc0 || op == 0xc1)
		return true;
	/* with a register's bit offset, bt and co. address memory beyond the operand */
	if (m >> 6 != 3 && (op == 0xa3 || op == 0xab || op == 0xb3 || op == 0xbb))
		return false;
	return kp_in(op, kp_rr_0f, sizeof(kp_rr_0f));
}

/* the same for a one-byte opcode */
static bool kp_plain_1(uint8_t op, uint8_t m)
{
	unsigned int reg = (m >> 3) & 7;

	if (op < 0x40) /* add, or, adc, sbb, and, sub, xor, cmp */
		return (op & 7) < 4;
	if (op == 0xc6 || op == 0xc7) /* mov immediate (/7: xabort, xbegin) */
		return reg == 0;
	/* test, not, neg, mul, imul (QEMU: /1 is undefined; /6, /7: div, idiv fault) */
	if (op == 0xf6 || op == 0xf7)
		return reg != 1 && reg < 6;
	if (op == 0xfe || op == 0xff) /* inc, dec (the others: call, jmp, push) */
		return reg < 2;
	return kp_in(op, kp_rr_1, sizeof(kp_rr_1));
}

/*
 * True when the instruction cannot end its block's run early under TCG: it
 * touches registers only, through code TCG generates without a helper that
 * could raise an exception.  Anything not recognised may (false): that only
 * costs a counter.  Prefixes other than the harmless ones (lock, rep, an
 * address size) make it unrecognised, but for the hint nops (endbr64 is one),
 * and so do more than four: none of the forms accepted is then longer than
 * 15 bytes, which QEMU would cut short and fault.
 */
bool kp_x86_regs_only(const uint8_t *b, size_t len)
{
	const uint8_t *p = b, *end = b + len;
	bool rep = false;
	uint8_t op;

	while (p < end && (kp_harmless_prefix(*p) || *p == 0xf3)) {
		rep |= *p == 0xf3;
		if (++p - b > 4)
			return false;
	}
	/* a REX prefix, last: in 32-bit code 0x40-0x4f is inc or dec, alone */
	if (p < end && (*p & 0xf0) == 0x40)
		p++;
	if (p >= end)
		return false;
	op = *p++;
	if (op == 0x0f) {
		if (p >= end)
			return false;
		op = *p++;
		/* hint nops, whatever their operand (QEMU: gen_nop_modrm) */
		if (op == 0x19 || (op >= 0x1c && op <= 0x1f))
			return true;
		if (rep)
			return false;
		if ((op >= 0x80 && op <= 0x8f) || (op >= 0xc8 && op <= 0xcf)) /* jcc, bswap */
			return true;
		return p < end && *p >> 6 == 3 && kp_plain_0f(op, *p);
	}
	if (rep)
		return false;
	if (op < 0x40 && ((op & 7) == 4 || (op & 7) == 5)) /* arithmetic on al/eax, immediate */
		return true;
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0x90 && op <= 0x99) || (op >= 0xb0 && op <= 0xbf))
		return true; /* jcc, xchg with eax, cbw, cwd, mov immediate */
	if (kp_in(op, kp_rr_none, sizeof(kp_rr_none)))
		return true;
	if (p < end && op == 0x8d) /* lea: computes an address, accesses none */
		return *p >> 6 != 3;
	return p < end && *p >> 6 == 3 && kp_plain_1(op, *p);
}

/*
 * The operand of ModRM p[0] (and SIB p[1]) is a register, or memory Linux
 * keeps mapped for its kernel: per-CPU data (any address through %gs),
 * rip-relative data (the kernel's or a module's own), the stack through
 * %rsp with no index.  rex is the instruction's REX prefix, or 0.
 */
static bool kp_kernel_operand(const uint8_t *p, const uint8_t *end, bool gs, uint8_t rex)
{
	uint8_t mod = p[0] >> 6, rm = p[0] & 7;

	if (mod == 3 || gs)
		return true;
	if (mod == 0 && rm == 5)
		return true;
	/* a SIB: base rsp (r12 with REX.B), index none (r12 with REX.X) */
	return rm == 4 && p + 1 < end && (p[1] & 7) == 4 && ((p[1] >> 3) & 7) == 4 && !(rex & 3);
}

/*
 * push, pop, or an operation kp_x86_regs_only accepts on registers, on its
 * operand: anywhere, or (!anywhere) where kp_kernel_operand says.  %fs is
 * the user's in the kernel, and lock, rep or an address size prefix makes
 * the instruction unrecognised.
 */
static bool kp_kernel_access(const uint8_t *b, size_t len, bool anywhere)
{
	const uint8_t *p = b, *end = b + len;
	uint8_t op, rex = 0;
	bool gs = false;

	while (p < end && kp_harmless_prefix(*p) && *p != 0x64) {
		gs |= *p == 0x65;
		if (++p - b > 4)
			return false;
	}
	if (p < end && (*p & 0xf0) == 0x40)
		rex = *p++;
	if (p >= end)
		return false;
	op = *p++;
	/* push, pop a register or push an immediate: the stack */
	if ((op >= 0x50 && op <= 0x5f) || op == 0x68 || op == 0x6a)
		return true;
	if (op == 0x0f) {
		if (p + 1 >= end)
			return false;
		op = *p++;
		return kp_plain_0f(op, *p) && (anywhere || kp_kernel_operand(p, end, gs, rex));
	}
	if (p >= end)
		return false;
	/* push or pop an operand: it and the stack */
	if ((op == 0xff && ((*p >> 3) & 7) == 6) || (op == 0x8f && ((*p >> 3) & 7) == 0))
		return anywhere || kp_kernel_operand(p, end, gs, rex);
	return kp_plain_1(op, *p) && (anywhere || kp_kernel_operand(p, end, gs, rex));
}

/*
 * True when the instruction cannot end its block's run early when it runs
 * in the Linux kernel: registers only, or an access kp_kernel_access
 * accepts to memory that never faults there.  A kernel whose stack,
 * per-CPU area or own data faulted would have overflowed its stack or
 * written its read-only data: a bug that stops it.
 */
bool kp_x86_kernel_stays(const uint8_t *b, size_t len)
{
	return kp_x86_regs_only(b, len) || kp_kernel_access(b, len, false);
}

/* the same, whatever memory the operand is */
bool kp_x86_kernel_plain(const uint8_t *b, size_t len)
{
	return kp_x86_regs_only(b, len) || kp_kernel_access(b, len, true);
}

/*
 * True when the instruction may change what a virtual address maps to, or
 * tells the CPU that it did: mov to a control register, invlpg, invpcid,
 * invlpgb, rsm.  The plugin's TLB is emptied before it runs.
 */
bool kp_x86_flushes_tlb(const uint8_t *b, size_t len)
{
	const uint8_t *p = b, *end = b + len;

	while (p < end && (kp_harmless_prefix(*p) || *p == 0xf0 || *p == 0xf2 || *p == 0xf3 ||
			   *p == 0x67 || (*p & 0xf0) == 0x40))
		p++;
	if (end - p < 2 || p[0] != 0x0f)
		return false;
	if (p[1] == 0x22 || p[1] == 0xaa) /* mov to crN, rsm */
		return true;
	if (p[1] == 0x01 && end - p >= 3) /* invlpg (a memory operand), invlpgb */
		return (((p[2] >> 3) & 7) == 7 && p[2] >> 6 != 3) || p[2] == 0xfe;
	return end - p >= 3 && p[1] == 0x38 && p[2] == 0x82; /* invpcid */
}

/* ---- events and the CR3 evaluation ---- */

const char *const kp_ev_names[KP_EV_KINDS] = {
	"-",	   "lfence", "mfence",	"sfence",    "cpuid",	 "wrmsr",   "rdmsr",  "verw",
	"iret",	   "sysret", "sysexit", "swapgs",    "mov_cr3",	 "mov_cr",  "mov_dr", "invlpg",
	"invpcid", "wbinvd", "lxdt",	"serialize", "call_ind", "jmp_ind", "ret",    "syscall",
};

bool kp_dec_prefixes(struct kp_dec *d, const uint8_t *b, size_t len)
{
	static const uint8_t legacy[] = {0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65,
					 0x66, 0x67, 0xf0, 0xf2, 0xf3};

	*d = (struct kp_dec){.p = b, .end = b + len};
	while (d->p < d->end && memchr(legacy, *d->p, sizeof(legacy))) {
		d->p66 |= *d->p == 0x66;
		d->pf2 |= *d->p == 0xf2;
		d->pf3 |= *d->p == 0xf3;
		d->lock |= *d->p == 0xf0;
		if (++d->p - b >= KP_X86_MAX_LEN)
			return false;
	}
	if (d->p < d->end && (*d->p & 0xf0) == 0x40)
		d->rex = *d->p++;
	return d->p < d->end;
}

/* 0f 00, 0f 01 and 0f ae: their ModRM's reg field picks the instruction */
static enum kp_ev kp_ev_group(const struct kp_dec *d, uint8_t op)
{
	uint8_t m = *d->p, reg = (m >> 3) & 7, mod = m >> 6;

	if (op == 0x00) /* sldt, str, lldt, ltr, verr, verw */
		return reg == 5 ? KP_EV_VERW : reg == 2 || reg == 3 ? KP_EV_LXDT : KP_EV_NONE;
	if (op == 0x01) {
		if (m == 0xf8)
			return KP_EV_SWAPGS;
		if (m == 0xe8 && !d->pf2 && !d->pf3) /* f2, f3: xsusldtrk, setssbsy */
			return KP_EV_SERIALIZE;
		if (mod == 3) /* the register forms are others (monitor, xgetbv, ...) */
			return KP_EV_NONE;
		return reg == 7 ? KP_EV_INVLPG : reg == 2 || reg == 3 ? KP_EV_LXDT : KP_EV_NONE;
	}
	/* 0f ae: the fences are register forms without 66, f2, f3 (tpause, umwait, ...) */
	if (mod != 3 || d->p66 || d->pf2 || d->pf3 || reg < 5)
		return KP_EV_NONE;
	return reg == 5 ? KP_EV_LFENCE : reg == 6 ? KP_EV_MFENCE : KP_EV_SFENCE;
}

static enum kp_ev kp_ev_0f(const struct kp_dec *d)
{
	uint8_t op = *d->p;

	switch (op) {
	case 0x05:
		return KP_EV_SYSCALL;
	case 0x07:
		return KP_EV_SYSRET;
	case 0x09:
		return KP_EV_WBINVD; /* f3: wbnoinvd */
	case 0x30:
		return KP_EV_WRMSR;
	case 0x32:
		return KP_EV_RDMSR;
	case 0x35:
		return KP_EV_SYSEXIT;
	case 0xa2:
		return KP_EV_CPUID;
	}
	if (d->end - d->p < 2)
		return KP_EV_NONE;
	if (op == 0x22) /* mov to crN: REX.R makes it cr8 and up */
		return ((d->p[1] >> 3) & 7) == 3 && !(d->rex & 4) ? KP_EV_MOV_CR3 : KP_EV_MOV_CR;
	if (op == 0x23)
		return KP_EV_MOV_DR;
	if (op == 0x38)
		return d->p[1] == 0x82 && d->p66 ? KP_EV_INVPCID : KP_EV_NONE;
	if (op == 0x00 || op == 0x01 || op == 0xae) {
		struct kp_dec m = *d;

		m.p++;
		return kp_ev_group(&m, op);
	}
	return KP_EV_NONE;
}

enum kp_ev kp_x86_event(const uint8_t *b, size_t len)
{
	struct kp_dec d;
	uint8_t op;

	if (!kp_dec_prefixes(&d, b, len))
		return KP_EV_NONE;
	op = *d.p++;
	if (op == 0x0f)
		return d.p < d.end ? kp_ev_0f(&d) : KP_EV_NONE;
	if (op == 0xcf)
		return KP_EV_IRET;
	if (op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb)
		return KP_EV_RET;
	if (op == 0xff && d.p < d.end) {
		uint8_t reg = (*d.p >> 3) & 7;

		if (reg == 2 || reg == 3)
			return KP_EV_CALL_IND;
		if (reg == 4 || reg == 5)
			return KP_EV_JMP_IND;
	}
	return KP_EV_NONE;
}

int kp_x86_mov_to_cr(const uint8_t *b, size_t len)
{
	struct kp_dec d;

	if (!kp_dec_prefixes(&d, b, len) || d.end - d.p < 3 || d.p[0] != 0x0f || d.p[1] != 0x22)
		return -1;
	return ((d.p[2] >> 3) & 7) | (d.rex & 4) << 1;
}

void kp_x86_sym_init(struct kp_x86_sym *s)
{
	memset(s, 0, sizeof(*s));
}

static void kp_sym_set(struct kp_x86_sym *s, unsigned int r, bool cr3, uint64_t mask, uint64_t val)
{
	s->cr3 = cr3 ? s->cr3 | 1u << r : s->cr3 & ~(1u << r);
	s->mask[r] = mask;
	s->val[r] = val & mask;
}

/* a 32-bit operation's result: its upper half zeroed */
static void kp_sym_zext(struct kp_x86_sym *s, unsigned int r, bool wide)
{
	if (wide)
		return;
	s->mask[r] |= 0xffffffff00000000ull;
	s->val[r] &= 0xffffffffull;
}

/* or (!and: and) with the known value v */
static void kp_sym_orand(struct kp_x86_sym *s, unsigned int r, bool or, uint64_t v, bool wide)
{
	if (or) {
		s->mask[r] |= v;
		s->val[r] |= v;
	} else {
		s->mask[r] |= ~v;
		s->val[r] &= v;
	}
	kp_sym_zext(s, r, wide);
}

static uint64_t kp_imm(const uint8_t *p, unsigned int n, bool wide)
{
	int64_t v = n == 1 ? (int8_t)p[0]
			   : (int32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);

	return wide ? (uint64_t)v : (uint32_t)v;
}

/* 81, 83 (or, and, cmp with an immediate) on a register; false: not understood */
static bool kp_sym_arith(struct kp_x86_sym *s, const struct kp_dec *d, uint8_t op, bool wide)
{
	const uint8_t *p = d->p;
	unsigned int n = op == 0x83 ? 1 : 4, reg = (p[0] >> 3) & 7,
		     r = (p[0] & 7) | (d->rex & 1) << 3;

	if (p[0] >> 6 != 3 || d->end - p < 1 + n)
		return false;
	if (reg == 7) /* cmp: no register written */
		return true;
	if (reg != 1 && reg != 4)
		return false;
	kp_sym_orand(s, r, reg == 1, kp_imm(p + 1, n, wide), wide);
	return true;
}

/* mov between registers (89, 8b), or and and between them (09, 0b, 21, 23) */
static bool kp_sym_regreg(struct kp_x86_sym *s, const struct kp_dec *d, uint8_t op, bool wide)
{
	uint8_t m = d->p[0];
	unsigned int a = ((m >> 3) & 7) | (d->rex & 4) << 1, b = (m & 7) | (d->rex & 1) << 3;
	unsigned int dst = op & 2 ? a : b, src = op & 2 ? b : a;

	if (m >> 6 != 3)
		return false;
	if ((op | 2) == 0x8b) {
		kp_sym_set(s, dst, s->cr3 >> src & 1, s->mask[src], s->val[src]);
		kp_sym_zext(s, dst, wide);
		return true;
	}
	if ((op | 2) == 0x33 && src == dst) { /* xor of a register with itself */
		kp_sym_set(s, dst, false, ~0ull, 0);
		return true;
	}
	if ((op | 2) != 0x0b && (op | 2) != 0x23)
		return false;
	if (s->mask[src] == ~0ull)
		kp_sym_orand(s, dst, (op | 2) == 0x0b, s->val[src], wide);
	else
		kp_sym_set(s, dst, false, 0, 0);
	return true;
}

/* 0f xx: mov from and to a control register, bt*, hint nops; false: not understood */
static bool kp_sym_0f(struct kp_x86_sym *s, const struct kp_dec *d, bool wide,
		      struct kp_x86_cr3 *out, bool *is_cr3)
{
	const uint8_t *p = d->p;
	uint8_t op = p[0], m = d->end - p > 1 ? p[1] : 0;
	unsigned int reg = ((m >> 3) & 7) | (d->rex & 4) << 1, r = (m & 7) | (d->rex & 1) << 3;

	if (d->end - p < 2)
		return false;
	if (op == 0x20) { /* mov %crN, %reg (always a register) */
		kp_sym_set(s, r, reg == 3, 0, 0);
		return true;
	}
	if (op == 0x22) {
		if (reg == 3) {
			*out = (struct kp_x86_cr3){s->cr3 >> r & 1 || s->mask[r] == ~0ull,
						   s->mask[r], s->val[r]};
			*is_cr3 = true;
		}
		return true;
	}
	if (op == 0xba && m >> 6 == 3 && d->end - p >= 3 && ((m >> 3) & 7) >= 4) {
		uint64_t bit = 1ull << (p[2] & (wide ? 63 : 31));

		switch ((m >> 3) & 7) {
		case 4: /* bt */
			return true;
		case 5:
			kp_sym_orand(s, r, true, bit, wide);
			return true;
		case 6:
			kp_sym_orand(s, r, false, ~bit, wide);
			return true;
		}
		/* btc: a known bit flips, an unknown one stays unknown */
		s->val[r] ^= bit & s->mask[r];
		kp_sym_zext(s, r, wide);
		return true;
	}
	return false;
}

/* the one-byte opcodes understood; false: not understood */
static bool kp_sym_1(struct kp_x86_sym *s, const struct kp_dec *d, uint8_t op, bool wide)
{
	const uint8_t *p = d->p;
	unsigned int r = (op & 7) | (d->rex & 1) << 3;

	if (op == 0x90) /* nop, pause; with REX.B xchg %r8, %rax */
		return !(d->rex & 1);
	if (op >= 0xb8 && op <= 0xbf) { /* mov $imm, %reg: 8 bytes with REX.W */
		if (d->end - p < (wide ? 8 : 4))
			return false;
		kp_sym_set(s, r, false, ~0ull,
			   wide ? (uint64_t)kp_imm(p, 4, false) | (uint64_t)kp_imm(p + 4, 4, false)
									  << 32
				: kp_imm(p, 4, false));
		return true;
	}
	if ((op == 0x0d || op == 0x25) && d->end - p >= 4) { /* or, and %rax with imm32 */
		kp_sym_orand(s, 0, op == 0x0d, kp_imm(p, 4, wide), wide);
		return true;
	}
	if (p >= d->end)
		return false;
	if (op == 0x81 || op == 0x83)
		return kp_sym_arith(s, d, op, wide);
	if (op == 0xc7 && p[0] >> 6 == 3 && ((p[0] >> 3) & 7) == 0 && d->end - p >= 5) {
		kp_sym_set(s, (p[0] & 7) | (d->rex & 1) << 3, false, ~0ull, kp_imm(p + 1, 4, wide));
		return true;
	}
	if (op == 0x89 || op == 0x8b || op == 0x09 || op == 0x0b || op == 0x21 || op == 0x23 ||
	    op == 0x31 || op == 0x33)
		return kp_sym_regreg(s, d, op, wide);
	return false;
}

/*
 * Anything not understood, or with an operand size prefix, may write any
 * register: all become unknown.  Understood: nops, mov between registers,
 * mov of an immediate, or, and, cmp with an immediate, bt, bts, btr, btc
 * with an immediate, or, and, xor between registers, mov from and to a
 * control register, each on registers only.
 */
bool kp_x86_sym_step(struct kp_x86_sym *s, const uint8_t *b, size_t len, struct kp_x86_cr3 *out)
{
	struct kp_dec d;
	bool ok = false, is_cr3 = false, wide;
	uint8_t op;

	if (kp_dec_prefixes(&d, b, len) && !d.pf2) {
		wide = d.rex & 8;
		op = *d.p++;
		if (op == 0x0f && d.p < d.end && (*d.p == 0x19 || (*d.p >= 0x1c && *d.p <= 0x1f)))
			ok = true; /* hint nops, endbr64, whatever their prefixes */
		else if (op == 0x0f)
			ok = d.p < d.end && !d.pf3 && !d.p66 &&
			     kp_sym_0f(s, &d, wide, out, &is_cr3);
		else if (op == 0x90 && !d.rex)
			ok = true; /* nop, 66 nop, pause */
		else
			ok = !d.p66 && !d.pf3 && kp_sym_1(s, &d, op, wide);
	}
	if (!ok)
		kp_x86_sym_init(s);
	return is_cr3;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86-64 instructions as QEMU 7.2's TCG runs them (target/i386/tcg/
 * translate.c), for plugin/kp_model.c: see kp_x86.h.
 */
#include <string.h>

#include "kp_x86.h"

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

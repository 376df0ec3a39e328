// SPDX-License-Identifier: GPL-2.0-only
/*
 * An x86-64 instruction's register dependences, memory accesses, latency
 * and kind, for the timing model: see kp_x86_deps.h.  Each opcode has a
 * descriptor (struct kp_op, the tables in kp_x86_optab.c): which of its
 * operands it reads and writes, the registers it reads and writes besides
 * them, its latency and uops.
 * The one-byte arithmetic and shifts are regular enough to be built by
 * code; a ModRM's reg field picks among a group's descriptors; a few
 * opcodes mean other things with a mandatory prefix or a VEX prefix
 * (kp_exc).  Latencies are Skylake's, about (Agner Fog's tables, uops.info).
 */
#include <string.h>

#include "kp_x86.h"
#include "kp_x86_dec.h"
#include "kp_x86_deps.h"
#include "kp_x86_optab.h"

const char *const kp_dk_names[KP_DK_KINDS] = {
	"-",   "jcc",	 "jmp",	     "call",	 "jmp_ind", "call_ind",
	"ret", "serial", "rep_movs", "rep_stos", "rep_str", "syscall",
};

/* an instruction read: its prefixes, opcode map, opcode, ModRM */
struct kp_dd {
	struct kp_dec d;
	const uint8_t *m; /* the ModRM, or NULL when none is left */
	uint8_t map;	  /* 0 one-byte, 1 0f, 2 0f 38, 3 0f 3a */
	uint8_t op, pfx;  /* pfx: the mandatory prefix, 0x66, 0xf3, 0xf2 or 0 */
	uint8_t rex;	  /* REX, or VEX's W, R, X, B in REX's places */
	uint8_t vvvv;
	bool vex, vex_l;
};

/* a VEX prefix at p: false when cut short or of a map not known */
static bool kp_vex(struct kp_dd *x, const uint8_t **pp)
{
	static const uint8_t pfx[] = {0, 0x66, 0xf3, 0xf2};
	const uint8_t *p = *pp;
	uint8_t last;

	if (x->d.end - p < (p[0] == 0xc5 ? 3 : 4))
		return false;
	if (p[0] == 0xc5) {
		x->rex = 0x40 | ((uint8_t)~p[1] >> 5 & 4);
		x->map = 1;
		last = p[1];
		p += 2;
	} else {
		x->rex = 0x40 | ((uint8_t)~p[1] >> 5 & 7) | (p[2] >> 4 & 8);
		x->map = p[1] & 0x1f;
		last = p[2];
		p += 3;
	}
	x->vex = true;
	x->vvvv = (uint8_t)~last >> 3 & 15;
	x->vex_l = last & 4;
	x->pfx = pfx[last & 3];
	*pp = p;
	return x->map >= 1 && x->map <= 3;
}

static bool kp_dd_read(struct kp_dd *x, const uint8_t *b, size_t len)
{
	const uint8_t *p;

	memset(x, 0, sizeof(*x));
	if (!kp_dec_prefixes(&x->d, b, len))
		return false;
	p = x->d.p;
	x->rex = x->d.rex;
	/* f2 and f3 pick an instruction before 66 does (66 f3 0f b8: popcnt %ax) */
	x->pfx = x->d.pf3 ? 0xf3 : x->d.pf2 ? 0xf2 : x->d.p66 ? 0x66 : 0;
	if ((*p == 0xc4 || *p == 0xc5) && !x->rex) {
		if (!kp_vex(x, &p))
			return false;
	} else if (*p == 0x0f) {
		x->map = 1;
		if (++p < x->d.end && (*p == 0x38 || *p == 0x3a))
			x->map = *p++ == 0x38 ? 2 : 3;
	}
	if (p >= x->d.end)
		return false;
	x->op = *p++;
	x->m = p < x->d.end ? p : NULL;
	return true;
}

/* add, or, adc, sbb, and, sub, xor, cmp (n) on operands form (opcode & 7; 6, 7: 80, 81) */
static struct kp_op kp_alu(unsigned int n, unsigned int form)
{
	static const uint32_t rd[8] = {M | ER | GR | KD_EB | KD_GB,
				       M | ER | GR,
				       M | GR | ER | KD_EB | KD_GB,
				       M | GR | ER,
				       0,
				       0,
				       M | ER | KD_EB,
				       M | ER};
	static const uint32_t wr[8] = {EW, EW, GW, GW, 0, 0, EW, EW};
	struct kp_op o = OP(rd[form] | (n == 7 ? 0 : wr[form]), 0, FL, 1, 1);

	if (form == 4 || form == 5) { /* al, eax with an immediate */
		o.isrc = RAX;
		o.idst |= n == 7 ? 0 : RAX;
	}
	if (n == 2 || n == 3) /* adc, sbb */
		o.isrc |= FL;
	if (form < 4 && (n == 3 || n == 5 || n == 6)) /* sbb, sub, xor of two registers */
		o.f |= KD_ZI;
	return o;
}

/* rol, ror, rcl, rcr, shl, shr, sal, sar (reg) by an immediate, 1 or cl */
static struct kp_op kp_shift(uint8_t op, unsigned int reg)
{
	struct kp_op o = OP(M | ER | EW | (op & 1 ? 0 : KD_EB), 0, FL, 1, 1);

	if (op >= 0xd2) { /* by cl: flags unchanged when it is 0, 3 uops */
		o.isrc = RCX;
		o.lat = 2;
		o.uops = 3;
	}
	if (reg == 2 || reg == 3) { /* through the carry */
		o.isrc |= FL;
		o.lat = 6;
		o.uops = 8;
	}
	return o;
}

/* movs, cmps, stos, lods, scas, ins, outs: what each reads and writes, where */
static struct kp_op kp_string(const struct kp_dd *x)
{
	static const struct kp_op ops[] = {
		{KD_LD | KD_ST, RSI | RDI, RSI | RDI, RSI | RDI, 1, 4, KP_DK_REP_MOVS, 0},
		{KD_LD, RSI | RDI, RSI | RDI | FL, RSI | RDI, 1, 4, KP_DK_REP_STR, 0},
		{KD_ST, RAX | RDI, RDI, RDI, 1, 3, KP_DK_REP_STOS, 0},
		{KD_LD, RSI, RAX | RSI, RSI, 1, 2, KP_DK_REP_STR, 0},
		{KD_LD, RAX | RDI, RDI | FL, RDI, 1, 3, KP_DK_REP_STR, 0},
		{KD_ST, RDX | RDI, RDI, RDI, 1, 3, KP_DK_SERIAL, 0},
		{KD_LD, RDX | RSI, RSI, RSI, 1, 3, KP_DK_SERIAL, 0},
	};
	unsigned int i =
		x->op < 0xa0 ? 5 + ((x->op >> 1) & 1) : ((x->op - 0xa4) >> 1) - (x->op >= 0xaa);
	struct kp_op o = ops[i];

	if (x->pfx == 0xf3 || x->pfx == 0xf2) { /* rep: rcx times */
		o.isrc |= RCX;
		o.idst |= RCX;
	} else if (o.kind != KP_DK_SERIAL) {
		o.kind = KP_DK_NONE;
	}
	return o;
}

/* x87 (d8-df): the state bit, the flags of fcmov and fcomi, memory loaded or stored */
static struct kp_op kp_x87(const struct kp_dd *x)
{
	uint8_t m = x->m[0], reg = (m >> 3) & 7, op = x->op;
	struct kp_op o = OP(M, STATE, STATE, 3, 1);

	if ((op == 0xd8 || op == 0xdc || op == 0xde) && reg >= 6) /* fdiv, fdivr */
		o.lat = 15;
	if (m >> 6 != 3) {
		/* d9, db, dd, df /1-/3, /6, /7 store; the rest load */
		o.f |= op & 1 && reg != 0 && reg != 4 && reg != 5 ? EW : ER;
		return o;
	}
	if ((op == 0xda || op == 0xdb) && m < 0xe0) /* fcmovcc */
		o.isrc |= FL;
	if ((op == 0xdb || op == 0xdf) && m >= 0xe8 && m < 0xf8) /* fucomi, fcomi */
		o.idst |= FL;
	if (op == 0xdf && m == 0xe0) /* fnstsw %ax */
		o.idst |= RAX;
	return o;
}

/* 0f 01 on registers: the instructions its ModRM names */
static struct kp_op kp_op_0f01(uint8_t m)
{
	static const struct {
		uint8_t m;
		struct kp_op o;
	} ops[] = {
		{0xc8, OP(M, RAX | RCX | RDX, 0, 1, 1)},   /* monitor */
		{0xc9, OP(M, RAX | RCX, 0, 1, 1)},	   /* mwait */
		{0xca, OP(M, 0, 0, 1, 1)},		   /* clac */
		{0xcb, OP(M, 0, 0, 1, 1)},		   /* stac */
		{0xd0, OP(M, RCX, RAX | RDX, 1, 1)},	   /* xgetbv */
		{0xd1, OP(M, RAX | RCX | RDX, 0, 1, 1)},   /* xsetbv */
		{0xd5, OP(M, 0, 0, 1, 1)},		   /* xend */
		{0xd6, OP(M, 0, FL, 1, 1)},		   /* xtest */
		{0xe8, OP(M, 0, 0, 1, 1)},		   /* serialize */
		{0xee, OP(M, RCX, RAX | RDX, 1, 1)},	   /* rdpkru */
		{0xef, OP(M, RAX | RCX | RDX, 0, 1, 1)},   /* wrpkru */
		{0xf8, OP(M, 0, 0, 1, 1)},		   /* swapgs */
		{0xf9, OP(M, 0, RAX | RCX | RDX, 25, 20)}, /* rdtscp */
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].m == m)
			return ops[i].o;
	return (struct kp_op){0};
}

/* 0f ae on registers: the fences; rdfsbase, rdgsbase, wrfsbase, wrgsbase with f3 */
static struct kp_op kp_op_0fae(const struct kp_dd *x, unsigned int reg)
{
	if (!x->pfx && reg >= 5)
		return (struct kp_op)OP(M, 0, 0, 1, 1);
	if (x->pfx == 0xf3 && reg < 4)
		return (struct kp_op)OP(M | (reg < 2 ? EW : ER), 0, 0, 1, 1);
	return (struct kp_op){0};
}

/* the descriptor of a one-byte opcode */
static struct kp_op kp_op_1(const struct kp_dd *x)
{
	uint8_t op = x->op;
	unsigned int reg = x->m ? (x->m[0] >> 3) & 7 : 0;

	if (op < 0x40)
		return (op & 7) < 6 ? kp_alu(op >> 3, op & 7) : (struct kp_op){0};
	if (op == 0x90 && !(x->rex & 1)) /* nop, pause (with REX.B: xchg %r8, %rax) */
		return (struct kp_op)OP(0, 0, 0, 1, 1);
	if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f))
		return kp_string(x);
	if (!x->m)
		return kp_1[op];
	if (op == 0x80 || op == 0x81 || op == 0x83)
		return kp_alu(reg, op == 0x80 ? 6 : 7);
	if (op == 0xc0 || op == 0xc1 || (op >= 0xd0 && op <= 0xd3))
		return kp_shift(op, reg);
	if (op >= 0xd8 && op <= 0xdf)
		return kp_x87(x);
	return kp_1[op];
}

/* an exception to the map's table that applies, or NULL */
static const struct kp_op *kp_exc(const struct kp_dd *x)
{
	size_t i;

	for (i = 0; i < kp_nexcs; i++) {
		const struct kp_exc *e = &kp_excs[i];

		if (e->map == x->map && x->op >= e->first && x->op <= e->last &&
		    (e->pfx == 0xff || e->pfx == x->pfx) && (e->vex == 2 || e->vex == x->vex))
			return &e->o;
	}
	return NULL;
}

/* the descriptor of the instruction; lat 0 when it is not known */
static struct kp_op kp_lookup(const struct kp_dd *x)
{
	static const struct kp_op *const maps[] = {NULL, kp_0f, kp_0f38, kp_0f3a};
	const struct kp_op *e = kp_exc(x);
	unsigned int reg = x->m ? (x->m[0] >> 3) & 7 : 0;
	bool mem = x->m && x->m[0] >> 6 != 3;
	struct kp_op o;

	if (x->map == 0)
		o = kp_op_1(x);
	else if (e)
		o = *e;
	else if (x->map == 1 && x->op == 0x77) /* emms; vzeroupper, vzeroall */
		o = (struct kp_op)OP(0, 0, x->vex ? KP_R_XMMS : STATE, 1, x->vex_l ? 20 : 4);
	else if (x->map == 1 && x->op == 0x01 && x->m)
		o = mem ? kp_grps[G_7M][reg] : kp_op_0f01(x->m[0]);
	else if (x->map == 1 && x->op == 0xae && x->m)
		o = mem ? kp_grps[G_15M][reg] : kp_op_0fae(x, reg);
	else
		o = maps[x->map][x->op];
	if (o.grp)
		o = x->m ? kp_grps[o.grp][reg] : (struct kp_op){0};
	if (x->map == 1 && x->op == 0xae && mem && x->pfx == 0x66 && reg >= 6)
		o = (struct kp_op)OP(M | KD_LEA, 0, 0, 1, 1); /* clwb, clflushopt */
	return o;
}

/*
 * The registers the ModRM's memory operand's address reads, and whether it
 * has a base, an index and a displacement (a slow lea); false when its SIB
 * is cut off
 */
static bool kp_addr(const struct kp_dd *x, uint64_t *a, bool *three)
{
	uint8_t mod = x->m[0] >> 6, rm = x->m[0] & 7, sib;
	unsigned int index;

	*a = 0;
	*three = false;
	if (rm != 4) {
		if (mod != 0 || rm != 5) /* else rip-relative */
			*a = KP_R_BIT(rm | (x->rex & 1) << 3);
		return true;
	}
	if (x->d.end - x->m < 2)
		return false;
	sib = x->m[1];
	index = (sib >> 3 & 7) | (x->rex & 2) << 2;
	if (index != 4) /* else none */
		*a |= KP_R_BIT(index);
	if (mod != 0 || (sib & 7) != 5) /* else no base */
		*a |= KP_R_BIT((sib & 7) | (x->rex & 1) << 3);
	*three = index != 4 && mod != 0;
	return true;
}

/* register n of an operand's class: general (byte ones), vector, or the state */
static uint64_t kp_reg(const struct kp_dd *x, uint32_t f, bool g, unsigned int n)
{
	if (f & (g ? KD_GK : KD_EK))
		return STATE;
	if (f & (g ? KD_GX : KD_EX))
		return f & KD_MMX && !x->pfx && !x->vex ? STATE : KP_R_BIT(KP_R_XMM0 + (n & 15));
	if (f & (g ? KD_GB : KD_EB) && !x->rex && n >= 4 && n < 8)
		return KP_R_BIT(n - 4); /* ah, ch, dh, bh */
	return KP_R_BIT(n);
}

/*
 * With VEX, the vector operations that read and write one operand read
 * another instead, VEX.vvvv's: G = V op E (most), V = E op imm (the shifts
 * by an immediate).  Descriptors naming V are as they are.
 */
static uint32_t kp_vex_form(const struct kp_dd *x, uint32_t f)
{
	if (!x->vex || f & (VR | VW) || !(f & (KD_GX | KD_EX)))
		return f;
	if ((f & (GR | GW)) == (GR | GW))
		return (f & ~GR) | VR;
	if ((f & (ER | EW)) == (ER | EW))
		return (f & ~EW) | VW;
	return f;
}

/* the operands' registers and the memory accesses; false when bytes are missing */
static bool kp_apply(const struct kp_dd *x, const struct kp_op *o, struct kp_x86_deps *d,
		     bool *three)
{
	uint32_t f = kp_vex_form(x, o->f);
	unsigned int gn = 0, en = 0;
	uint64_t g = 0, e = 0, v = 0, a = 0;
	bool mem = false;

	if (f & M) {
		if (!x->m)
			return false;
		gn = (x->m[0] >> 3 & 7) | (x->rex & 4) << 1;
		en = (x->m[0] & 7) | (x->rex & 1) << 3;
		mem = x->m[0] >> 6 != 3;
		if (mem && !kp_addr(x, &a, three))
			return false;
		if (x->map == 0 && x->op == 0x8d && !mem) /* lea of a register */
			return false;
	} else if (f & KD_OP) {
		en = (x->op & 7) | (x->rex & 1) << 3;
	}
	g = kp_reg(x, f, true, gn);
	e = mem ? 0 : kp_reg(x, f, false, en);
	/* V is of G's class, but in the shifts by an immediate, E's */
	v = kp_reg(x, f, f & (KD_GX | KD_GK) || !(f & KD_EX), x->vvvv);
	d->src = o->isrc | (f & GR ? g : 0) | (f & ER ? e : 0) | (f & VR ? v : 0);
	d->dst = o->idst | (f & GW ? g : 0) | (f & EW ? e : 0) | (f & VW ? v : 0);
	if (mem && !(f & KD_NOP)) {
		d->src |= a;
		d->addr = f & KD_LEA ? 0 : a;
		d->load = !(f & KD_LEA) && f & ER;
		d->store = !(f & KD_LEA) && f & EW;
	}
	if (f & (KD_LD | KD_ST)) {
		d->src |= o->iaddr;
		d->addr |= o->iaddr;
		d->load |= !!(f & KD_LD);
		d->store |= !!(f & KD_ST);
	}
	if (f & KD_IS4)
		d->src |= KP_R_BIT(KP_R_XMM0 + (x->d.end[-1] >> 4));
	/* xor %eax,%eax, vpxor %xmm1,%xmm2,%xmm2: no register source, or just the flags */
	if (f & KD_ZI && !mem && (x->vex ? x->vvvv : gn) == en) {
		d->src = o->isrc;
		d->zero_idiom = 1;
	}
	/* movss, movsd between registers merge into G (VEX: V and E) */
	if (x->map == 1 && x->op == 0x10 && (x->pfx & 0xf0) == 0xf0 && !mem)
		d->src |= x->vex ? v : g;
	return true;
}

/* latency and uops beyond the descriptor's; the kind of the serializing ones */
static void kp_finish(const struct kp_dd *x, const struct kp_op *o, struct kp_x86_deps *d,
		      enum kp_ev ev, bool three)
{
	d->lat = o->lat;
	d->uops = o->uops;
	d->kind = o->kind;
	if (d->load && d->store && !(o->f & (KD_LD | KD_ST))) /* read-modify-write */
		d->uops++;
	if (x->map == 0 && x->op == 0xf7 && x->m && (x->m[0] >> 3 & 7) >= 6 && x->rex & 8)
		d->lat = 40; /* 64-bit div, idiv */
	if (o->f & KD_LEA && three)
		d->lat = 3;
	/* lock, xchg with memory: a full barrier */
	if (x->d.lock || (x->map == 0 && (x->op == 0x86 || x->op == 0x87) && d->load)) {
		d->lat = 18;
		d->uops += 7;
	}
	if (ev == KP_EV_SYSCALL || ev == KP_EV_SYSRET || ev == KP_EV_SYSEXIT)
		d->kind = KP_DK_SYSCALL;
	else if (ev != KP_EV_NONE && ev != KP_EV_CALL_IND && ev != KP_EV_JMP_IND && ev != KP_EV_RET)
		d->kind = KP_DK_SERIAL;
}

bool kp_x86_deps(const uint8_t *b, size_t len, struct kp_x86_deps *d)
{
	struct kp_dd x;
	struct kp_op o;
	bool three = false;

	*d = (struct kp_x86_deps){.lat = 1, .uops = 1};
	if (!kp_dd_read(&x, b, len))
		return false;
	o = kp_lookup(&x);
	if (!o.lat || !kp_apply(&x, &o, d, &three)) {
		*d = (struct kp_x86_deps){.lat = 1, .uops = 1};
		return false;
	}
	kp_finish(&x, &o, d, kp_x86_event(b, len), three);
	d->known = 1;
	return true;
}

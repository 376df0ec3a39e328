/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A loop bound's expression (loopbound_slice.c) as the probe reads it, a
 * postfix kp_fetch program, and as the user reads it, in C: registers by
 * the variables the DWARF puts in them, a load through a pointer to a
 * struct by the member it reads (a shift and a mask selecting a
 * bitfield's bits), else in the registers' own terms:
 * "*(u16 *)(%r15 + 0x2a) & 0x7fff".
 */
#include "analysis/loopbound.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "symbols/debuginfo.h"
#include "symbols/dwarf_fetch.h"

/* loads, shifts, masks and extensions between a member's value and the load reading it */
#define MAX_CHAIN 8
#define NAME_LEN  64
/* a constant below 0 by less is printed so: -1; more is an address or mask */
#define NEGATIVE_MAX 0x10000

/* pt_regs slots' 64, 32, 16 and 8-bit names */
static const char *const reg_names[KP_FREG_COUNT][4] = {
	[KP_FREG_R15] = {"r15", "r15d", "r15w", "r15b"},
	[KP_FREG_R14] = {"r14", "r14d", "r14w", "r14b"},
	[KP_FREG_R13] = {"r13", "r13d", "r13w", "r13b"},
	[KP_FREG_R12] = {"r12", "r12d", "r12w", "r12b"},
	[KP_FREG_BP] = {"rbp", "ebp", "bp", "bpl"},
	[KP_FREG_BX] = {"rbx", "ebx", "bx", "bl"},
	[KP_FREG_R11] = {"r11", "r11d", "r11w", "r11b"},
	[KP_FREG_R10] = {"r10", "r10d", "r10w", "r10b"},
	[KP_FREG_R9] = {"r9", "r9d", "r9w", "r9b"},
	[KP_FREG_R8] = {"r8", "r8d", "r8w", "r8b"},
	[KP_FREG_AX] = {"rax", "eax", "ax", "al"},
	[KP_FREG_CX] = {"rcx", "ecx", "cx", "cl"},
	[KP_FREG_DX] = {"rdx", "edx", "dx", "dl"},
	[KP_FREG_SI] = {"rsi", "esi", "si", "sil"},
	[KP_FREG_DI] = {"rdi", "edi", "di", "dil"},
	[KP_FREG_SP] = {"rsp", "esp", "sp", "spl"},
};

/* C's precedence levels, as far as the printed operators go */
enum prec {
	P_LOW,
	P_AND = 8,
	P_REL = 10,
	P_SHIFT = 11,
	P_ADD = 12,
	P_MUL = 13,
	P_UNARY = 14,
};

struct emit {
	struct kp_fetch *f;
	int depth;
	bool over;
};

static void put(struct emit *s, enum kp_fetch_opcode op, int arg, __s64 imm, int push)
{
	struct kp_fetch_op *o;

	s->depth += push;
	if (s->f->n >= KP_FETCH_OPS || s->depth > KP_FETCH_STACK) {
		s->over = true;
		return;
	}
	o = &s->f->ops[s->f->n++];
	o->op = op;
	o->arg = arg;
	o->imm = imm;
}

/* x + c with a small negative c: read, and written, as x - -c */
static bool minus(const struct lb_expr *e, const struct lb_node *n)
{
	const struct lb_node *b = &e->n[n->b];

	return n->op == LB_ADD && b->op == LB_CONST && b->imm < 0 && b->imm > -NEGATIVE_MAX;
}

static void emit_node(const struct lb_expr *e, int x, struct emit *s)
{
	static const __u8 ops[] = {
		[LB_LOAD] = KP_FOP_LOAD, [LB_ADD] = KP_FOP_ADD, [LB_SUB] = KP_FOP_SUB,
		[LB_MUL] = KP_FOP_MUL,	 [LB_AND] = KP_FOP_AND, [LB_SHR] = KP_FOP_SHR,
		[LB_SAR] = KP_FOP_SAR,	 [LB_SHL] = KP_FOP_SHL, [LB_ZEXT] = KP_FOP_ZEXT,
		[LB_SEXT] = KP_FOP_SEXT,
	};
	const struct lb_node *n = &e->n[x];

	switch (n->op) {
	case LB_REG:
		return put(s, KP_FOP_REG, n->arg, 0, 1);
	case LB_CONST:
		return put(s, KP_FOP_CONST, 0, n->imm, 1);
	case LB_ADD:
	case LB_SUB:
	case LB_MUL:
		emit_node(e, n->a, s);
		if (minus(e, n)) {
			put(s, KP_FOP_CONST, 0, -e->n[n->b].imm, 1);
			return put(s, KP_FOP_SUB, 0, 0, -1);
		}
		emit_node(e, n->b, s);
		return put(s, ops[n->op], 0, 0, -1);
	default:
		emit_node(e, n->a, s);
		return put(s, ops[n->op], n->op == LB_AND ? 0 : n->arg,
			   n->op == LB_AND ? n->imm : 0, 0);
	}
}

int lb_emit(const struct lb_expr *e, int x, struct kp_fetch *out)
{
	struct emit s = {.f = out};

	/* zero padding too: the program is compared and stored whole */
	memset(out, 0, sizeof(*out));
	emit_node(e, x, &s);
	if (s.over) {
		memset(out, 0, sizeof(*out));
		return -E2BIG;
	}
	return 0;
}

/*
 * A name added to or subtracted from is a char *, so that C's arithmetic
 * on it is in bytes as the machine's is: when a pointer, or always in an
 * address, whose terms' types are not all known.
 */
enum cast { CAST_NONE, CAST_POINTER, CAST_ALWAYS };

/* One lb_print() call. */
struct printer {
	const struct lb_expr *e;
	const struct lb_names *nm;
	enum cast cast; /* of the next node printed */
	char *buf;
	size_t len, at;
};

static void out(struct printer *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->at >= p->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(p->buf + p->at, p->len - p->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		p->at += (size_t)n;
}

/*
 * Small numbers in decimal, as C's loops write them, masks and offsets in
 * hex; a large negative one is an address or a mask, unsigned.
 */
static void number(struct printer *p, __s64 v)
{
	__u64 mag = v < 0 ? -(__u64)v : (__u64)v;
	bool neg = v < 0 && mag < NEGATIVE_MAX;

	if (!neg)
		mag = (__u64)v;
	out(p, mag < 10 ? "%s%llu" : "%s%#llx", neg ? "-" : "", (unsigned long long)mag);
}

static int name_of(const struct lb_names *nm, int reg, char *name, size_t len, __u64 *type)
{
	return nm->di ? dwarf_fetch_reg_name(nm->di, nm->pc, reg, name, len, type) : -ENOENT;
}

static void name_out(struct printer *p, bool cast, const char *name)
{
	out(p, "%s%s", cast ? "(char *)" : "", name);
}

static bool is_pointer(struct debuginfo *di, __u64 type)
{
	Dwarf_Die t, peeled;

	return dwarf_offdie(debuginfo_dwarf(di, NULL), type, &t) && !dwarf_peel_type(&t, &peeled) &&
	       dwarf_tag(&peeled) == DW_TAG_pointer_type;
}

/* A register read bits wide: its variable, else its name that wide. */
static void reg(struct printer *p, int r, int bits, enum cast cast)
{
	char name[NAME_LEN];
	__u64 type;
	int w = bits >= 64 ? 0 : bits >= 32 ? 1 : bits >= 16 ? 2 : 3;

	if (name_of(p->nm, r, name, sizeof(name), &type))
		out(p, "%%%s", reg_names[r][w]);
	else
		name_out(p,
			 cast == CAST_ALWAYS ||
				 (cast == CAST_POINTER && type && is_pointer(p->nm->di, type)),
			 name);
}

/* The global variable of bytes bytes at running address addr, from the symbol table. */
static const char *global(const struct lb_names *nm, __u64 addr, int bytes)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	GElf_Off off;
	GElf_Sym sym;
	const char *name;

	if (!nm->di)
		return NULL;
	mod = debuginfo_module(nm->di);
	debuginfo_dwarf(nm->di, &bias);
	name = dwfl_module_addrinfo(mod, addr - nm->slide + bias, &off, &sym, NULL, NULL, NULL);
	return name && !off && GELF_ST_TYPE(sym.st_info) == STT_OBJECT &&
			       sym.st_size == (__u64)bytes
		       ? name
		       : NULL;
}

/*
 * Bits [lo, lo + width) of what the load at the bottom of the chain from x
 * reads make x, the load's address a register plus an offset: 0 with
 * *load set, else -ENOENT.
 */
static int bit_window(const struct lb_expr *e, int x, __u64 *lo, __u64 *width, int *load)
{
	int chain[MAX_CHAIN], n = 0, i, j;
	const struct lb_node *c;
	__u64 m;

	for (; n < MAX_CHAIN && e->n[x].op != LB_LOAD; x = e->n[x].a) {
		if (e->n[x].op != LB_AND && e->n[x].op != LB_SHR && e->n[x].op != LB_ZEXT)
			return -ENOENT;
		chain[n++] = x;
	}
	if (e->n[x].op != LB_LOAD)
		return -ENOENT;
	*load = x;
	*lo = 0;
	*width = e->n[x].arg * 8;
	for (i = n - 1; i >= 0; i--) {
		c = &e->n[chain[i]];
		if (c->op == LB_SHR) {
			*lo += c->arg;
			*width = *width > c->arg ? *width - c->arg : 0;
			continue;
		}
		m = c->op == LB_ZEXT ? (1ull << (c->arg * 8)) - 1 : (__u64)c->imm;
		/* a mask of the bits at t, then a shift by t, selects them as well */
		j = m ? __builtin_ctzll(m) : 0;
		if (j && i > 0 && e->n[chain[i - 1]].op == LB_SHR && e->n[chain[i - 1]].arg == j) {
			*lo += j;
			*width = *width > (__u64)j ? *width - j : 0;
			m >>= j;
			i--;
		} else if (j) {
			return -ENOENT;
		}
		if (m & (m + 1))
			return -ENOENT;
		if (*width > (__u64)__builtin_popcountll(m))
			*width = __builtin_popcountll(m);
	}
	return 0;
}

/* x as "ptr->member" when it reads one through a named struct pointer. */
static bool member(struct printer *p, int x, enum cast cast)
{
	const struct lb_expr *e = p->e;
	char var[NAME_LEN], field[NAME_LEN * 2], ptr[NAME_LEN * 4];
	const struct lb_node *a;
	__u64 lo, width, type;
	__s64 off = 0;
	int load;

	if (!p->nm->di || bit_window(e, x, &lo, &width, &load))
		return false;
	a = &e->n[e->n[load].a];
	if (a->op == LB_ADD && e->n[a->b].op == LB_CONST && e->n[a->a].op == LB_REG) {
		off = e->n[a->b].imm;
		a = &e->n[a->a];
	}
	if (a->op != LB_REG || off < 0 || !width ||
	    name_of(p->nm, a->arg, var, sizeof(var), &type) || !type ||
	    dwarf_fetch_member(p->nm->di, type, (__u64)off * 8 + lo, width, field, sizeof(field)))
		return false;
	snprintf(ptr, sizeof(ptr), "%s->%s", var, field);
	name_out(p, cast == CAST_ALWAYS, ptr);
	return true;
}

static void node(struct printer *p, int x, int prec);

static void binary(struct printer *p, const struct lb_node *n, const char *op, int prec, int outer,
		   enum cast terms)
{
	if (prec < outer)
		out(p, "(");
	p->cast = terms;
	node(p, n->a, prec);
	if (minus(p->e, n)) {
		out(p, " - ");
		number(p, -p->e->n[n->b].imm);
	} else {
		out(p, " %s ", op);
		p->cast = terms;
		node(p, n->b, prec + 1);
	}
	if (prec < outer)
		out(p, ")");
}

static void load(struct printer *p, const struct lb_node *n, enum cast cast)
{
	const struct lb_node *a = &p->e->n[n->a];
	const char *name = a->op == LB_CONST ? global(p->nm, a->imm, n->arg) : NULL;

	if (name)
		return name_out(p, cast == CAST_ALWAYS, name);
	out(p, "*(u%d *)(", n->arg * 8);
	/* a lone term is the pointer itself */
	p->cast = a->op == LB_ADD ? CAST_ALWAYS : CAST_NONE;
	node(p, n->a, P_LOW);
	out(p, ")");
}

static void bitwise(struct printer *p, const struct lb_node *n, int prec)
{
	if (n->op == LB_AND) {
		if (P_AND < prec)
			out(p, "(");
		node(p, n->a, P_AND);
		out(p, " & %#llx", (unsigned long long)n->imm);
		if (P_AND < prec)
			out(p, ")");
		return;
	}
	if (P_SHIFT < prec)
		out(p, "(");
	node(p, n->a, P_SHIFT);
	out(p, " %s %d", n->op == LB_SHL ? "<<" : ">>", n->arg);
	if (P_SHIFT < prec)
		out(p, ")");
}

static void node(struct printer *p, int x, int prec)
{
	const struct lb_node *n = &p->e->n[x];
	enum cast cast = p->cast, terms = cast == CAST_ALWAYS ? CAST_ALWAYS : CAST_POINTER;

	p->cast = CAST_NONE;
	if (member(p, x, cast))
		return;
	switch (n->op) {
	case LB_REG:
		return reg(p, n->arg, 64, cast);
	case LB_CONST:
		return number(p, n->imm);
	case LB_LOAD:
		return load(p, n, cast);
	case LB_ADD:
		return binary(p, n, "+", P_ADD, prec, terms);
	case LB_SUB:
		return binary(p, n, "-", P_ADD, prec, terms);
	case LB_MUL:
		return binary(p, n, "*", P_MUL, prec, CAST_NONE);
	case LB_ZEXT:
	case LB_SEXT:
		if (p->e->n[n->a].op == LB_REG)
			return reg(p, p->e->n[n->a].arg, n->arg * 8, cast);
		out(p, "(%c%d)", n->op == LB_SEXT ? 's' : 'u', n->arg * 8);
		return node(p, n->a, P_UNARY);
	default:
		return bitwise(p, n, prec);
	}
}

void lb_print(const struct lb_expr *e, int x, const struct lb_names *nm, bool operand, char *buf,
	      size_t len)
{
	struct printer p = {.e = e, .nm = nm, .buf = buf, .len = len};
	const struct lb_node *n = &e->n[x];

	buf[0] = '\0';
	if (member(&p, x, CAST_NONE))
		return;
	/* the compare's width is the C type's: a cut at the top goes without saying */
	if ((n->op == LB_ZEXT || n->op == LB_SEXT) && e->n[n->a].op != LB_REG)
		x = n->a;
	node(&p, x, operand ? P_REL + 1 : P_LOW);
}

int lb_reg_text(struct debuginfo *di, __u64 pc, int reg, const char *asm_name, char *buf,
		size_t len)
{
	struct lb_names nm = {.di = di, .pc = pc};
	__u64 type;

	if (!name_of(&nm, reg, buf, len, &type))
		return 0;
	snprintf(buf, len, "%%%s", asm_name);
	return -ENOENT;
}

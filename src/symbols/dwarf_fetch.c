/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Variables at an address, from the kernel's DWARF: which ones a probe
 * there can read (a location that is a register, or memory at a register
 * plus an offset) and which one a register holds, and the struct members
 * that loads through a pointer read.
 *
 * The scopes searched are those the code at pc runs in, innermost first:
 * lexical blocks and inline instances out to the out-of-line function, so
 * that an inlined function's parameters come before its caller's.
 * dwarf_getscopes() alone would go on from the innermost instance into its
 * abstract definition rather than into its caller, so the concrete chain is
 * taken from its innermost scope with dwarf_getscopes_die().
 *
 * A location with a frame base or an entry value is none here: the probe
 * has the registers of the moment only, not the frame base's expression
 * nor the values at the function's entry.
 */
#include "symbols/dwarf_fetch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "symbols/debuginfo.h"

/* anonymous members nest a few deep; more is a corrupt file */
#define MAX_NESTING 8
#define MEMBER_NAME 128

/* x86_64 DWARF register numbers 0..15 (psABI) as pt_regs slots */
static const __u8 dwarf_regs[16] = {
	KP_FREG_AX,  KP_FREG_DX,  KP_FREG_CX,  KP_FREG_BX,  KP_FREG_SI,	 KP_FREG_DI,
	KP_FREG_BP,  KP_FREG_SP,  KP_FREG_R8,  KP_FREG_R9,  KP_FREG_R10, KP_FREG_R11,
	KP_FREG_R12, KP_FREG_R13, KP_FREG_R14, KP_FREG_R15,
};

/* A variable in scope at pc and its location there, for each_var()'s callbacks. */
struct var_at {
	Dwarf_Die *die;
	const Dwarf_Op *ops;
	size_t n;
};

static int kp_reg(Dwarf_Word dw)
{
	return dw < sizeof(dwarf_regs) ? dwarf_regs[dw] : -1;
}

/* The register DW_OP_regN or DW_OP_regx names, as pt_regs slot; -1 for other operations. */
static int op_reg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return kp_reg(op->atom - DW_OP_reg0);
	return op->atom == DW_OP_regx ? kp_reg(op->number) : -1;
}

/* The register of DW_OP_bregN or DW_OP_bregx and its offset; -1 for other operations. */
static int op_breg(const Dwarf_Op *op, __s64 *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*off = (__s64)op->number;
		return kp_reg(op->atom - DW_OP_breg0);
	}
	if (op->atom != DW_OP_bregx)
		return -1;
	*off = (__s64)op->number2;
	return kp_reg(op->number);
}

/* Its type, typedefs and qualifiers looked through; false when it has none. */
static bool peeled_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	return dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), &t) &&
	       !dwarf_peel_type(&t, out);
}

/* The struct, union or class a pointer type points to. */
static bool pointee(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die t;
	int tag;

	if (dwarf_peel_type(type, &t) || dwarf_tag(&t) != DW_TAG_pointer_type ||
	    !peeled_type(&t, out))
		return false;
	tag = dwarf_tag(out);
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

/*
 * The location's operations without a final DW_OP_piece that covers the
 * whole variable: one piece is the variable itself; 0 when it holds part.
 */
static size_t whole(Dwarf_Die *var, const Dwarf_Op *ops, size_t n)
{
	Dwarf_Word size;
	Dwarf_Die t;

	if (n < 2 || ops[n - 1].atom != DW_OP_piece)
		return n;
	if (n != 2 || !peeled_type(var, &t) || dwarf_aggregate_size(&t, &size) ||
	    size != ops[1].number)
		return 0;
	return 1;
}

/* Its location at pc (a location list's entry there), the piece of a whole taken off. */
static bool location_at(Dwarf_Die *var, __u64 pc, struct var_at *v)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &n, 1) != 1)
		return false;
	*v = (struct var_at){var, ops, whole(var, ops, n)};
	return v->n > 0;
}

/* The concrete scopes holding pc, innermost first, the unit last. */
static int scopes_at(struct debuginfo *di, __u64 pc, Dwarf_Die **out)
{
	Dwarf_Die cu, *inner = NULL;
	int n;

	*out = NULL;
	if (!dwarf_addrdie(debuginfo_dwarf(di, NULL), pc, &cu) ||
	    dwarf_getscopes(&cu, pc, &inner) <= 0) {
		free(inner);
		return -ENODATA;
	}
	n = dwarf_getscopes_die(&inner[0], out);
	free(inner);
	return n > 0 ? n : -ENODATA;
}

/*
 * fn on each variable and parameter in scope at pc that has a location
 * there, innermost scope first, until it returns true: 0 then, -ENOENT
 * when it never does, -ENODATA when no scope holds pc.
 */
static int each_var(struct debuginfo *di, __u64 pc, bool (*fn)(struct var_at *v, void *arg),
		    void *arg)
{
	Dwarf_Die *scopes, var;
	struct var_at v;
	int n, i, tag, err = -ENOENT;

	n = scopes_at(di, pc, &scopes);
	if (n < 0)
		return n;
	/* the last is the unit, whose variables live at fixed addresses, never in registers */
	for (i = 0; err && i < n - 1; i++) {
		if (dwarf_child(&scopes[i], &var))
			continue;
		do {
			tag = dwarf_tag(&var);
			if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
			    location_at(&var, pc, &v) && fn(&v, arg)) {
				err = 0;
				break;
			}
		} while (!dwarf_siblingof(&var, &var));
	}
	free(scopes);
	return err;
}

struct pointer_query {
	const char *type_name;
	struct kp_fetch *out;
	Dwarf_Die found;
};

/* Appends an op to a program whose padding is zero, as the maps it goes into compare it. */
static void put(struct kp_fetch *f, enum kp_fetch_opcode op, int arg, __s64 imm)
{
	struct kp_fetch_op *o = &f->ops[f->n++];

	o->op = op;
	o->arg = arg;
	o->imm = imm;
}

/* A pointer to struct type_name whose location a probe reads: into q->out. */
static bool is_pointer_to(struct var_at *v, void *arg)
{
	struct pointer_query *q = arg;
	const char *name;
	Dwarf_Die t, agg;
	__s64 off;
	int reg;

	if (!peeled_type(v->die, &t) || !pointee(&t, &agg))
		return false;
	name = dwarf_diename(&agg);
	if (!name || strcmp(name, q->type_name) || v->n != 1)
		return false;
	reg = op_reg(&v->ops[0]);
	if (reg >= 0) {
		memset(q->out, 0, sizeof(*q->out));
		put(q->out, KP_FOP_REG, reg, 0);
	} else {
		reg = op_breg(&v->ops[0], &off);
		if (reg < 0)
			return false;
		/* the pointer is in memory at the register plus the offset */
		memset(q->out, 0, sizeof(*q->out));
		put(q->out, KP_FOP_REG, reg, 0);
		put(q->out, KP_FOP_CONST, 0, off);
		put(q->out, KP_FOP_ADD, 0, 0);
		put(q->out, KP_FOP_LOAD, 8, 0);
	}
	q->found = *v->die;
	return true;
}

int dwarf_fetch_pointer_to(struct debuginfo *di, __u64 pc, const char *type_name,
			   struct kp_fetch *out, char *name, size_t len)
{
	struct pointer_query q = {.type_name = type_name, .out = out};
	int err = each_var(di, pc, is_pointer_to, &q);

	if (!err)
		snprintf(name, len, "%s", debuginfo_die_name(&q.found) ?: "");
	return err;
}

struct reg_query {
	int reg;
	Dwarf_Die found;
};

static bool is_in_reg(struct var_at *v, void *arg)
{
	struct reg_query *q = arg;

	if (v->n != 1 || op_reg(&v->ops[0]) != q->reg || !debuginfo_die_name(v->die))
		return false;
	q->found = *v->die;
	return true;
}

int dwarf_fetch_reg_name(struct debuginfo *di, __u64 pc, int reg, char *name, size_t len,
			 __u64 *type_die)
{
	struct reg_query q = {.reg = reg};
	Dwarf_Attribute attr;
	Dwarf_Die t;
	int err = each_var(di, pc, is_in_reg, &q);

	if (err)
		return err == -ENODATA ? -ENOENT : err;
	snprintf(name, len, "%s", debuginfo_die_name(&q.found));
	*type_die = 0;
	if (dwarf_formref_die(dwarf_attr_integrate(&q.found, DW_AT_type, &attr), &t))
		*type_die = dwarf_dieoffset(&t);
	return 0;
}

int dwarf_member_bits(Dwarf_Die *m, Dwarf_Die *type, __u64 *start, __u64 *unit, __u64 *bits)
{
	Dwarf_Word w, from_top, u;
	Dwarf_Attribute attr;

	*start = 0;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &attr)) {
		if (dwarf_formudata(&attr, &w))
			return -ENOENT;
		*start = w;
	} else if (dwarf_attr(m, DW_AT_data_member_location, &attr)) {
		/* a location expression, as for a virtual base, is no fixed offset */
		if (dwarf_formudata(&attr, &w))
			return -ENOENT;
		*start = w * 8;
	}
	if (dwarf_aggregate_size(type, &u))
		u = 0; /* a flexible array member */
	*unit = u;
	*bits = 0;
	if (dwarf_formudata(dwarf_attr(m, DW_AT_bit_size, &attr), &w))
		return 0;
	*bits = w;
	if (!dwarf_formudata(dwarf_attr(m, DW_AT_bit_offset, &attr), &from_top)) {
		dwarf_formudata(dwarf_attr(m, DW_AT_byte_size, &attr), &u);
		*start += u * 8 - from_top - w;
	}
	return 0;
}

/* Where member m lies in its struct, in bits; -ENOENT when its type has no size. */
static int member_bits(Dwarf_Die *m, __u64 *start, __u64 *size)
{
	__u64 unit, bits;
	Dwarf_Die t;

	if (!peeled_type(m, &t) || dwarf_member_bits(m, &t, start, &unit, &bits) || !unit)
		return -ENOENT;
	*size = bits ? bits : unit * 8;
	return 0;
}

static bool is_aggregate(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

/*
 * The member of agg covering bits [bit, bit + bits) (bits 0: starting at
 * bit), searched into nested aggregates first so that a scalar is named
 * rather than the struct holding it; the aggregate itself when it fits
 * and nothing in it does.
 */
static int find_member(Dwarf_Die *agg, __u64 bit, __u64 bits, char *name, size_t len, int depth)
{
	char inner[MEMBER_NAME];
	const char *mname;
	__u64 start, size;
	Dwarf_Die m, t;

	if (depth > MAX_NESTING || dwarf_child(agg, &m))
		return -ENOENT;
	do {
		if (dwarf_tag(&m) != DW_TAG_member || member_bits(&m, &start, &size) ||
		    bit < start || bit + (bits ? bits : 1) > start + size)
			continue;
		mname = dwarf_diename(&m);
		if (peeled_type(&m, &t) && is_aggregate(&t) &&
		    !find_member(&t, bit - start, bits, inner, sizeof(inner), depth + 1)) {
			/* an anonymous struct or union's members are named as the outer one's */
			if (mname)
				snprintf(name, len, "%s.%s", mname, inner);
			else
				snprintf(name, len, "%s", inner);
			return 0;
		}
		if (mname && bit == start && (!bits || bits == size)) {
			snprintf(name, len, "%s", mname);
			return 0;
		}
	} while (!dwarf_siblingof(&m, &m));
	return -ENOENT;
}

int dwarf_fetch_member(struct debuginfo *di, __u64 type_die, __u64 bit, __u64 bits, char *name,
		       size_t len)
{
	Dwarf_Die t, agg;

	if (!dwarf_offdie(debuginfo_dwarf(di, NULL), type_die, &t) || !pointee(&t, &agg))
		return -ENOENT;
	return find_member(&agg, bit, bits, name, len, 0);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function's variables by where they are: its DIE tree walked once, the
 * first time one of its PCs is resolved (lexical blocks and inlined
 * instances included: their concrete variables carry the locations), each
 * location list entry that is a register, a register plus a constant, or
 * memory at the frame base or a register plus an offset kept as a range.
 * What holds at a PC is then a scan of that one function's list.
 */
#include "datatype/dtype_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "util/array.h"

static bool is_breg(unsigned int atom)
{
	return atom >= DW_OP_breg0 && atom <= DW_OP_breg16;
}

/* ops as one of the kinds kept; false for anything else (pieces, entry values, ...). */
static bool classify(const Dwarf_Op *ops, size_t n, struct dt_loc *l)
{
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg16) {
		l->kind = DT_LOC_REG;
		l->reg = ops[0].atom - DW_OP_reg0;
	} else if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number < DT_NREGS) {
		l->kind = DT_LOC_REG;
		l->reg = ops[0].number;
	} else if (n == 2 && is_breg(ops[0].atom) && ops[1].atom == DW_OP_stack_value) {
		/* an address in the frame is no pointer %rbp or %rsp holds, but what is there */
		l->kind = ops[0].atom == DW_OP_breg6 || ops[0].atom == DW_OP_breg7 ? DT_LOC_BREGVAL
										   : DT_LOC_REGVAL;
		l->reg = ops[0].atom - DW_OP_breg0;
		l->off = (__s64)ops[0].number;
	} else if (n == 2 && ops[0].atom == DW_OP_fbreg && ops[1].atom == DW_OP_stack_value) {
		l->kind = DT_LOC_FBVAL;
		l->off = (__s64)ops[0].number;
	} else if (n == 1 && ops[0].atom == DW_OP_fbreg) {
		l->kind = DT_LOC_FBREG;
		l->off = (__s64)ops[0].number;
	} else if (n == 1 && is_breg(ops[0].atom)) {
		l->kind = DT_LOC_BREG;
		l->reg = ops[0].atom - DW_OP_breg0;
		l->off = (__s64)ops[0].number;
	} else {
		return false;
	}
	return true;
}

static int add_loc(struct dt_func *fn, const struct dt_loc *l)
{
	if (array_reserve((void **)&fn->locs, &fn->cap, fn->nlocs + 1, sizeof(*fn->locs)))
		return -ENOMEM;
	fn->locs[fn->nlocs++] = *l;
	return 0;
}

/* The locations of the variable die, in scope: a single one holds over the scope. */
static int take_var(struct dtype_file *f, struct dt_func *fn, Dwarf_Die *die, Dwarf_Die *scope)
{
	Dwarf_Attribute attr, tattr;
	Dwarf_Addr base, lo, hi;
	struct dt_loc l = {0};
	ptrdiff_t off = 0;
	Dwarf_Die t;
	Dwarf_Op *ops;
	size_t n;
	int err = 0;

	if (!dwarf_attr(die, DW_AT_location, &attr) ||
	    !dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &tattr), &t))
		return 0;
	l.type = dwarf_dieoffset(&t);
	l.name = dt_intern(f, dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &tattr))
				      ?: "(anon)");
	if (dwarf_whatform(&attr) == DW_FORM_exprloc || dwarf_whatform(&attr) == DW_FORM_block1) {
		if (dwarf_getlocation(&attr, &ops, &n) == 0 && classify(ops, n, &l)) {
			l.lo = 0;
			l.hi = ~0ULL;
			l.scope = dwarf_dieoffset(scope);
			err = add_loc(fn, &l);
		}
		return err;
	}
	while (!err && (off = dwarf_getlocations(&attr, off, &base, &lo, &hi, &ops, &n)) > 0) {
		if (!classify(ops, n, &l))
			continue;
		l.lo = lo;
		l.hi = hi;
		err = add_loc(fn, &l);
	}
	return err;
}

/*
 * An inlined helper that returns a pointer to a record: its ranges, where a mask of an encoded
 * pointer (mte_to_node's `& ~MAPLE_NODE_MASK`) makes that pointer (dtype_flow.c)
 */
static int take_ret(struct dtype_file *f, struct dt_func *fn, Dwarf_Die *in)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Attribute a;
	ptrdiff_t off = 0;
	Dwarf_Die t, p;

	if (!dwarf_formref_die(dwarf_attr_integrate(in, DW_AT_type, &a), &t) ||
	    !dt_peel(f->dw, dt_pointee(f->dw, dwarf_dieoffset(&t)), &p) ||
	    (dwarf_tag(&p) != DW_TAG_structure_type && dwarf_tag(&p) != DW_TAG_union_type) ||
	    !dt_type_size(f->dw, dwarf_dieoffset(&p)))
		return 0;
	while ((off = dwarf_ranges(in, off, &base, &lo, &hi)) > 0) {
		if (array_reserve((void **)&fn->rets, &fn->rcap, fn->nrets + 1, sizeof(*fn->rets)))
			return -ENOMEM;
		fn->rets[fn->nrets++] = (struct dt_ret){lo, hi, dwarf_dieoffset(&t)};
	}
	return 0;
}

Dwarf_Off dt_inline_ret(const struct dt_func *fn, __u64 pc)
{
	const struct dt_ret *best = NULL;
	size_t i;

	for (i = 0; i < fn->nrets; i++)
		if (pc >= fn->rets[i].lo && pc < fn->rets[i].hi &&
		    (!best || fn->rets[i].hi - fn->rets[i].lo < best->hi - best->lo))
			best = &fn->rets[i];
	return best ? best->type : 0;
}

static int walk(struct dtype_file *f, struct dt_func *fn, Dwarf_Die *scope, int depth)
{
	Dwarf_Die c;
	int tag, err = 0;

	if (depth > 64 || dwarf_child(scope, &c) != 0)
		return 0;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter)
			err = take_var(f, fn, &c, scope);
		else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine)
			err = (tag == DW_TAG_inlined_subroutine ? take_ret(f, fn, &c) : 0)
				      ?: walk(f, fn, &c, depth + 1);
	} while (!err && dwarf_siblingof(&c, &c) == 0);
	return err;
}

/* The out-of-line function's DIE holding addr, among its unit's children. */
/* A unit's functions by address: each range of each DW_TAG_subprogram, sorted by lo. */
struct dt_subs {
	struct dt_sub {
		__u64 lo, hi;
		Dwarf_Off die;
	} * v;
	size_t n, cap;
};

static int by_sub(const void *a, const void *b)
{
	const struct dt_sub *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The unit cu's functions' ranges, read once: a walk of its top level is thousands of DIEs. */
static struct dt_subs *subs_of(struct dtype_file *f, Dwarf_Die *cu)
{
	struct dt_subs *s;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off;
	Dwarf_Die d;
	bool found;

	s = dt_cache_get(&f->subs, dwarf_dieoffset(cu), &found);
	if (found || !(s = calloc(1, sizeof(*s))))
		return s;
	if (dwarf_child(cu, &d) == 0) {
		do {
			if (dwarf_tag(&d) != DW_TAG_subprogram)
				continue;
			for (off = 0; (off = dwarf_ranges(&d, off, &base, &lo, &hi)) > 0;) {
				if (array_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
					break;
				s->v[s->n++] = (struct dt_sub){lo, hi, dwarf_dieoffset(&d)};
			}
		} while (dwarf_siblingof(&d, &d) == 0);
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), by_sub);
	if (dt_cache_put(&f->subs, dwarf_dieoffset(cu), s)) {
		dt_subs_free(s);
		return NULL;
	}
	return s;
}

void dt_subs_free(void *p)
{
	struct dt_subs *s = p;

	if (s)
		free(s->v);
	free(s);
}

static bool subprogram_at(struct dtype_file *f, __u64 addr, Dwarf_Die *out)
{
	struct dt_subs *s;
	Dwarf_Die cu;
	size_t lo = 0, hi, mid;

	if (!dwarf_addrdie(f->dw, addr, &cu) || !(s = subs_of(f, &cu)))
		return false;
	for (hi = s->n; lo < hi;) { /* the last range starting at or before addr */
		mid = lo + (hi - lo) / 2;
		if (s->v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < s->v[lo - 1].hi && dwarf_offdie(f->dw, s->v[lo - 1].die, out);
}

static int by_lo(const void *a, const void *b)
{
	const struct dt_loc *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int dt_func_index(struct dtype_file *f, struct dt_func *fn)
{
	Dwarf_Attribute attr;
	Dwarf_Die sub, cu;
	Dwarf_Op *ops;
	size_t n;
	int err;

	if (!subprogram_at(f, fn->addr, &sub))
		return 0; /* no DWARF for it: its accesses go by flow and address only */
	/* gas describes an assembly function too, but never what its registers hold */
	fn->dwarf =
		!dwarf_diecu(&sub, &cu, NULL, NULL) || dwarf_srclang(&cu) != DW_LANG_Mips_Assembler;
	fn->cfa_frame = dwarf_attr(&sub, DW_AT_frame_base, &attr) &&
			dwarf_getlocation(&attr, &ops, &n) == 0 && n == 1 &&
			ops[0].atom == DW_OP_call_frame_cfa;
	err = walk(f, fn, &sub, 0);
	if (!err && fn->nlocs)
		qsort(fn->locs, fn->nlocs, sizeof(*fn->locs), by_lo);
	return err;
}

static bool holds(struct dtype_file *f, const struct dt_loc *l, __u64 pc)
{
	Dwarf_Die scope;

	if (pc < l->lo || pc >= l->hi)
		return false;
	return !l->scope || (dwarf_offdie(f->dw, l->scope, &scope) && dwarf_haspc(&scope, pc) > 0);
}

bool dt_loc_reg(struct dtype_file *f, const struct dt_func *fn, __u64 pc, int reg,
		struct dt_reg *out)
{
	const struct dt_loc *l;
	bool found = false;
	Dwarf_Off t;
	size_t i;

	for (i = 0; i < fn->nlocs; i++) {
		l = &fn->locs[i];
		if ((l->kind != DT_LOC_REG && l->kind != DT_LOC_REGVAL) || l->reg != reg ||
		    !holds(f, l, pc))
			continue;
		t = dt_pointee(f->dw, l->type);
		if (!found || t) {
			*out = (struct dt_reg){t,	l->kind == DT_LOC_REGVAL ? -l->off : 0,
					       false,	DT_REGISTER,
					       l->name, l->kind == DT_LOC_REG ? l->type : 0};
			out->cpu_off = false;
			out->id = l->lo << 5 | (__u64)reg | 1ULL << 62;
			found = true;
		}
		if (t)
			return true;
	}
	if (found)
		out->type = 0; /* a variable that is no pointer: named for the reason */
	return found;
}

const char *dt_page_var(struct dtype_file *f, const struct dt_func *fn, __u64 pc)
{
	const char *name = NULL, *type = NULL, *t;
	const struct dt_loc *l;
	size_t i;

	for (i = 0; i < fn->nlocs; i++) {
		l = &fn->locs[i];
		if (!l->name || !holds(f, l, pc) || !dt_pointee(f->dw, l->type))
			continue;
		t = dt_type_name(f, dt_pointee(f->dw, l->type));
		if (!t || (strcmp(t, "struct page") && strcmp(t, "struct folio")))
			continue;
		if (name && strcmp(name, l->name))
			return NULL; /* two: which one the buffer is, the code does not say */
		name = l->name;
		type = t;
	}
	return name ? dt_internf(f, "%s *%s", type, name) : NULL;
}

void dt_loc_fill(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs)
{
	const struct dt_loc *l;
	struct dt_reg *r;
	Dwarf_Off t;
	size_t i;

	for (i = 0; i < fn->nlocs && fn->locs[i].lo <= pc; i++) { /* sorted by lo */
		l = &fn->locs[i];
		if ((l->kind != DT_LOC_REG && l->kind != DT_LOC_REGVAL) || pc >= l->hi || l->scope)
			continue; /* a single location's scope is left to dt_loc_reg() */
		r = &regs->r[l->reg];
		if (r->type || r->in_frame || r->konst || r->cpu_off)
			continue;
		t = dt_pointee(f->dw, l->type);
		if (t)
			*r = (struct dt_reg){.type = t,
					     .off = l->kind == DT_LOC_REGVAL ? -l->off : 0,
					     .how = DT_FLOW,
					     .name = l->name,
					     .vtype = l->kind == DT_LOC_REG ? l->type : 0,
					     .id = l->lo << 5 | (__u64)l->reg | 1ULL << 62};
	}
}

Dwarf_Off dt_callee_type(struct dtype_file *f, __u64 addr)
{
	Dwarf_Attribute attr;
	Dwarf_Addr lo;
	Dwarf_Die sub, t;
	Dwarf_Off type = 0;
	bool found;
	void *v = dt_cache_get(&f->callees, addr, &found);

	if (found)
		return (Dwarf_Off)(uintptr_t)v;
	if (subprogram_at(f, addr, &sub) && dwarf_lowpc(&sub, &lo) == 0 && lo == addr &&
	    dwarf_formref_die(dwarf_attr_integrate(&sub, DW_AT_type, &attr), &t))
		type = dwarf_dieoffset(&t);
	dt_cache_put(&f->callees, addr, (void *)(uintptr_t)type);
	return type;
}

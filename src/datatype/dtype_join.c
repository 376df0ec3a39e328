// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a register holds when it may hold one of two values (the ways into
 * a block, a cmov), for the register flow (dtype_flow.c): what both hold,
 * of one origin only when both are; a pointer against NULL is the pointer;
 * two ways into one array member are a pointer into some element of it.
 */
#include "datatype/dtype_int.h"

/* Whether a points into an object at a t. */
bool dt_within(struct dtype_file *f, const struct dt_reg *a, Dwarf_Off t)
{
	return a->type && t && dt_holds(f, a->type, a->off, t);
}

/* r as a pointer to some element of the array member (of esize) at moffset. */
void dt_into_array(struct dt_reg *r, __u64 esize, __u64 moffset)
{
	r->off = (r->off - (__s64)moffset) % (__s64)esize;
	r->off += (__s64)moffset + (r->off < 0 ? (__s64)esize : 0);
	r->arr = true;
	r->vtype = 0;
}

/* Whether r holds the number 0: NULL, when it is a pointer. */
static bool null(const struct dt_reg *r)
{
	return r->konst && !r->k && !r->type && !r->in_frame && !r->cpu_off;
}

bool dt_same_reg(const struct dt_reg *a, const struct dt_reg *b)
{
	return a->type == b->type && a->off == b->off && a->cpu_off == b->cpu_off &&
	       a->vtype == b->vtype && a->in_frame == b->in_frame && a->konst == b->konst &&
	       a->k == b->k && a->arr == b->arr && a->global == b->global;
}

/* Whether the types a and b are one, as two units may describe it. */
bool dt_one_type(struct dtype_file *f, Dwarf_Off a, Dwarf_Off b)
{
	return a && b && (a == b || (dt_holds(f, a, 0, b) && dt_holds(f, b, 0, a)));
}

/* Whether a and b point at one offset of one type. */
static bool equal(struct dtype_file *f, const struct dt_reg *a, const struct dt_reg *b)
{
	return a->off == b->off && a->arr == b->arr && dt_one_type(f, a->type, b->type);
}

/*
 * Whether a and b point into one array member of one object, each at an element (a loop's
 * pointer on its way in and around): into *out, as a pointer to some element of it.
 */
static bool one_array(struct dtype_file *f, const struct dt_reg *a, const struct dt_reg *b,
		      struct dt_reg *out)
{
	__u64 ea, eb, ma, mb;

	if ((dt_same_reg(a, b) && !a->arr) || !dt_one_type(f, a->type, b->type))
		return false;
	ea = dt_array_at(f, a->type, a->off, &ma);
	eb = dt_array_at(f, b->type, b->off, &mb);
	/*
	 * Exact pointers an element apart: a loop's p++ (two constants further apart are more
	 * likely two members: a union's alternatives, which the first one's array may cover)
	 */
	if (!ea || ea != eb || ma != mb || (a->off - b->off) % (__s64)ea ||
	    (!a->arr && !b->arr && a->off - b->off != (__s64)ea && b->off - a->off != (__s64)ea))
		return false;
	*out = *a;
	out->id = a->id == b->id ? a->id : 0;
	dt_into_array(out, ea, ma);
	return true;
}

/*
 * r as a pointer to a member of some element of the array variable it points into (its
 * address from a lea or mov $SYM, exact): false when it is no such pointer.
 */
static bool var_element(struct dtype_file *f, const struct dt_reg *r, struct dt_reg *out)
{
	Dwarf_Off et;
	__u64 es;

	if (!r->type || r->arr || r->in_frame || r->off < 0 || !(r->id >> 63))
		return false;
	es = dt_array_elem(f, r->type, &et);
	if (!es)
		return false;
	*out = *r;
	out->type = et;
	out->off = r->off % (__s64)es;
	out->vtype = 0;
	out->id = 0; /* no difference of two pointers is taken from it */
	out->global = 0;
	return true;
}

/*
 * Whether a and b point at one member of elements of one array variable, on the ways around a
 * loop over a global array of structs (`for (p = recs; ...; p += 4) p->cold = ...`): into *out,
 * as a pointer to that member of the element type.  (Two that agree exactly are the same
 * pointer, which dt_either() keeps as it is.)
 */
static bool var_elements(struct dtype_file *f, const struct dt_reg *a, const struct dt_reg *b,
			 struct dt_reg *out)
{
	struct dt_reg ea, eb;
	bool va = var_element(f, a, &ea), vb = var_element(f, b, &eb);

	if (!va && !vb)
		return false;
	if (va && vb && a->id != b->id)
		return false; /* two variables */
	if (!va)
		ea = *a;
	if (!vb)
		eb = *b;
	if (ea.arr || eb.arr || !equal(f, &ea, &eb))
		return false;
	*out = ea;
	out->id = 0;
	out->vtype = 0;
	return true;
}

/*
 * What a register holds when it may hold a or b (ways into a block, a cmov): what both hold,
 * of one origin only when both are; a pointer against NULL is the pointer, as an access through
 * the register on NULL's way would fault (the ternary `p ? p->x : NULL`, a NULL array); a
 * pointer into an object against a pointer to what the object holds there is the latter.
 */
/*
 * Two ways into different places of one type of object, where a variable says what one (or
 * both, the same) points to (its hint): what the variable says, as before the flow kept the
 * objects; else nothing known
 */
static struct dt_reg hinted(struct dtype_file *f, const struct dt_reg *a, const struct dt_reg *b)
{
	Dwarf_Off h = a->hint ?: b->hint;
	struct dt_reg out = {.how = DT_FLOW};

	if (h && (!a->hint || !b->hint || a->hint == b->hint) && dt_one_type(f, a->type, b->type)) {
		out.type = h;
		out.hint = h;
	}
	return out;
}

struct dt_reg dt_either(struct dtype_file *f, const struct dt_reg *a, const struct dt_reg *b)
{
	struct dt_reg out = *a;

	if (null(a) && b->type)
		return *b;
	if (null(b) && a->type)
		return *a;
	if (one_array(f, a, b, &out))
		return out;
	if (dt_same_reg(a, b) || equal(f, a, b)) {
		out.vtype = a->vtype == b->vtype ? a->vtype : 0;
		out.id = a->id == b->id ? a->id : 0; /* the same type from two origins */
		out.global = a->global == b->global ? a->global : 0;
		out.hint = a->hint == b->hint ? a->hint : 0;
		return out;
	}
	if (!b->off && dt_within(f, a, b->type))
		out = *b;
	else if (a->off || !dt_within(f, b, a->type))
		return var_elements(f, a, b, &out) ? out : hinted(f, a, b);
	out.id = 0;
	out.global = 0;
	return out;
}

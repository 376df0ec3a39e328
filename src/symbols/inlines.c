/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finding the inlined instances of a function in the DWARF: each one's
 * parent, call site, ranges and entry pc (inline_exits.c finds its exits).
 *
 * A vmlinux has ~170 MB of .debug_info, and walking every DIE takes seconds,
 * so only the units defining the function at top level (found from each
 * unit's top-level DIEs alone) are walked into (an LTO build may expand it
 * in other units; those instances are not seen).  The parent of an instance
 * is the outermost concrete DW_TAG_subprogram, however deep the chain of
 * inline expansions between them; its DWARF ranges include its .cold part.
 */
#include "symbols/inlines.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "symbols/debuginfo.h"
#include "util/array.h"

#define MAX_ORIGIN_HOPS 8

/* One inlines_find() call. */
struct find_ctx {
	const char *name;
	bool defined;
	Dwarf_Off *origins; /* abstract instance roots of name in the unit being read */
	size_t norigins, ocap;
	struct inline_instance *v;
	size_t n, cap;
};

/* The outermost function being walked, shared by the instances found in it. */
struct parent {
	Dwarf_Die die;
	const char *name;
	struct inline_range *ranges; /* filled when its first instance is found */
	size_t nranges;
	__u64 lo;
};

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* The abstract subprogram die stands for; nested DIEs may point at an abstract tree's DIE first. */
static bool origin_offset(Dwarf_Die *die, Dwarf_Off *off)
{
	Dwarf_Attribute attr;
	Dwarf_Die o = *die;
	int hops;

	/* bounded, since a corrupt file could make the chain a loop */
	for (hops = 0; hops < MAX_ORIGIN_HOPS; hops++) {
		if (!dwarf_attr(&o, DW_AT_abstract_origin, &attr) || !dwarf_formref_die(&attr, &o))
			return false;
		if (dwarf_tag(&o) == DW_TAG_subprogram) {
			*off = dwarf_dieoffset(&o);
			return true;
		}
	}
	return false;
}

static bool is_instance(const struct find_ctx *c, Dwarf_Die *die)
{
	Dwarf_Off off;
	size_t i;

	if (dwarf_tag(die) != DW_TAG_inlined_subroutine || !origin_offset(die, &off))
		return false;
	for (i = 0; i < c->norigins; i++) {
		if (c->origins[i] == off)
			return true;
	}
	return false;
}

/* The unit's top-level definitions of c->name that instances refer to. */
static int scan_definitions(struct find_ctx *c, Dwarf_Die *cu)
{
	const char *name;
	Dwarf_Die die;
	int err;

	c->norigins = 0;
	if (dwarf_child(cu, &die))
		return 0;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram)
			continue;
		name = dwarf_diename(&die);
		if (!name || strcmp(name, c->name) || dwarf_hasattr(&die, DW_AT_declaration))
			continue;
		c->defined = true;
		if (!dwarf_hasattr(&die, DW_AT_inline))
			continue;
		err = array_reserve((void **)&c->origins, &c->ocap, c->norigins + 1,
				    sizeof(*c->origins));
		if (err)
			return err;
		c->origins[c->norigins++] = dwarf_dieoffset(&die);
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct inline_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort, and merge what touches or overlaps: exits are where the merged ranges end. */
static size_t merge_ranges(struct inline_range *r, size_t n)
{
	size_t i, out = 0;

	if (!n)
		return 0;
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1; i < n; i++) {
		if (r[i].lo <= r[out].hi) {
			if (r[i].hi > r[out].hi)
				r[out].hi = r[i].hi;
		} else {
			r[++out] = r[i];
		}
	}
	return out + 1;
}

/* die's non-empty address ranges, merged; *first is the start listed first. */
static int die_ranges(Dwarf_Die *die, struct inline_range **out, size_t *n, __u64 *first)
{
	Dwarf_Addr base, lo, hi;
	struct inline_range *r = NULL;
	size_t cnt = 0, cap = 0;
	ptrdiff_t off = 0;
	int err;

	*first = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		err = array_reserve((void **)&r, &cap, cnt + 1, sizeof(*r));
		if (err) {
			free(r);
			return err;
		}
		if (!cnt)
			*first = lo;
		r[cnt++] = (struct inline_range){lo, hi};
	}
	if (!cnt) {
		free(r);
		return off < 0 ? -EINVAL : -ENODATA;
	}
	*out = r;
	*n = merge_ranges(r, cnt);
	return 0;
}

/*
 * DW_AT_entry_pc, which DWARF 5 lets be an offset from the base address
 * (a libdw as old as 0.188 reads only the address form), else DW_AT_low_pc,
 * else the range listed first.  GCC may put it in an empty range, on a parent
 * instruction just before the body: then the body's next range, which the
 * merged ranges give in address order.
 */
static __u64 entry_pc(Dwarf_Die *die, const struct inline_range *r, size_t n, __u64 first)
{
	Dwarf_Attribute attr;
	Dwarf_Addr addr;
	Dwarf_Word off;
	__u64 pc = first;
	size_t i;

	if (!dwarf_lowpc(die, &addr))
		pc = addr;
	if (dwarf_attr(die, DW_AT_entry_pc, &attr)) {
		if (!dwarf_formaddr(&attr, &addr))
			pc = addr;
		else if (!dwarf_formudata(&attr, &off))
			pc += off;
	}
	for (i = 0; i < n; i++) {
		if (pc < r[i].hi)
			return pc < r[i].lo ? r[i].lo : pc;
	}
	return r[0].lo;
}

/* Its ranges and entry, read when its first instance is found. */
static int load_parent(struct parent *p)
{
	__u64 first;
	int err;

	if (p->ranges)
		return 0;
	err = die_ranges(&p->die, &p->ranges, &p->nranges, &first);
	if (err)
		return err;
	p->lo = entry_pc(&p->die, p->ranges, p->nranges, first);
	return 0;
}

static int add_instance(struct find_ctx *c, struct parent *p, Dwarf_Die *die)
{
	struct inline_instance *in;
	__u64 first;
	size_t i;
	int err;

	err = load_parent(p) ?: array_reserve((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v));
	if (err)
		return err;
	in = memset(&c->v[c->n], 0, sizeof(*in));
	err = die_ranges(die, &in->ranges, &in->nranges, &first);
	/* an instance the compiler optimised away entirely has no code to time */
	if (err == -ENODATA)
		return 0;
	if (err)
		return err;
	in->parent_ranges = malloc(p->nranges * sizeof(*p->ranges));
	if (!in->parent_ranges) {
		free(in->ranges);
		return -ENOMEM;
	}
	memcpy(in->parent_ranges, p->ranges, p->nranges * sizeof(*p->ranges));
	in->nparent_ranges = p->nranges;
	in->func = debuginfo_die_name(die) ?: c->name;
	in->parent = p->name;
	in->parent_lo = p->lo;
	in->die = dwarf_dieoffset(die);
	in->entry = entry_pc(die, in->ranges, in->nranges, first);
	for (i = 0; i < in->nranges; i++)
		in->bytes += in->ranges[i].hi - in->ranges[i].lo;
	debuginfo_call_site(die, NULL, 0, &in->call_file, &in->call_line);
	c->n++;
	return 0;
}

/* Instances below scope; only DIEs that can hold code are entered. */
static int walk_scope(struct find_ctx *c, struct parent *p, Dwarf_Die *scope)
{
	Dwarf_Die die;
	int tag, err;

	if (dwarf_child(scope, &die))
		return 0;
	do {
		tag = dwarf_tag(&die);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
			continue;
		if (is_instance(c, &die)) {
			err = add_instance(c, p, &die);
			if (err)
				return err;
		}
		err = walk_scope(c, p, &die);
		if (err)
			return err;
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

static void init_parent(struct parent *p, Dwarf_Die *die)
{
	memset(p, 0, sizeof(*p));
	p->die = *die;
	p->name = debuginfo_die_name(die);
}

static int scan_parents(struct find_ctx *c, Dwarf_Die *cu)
{
	struct parent p;
	Dwarf_Die die;
	int err = 0;

	if (dwarf_child(cu, &die))
		return 0;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram || !has_code(&die))
			continue;
		init_parent(&p, &die);
		err = walk_scope(c, &p, &die);
		free(p.ranges);
	} while (!err && !dwarf_siblingof(&die, &die));
	return err;
}

int inlines_find(struct debuginfo *di, const char *name, struct inline_instance **out, size_t *n)
{
	struct find_ctx c = {.name = name};
	Dwarf *dw = debuginfo_dwarf(di, NULL);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	int err = 0;

	while (!err && !dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL)) {
		/* type units hold no functions */
		if (unit_type == DW_UT_type || unit_type == DW_UT_split_type)
			continue;
		err = scan_definitions(&c, &cudie);
		if (!err && c.norigins)
			err = scan_parents(&c, &cudie);
	}
	free(c.origins);
	if (!err && !c.defined)
		err = -ENOENT;
	if (err) {
		inlines_free(c.v, c.n);
		return err;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

/* The outermost function holding die, the scope just inside its unit: the slow way. */
static int outermost(Dwarf_Die *die, struct parent *p)
{
	Dwarf_Die *scopes = NULL;
	int n, i;

	n = dwarf_getscopes_die(die, &scopes);
	/* scopes[0] is die itself, the unit is last */
	for (i = n - 2; i > 0; i--) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && has_code(&scopes[i]))
			break;
	}
	if (i > 0)
		init_parent(p, &scopes[i]);
	free(scopes);
	return i > 0 ? 0 : -ENOENT;
}

/* The function at DWARF offset func_die when it is one with code, else found from die. */
static int parent_of(Dwarf *dw, Dwarf_Die *die, __u64 func_die, struct parent *p)
{
	Dwarf_Die f;

	if (func_die && dwarf_offdie(dw, func_die, &f) && dwarf_tag(&f) == DW_TAG_subprogram &&
	    has_code(&f)) {
		init_parent(p, &f);
		return 0;
	}
	return outermost(die, p);
}

int inlines_at(struct debuginfo *di, __u64 die, __u64 func_die, struct inline_instance *out)
{
	Dwarf *dw = debuginfo_dwarf(di, NULL);
	struct find_ctx c = {.name = "?"};
	struct parent p;
	Dwarf_Die d;
	int err;

	memset(out, 0, sizeof(*out));
	if (!dwarf_offdie(dw, die, &d) || dwarf_tag(&d) != DW_TAG_inlined_subroutine)
		return -ENOENT;
	err = parent_of(dw, &d, func_die, &p);
	if (err)
		return err;
	err = add_instance(&c, &p, &d);
	if (!err && !c.n)
		err = -ENODATA;
	if (!err)
		*out = c.v[0];
	free(c.v);
	free(p.ranges);
	return err;
}

void inlines_free_one(struct inline_instance *in)
{
	free(in->ranges);
	free(in->parent_ranges);
	free(in->exits);
	in->ranges = NULL;
	in->parent_ranges = NULL;
	in->exits = NULL;
	in->nranges = in->nparent_ranges = in->nexits = 0;
}

void inlines_free(struct inline_instance *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		inlines_free_one(&v[i]);
	free(v);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Addresses to inline chains.
 *
 * dwarf_getscopes(), which eu-addr2line uses, walks a unit's DIE tree from
 * its root for every address it is asked about, and a kernel unit can hold
 * a hundred thousand DIEs.  Here each unit is walked once, the first time an
 * address falls in it, into a sorted array of the address intervals of its
 * code scopes (functions, inlined instances, lexical blocks), each linked to
 * the interval enclosing it.  An address is then a binary search and a few
 * steps outwards; only the frames of the answer are read from the DWARF.
 */
#include "symbols/symbolize.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "symbols/debuginfo.h"
#include "util/array.h"

#define NONE	      UINT32_MAX
#define CHUNK_RESULTS 512

enum scope_kind { SCOPE_FUNC, SCOPE_INLINED, SCOPE_BLOCK };

struct scope {
	Dwarf_Off die;
	__u32 parent; /* index of the enclosing scope with code, NONE at top */
	__u32 kind;
};

struct interval {
	__u64 lo, hi; /* [lo, hi) */
	__u32 scope;
	__u32 up; /* the interval this one nests in, NONE when outermost */
};

/* One compilation unit's code scopes, built on first use. */
struct unit {
	Dwarf_Die cudie;
	Dwarf_Files *files; /* NULL when the unit has no line table */
	size_t nfiles;
	struct scope *scopes;
	size_t nscopes, scap;
	struct interval *iv;
	size_t niv, icap;
};

/* Open addressing from a key to a pointer, NULL marking a free slot. */
struct map {
	__u64 *keys;
	void **vals;
	size_t cap, n; /* cap: a power of two */
};

/* Results live in chunks that never move, so returned pointers stay valid. */
struct chunk {
	struct chunk *next;
	size_t used;
	struct sym_result r[CHUNK_RESULTS];
};

struct symbolizer {
	Dwarf *dw;
	struct map units;   /* unit DIE offset -> struct unit */
	struct map results; /* address -> struct sym_result */
	struct chunk *chunks;
};

static size_t slot_of(const struct map *m, __u64 key)
{
	/* Fibonacci hashing: addresses share low and high bits */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (m->cap - 1);
}

static void *map_get(const struct map *m, __u64 key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(m, key); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals[i];
	}
	return NULL;
}

static void map_insert(struct map *m, __u64 key, void *val)
{
	size_t i = slot_of(m, key);

	while (m->vals[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

static int map_grow(struct map *m)
{
	struct map old = *m;
	size_t i;

	m->cap = old.cap ? 2 * old.cap : 1024;
	m->n = 0;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		*m = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++) {
		if (old.vals[i])
			map_insert(m, old.keys[i], old.vals[i]);
	}
	free(old.keys);
	free(old.vals);
	return 0;
}

static int map_put(struct map *m, __u64 key, void *val)
{
	int err;

	/* at most half full keeps the probe sequences short */
	if (2 * (m->n + 1) > m->cap) {
		err = map_grow(m);
		if (err)
			return err;
	}
	map_insert(m, key, val);
	return 0;
}

static int add_scope(struct unit *u, Dwarf_Die *die, enum scope_kind kind, __u32 parent)
{
	if (array_reserve((void **)&u->scopes, &u->scap, u->nscopes + 1, sizeof(*u->scopes)))
		return -ENOMEM;
	u->scopes[u->nscopes++] = (struct scope){dwarf_dieoffset(die), parent, kind};
	return 0;
}

static int add_interval(struct unit *u, __u64 lo, __u64 hi, __u32 scope)
{
	if (array_reserve((void **)&u->iv, &u->icap, u->niv + 1, sizeof(*u->iv)))
		return -ENOMEM;
	u->iv[u->niv++] = (struct interval){lo, hi, scope, NONE};
	return 0;
}

/*
 * Record die as a scope if it has code.  *idx becomes its index, or stays
 * parent's when it has none: a block without code may still hold ones with.
 */
static int add_code_scope(struct unit *u, Dwarf_Die *die, enum scope_kind kind, __u32 *idx)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	bool added = false;
	int err;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (!added) {
			err = add_scope(u, die, kind, *idx);
			if (err)
				return err;
			added = true;
		}
		err = add_interval(u, lo, hi, u->nscopes - 1);
		if (err)
			return err;
	}
	if (added)
		*idx = u->nscopes - 1;
	return 0;
}

/*
 * The code scopes below parent.  Only the tags that can hold code are
 * entered: types, variables and call sites, most of the DIEs, are skipped.
 */
static int walk(struct unit *u, Dwarf_Die *parent, __u32 parent_idx)
{
	enum scope_kind kind;
	Dwarf_Die die;
	__u32 idx;
	int err;

	if (dwarf_child(parent, &die))
		return 0;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:
			/* abstract instances and declarations have no code, nor code below */
			if (dwarf_hasattr(&die, DW_AT_inline) ||
			    dwarf_hasattr(&die, DW_AT_declaration))
				continue;
			kind = SCOPE_FUNC;
			break;
		case DW_TAG_inlined_subroutine:
			kind = SCOPE_INLINED;
			break;
		case DW_TAG_lexical_block:
			kind = SCOPE_BLOCK;
			break;
		default:
			continue;
		}
		idx = parent_idx;
		err = add_code_scope(u, &die, kind, &idx);
		if (!err && dwarf_haschildren(&die))
			err = walk(u, &die, idx);
		if (err)
			return err;
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

/* By start; of intervals starting together the outer first, so the innermost comes last. */
static int interval_cmp(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	/* scopes are numbered in DIE order, so a parent before its children */
	return x->scope < y->scope ? -1 : x->scope > y->scope;
}

/* Sort the intervals and link each to the one it nests in. */
static int link_intervals(struct unit *u)
{
	__u32 *stack, top = 0, i;

	if (!u->niv)
		return 0;
	qsort(u->iv, u->niv, sizeof(*u->iv), interval_cmp);
	stack = malloc(u->niv * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	for (i = 0; i < u->niv; i++) {
		while (top && u->iv[stack[top - 1]].hi <= u->iv[i].lo)
			top--;
		u->iv[i].up = top ? stack[top - 1] : NONE;
		stack[top++] = i;
	}
	free(stack);
	return 0;
}

static void unit_free(struct unit *u)
{
	if (!u)
		return;
	free(u->scopes);
	free(u->iv);
	free(u);
}

static int unit_build(Dwarf_Die *cudie, struct unit **out)
{
	struct unit *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return -ENOMEM;
	u->cudie = *cudie;
	/* a unit without a line table still names its functions */
	if (dwarf_getsrcfiles(cudie, &u->files, &u->nfiles))
		u->files = NULL;
	err = walk(u, cudie, NONE);
	if (!err)
		err = link_intervals(u);
	if (err) {
		unit_free(u);
		return err;
	}
	*out = u;
	return 0;
}

/* The unit holding addr, built if new; NULL in *out when no unit does. */
static int unit_of(struct symbolizer *s, __u64 addr, struct unit **out)
{
	Dwarf_Die cudie;
	Dwarf_Off off;
	int err;

	*out = NULL;
	if (!dwarf_addrdie(s->dw, addr, &cudie))
		return 0;
	off = dwarf_dieoffset(&cudie);
	*out = map_get(&s->units, off);
	if (*out)
		return 0;
	err = unit_build(&cudie, out);
	if (err)
		return err;
	err = map_put(&s->units, off, *out);
	if (err) {
		unit_free(*out);
		*out = NULL;
	}
	return err;
}

/* The innermost scope whose code holds addr, NONE when none does. */
static __u32 innermost(const struct unit *u, __u64 addr)
{
	size_t l = 0, h = u->niv;
	__u32 i;

	/* l becomes the number of intervals starting at or before addr */
	while (l < h) {
		size_t m = l + (h - l) / 2;

		if (u->iv[m].lo <= addr)
			l = m + 1;
		else
			h = m;
	}
	if (!l)
		return NONE;
	/* every interval holding addr encloses the last one starting before it */
	for (i = l - 1; i != NONE && u->iv[i].hi <= addr; i = u->iv[i].up)
		;
	return i == NONE ? NONE : u->iv[i].scope;
}

static void address_line(struct unit *u, __u64 addr, struct sym_frame *f)
{
	Dwarf_Line *line = dwarf_getsrc_die(&u->cudie, addr);

	if (!line)
		return;
	f->file = dwarf_linesrc(line, NULL, NULL);
	dwarf_lineno(line, &f->line);
}

/*
 * The frames from scope idx outwards, lexical blocks left out.  A chain
 * deeper than SYM_MAX_FRAMES loses frames from its middle: the last slot is
 * overwritten until it holds the out-of-line function, which callers need
 * more than one more level of inlining; its file:line is then the call site
 * of the outermost instance, in that function.
 */
static void fill_result(struct symbolizer *s, struct unit *u, __u32 idx, struct sym_result *r)
{
	struct sym_frame *f, site = {};
	Dwarf_Die die;

	for (; idx != NONE; idx = u->scopes[idx].parent) {
		if (u->scopes[idx].kind == SCOPE_BLOCK)
			continue;
		if (!dwarf_offdie(s->dw, u->scopes[idx].die, &die))
			break;
		f = &r->frames[r->n < SYM_MAX_FRAMES ? r->n++ : SYM_MAX_FRAMES - 1];
		*f = site;
		f->die = u->scopes[idx].die;
		f->func = debuginfo_die_name(&die);
		f->inlined = u->scopes[idx].kind == SCOPE_INLINED;
		if (!f->inlined)
			break;
		site = (struct sym_frame){};
		debuginfo_call_site(&die, u->files, u->nfiles, &site.file, &site.line);
	}
}

static struct sym_result *new_result(struct symbolizer *s)
{
	struct chunk *c = s->chunks;

	if (!c || c->used == CHUNK_RESULTS) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = s->chunks;
		c->used = 0;
		s->chunks = c;
	}
	memset(&c->r[c->used], 0, sizeof(c->r[0]));
	return &c->r[c->used++];
}

int symbolize(struct symbolizer *s, __u64 addr, const struct sym_result **out)
{
	struct sym_result *r;
	struct unit *u;
	int err;

	r = map_get(&s->results, addr);
	if (r) {
		*out = r;
		return 0;
	}
	r = new_result(s);
	if (!r)
		return -ENOMEM;
	err = unit_of(s, addr, &u);
	if (err)
		return err;
	if (u) {
		fill_result(s, u, innermost(u, addr), r);
		address_line(u, addr, &r->frames[0]);
	}
	err = map_put(&s->results, addr, r);
	if (err)
		return err;
	*out = r;
	return 0;
}

int symbolizer_new(struct symbolizer **out, struct debuginfo *di)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->dw = debuginfo_dwarf(di, NULL);
	*out = s;
	return 0;
}

void symbolizer_free(struct symbolizer *s)
{
	struct chunk *c, *next;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->units.cap; i++)
		unit_free(s->units.vals[i]);
	for (c = s->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(s->units.keys);
	free(s->units.vals);
	free(s->results.keys);
	free(s->results.vals);
	free(s);
}

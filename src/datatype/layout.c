// SPDX-License-Identifier: GPL-2.0-only
/*
 * A named type's layout from DWARF: the type found by name in the units'
 * top-level DIEs, its members walked (anonymous structs and unions looked
 * into), the holes and padding worked out as pahole does.
 */
#include "datatype/layout.h"

#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "symbols/dwarf_fetch.h"
#include "util/safeio.h"

#define MAX_NESTING 8 /* anonymous members within anonymous members */
#define SPELL_DEPTH 8 /* pointers to arrays of pointers to functions... */
#define SPELL_LEN   512

enum kind { K_ANY, K_STRUCT, K_UNION };

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

static bool is_declaration(Dwarf_Die *d)
{
	Dwarf_Attribute attr;
	bool flag = false;

	return dwarf_attr(d, DW_AT_declaration, &attr) && !dwarf_formflag(&attr, &flag) && flag;
}

static bool die_type(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute attr;

	return dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &attr), t) != NULL;
}

/* d with typedefs and qualifiers looked through into *t. */
static bool peeled(Dwarf_Die *d, Dwarf_Die *t)
{
	*t = *d;
	return dwarf_peel_type(t, t) == 0;
}

/* The subrange bounds of array type a as "[N]..." into buf. */
static void array_dims(Dwarf_Die *a, char *buf, size_t len)
{
	Dwarf_Attribute attr;
	Dwarf_Word n;
	Dwarf_Sword hi;
	size_t used = 0;
	Dwarf_Die r;

	buf[0] = '\0';
	if (dwarf_child(a, &r))
		return;
	do {
		if (dwarf_tag(&r) != DW_TAG_subrange_type || used >= len)
			continue;
		if (!dwarf_formudata(dwarf_attr(&r, DW_AT_count, &attr), &n))
			used += snprintf(buf + used, len - used, "[%llu]", (unsigned long long)n);
		else if (!dwarf_formsdata(dwarf_attr(&r, DW_AT_upper_bound, &attr), &hi))
			used += snprintf(buf + used, len - used, "[%lld]", (long long)hi + 1);
		else
			used += snprintf(buf + used, len - used, "[]");
	} while (dwarf_siblingof(&r, &r) == 0);
}

static void spell(Dwarf_Die *t, const char *decl, char *buf, size_t len, int depth);

/* A function type's parameter list, "(int, void *)", into buf. */
static void params(Dwarf_Die *f, char *buf, size_t len, int depth)
{
	Dwarf_Attribute attr;
	bool proto = false;
	char one[SPELL_LEN];
	size_t used = 1;
	Dwarf_Die p, t;
	int n = 0;

	snprintf(buf, len, "(");
	if (!dwarf_child(f, &p)) {
		do {
			if (dwarf_tag(&p) == DW_TAG_unspecified_parameters) {
				snprintf(one, sizeof(one), "...");
			} else if (dwarf_tag(&p) == DW_TAG_formal_parameter) {
				if (die_type(&p, &t))
					spell(&t, "", one, sizeof(one), depth + 1);
				else
					snprintf(one, sizeof(one), "void");
			} else {
				continue;
			}
			if (used < len)
				used += snprintf(buf + used, len - used, "%s%s", n++ ? ", " : "",
						 one);
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	dwarf_formflag(dwarf_attr(f, DW_AT_prototyped, &attr), &proto);
	if (used < len)
		snprintf(buf + used, len - used, "%s)", !n && proto ? "void" : "");
}

/* The name of a named type ("struct foo", "int"), or its kind alone when anonymous. */
static void plain_name(Dwarf_Die *t, char *buf, size_t len)
{
	const char *name = dwarf_diename(t), *kind = "";

	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		kind = "struct";
		break;
	case DW_TAG_union_type:
		kind = "union";
		break;
	case DW_TAG_enumeration_type:
		kind = "enum";
		break;
	}
	if (!kind[0])
		snprintf(buf, len, "%s", name ?: "?");
	else
		snprintf(buf, len, "%s%s%s", kind, name ? " " : " {...}", name ?: "");
}

/* The declaration of decl (a name, "*p", or "") with type t, as C writes it. */
static void spell(Dwarf_Die *t, const char *decl, char *buf, size_t len, int depth)
{
	char inner[SPELL_LEN], more[SPELL_LEN];
	Dwarf_Die next;
	bool has = die_type(t, &next);
	int tag = dwarf_tag(t);

	if (depth > SPELL_DEPTH) {
		snprintf(buf, len, "...%s%s", decl[0] ? " " : "", decl);
		return;
	}
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		/* a pointer to an array or a function needs parentheses */
		if (has && (dwarf_tag(&next) == DW_TAG_array_type ||
			    dwarf_tag(&next) == DW_TAG_subroutine_type))
			snprintf(inner, sizeof(inner), "(*%s)", decl);
		else
			snprintf(inner, sizeof(inner), "*%s", decl);
		if (has)
			spell(&next, inner, buf, len, depth + 1);
		else
			snprintf(buf, len, "void %s", inner);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: {
		const char *q = tag == DW_TAG_const_type      ? "const"
				: tag == DW_TAG_volatile_type ? "volatile"
							      : "restrict";

		if (has && dwarf_tag(&next) == DW_TAG_pointer_type) {
			snprintf(inner, sizeof(inner), "%s%s%s", q, decl[0] ? " " : "", decl);
			spell(&next, inner, buf, len, depth + 1);
		} else {
			if (has)
				spell(&next, decl, inner, sizeof(inner), depth + 1);
			else
				snprintf(inner, sizeof(inner), "void%s%s", decl[0] ? " " : "",
					 decl);
			snprintf(buf, len, "%s %s", q, inner);
		}
		return;
	}
	case DW_TAG_array_type:
		array_dims(t, more, sizeof(more));
		snprintf(inner, sizeof(inner), "%s%s", decl, more);
		if (has)
			spell(&next, inner, buf, len, depth + 1);
		else
			snprintf(buf, len, "? %s", inner);
		return;
	case DW_TAG_subroutine_type:
		params(t, more, sizeof(more), depth);
		snprintf(inner, sizeof(inner), "%s%s", decl, more);
		if (has)
			spell(&next, inner, buf, len, depth + 1);
		else
			snprintf(buf, len, "void %s", inner);
		return;
	}
	plain_name(t, more, sizeof(more));
	snprintf(buf, len, "%s%s%s", more, decl[0] && decl[0] != '[' ? " " : "", decl);
}

void layout_type_name(Dwarf_Die *die, char *buf, size_t len)
{
	spell(die, "", buf, len, 0);
}

struct builder {
	struct layout *l;
	size_t cap;
};

static struct layout_member *grow(struct builder *b)
{
	struct layout_member *m;

	if (b->l->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;

		m = realloc(b->l->members, cap * sizeof(*m));
		if (!m)
			return NULL;
		b->l->members = m;
		b->cap = cap;
	}
	m = &b->l->members[b->l->n];
	memset(m, 0, sizeof(*m));
	return m;
}

/* A member at start bits from the outer type's start, its name and type spelled. */
static int add_one(struct builder *b, Dwarf_Die *m, Dwarf_Die *t, __u64 start, __u64 unit,
		   __u64 bits)
{
	struct layout_member *lm = grow(b);
	char type[SPELL_LEN];

	if (!lm)
		return -ENOMEM;
	layout_type_name(t, type, sizeof(type));
	lm->name = strdup(dwarf_diename(m));
	lm->type = strdup(type);
	if (!lm->name || !lm->type) {
		free(lm->name);
		free(lm->type);
		return -ENOMEM;
	}
	lm->size = unit;
	lm->offset = start / 8;
	if (bits && unit) {
		/* the storage unit holding the bitfield's first bit, as pahole places it */
		lm->offset = start / (unit * 8) * unit;
		lm->bit_offset = start - lm->offset * 8;
		lm->bit_size = bits;
	}
	lm->type_off = dwarf_dieoffset(t);
	b->l->n++;
	return 0;
}

/* agg's members from base bits on; anonymous aggregates looked into. */
static int add_members(struct builder *b, Dwarf_Die *agg, __u64 base, unsigned int depth,
		       bool in_union)
{
	__u64 start, unit, bits;
	Dwarf_Die m, t, p;
	int err;

	if (depth > MAX_NESTING || dwarf_child(agg, &m))
		return 0;
	do {
		if (dwarf_tag(&m) != DW_TAG_member || !die_type(&m, &t) ||
		    dwarf_member_bits(&m, &t, &start, &unit, &bits))
			continue;
		if (!dwarf_diename(&m)) {
			/* an unnamed bitfield is padding: a hole */
			if (peeled(&t, &p) && is_aggregate(dwarf_tag(&p))) {
				err = add_members(b, &p, base + start, depth + 1,
						  dwarf_tag(&p) == DW_TAG_union_type);
				if (err)
					return err;
			}
			continue;
		}
		err = add_one(b, &m, &t, base + start, unit, bits);
		if (err)
			return err;
		b->l->members[b->l->n - 1].depth = depth;
		b->l->members[b->l->n - 1].in_union = in_union;
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

static __u64 start_bits(const struct layout_member *m)
{
	return m->offset * 8 + m->bit_offset;
}

static __u64 end_bits(const struct layout_member *m)
{
	return start_bits(m) + (m->bit_size ? m->bit_size : m->size * 8);
}

/* A hole of bits from end (bits): the bits up to a byte boundary, then whole bytes. */
static void split_hole(struct layout *l, struct layout_member *m, __u64 end, __u64 bits)
{
	__u64 to_byte = end % 8 ? 8 - end % 8 : 0;

	if (to_byte > bits)
		to_byte = bits;
	bits -= to_byte;
	to_byte += bits % 8;
	m->bit_hole = to_byte;
	m->hole = bits / 8;
	l->bit_holes += !!m->bit_hole;
	l->hole_bits += m->bit_hole;
	l->holes += !!m->hole;
	l->hole_bytes += m->hole;
}

/* Holes after each member (overlapping union members none), the padding, the sums. */
static void account(struct layout *l)
{
	__u64 end = 0, sum = 0, next;
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct layout_member *m = &l->members[i];

		sum += m->bit_size ? m->bit_size : m->size * 8;
		if (end_bits(m) > end)
			end = end_bits(m);
		if (i + 1 == l->n)
			break;
		next = start_bits(&l->members[i + 1]);
		if (next > end)
			split_hole(l, m, end, next - end);
	}
	l->sum_members = sum / 8;
	end = (end + 7) / 8;
	l->padding = l->size > end && !l->is_union ? l->size - end : 0;
}

void layout_free(struct layout *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->members[i].name);
		free(l->members[i].type);
	}
	free(l->members);
	free(l->type);
	free(l->file);
	free(l->code_offsets);
	free(l);
}

/*
 * The unit of die was compiled with GCC's randstruct plugin: its producer
 * (gcc records its switches there) names the plugin.
 */
static bool randstruct_plugin(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *producer;
	Dwarf_Die cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	producer = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &attr));
	return producer && strstr(producer, "randomize_layout_plugin");
}

static void code_offsets(struct layout *l, const char *file);

int layout_of_die(Dwarf_Die *die, const char *file, struct layout **out)
{
	struct builder b = {0};
	char name[SPELL_LEN];
	Dwarf_Word size = 0;
	Dwarf_Die t;
	int err = -ENOMEM;

	*out = NULL;
	if (!peeled(die, &t))
		return -ENOENT;
	b.l = calloc(1, sizeof(*b.l));
	if (!b.l)
		return -ENOMEM;
	/* a typedef of an anonymous struct is known by the typedef's name */
	if (dwarf_tag(die) == DW_TAG_typedef && is_aggregate(dwarf_tag(&t)) && !dwarf_diename(&t))
		snprintf(name, sizeof(name), "%s", dwarf_diename(die) ?: "?");
	else
		layout_type_name(&t, name, sizeof(name));
	if (dwarf_aggregate_size(&t, &size))
		size = 0;
	b.l->size = size;
	b.l->is_union = dwarf_tag(&t) == DW_TAG_union_type;
	b.l->randstruct_plugin = randstruct_plugin(&t);
	b.l->type = strdup(name);
	b.l->file = strdup(file ?: "");
	if (b.l->type && b.l->file && is_aggregate(dwarf_tag(&t)))
		err = add_members(&b, &t, 0, 0, b.l->is_union);
	else if (b.l->type && b.l->file)
		err = 0;
	if (err) {
		layout_free(b.l);
		return err;
	}
	account(b.l);
	if (b.l->randstruct_plugin && file && *file)
		code_offsets(b.l, file);
	*out = b.l;
	return 0;
}

/* The name asked for without its "struct "/"union " prefix, the kind that prefix asks. */
static const char *parse_name(const char *name, enum kind *kind)
{
	*kind = K_ANY;
	name += strspn(name, " ");
	if (!strncmp(name, "struct ", 7)) {
		*kind = K_STRUCT;
		name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		*kind = K_UNION;
		name += 6;
	}
	return name + strspn(name, " ");
}

static bool kind_fits(int tag, enum kind k)
{
	switch (k) {
	case K_STRUCT:
		return tag == DW_TAG_structure_type || tag == DW_TAG_class_type;
	case K_UNION:
		return tag == DW_TAG_union_type;
	default:
		return is_aggregate(tag) || tag == DW_TAG_typedef;
	}
}

/* A definition, not a declaration; a typedef of a scalar or of a defined aggregate. */
static bool complete(Dwarf_Die *d)
{
	Dwarf_Die t;

	if (dwarf_tag(d) != DW_TAG_typedef)
		return !is_declaration(d);
	if (!peeled(d, &t))
		return false;
	return !is_aggregate(dwarf_tag(&t)) || !is_declaration(&t);
}

/* Placed members by offset, the unplaced (bitfields) last, in their order. */
static int by_code_offset(const void *x, const void *y)
{
	const struct layout_member *a = x, *b = y;

	if (a->unplaced != b->unplaced)
		return a->unplaced - b->unplaced;
	if (a->unplaced)
		return (a->depth > b->depth) - (a->depth < b->depth); /* depth: the old index */
	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Lines "STRUCT MEMBER OFFSET" of f for l's struct onto its members; how many placed. */
static size_t read_offsets(struct layout *l, FILE *f)
{
	const char *want = strncmp(l->type, "struct ", 7) ? l->type : l->type + 7;
	char line[256], st[128], mem[128];
	unsigned long long off;
	size_t i, placed = 0;

	for (i = 0; i < l->n; i++)
		l->members[i].unplaced = true;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %127s %llu", st, mem, &off) != 3 || strcmp(st, want))
			continue;
		for (i = 0; i < l->n; i++) {
			struct layout_member *m = &l->members[i];

			if (m->unplaced && !m->bit_size && !strcmp(m->name, mem)) {
				m->offset = off;
				m->unplaced = false;
				placed++;
			}
		}
	}
	return placed;
}

/*
 * A build by GCC's randstruct plugin: the offsets its code uses, from
 * randstruct.offsets beside the vmlinux (kernel-build.sh's; beside the
 * file a link names, as the build-id folder's do), replace the
 * DWARF's declared ones; the members sorted by them, the holes counted
 * again among the placed.  Nothing changes without the file or a line
 * for the struct.
 */
static void code_offsets(struct layout *l, const char *file)
{
	/* the file's own folder: found by build id, the vmlinux is a link to it */
	char *real = realpath(file, NULL), path[4096], why[128];
	const char *at = real ?: file, *slash = strrchr(at, '/');
	size_t i, placed, n = l->n;
	struct stat st;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%.*srandstruct.offsets", slash ? (int)(slash - at + 1) : 0,
		 at);
	free(real);
	fd = safeio_open_regular(path, &st, why, sizeof(why));
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	placed = read_offsets(l, f);
	fclose(f);
	for (i = 0; i < n; i++) {
		l->members[i].depth = l->members[i].unplaced ? i : 0;
		l->members[i].bit_hole = 0;
		l->members[i].hole = 0;
		l->members[i].in_union = false;
	}
	if (!placed || !(l->code_offsets = strdup(path))) {
		for (i = 0; i < n; i++)
			l->members[i].unplaced = false;
		return;
	}
	qsort(l->members, n, sizeof(*l->members), by_code_offset);
	for (i = 0; i < n; i++)
		l->members[i].depth = 0;
	l->holes = l->bit_holes = 0;
	l->hole_bytes = l->hole_bits = 0;
	l->n = placed;
	account(l);
	l->n = n;
}

/*
 * fn on each top-level DIE of each unit until it returns nonzero, which is
 * returned.  Types are defined at the top of a C unit; looking no deeper
 * keeps a vmlinux of thousands of units fast.
 */
static int each_top(Dwarf *dw, int (*fn)(Dwarf_Die *d, void *arg), void *arg)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu, d;
	size_t hsize;
	int r;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && !dwarf_child(&cu, &d)) {
			do {
				r = fn(&d, arg);
				if (r)
					return r;
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
	return 0;
}

struct search {
	enum kind kind;
	const char *name;
	size_t len;
	Dwarf_Die found;
	/* the closest name when absent */
	char best[128];
	int best_d;
};

static int is_match(Dwarf_Die *d, void *arg)
{
	struct search *s = arg;
	const char *name;

	if (!kind_fits(dwarf_tag(d), s->kind))
		return 0;
	name = dwarf_diename(d);
	if (!name || strcmp(name, s->name) || !complete(d))
		return 0;
	s->found = *d;
	return 1;
}

/* Edit distance of a and b, or limit when it is limit or more. */
static int distance(const char *a, size_t la, const char *b, size_t lb, int limit)
{
	int row[128], prev, cur, low;
	size_t i, j;

	if (lb >= 128 || (la > lb ? la - lb : lb - la) >= (size_t)limit)
		return limit;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		low = row[0];
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (cur + 1 < row[j])
				row[j] = cur + 1;
			prev = cur;
			if (row[j] < low)
				low = row[j];
		}
		if (low >= limit)
			return limit;
	}
	return row[lb] < limit ? row[lb] : limit;
}

static int is_closer(Dwarf_Die *d, void *arg)
{
	struct search *s = arg;
	const char *name;
	int dist;

	if (!kind_fits(dwarf_tag(d), s->kind))
		return 0;
	name = dwarf_diename(d);
	if (!name)
		return 0;
	dist = distance(s->name, s->len, name, strlen(name), s->best_d);
	if (dist > 0 && dist < s->best_d) {
		s->best_d = dist;
		snprintf(s->best, sizeof(s->best), "%s", name);
	}
	return 0;
}

int layout_find(struct debuginfo *di, const char *file, const char *name, struct layout **out,
		char *closest, size_t len)
{
	struct search s = {0};
	Dwarf_Addr bias;
	Dwarf *dw = debuginfo_dwarf(di, &bias);

	*out = NULL;
	if (closest && len)
		closest[0] = '\0';
	if (!dw)
		return -ENODATA;
	s.name = parse_name(name, &s.kind);
	s.len = strlen(s.name);
	if (each_top(dw, is_match, &s)) {
		return layout_of_die(&s.found, file, out);
	}
	if (closest && len && s.len < 128) {
		/* a name more than half wrong suggests nothing */
		s.best_d = s.len / 2 + 2;
		each_top(dw, is_closer, &s);
		snprintf(closest, len, "%s", s.best);
	}
	return -ENOENT;
}

const struct layout_member *layout_member_named(const struct layout *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->members[i].name, name))
			return &l->members[i];
	}
	return NULL;
}

const struct layout_member *layout_member_at(const struct layout *l, __u64 offset)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct layout_member *m = &l->members[i];

		if (!m->unplaced && offset >= m->offset && offset < m->offset + m->size)
			return m;
	}
	return NULL;
}

bool layout_boundary(const struct layout *l, size_t i, __u64 *line, __u64 *past)
{
	__u64 cur, prev;

	if (!i || i >= l->n || l->members[i].unplaced || l->members[i - 1].unplaced)
		return false;
	cur = l->members[i].offset / LAYOUT_CACHELINE;
	prev = l->members[i - 1].offset / LAYOUT_CACHELINE;
	if (cur <= prev)
		return false;
	*line = cur;
	*past = l->members[i].offset - cur * LAYOUT_CACHELINE;
	return true;
}

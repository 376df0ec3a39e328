// SPDX-License-Identifier: GPL-2.0-only
/*
 * A type's layout printed: pahole's view of one build, or two builds'
 * offsets of each member side by side (RANDSTRUCT moves them); text and
 * JSON.
 */
#include "datatype/layout.h"

#include <string.h>

#include "util/esc.h"
#include "util/json.h"

#define DECL_COLUMN 48

/* The member as C declares it: "char comm[16]", "void (*fn)(int)", "u64 x:3". */
static void declaration(const struct layout_member *m, char *buf, size_t len)
{
	const char *t = m->type, *at = strstr(t, "(*)");
	int n;

	if (at) {
		n = snprintf(buf, len, "%.*s(*%s%s", (int)(at - t), t, m->name, at + 2);
	} else if ((at = strchr(t, '['))) {
		n = snprintf(buf, len, "%.*s%s%s%s", (int)(at - t), t,
			     at > t && at[-1] == '*' ? "" : " ", m->name, at);
	} else {
		size_t tl = strlen(t);

		n = snprintf(buf, len, "%s%s%s", t, tl && t[tl - 1] == '*' ? "" : " ", m->name);
	}
	if (m->bit_size && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ":%u", m->bit_size);
}

static void print_hole(FILE *out, const struct layout_member *m)
{
	if (m->bit_hole)
		fprintf(out, "\n\t/* XXX %u bit%s hole, try to pack */\n", m->bit_hole,
			m->bit_hole == 1 ? "" : "s");
	if (m->hole)
		fprintf(out, "\n\t/* XXX %llu byte%s hole, try to pack */\n",
			(unsigned long long)m->hole, m->hole == 1 ? "" : "s");
	fputc('\n', out);
}

static void print_member(FILE *out, const struct layout *l, size_t i)
{
	const struct layout_member *m = &l->members[i];
	__u64 line, past;
	char decl[1024];
	int width;

	if (layout_boundary(l, i, &line, &past)) {
		fprintf(out, "\t/* --- cacheline %llu boundary (%llu bytes) ",
			(unsigned long long)line, (unsigned long long)(line * LAYOUT_CACHELINE));
		if (past)
			fprintf(out, "was %llu byte%s ago ", (unsigned long long)past,
				past == 1 ? "" : "s");
		fprintf(out, "--- */\n");
	}
	declaration(m, decl, sizeof(decl));
	strncat(decl, ";", sizeof(decl) - strlen(decl) - 1);
	width = DECL_COLUMN - 2 * (int)m->depth;
	esc_printf(out, "\t%*s%-*s", 2 * (int)m->depth, "", width > 0 ? width : 0, decl);
	if (m->bit_size)
		fprintf(out, " /* %5llu:%2u %4llu */\n", (unsigned long long)m->offset,
			m->bit_offset, (unsigned long long)m->size);
	else
		fprintf(out, " /* %5llu %5llu */\n", (unsigned long long)m->offset,
			(unsigned long long)m->size);
	if (m->hole || m->bit_hole)
		print_hole(out, m);
}

void layout_print(FILE *out, const struct layout *l)
{
	__u64 lines = (l->size + LAYOUT_CACHELINE - 1) / LAYOUT_CACHELINE;
	size_t i;

	esc_printf(out, "%s {\n", l->type);
	for (i = 0; i < l->n; i++)
		print_member(out, l, i);
	if (l->n)
		fputc('\n', out);
	fprintf(out, "\t/* size: %llu, cachelines: %llu, members: %zu */\n",
		(unsigned long long)l->size, (unsigned long long)lines, l->n);
	fprintf(out, "\t/* sum members: %llu, holes: %u, sum holes: %llu */\n",
		(unsigned long long)l->sum_members, l->holes, (unsigned long long)l->hole_bytes);
	if (l->bit_holes)
		fprintf(out, "\t/* bit holes: %u, sum bit holes: %llu bits */\n", l->bit_holes,
			(unsigned long long)l->hole_bits);
	if (l->padding)
		fprintf(out, "\t/* padding: %llu */\n", (unsigned long long)l->padding);
	if (l->size % LAYOUT_CACHELINE)
		fprintf(out, "\t/* last cacheline: %llu bytes */\n",
			(unsigned long long)(l->size % LAYOUT_CACHELINE));
	fprintf(out, "};\n");
}

void layout_json(struct json *j, const struct layout *l)
{
	size_t i;

	json_str(j, "type", l->type);
	json_str(j, "file", l->file);
	json_u64(j, "size", l->size);
	json_u64(j, "cachelines", (l->size + LAYOUT_CACHELINE - 1) / LAYOUT_CACHELINE);
	json_u64(j, "sum_members", l->sum_members);
	json_u64(j, "holes", l->holes);
	json_u64(j, "sum_holes", l->hole_bytes);
	json_u64(j, "bit_holes", l->bit_holes);
	json_u64(j, "sum_bit_holes", l->hole_bits);
	json_u64(j, "padding", l->padding);
	json_open(j, "members", '[');
	for (i = 0; i < l->n; i++) {
		const struct layout_member *m = &l->members[i];

		json_open(j, NULL, '{');
		json_str(j, "member", m->name);
		json_str(j, "type", m->type);
		json_u64(j, "offset", m->offset);
		json_u64(j, "size", m->size);
		if (m->bit_size) {
			json_u64(j, "bit_offset", m->bit_offset);
			json_u64(j, "bit_size", m->bit_size);
		}
		json_u64(j, "bit_hole", m->bit_hole);
		json_u64(j, "hole", m->hole);
		json_u64(j, "depth", m->depth);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* One row of the pair: the member on either side or both. */
struct pair_row {
	const struct layout_member *m[2];
};

static bool moved(const struct pair_row *r)
{
	return r->m[0] && r->m[1] &&
	       (r->m[0]->offset != r->m[1]->offset || r->m[0]->bit_offset != r->m[1]->bit_offset);
}

/*
 * Row i of the pair: base's members in base's order, then those only
 * the hardened side has, in its order.  false past the end.
 */
static bool pair_row(const struct layout *l[2], size_t i, struct pair_row *r)
{
	size_t k;

	if (i < l[0]->n) {
		r->m[0] = &l[0]->members[i];
		r->m[1] = layout_member_named(l[1], r->m[0]->name);
		return true;
	}
	i -= l[0]->n;
	for (k = 0; k < l[1]->n; k++) {
		if (layout_member_named(l[0], l[1]->members[k].name))
			continue;
		if (!i--) {
			r->m[0] = NULL;
			r->m[1] = &l[1]->members[k];
			return true;
		}
	}
	return false;
}

static void offset_text(const struct layout_member *m, char *buf, size_t len)
{
	if (!m)
		snprintf(buf, len, "-");
	else if (m->bit_size)
		snprintf(buf, len, "%llu:%u", (unsigned long long)m->offset, m->bit_offset);
	else
		snprintf(buf, len, "%llu", (unsigned long long)m->offset);
}

static void pair_counts(const struct layout *l[2], size_t c[3])
{
	struct pair_row r;
	size_t i;

	c[0] = c[1] = c[2] = 0;
	for (i = 0; pair_row(l, i, &r); i++) {
		c[0] += moved(&r);
		c[1] += !r.m[1];
		c[2] += !r.m[0];
	}
}

void layout_print_pair(FILE *out, const struct layout *l[2], const char *const names[2])
{
	char off[2][32], size[48];
	struct pair_row r;
	size_t i, c[3];

	pair_counts(l, c);
	esc_printf(out, "# %s: base %s (%llu bytes), hardened %s (%llu bytes)\n", l[0]->type,
		   names[0], (unsigned long long)l[0]->size, names[1],
		   (unsigned long long)l[1]->size);
	fprintf(out, "# %zu of %zu members moved, %zu base only, %zu hardened only\n", c[0],
		l[0]->n, c[1], c[2]);
	fprintf(out, "%-32s %8s %10s %10s\n", "member", "size", "base", "hardened");
	for (i = 0; pair_row(l, i, &r); i++) {
		const struct layout_member *m = r.m[0] ?: r.m[1];

		offset_text(r.m[0], off[0], sizeof(off[0]));
		offset_text(r.m[1], off[1], sizeof(off[1]));
		if (r.m[0] && r.m[1] && r.m[0]->size != r.m[1]->size)
			snprintf(size, sizeof(size), "%llu/%llu", (unsigned long long)r.m[0]->size,
				 (unsigned long long)r.m[1]->size);
		else
			snprintf(size, sizeof(size), "%llu", (unsigned long long)m->size);
		esc_printf(out, "%-32s %8s %10s %10s%s\n", m->name, size, off[0], off[1],
			   moved(&r) ? "  moved"
			   : !r.m[1] ? "  (base only)"
			   : !r.m[0] ? "  (hardened only)"
				     : "");
	}
}

static void json_side(struct json *j, const char *key, const struct layout *l, const char *name)
{
	json_open(j, key, '{');
	json_str(j, "file", name);
	json_u64(j, "size", l->size);
	json_u64(j, "members", l->n);
	json_close(j, '}');
}

static void json_offset(struct json *j, const char *key, const struct layout_member *m)
{
	if (m)
		json_u64(j, key, m->offset);
	else
		json_str(j, key, NULL);
}

void layout_json_pair(struct json *j, const struct layout *l[2], const char *const names[2])
{
	struct pair_row r;
	size_t i, c[3];

	pair_counts(l, c);
	json_str(j, "type", l[0]->type);
	json_side(j, "base", l[0], names[0]);
	json_side(j, "hardened", l[1], names[1]);
	json_u64(j, "moved", c[0]);
	json_u64(j, "base_only", c[1]);
	json_u64(j, "hardened_only", c[2]);
	json_open(j, "members", '[');
	for (i = 0; pair_row(l, i, &r); i++) {
		const struct layout_member *m = r.m[0] ?: r.m[1];

		json_open(j, NULL, '{');
		json_str(j, "member", m->name);
		json_str(j, "type", m->type);
		json_u64(j, "size", m->size);
		json_offset(j, "base_offset", r.m[0]);
		json_offset(j, "hardened_offset", r.m[1]);
		json_bool(j, "moved", moved(&r));
		json_close(j, '}');
	}
	json_close(j, ']');
}

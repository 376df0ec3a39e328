// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate --model --data-type TYPE (model_data.h): one type's layout as
 * pahole shows it (datatype/layout.h: every top-level member, its offset and
 * size, holes, padding, cache lines) with the model's counts laid on each
 * member, the nested members that were accessed indented below their
 * top-level one, and per member the functions that access it.  The layout
 * comes from the DWARF of the file whose code accessed the type (the
 * kernel's or a user binary's); a type no counted PC touched is looked up
 * in the kernel's, then the user files', and shown without counts.
 */
#include "model/model_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "datatype/layout.h"
#include "model/model_report.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/user_frames.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

/* the functions named after a member's counts */
#define FNS_SHOWN 4

struct ann {
	struct mdata d;
	const struct mdata_type *t; /* the type's counts; NULL: no counted PC touched it */
	struct layout *l;	    /* NULL: only the members counted are known */
	char module[4096];	    /* whose DWARF the layout is from */
	struct user_file uf;	    /* a user module's file */
	char closest[256];	    /* the name nearest the one asked for, when none fits */
	struct json *j;		    /* NULL: text */
};

/* The mapped user files, each once (the maps are by path). */
struct paths {
	struct model_map *m;
	size_t n, cap;
};

static int path_row(const struct model_map *m, void *ctx)
{
	struct paths *p = ctx;

	if (p->n && !strcmp(p->m[p->n - 1].path, m->path))
		return 0;
	if (array_reserve((void **)&p->m, &p->cap, p->n + 1, sizeof(*p->m)))
		return -ENOMEM;
	p->m[p->n] = *m;
	p->m[p->n].path = strdup(m->path);
	p->m[p->n].build_id = strdup(m->build_id);
	return p->m[p->n].path && p->m[p->n++].build_id ? 0 : -ENOMEM;
}

static void paths_free(struct paths *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free((char *)p->m[i].path);
		free((char *)p->m[i].build_id);
	}
	free(p->m);
}

/* name's layout in the DWARF of user file m: 0, -ENOENT (closest kept when the first), -errno. */
static int user_layout(struct ann *a, struct datafile *df, const struct model_map *m,
		       const char *name)
{
	char closest[sizeof(a->closest)] = "";
	int err = user_file_open(&a->uf, m->path, m->build_id, datafile_symfs(df));

	if (err || !a->uf.di)
		return err ?: -ENOENT;
	err = layout_find(a->uf.di, m->path, name, &a->l, closest, sizeof(closest));
	if (err == -ENOENT && !*a->closest)
		snprintf(a->closest, sizeof(a->closest), "%s", closest);
	if (!err)
		snprintf(a->module, sizeof(a->module), "%s", m->path);
	return err;
}

/* The layout of name in module's DWARF (NULL: the kernel's, then each user file's). */
static int find_layout(struct ann *a, struct datafile *df, struct kernel_dwarf *kd,
		       const char *name, const char *module)
{
	struct paths p = {};
	int err = -ENOENT;
	size_t i;

	if (kd && (!module || !strcmp(module, "[kernel]"))) {
		err = layout_find(kernel_dwarf_debuginfo(kd), kernel_dwarf_path(kd), name, &a->l,
				  a->closest, sizeof(a->closest));
		snprintf(a->module, sizeof(a->module), "[kernel]");
	}
	if (err != -ENOENT || (module && !strcmp(module, "[kernel]")))
		return err;
	err = model_maps(df, path_row, &p) ?: -ENOENT;
	for (i = 0; i < p.n && err == -ENOENT; i++)
		if (!module || !strcmp(module, p.m[i].path))
			err = user_layout(a, df, &p.m[i], name);
	paths_free(&p);
	return err;
}

static int pick(struct ann *a, struct datafile *df, struct kernel_dwarf *kd, const char *name,
		char *why, size_t len)
{
	int err;

	a->t = mdata_find(&a->d, name);
	err = find_layout(a, df, kd, a->t ? a->t->type : name, a->t ? a->t->module : NULL);
	if (err == -ENOENT && a->t)
		return 0; /* a pseudo type or a base type: its counts alone */
	if (err == -ENOENT) {
		snprintf(why, len, "no type '%s' in the recording's DWARF%s%s%s", name,
			 *a->closest ? " (closest: " : "", a->closest, *a->closest ? ")" : "");
		return -ENOENT;
	}
	return err;
}

/*
 * Where each counted member goes: at[k] the layout row of member k (-1: none
 * holds it, e.g. the whole object), own[k] whether it is that row itself
 * (same name and offset) rather than nested in it.  A nested member goes
 * under the top-level one its name starts with, else the first that holds
 * its offset.
 */
static int place(struct ann *a, int **at, bool **own)
{
	const struct mdata_member *m;
	size_t k, i, n = a->t ? a->t->nmembers : 0;

	*at = calloc(n + 1, sizeof(**at));
	*own = calloc(n + 1, sizeof(**own));
	if (!*at || !*own)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		m = &a->t->members[k];
		(*at)[k] = -1;
		for (i = 0; a->l && i < a->l->n && (*at)[k] < 0; i++) {
			size_t ln = strlen(a->l->members[i].name);

			if (!*m->member)
				break;
			if (!strncmp(m->member, a->l->members[i].name, ln) &&
			    (!m->member[ln] || m->member[ln] == '.'))
				(*at)[k] = i;
			(*own)[k] = (*at)[k] >= 0 && !m->member[ln];
		}
		for (i = 0; a->l && i < a->l->n && (*at)[k] < 0 && *m->member; i++)
			if (m->offset >= a->l->members[i].offset &&
			    m->offset < a->l->members[i].offset + (a->l->members[i].size ?: 1))
				(*at)[k] = i;
	}
	return 0;
}

static void fns_text(const struct mdata_member *m)
{
	size_t i;

	if (!m || !m->nfns)
		return;
	printf("  (");
	for (i = 0; i < m->nfns && i < FNS_SHOWN; i++)
		esc_printf(stdout, "%s%s %llu", i ? ", " : "", m->fns[i].name,
			   (unsigned long long)m->fns[i].accesses);
	printf("%s)", m->nfns > FNS_SHOWN ? ", ..." : "");
}

static void fns_json(struct json *j, const struct mdata_member *m)
{
	size_t i;

	json_open(j, "functions", '[');
	for (i = 0; m && i < m->nfns; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", m->fns[i].name);
		json_u64(j, "accesses", m->fns[i].accesses);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* One row: what it is (left, padded), +offset, size, counts when known, the functions. */
static void row_text(const struct ann *a, const char *left, __u64 off, __u64 size,
		     const struct mdata_member *m)
{
	static const struct mdata_counts none;

	esc_printf(stdout, "%-44s +%-6llu %5llu", left, (unsigned long long)off,
		   (unsigned long long)size);
	if (a->t)
		mdata_cols_text(stdout, &a->d, m ? &m->c : &none);
	fns_text(m);
	putchar('\n');
}

static void nested_text(const struct ann *a, const int *at, const bool *own, int i)
{
	char left[512];
	size_t k;

	for (k = 0; a->t && k < a->t->nmembers; k++) {
		if (at[k] != i || own[k])
			continue;
		snprintf(left, sizeof(left), "        %s",
			 *a->t->members[k].member ? a->t->members[k].member : "(the whole object)");
		row_text(a, left, a->t->members[k].offset, a->t->members[k].size,
			 &a->t->members[k]);
	}
}

static void hole_text(const struct layout_member *m)
{
	if (m->bit_hole)
		printf("    /* XXX %u bit%s hole */\n", m->bit_hole, m->bit_hole == 1 ? "" : "s");
	if (m->hole)
		printf("    /* XXX %llu byte%s hole */\n", (unsigned long long)m->hole,
		       m->hole == 1 ? "" : "s");
}

/* A member as C declares it, as pahole shows it: "char name[16]", "unsigned int x:3". */
static void decl(char *buf, size_t len, int indent, const struct layout_member *m)
{
	const char *dim = strchr(m->type, '[');
	int n = dim ? dim - m->type : (int)strlen(m->type);

	snprintf(buf, len, "%*s%.*s %s%s", indent, "", n, m->type, m->name, dim ?: "");
	if (m->bit_size)
		snprintf(buf + strlen(buf), len - strlen(buf), ":%u", m->bit_size);
}

/* The layout's members in its order, each with its counts and nested members. */
static void layout_text(const struct ann *a, const int *at, const bool *own)
{
	const struct layout *l = a->l;
	__u64 line, past;
	char left[512];
	size_t i, k;

	esc_printf(stdout, "%s {\n", l->type);
	nested_text(a, at, own, -1);
	for (i = 0; i < l->n; i++) {
		const struct layout_member *m = &l->members[i];
		const struct mdata_member *c = NULL;

		if (layout_boundary(l, i, &line, &past) && !past)
			printf("    /* --- cacheline %llu boundary (%llu bytes) --- */\n",
			       (unsigned long long)line,
			       (unsigned long long)line * LAYOUT_CACHELINE);
		else if (layout_boundary(l, i, &line, &past))
			printf("    /* --- cacheline %llu boundary (%llu bytes) was %llu bytes ago "
			       "--- */\n",
			       (unsigned long long)line,
			       (unsigned long long)line * LAYOUT_CACHELINE,
			       (unsigned long long)past);
		for (k = 0; a->t && k < a->t->nmembers && !c; k++)
			c = at[k] == (int)i && own[k] ? &a->t->members[k] : NULL;
		decl(left, sizeof(left), 4 + 4 * m->depth, m);
		row_text(a, left, m->offset, m->size, c);
		nested_text(a, at, own, i);
		hole_text(m);
	}
	printf("}; /* size: %llu, cachelines: %llu, members: %zu, holes: %u, sum holes: %llu, "
	       "padding: %llu */\n",
	       (unsigned long long)l->size,
	       (unsigned long long)(l->size + LAYOUT_CACHELINE - 1) / LAYOUT_CACHELINE, l->n,
	       l->holes, (unsigned long long)l->hole_bytes, (unsigned long long)l->padding);
}

/* Without a layout (a pseudo or base type): the members counted, in offset order. */
static void counted_text(const struct ann *a)
{
	__u64 cur = 0;
	char left[512];
	size_t k;

	for (k = 0; k < a->t->nmembers; k++) {
		const struct mdata_member *m = &a->t->members[k];

		if (a->t->size)
			mdata_line_before(stdout, &a->d, 4, m->offset, &cur);
		snprintf(left, sizeof(left), "    %s",
			 *m->member ? m->member : "(the whole object)");
		row_text(a, left, m->offset, m->size, m);
		if (a->t->size)
			mdata_line_after(stdout, &a->d, 4, m->offset, m->size, &cur);
	}
}

static void show_text(const struct ann *a, const int *at, const bool *own)
{
	char left[64];

	mdata_header_text(stdout, &a->d);
	esc_printf(stdout, "# annotate %s (%s)", a->l ? a->l->type : a->t->type,
		   a->l ? a->module : a->t->module);
	if (a->l)
		esc_printf(stdout, ": %llu bytes, its layout from %s",
			   (unsigned long long)a->l->size, a->l->file);
	if (a->t)
		printf("; %llu accesses counted", (unsigned long long)mdata_accesses(&a->t->c));
	else
		printf("; no counted load or store touched it");
	printf("\n# members as pahole lists them, the accessed nested ones below theirs; the "
	       "functions\n# that access each (accesses)\n\n");
	snprintf(left, sizeof(left), "%-44s %-7s %5s", "member", "offset", "size");
	printf("%s", left);
	if (a->t)
		mdata_heads_text(stdout, &a->d);
	printf("  (functions)\n");
	if (a->l)
		layout_text(a, at, own);
	else
		counted_text(a);
}

static void counted_json(struct json *j, const struct ann *a, const struct mdata_member *m)
{
	static const struct mdata_counts none;

	if (a->t)
		mdata_counts_json(j, &a->d, m ? &m->c : &none);
	fns_json(j, m);
}

/* The counted members placed at row i (not the row itself), as JSON objects. */
static void nested_json(struct json *j, const struct ann *a, const int *at, const bool *own, int i)
{
	size_t k;

	for (k = 0; a->t && k < a->t->nmembers; k++) {
		if (at[k] != i || own[k])
			continue;
		json_open(j, NULL, '{');
		json_str(j, "member", a->t->members[k].member);
		json_u64(j, "offset", a->t->members[k].offset);
		json_u64(j, "size", a->t->members[k].size);
		counted_json(j, a, &a->t->members[k]);
		json_close(j, '}');
	}
}

static void lmember_json(struct json *j, const struct ann *a, const int *at, const bool *own,
			 size_t i)
{
	const struct layout_member *m = &a->l->members[i];
	const struct mdata_member *c = NULL;
	size_t k;

	for (k = 0; a->t && k < a->t->nmembers && !c; k++)
		c = at[k] == (int)i && own[k] ? &a->t->members[k] : NULL;
	json_open(j, NULL, '{');
	json_str(j, "member", m->name);
	json_str(j, "type", m->type);
	json_u64(j, "offset", m->offset);
	json_u64(j, "size", m->size);
	json_u64(j, "bit_offset", m->bit_offset);
	json_u64(j, "bit_size", m->bit_size);
	json_u64(j, "bit_hole", m->bit_hole);
	json_u64(j, "hole", m->hole);
	json_u64(j, "depth", m->depth);
	counted_json(j, a, c);
	json_open(j, "nested", '[');
	nested_json(j, a, at, own, i);
	json_close(j, ']');
	json_close(j, '}');
}

static void show_json(const struct ann *a, const int *at, const bool *own)
{
	struct json j;
	size_t i;

	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	model_header_json(&j, &a->d.mc);
	mdata_shares_json(&j, &a->d);
	json_str(&j, "type", a->l ? a->l->type : a->t->type);
	json_str(&j, "module", a->l ? a->module : a->t->module);
	json_u64(&j, "size", a->l ? a->l->size : a->t->size);
	json_str(&j, "file", a->l ? a->l->file : NULL);
	if (a->t)
		mdata_counts_json(&j, &a->d, &a->t->c);
	json_open(&j, "members", '[');
	for (i = 0; a->l && i < a->l->n; i++)
		lmember_json(&j, a, at, own, i);
	json_close(&j, ']');
	/* what no top-level member holds: the whole object, or everything without a layout */
	json_open(&j, "other", '[');
	nested_json(&j, a, at, own, -1);
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
}

int model_data_annotate(struct datafile *df, struct kernel_dwarf *kd, const char *note,
			const char *type, const struct model_view_opts *o, char *why, size_t len)
{
	struct ann a = {};
	int *at = NULL;
	bool *own = NULL;
	int err = mdata_collect(&a.d, df, kd, note, o->geom, why, len);

	err = err ?: pick(&a, df, kd, type, why, len) ?: place(&a, &at, &own);
	if (!err && o->json)
		show_json(&a, at, own);
	else if (!err)
		show_text(&a, at, own);
	free(at);
	free(own);
	layout_free(a.l);
	user_file_close(&a.uf);
	mdata_free(&a.d);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --blocks (diff_blocks.h): the --blocks functions of both recordings,
 * matched by name, each loaded whole with its blocks' source lines from its
 * side's vmlinux (analysis/blocks_src.h) and compared (diff_blocks_match.c,
 * diff_blocks_loops.c) before anything is printed (diff_blocks_print.c),
 * after the header, provenance and notes the other diff prints.
 */
#include "diff/diff_blocks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read.h"
#include "data/datafile.h"
#include "data/runs.h"
#include "diff/diff.h"
#include "diff/diff_blocks_int.h"
#include "diff/metrics.h"
#include "diff/prov.h"
#include "symbols/kernel_dwarf.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

/* The functions of both sides, by name. */
struct names {
	char **v;
	size_t n, cap;
};

struct comparison {
	const struct diff_opts *o;
	const struct diff_inputs *in;
	struct db_ctx c;
	struct diff_notes notes;
	struct names names;
	struct db_func *fn;
	size_t n;
};

static int add_name(const char *name, void *ctx)
{
	struct names *s = ctx;

	if (array_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -ENOMEM;
	s->v[s->n] = strdup(name);
	return s->v[s->n++] ? 0 : -ENOMEM;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of both sides (or o->func alone), sorted, each once. */
static int load_names(struct comparison *cmp)
{
	struct names *s = &cmp->names;
	size_t i, k;
	int side, err = 0;

	if (cmp->o->func)
		return add_name(cmp->o->func, s);
	for (side = 0; side < 2 && !err; side++)
		err = blocks_names(cmp->in->df[side], add_name, s);
	if (err || !s->n)
		return err;
	qsort(s->v, s->n, sizeof(*s->v), cmp_name);
	for (i = 1, k = 1; i < s->n; i++) {
		if (!strcmp(s->v[i], s->v[k - 1]))
			free(s->v[i]);
		else
			s->v[k++] = s->v[i];
	}
	s->n = k;
	return 0;
}

static int load_side(struct db_func *fn, int side, struct datafile *df, struct kernel_dwarf *kd)
{
	struct db_side *s = &fn->s[side];
	int err = blocks_load(df, fn->name, &s->f);

	if (err == -ENOENT) {
		blocks_func_free(&s->f);
		return 0;
	}
	if (err)
		return err;
	s->present = true;
	return blocks_src_open(&s->src, &s->f, kd);
}

/* Every function of either side, compared; -ENOENT when o->func is on neither. */
static int load_funcs(struct comparison *cmp)
{
	struct db_func *fn;
	size_t i;
	int side, err = load_names(cmp);

	cmp->fn = err ? NULL : calloc(cmp->names.n ?: 1, sizeof(*cmp->fn));
	if (!err && !cmp->fn)
		return -ENOMEM;
	for (i = 0; i < cmp->names.n && !err; i++) {
		fn = &cmp->fn[cmp->n++];
		fn->name = cmp->names.v[i];
		for (side = 0; side < 2 && !err; side++)
			err = load_side(fn, side, cmp->in->df[side], cmp->in->kd[side]);
		if (!err && !fn->s[DM_BASE].present && !fn->s[DM_HARD].present)
			err = -ENOENT;
		fn->lines = fn->s[DM_BASE].src.text && fn->s[DM_HARD].src.text;
		err = err ?: db_match(fn);
	}
	return err;
}

static int count_name(const char *name, void *ctx)
{
	++*(size_t *)ctx;
	return 0;
}

/* Each side must have --blocks data (a function at least); *side says which has none. */
static int check_present(struct comparison *cmp, int *side)
{
	bool present;
	size_t n = 0;
	int s, err;

	for (s = 0; s < 2; s++, n = 0) {
		err = blocks_present(cmp->in->df[s], &present);
		if (!err && present)
			err = blocks_names(cmp->in->df[s], count_name, &n);
		if (err)
			return err;
		if (!present || !n) {
			*side = s;
			return -ENODATA;
		}
	}
	return 0;
}

/* The notes: the others' warnings, a side before schema 7, a side without source lines. */
static void make_notes(struct comparison *cmp)
{
	struct datafile *const *df = cmp->in->df;
	int side;

	prov_warnings(cmp->in->df, cmp->c.runs, "from the execution counts, not over runs",
		      &cmp->notes);
	for (side = 0; side < 2; side++)
		if (datafile_schema(df[side]) < 7)
			prov_note(&cmp->notes,
				  "note: %s is schema %lld: no per-run counts, loop bounds, inline"
				  " instances or contexts (recorded before schema 7); its intervals"
				  " come from the counts",
				  prov_side_name[side], datafile_schema(df[side]));
	for (side = 0; side < 2; side++)
		if (!cmp->in->kd[side])
			prov_note(&cmp->notes,
				  "note: %s: no source lines, so its blocks cannot be matched to"
				  " the other side's: %.900s",
				  prov_side_name[side], cmp->in->nodebug[side]);
}

static int print_text(struct comparison *cmp, FILE *f)
{
	const struct diff_inputs *in = cmp->in;
	size_t i;
	int side, err;

	fputs("# kprotperf diff --blocks\n", f);
	for (side = 0; side < 2; side++)
		prov_side_text(side, cmp->o->path[side], in->df[side], cmp->c.runs[side], f);
	err = prov_print(in->df, in->feat, f, NULL);
	for (i = 0; i < (size_t)cmp->notes.n; i++)
		esc_printf(f, "# %s\n", cmp->notes.v[i]);
	for (i = 0; i < cmp->n && !err; i++)
		err = db_print(&cmp->c, &cmp->fn[i]);
	return err;
}

static int print_json(struct comparison *cmp, FILE *f)
{
	const struct diff_inputs *in = cmp->in;
	struct json j;
	size_t i;
	int side, err;

	json_begin(&j, f);
	cmp->c.j = &j;
	json_open(&j, NULL, '{');
	for (side = 0; side < 2; side++)
		prov_side_json(side, cmp->o->path[side], in->df[side], cmp->c.runs[side],
			       in->kd[side] ? kernel_dwarf_path(in->kd[side]) : NULL,
			       in->nodebug[side], &j);
	err = prov_print(in->df, in->feat, f, &j);
	json_open(&j, "notes", '[');
	for (i = 0; i < (size_t)cmp->notes.n; i++)
		json_str(&j, NULL, cmp->notes.v[i]);
	json_close(&j, ']');
	json_open(&j, "functions", '[');
	for (i = 0; i < cmp->n && !err; i++)
		err = db_print(&cmp->c, &cmp->fn[i]);
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
	return err;
}

static void cleanup(struct comparison *cmp)
{
	size_t i;
	int side;

	for (i = 0; i < cmp->n; i++) {
		db_match_free(&cmp->fn[i]);
		for (side = 0; side < 2; side++) {
			blocks_src_close(&cmp->fn[i].s[side].src);
			blocks_func_free(&cmp->fn[i].s[side].f);
		}
	}
	free(cmp->fn);
	for (i = 0; i < cmp->names.n; i++)
		free(cmp->names.v[i]);
	free(cmp->names.v);
}

int diff_blocks(const struct diff_opts *o, const struct diff_inputs *in, FILE *f, int *side)
{
	struct comparison cmp = {
		.o = o,
		.in = in,
		.c = {.top = o->top,
		      .out = f,
		      .nodebug = {in->nodebug[DM_BASE], in->nodebug[DM_HARD]}},
	};
	int s, err = check_present(&cmp, side);

	for (s = 0; s < 2 && !err; s++) {
		err = runs_prepare(in->df[s], &cmp.c.runs[s]);
		cmp.c.schema[s] = datafile_schema(in->df[s]);
	}
	if (!err) {
		make_notes(&cmp);
		err = load_funcs(&cmp);
	}
	if (!err)
		err = o->json ? print_json(&cmp, f) : print_text(&cmp, f);
	cleanup(&cmp);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate --model per source line (model_annotate_int.h): each counted PC placed
 * at the innermost line of its inline chain, so that inlined code counts
 * at its own file:line, and the PCs of one line (and inline chain) merged.
 * With a function: its lines by file and line, as cg_annotate shows a
 * source file; without: the hottest lines of all functions, by
 * instructions.
 */
#include "model/model_annotate_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_annotate.h"
#include "model/model_report.h"
#include "symbols/symbolize.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

static void line_free(struct model_line *l)
{
	free(l->c.name);
	free(l->c.module);
	free(l->file);
	free(l->inlined);
}

/* A new line of r's counts at r's place: its strings copied, the file's may go. */
static int line_part(struct model_ann *a, const struct model_row *r, const struct model_func *c)
{
	const struct sym_result *res;
	struct model_line *l;
	int err = model_pc_place(a, r->addr, r->module, &res);

	if (err == -ENOENT || (!err && (!res->frames[0].file || res->frames[0].line <= 0))) {
		model_func_add(&a->unplaced, c);
		return 0;
	}
	if (err || array_reserve((void **)&a->lines, &a->lcap, a->nlines + 1, sizeof(*a->lines)))
		return err ?: -ENOMEM;
	l = &a->lines[a->nlines];
	*l = (struct model_line){.c = *c, .line = res->frames[0].line};
	l->c.name = strdup(r->name);
	l->c.module = strdup(r->module);
	l->file = strdup(res->frames[0].file);
	l->inlined = model_inlined_chain(res);
	if (!l->c.name || !l->c.module || !l->file || !l->inlined) {
		line_free(l);
		return -ENOMEM;
	}
	a->nlines++;
	return 0;
}

static int keep_pc(struct model_ann *a, const struct model_row *r, const struct model_func *c)
{
	if (array_reserve((void **)&a->pcs, &a->pcap, a->npcs + 1, sizeof(*a->pcs)))
		return -ENOMEM;
	a->pcs[a->npcs++] = (struct model_pc){.pc = r->addr, .c = *c};
	return 0;
}

static int pc_row(const struct model_row *r, void *ctx)
{
	struct model_ann *a = ctx;
	struct model_func c = {.insns = r->insns};
	int err;

	memcpy(c.v, r->v, sizeof(c.v));
	memcpy(c.x, r->x, sizeof(c.x));
	if (a->fn && (strcmp(r->name, a->fn->name) || strcmp(r->module, a->fn->module)))
		return 0;
	err = a->fn ? keep_pc(a, r, &c) : 0;
	return err ?: line_part(a, r, &c);
}

static int by_place(const void *x, const void *y)
{
	const struct model_line *a = x, *b = y;

	return strcmp(a->file, b->file) ?: (a->line > b->line) - (a->line < b->line)
		?: strcmp(a->inlined, b->inlined) ?: strcmp(a->c.name, b->c.name)
		?: strcmp(a->c.module, b->c.module);
}

static int by_insns(const void *x, const void *y)
{
	const struct model_line *a = x, *b = y;

	if (a->c.insns != b->c.insns)
		return a->c.insns > b->c.insns ? -1 : 1;
	return by_place(x, y);
}

static int by_pc(const void *x, const void *y)
{
	const struct model_pc *a = x, *b = y;

	return (a->pc > b->pc) - (a->pc < b->pc);
}

/* The parts of one place summed into one line each. */
static void merge(struct model_ann *a)
{
	size_t i, n = 0;

	qsort(a->lines, a->nlines, sizeof(*a->lines), by_place);
	for (i = 0; i < a->nlines; i++) {
		if (n && !by_place(&a->lines[n - 1], &a->lines[i])) {
			model_func_add(&a->lines[n - 1].c, &a->lines[i].c);
			line_free(&a->lines[i]);
		} else {
			a->lines[n++] = a->lines[i];
		}
	}
	a->nlines = n;
}

int model_lines_collect(struct model_ann *a)
{
	int err = model_each_pc(a->df, a->o->geom, pc_row, a);

	if (err)
		return err;
	/* qsort() of no array: NULL, which it must not be given */
	if (a->npcs)
		qsort(a->pcs, a->npcs, sizeof(*a->pcs), by_pc);
	if (!a->nlines)
		return 0;
	merge(a);
	if (!a->fn)
		qsort(a->lines, a->nlines, sizeof(*a->lines), by_insns);
	return 0;
}

static void line_text(struct model_ann *a, const struct model_line *l, __u64 whole)
{
	char where[300];

	snprintf(where, sizeof(where), "%s:%d", l->file, l->line);
	model_cols_text(stdout, &a->mc, &l->c, whole);
	if (a->fn && !*l->inlined)
		esc_printf(stdout, "  %s\n", where);
	else if (a->fn)
		esc_printf(stdout, "  %-32s %s\n", where, l->inlined);
	else
		esc_printf(stdout, "  %-32s %s  %s  %s\n", where, l->c.name, l->c.module,
			   l->inlined);
}

static void lines_text(struct model_ann *a, size_t n)
{
	__u64 whole = a->fn ? a->fn->insns : a->mc.total.insns;
	size_t i;

	if (a->fn)
		printf("\nPer source line, by file and line (inlined code at its own line; INLINED: "
		       "the functions\ninlined there, outermost first; share of the function's "
		       "instructions):\n");
	else
		printf("\nHottest source lines by instructions (%zu of %zu; inlined code at its own "
		       "line;\nshare of all instructions counted):\n",
		       n, a->nlines);
	model_heads_text(stdout, &a->mc);
	printf("  %-32s %s\n", "LINE", a->fn ? "INLINED" : "FUNCTION  MODULE  INLINED");
	for (i = 0; i < n; i++)
		line_text(a, &a->lines[i], whole);
	if (a->unplaced.insns)
		printf("# %llu instructions at PCs no line table places\n",
		       (unsigned long long)a->unplaced.insns);
}

static void lines_json(struct model_ann *a, size_t n)
{
	size_t i;

	json_open(a->j, "lines", '[');
	for (i = 0; i < n; i++) {
		json_open(a->j, NULL, '{');
		model_func_json(a->j, &a->mc, &a->lines[i].c);
		json_str(a->j, "file", a->lines[i].file);
		json_u64(a->j, "line", a->lines[i].line);
		json_str(a->j, "inlined", a->lines[i].inlined);
		json_close(a->j, '}');
	}
	json_close(a->j, ']');
	json_u64(a->j, "unplaced_insns", a->unplaced.insns);
}

void model_lines_print(struct model_ann *a)
{
	size_t n = a->fn || a->nlines < a->o->top ? a->nlines : a->o->top;

	if (a->j)
		lines_json(a, n);
	else
		lines_text(a, n);
}

void model_lines_free(struct model_ann *a)
{
	size_t i;

	for (i = 0; i < a->nlines; i++)
		line_free(&a->lines[i]);
	free(a->lines);
	free(a->pcs);
	a->lines = NULL;
	a->pcs = NULL;
	a->nlines = a->npcs = 0;
}

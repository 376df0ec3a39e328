// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate --model (model_annotate.h): the function picked, each counted PC
 * placed at its source line (kernel PCs through the kernel's DWARF, user
 * PCs through the mapping that holds them and their file's DWARF), then
 * the lines (model_lines.c) and, for a kernel function, its blocks (model_blocks.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "model/model_annotate.h"
#include "model/model_annotate_int.h"
#include "model/model_report.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/symbolize.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

static __u64 sat_add(__u64 a, __u64 b)
{
	return a + b < a ? (__u64)-1 : a + b;
}

void model_func_add(struct model_func *a, const struct model_func *b)
{
	int i;

	a->insns = sat_add(a->insns, b->insns);
	for (i = 0; i < MODEL_STATS; i++)
		a->v[i] = sat_add(a->v[i], b->v[i]);
}

char *model_inlined_chain(const struct sym_result *r)
{
	size_t len = 1, at = 0;
	unsigned int i;
	char *s;

	for (i = 0; i + 1 < r->n; i++)
		len += strlen(r->frames[i].func ?: "?") + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	*s = 0;
	for (i = r->n > 1 ? r->n - 1 : 0; i-- > 0;)
		at += snprintf(s + at, len - at, "%s%s", at ? ";" : "", r->frames[i].func ?: "?");
	return s;
}

static int map_row(const struct model_map *m, void *ctx)
{
	struct model_map_list *l = ctx;
	struct model_map *d;

	if (array_reserve((void **)&l->m, &l->cap, l->n + 1, sizeof(*l->m)))
		return -ENOMEM;
	d = &l->m[l->n];
	*d = *m;
	d->path = strdup(m->path);
	d->build_id = strdup(m->build_id);
	if (!d->path || !d->build_id) {
		free((char *)d->path);
		free((char *)d->build_id);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static void maps_free(struct model_map_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free((char *)l->m[i].path);
		free((char *)l->m[i].build_id);
	}
	free(l->m);
}

/* A user PC of the file at path: through the mapping that holds it, at its file offset. */
static int user_place(struct model_ann *a, __u64 pc, const char *path, const struct sym_result **r)
{
	const struct model_map *m = NULL;
	size_t i;
	int err;

	for (i = 0; i < a->maps.n && !m; i++)
		if (pc >= a->maps.m[i].start && pc < a->maps.m[i].end &&
		    !strcmp(a->maps.m[i].path, path))
			m = &a->maps.m[i];
	if (!m)
		return -ENOENT;
	if (!user_file_is(&a->uf, m->path, m->build_id)) {
		err = user_file_open(&a->uf, m->path, m->build_id, datafile_symfs(a->df));
		if (err)
			return err;
	}
	return user_file_symbolize(&a->uf, pc - m->start + m->pgoff, r);
}

int model_pc_place(struct model_ann *a, __u64 pc, const char *module, const struct sym_result **r)
{
	int err;

	if (pc >= MODEL_KERNEL_START) {
		if (!a->kd || strcmp(module, "[kernel]"))
			return -ENOENT;
		err = kernel_dwarf_symbolize(a->kd, pc, r);
	} else {
		err = *module == '/' ? user_place(a, pc, module, r) : -ENOENT;
	}
	return err;
}

/* o->func's row: the kernel's when both the kernel and a user file have one. */
static int pick(struct model_ann *a, const char *note, char *why, size_t len)
{
	const char *name = a->o->func;
	size_t i;

	for (i = 0; i < a->mc.nfuncs; i++)
		if (!strcmp(a->mc.funcs[i].name, name) &&
		    (!a->fn || !strcmp(a->mc.funcs[i].module, "[kernel]")))
			a->fn = &a->mc.funcs[i];
	if (!a->fn) {
		snprintf(why, len, "%s has no instruction the model counted (see report --model)",
			 name);
		return -ENOENT;
	}
	a->kernel = !strcmp(a->fn->module, "[kernel]");
	if (a->kernel && !a->kd) {
		snprintf(why, len,
			 "%s is a kernel function: its lines and blocks need the kernel's "
			 "DWARF: %s",
			 name, note && *note ? note : "none found");
		return -ENOKEY;
	}
	return 0;
}

/* A function none of whose counted PCs has a line: its file's DWARF is not there. */
static int no_lines(struct model_ann *a, char *why, size_t len)
{
	if (!a->fn || a->nlines)
		return 0;
	if (*a->fn->module == '/')
		snprintf(why, len,
			 "no line of %s is known: no DWARF for %s (build it with -g, install its "
			 "-dbg package, or give --symfs DIR holding its files)",
			 a->fn->name, a->fn->module);
	else
		snprintf(why, len, "no line of %s (%s) is known to the kernel's DWARF", a->fn->name,
			 a->fn->module);
	return -ENOKEY;
}

static void head_text(struct model_ann *a, const char *note)
{
	double share;

	model_header_text(stdout, &a->mc);
	if (!a->fn) {
		printf("# annotate: the hottest source lines of all functions\n");
		if (!a->kd)
			esc_printf(stdout, "# kernel lines unplaced: no kernel DWARF: %s\n",
				   note ?: "none found");
		return;
	}
	share = a->mc.total.insns ? 100.0 * a->fn->insns / a->mc.total.insns : 0;
	esc_printf(stdout, "# annotate %s %s: %llu instructions (%.2f%% of all counted)\n",
		   a->fn->name, a->fn->module, (unsigned long long)a->fn->insns, share);
	if (a->kernel)
		esc_printf(stdout, "# DWARF and text from %s\n", kernel_dwarf_path(a->kd));
}

static void show_text(struct model_ann *a, const char *note)
{
	head_text(a, note);
	model_lines_print(a);
	if (a->blk)
		model_blocks_print(a);
}

static void show_json(struct model_ann *a)
{
	struct json j;

	a->j = &j;
	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	model_header_json(&j, &a->mc);
	if (a->fn) {
		json_open(&j, "functions", '[');
		json_open(&j, NULL, '{');
		model_func_json(&j, &a->mc, a->fn);
		if (a->kernel)
			json_str(&j, "vmlinux", kernel_dwarf_path(a->kd));
	}
	model_lines_print(a);
	if (a->blk)
		model_blocks_print(a);
	if (a->fn) {
		json_close(&j, '}');
		json_close(&j, ']');
	}
	json_close(&j, '}');
	json_end(&j);
}

int model_annotate(struct datafile *df, struct kernel_dwarf *kd, const char *note,
		   const struct model_annotate_opts *o, char *why, size_t len)
{
	struct model_ann a = {.df = df, .kd = kd, .o = o};
	int err = model_counts_read(df, o->geom, &a.mc, why, len);

	if (!err && o->func)
		err = pick(&a, note, why, len);
	err = err ?: model_maps(df, map_row, &a.maps);
	err = err ?: model_lines_collect(&a) ?: no_lines(&a, why, len);
	if (!err && a.kernel)
		err = model_blocks_build(&a);
	if (!err && o->json)
		show_json(&a);
	else if (!err)
		show_text(&a, note);
	model_blocks_free(&a);
	model_lines_free(&a);
	user_file_close(&a.uf);
	maps_free(&a.maps);
	model_counts_free(&a.mc);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate --model (model_annotate.h): the function picked, each counted PC
 * placed at its source line (model_place.c), then the lines (model_lines.c)
 * and, for a kernel function, its blocks (model_blocks.c).
 */
#include "model/model_annotate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "model/model_annotate_int.h"
#include "model/model_report.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"
#include "util/json.h"

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
	model_costs_json(&j, &a->mc);
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
	int err = model_counts_read(df, o->geom, &a.mc, why, len)
			  ?: model_counts_stack(&a.mc, o->stack, why, len);

	if (!err && o->func)
		err = pick(&a, note, why, len);
	err = err ?: model_place_open(&a);
	err = err ?: model_lines_collect(&a) ?: no_lines(&a, why, len);
	/* after the refusals: a missing cost table is said in a line of its own */
	err = err ?: model_counts_costs(df, o->costs, &a.mc);
	if (!err && a.kernel)
		err = model_blocks_build(&a);
	if (!err && o->json)
		show_json(&a);
	else if (!err)
		show_text(&a, note);
	model_blocks_free(&a);
	model_lines_free(&a);
	model_place_close(&a);
	model_counts_free(&a.mc);
	return err;
}

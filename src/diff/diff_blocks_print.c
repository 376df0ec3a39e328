// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --blocks printed (diff_blocks_int.h): per function a headline (its
 * calls and instructions per call on each side, the line that changed the
 * most, the loops whose bound explains their change), then its source
 * lines, loops and flipped branches as tables, or all of it as JSON.
 * Names, files and bound expressions come from the data files and DWARF:
 * escaped.
 */
#include "diff/diff_blocks_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/metrics.h"
#include "diff/prov.h"
#include "diff/tables.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"
#include "util/json.h"

/* What Poisson intervals count here. */
#define POISSON_WHAT "counts as Poisson (a side with one run, or runs without counts)"

static const char *const only_name[] = {"base only", "hardened only"};

/* DM_BASE or DM_HARD when only that side has it, else -1. */
static int only_side(const struct db_measure *m)
{
	return m->seen[DM_BASE] == m->seen[DM_HARD] ? -1 : m->seen[DM_BASE] ? DM_BASE : DM_HARD;
}

static double side_value(const struct db_measure *m, int side)
{
	return side == DM_BASE ? m->r.base : m->r.hard;
}

static void fmt_value(char *buf, size_t len, const struct db_measure *m, int side, bool pct)
{
	if (!m->seen[side])
		snprintf(buf, len, "-");
	else if (!m->known[side])
		snprintf(buf, len, "?");
	else if (pct)
		snprintf(buf, len, "%.1f%%", 100 * side_value(m, side));
	else
		snprintf(buf, len, "%.2f", side_value(m, side));
}

/* "base only", "?" (a side unknown), or the change with its interval ("new", "gone"). */
static void fmt_change(char *buf, size_t len, const struct db_measure *m)
{
	int only = only_side(m);

	if (only >= 0)
		snprintf(buf, len, "%s", only_name[only]);
	else if (!m->known[DM_BASE] || !m->known[DM_HARD])
		snprintf(buf, len, "?");
	else
		tables_fmt_change(buf, len, &m->r, tables_presence(m->r.base > 0, m->r.hard > 0));
}

/* A table's method, as its title says it: the first row's that has one (m; NULL: none). */
static void method_text(const struct db_measure *m, FILE *f)
{
	static const size_t none[2];

	tables_method(m ? m->r.method : DS_NONE, m ? m->runs : none, POISSON_WHAT, f);
}

static void json_measure(struct json *j, const char *key, const struct db_measure *m)
{
	enum tables_presence p = tables_presence(m->r.base > 0, m->r.hard > 0);
	bool both = m->known[DM_BASE] && m->known[DM_HARD];
	int side;

	json_open(j, key, '{');
	for (side = 0; side < 2; side++)
		json_double(j, prov_side_name[side],
			    m->seen[side] && m->known[side] ? side_value(m, side) : NAN);
	json_double(j, "delta", both ? m->r.hard - m->r.base : NAN);
	json_str(j, "status", both ? tables_presence_name[p] : NULL);
	/* a change only between two known values: nulls else, as for new */
	tables_json_change(j, "", &m->r, both ? p : TABLES_NEW);
	tables_json_sig(j, "significant", &m->r);
	json_str(j, "method", stats_method_name(m->r.method));
	json_close(j, '}');
}

/* Why a side's blocks have no lines, "" when they have. */
static void why_no_lines(const struct db_side *s, const char *nodebug, char *buf, size_t len)
{
	if (!s->present || s->src.text)
		*buf = '\0';
	else if (!s->src.kd)
		snprintf(buf, len, "%s", nodebug);
	else
		snprintf(buf, len, "%s holds no text at %llx", kernel_dwarf_path(s->src.kd),
			 (unsigned long long)(s->f.addr - s->src.slide));
}

static double calls_per_run(const struct db_ctx *c, const struct db_func *fn, int side)
{
	return c->runs[side] ? (double)fn->s[side].f.calls / c->runs[side] : 0;
}

static void inline_text(const struct db_ctx *c, int side, const struct blocks_inline *in)
{
	esc_printf(c->out, "  %s: an inline instance: %s inlined into %s", prov_side_name[side],
		   in->name, in->parent);
	if (*in->call_file)
		esc_printf(c->out, ", called at %s:%d", in->call_file, in->call_line);
	fputc('\n', c->out);
}

/* The function's calls and instructions per call on each side, and what it is. */
static void headline(const struct db_ctx *c, const struct db_func *fn)
{
	const struct db_measure *m = &fn->insns;
	char b[32], h[32], change[96];
	int side, only = only_side(m);

	fmt_value(b, sizeof(b), m, DM_BASE, false);
	fmt_value(h, sizeof(h), m, DM_HARD, false);
	esc_printf(c->out, "\n%s: ", fn->name);
	if (only >= 0) {
		fprintf(c->out, "%s; calls per run %.1f; instructions per call %s\n",
			only_name[only], calls_per_run(c, fn, only), only ? h : b);
	} else {
		fmt_change(change, sizeof(change), m);
		fprintf(c->out, "calls per run %.1f -> %.1f; instructions per call %s -> %s, %s\n",
			calls_per_run(c, fn, DM_BASE), calls_per_run(c, fn, DM_HARD), b, h, change);
	}
	for (side = 0; side < 2; side++)
		if (fn->s[side].present && fn->s[side].f.inl)
			inline_text(c, side, fn->s[side].f.inl);
}

/* The line whose instructions per call changed the most; each loop its bound explains. */
static void causes(const struct db_ctx *c, const struct db_func *fn)
{
	const struct db_line *d = fn->nline ? &fn->line[0] : NULL;
	const struct db_loop *l;
	char b[32], h[32], change[96];
	const char *file;
	size_t i;
	int only, line;

	if (d && db_change(&d->insns) > 0) {
		only = only_side(&d->insns);
		fmt_value(b, sizeof(b), &d->insns, DM_BASE, false);
		fmt_value(h, sizeof(h), &d->insns, DM_HARD, false);
		esc_printf(c->out,
			   "  heaviest difference: %s:%d%s%s: %s -> %s instructions per call"
			   " (%+.2f)\n",
			   d->file, d->line, only >= 0 ? ", " : "",
			   only >= 0 ? only_name[only] : "", b, h,
			   d->insns.r.hard - d->insns.r.base);
	}
	for (i = 0; i < fn->nloop; i++) {
		l = &fn->loop[i];
		if (!*l->cause)
			continue;
		fmt_change(change, sizeof(change), &l->trips);
		blocks_src_loop_line(&fn->s[DM_BASE].src, l->loop[DM_BASE], &file, &line);
		esc_printf(c->out, "  loop at %s:%d: %.1f -> %.1f trips per call, %s; %s\n",
			   file ?: l->file, file ? line : l->line, l->trips.r.base, l->trips.r.hard,
			   change, l->cause);
	}
}

static void lines_text(const struct db_ctx *c, const struct db_func *fn)
{
	char eb[32], eh[32], ib[32], ih[32], delta[32], change[96], where[160];
	const struct db_line *d;
	size_t i;

	for (i = 0; i < fn->nline && fn->line[i].insns.r.method == DS_NONE; i++)
		;
	esc_printf(c->out,
		   "\nSource lines of %s, by the change of instructions per call (EXECS: executions"
		   " per call of the blocks with code on the line; INSNS: instructions executed on"
		   " it per call); 95%% CI: ",
		   fn->name);
	method_text(i < fn->nline ? &fn->line[i].insns : NULL, c->out);
	fprintf(c->out, "\n%-32s %11s %11s %11s %11s %10s  %s\n", "LINE", "EXECS BASE", "HARDENED",
		"INSNS BASE", "HARDENED", "DELTA", "CHANGE [95% CI]");
	for (i = 0; i < fn->nline && i < c->top; i++) {
		d = &fn->line[i];
		fmt_value(eb, sizeof(eb), &d->execs, DM_BASE, false);
		fmt_value(eh, sizeof(eh), &d->execs, DM_HARD, false);
		fmt_value(ib, sizeof(ib), &d->insns, DM_BASE, false);
		fmt_value(ih, sizeof(ih), &d->insns, DM_HARD, false);
		fmt_change(change, sizeof(change), &d->insns);
		if (db_change(&d->insns) < 0)
			snprintf(delta, sizeof(delta), "?");
		else
			snprintf(delta, sizeof(delta), "%+.2f", d->insns.r.hard - d->insns.r.base);
		snprintf(where, sizeof(where), "%s:%d", d->file, d->line);
		esc_printf(c->out, "%-32s %11s %11s %11s %11s %10s  %s\n", where, eb, eh, ib, ih,
			   delta, change);
	}
	if (fn->nline > c->top)
		fprintf(c->out, "... (%zu lines more)\n", fn->nline - c->top);
}

/* A side's bound of a loop matched on both or either, under the loop's row. */
static int bound_text(const struct db_ctx *c, const struct db_func *fn, const struct db_loop *l,
		      int side)
{
	if (!l->trips.seen[side])
		return 0;
	if (fn->s[side].f.loops[l->loop[side]].bound.expr)
		fprintf(c->out, "    %s:\n", prov_side_name[side]);
	else if (c->schema[side] < 7)
		fprintf(c->out, "    %s: bound not recorded (schema %lld)\n", prov_side_name[side],
			c->schema[side]);
	else
		fprintf(c->out, "    %s: no bound found\n", prov_side_name[side]);
	return blocks_src_bound_text(c->out, &fn->s[side].src, l->loop[side], "      ", c->top);
}

static int loops_text(const struct db_ctx *c, const struct db_func *fn)
{
	char b[32], h[32], change[96], where[160];
	const struct db_loop *l;
	size_t i;
	int err = 0;

	for (i = 0; i < fn->nloop && fn->loop[i].trips.r.method == DS_NONE; i++)
		;
	esc_printf(c->out,
		   "\nLoops of %s, by their head's line: trips per call (executions of the head);"
		   " 95%% CI: ",
		   fn->name);
	method_text(i < fn->nloop ? &fn->loop[i].trips : NULL, c->out);
	fprintf(c->out, "\n%-32s %10s %10s  %s\n", "HEAD LINE", "BASE", "HARDENED",
		"CHANGE [95% CI]");
	for (i = 0; i < fn->nloop && i < c->top && !err; i++) {
		l = &fn->loop[i];
		fmt_value(b, sizeof(b), &l->trips, DM_BASE, false);
		fmt_value(h, sizeof(h), &l->trips, DM_HARD, false);
		fmt_change(change, sizeof(change), &l->trips);
		if (l->file)
			snprintf(where, sizeof(where), "%s:%d", l->file, l->line);
		else
			snprintf(where, sizeof(where), "(line unknown)");
		esc_printf(c->out, "%-32s %10s %10s  %s\n", where, b, h, change);
		err = bound_text(c, fn, l, DM_BASE) ?: bound_text(c, fn, l, DM_HARD);
	}
	if (!fn->nloop)
		fputs("(none)\n", c->out);
	else if (fn->nloop > c->top)
		fprintf(c->out, "... (%zu loops more)\n", fn->nloop - c->top);
	return err;
}

static void branches_text(const struct db_ctx *c, const struct db_func *fn)
{
	char b[32], h[32], change[96], where[160];
	const struct db_branch *d;
	size_t i;

	for (i = 0; i < fn->nbr && fn->br[i].taken.r.method == DS_NONE; i++)
		;
	esc_printf(c->out,
		   "\nBranches of %s whose direction flipped (taken ratio across 50%%), by the"
		   " branch's line; 95%% CI: ",
		   fn->name);
	method_text(i < fn->nbr ? &fn->br[i].taken : NULL, c->out);
	fprintf(c->out, "\n%-32s %10s %10s  %s\n", "BRANCH LINE", "TAKEN BASE", "HARDENED",
		"CHANGE [95% CI]");
	for (i = 0; i < fn->nbr && i < c->top; i++) {
		d = &fn->br[i];
		fmt_value(b, sizeof(b), &d->taken, DM_BASE, true);
		fmt_value(h, sizeof(h), &d->taken, DM_HARD, true);
		fmt_change(change, sizeof(change), &d->taken);
		snprintf(where, sizeof(where), "%s:%d", d->file, d->line);
		esc_printf(c->out, "%-32s %10s %10s  %s\n", where, b, h, change);
	}
	if (!fn->nbr)
		fputs("(none)\n", c->out);
	else if (fn->nbr > c->top)
		fprintf(c->out, "... (%zu branches more)\n", fn->nbr - c->top);
}

static int print_text(const struct db_ctx *c, const struct db_func *fn)
{
	char why[2][1200];
	int side, err;

	headline(c, fn);
	if (!fn->s[DM_BASE].present || !fn->s[DM_HARD].present)
		return 0;
	if (!fn->lines) {
		for (side = 0; side < 2; side++)
			why_no_lines(&fn->s[side], c->nodebug[side], why[side], sizeof(why[side]));
		esc_printf(c->out, "  source lines not compared: %s%s%s%s%s\n",
			   *why[DM_BASE] ? "base: " : "", why[DM_BASE],
			   *why[DM_BASE] && *why[DM_HARD] ? "; " : "",
			   *why[DM_HARD] ? "hardened: " : "", why[DM_HARD]);
		return 0;
	}
	causes(c, fn);
	lines_text(c, fn);
	err = loops_text(c, fn);
	if (!err)
		branches_text(c, fn);
	return err;
}

static void inline_json(struct json *j, const struct db_func *fn)
{
	const struct blocks_inline *in;
	int side;

	json_open(j, "inline", '{');
	for (side = 0; side < 2; side++) {
		in = fn->s[side].present ? fn->s[side].f.inl : NULL;
		if (!in) {
			json_str(j, prov_side_name[side], NULL);
			continue;
		}
		json_open(j, prov_side_name[side], '{');
		json_str(j, "name", in->name);
		json_str(j, "parent", in->parent);
		json_str(j, "call_file", *in->call_file ? in->call_file : NULL);
		json_u64(j, "call_line", in->call_line);
		json_close(j, '}');
	}
	json_close(j, '}');
}

/* The function's own figures: what it is on each side, calls, instructions per call. */
static void func_json(const struct db_ctx *c, const struct db_func *fn)
{
	struct json *j = c->j;
	int side, only = only_side(&fn->insns);
	char why[1200];

	json_str(j, "function", fn->name);
	json_str(j, "only", only >= 0 ? prov_side_name[only] : NULL);
	inline_json(j, fn);
	json_open(j, "calls_per_run", '{');
	for (side = 0; side < 2; side++)
		json_double(j, prov_side_name[side],
			    fn->s[side].present ? calls_per_run(c, fn, side) : NAN);
	json_close(j, '}');
	json_measure(j, "insns_per_call", &fn->insns);
	json_bool(j, "lines_compared", fn->lines);
	json_open(j, "lines_missing", '{');
	for (side = 0; side < 2; side++) {
		why_no_lines(&fn->s[side], c->nodebug[side], why, sizeof(why));
		json_str(j, prov_side_name[side], *why ? why : NULL);
	}
	json_close(j, '}');
}

/* A row's source line, and the side that alone has it (null: both). */
static void where_json(struct json *j, const char *file, int line, const struct db_measure *m)
{
	int only = only_side(m);

	json_str(j, "file", file);
	json_u64(j, "line", file ? line : 0);
	json_str(j, "only", only >= 0 ? prov_side_name[only] : NULL);
}

static void lines_json(struct json *j, const struct db_func *fn)
{
	const struct db_line *d;
	size_t i;

	d = fn->nline && db_change(&fn->line[0].insns) > 0 ? &fn->line[0] : NULL;
	if (d) {
		json_open(j, "heaviest", '{');
		json_str(j, "file", d->file);
		json_u64(j, "line", d->line);
		json_close(j, '}');
	} else {
		json_str(j, "heaviest", NULL);
	}
	json_open(j, "lines", '[');
	for (i = 0; i < fn->nline; i++) {
		d = &fn->line[i];
		json_open(j, NULL, '{');
		where_json(j, d->file, d->line, &d->insns);
		json_measure(j, "execs_per_call", &d->execs);
		json_measure(j, "insns_per_call", &d->insns);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/*
 * Why the loop's trips changed, when its bound says: the bound on each side,
 * and each cache whose value of it changed.
 */
static void json_cause(struct json *j, const struct db_func *fn, const struct db_loop *l)
{
	size_t i;

	if (!l->nchanged) {
		json_str(j, "cause", NULL);
		return;
	}
	json_open(j, "cause", '{');
	json_str(j, "text", l->cause);
	json_str(j, "base_bound", fn->s[DM_BASE].f.loops[l->loop[DM_BASE]].bound.expr);
	json_str(j, "hardened_bound", fn->s[DM_HARD].f.loops[l->loop[DM_HARD]].bound.expr);
	json_open(j, "changed", '[');
	for (i = 0; i < l->nchanged; i++) {
		json_open(j, NULL, '{');
		json_str(j, "ctx", l->changed[i].ctx);
		json_i64(j, "base", l->changed[i].base);
		json_i64(j, "hardened", l->changed[i].hard);
		json_u64(j, "calls", l->changed[i].calls);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}

static int loop_json(struct json *j, const struct db_func *fn, const struct db_loop *l)
{
	int side, err = 0;

	json_open(j, NULL, '{');
	where_json(j, l->file, l->line, &l->trips);
	json_open(j, "loop", '{');
	for (side = 0; side < 2; side++)
		if (l->loop[side] < 0)
			json_str(j, prov_side_name[side], NULL);
		else
			json_u64(j, prov_side_name[side], l->loop[side]);
	json_close(j, '}');
	json_measure(j, "trips_per_call", &l->trips);
	json_open(j, "bound", '{');
	for (side = 0; side < 2 && !err; side++)
		if (l->loop[side] < 0)
			json_str(j, prov_side_name[side], NULL);
		else
			err = blocks_src_bound_json(j, prov_side_name[side], &fn->s[side].src,
						    l->loop[side]);
	json_close(j, '}');
	json_cause(j, fn, l);
	json_close(j, '}');
	return err;
}

static int print_json(const struct db_ctx *c, const struct db_func *fn)
{
	struct json *j = c->j;
	size_t i;
	int err = 0;

	json_open(j, NULL, '{');
	func_json(c, fn);
	lines_json(j, fn);
	json_open(j, "loops", '[');
	for (i = 0; i < fn->nloop && !err; i++)
		err = loop_json(j, fn, &fn->loop[i]);
	json_close(j, ']');
	json_open(j, "branches", '[');
	for (i = 0; i < fn->nbr; i++) {
		json_open(j, NULL, '{');
		where_json(j, fn->br[i].file, fn->br[i].line, &fn->br[i].taken);
		json_measure(j, "taken_ratio", &fn->br[i].taken);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
	return err;
}

int db_print(const struct db_ctx *c, const struct db_func *fn)
{
	return c->j ? print_json(c, fn) : print_text(c, fn);
}

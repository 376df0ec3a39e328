// SPDX-License-Identifier: GPL-2.0-only
/*
 * A loop's bound as report --blocks and diff --blocks show it
 * (blocks_src.h): the expression and condition record --blocks found, how
 * the trips per call follow the value read (trips = bound + c), and the
 * values per slab cache.  The expressions and cache names come from the
 * data file: escaped.
 */
#include "analysis/blocks_src.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "data/blocks_read.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

/* "slab->objects - 1": the bound plus the offset. */
static void plus(char *buf, size_t len, long long offset)
{
	if (!offset)
		*buf = '\0';
	else if (offset < 0)
		snprintf(buf, len, " - %llu", -(unsigned long long)offset);
	else
		snprintf(buf, len, " + %lld", offset);
}

static void relation_text(FILE *out, const char *indent, const struct blocks_bound *b,
			  const struct blocks_relation *r)
{
	char off[32], n[32], all[32];

	/* "*(u16 *)(%r15 + 0x2a) & 0x7fff - 1" would read as something else */
	bool paren = r->offset && strchr(b->expr, ' ');

	plus(off, sizeof(off), r->offset);
	fmt_count(n, sizeof(n), r->calls);
	fmt_count(all, sizeof(all), r->all);
	esc_printf(out, "%strips per call = %s%s%s%s ", indent, paren ? "(" : "", b->expr,
		   paren ? ")" : "", off);
	if (r->calls == r->all && r->all == 1)
		fputs("in its one call\n", out);
	else if (r->calls == r->all)
		fprintf(out, "in all %s calls\n", all);
	else
		fprintf(out, "in %s of %s calls (%.1f%%)\n", n, all, 100.0 * r->calls / r->all);
}

/* The values of loop, one line each, the first top of them. */
static void values_text(FILE *out, const struct blocks_func *f, int loop, const char *indent,
			size_t top)
{
	const struct blocks_bound_value *v;
	size_t i, shown = 0, more = 0;
	char n[32];

	for (i = 0; i < f->nbv; i++) {
		v = &f->bv[i];
		if (v->loop != loop)
			continue;
		if (shown == top) {
			more++;
			continue;
		}
		shown++;
		fmt_count(n, sizeof(n), v->count);
		esc_printf(out, "%s%s%s%s = %lld, %lld trips per call (%s call%s)\n", indent,
			   v->ctx, *v->ctx ? ": " : "", f->loops[loop].bound.expr, v->bound,
			   v->trips, n, v->count == 1 ? "" : "s");
	}
	if (more)
		fprintf(out, "%s... (%zu values more)\n", indent, more);
}

/* The compare's line, when the bound's block was decoded: its last instruction's. */
static bool cmp_line(const struct blocks_src *s, const struct blocks_bound *b, const char **file,
		     int *line)
{
	size_t n = b->expr && s->insn && s->insn[b->block] ? s->ninsn[b->block] : 0;

	*file = n ? s->insn[b->block][n - 1].file : NULL;
	*line = n ? s->insn[b->block][n - 1].line : 0;
	return *file && strcmp(*file, "??");
}

void blocks_src_loop_line(const struct blocks_src *s, int loop, const char **file, int *line)
{
	const struct blocks_loop *l = &s->f->loops[loop];
	size_t n;

	if (cmp_line(s, &l->bound, file, line))
		return;
	n = s->insn && s->insn[l->head] ? s->ninsn[l->head] : 0;
	*file = n && strcmp(s->insn[l->head][0].file, "??") ? s->insn[l->head][0].file : NULL;
	*line = *file ? s->insn[l->head][0].line : 0;
}

int blocks_src_bound_text(FILE *out, const struct blocks_src *s, int loop, const char *indent,
			  size_t top)
{
	const struct blocks_func *f = s->f;
	const struct blocks_bound *b = &f->loops[loop].bound;
	struct blocks_relation r;
	const char *file;
	int err, line;

	if (!b->expr)
		return 0;
	if (cmp_line(s, b, &file, &line))
		esc_printf(out,
			   "%sbound: %s, compared at %s:%d (block %d); the loop goes on while %s",
			   indent, b->expr, file, line, b->block, b->cond);
	else
		esc_printf(out, "%sbound: %s, compared in block %d; the loop goes on while %s",
			   indent, b->expr, b->block, b->cond);
	if (*b->counter)
		esc_printf(out, " (counter %s)", b->counter);
	fputc('\n', out);
	err = blocks_relation(f, loop, &r);
	if (err == -ENODATA) {
		fprintf(out, "%sits value was never read in a complete call\n", indent);
		return 0;
	}
	if (err)
		return err;
	if (blocks_related(&r))
		relation_text(out, indent, b, &r);
	else
		esc_printf(out, "%strips per call follow no one offset from %s\n", indent, b->expr);
	values_text(out, f, loop, indent, top);
	return 0;
}

/* The values of loop, one object per slab cache (the rows come by ctx). */
static void values_json(struct json *j, const struct blocks_func *f, int loop)
{
	const char *ctx = NULL;
	size_t i;

	json_open(j, "values", '[');
	for (i = 0; i < f->nbv; i++) {
		if (f->bv[i].loop != loop)
			continue;
		if (!ctx || strcmp(ctx, f->bv[i].ctx)) {
			if (ctx) {
				json_close(j, ']');
				json_close(j, '}');
			}
			ctx = f->bv[i].ctx;
			json_open(j, NULL, '{');
			json_str(j, "ctx", ctx);
			json_open(j, "values", '[');
		}
		json_open(j, NULL, '{');
		json_i64(j, "bound", f->bv[i].bound);
		json_u64(j, "trips", f->bv[i].trips);
		json_u64(j, "calls", f->bv[i].count);
		json_close(j, '}');
	}
	if (ctx) {
		json_close(j, ']');
		json_close(j, '}');
	}
	json_close(j, ']');
}

int blocks_src_bound_json(struct json *j, const char *key, const struct blocks_src *s, int loop)
{
	const struct blocks_func *f = s->f;
	const struct blocks_bound *b = &f->loops[loop].bound;
	struct blocks_relation r;
	const char *file;
	int err, line;

	if (!b->expr) {
		json_str(j, key, NULL);
		return 0;
	}
	err = blocks_relation(f, loop, &r);
	if (err && err != -ENODATA)
		return err;
	json_open(j, key, '{');
	json_u64(j, "block", b->block);
	if (cmp_line(s, b, &file, &line)) {
		json_str(j, "file", file);
		json_u64(j, "line", line);
	} else {
		json_str(j, "file", NULL);
		json_str(j, "line", NULL);
	}
	json_str(j, "expr", b->expr);
	json_str(j, "counter", b->counter);
	json_str(j, "cond", b->cond);
	if (err || !blocks_related(&r)) {
		json_str(j, "relation", NULL);
	} else {
		json_open(j, "relation", '{');
		json_i64(j, "offset", r.offset);
		json_u64(j, "calls", r.calls);
		json_u64(j, "all", r.all);
		json_bool(j, "every_call", r.calls == r.all);
		json_close(j, '}');
	}
	values_json(j, f, loop);
	json_close(j, '}');
	return 0;
}

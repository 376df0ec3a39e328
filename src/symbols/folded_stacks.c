// SPDX-License-Identifier: GPL-2.0-only
/* Folding a recording's stacks into lines (folded_stacks.h). */
#include "symbols/folded_stacks.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/counters_read.h"
#include "data/latency.h"
#include "data/samples.h"
#include "util/esc.h"

struct folder {
	struct datafile *df;
	const struct folded_frames *o;
	bool cut;      /* the head is a probed function: cut the stack there */
	bool weighted; /* samples weigh the events they stand for (record -e) */
	struct samples_frames_cursor *frames;
};

/* Whether frame is function func or one of its clones (func.isra.0, ...). */
static bool is_func(const char *frame, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(frame, func, n) && (!frame[n] || frame[n] == '.');
}

/* One stack being appended to a line; space is "k" or "u". */
struct appender {
	const struct folded_frames *o;
	FILE *line;
	const char *space;
	const char *cut; /* the function to cut at, NULL: none */
	long *cut_at;
};

/*
 * With cut, *cut_at is where the leafmost frame of that function ends: what
 * lies beyond is the probe's own machinery (BPF program, trampoline).
 */
static int append_frame(const char *name, bool inl, const char *file, int line, void *ctx)
{
	struct appender *a = ctx;

	/* a name or file from the data file must not break the line or split the frame */
	fputc(';', a->line);
	esc_fputs(a->line, name, ESC_FRAME);
	if (a->o->srcline && file && *a->space == 'k') {
		fputc(':', a->line);
		esc_fputs(a->line, file, ESC_FRAME);
		fprintf(a->line, ":%d", line);
	}
	/* user functions are unmarked, as flamegraph.pl colours them; inlined ones too are _[i] */
	fputs(inl ? "_[i]" : *a->space == 'k' ? "_[k]" : "", a->line);
	if (a->cut && is_func(name, a->cut))
		*a->cut_at = ftell(a->line);
	return 0;
}

/* Appends the frames of one stack, root first. */
static int append_stack(struct folder *fo, FILE *line, const char *space, long long stack,
			const char *cut, long *cut_at)
{
	struct appender a = {fo->o, line, space, cut, cut_at};

	return samples_frames_of(fo->frames, space, stack, fo->o->inlines, append_frame, &a);
}

static int fold_row(const struct samples_stack *s, void *ctx)
{
	struct folder *fo = ctx;
	const char *cut = fo->cut ? s->head : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *line = open_memstream(&buf, &len);
	long cut_at = -1;
	int err = 0;

	if (!line)
		return -errno;
	esc_fputs(line, s->head, ESC_FRAME);
	if (fo->o->user && s->has_ustack) {
		if (s->ustack < 0)
			fputs(";[unknown]", line);
		else
			err = append_stack(fo, line, "u", s->ustack, NULL, NULL);
	}
	if (!err && fo->o->kernel && s->has_kstack) {
		if (s->kstack < 0)
			fputs(";[kernel stack lost]_[k]", line);
		else
			err = append_stack(fo, line, "k", s->kstack, cut, &cut_at);
	}
	fclose(line);
	if (cut_at >= 0)
		buf[cut_at] = 0;
	if (!err)
		err = samples_folded_add(fo->df, buf, s->n);
	free(buf);
	return err;
}

/*
 * Different stacks can print the same line: they are merged, and calls
 * that never returned weigh nothing.
 */
static int fold(struct folder *fo, const char *func, folded_fn fn, void *ctx)
{
	int err;

	err = samples_folded_create(fo->df) ?: samples_frames_open(fo->df, &fo->frames);
	if (err)
		return err;
	if (fo->cut)
		err = latency_func_stacks(fo->df, func, fold_row, fo);
	else if (fo->weighted)
		err = counters_weighted_stacks(fo->df, fold_row, fo);
	else
		err = samples_stacks(fo->df, fold_row, fo);
	samples_frames_close(fo->frames);
	return err ?: samples_folded(fo->df, fn, ctx);
}

int folded_samples(struct datafile *df, const struct folded_frames *o, folded_fn fn, void *ctx)
{
	return fold(&(struct folder){.df = df, .o = o}, NULL, fn, ctx);
}

int folded_events(struct datafile *df, const struct folded_frames *o, folded_fn fn, void *ctx)
{
	int weighted = counters_weighted(df);

	if (weighted < 0)
		return weighted;
	return fold(&(struct folder){.df = df, .o = o, .weighted = weighted}, NULL, fn, ctx);
}

int folded_latency(struct datafile *df, const struct folded_frames *o, const char *func,
		   folded_fn fn, void *ctx)
{
	return fold(&(struct folder){.df = df, .o = o, .cut = true}, func, fn, ctx);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --blocks' contexts (report_blocks_view.h): a function's complete
 * calls and the instructions they executed, by the syscall they ran in and
 * by the kernel stack they were entered from (record --func-stacks), the
 * stacks named as report names sampled ones (symbols/stacks.h), root first.
 */
#include "report/report_blocks_view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read.h"
#include "data/datafile.h"
#include "data/samples.h"
#include "symbols/stacks.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/syscalls.h"

/* Calls and instructions summed over the contexts sharing a key (a syscall, a stack). */
struct ctx_sum {
	long long key;
	long long calls, insns;
};

static int cmp_calls(const void *a, const void *b)
{
	const struct ctx_sum *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return (x->key > y->key) - (x->key < y->key);
}

static int cmp_key(const void *a, const void *b)
{
	const struct ctx_sum *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* The contexts summed by syscall (stack: by kernel stack), most calls first. */
static struct ctx_sum *sum_by(const struct blocks_func *f, bool stack, size_t *n)
{
	struct ctx_sum *v = calloc(f->ncx ?: 1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < f->ncx; i++)
		v[i] = (struct ctx_sum){stack ? f->cx[i].kstack : f->cx[i].syscall, f->cx[i].calls,
					f->cx[i].insns};
	if (f->ncx)
		qsort(v, f->ncx, sizeof(*v), cmp_key);
	for (i = 0, *n = 0; i < f->ncx; i++) {
		if (*n && v[*n - 1].key == v[i].key) {
			v[*n - 1].calls += v[i].calls;
			v[*n - 1].insns += v[i].insns;
		} else {
			v[(*n)++] = v[i];
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_calls);
	return v;
}

static double per_call(const struct ctx_sum *s)
{
	return s->calls ? (double)s->insns / s->calls : 0;
}

static void syscalls_text(struct view *v, const struct ctx_sum *s, size_t n)
{
	char name[32], calls[32];
	size_t i;

	fputs("\nComplete calls by syscall, with the instructions they executed per call\n",
	      v->out);
	fprintf(v->out, "%-24s %12s %14s\n", "SYSCALL", "CALLS", "INSNS/CALL");
	for (i = 0; i < n && i < v->top; i++) {
		fmt_count(calls, sizeof(calls), s[i].calls);
		fprintf(v->out, "%-24s %12s %14.2f\n",
			s[i].key < 0 ? "(no syscall)"
				     : syscalls_name(s[i].key, NULL, name, sizeof(name)),
			calls, per_call(&s[i]));
	}
	if (n > v->top)
		fprintf(v->out, "... (%zu syscalls more)\n", n - v->top);
}

static void syscalls_json(struct view *v, const struct ctx_sum *s, size_t n)
{
	char name[32];
	size_t i;

	json_open(v->j, "syscalls", '[');
	for (i = 0; i < n; i++) {
		json_open(v->j, NULL, '{');
		json_str(v->j, "syscall",
			 s[i].key < 0 ? NULL : syscalls_name(s[i].key, NULL, name, sizeof(name)));
		json_i64(v->j, "nr", s[i].key);
		json_u64(v->j, "calls", s[i].calls);
		json_u64(v->j, "insns", s[i].insns);
		json_double(v->j, "insns_per_call", per_call(&s[i]));
		json_close(v->j, '}');
	}
	json_close(v->j, ']');
}

/* One frame of a stack, root first; kprotperf's own probe at the leaf is no frame of it. */
static int frame(const char *name, bool inl, const char *file, int line, void *ctx)
{
	struct view *v = ctx;

	if (!strcmp(name, STACKS_PROBE_FRAME))
		return 0;
	if (v->j) {
		json_open(v->j, NULL, '{');
		json_str(v->j, "name", name);
		json_bool(v->j, "inlined", inl);
		json_str(v->j, "file", file);
		json_u64(v->j, "line", file ? line : 0);
		json_close(v->j, '}');
		return 0;
	}
	esc_printf(v->out, "      %s%s", name, inl ? " [inlined]" : "");
	if (file)
		esc_printf(v->out, "  %s:%d", file, line);
	fputc('\n', v->out);
	return 0;
}

static int stack_text(struct view *v, const struct ctx_sum *s)
{
	char calls[32];

	fmt_count(calls, sizeof(calls), s->calls);
	fprintf(v->out, "  %s call%s, %.2f instructions per call:\n", calls,
		s->calls == 1 ? "" : "s", per_call(s));
	return samples_frames_of(v->frames, "k", s->key, true, frame, v);
}

static int stack_json(struct view *v, const struct ctx_sum *s)
{
	int err;

	json_open(v->j, NULL, '{');
	json_u64(v->j, "calls", s->calls);
	json_u64(v->j, "insns", s->insns);
	json_double(v->j, "insns_per_call", per_call(s));
	json_open(v->j, "frames", '[');
	err = samples_frames_of(v->frames, "k", s->key, true, frame, v);
	json_close(v->j, ']');
	json_close(v->j, '}');
	return err;
}

/* The stacks (key -1: none taken, or lost), the first top in text. */
static int stacks(struct view *v, const struct ctx_sum *s, size_t n)
{
	long long none = 0;
	size_t i, shown = 0;
	int err = 0;

	for (i = 0; i < n; i++)
		none += s[i].key < 0 ? s[i].calls : 0;
	if (v->j) {
		json_u64(v->j, "calls_without_stack", none);
		json_open(v->j, "stacks", '[');
	} else if (n && (n > 1 || s[0].key >= 0)) {
		fputs("\nKernel stacks at entry, by calls (root first)\n", v->out);
	} else {
		fputs("\nKernel stacks at entry: not taken (record --func-stacks takes them)\n",
		      v->out);
		return 0;
	}
	for (i = 0; i < n && !err; i++) {
		if (s[i].key < 0 || (!v->j && shown++ >= v->top))
			continue;
		err = v->j ? stack_json(v, &s[i]) : stack_text(v, &s[i]);
	}
	if (v->j)
		json_close(v->j, ']');
	else if (shown > v->top)
		fprintf(v->out, "  ... (%zu stacks more)\n", shown - v->top);
	if (!v->j && none)
		fprintf(v->out, "  %lld call%s without a stack (lost)\n", none,
			none == 1 ? "" : "s");
	return err;
}

int report_blocks_contexts(struct view *v)
{
	struct ctx_sum *sys, *st = NULL;
	size_t nsys, nst;
	int err = -ENOMEM;

	if (!v->j && !v->f->ncx) {
		if (datafile_schema(v->df) < 7)
			fputs("\nCalls by syscall and kernel stack: not recorded (a data file older"
			      " than schema 7)\n",
			      v->out);
		return 0;
	}
	sys = sum_by(v->f, false, &nsys);
	if (sys)
		st = sum_by(v->f, true, &nst);
	if (st) {
		if (v->j) {
			json_open(v->j, "contexts", '{');
			syscalls_json(v, sys, nsys);
		} else {
			syscalls_text(v, sys, nsys);
		}
		err = stacks(v, st, nst);
		if (v->j)
			json_close(v->j, '}');
	}
	free(st);
	free(sys);
	return err;
}

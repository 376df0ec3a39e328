// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --inline: the inline instances of a recording (symbols/recorded_inlines.h)
 * sorted and printed, with their share of their parent's samples and, when
 * record --func timed the parent, an estimate of their time per parent call.
 */
#include "report/report_inline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/inline_tables.h"
#include "symbols/inlines.h"
#include "symbols/recorded_inlines.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

/* Each instance's parent's samples, and its time per parent call when the parent was probed. */
static int per_parent(struct recorded_inlines *s, double period_ns)
{
	struct recorded_inline *v;
	long long calls;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < s->n; i++) {
		v = &s->v[i];
		err = inline_tables_parent(s->df, v->parent, &v->parent_total, &calls);
		if (!err && calls > 0 && period_ns > 0)
			v->est_ns = v->total * period_ns / calls;
	}
	return err;
}

static int cmp_inst(const void *a, const void *b)
{
	const struct recorded_inline *x = a, *y = b;

	/* what record --func was asked to measure comes first */
	if ((x->id >= 0) != (y->id >= 0))
		return x->id >= 0 ? -1 : 1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->func, y->func);
}

static void print_text(const struct recorded_inlines *s, int top, FILE *f)
{
	char est[32], avg[32], p99[32];
	const struct recorded_inline *v;
	size_t i, k;

	fputs("Inline instances, those probed by record --func first. SELF: samples in the\n"
	      "instance's ranges; TOTAL: also in the functions called from them; %PARENT: of\n"
	      "the samples with the parent on the stack; EST/CALL: TOTAL x sample period /\n"
	      "the parent's calls (when record --func timed the parent); CALLS, AVG, P99:\n"
	      "timed per invocation (METHOD)\n",
	      f);
	fprintf(f, "%-20s %-20s %-22s %6s %6s %6s %7s %9s %-13s %7s %9s %9s\n", "INLINED", "PARENT",
		"CALL SITE", "BYTES", "SELF", "TOTAL", "%PARENT", "EST/CALL", "METHOD", "CALLS",
		"AVG", "P99");
	for (i = 0; i < s->n && i < (size_t)top; i++) {
		v = &s->v[i];
		strcpy(est, "-");
		strcpy(avg, "-");
		strcpy(p99, "-");
		if (v->est_ns >= 0)
			fmt_ns(est, sizeof(est), v->est_ns);
		if (v->calls) {
			fmt_ns(avg, sizeof(avg), v->avg);
			fmt_ns(p99, sizeof(p99), v->p99);
		}
		esc_printf(f,
			   "%-20s %-20s %-22s %6llu %6lld %6lld %6.1f%% %9s %-13s %7llu %9s %9s\n",
			   v->func, v->parent, v->site, (unsigned long long)v->bytes, v->self,
			   v->total, v->parent_total ? 100.0 * v->total / v->parent_total : 0.0,
			   est, *v->method ? v->method : "samples", v->calls, avg, p99);
		fputs("    ranges:", f);
		for (k = 0; k < v->nr; k++)
			fprintf(f, " 0x%llx-0x%llx", (unsigned long long)v->r[k].lo,
				(unsigned long long)v->r[k].hi);
		fputc('\n', f);
	}
	if (!s->n)
		fputs("(no inline instance with samples or probes)\n", f);
}

static void print_json(const struct recorded_inlines *s, int top, struct json *j)
{
	const struct recorded_inline *v;
	char buf[64];
	size_t i, k;

	json_open(j, "inline_instances", '[');
	for (i = 0; i < s->n && i < (size_t)top; i++) {
		v = &s->v[i];
		json_open(j, NULL, '{');
		json_str(j, "inlined", v->func);
		json_str(j, "parent", v->parent);
		json_str(j, "call_site", v->site);
		json_u64(j, "bytes", v->bytes);
		json_open(j, "ranges", '[');
		for (k = 0; k < v->nr; k++) {
			snprintf(buf, sizeof(buf), "0x%llx-0x%llx", (unsigned long long)v->r[k].lo,
				 (unsigned long long)v->r[k].hi);
			json_str(j, NULL, buf);
		}
		json_close(j, ']');
		json_u64(j, "self_samples", v->self);
		json_u64(j, "total_samples", v->total);
		json_u64(j, "parent_samples", v->parent_total);
		if (v->est_ns >= 0)
			json_double(j, "est_ns_per_parent_call", v->est_ns);
		json_str(j, "method", *v->method ? v->method : "samples");
		if (v->calls) {
			json_u64(j, "calls", v->calls);
			json_u64(j, "avg_ns", v->avg);
			json_u64(j, "p99_ns", v->p99);
		}
		json_close(j, '}');
	}
	json_close(j, ']');
}

int report_inline(struct datafile *df, struct kernel_dwarf *kd, int top, FILE *f, struct json *j)
{
	struct recorded_inlines s = {};
	int err;

	err = inline_tables_parents_create(df);
	err = err ?: recorded_inlines_load(&s, df, kd);
	err = err ?: per_parent(&s, datafile_sample_period_ns(df));
	if (!err) {
		/* no instance: s.v is NULL, which qsort must not be given */
		if (s.n)
			qsort(s.v, s.n, sizeof(*s.v), cmp_inst);
		if (j)
			print_json(&s, top, j);
		else
			print_text(&s, top, f);
	}
	recorded_inlines_free(&s);
	return err;
}

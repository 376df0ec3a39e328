// SPDX-License-Identifier: GPL-2.0-only
/*
 * report's counters (report_counters.h): what record --count counted per
 * syscall and per probed function, scaled where the event was multiplexed.
 */
#include "report/report_counters.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

static int add_total(const struct counters_total *t, void *ctx)
{
	struct counters_rows *r = ctx;

	if (array_reserve((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return -ENOMEM;
	r->v[r->n++] = *t;
	return 0;
}

static int event_index(const struct counters_events *ev, const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < ev->n; i++)
		if (!strcmp(ev->v[i].name, a) || (b && !strcmp(ev->v[i].name, b)))
			return i;
	return -1;
}

int report_counters_load(struct counters_view *v, struct datafile *df)
{
	int err;

	*v = (struct counters_view){.cycles = -1, .instructions = -1};
	err = counters_events(df, &v->ev);
	if (err || !v->ev.n)
		return err;
	v->cycles = event_index(&v->ev, "cycles", "cpu-cycles");
	v->instructions = event_index(&v->ev, "instructions", NULL);
	err = counters_totals(df, "syscall", add_total, &v->sc)
		      ?: counters_totals(df, "func", add_total, &v->fn);
	if (err)
		report_counters_free(v);
	return err;
}

void report_counters_free(struct counters_view *v)
{
	free(v->sc.v);
	free(v->fn.v);
	v->sc = v->fn = (struct counters_rows){};
}

void report_counters_header(const struct counters_view *v, FILE *f)
{
	size_t i, n = 0;

	if (!v->ev.n)
		return;
	fputs("# counters:", f);
	for (i = 0; i < v->ev.n; i++)
		esc_printf(f, "%s %s", i ? "," : "", v->ev.v[i].name);
	for (i = 0; i < v->ev.n; i++) {
		if (counters_share(&v->ev.v[i]) >= 1)
			continue;
		esc_printf(f, "%s%s counted %.1f%% of the time",
			   n++ ? ", " : " (multiplexed: ", v->ev.v[i].name,
			   100 * counters_share(&v->ev.v[i]));
	}
	fputs(n ? ", scaled as perf does)\n" : " (none multiplexed)\n", f);
	fputs("# counted by:", f);
	for (i = 0; i < v->ev.n; i++)
		esc_printf(f, "%s %s: %s", i ? ";" : "", v->ev.v[i].name,
			   counters_source_text(v->ev.v[i].source));
	fputc('\n', f);
}

void report_counters_json_header(const struct counters_view *v, struct json *j)
{
	size_t i;

	if (!v->ev.n)
		return;
	json_open(j, "event_counters", '{');
	json_open(j, "events", '[');
	for (i = 0; i < v->ev.n; i++)
		json_str(j, NULL, v->ev.v[i].name);
	json_close(j, ']');
	json_open(j, "multiplexed", '{');
	for (i = 0; i < v->ev.n; i++)
		if (counters_share(&v->ev.v[i]) < 1)
			json_double(j, v->ev.v[i].name, counters_share(&v->ev.v[i]));
	json_close(j, '}');
	json_open(j, "sources", '{');
	for (i = 0; i < v->ev.n; i++)
		json_str(j, v->ev.v[i].name, count_source_names[v->ev.v[i].source]);
	json_close(j, '}');
	json_close(j, '}');
}

/* The rows of id: *n of them from the returned one (events in order). */
static const struct counters_total *rows_of(const struct counters_view *v, bool sc, long long id,
					    size_t *n)
{
	const struct counters_rows *r = sc ? &v->sc : &v->fn;
	size_t lo = 0, hi = r->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (*n = 0; lo + *n < r->n && r->v[lo + *n].id == id; (*n)++)
		;
	return *n ? &r->v[lo] : NULL;
}

/* The row of event i among rows, NULL: none. */
static const struct counters_total *event_row(const struct counters_total *rows, size_t n, int i)
{
	size_t k;

	for (k = 0; i >= 0 && k < n; k++)
		if (rows[k].event == i)
			return &rows[k];
	return NULL;
}

/* Instructions per cycle over rows, NAN without both or without cycles. */
static double ipc(const struct counters_view *v, const struct counters_total *rows, size_t n)
{
	const struct counters_total *c = event_row(rows, n, v->cycles);
	const struct counters_total *in = event_row(rows, n, v->instructions);

	return c && in && c->value > 0 ? in->value / c->value : NAN;
}

bool report_counters_head(const struct counters_view *v, bool sc, FILE *f)
{
	const struct counters_rows *r = sc ? &v->sc : &v->fn;
	size_t i;

	if (!v->ev.n)
		return false;
	fprintf(f,
		"\nCounters per %s (record --count: the events between entry and return;"
		" CALLS: the calls counted)\n",
		sc ? "syscall" : "probed function");
	fprintf(f, "%-*s %10s %-24s %14s %12s\n", sc ? 20 : 28, sc ? "SYSCALL" : "FUNCTION",
		"CALLS", "EVENT", "TOTAL", "PER CALL");
	for (i = 0; i < r->n; i++)
		if (r->v[i].calls > 0)
			return true;
	fputs("(no call counted)\n", f);
	return false;
}

void report_counters_row(const struct counters_view *v, bool sc, long long id, const char *name,
			 FILE *f)
{
	const struct counters_total *rows, *t;
	char tot[32], per[32], calls[24];
	size_t n, i;
	int w = sc ? 20 : 28;
	bool time;

	rows = rows_of(v, sc, id, &n);
	if (!rows || rows[0].calls <= 0)
		return;
	for (i = 0; i < v->ev.n; i++) {
		t = event_row(rows, n, i);
		time = counters_is_time(v->ev.v[i].name);
		fmt_amount(tot, sizeof(tot), t ? t->value : 0, time, false);
		fmt_amount(per, sizeof(per), t && t->calls > 0 ? t->value / t->calls : NAN, time,
			   true);
		snprintf(calls, sizeof(calls), "%lld", rows[0].calls);
		esc_printf(f, "%-*s %10s %-24s %14s %12s\n", w, i ? "" : name, i ? "" : calls,
			   v->ev.v[i].name, tot, per);
	}
	if (!isnan(ipc(v, rows, n)))
		fprintf(f, "%-*s %10s %-24s %14.2f\n", w, "", "", "IPC (instructions/cycles)",
			ipc(v, rows, n));
}

void report_counters_json_row(const struct counters_view *v, bool sc, long long id, struct json *j)
{
	const struct counters_total *rows, *t;
	size_t n, i;

	if (!v->ev.n)
		return;
	rows = rows_of(v, sc, id, &n);
	json_i64(j, "events_calls", rows ? rows[0].calls : 0);
	json_open(j, "events", '{');
	for (i = 0; i < v->ev.n; i++) {
		t = event_row(rows, n, i);
		json_double(j, v->ev.v[i].name, t ? t->value : 0);
	}
	json_close(j, '}');
	json_open(j, "events_per_call", '{');
	for (i = 0; i < v->ev.n; i++) {
		t = event_row(rows, n, i);
		json_double(j, v->ev.v[i].name, t && t->calls > 0 ? t->value / t->calls : NAN);
	}
	json_close(j, '}');
	if (v->cycles >= 0 && v->instructions >= 0)
		json_double(j, "ipc", ipc(v, rows, n));
}

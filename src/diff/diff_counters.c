// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf diff's counters per call (diff_counters.h). */
#include "diff/diff_counters.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/prov.h"
#include "diff/tables.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

static int find(const struct counters_events *ev, const char *name)
{
	size_t i;

	for (i = 0; i < ev->n; i++)
		if (!strcmp(ev->v[i].name, name))
			return i;
	return -1;
}

static int add_set(struct diff_counters *c, const char *name, int base, int hard, bool sc)
{
	struct diff_counter_set *s = realloc(c->v, (c->n + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	c->v = s;
	s = &c->v[c->n++];
	*s = (struct diff_counter_set){name, {base, hard}, sc};
	metrics_init(&s->set, sc ? "syscall" : "func", NULL, c->runs, NULL);
	return 0;
}

/* The events of either side, matched by name: the base's in order, then the others. */
static int add_sets(struct diff_counters *c, bool sc)
{
	const struct counters_events *b = &c->ev[DM_BASE], *h = &c->ev[DM_HARD];
	size_t i;
	int err = 0;

	for (i = 0; i < b->n && !err; i++)
		err = add_set(c, b->v[i].name, i, find(h, b->v[i].name), sc);
	for (i = 0; i < h->n && !err; i++)
		if (find(b, h->v[i].name) < 0)
			err = add_set(c, h->v[i].name, -1, i, sc);
	return err;
}

static int load_set(struct diff_counter_set *s, struct datafile *const df[2], int top)
{
	const char *kind = s->sc ? "syscall" : "func";
	int side, err = 0;

	for (side = 0; side < 2 && !err; side++)
		if (s->index[side] >= 0)
			err = counters_runs(df[side], kind, s->index[side], metrics_add,
					    &(struct metrics_sink){&s->set, side});
	return err ?: metrics_finish(&s->set, df, top);
}

int diff_counters_load(struct diff_counters *c, struct datafile *const df[2], const size_t runs[2],
		       int top)
{
	size_t i;
	int err;

	*c = (struct diff_counters){.runs = {runs[0], runs[1]}};
	err = counters_events(df[DM_BASE], &c->ev[DM_BASE])
		?: counters_events(df[DM_HARD], &c->ev[DM_HARD])
		?: add_sets(c, true) ?: add_sets(c, false);
	for (i = 0; i < c->n && !err; i++)
		err = load_set(&c->v[i], df, top);
	return err;
}

void diff_counters_free(struct diff_counters *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		metrics_free(&c->v[i].set);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

void diff_counters_header(const struct diff_counters *c, FILE *f)
{
	size_t i;
	int side;

	if (!c->n)
		return;
	fputs("# counters:", f);
	for (side = 0; side < 2; side++) {
		fprintf(f, "%s %s:", side ? ";" : "", prov_side_name[side]);
		for (i = 0; i < c->ev[side].n; i++)
			esc_printf(f, "%s %s", i ? "," : "", c->ev[side].v[i].name);
		if (!c->ev[side].n)
			fputs(" none", f);
	}
	fputc('\n', f);
}

/*
 * The events counted on both sides, from a hook on one and perf reads (or
 * another hook) on the other, as recordings of two kprotperf versions may
 * be: compared all the same, and said in one note.
 */
static void sources_note(const struct diff_counters *c, struct diff_notes *notes)
{
	const struct counters_event *b, *h;
	char line[1024];
	size_t i, n = 0;

	for (i = 0; i < c->n && n < sizeof(line); i++) {
		if (!c->v[i].sc || c->v[i].index[DM_BASE] < 0 || c->v[i].index[DM_HARD] < 0)
			continue;
		b = &c->ev[DM_BASE].v[c->v[i].index[DM_BASE]];
		h = &c->ev[DM_HARD].v[c->v[i].index[DM_HARD]];
		if (b->source != h->source)
			n += snprintf(line + n, sizeof(line) - n,
				      "%s %.200s by %s on the base, %s on the hardened side",
				      n ? ";" : "", b->name, counters_source_text(b->source),
				      counters_source_text(h->source));
	}
	if (n)
		prov_note(notes, "note: counted otherwise on each side:%s", line);
}

void diff_counters_notes(const struct diff_counters *c, struct diff_notes *notes)
{
	const struct counters_event *e;
	size_t i;
	int side;

	for (i = 0; i < c->n; i++) {
		side = c->v[i].index[DM_BASE] < 0 ? DM_HARD : DM_BASE;
		if (c->v[i].sc && c->v[i].index[!side] < 0)
			prov_note(notes,
				  "note: %.200s counted on the %s side only (record --count): the"
				  " %s has no value of it",
				  c->v[i].event, prov_side_name[side], prov_side_name[!side]);
	}
	sources_note(c, notes);
	for (side = 0; side < 2; side++)
		for (i = 0; i < c->ev[side].n; i++) {
			e = &c->ev[side].v[i];
			if (counters_share(e) < 1)
				prov_note(notes,
					  "note: %s: %.200s counted %.1f%% of the time"
					  " (multiplexed), scaled as perf does",
					  prov_side_name[side], e->name, 100 * counters_share(e));
		}
}

/* The side has a value per call: the event counted there, and calls counted. */
static bool has_value(const struct diff_counter_set *s, const struct metric *m, int side)
{
	return s->index[side] >= 0 && m->seen[side] &&
	       (side == DM_BASE ? m->r.base_den : m->r.hard_den) > 0;
}

static void fmt_side(char *buf, size_t len, const struct diff_counter_set *s,
		     const struct metric *m, int side)
{
	if (s->index[side] < 0)
		snprintf(buf, len, "not counted");
	else if (!has_value(s, m, side))
		snprintf(buf, len, "-");
	else
		fmt_amount(buf, len, side == DM_BASE ? m->r.base : m->r.hard,
			   counters_is_time(s->event), true);
}

static enum tables_presence presence(const struct diff_counter_set *s, const struct metric *m)
{
	return tables_presence(has_value(s, m, DM_BASE) && m->r.base > 0,
			       has_value(s, m, DM_HARD) && m->r.hard > 0);
}

static bool both_sides(const struct diff_counter_set *s)
{
	return s->index[DM_BASE] >= 0 && s->index[DM_HARD] >= 0;
}

static void text_row(const struct diff_counter_set *s, const struct metric *m, FILE *f)
{
	char b[32], h[32], ratio[32], change[96];
	enum tables_presence p = presence(s, m);

	fmt_side(b, sizeof(b), s, m, DM_BASE);
	fmt_side(h, sizeof(h), s, m, DM_HARD);
	snprintf(ratio, sizeof(ratio), "-");
	snprintf(change, sizeof(change), "-");
	if (both_sides(s)) {
		tables_fmt_ratio(ratio, sizeof(ratio), &m->r, p);
		tables_fmt_change(change, sizeof(change), &m->r, p);
	}
	esc_printf(f, "%-*s %-24s %12s %12s %7s %-30s %4s\n", s->sc ? 20 : 28, m->name, s->event, b,
		   h, ratio, change, both_sides(s) ? tables_sig_text(&m->r) : "-");
}

/* The method the rows of one kind got: the first that has one. */
static enum stats_method method(const struct diff_counters *c, bool sc)
{
	size_t i, k;

	for (i = 0; i < c->n; i++)
		for (k = 0; c->v[i].sc == sc && k < c->v[i].set.shown; k++)
			if (c->v[i].set.v[k]->r.method != DS_NONE)
				return c->v[i].set.v[k]->r.method;
	return DS_NONE;
}

static void text_table(const struct diff_counters *c, bool sc, FILE *f)
{
	size_t i, k, rows = 0, any = 0;

	for (i = 0; i < c->n; i++)
		any += c->v[i].sc == sc ? c->v[i].set.n : 0;
	/* probed functions: only when either side has some */
	if (!sc && !any)
		return;
	fprintf(f, "\n%s: counters per call (record --count; scaled where multiplexed); 95%% CI: ",
		sc ? "Syscalls" : "Probed functions");
	tables_method(method(c, sc), c->runs, "-", f);
	fprintf(f, "\n%-*s %-24s %12s %12s %7s %-30s %4s\n", sc ? 20 : 28,
		sc ? "SYSCALL" : "FUNCTION", "EVENT", "BASE", "HARDENED", "RATIO",
		"CHANGE [95% CI]", "SIG");
	for (i = 0; i < c->n; i++)
		for (k = 0; c->v[i].sc == sc && k < c->v[i].set.shown; k++, rows++)
			text_row(&c->v[i], c->v[i].set.v[k], f);
	if (!rows)
		fputs("(none)\n", f);
}

void diff_counters_text(const struct diff_counters *c, FILE *f)
{
	if (!c->n)
		return;
	text_table(c, true, f);
	text_table(c, false, f);
}

/* NAN (null) where the side has no value */
static double side_value(const struct diff_counter_set *s, const struct metric *m, int side,
			 double v)
{
	return has_value(s, m, side) ? v : NAN;
}

/* Events per run; NAN (null) where the text shows "-" or "not counted". */
static double per_run(const struct diff_counter_set *s, const struct metric *m, int side)
{
	if (s->index[side] < 0 || !m->seen[side])
		return NAN;
	return side == DM_BASE ? m->r.base_run : m->r.hard_run;
}

static void json_row(const struct diff_counter_set *s, const struct metric *m, struct json *j)
{
	const struct stats_result *r = &m->r;
	enum tables_presence p = presence(s, m);
	bool both = both_sides(s);

	json_open(j, NULL, '{');
	json_str(j, "name", m->name);
	json_str(j, "event", s->event);
	json_str(j, "only", both ? NULL : prov_side_name[s->index[DM_BASE] < 0]);
	json_str(j, "status", both ? tables_presence_name[p] : NULL);
	json_double(j, "base", side_value(s, m, DM_BASE, r->base));
	json_double(j, "hardened", side_value(s, m, DM_HARD, r->hard));
	tables_json_change(j, "", r, both ? p : TABLES_NEW);
	/* nothing to compare an event counted on one side with */
	if (both) {
		tables_json_sig(j, "significant", r);
		json_str(j, "method", stats_method_name(r->method));
	} else {
		json_str(j, "significant", NULL);
		json_str(j, "method", NULL);
	}
	json_double(j, "p_value", r->p);
	json_double(j, "base_per_run", per_run(s, m, DM_BASE));
	json_double(j, "hardened_per_run", per_run(s, m, DM_HARD));
	json_double(j, "delta_per_run", both ? r->delta_run : NAN);
	json_double(j, "delta_ci_low", both ? r->delta_lo : NAN);
	json_double(j, "delta_ci_high", both ? r->delta_hi : NAN);
	/* the calls counted per run, over which the events are per call */
	json_double(j, "calls_per_run_base", isnan(per_run(s, m, DM_BASE)) ? NAN : m->calls.base);
	json_double(j, "calls_per_run_hardened",
		    isnan(per_run(s, m, DM_HARD)) ? NAN : m->calls.hard);
	json_close(j, '}');
}

static void json_events(const struct counters_events *ev, const char *key, struct json *j)
{
	size_t i;

	json_open(j, key, '[');
	for (i = 0; i < ev->n; i++)
		json_str(j, NULL, ev->v[i].name);
	json_close(j, ']');
}

void diff_counters_json(const struct diff_counters *c, struct json *j)
{
	size_t i, k;
	int sc;

	if (!c->n)
		return;
	json_open(j, "counters", '{');
	json_events(&c->ev[DM_BASE], "base", j);
	json_events(&c->ev[DM_HARD], "hardened", j);
	for (sc = 1; sc >= 0; sc--) {
		json_open(j, sc ? "syscalls" : "functions", '[');
		for (i = 0; i < c->n; i++)
			for (k = 0; c->v[i].sc == sc && k < c->v[i].set.shown; k++)
				json_row(&c->v[i], c->v[i].set.v[k], j);
		json_close(j, ']');
	}
	json_close(j, '}');
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one recording's kernel has and the other's lacks (oneside.h), from
 * the funcs, func_absent and inlines tables of both sides.
 */
#include "diff/oneside.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/inline_tables.h"
#include "data/latency.h"
#include "diff/metrics.h"
#include "diff/prov.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

/* A name record --func saw on a side, with its calls summed. */
struct named {
	char name[192];
	char func[96]; /* an instance's function; "" for a function */
	long long calls;
};

struct list {
	struct named *v;
	size_t n, cap;
};

struct side {
	struct list funcs;  /* funcs.name: probed functions and inlined ones */
	struct list inst;   /* probed inline instances, "INLINED in PARENT" */
	struct list absent; /* patterns absent on the side's kernel */
};

static struct named *lookup(const struct list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static int add(struct list *l, const char *name, const char *func, long long calls)
{
	struct named *e = lookup(l, name);

	if (e) {
		e->calls += calls;
		return 0;
	}
	if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	e = &l->v[l->n++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->func, sizeof(e->func), "%s", func);
	e->calls = calls;
	return 0;
}

static int func_row(const struct latency_row *r, void *side)
{
	return add(&((struct side *)side)->funcs, r->name, "", r->done);
}

static int absent_row(const char *pattern, void *side)
{
	return add(&((struct side *)side)->absent, pattern, "", 0);
}

static int inst_row(const struct inline_tables_probed *p, void *side)
{
	char key[192];

	/* as the inline tables match instances: the parent without clone suffix */
	snprintf(key, sizeof(key), "%s in %.*s", p->name, (int)strcspn(p->parent, "."), p->parent);
	return add(&((struct side *)side)->inst, key, p->name, p->done);
}

static int load_side(struct side *s, struct datafile *df)
{
	return latency_funcs(df, func_row, s) ?: latency_func_absent(df, absent_row, s)
		?: inline_tables_probed(df, inst_row, s);
}

static int row(struct oneside *o, const char *name, const char *kind, int only, long long calls)
{
	struct oneside_row *r;

	if (array_reserve((void **)&o->v, &o->cap, o->n + 1, sizeof(*o->v)))
		return -ENOMEM;
	r = &o->v[o->n++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = kind;
	r->only = only;
	r->calls[only] = calls;
	r->calls[!only] = -1;
	return 0;
}

/* Whether pattern names something the other side probed: its calls summed into *calls. */
static bool probed(const struct side *s, const char *pattern, long long *calls)
{
	bool found = false;
	size_t i;

	*calls = 0;
	for (i = 0; i < s->funcs.n; i++) {
		if (fnmatch(pattern, s->funcs.v[i].name, 0))
			continue;
		found = true;
		*calls += s->funcs.v[i].calls;
	}
	return found;
}

static bool absent(const struct side *s, const char *func)
{
	size_t i;

	for (i = 0; i < s->absent.n; i++)
		if (!fnmatch(s->absent.v[i].name, func, 0))
			return true;
	return false;
}

/* Side a's absent patterns that side b probed: functions only b's kernel has. */
static int absent_rows(struct oneside *o, const struct side *s, int a, struct metric_set *funcs)
{
	long long calls;
	size_t i, m;
	int err = 0;

	for (i = 0; i < s[a].absent.n && !err; i++) {
		const char *pattern = s[a].absent.v[i].name;

		for (m = 0; m < funcs->n; m++)
			if (!fnmatch(pattern, funcs->v[m]->name, 0))
				funcs->v[m]->absent[a] = true;
		if (probed(&s[!a], pattern, &calls))
			err = row(o, pattern, "function", !a, calls);
	}
	return err;
}

/* Side a's instances of a function b probed (or found absent) without them. */
static int instance_rows(struct oneside *o, const struct side *s, int a)
{
	long long calls;
	size_t i;
	int err = 0;

	for (i = 0; i < s[a].inst.n && !err; i++) {
		const struct named *in = &s[a].inst.v[i];

		if (lookup(&s[!a].inst, in->name))
			continue;
		if (probed(&s[!a], in->func, &calls) || absent(&s[!a], in->func))
			err = row(o, in->name, "inline instance", a, in->calls);
	}
	return err;
}

static int cmp_row(const void *x, const void *y)
{
	const struct oneside_row *a = x, *b = y;
	int c = strcmp(a->kind, b->kind);

	return c ?: strcmp(a->name, b->name) ?: a->only - b->only;
}

static void free_side(struct side *s)
{
	free(s->funcs.v);
	free(s->inst.v);
	free(s->absent.v);
}

int oneside_load(struct oneside *o, struct datafile *const df[2], struct metric_set *funcs)
{
	struct side s[2] = {};
	int side, err = 0;

	*o = (struct oneside){};
	for (side = 0; side < 2 && !err; side++)
		err = load_side(&s[side], df[side]);
	for (side = 0; side < 2 && !err; side++)
		err = absent_rows(o, s, side, funcs) ?: instance_rows(o, s, side);
	free_side(&s[0]);
	free_side(&s[1]);
	if (err) {
		oneside_free(o);
		return err;
	}
	if (o->n)
		qsort(o->v, o->n, sizeof(*o->v), cmp_row);
	return 0;
}

static void fmt_calls(char *buf, size_t len, long long calls)
{
	if (calls < 0)
		snprintf(buf, len, "absent");
	else
		snprintf(buf, len, "%lld", calls);
}

void oneside_text(const struct oneside *o, FILE *f)
{
	char b[24], h[24], only[24];
	int w = 32;
	size_t i;

	if (!o->n)
		return;
	/* instance names run long: the column takes the longest */
	for (i = 0; i < o->n; i++)
		if ((int)strlen(o->v[i].name) > w)
			w = strlen(o->v[i].name);
	fputs("\nOn one kernel only (record --func: a pattern that matched nothing on the other,"
	      "\nan inline instance the other kernel lacks); calls over all runs\n",
	      f);
	fprintf(f, "%-*s %-16s %-14s %10s %10s\n", w, "NAME", "KIND", "ON", "BASE", "HARDENED");
	for (i = 0; i < o->n; i++) {
		fmt_calls(b, sizeof(b), o->v[i].calls[DM_BASE]);
		fmt_calls(h, sizeof(h), o->v[i].calls[DM_HARD]);
		snprintf(only, sizeof(only), "%s only", prov_side_name[o->v[i].only]);
		esc_printf(f, "%-*s %-16s %-14s %10s %10s\n", w, o->v[i].name, o->v[i].kind, only,
			   b, h);
	}
}

void oneside_json(const struct oneside *o, struct json *j)
{
	size_t i;
	int side;

	json_open(j, "one_side_only", '[');
	for (i = 0; i < o->n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", o->v[i].name);
		json_str(j, "kind", o->v[i].kind);
		json_str(j, "only", prov_side_name[o->v[i].only]);
		for (side = 0; side < 2; side++) {
			const char *key = side == DM_BASE ? "base_calls" : "hardened_calls";

			if (o->v[i].calls[side] < 0)
				json_str(j, key, NULL);
			else
				json_u64(j, key, o->v[i].calls[side]);
		}
		json_close(j, '}');
	}
	json_close(j, ']');
}

void oneside_free(struct oneside *o)
{
	free(o->v);
	*o = (struct oneside){};
}

// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf's own cost, as report shows it (own_cost.h). */
#include "report/own_cost.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/meta.h"
#include "data/samples.h"
#include "symbols/stacks.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

struct prog_cost {
	char name[64];
	unsigned long long runs, ns;
};

struct own_cost {
	long long samples, all;
	struct prog_cost *progs;
	size_t n;
	unsigned long long runs, ns;
};

static struct prog_cost *prog_of(struct own_cost *c, const char *name)
{
	struct prog_cost *p;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->progs[i].name, name))
			return &c->progs[i];
	p = realloc(c->progs, (c->n + 1) * sizeof(*p));
	if (!p)
		return NULL;
	c->progs = p;
	p = &p[c->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	return p;
}

static int add_stat(const struct meta_pair *kv, void *ctx)
{
	struct own_cost *c = ctx;
	const char *dot = strchr(kv->key, '.');
	struct prog_cost *p;
	bool runs;

	if (!dot)
		return 0;
	runs = !strncmp(kv->key, "bpf_runs.", 9);
	p = prog_of(c, dot + 1);
	if (!p)
		return -ENOMEM;
	*(runs ? &p->runs : &p->ns) = kv->num;
	*(runs ? &c->runs : &c->ns) += kv->num;
	return 0;
}

/* "1.38s in 4,120,331 runs (335 ns per run)" */
static void fmt_runs(char *buf, size_t len, unsigned long long ns, unsigned long long runs)
{
	char t[32], r[32];

	fmt_ns(t, sizeof(t), ns);
	fmt_count(r, sizeof(r), runs);
	if (runs)
		snprintf(buf, len, "%s in %s runs (%.0f ns per run)", t, r, (double)ns / runs);
	else
		snprintf(buf, len, "%s in 0 runs", t);
}

static int cmp_ns(const void *a, const void *b)
{
	const struct prog_cost *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The programs, most time first, wrapped into "#   " lines at ~100 columns. */
static void print_progs(struct own_cost *c, FILE *f)
{
	char b[128];
	int col = 100;
	size_t i;

	qsort(c->progs, c->n, sizeof(*c->progs), cmp_ns);
	for (i = 0; i < c->n; i++) {
		fmt_runs(b, sizeof(b), c->progs[i].ns, c->progs[i].runs);
		if (col + strlen(b) + strlen(c->progs[i].name) + 4 > 100) {
			fputs(i ? "\n#  " : "#  ", f);
			col = 3;
		}
		col += esc_printf(f, " %s: %s", c->progs[i].name, b);
		fputs(i + 1 < c->n ? ";" : "\n", f);
		col++;
	}
}

static void print_cost(struct own_cost *c, FILE *f)
{
	char b[128];

	fputs("# kprotperf's own BPF programs: ", f);
	if (c->all)
		fprintf(f, "%.1f%% of samples (%lld)", 100.0 * c->samples / c->all, c->samples);
	else
		fputs("no samples", f);
	if (!c->n) {
		fputs("; their runs and time: record --bpf-stats\n", f);
		return;
	}
	fmt_runs(b, sizeof(b), c->ns, c->runs);
	fprintf(f, "; %s (kernel BPF stats)\n", b);
	print_progs(c, f);
}

static void json_cost(const struct own_cost *c, struct json *j)
{
	size_t i;

	json_open(j, "own_cost", '{');
	json_u64(j, "samples", c->samples);
	json_double(j, "samples_pct", c->all ? 100.0 * c->samples / c->all : NAN);
	json_bool(j, "bpf_stats", c->n > 0);
	json_double(j, "runs", c->n ? (double)c->runs : NAN);
	json_double(j, "run_time_ns", c->n ? (double)c->ns : NAN);
	json_double(j, "ns_per_run", c->runs ? (double)c->ns / c->runs : NAN);
	json_open(j, "programs", '[');
	for (i = 0; i < c->n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", c->progs[i].name);
		json_u64(j, "runs", c->progs[i].runs);
		json_u64(j, "run_time_ns", c->progs[i].ns);
		json_double(j, "ns_per_run",
			    c->progs[i].runs ? (double)c->progs[i].ns / c->progs[i].runs : NAN);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}

int own_cost_show(struct datafile *df, FILE *f, struct json *j)
{
	struct own_cost c = {.samples = samples_kernel_leaf(df, STACKS_PROBE_FRAME),
			     .all = samples_total(df)};
	int err = meta_each(df, META_BPF_STATS, add_stat, &c);

	/* a recording made before kprotperf measured itself has neither */
	if (!err && (c.samples || c.n))
		j ? json_cost(&c, j) : print_cost(&c, f);
	free(c.progs);
	return err;
}

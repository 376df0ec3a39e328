// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf report: what was recorded, on which kernel, and where the time
 * went: per-syscall latency split into on-CPU and off-CPU, histograms, the
 * latency of the kernel functions probed with record --func (and which
 * syscalls and slab caches it went to), and the kernel and user functions
 * that took the samples.
 */
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/latency.h"
#include "data/meta.h"
#include "data/samples.h"
#include "features/feature_costs.h"
#include "report/own_cost.h"
#include "report/report_counters.h"
#include "report/report_inline.h"
#include "report/report_user.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"
#include "symbols/user_frames.h"
#include "system/provenance.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/hist.h"
#include "util/json.h"

static const char *const sort_names[] = {"total", "calls", "oncpu", "offcpu", "avg",
					 "p50",	  "p90",   "p99",   "max",    "name"};

/* One row of the latency table: a syscall, or a function probed by record --func. */
struct lat_row {
	char name[128], symbol[128], module[64], method[16];
	long long id;
	unsigned long long calls, done, total, oncpu, offcpu, max, avg, p50, p90, p99;
};

static const char *meta(struct datafile *df, const char *key)
{
	const char *v = datafile_meta(df, key);

	return v ? v : "?";
}

static void print_knobs(FILE *f, const char *cmdline)
{
	char *copy = strdup(cmdline), *tok, *save = NULL;
	bool any = false;

	if (!copy)
		return;
	fputs("# cmdline knobs:", f);
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (provenance_is_knob(tok)) {
			esc_printf(f, " %s", tok);
			any = true;
		}
	}
	fputs(any ? "\n" : " none (kernel defaults)\n", f);
	free(copy);
}

/* "key=value" items, wrapped into "#   " continuation lines at ~100 columns. */
struct wrap {
	FILE *f;
	int col;
};

static int print_kv(const struct meta_pair *p, void *ctx)
{
	struct wrap *w = ctx;
	int n = esc_len(p->key, ESC_TEXT) + esc_len(p->value, ESC_TEXT) + 2;

	if (w->col + n > 100) {
		fputs("\n#  ", w->f);
		w->col = 3;
	}
	w->col += esc_printf(w->f, " %s=%s", p->key, p->value);
	return 0;
}

/* A name alone ("Not affected" ones), wrapped as print_kv wraps. */
static int print_key(const struct meta_pair *p, void *ctx)
{
	struct wrap *w = ctx;
	int n = esc_len(p->key, ESC_TEXT) + 1;

	if (w->col + n > 100) {
		fputs("\n#  ", w->f);
		w->col = 3;
	}
	w->col += esc_printf(w->f, " %s", p->key);
	return 0;
}

static int print_counter(const struct meta_pair *p, void *f)
{
	esc_printf(f, " %s=%lld", p->key, p->num);
	return 0;
}

/* "99 Hz cpu-clock sampling", or with record -c "page-faults sampling, period 1". */
static void print_sampling(struct datafile *df, FILE *f)
{
	const char *period = datafile_meta(df, "sampling.period");

	if (period)
		esc_printf(f, "%s sampling, period %s\n", meta(df, "sampling.event"), period);
	else
		esc_printf(f, "%s Hz %s sampling\n", meta(df, "sampling.freq_hz"),
			   meta(df, "sampling.event"));
}

static int print_header(struct datafile *df, const struct counters_view *cv, const char *note,
			const struct user_files *uf, FILE *f)
{
	int err;

	char wall[32];

	fmt_ns(wall, sizeof(wall), strtoull(meta(df, "record.wall_ns"), NULL, 10));
	esc_printf(f, "# kprotperf report of %s (recorded %s)\n",
		   datafile_meta(df, "record.command") ?: meta(df, "record.mode"),
		   meta(df, "record.start_time"));
	esc_printf(f, "# kernel %s (build-id %s), %s, %s CPUs: %s\n", meta(df, "kernel.release"),
		   meta(df, "kernel.build_id"), meta(df, "arch"), meta(df, "cpu.count"),
		   meta(df, "cpu.model"));
	print_knobs(f, meta(df, "kernel.cmdline"));
	fputs("# hardening config:", f);
	meta_each(df, META_CONFIG_SHORT, print_kv, &(struct wrap){f, 19});
	/* every vulnerability the kernel reported, the mitigated ones (PTI...) too */
	fputs("\n# cpu vulnerabilities not fully mitigated:", f);
	meta_each(df, META_NOT_MITIGATED, print_kv, &(struct wrap){f, 42});
	fputs("\n# cpu vulnerabilities mitigated (or unknown):", f);
	meta_each(df, META_MITIGATED, print_kv, &(struct wrap){f, 45});
	fputs("\n# cpu not affected by:", f);
	meta_each(df, META_NOT_AFFECTED, print_key, &(struct wrap){f, 22});
	esc_printf(f, "\n# wall %s, exit code %s, ended: %s; ", wall, meta(df, "record.exit_code"),
		   meta(df, "record.end"));
	print_sampling(df, f);
	report_counters_header(cv, f);
	fprintf(f,
		"# %lld samples, %lld syscalls, %lld page faults (%lld user, %lld kernel), "
		"%lld processes\n",
		meta_counter(df, "samples"), meta_counter(df, "syscalls"),
		meta_counter(df, "page_faults_user") + meta_counter(df, "page_faults_kernel"),
		meta_counter(df, "page_faults_user"), meta_counter(df, "page_faults_kernel"),
		meta_processes(df));
	fputs("# lost:", f);
	meta_each(df, META_LOST, print_counter, f);
	fputs(meta_lost(df) ? "\n" : " nothing\n", f);
	err = own_cost_show(df, f, NULL);
	if (*note)
		esc_printf(f, "# inline frames and source lines not shown: %s\n", note);
	report_user_notes(uf, f, NULL);
	fputc('\n', f);
	return err;
}

/* record --no-syscalls: no table rather than an empty one. */
static bool syscalls_traced(struct datafile *df)
{
	const char *v = datafile_meta(df, "record.syscalls");

	return !v || strcmp(v, "off");
}

struct lat_table {
	struct datafile *df;
	const char *kind; /* the latency.kind of the rows: "syscall" or "func" */
	bool sc;	  /* kind is "syscall" */
	const struct counters_view *cv;
	struct lat_row *rows;
	size_t n;
};

static int add_lat_row(const struct latency_row *l, void *ctx)
{
	struct lat_table *t = ctx;
	__u64 hist[KP_HIST_BUCKETS];
	struct lat_row *r, *rows;
	int err;

	rows = realloc(t->rows, (t->n + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->rows = rows;
	r = &rows[t->n++];
	snprintf(r->name, sizeof(r->name), "%s", l->name);
	snprintf(r->method, sizeof(r->method), "%s", l->method);
	snprintf(r->symbol, sizeof(r->symbol), "%s", l->symbol);
	snprintf(r->module, sizeof(r->module), "%s", l->module);
	r->id = l->id;
	r->calls = l->calls;
	r->done = l->done;
	r->total = l->total_ns;
	r->oncpu = l->oncpu_ns;
	r->offcpu = l->offcpu_ns;
	r->max = l->max_ns;
	r->avg = r->done ? r->total / r->done : 0;
	err = latency_hist(t->df, t->kind, r->id, "total", hist);
	r->p50 = hist_quantile(hist, 0.50, r->max);
	r->p90 = hist_quantile(hist, 0.90, r->max);
	r->p99 = hist_quantile(hist, 0.99, r->max);
	return err;
}

static unsigned long long sort_value(const struct lat_row *r, enum sort_key k)
{
	const unsigned long long v[] = {r->total, r->calls, r->oncpu, r->offcpu, r->avg,
					r->p50,	  r->p90,   r->p99,   r->max};

	return v[k];
}

static int cmp_rows(const void *a, const void *b, void *key)
{
	const struct lat_row *x = a, *y = b;
	enum sort_key k = *(enum sort_key *)key;
	unsigned long long vx, vy;

	if (k == S_NAME)
		return strcmp(x->name, y->name);
	vx = sort_value(x, k);
	vy = sort_value(y, k);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* kind: "syscall" or "func". */
static int load_latency(struct datafile *df, const struct counters_view *cv, const char *kind,
			struct lat_table *t, enum sort_key key)
{
	int err;

	*t = (struct lat_table){.df = df, .kind = kind, .sc = !strcmp(kind, "syscall"), .cv = cv};
	err = t->sc ? latency_syscalls(df, add_lat_row, t) : latency_funcs(df, add_lat_row, t);
	if (!err && t->n)
		qsort_r(t->rows, t->n, sizeof(*t->rows), cmp_rows, &key);
	return err;
}

/* Functions have no on-CPU/off-CPU split (columns 1 and 2) but a probe method. */
static bool shown(bool sc, int k)
{
	return sc || (k != 1 && k != 2);
}

static void print_latency(const struct lat_table *t, FILE *f)
{
	const char *hdr[] = {"TOTAL", "ON-CPU", "OFF-CPU", "AVG", "P50", "P90", "P99", "MAX"};
	bool sc = t->sc;
	int k, w = sc ? 20 : 28;
	char b[8][32];
	size_t i;

	fprintf(f, "%-*s", w, sc ? "SYSCALL" : "FUNCTION");
	if (!sc)
		fprintf(f, " %-12s", "METHOD");
	fprintf(f, " %10s", "CALLS");
	for (k = 0; k < 8; k++)
		if (shown(sc, k))
			fprintf(f, " %10s", hdr[k]);
	fputc('\n', f);
	for (i = 0; i < t->n; i++) {
		const struct lat_row *r = &t->rows[i];
		const unsigned long long v[] = {r->total, r->oncpu, r->offcpu, r->avg,
						r->p50,	  r->p90,   r->p99,    r->max};

		esc_printf(f, "%-*s", w, r->name);
		if (!sc)
			esc_printf(f, " %-12s", r->method);
		fprintf(f, " %10llu", r->calls);
		for (k = 0; k < 8; k++) {
			fmt_ns(b[k], sizeof(b[k]), v[k]);
			if (shown(sc, k))
				fprintf(f, " %10s", r->done ? b[k] : "-");
		}
		fputc('\n', f);
	}
}

/* The counters table of t's rows, in their order (none without counted events). */
static void print_counters(const struct lat_table *t, FILE *f)
{
	size_t i;

	if (report_counters_head(t->cv, t->sc, f))
		for (i = 0; i < t->n; i++)
			report_counters_row(t->cv, t->sc, t->rows[i].id, t->rows[i].name, f);
}

static void json_lat_row(struct json *j, const struct lat_table *t, const struct lat_row *r)
{
	bool sc = t->sc;

	json_open(j, NULL, '{');
	json_str(j, "name", r->name);
	if (sc) {
		json_u64(j, "nr", r->id);
	} else {
		json_str(j, "symbol", r->symbol);
		json_str(j, "module", *r->module ? r->module : NULL);
		json_str(j, "method", r->method);
	}
	json_u64(j, "calls", r->calls);
	json_u64(j, "returned", r->done);
	json_u64(j, "total_ns", r->total);
	if (sc) {
		json_u64(j, "oncpu_ns", r->oncpu);
		json_u64(j, "offcpu_ns", r->offcpu);
	}
	json_u64(j, "avg_ns", r->avg);
	json_u64(j, "p50_ns", r->p50);
	json_u64(j, "p90_ns", r->p90);
	json_u64(j, "p99_ns", r->p99);
	json_u64(j, "max_ns", r->max);
	report_counters_json_row(t->cv, sc, r->id, j);
	json_close(j, '}');
}

static void json_latency(const struct lat_table *t, struct json *j)
{
	size_t i;

	json_open(j, t->sc ? "syscalls" : "functions", '[');
	for (i = 0; i < t->n; i++)
		json_lat_row(j, t, &t->rows[i]);
	json_close(j, ']');
}

/* Where a table's rows go: text to f, or a JSON array to j when j is set. */
struct out {
	FILE *f;
	struct json *j;
	const char *head; /* text printed before the first row, if any */
	double all;	  /* sampled functions: all samples */
	int rows;
};

static void table_open(struct out *o, const char *key)
{
	if (o->j)
		json_open(o->j, key, '[');
}

/* Before each row. */
static void table_row(struct out *o)
{
	if (!o->j && !o->rows && o->head)
		fputs(o->head, o->f);
	o->rows++;
}

/* After the rows, or the error that stopped them. */
static int table_close(struct out *o, int err)
{
	if (o->j)
		json_close(o->j, ']');
	return err;
}

static const char func_syscalls_head[] =
	"\nTime inside probed functions, per syscall (total, and its share of the syscall's"
	" on-CPU time)\n"
	"SYSCALL              FUNCTION                          CALLS      TOTAL\n";
/*
 * The share is of the syscall's on-CPU time: a function that sleeps can take
 * more than 100% of it.
 */
static int func_syscall_row(const struct latency_func_syscall *r, void *ctx)
{
	struct out *o = ctx;
	unsigned long long total = r->total_ns, oncpu = r->oncpu_ns;
	const char *sc = r->syscall;
	char t[32];

	table_row(o);
	if (!o->j) {
		fmt_ns(t, sizeof(t), total);
		esc_printf(o->f, "%-20s %-28s %10lld %10s", sc ?: "(no syscall)", r->func, r->calls,
			   t);
		if (sc && oncpu)
			fprintf(o->f, "  %5.1f%% of on-CPU", 100.0 * total / oncpu);
		fputc('\n', o->f);
		return 0;
	}
	json_open(o->j, NULL, '{');
	json_str(o->j, "function", r->func);
	json_str(o->j, "syscall", sc);
	json_u64(o->j, "nr", r->nr);
	json_u64(o->j, "calls", r->calls);
	json_u64(o->j, "total_ns", total);
	if (sc && oncpu)
		json_double(o->j, "oncpu_pct", 100.0 * total / oncpu);
	json_close(o->j, '}');
	return 0;
}

static const char func_contexts_head[] =
	"\nProbed functions per slab cache, sorted by total\n"
	"FUNCTION                     CACHE                         CALLS      TOTAL        AVG\n";
static int func_context_row(const struct latency_func_context *r, void *ctx)
{
	struct out *o = ctx;
	long long calls = r->calls;
	unsigned long long total = r->total_ns, avg = calls ? total / calls : 0;
	char t[32], a[32];

	table_row(o);
	if (!o->j) {
		fmt_ns(t, sizeof(t), total);
		fmt_ns(a, sizeof(a), avg);
		esc_printf(o->f, "%-28s %-24s %10lld %10s %10s\n", r->func, r->context, calls, t,
			   calls ? a : "-");
		return 0;
	}
	json_open(o->j, NULL, '{');
	json_str(o->j, "function", r->func);
	json_str(o->j, "context", r->context);
	json_u64(o->j, "calls", calls);
	json_u64(o->j, "total_ns", total);
	json_u64(o->j, "avg_ns", avg);
	json_close(o->j, '}');
	return 0;
}

struct absent_list {
	FILE *f;
	struct json *j;
	int n;
};

static int absent_row(const char *pattern, void *ctx)
{
	struct absent_list *l = ctx;

	if (l->j)
		json_str(l->j, NULL, pattern);
	else
		esc_printf(l->f, "%s%s", l->n ? ", " : "# absent on this kernel: ", pattern);
	l->n++;
	return 0;
}

/* The --func patterns that matched nothing on the recorded kernel, under the function table. */
static int absent_patterns(struct datafile *df, FILE *f, struct json *j)
{
	struct absent_list l = {f, j, 0};
	int err;

	if (j)
		json_open(j, "functions_absent", '[');
	err = latency_func_absent(df, absent_row, &l);
	if (j)
		json_close(j, ']');
	else if (l.n)
		fputc('\n', f);
	return err;
}

/* record --func: the probed functions, where their time went per syscall and per cache. */
static int probed_functions(struct datafile *df, const struct counters_view *cv, int top, FILE *f,
			    struct json *j)
{
	struct out sc = {.f = f, .j = j, .head = func_syscalls_head};
	struct out ctx = {.f = f, .j = j, .head = func_contexts_head};
	struct lat_table t;
	int err = load_latency(df, cv, "func", &t, S_TOTAL);

	if (!err && j)
		json_latency(&t, j);
	if (!err && !j && t.n) {
		fputs("\nProbed kernel functions (record --func), sorted by total (latency: "
		      "entry to return)\n",
		      f);
		print_latency(&t, f);
		print_counters(&t, f);
	}
	free(t.rows);
	err = err ?: absent_patterns(df, f, j);
	if (err)
		return err;
	table_open(&sc, "function_syscalls");
	err = table_close(&sc, latency_func_syscalls(df, top, func_syscall_row, &sc));
	if (err)
		return err;
	table_open(&ctx, "function_contexts");
	return table_close(&ctx, latency_func_contexts(df, top, func_context_row, &ctx));
}

static int sampled_row(const struct samples_func *fn, void *ctx)
{
	struct out *o = ctx;

	table_row(o);
	if (!o->j) {
		esc_printf(o->f, "%6.2f%%  %6.2f%% %8lld  %s\n", 100.0 * fn->self / o->all,
			   100.0 * fn->total / o->all, fn->self, fn->name);
		return 0;
	}
	json_open(o->j, NULL, '{');
	json_str(o->j, "name", fn->name);
	json_u64(o->j, "self_samples", fn->self);
	json_u64(o->j, "total_samples", fn->total);
	json_close(o->j, '}');
	return 0;
}

/* The kernel (space "k") or user ("u") functions that took the samples. */
static int functions(struct datafile *df, const char *space, const struct report_opts *ro, FILE *f,
		     struct json *j)
{
	struct out o = {.f = f, .j = j, .all = samples_total(df)};
	int err;

	if (!j)
		fprintf(f, "\n%-8s %-8s %8s  %s FUNCTION\n", "SELF", "TOTAL", "SAMPLES",
			*space == 'k' ? "KERNEL" : "USER");
	table_open(&o, *space == 'k' ? "kernel_functions" : "user_functions");
	err = table_close(&o, samples_functions(df, space, ro->top, ro->inlines, sampled_row, &o));
	if (!err && !j && !o.rows)
		fputs("(no samples with such frames)\n", f);
	return err;
}

static void print_bars(const char *title, const __u64 *hist, FILE *f)
{
	__u64 top = 0;
	char lo[32], hi[32];
	int b, first = -1, last = -1;

	for (b = 0; b < KP_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		first = first < 0 ? b : first;
		last = b;
		top = hist[b] > top ? hist[b] : top;
	}
	esc_printf(f, "\n%s\n%24s %10s  distribution\n", title, "latency", "count");
	for (b = first; b >= 0 && b <= last; b++) {
		fmt_ns(lo, sizeof(lo), hist_lo(b));
		fmt_ns(hi, sizeof(hi), hist_hi(b));
		fprintf(f, "[%10s, %10s) %10llu |%-40.*s|\n", lo, hi, (unsigned long long)hist[b],
			(int)(40 * hist[b] / top), "****************************************");
	}
}

static void json_hist(struct json *j, const char *key, const __u64 *hist)
{
	int b;

	json_open(j, key, '[');
	for (b = 0; b < KP_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		json_open(j, NULL, '{');
		json_u64(j, "lo_ns", hist_lo(b));
		json_u64(j, "hi_ns", hist_hi(b));
		json_u64(j, "count", hist[b]);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* A syscall's histograms (total and on-CPU), else a probed function's (total only). */
static int histogram(struct datafile *df, const char *name, FILE *f, struct json *j)
{
	__u64 total[KP_HIST_BUCKETS], oncpu[KP_HIST_BUCKETS];
	long long id = latency_syscall_id(df, name);
	bool sc = id >= 0;
	const char *what = sc ? "syscall" : "function";
	char title[256];
	int err;

	if (!sc)
		id = latency_func_id(df, name);
	if (id < 0)
		return -ENOENT;
	err = latency_hist(df, sc ? "syscall" : "func", id, "total", total);
	if (!err && sc)
		err = latency_hist(df, "syscall", id, "oncpu", oncpu);
	if (err)
		return err;
	if (j) {
		json_open(j, "histogram", '{');
		json_str(j, what, name);
		json_hist(j, "total", total);
		if (sc)
			json_hist(j, "oncpu", oncpu);
		json_close(j, '}');
		return 0;
	}
	snprintf(title, sizeof(title), "%s %s: entry to return (%llu returned)", what, name,
		 (unsigned long long)hist_total(total));
	print_bars(title, total, f);
	if (sc) {
		snprintf(title, sizeof(title), "%s %s: on-CPU part", what, name);
		print_bars(title, oncpu, f);
	}
	return 0;
}

struct json_table {
	struct json *j;
	bool number;
};

static int json_kv(const struct meta_pair *p, void *ctx)
{
	struct json_table *t = ctx;

	if (t->number)
		json_u64(t->j, p->key, p->num);
	else
		json_str(t->j, p->key, p->value);
	return 0;
}

static int json_header(struct datafile *df, const struct kernel_dwarf *kd, const char *note,
		       const struct user_files *uf, struct json *j)
{
	static const struct {
		const char *key;
		enum meta_list list;
	} tables[] = {
		{"meta", META_ALL},
		{"config", META_CONFIG},
		{"vulnerabilities", META_VULNERABILITIES},
		{"counters", META_COUNTERS},
	};
	struct json_table t = {.j = j};
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]) && !err; i++) {
		t.number = tables[i].list == META_COUNTERS;
		json_open(j, tables[i].key, '{');
		err = meta_each(df, tables[i].list, json_kv, &t);
		json_close(j, '}');
	}
	json_open(j, "debuginfo", '{');
	if (kd)
		json_str(j, "vmlinux", kernel_dwarf_path(kd));
	else if (*note)
		json_str(j, "missing", note);
	report_user_notes(uf, NULL, j);
	json_close(j, '}');
	return err ?: own_cost_show(df, NULL, j);
}

/* What a report shows beside its header; kd: the kernel's DWARF, NULL when not found. */
struct report_ctx {
	struct datafile *df;
	const struct report_opts *o;
	const struct lat_table *t;
	struct kernel_dwarf *kd;
	const char *note; /* why there is no DWARF, "" when there is */
	const struct features *feat;
	const struct user_files *uf; /* the user files read, NULL: none */
};

static int report_json(const struct report_ctx *c)
{
	struct datafile *df = c->df;
	const struct report_opts *o = c->o;
	const struct lat_table *t = c->t;
	struct json j;
	int err;

	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	err = json_header(df, c->kd, c->note, c->uf, &j);
	report_counters_json_header(t->cv, &j);
	if (!err && o->hist)
		err = histogram(df, o->hist, stdout, &j);
	if (!err && o->inline_table)
		err = report_inline(df, c->kd, o->top, stdout, &j);
	if (!err && !o->hist && !o->inline_table) {
		if (syscalls_traced(df))
			json_latency(t, &j);
		else
			json_str(&j, "syscalls", NULL);
		err = probed_functions(df, t->cv, o->top, stdout, &j)
			      ?: functions(df, "k", o, stdout, &j)
			      ?: functions(df, "u", o, stdout, &j)
			      ?: feature_costs_rollup(df, c->feat, stdout, &j);
	}
	json_close(&j, '}');
	json_end(&j);
	return err;
}

static int report_text(const struct report_ctx *c)
{
	struct datafile *df = c->df;
	const struct report_opts *o = c->o;
	char none[128];
	int err;

	err = print_header(df, c->t->cv, c->note, c->uf, stdout);
	if (err)
		return err;
	if (o->hist)
		return histogram(df, o->hist, stdout, NULL);
	if (o->inline_table)
		return report_inline(df, c->kd, o->top, stdout, NULL);
	if (!syscalls_traced(df)) {
		puts("Syscalls not traced (record --no-syscalls)");
	} else {
		printf("Syscalls of the traced processes, sorted by %s (latency: entry to "
		       "return;\n"
		       "on-CPU: running; off-CPU: waiting or preempted)\n",
		       sort_names[o->sort]);
		print_latency(c->t, stdout);
		print_counters(c->t, stdout);
	}
	err = probed_functions(df, c->t->cv, o->top, stdout, NULL);
	if (err)
		return err;
	if (samples_none(df, none, sizeof(none))) {
		printf("\n%s\n", none);
		return 0;
	}
	return functions(df, "k", o, stdout, NULL) ?: functions(df, "u", o, stdout, NULL)
		?: feature_costs_rollup(df, c->feat, stdout, NULL);
}

int report_sort_key(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (!strcmp(name, sort_names[i]))
			return i;
	return -1;
}

int report_show(struct datafile *df, struct kernel_dwarf *kd, const char *note,
		const struct features *feat, const struct report_opts *o)
{
	/* user files are read only for the user inline rows the function table shows */
	bool urows = o->inlines && !o->hist && !o->inline_table;
	struct user_files *uf = urows ? user_files_new() : NULL;
	struct counters_view cv;
	struct lat_table t = {};
	int err;

	err = urows && !uf ? -ENOMEM : stacks_name_frames(df, kd, NULL);
	if (!err && urows)
		err = report_user_frames(df, uf, o->top);
	err = err ?: report_counters_load(&cv, df);
	if (err) {
		user_files_free(uf);
		return err;
	}
	err = load_latency(df, &cv, "syscall", &t, o->sort);
	if (!err) {
		struct report_ctx c = {df, o, &t, kd, note, feat, uf};

		err = o->json ? report_json(&c) : report_text(&c);
	}
	free(t.rows);
	report_counters_free(&cv);
	user_files_free(uf);
	return err;
}

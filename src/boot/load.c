// SPDX-License-Identifier: GPL-2.0-only
/* A boot recording loaded for its views (load.h), through data/boot_read.h. */
#include "boot/load.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "data/boot_read.h"
#include "data/boot_schema.h"
#include "data/datafile.h"
#include "util/array.h"
#include "util/esc.h"

const char *const boot_phase_names[BOOT_PHASES] = {"kernel_entry", "initcalls_end", "first_user"};
const char *const boot_phase_about[BOOT_PHASES] = {
	"reset -> kernel entry",
	"reset -> end of initcalls",
	"reset -> first user process",
};

static int cmp_series(const void *a, const void *b)
{
	const struct boot_series *x = a, *y = b;

	return strcmp(x->name, y->name) ?: strcmp(x->module, y->module);
}

const struct boot_series *boot_find(const struct boot_series *s, size_t n, const char *name,
				    const char *module)
{
	struct boot_series key = {.name = (char *)name, .module = (char *)module};

	return n ? bsearch(&key, s, n, sizeof(*s), cmp_series) : NULL;
}

double boot_mean(const double *v, size_t n)
{
	double sum = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i])) {
			sum += v[i];
			k++;
		}
	return k ? sum / k : NAN;
}

size_t boot_known(const double *v, size_t n, double *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			out[k++] = v[i];
	return k;
}

__u64 boot_misses(const __u64 *v)
{
	return v[MODEL_I1_MISSES] + v[MODEL_D1_READ_MISSES] + v[MODEL_D1_WRITE_MISSES] +
	       v[MODEL_LL_MISSES];
}

static int by_mean(const void *a, const void *b)
{
	const struct boot_series *x = *(const struct boot_series *const *)a;
	const struct boot_series *y = *(const struct boot_series *const *)b;

	if (x->mean != y->mean)
		return x->mean > y->mean ? -1 : 1;
	return cmp_series(x, y);
}

const struct boot_series **boot_by_mean(const struct boot_series *s, size_t n)
{
	const struct boot_series **p = calloc(n + 1, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = &s[i];
	qsort(p, n, sizeof(*p), by_mean);
	return p;
}

/* A growing list of series; the last one is the one a row adds to. */
struct series_list {
	struct boot_series *s;
	size_t n, cap, runs;
};

static struct boot_series *series_add(struct series_list *l, const char *name, const char *module)
{
	struct boot_series *s;

	if (array_reserve((void **)&l->s, &l->cap, l->n + 1, sizeof(*l->s)))
		return NULL;
	s = &l->s[l->n];
	*s = (struct boot_series){.name = strdup(name),
				  .module = strdup(module),
				  .v = calloc(l->runs, sizeof(double))};
	if (!s->name || !s->module || !s->v) {
		free(s->name);
		free(s->module);
		free(s->v);
		return NULL;
	}
	l->n++;
	return s;
}

static void series_free(struct boot_series *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(s[i].name);
		free(s[i].module);
		free(s[i].v);
		free(s[i].miss);
	}
	free(s);
}

/* Per-run arrays of the header, NAN until a row fills them. */
static int runs_alloc(struct boot_rec *b)
{
	double **a[] = {&b->phase[0],	 &b->phase[1],	 &b->phase[2],	  &b->first_initcall,
			&b->entry_insns, &b->user_insns, &b->clock_offset};
	size_t i, r;

	for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		*a[i] = malloc(b->runs * sizeof(double));
		if (!*a[i])
			return -ENOMEM;
		for (r = 0; r < b->runs; r++)
			(*a[i])[r] = NAN;
	}
	return 0;
}

static double known(long long v)
{
	return v < 0 ? NAN : (double)v;
}

static int run_row(const struct boot_run_row *r, void *ctx)
{
	struct boot_rec *b = ctx;
	double off = known(r->clock_offset_ns);

	/* the kernel's times count from printk's time 0: without its offset, from nothing known */
	b->clock_offset[r->run] = off;
	b->phase[BOOT_KERNEL_ENTRY][r->run] = known(r->entry_insns);
	b->phase[BOOT_INITCALLS_END][r->run] = off + known(r->initcalls_end_ns);
	b->phase[BOOT_FIRST_USER][r->run] = off + known(r->first_user_ns);
	b->entry_insns[r->run] = known(r->entry_insns);
	b->user_insns[r->run] = known(r->first_user_insns);
	return 0;
}

/* Initcall rows, kept unsorted until all are read. */
struct call_walk {
	struct boot_rec *b;
	struct series_list l;
};

static int call_row(const struct boot_initcall_row *r, void *ctx)
{
	struct call_walk *w = ctx;
	struct boot_series *s = series_add(&w->l, r->name, "");
	double *first = &w->b->first_initcall[r->run];
	double start = w->b->clock_offset[r->run] + r->start_ns;

	if (!s)
		return -ENOMEM;
	s->v[r->run] = r->ns;
	s->nruns = 1;
	if (isnan(*first) || start < *first)
		*first = start;
	return 0;
}

/* The rows merged by name: an initcall run twice in a boot counts its time twice. */
static void calls_merge(struct series_list *l)
{
	size_t i, r, n = 0;

	if (!l->n)
		return;
	qsort(l->s, l->n, sizeof(*l->s), cmp_series);
	for (i = 0; i < l->n; i++) {
		struct boot_series *d = &l->s[n - (n > 0)];

		if (!n || cmp_series(d, &l->s[i])) {
			l->s[n++] = l->s[i];
			continue;
		}
		for (r = 0; r < l->runs; r++) {
			if (l->s[i].v[r] && !d->v[r])
				d->nruns++;
			d->v[r] += l->s[i].v[r];
		}
		free(l->s[i].name);
		free(l->s[i].module);
		free(l->s[i].v);
	}
	l->n = n;
}

static int func_row(const struct boot_func_row *r, void *ctx)
{
	struct series_list *l = ctx;
	struct boot_series *s = l->n ? &l->s[l->n - 1] : NULL;

	/* rows come by name, module and run */
	if (!s || strcmp(s->name, r->name) || strcmp(s->module, r->module))
		s = series_add(l, r->name, r->module);
	if (!s)
		return -ENOMEM;
	s->v[r->run] += r->insns;
	s->nruns++;
	return 0;
}

struct miss_walk {
	struct boot_rec *b;
	unsigned int geom;
};

static int miss_row(const struct boot_miss_row *r, void *ctx)
{
	struct miss_walk *w = ctx;
	struct boot_series *s =
		(struct boot_series *)boot_find(w->b->funcs, w->b->nfuncs, r->name, r->module);

	/* misses of a function that counted no instruction: none to charge them to */
	if (!s)
		return 0;
	if (!s->miss) {
		s->miss = calloc(w->b->ngeom, sizeof(*s->miss));
		if (!s->miss)
			return -ENOMEM;
	}
	memcpy(s->miss[w->geom], r->v, sizeof(r->v));
	return 0;
}

static void means(struct boot_series *s, size_t n, size_t runs)
{
	size_t i, r;

	for (i = 0; i < n; i++) {
		s[i].mean = 0;
		for (r = 0; r < runs; r++)
			s[i].mean += s[i].v[r] / runs;
	}
}

static int load_funcs(struct boot_rec *b)
{
	struct series_list l = {.runs = b->runs};
	struct miss_walk w = {b};
	int err = boot_funcs_each(b->df, func_row, &l);

	b->funcs = l.s;
	b->nfuncs = l.n;
	if (err)
		return err;
	b->model = l.n > 0;
	b->timing = b->model && b->mode && !strcmp(b->mode, "timing");
	b->core = b->timing ? datafile_meta(b->df, "model.core") ?: "?" : NULL;
	/* the timing model runs the caches and TLBs of one geometry as cache does */
	b->cache = b->model && b->mode && (!strcmp(b->mode, "cache") || b->timing);
	b->events = b->model && !strcmp(datafile_meta(b->df, "model.format") ?: "1", "2");
	err = b->cache ? model_geoms(b->df, b->geoms, MODEL_GEOMS_MAX, &b->ngeom) : 0;
	b->tlb = !err && b->events && b->cache && b->ngeom && b->geoms[0].tlb[0][0];
	for (w.geom = 0; !err && w.geom < b->ngeom; w.geom++)
		err = boot_misses_each(b->df, w.geom, miss_row, &w);
	means(b->funcs, b->nfuncs, b->runs);
	return err;
}

int boot_load(struct datafile *df, const char *path, struct boot_rec *b)
{
	struct call_walk w = {b};
	int err;

	*b = (struct boot_rec){
		.path = path,
		.df = df,
		.release = datafile_meta(df, "kernel.release"),
		.build_id = datafile_meta(df, "kernel.build_id"),
		.cmdline = datafile_meta(df, "kernel.cmdline"),
		.append = datafile_meta(df, "boot.append"),
		.mode = datafile_meta(df, "model.mode"),
	};
	err = boot_nruns(df, &b->runs) ?: runs_alloc(b) ?: boot_runs_each(df, run_row, b);
	w.l.runs = b->runs;
	err = err ?: boot_initcalls_each(df, call_row, &w);
	calls_merge(&w.l);
	b->calls = w.l.s;
	b->ncalls = w.l.n;
	means(b->calls, b->ncalls, b->runs);
	return err ?: load_funcs(b);
}

void boot_free(struct boot_rec *b)
{
	int i;

	for (i = 0; i < BOOT_PHASES; i++)
		free(b->phase[i]);
	free(b->first_initcall);
	free(b->clock_offset);
	free(b->entry_insns);
	free(b->user_insns);
	series_free(b->calls, b->ncalls);
	series_free(b->funcs, b->nfuncs);
	*b = (struct boot_rec){0};
}

struct model_walk {
	const struct boot_rec *b;
	struct boot_model *m;
};

static int model_row(const struct boot_model_row *r, void *ctx)
{
	struct model_walk *w = ctx;
	const struct boot_series *s = boot_find(w->b->funcs, w->b->nfuncs, r->name, r->module);
	struct model_func *f;

	/* counts of a function that counted no instruction: none to charge them to */
	if (!s)
		return 0;
	f = &w->m->f[(size_t)(s - w->b->funcs) * w->m->runs + r->run];
	switch (r->what) {
	case BOOT_ROW_MISSES:
		memcpy(f->v, r->v, sizeof(f->v));
		break;
	case BOOT_ROW_TLB:
		f->x[MODEL_ITLB_MISSES] = r->v[0];
		f->x[MODEL_DTLB_MISSES] = r->v[1];
		break;
	case BOOT_ROW_EVENT:
		if (r->kind >= 0 && r->kind < MODEL_KINDS)
			f->x[MODEL_XKINDS + r->kind] += r->v[0];
		f->x[MODEL_TLB_FLUSHES] += r->v[1];
		break;
	case BOOT_ROW_THUNKS:
		f->x[MODEL_RETPOLINES] = r->v[0];
		f->x[MODEL_RETURN_THUNKS] = r->v[1];
		break;
	case BOOT_ROW_CYCLES:
		memcpy(&f->x[MODEL_CYCLES], r->v, (1 + MODEL_CYCS) * sizeof(*r->v));
		break;
	}
	return 0;
}

int boot_model_load(const struct boot_rec *b, unsigned int geom, struct boot_model *m)
{
	struct model_walk w = {b, m};
	struct model_func *k;
	size_t i, r;
	int err;

	*m = (struct boot_model){.nfuncs = b->nfuncs, .runs = b->runs};
	m->f = calloc((b->nfuncs + 1) * b->runs, sizeof(*m->f));
	if (!m->f)
		return -ENOMEM;
	for (i = 0; i < b->nfuncs; i++)
		for (r = 0; r < b->runs; r++) {
			m->f[i * b->runs + r].name = b->funcs[i].name;
			m->f[i * b->runs + r].module = b->funcs[i].module;
			m->f[i * b->runs + r].insns = llround(b->funcs[i].v[r]);
		}
	/* a geometry the recording lacks selects no miss or TLB row */
	err = boot_model_each(b->df, b->cache && geom < b->ngeom ? geom : MODEL_GEOMS_MAX,
			      model_row, &w);
	for (r = 0; !err && r < b->runs; r++) {
		k = &m->f[b->nfuncs * b->runs + r];
		k->name = "[kernel]";
		k->module = "[kernel]";
		for (i = 0; i < b->nfuncs; i++)
			if (strcmp(b->funcs[i].module, "[boot]"))
				model_func_add(k, &m->f[i * b->runs + r]);
	}
	if (err)
		boot_model_free(m);
	return err;
}

void boot_model_free(struct boot_model *m)
{
	free(m->f);
	m->f = NULL;
}

const char *const boot_xfield_names[BOOT_XFIELDS] = {
	"itlb_misses", "dtlb_misses", "cr3_writes", "tlb_flushes", "serializing", "est_cycles",
};

double boot_xvalue(const struct boot_rec *b, const struct model_func *f,
		   const struct model_costs *costs, enum boot_xfield k)
{
	static const enum model_field of[BX_EST] = {MF_ITLB_MISSES, MF_DTLB_MISSES, MF_CR3_WRITES,
						    MF_TLB_FLUSHES, MF_SERIALIZING};

	/* without a cost table there is no estimate (the views say why) */
	if (k == BX_EST && b->timing)
		return (double)f->x[MODEL_CYCLES];
	if (k == BX_EST)
		return costs ? model_est_cycles(costs, f) : NAN;
	return (double)model_field(f, of[k]);
}

bool boot_xknown(const struct boot_rec *b, enum boot_xfield k, bool tlb_geom, bool costs)
{
	if (k == BX_ITLB || k == BX_DTLB)
		return b->events && b->tlb && tlb_geom;
	return b->events && (k != BX_EST || b->timing || costs);
}

int boot_costs(const struct boot_rec *b, const char *given, const char *cpu,
	       struct model_costs *buf, const struct model_costs **costs, char *why, size_t len)
{
	int err = model_costs_est(b->timing, given, cpu, buf, costs);

	if (err)
		snprintf(why, len, "--costs %s: no cost table to weigh est_cycles by", given);
	return err;
}

void boot_est_head(FILE *f, const struct boot_rec *b, const struct model_costs *costs)
{
	if (b->timing)
		esc_printf(f,
			   "# est_cycles (timing model, core %s): its cycles, not counts x costs\n",
			   b->core);
	else if (costs)
		esc_printf(f, "# est_cycles (estimate, costs: %s, %s)\n", costs->name, costs->path);
	else
		fputs("# est_cycles: no cost table (kprotperf calibrate, or --costs FILE)\n", f);
}

const char *boot_est_label(const struct boot_rec *b)
{
	return b->timing ? " (timing model)" : " (estimate)";
}

int boot_same_kind(const struct boot_rec b[2], char *why, size_t len)
{
	if (!b[0].model || !b[1].model)
		return 0;
	if (b[0].timing != b[1].timing)
		snprintf(
			why, len,
			"the base recording was modelled with %s, the hardened one with %s: compare"
			" recordings of one mode",
			b[0].mode, b[1].mode);
	else if (b[0].timing && strcmp(b[0].core, b[1].core))
		snprintf(why, len,
			 "the base boots were timed by core %s, the hardened ones by %s: compare"
			 " boots of one core (boot both with one --core)",
			 b[0].core, b[1].core);
	else
		return 0;
	return -EINVAL;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * report FILE of a boot recording (boot_report.h).  Times are means over the
 * boots, each with the 95% interval of the mean (Student's t over the
 * boots) when there are two or more; with the machine model, instructions
 * per boot, exact per boot (the model counts every one).
 */
#include "boot/boot_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_features.h"
#include "boot/load.h"
#include "data/datafile.h"
#include "data/meta.h"
#include "diff/stats.h"
#include "model/model_report.h"
#include "model/rows.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

/* One vulnerability the CPU has, NAME=STATUS, spaces as '_' as report has them; others counted. */
static int vuln_text(const struct meta_pair *p, void *ctx)
{
	void **c = ctx;
	char *v, *sp;

	if (!strcmp(p->value, "Not affected")) {
		++*(size_t *)c[1];
		return 0;
	}
	v = strdup(p->value);
	if (!v)
		return -ENOMEM;
	for (sp = v; (sp = strchr(sp, ' ')); sp++)
		*sp = '_';
	esc_printf(c[0], " %s=%s", p->key, v);
	free(v);
	return 0;
}

/* The guest's CPU and vulnerabilities (boot --cpu), when the recording has them. */
static void cpu_text(FILE *f, const struct boot_rec *b)
{
	const char *model = datafile_meta(b->df, "cpu.model");
	const char *cpu = datafile_meta(b->df, "boot.cpu");
	size_t unaffected = 0;
	void *ctx[2] = {f, &unaffected};

	if (!model)
		return;
	esc_printf(f, "#   cpu: %s (--cpu %s)\n", model, cpu && *cpu ? cpu : "not given: max");
	fputs("#   cpu vulnerabilities:", f);
	meta_each(b->df, META_VULNERABILITIES, vuln_text, ctx);
	fprintf(f, "%s%zu not affected\n", unaffected ? ", " : " ", unaffected);
}

void boot_header_text(FILE *f, const char *side, const struct boot_rec *b)
{
	esc_printf(f, "# %s%s: kernel %s, build id %s, %zu boot%s\n", side, b->path,
		   b->release ?: "?", b->build_id ?: "?", b->runs, b->runs == 1 ? "" : "s");
	esc_printf(f, "#   cmdline: %s\n", b->cmdline ?: "?");
	if (b->append && b->append[0])
		esc_printf(f, "#   append: %s\n", b->append);
	cpu_text(f, b);
	if (b->model)
		esc_printf(f, "#   machine model: %s%s%s (QEMU %s)\n", b->mode ?: "?",
			   b->timing ? ", core " : "", b->timing ? b->core : "",
			   datafile_meta(b->df, "model.qemu") ?: "?");
	if (b->model && b->events)
		esc_printf(
			f,
			"#   TLBs and events: %s (model table of format 2, guest pti %s, pcid %s)\n",
			b->tlb ? "TLB misses, CR3 writes, flushes, serializing"
			       : "no TLB simulated; CR3 writes, flushes, serializing",
			datafile_meta(b->df, "model.guest_pti") ?: "unknown",
			datafile_meta(b->df, "model.guest_pcid") ?: "unknown");
	else if (b->model)
		fputs("#   no TLBs or events: a model table of format 1 (or a recording before schema"
		      " 12): no itlb/dtlb_misses, cr3_writes, tlb_flushes, serializing or"
		      " est_cycles\n",
		      f);
	else
		fputs("#   no machine model: no per-function counts (boot with --model insns)\n",
		      f);
}

void boot_header_json(struct json *j, const struct boot_rec *b)
{
	json_str(j, "path", b->path);
	json_str(j, "kernel_release", b->release);
	json_str(j, "build_id", b->build_id);
	json_u64(j, "runs", b->runs);
	json_str(j, "cmdline", b->cmdline);
	/* the timing model's core: its est_cycles are that core's cycles */
	json_str(j, "core", b->core);
	if (b->model) {
		json_bool(j, "events", b->events);
		json_bool(j, "tlb", b->tlb);
	} else {
		json_str(j, "events", NULL);
		json_str(j, "tlb", NULL);
	}
}

int boot_check_geom(const struct boot_rec *b, unsigned int geom, char *why, size_t len)
{
	if (!b->cache || geom < b->ngeom)
		return 0;
	snprintf(why, len, "no cache geometry %u: the recording has %u (0 to %u)", geom, b->ngeom,
		 b->ngeom - 1);
	return -ERANGE;
}

/* One measure over the boots: its mean and interval (NAN: none). */
struct estimate {
	double mean, lo, hi;
};

static struct estimate estimate(const double *v, size_t runs)
{
	struct estimate e;
	double *k = malloc(runs * sizeof(*k));

	if (!k)
		return (struct estimate){boot_mean(v, runs), NAN, NAN};
	stats_mean_interval(k, boot_known(v, runs, k), &e.mean, &e.lo, &e.hi);
	free(k);
	return e;
}

/* A mean and its interval, in columns: times (ns) or counts. */
static void estimate_text(FILE *f, const struct estimate *e, bool ns)
{
	char m[32] = "-", lo[32], hi[32], ci[80] = "";

	if (ns) {
		fmt_ns(m, sizeof(m), e->mean);
		fmt_ns(lo, sizeof(lo), e->lo);
		fmt_ns(hi, sizeof(hi), e->hi);
	} else if (!isnan(e->mean)) {
		snprintf(m, sizeof(m), "%.0f", e->mean);
		snprintf(lo, sizeof(lo), "%.0f", e->lo);
		snprintf(hi, sizeof(hi), "%.0f", e->hi);
	}
	if (!isnan(e->lo))
		snprintf(ci, sizeof(ci), "%s .. %s", lo, hi);
	fprintf(f, "%12s %25s", m, ci);
}

static void phases_text(FILE *f, const struct boot_rec *b)
{
	static const char *const insns[] = {"reset -> kernel entry (instructions)",
					    "reset -> first user instruction (instructions)"};
	double *v[] = {b->entry_insns, b->user_insns};
	struct estimate e;
	int p;

	fprintf(f, "\nPhases (mean over %zu boot%s):\n%12s %25s  %s\n", b->runs,
		b->runs == 1 ? "" : "s", "mean", b->runs > 1 ? "95% interval" : "", "phase");
	for (p = 0; p < BOOT_PHASES; p++) {
		e = estimate(b->phase[p], b->runs);
		estimate_text(f, &e, true);
		fprintf(f, "  %s\n", boot_phase_about[p]);
	}
	for (p = 0; p < 2; p++) {
		e = estimate(v[p], b->runs);
		if (isnan(e.mean))
			continue;
		estimate_text(f, &e, false);
		fprintf(f, "  %s\n", insns[p]);
	}
}

static void calls_text(FILE *f, const struct boot_rec *b, const struct boot_series **s, size_t top)
{
	size_t i, n = b->ncalls < top ? b->ncalls : top;
	struct estimate e;

	fprintf(f, "\nInitcalls by mean time (%zu of %zu):\n%12s %25s %6s  %s\n", n, b->ncalls,
		"mean", b->runs > 1 ? "95% interval" : "", "boots", "initcall");
	for (i = 0; i < n; i++) {
		e = estimate(s[i]->v, b->runs);
		estimate_text(f, &e, true);
		esc_printf(f, " %6zu  %s\n", s[i]->nruns, s[i]->name);
	}
}

/* A function's means per boot as model/model_report.h's row, for its columns. */
static struct model_func per_boot(const struct boot_rec *b, const struct boot_series *s,
				  unsigned int geom)
{
	struct model_func m = {.name = s->name, .module = s->module, .insns = llround(s->mean)};
	int i;

	for (i = 0; s->miss && i < MODEL_STATS; i++)
		m.v[i] = llround((double)s->miss[geom][i] / b->runs);
	return m;
}

static void funcs_text(FILE *f, const struct boot_rec *b, const struct boot_series **s,
		       const struct model_view_opts *o)
{
	size_t i, n = b->nfuncs < o->top ? b->nfuncs : o->top;
	double whole = boot_insns(b);
	struct model_counts c = {.cache = b->cache};
	struct model_func m;

	fprintf(f, "\nFunctions by instructions per boot (%zu of %zu", n, b->nfuncs);
	if (b->cache)
		fprintf(f, "; misses of geometry %u", o->geom);
	fputs("):\n", f);
	model_heads_text(f, &c);
	fputs("  function  module\n", f);
	for (i = 0; i < n; i++) {
		m = per_boot(b, s[i], o->geom);
		model_cols_text(f, &c, &m, whole);
		esc_printf(f, "  %s  %s\n", m.name, m.module);
	}
}

/* The model's per-boot counts and est_cycles' table, for report's kernel fields. */
struct xview {
	bool show; /* the recording counted TLBs and events */
	struct boot_model m;
	const struct model_costs *costs;
	struct model_costs costs_buf;
};

static int xview_make(const struct boot_rec *b, const struct model_view_opts *o, struct xview *x,
		      char *why, size_t len)
{
	int err;

	*x = (struct xview){.show = b->model && b->events};
	if (!x->show)
		return 0;
	err = boot_costs(b, o->costs, datafile_meta(b->df, "cpu.model"), &x->costs_buf, &x->costs,
			 why, len);
	return err ?: boot_model_load(b, b->cache ? o->geom : MODEL_GEOMS_MAX, &x->m);
}

/* Field k of function i (b->nfuncs: the kernel) over the boots; NAN when b did not count it. */
static struct estimate xestimate(const struct boot_rec *b, const struct xview *x, size_t i,
				 enum boot_xfield k)
{
	double *v = malloc(b->runs * sizeof(*v));
	struct estimate e = {NAN, NAN, NAN};
	size_t r;

	if (v && boot_xknown(b, k, true, x->costs)) {
		for (r = 0; r < b->runs; r++)
			v[r] = boot_xvalue(b, boot_model_at(&x->m, i, r), x->costs, k);
		e = estimate(v, b->runs);
	}
	free(v);
	return e;
}

static void xkernel_text(FILE *f, const struct boot_rec *b, const struct xview *x)
{
	struct estimate e;
	int k;

	fprintf(f, "\nThe kernel's TLB misses and events (mean over %zu boot%s):\n", b->runs,
		b->runs == 1 ? "" : "s");
	boot_est_head(f, b, x->costs);
	fprintf(f, "%12s %25s  %s\n", "mean", b->runs > 1 ? "95% interval" : "", "field");
	for (k = 0; k < BOOT_XFIELDS; k++) {
		e = xestimate(b, x, b->nfuncs, k);
		estimate_text(f, &e, false);
		fprintf(f, "  %s%s%s\n", boot_xfield_names[k], k == BX_EST ? boot_est_label(b) : "",
			!isnan(e.mean) ? ""
			: k == BX_EST  ? "  (no cost table)"
				       : "  (no TLB simulated)");
	}
}

static void estimate_json(struct json *j, const char *key, const struct estimate *e,
			  const char *unit)
{
	char k[64];

	snprintf(k, sizeof(k), "%s%s", key, unit);
	json_double(j, k, e->mean);
	snprintf(k, sizeof(k), "ci_low%s", unit);
	json_double(j, k, e->lo);
	snprintf(k, sizeof(k), "ci_high%s", unit);
	json_double(j, k, e->hi);
}

static void phases_json(struct json *j, const struct boot_rec *b)
{
	struct estimate e;
	int p;

	json_open(j, "phases", '[');
	for (p = 0; p < BOOT_PHASES; p++) {
		e = estimate(b->phase[p], b->runs);
		json_open(j, NULL, '{');
		json_str(j, "name", boot_phase_names[p]);
		estimate_json(j, "mean", &e, "_ns");
		json_close(j, '}');
	}
	json_close(j, ']');
	e = estimate(b->entry_insns, b->runs);
	json_open(j, "entry", '{');
	estimate_json(j, "insns", &e, "");
	json_close(j, '}');
	e = estimate(b->user_insns, b->runs);
	json_open(j, "first_user", '{');
	estimate_json(j, "insns", &e, "");
	json_close(j, '}');
}

static void calls_json(struct json *j, const struct boot_rec *b, const struct boot_series **s,
		       size_t top)
{
	struct estimate e;
	size_t i;

	json_open(j, "initcalls", '[');
	for (i = 0; i < b->ncalls && i < top; i++) {
		e = estimate(s[i]->v, b->runs);
		json_open(j, NULL, '{');
		json_str(j, "name", s[i]->name);
		estimate_json(j, "mean", &e, "_ns");
		json_u64(j, "runs", s[i]->nruns);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* The cost table and the kernel's fields (mean, interval); null without TLBs and events. */
static void xkernel_json(struct json *j, const struct boot_rec *b, const struct xview *x)
{
	struct model_counts c = {.costs = x->costs};
	struct estimate e;
	int k;

	if (!x->show) {
		json_str(j, "costs", NULL);
		json_str(j, "kernel", NULL);
		return;
	}
	model_costs_json(j, &c);
	json_open(j, "kernel", '{');
	for (k = 0; k < BOOT_XFIELDS; k++) {
		e = xestimate(b, x, b->nfuncs, k);
		if (isnan(e.mean)) {
			json_str(j, boot_xfield_names[k], NULL);
			continue;
		}
		json_open(j, boot_xfield_names[k], '{');
		estimate_json(j, "mean", &e, "");
		json_close(j, '}');
	}
	json_close(j, '}');
}

static void funcs_json(struct json *j, const struct boot_rec *b, const struct boot_series **s,
		       const struct model_view_opts *o, const struct xview *x)
{
	struct estimate e;
	size_t i;
	int k;

	if (!b->model) {
		json_str(j, "functions", NULL);
		return;
	}
	json_double(j, "insns", boot_insns(b));
	if (b->cache)
		json_u64(j, "geometry", o->geom);
	json_open(j, "functions", '[');
	for (i = 0; i < b->nfuncs && i < o->top; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", s[i]->name);
		json_str(j, "module", s[i]->module);
		json_double(j, "insns", s[i]->mean);
		for (k = 0; b->cache && k < MODEL_STATS; k++)
			json_double(j, model_stat_names[k],
				    s[i]->miss ? (double)s[i]->miss[o->geom][k] / b->runs : 0);
		for (k = 0; x->show && k < BOOT_XFIELDS; k++) {
			e = xestimate(b, x, (size_t)(s[i] - b->funcs), k);
			json_double(j, boot_xfield_names[k], e.mean);
		}
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void report_json(FILE *f, const struct boot_rec *b, const struct boot_series **c,
			const struct boot_series **s, const struct model_view_opts *o,
			const struct xview *x)
{
	struct json j;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	boot_header_json(&j, b);
	json_str(&j, "append", b->append);
	json_str(&j, "model_mode", b->model ? b->mode : NULL);
	phases_json(&j, b);
	calls_json(&j, b, c, o->top);
	if (b->model)
		xkernel_json(&j, b, x);
	funcs_json(&j, b, s, o, x);
	json_close(&j, '}');
	json_end(&j);
}

int boot_report(const struct boot_rec *b, const struct model_view_opts *o, FILE *f, char *why,
		size_t len)
{
	const struct boot_series **c = boot_by_mean(b->calls, b->ncalls);
	const struct boot_series **s = boot_by_mean(b->funcs, b->nfuncs);
	int err = !c || !s ? -ENOMEM : boot_check_geom(b, o->geom, why, len);
	struct xview x = {0};

	err = err ?: xview_make(b, o, &x, why, len);
	if (!err && o->json) {
		report_json(f, b, c, s, o, &x);
	} else if (!err) {
		boot_header_text(f, "boot recording ", b);
		phases_text(f, b);
		calls_text(f, b, c, o->top);
		if (b->model)
			funcs_text(f, b, s, o);
		if (x.show)
			xkernel_text(f, b, &x);
	}
	boot_model_free(&x.m);
	free(s);
	free(c);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/* A sweep's cell from two recordings, by diff's measures (sweep_cell.h). */
#include "sweep/sweep_cell.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/runs.h"
#include "diff/metrics.h"
#include "diff/prov.h"
#include "model/costs.h"
#include "model/model_report.h"
#include "model/rows.h"
#include "model/model_sweep.h"
#include "symbols/stacks.h"
#include "sweep/sweep_optime.h"

/* The two recordings, opened and checked; a reason in c->why when not. */
static int open_both(const char *const path[2], struct datafile *df[2], struct sweep_cell *c)
{
	char why[400];
	int side, err = 0;

	for (side = 0; side < 2 && !err; side++) {
		*why = '\0';
		err = datafile_open(&df[side], path[side], why, sizeof(why));
		if (err == -EBADMSG && df[side])
			datafile_why(df[side], why, sizeof(why));
		if (err)
			snprintf(c->why, sizeof(c->why), "%s: %s", path[side],
				 *why ? why : strerror(-err));
	}
	for (side = 0; side < 2 && !err; side++) {
		err = runs_prepare(df[side], &c->runs[side]);
		if (err)
			snprintf(c->why, sizeof(c->why), "%s: its runs: %s", path[side],
				 strerror(-err));
	}
	return err;
}

static int wall(struct datafile *df[2], struct sweep_cell *c)
{
	struct metric_set s;
	struct metric *m;
	int side, err = 0;

	metrics_init(&s, NULL, NULL, c->runs, NULL);
	for (side = 0; side < 2 && !err; side++)
		err = metrics_load_wall(&s, side, df[side]);
	err = err ?: metrics_finish(&s, df, 1);
	m = err ? NULL : metrics_find(&s, "wall");
	if (m && m->seen[DM_BASE] && m->seen[DM_HARD]) {
		c->wall = m->r;
		c->ok = true;
	} else if (!err) {
		snprintf(c->why, sizeof(c->why), "no wall time in %s",
			 m && m->seen[DM_BASE] ? "the variant's recording"
					       : "the base's recording");
	} else if (err != -ENOMEM) {
		snprintf(c->why, sizeof(c->why), "reading the wall times: %s", strerror(-err));
	}
	metrics_free(&s);
	return err == -ENOMEM ? err : 0;
}

/* The kernel functions whose self CPU time per run changed most, as diff's table has them. */
static int sampled(struct datafile *df[2], size_t top, struct sweep_cell *c)
{
	double period[2] = {datafile_sample_period_ns(df[0]), datafile_sample_period_ns(df[1])};
	struct metric_set self, total;
	const struct metric *m;
	int side, err = 0;
	size_t i;

	metrics_init(&self, NULL, NULL, c->runs, period);
	metrics_init(&total, NULL, NULL, c->runs, period);
	for (side = 0; side < 2 && !err; side++)
		err = stacks_name_frames(df[side], NULL, NULL)
			      ?: metrics_load_kernel_functions(&self, &total, side, df[side]);
	err = err ?: metrics_finish(&self, df, top);
	for (i = 0; !err && i < self.shown && c->ntop < top; i++) {
		m = self.v[i];
		if (!m->r.delta_run)
			continue;
		snprintf(c->top[c->ntop].name, sizeof(c->top[0].name), "%s", m->name);
		c->top[c->ntop].delta = m->r.delta_run;
		c->top[c->ntop++].sig = m->r.sig;
	}
	metrics_free(&self);
	metrics_free(&total);
	return err;
}

/* By the size of the change in est_cycles, the largest first. */
static int by_est(const void *a, const void *b)
{
	double x = fabs(((const struct model_pair *)a)->d_est);
	double y = fabs(((const struct model_pair *)b)->d_est);

	return (x < y) - (x > y);
}

/* A pair's change that ranks it: est_cycles where there are, else misses, else instructions. */
static double pair_delta(const struct sweep_cell *c, const struct model_pair *p)
{
	if (c->has_est)
		return p->d_est;
	return (double)(c->cache ? p->d_misses : p->d_insns);
}

/* The kernel functions of the pairs whose change ranks them first, per run. */
static void model_top(const struct model_pair *pairs, size_t n, size_t top, struct sweep_cell *c)
{
	size_t i;
	double d;

	for (i = 0; i < n && c->ntop < top; i++) {
		d = pair_delta(c, &pairs[i]);
		if (pairs[i].module[0] == '/' || !d || isnan(d))
			continue;
		snprintf(c->top[c->ntop].name, sizeof(c->top[0].name), "%s", pairs[i].name);
		c->top[c->ntop++].delta = d / (c->runs[0] ?: 1);
	}
}

/*
 * Whether the two sides' counts compare: of one kind (a timing model's
 * cycles against counts x costs would measure the two methods), and of
 * one core (two cores' cycles would measure the cores, not the kernels).
 * False with why in c->why.
 */
static bool comparable(const struct model_counts mc[2], struct sweep_cell *c)
{
	char why[400];

	if (model_counts_same_kind(&mc[0], &mc[1], why, sizeof(why))) {
		snprintf(c->why, sizeof(c->why), "%s", why);
		return false;
	}
	if (mc[0].timing && strcmp(mc[0].core, mc[1].core)) {
		snprintf(c->why, sizeof(c->why),
			 "the base's timing model ran core %.100s, the variant's %.100s: give the"
			 " sweep --core, one core for all",
			 mc[0].core, mc[1].core);
		return false;
	}
	return true;
}

/*
 * est_cycles of each side, the kernel's per run: the timing model's cycles,
 * or under c->costs where both sides simulated the same caches and TLBs.
 */
static void est_of(struct model_counts mc[2], struct sweep_cell *c)
{
	int side;

	c->timing = mc[0].timing;
	c->has_est = c->timing || (c->costs && c->cache && mc[0].tlb && mc[1].tlb && mc[0].events &&
				   mc[1].events);
	for (side = 0; side < 2; side++) {
		mc[side].costs = c->has_est && !c->timing ? c->costs : NULL;
		c->est[side] = c->has_est ? model_func_est(&mc[side], &mc[side].kernel) /
						    (c->runs[side] ?: 1)
					  : NAN;
	}
}

/* The model's counts: the kernel's per run, and its functions by the change. */
static int modelled(struct datafile *df[2], size_t top, struct sweep_cell *c)
{
	struct model_counts mc[2] = {};
	struct model_pair *pairs = NULL;
	char why[400];
	size_t n = 0;
	int side, err = 0;

	for (side = 0; side < 2 && !err; side++)
		err = model_counts_read(df[side], 0, &mc[side], why, sizeof(why));
	if (err)
		snprintf(c->why, sizeof(c->why), "the %s's model counts: %s",
			 side == 1 ? "base" : "variant", why);
	c->ok = !err && comparable(mc, c);
	if (!c->ok)
		goto out;
	c->model = true;
	c->cache = model_sweep_same(&mc[0], &mc[1]);
	est_of(mc, c);
	for (side = 0; side < 2; side++) {
		c->insns[side] = (double)mc[side].kernel.insns / (c->runs[side] ?: 1);
		c->misses[side] =
			(double)model_func_misses(&mc[side].kernel) / (c->runs[side] ?: 1);
	}
	err = model_diff_pairs(&mc[0], &mc[1], c->cache, &pairs, &n);
	if (!err && c->has_est)
		qsort(pairs, n, sizeof(*pairs), by_est);
	if (!err)
		model_top(pairs, n, top, c);
	free(pairs);
out:
	model_counts_free(&mc[0]);
	model_counts_free(&mc[1]);
	return err == -ENOMEM ? err : 0;
}

/* A reading error: a bad value named by its recording, any other as such. */
static void say_error(const char *const path[2], struct datafile *df[2], int err,
		      struct sweep_cell *c)
{
	char why[400];
	int side;

	c->ok = false;
	for (side = 0; side < 2; side++)
		if (err == -EBADMSG && datafile_why(df[side], why, sizeof(why))) {
			snprintf(c->why, sizeof(c->why), "%s: %s", path[side], why);
			return;
		}
	snprintf(c->why, sizeof(c->why), "reading %s and %s: %s", path[0], path[1], strerror(-err));
}

/*
 * The two recordings of path opened and checked, fn run on them, closed;
 * what goes wrong in c->why (c->ok false).  -ENOMEM, else 0.
 */
static int on_pair(const char *const path[2], size_t top, struct sweep_cell *c,
		   int (*fn)(struct datafile *df[2], size_t top, struct sweep_cell *c))
{
	struct datafile *df[2] = {};
	int err = open_both(path, df, c);

	if (err)
		c->ok = false;
	err = err ? 0 : fn(df, top, c);
	if (err && err != -ENOMEM) {
		say_error(path, df, err, c);
		err = 0;
	}
	if (df[0])
		datafile_close(df[0]);
	if (df[1])
		datafile_close(df[1]);
	return err;
}

static int timed(struct datafile *df[2], size_t top, struct sweep_cell *c)
{
	return wall(df, c);
}

static int timed_modelled(struct datafile *df[2], size_t top, struct sweep_cell *c)
{
	int err = wall(df, c);

	return err || !c->ok ? err : modelled(df, top, c);
}

/* The functions of the sampled recordings; why not in c->funcs_why. */
static int functions(const char *const samples[2], size_t top, struct sweep_cell *c)
{
	struct sweep_cell s = {.ok = true};
	int err = on_pair(samples, top, &s, sampled);

	memcpy(c->top, s.top, sizeof(s.top));
	c->ntop = s.ntop;
	if (!err && !s.ok)
		snprintf(c->funcs_why, sizeof(c->funcs_why), "%s", s.why);
	return err;
}

/* The time per operation from core-ops' lines, one a run of each timed recording. */
static int op_time(const struct sweep_cell_files *f, const char *op, struct sweep_cell *c)
{
	double v[2][SWEEP_RUNS_MAX];
	char why[400];
	int side, n;

	for (side = 0; side < 2; side++) {
		n = sweep_optime_read(f->out[side], op, v[side], why, sizeof(why));
		if (n >= 0 && (size_t)n != c->runs[side])
			snprintf(why, sizeof(why), "%s: %d runs' lines, and its recording %zu runs",
				 f->out[side], n, c->runs[side]);
		if (n < 0 || (size_t)n != c->runs[side]) {
			snprintf(c->why, sizeof(c->why), "%s", why);
			c->ok = false;
			return 0;
		}
	}
	return sweep_optime_compare(v[0], c->runs[0], v[1], c->runs[1], &c->op, &c->p);
}

int sweep_cell_compare(const struct sweep_cell_files *f, const char *op, size_t top,
		       struct sweep_cell *c)
{
	int err;

	*c = (struct sweep_cell){.p = NAN, .costs = f->costs};
	if (top > SWEEP_TOP_MAX)
		top = SWEEP_TOP_MAX;
	err = on_pair(f->time, top, c, f->samples[0] ? timed : timed_modelled);
	if (!err && c->ok)
		err = op_time(f, op, c);
	if (!err && c->ok && f->samples[0])
		err = functions(f->samples, top, c);
	return err;
}

int sweep_cell_costs(const char *path, struct model_costs *c)
{
	struct datafile *df = NULL;
	char why[400];
	int err = datafile_open(&df, path, why, sizeof(why));

	if (!err)
		err = model_costs_pick(NULL, datafile_meta(df, "cpu.model"), c);
	if (df)
		datafile_close(df);
	return err;
}

int sweep_cell_core(const char *path, char *core, size_t len)
{
	struct datafile *df = NULL;
	char why[400];
	int err = datafile_open(&df, path, why, sizeof(why));

	if (!err)
		snprintf(core, len, "%s", datafile_meta(df, "model.core") ?: "?");
	if (df)
		datafile_close(df);
	return err;
}

/* Each "#   WHAT" line of text, without its prefix, into a new array. */
static int lines_of(const char *text, char ***lines, size_t *n)
{
	const char *s, *end;
	char **v = NULL, **grown;

	*n = 0;
	for (s = text; *s; s = *end ? end + 1 : end) {
		end = s + strcspn(s, "\n");
		if (strncmp(s, "#   ", 4))
			continue;
		grown = realloc(v, (*n + 1) * sizeof(*v));
		if (!grown || !(grown[*n] = strndup(s + 4, end - s - 4))) {
			v = grown ?: v;
			while (*n)
				free(v[--*n]);
			free(v);
			return -ENOMEM;
		}
		v = grown;
		(*n)++;
	}
	*lines = v;
	return 0;
}

int sweep_differs(const char *base, const char *variant, const struct features *feat, char ***lines,
		  size_t *n)
{
	const char *path[2] = {base, variant};
	struct sweep_cell c = {};
	struct datafile *df[2] = {};
	char *text = NULL;
	size_t size;
	FILE *f;
	int err = open_both(path, df, &c);

	*lines = NULL;
	*n = 0;
	f = err ? NULL : open_memstream(&text, &size);
	if (!err && !f)
		err = -ENOMEM;
	if (f) {
		err = prov_print(df, feat, f, NULL);
		fclose(f);
	}
	if (!err)
		err = lines_of(text, lines, n);
	free(text);
	if (df[0])
		datafile_close(df[0]);
	if (df[1])
		datafile_close(df[1]);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/* A sweep's matrix from DIR (sweep_matrix.h). */
#include "sweep/sweep_matrix.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/features.h"
#include "diff/stats.h"
#include "sweep/sweep_ops.h"
#include "sweep/sweep_setup.h"
#include "util/esc.h"
#include "util/safeio.h"

/* The scratch folder DIR/kprotperf-NAME.XXXXXX a job of variant name left, into buf: whether one
 * is. */
static bool scratch_left(const char *dir, const char *name, char *buf, size_t len)
{
	char prefix[SWEEP_NAME_MAX + 16];
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	snprintf(prefix, sizeof(prefix), "kprotperf-%s.", name);
	while (d && !found && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
		    strlen(e->d_name) == strlen(prefix) + 6) {
			snprintf(buf, len, "%s/%s", dir, e->d_name);
			found = true;
		}
	if (d)
		closedir(d);
	return found;
}

/* Why variant v has no job file: never run, or a job not at its end (running, or killed). */
static void no_job(const struct sweep_matrix *m, const struct sweep_variant *v, const char *path,
		   char *why, size_t len)
{
	char left[PATH_MAX];

	if (scratch_left(m->dir, v->name, left, sizeof(left)))
		snprintf(why, len,
			 "not finished: no %.300s, and %.300s is its job's scratch folder: a job"
			 " running, or one stopped before its end (killed: a time limit, a"
			 " cancel); remove it and run the job again (kprotperf sweep --job %s ...)",
			 path, left, v->name);
	else
		snprintf(why, len, "not run: no %.700s (kprotperf sweep --job %s ...)", path,
			 v->name);
}

/* A job's file, checked against the plan; false with why when it cannot be used. */
static bool job_of(const struct sweep_matrix *m, const struct sweep_variant *v,
		   struct sweep_jobfile *j, char *why, size_t len)
{
	char path[PATH_MAX], setup[SWEEP_FIELD_MAX], problem[SWEEP_FIELD_MAX];
	struct sweep_setup s;
	int err;

	snprintf(path, sizeof(path), "%s/%s/job", m->dir, v->name);
	err = sweep_jobfile_read(path, j, problem, sizeof(problem));
	if (err == -ENOENT)
		no_job(m, v, path, why, len);
	else if (err)
		snprintf(why, len, "%s", problem);
	if (err)
		return false;
	sweep_setup_of(&m->plan, v, &s);
	sweep_setup_line(&s, setup, sizeof(setup));
	if (strcmp(j->variant, v->name) || strcmp(j->setup, setup)) {
		snprintf(why, len,
			 "%.400s is of another setup than the plan's (%.500s): run its job again",
			 path, setup);
		return false;
	}
	if (strcmp(j->status, "ok")) {
		snprintf(why, len, "%s", *j->reason ? j->reason : "its job failed, saying nothing");
		return false;
	}
	return true;
}

/* The operations of base's job, each a core-ops name, as the columns. */
static int columns(struct sweep_matrix *m, char *why, size_t len)
{
	char *w, *save = NULL;

	m->model = strcmp(m->base.model, "none");
	for (w = strtok_r(m->base.ops, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!sweep_ops_known(w) || m->nops == SWEEP_OPS_MAX) {
			snprintf(why, len, "%s/base/job: operation '%.64s' is none of core-ops'",
				 m->dir, w);
			return -EINVAL;
		}
		m->ops[m->nops++] = w;
	}
	return 0;
}

/* A recording's status as its guest left it: NULL when it exited 0, else why not. */
static const char *op_failed(const struct sweep_matrix *m, const char *variant, const char *op,
			     char *buf, size_t len)
{
	char path[PATH_MAX], why[256], line[256] = "", *nl;
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/%s/%s.rc", m->dir, variant, op);
	f = safeio_fopen_text(path, why, sizeof(why));
	if (!f) {
		snprintf(buf, len, "%s: not recorded (%s)", variant, why);
		return buf;
	}
	if (fscanf(f, "%d", &rc) != 1)
		rc = -1;
	fclose(f);
	if (!rc)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s/%s.err", m->dir, variant, op);
	f = safeio_fopen_text(path, why, sizeof(why));
	while (f && fgets(why, sizeof(why), f))
		if (*why != '\n')
			snprintf(line, sizeof(line), "%s", why);
	if (f)
		fclose(f);
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	snprintf(buf, len, "%s: kprotperf record -- core-ops %s exited %d: %s", variant, op, rc,
		 *line ? line : "(no message)");
	return buf;
}

/* The file of operation op of variant name, ".data", ".samples.data" or ".out", into buf. */
static const char *of(const struct sweep_matrix *m, const char *name, const char *op,
		      const char *kind, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s%s", m->dir, name, op, kind);
	return buf;
}

/* The cell of operation k of row r. */
static int cell(const struct sweep_matrix *m, struct sweep_row *r, size_t k, size_t top)
{
	struct sweep_cell *c = &r->cells[k];
	const char *op = m->ops[k], *name[2] = {"base", r->v->name};
	struct sweep_cell_files f = {};
	char path[2][3][PATH_MAX];
	int side;

	*c = (struct sweep_cell){.p = NAN};
	if (op_failed(m, "base", op, c->why, sizeof(c->why)) ||
	    op_failed(m, r->v->name, op, c->why, sizeof(c->why)))
		return 0;
	for (side = 0; side < 2; side++) {
		f.time[side] = of(m, name[side], op, ".data", path[side][0], PATH_MAX);
		f.out[side] = of(m, name[side], op, ".out", path[side][1], PATH_MAX);
		f.samples[side] =
			m->model ? NULL
				 : of(m, name[side], op, ".samples.data", path[side][2], PATH_MAX);
	}
	f.costs = m->costed ? &m->costs : NULL;
	return sweep_cell_compare(&f, op, top, c);
}

/*
 * The plan's --cpu when base's and the variant's differ, as one more line of
 * what differs (the recordings' cpu.model, QEMU's model name, is alike for
 * two versions of a model: Cascadelake-Server-v1 and -v2); it replaces a
 * "nothing: ..." line.
 */
static int plan_cpu(const struct sweep_matrix *m, struct sweep_row *r)
{
	const char *cpu[2];
	struct sweep_setup s[2];
	char **grown;
	size_t k;

	sweep_setup_of(&m->plan, &m->plan.v[m->plan.base], &s[0]);
	sweep_setup_of(&m->plan, r->v, &s[1]);
	for (k = 0; k < 2; k++)
		cpu[k] = s[k].cpu ?: "(not set)";
	if (!strcmp(cpu[0], cpu[1]))
		return 0;
	for (k = 0; k < r->ndiffers; k++)
		if (!strncmp(r->differs[k], "nothing:", 8)) {
			free(r->differs[k]);
			r->differs[k] = r->differs[--r->ndiffers];
		}
	grown = realloc(r->differs, (r->ndiffers + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	r->differs = grown;
	if (asprintf(&grown[r->ndiffers], "cpu --cpu: %s -> %s (the plan's)", cpu[0], cpu[1]) < 0)
		return -ENOMEM;
	r->ndiffers++;
	return 0;
}

/* What differs from base, from the first operation both recorded. */
static int differs(const struct sweep_matrix *m, struct sweep_row *r, const struct features *feat)
{
	char path[2][PATH_MAX];
	size_t k;

	for (k = 0; k < m->nops; k++)
		if (r->cells[k].ok)
			return sweep_differs(
				       of(m, "base", m->ops[k], ".data", path[0], sizeof(path[0])),
				       of(m, r->v->name, m->ops[k], ".data", path[1],
					  sizeof(path[1])),
				       feat, &r->differs, &r->ndiffers)
				       ?: plan_cpu(m, r);
	return 0;
}

/*
 * Whether r's job recorded as base's did: the same model (a timing model's
 * cycles and counts x costs are two methods), the same --core, the same
 * line in the guest.  False with why in r->why.
 */
static bool like_base(const struct sweep_matrix *m, struct sweep_row *r)
{
	if (strcmp(r->job.model, m->base.model))
		snprintf(r->why, sizeof(r->why),
			 "recorded with model %s and base with %s: not comparable", r->job.model,
			 m->base.model);
	else if (strcmp(r->job.core, m->base.core))
		snprintf(r->why, sizeof(r->why),
			 "recorded with --core %.400s and base with %.400s: not comparable",
			 *r->job.core ? r->job.core : "(vm-run.sh's default)",
			 *m->base.core ? m->base.core : "(vm-run.sh's default)");
	else if (strcmp(r->job.record, m->base.record))
		snprintf(r->why, sizeof(r->why),
			 "recorded otherwise than base (its job file's record line): not"
			 " comparable: run both jobs with one kprotperf");
	else
		return true;
	return false;
}

static int row(struct sweep_matrix *m, struct sweep_row *r, size_t top, const struct features *feat)
{
	size_t k;
	int err = 0;

	r->cells = calloc(m->nops ?: 1, sizeof(*r->cells));
	if (!r->cells)
		return -ENOMEM;
	r->ok = m->base_ok && job_of(m, r->v, &r->job, r->why, sizeof(r->why));
	if (!m->base_ok)
		snprintf(r->why, sizeof(r->why), "base: %.1000s", m->base_why);
	r->ok = r->ok && like_base(m, r);
	for (k = 0; r->ok && k < m->nops && !err; k++)
		err = cell(m, r, k, top);
	return err ?: (r->ok ? differs(m, r, feat) : 0);
}

/*
 * A cell's mark: Holm's verdict and its own interval's.  An unmarked cell
 * names no function: what changed most in a change the matrix cannot call
 * is as likely noise (a sample or two per run) as its cause.
 */
static void unmarked_unnamed(struct sweep_cell *c, bool holm)
{
	c->sig = holm && c->op.sig;
	if (c->sig || !c->ok || (!c->ntop && c->funcs_why[0]))
		return;
	c->ntop = 0;
	snprintf(c->funcs_why, sizeof(c->funcs_why), "the change is not significant");
}

/* Holm over every cell with a p value; a cell's mark also needs its own interval's verdict. */
static int verdicts(struct sweep_matrix *m)
{
	size_t n = m->nrows * m->nops, i, k, t;
	double *p = calloc(n ?: 1, sizeof(*p));
	bool *sig = calloc(n ?: 1, sizeof(*sig));
	int err = p && sig ? 0 : -ENOMEM;

	for (i = 0, t = 0; !err && i < m->nrows; i++)
		for (k = 0; k < m->nops; k++, t++) {
			p[t] = m->rows[i].cells && m->rows[i].cells[k].ok ? m->rows[i].cells[k].p
									  : NAN;
			m->tests += !isnan(p[t]);
		}
	err = err ?: stats_holm(p, n, SWEEP_ALPHA, sig);
	for (i = 0, t = 0; !err && i < m->nrows; i++)
		for (k = 0; k < m->nops; k++, t++)
			if (m->rows[i].cells)
				unmarked_unnamed(&m->rows[i].cells[k], sig[t]);
	free(p);
	free(sig);
	return err;
}

/*
 * With the model, est_cycles' table for base's guest CPU, from its first
 * recorded operation: one table for the whole matrix, so that its cells
 * compare.  None found is said once (model_costs_pick) and leaves the
 * cells without est_cycles.  Under the timing model none is picked:
 * est_cycles is its cycles, and the matrix names base's core instead.
 */
static void costs_of(struct sweep_matrix *m)
{
	char path[PATH_MAX];
	size_t k;

	m->timing = m->model && !strcmp(m->base.model, "timing");
	for (k = 0; m->model && m->base_ok && k < m->nops; k++) {
		if (op_failed(m, "base", m->ops[k], path, sizeof(path)))
			continue;
		of(m, "base", m->ops[k], ".data", path, sizeof(path));
		if (m->timing && sweep_cell_core(path, m->core, sizeof(m->core)))
			snprintf(m->core, sizeof(m->core), "?");
		else if (!m->timing)
			m->costed = !sweep_cell_costs(path, &m->costs);
		return;
	}
}

static int base_of(struct sweep_matrix *m, char *why, size_t len)
{
	const struct sweep_variant *b = &m->plan.v[m->plan.base];

	m->base_ok = job_of(m, b, &m->base, m->base_why, sizeof(m->base_why));
	/* without base's job the columns are unknown: none */
	return m->base_ok || *m->base.ops ? columns(m, why, len) : 0;
}

int sweep_matrix_load(const char *dir, size_t top, struct sweep_matrix *m, char *why, size_t len)
{
	struct features *feat = NULL;
	char path[PATH_MAX], fwhy[256];
	size_t i;
	int err;

	*m = (struct sweep_matrix){.dir = dir};
	snprintf(path, sizeof(path), "%s/sweep.plan", dir);
	err = sweep_plan_load(path, &m->plan, why, len);
	if (err == -ENOENT)
		snprintf(why, len, "%s: no sweep there (no sweep.plan: its jobs write it)", dir);
	err = err ?: base_of(m, why, len) ?: features_load(&feat, NULL, fwhy, sizeof(fwhy));
	if (!err)
		costs_of(m);
	m->rows = err ? NULL : calloc(m->plan.n, sizeof(*m->rows));
	if (!err && !m->rows)
		err = -ENOMEM;
	for (i = 0; !err && i < m->plan.n; i++) {
		if (i == m->plan.base)
			continue;
		m->rows[m->nrows].v = &m->plan.v[i];
		err = row(m, &m->rows[m->nrows++], top, feat);
	}
	err = err ?: verdicts(m);
	if (err == -ENOMEM)
		snprintf(why, len, "%s: no memory", dir);
	if (feat)
		features_free(feat);
	return err;
}

void sweep_matrix_free(struct sweep_matrix *m)
{
	size_t i, k;

	for (i = 0; i < m->nrows; i++) {
		for (k = 0; k < m->rows[i].ndiffers; k++)
			free(m->rows[i].differs[k]);
		free(m->rows[i].differs);
		free(m->rows[i].cells);
	}
	free(m->rows);
	sweep_plan_free(&m->plan);
	*m = (struct sweep_matrix){};
}

bool sweep_matrix_whole(const struct sweep_matrix *m)
{
	size_t i, k;

	for (i = 0; i < m->nrows; i++)
		for (k = 0; k < m->nops; k++)
			if (!m->rows[i].ok || !m->rows[i].cells[k].ok)
				return false;
	return m->nrows && m->nops;
}

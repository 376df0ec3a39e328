// SPDX-License-Identifier: GPL-2.0-only
/* A core operation's own time per run, read and compared (sweep_optime.h). */
#include "sweep/sweep_optime.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/safeio.h"

/* One run's line: its mean ns per operation, or -1 when it is none of op's. */
static double mean_of(const char *line, const char *op)
{
	char name[64];
	long long n, batches;
	double mean;
	int used = 0;

	if (sscanf(line, "core-ops %63[^:]: %lld operations in %lld batches: mean %lf ns,%n", name,
		   &n, &batches, &mean, &used) != 4 ||
	    !used || strcmp(name, op) || n < 1 || batches < 1 || batches > n || !isfinite(mean) ||
	    mean <= 0)
		return -1;
	return mean;
}

int sweep_optime_read(const char *path, const char *op, double *v, char *why, size_t len)
{
	char problem[256], *line = NULL;
	FILE *f = safeio_fopen_text(path, problem, sizeof(problem));
	size_t cap = 0, n = 0, at = 0;
	int err = 0;

	if (!f) {
		snprintf(why, len, "%s", problem);
		return -errno;
	}
	while (!err && getline(&line, &cap, f) > 0) {
		at++;
		if (n == SWEEP_RUNS_MAX)
			err = -E2BIG;
		else if ((v[n++] = mean_of(line, op)) < 0)
			err = -EINVAL;
	}
	if (err)
		snprintf(why, len, "%s:%zu: %s", path, at,
			 err == -E2BIG ? "more runs than a sweep makes"
				       : "not core-ops' line of a run of this operation");
	else if (!n)
		snprintf(why, len, "%s: no run's line", path);
	free(line);
	fclose(f);
	return err ?: n ? (int)n : -ENODATA;
}

/* Welch's p value of the logarithms of the runs' times. */
static double log_p(const double *b, size_t nb, const double *h, size_t nh)
{
	double lb[SWEEP_RUNS_MAX], lh[SWEEP_RUNS_MAX];
	size_t i;

	if (nb > SWEEP_RUNS_MAX || nh > SWEEP_RUNS_MAX)
		return NAN;
	for (i = 0; i < nb; i++)
		lb[i] = log(b[i]);
	for (i = 0; i < nh; i++)
		lh[i] = log(h[i]);
	return stats_welch_p(lb, nb, lh, nh);
}

int sweep_optime_compare(const double *b, size_t nb, const double *h, size_t nh,
			 struct stats_result *r, double *p)
{
	struct stats_run rb[SWEEP_RUNS_MAX] = {}, rh[SWEEP_RUNS_MAX] = {};
	size_t i;

	if (nb > SWEEP_RUNS_MAX || nh > SWEEP_RUNS_MAX)
		return -E2BIG;
	for (i = 0; i < nb; i++)
		rb[i] = (struct stats_run){b[i], 1};
	for (i = 0; i < nh; i++)
		rh[i] = (struct stats_run){h[i], 1};
	stats_point(rb, nb, rh, nh, r);
	*p = log_p(b, nb, h, nh);
	return nb >= 2 && nh >= 2 ? stats_bootstrap(rb, nb, rh, nh, r) : 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/* The protection map of two workloads' recordings (diff_map.h): the costs, then the map. */
#include "diff/diff_map.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "data/datafile.h"
#include "data/runs.h"
#include "diff/metrics.h"
#include "features/features.h"
#include "features/protection_map.h"
#include "symbols/stacks.h"

/* Each feature's change of CPU time per run from the metrics diff computes, into cost. */
static void record_costs(const struct features *feat, const struct metric_set *set,
			 struct map_cost *cost, double *base)
{
	const struct metric *mt;
	size_t i;

	for (i = 0; i < set->n; i++)
		*base += set->v[i]->r.base_run;
	for (i = 0; i < features_count(feat); i++) {
		mt = metrics_find(set, features_name(feat, i));
		cost[i] = (struct map_cost){.lo = NAN, .hi = NAN, .placed = true};
		if (!mt)
			continue;
		cost[i].base = mt->r.base_run;
		cost[i].hard = mt->r.hard_run;
		cost[i].delta = mt->r.delta_run;
		cost[i].lo = mt->r.delta_lo;
		cost[i].hi = mt->r.delta_hi;
	}
}

static int load(const struct features *feat, struct datafile *const df[2],
		struct kernel_dwarf *const kd[2], struct map_cost *cost, double *base)
{
	struct metric_set set;
	size_t runs[2];
	double period[2];
	int side, err = 0;

	for (side = 0; side < 2 && !err; side++) {
		err = runs_prepare(df[side], &runs[side]);
		period[side] = datafile_sample_period_ns(df[side]);
	}
	if (err)
		return err;
	metrics_init(&set, NULL, NULL, runs, period);
	for (side = 0; side < 2 && !err; side++)
		err = stacks_name_frames(df[side], kd[side], NULL)
			      ?: metrics_load_features(&set, side, df[side], feat);
	err = err ?: metrics_finish(&set, df, INT_MAX);
	if (!err)
		record_costs(feat, &set, cost, base);
	metrics_free(&set);
	return err;
}

int diff_map(struct datafile *const df[2], struct kernel_dwarf *const kd[2],
	     const char *const path[2], const struct features *feat, bool svg, FILE *f)
{
	struct map_cost *cost = calloc(features_count(feat) + 1, sizeof(*cost));
	double base = 0;
	int err = cost ? load(feat, df, kd, cost, &base) : -ENOMEM;

	if (!err)
		protection_map(feat, cost, base, MAP_TIME, path, svg, f);
	free(cost);
	return err;
}

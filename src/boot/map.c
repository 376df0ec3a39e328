// SPDX-License-Identifier: GPL-2.0-only
/*
 * The protection map of two boot recordings (map.h).  A feature whose
 * functions ran in neither boot costs nothing there, and saying so on the
 * map would read as measured: it is left off unless the boot switches it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boot/map.h"
#include "boot/features.h"
#include "boot/load.h"
#include "data/features.h"
#include "diff/protection_map.h"
#include "diff/stats.h"

/* Feature i's instructions per boot on each side (v: per feature, per boot), and the change. */
static void cost_of(struct map_cost *c, const struct features *feat, size_t i,
		    const struct boot_rec *b, double *const v[2], bool *const ran[2])
{
	const double *x = v[0] + i * b[0].runs, *y = v[1] + i * b[1].runs;
	const char *type = features_class(feat, i, FEATURES_TYPE);

	*c = (struct map_cost){.base = boot_mean(x, b[0].runs),
			       .hard = boot_mean(y, b[1].runs),
			       .lo = NAN,
			       .hi = NAN};
	c->delta = c->hard - c->base;
	c->placed = ran[0][i] || ran[1][i] || (type && !strcmp(type, "boot"));
	if (b[0].runs > 1 && b[1].runs > 1)
		stats_welch(x, b[0].runs, y, b[1].runs, &c->lo, &c->hi);
}

int boot_map(const struct boot_rec *b, const struct features *feat, const char *const path[2],
	     bool svg, FILE *f)
{
	size_t nf = features_count(feat), i;
	struct map_cost *cost = calloc(nf + 1, sizeof(*cost));
	double *v[2] = {calloc(nf * b[0].runs + 1, sizeof(double)),
			calloc(nf * b[1].runs + 1, sizeof(double))};
	bool *ran[2] = {calloc(nf + 1, sizeof(bool)), calloc(nf + 1, sizeof(bool))};
	int side, err = cost && v[0] && v[1] && ran[0] && ran[1] ? 0 : -ENOMEM;

	if (!err && (!b[0].model || !b[1].model))
		err = -ENODATA;
	for (side = 0; side < 2 && !err; side++)
		boot_feature_insns(&b[side], feat, v[side], ran[side]);
	for (i = 0; !err && i < nf; i++)
		cost_of(&cost[i], feat, i, b, v, ran);
	if (!err)
		protection_map_boot(feat, cost, boot_insns(&b[0]), path, svg, f);
	for (side = 1; side >= 0; side--) {
		free(ran[side]);
		free(v[side]);
	}
	free(cost);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The protection map of two boot recordings (map.h).  A feature whose
 * functions ran in neither boot costs nothing there, and saying so on the
 * map would read as measured: it is left off unless the boot switches it.
 */
#include "boot/map.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_features.h"
#include "boot/load.h"
#include "diff/stats.h"
#include "features/features.h"
#include "features/protection_map.h"

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

/*
 * The one feature whose state, or what sets it, the two boots differ in
 * (page_alloc.shuffle=1 turns one on; init_on_free=1 leaves
 * init_on_alloc_free on but now by the command line): its functions miss
 * what it makes shared code do (init_on_free zeroes in clear_page_erms, as
 * every zeroing does), and the boots differ in nothing else the features
 * know, so the whole boot's change is its cost.  -1: none, or more than one.
 */
static long sole_switched(const struct boot_rec *b, const struct features *feat)
{
	size_t nf = features_count(feat), i;
	enum features_state *st[2] = {calloc(nf + 1, sizeof(*st[0])),
				      calloc(nf + 1, sizeof(*st[1]))};
	char *why[2] = {calloc(nf + 1, BOOT_WHY_LEN), calloc(nf + 1, BOOT_WHY_LEN)};
	long sole = -1, n = 0;

	if (st[0] && st[1] && why[0] && why[1] &&
	    !boot_feature_states(&b[0], feat, st[0], why[0]) &&
	    !boot_feature_states(&b[1], feat, st[1], why[1]))
		for (i = 0; i < nf; i++)
			if ((st[0][i] != st[1][i] ||
			     strcmp(why[0] + i * BOOT_WHY_LEN, why[1] + i * BOOT_WHY_LEN)) &&
			    n++ == 0)
				sole = i;
	free(why[1]);
	free(why[0]);
	free(st[1]);
	free(st[0]);
	return n == 1 ? sole : -1;
}

static void whole_boot(struct map_cost *c, const struct boot_rec *b)
{
	*c = (struct map_cost){.base = boot_mean(b[0].user_insns, b[0].runs),
			       .hard = boot_mean(b[1].user_insns, b[1].runs),
			       .lo = NAN,
			       .hi = NAN,
			       .placed = true,
			       .whole = true};
	c->delta = c->hard - c->base;
	if (b[0].runs > 1 && b[1].runs > 1)
		stats_welch(b[0].user_insns, b[0].runs, b[1].user_insns, b[1].runs, &c->lo, &c->hi);
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
	long sole;

	if (!err && (!b[0].model || !b[1].model))
		err = -ENODATA;
	for (side = 0; side < 2 && !err; side++)
		boot_feature_insns(&b[side], feat, v[side], ran[side]);
	for (i = 0; !err && i < nf; i++)
		cost_of(&cost[i], feat, i, b, v, ran);
	if (!err && (sole = sole_switched(b, feat)) >= 0)
		whole_boot(&cost[sole], b);
	if (!err)
		protection_map(feat, cost, boot_insns(&b[0]), MAP_INSNS, path, svg, f);
	for (side = 1; side >= 0; side--) {
		free(ran[side]);
		free(v[side]);
	}
	free(cost);
	return err;
}

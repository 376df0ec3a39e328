/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The protection map (kprotperf features --svg BASE HARDENED): the
 * features of share/features.conf on a grid of type (source, compiler,
 * config, boot) by position (code, data, layout), each cell coloured by the
 * change of its features' CPU time per run between the two recordings, as
 * a share of the base kernel's time; or its numbers as JSON.  Given two
 * boot recordings (kprotperf boot with the model), the features that ran
 * at boot or are switched at boot (type boot) are placed instead by the
 * change of the instructions their functions executed per boot, as a
 * share of the base boot's.
 */
#ifndef KP_PROTECTION_MAP_H
#define KP_PROTECTION_MAP_H

#include <stdbool.h>
#include <stdio.h>

struct features;

/* A feature's cost on each side, its change, and the change's 95% interval (NAN: none). */
struct map_cost {
	double base, hard, delta, lo, hi;
	bool placed; /* false: left off the map */
	bool whole;  /* the whole boot's change: the one protection the two boots switch */
};

/* What the costs are: CPU time per run (two workloads' recordings), instructions per boot. */
enum map_unit { MAP_TIME, MAP_INSNS };

/*
 * The map of cost[i], the cost of feature i of feat in unit (ns, or
 * instructions), base the base side's whole (the kernel's CPU time per run,
 * or the boot's instructions); path: the two recordings' names, as the
 * figure shows them.  diff/diff_map.h measures two workloads' recordings,
 * boot/map.h two boot recordings.
 */
void protection_map(const struct features *feat, const struct map_cost *cost, double base,
		    enum map_unit unit, const char *const path[2], bool svg, FILE *f);

/*
 * The maps' colour of x, a change as a share of the scale's end, clamped to
 * -1..1: white at 0, to #b2182b (red, a cost) at 1 and #2166ac (blue, a
 * saving) at -1; "#rrggbb" into buf.
 */
void protection_map_colour(double x, char buf[8]);
/* The scale's end for changes up to x%: 1, 2 or 5 times a power of ten, at least x and 0.1. */
double protection_map_scale(double x);

#endif

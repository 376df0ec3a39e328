/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * features FILE of a boot recording: every feature of the mapping with its
 * state in that boot (its recorded command line and config) beside what
 * its functions cost at boot (the machine model's instructions per boot,
 * and their share of the boot's); and those costs per boot, for the
 * protection map.
 */
#ifndef KP_BOOT_FEATURES_H
#define KP_BOOT_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

#include "features/features.h"

struct boot_rec;
struct features;

/*
 * Per feature i of feat and per boot r, the instructions its functions
 * executed into v[i * b->runs + r] (features_count(feat) * b->runs values,
 * zeroed here); *ran[i] whether any of them ran (ran may be NULL).
 */
void boot_feature_insns(const struct boot_rec *b, const struct features *feat, double *v,
			bool *ran);
/* The boot's instructions per boot: reset -> first user instruction, else the functions' sum. */
double boot_insns(const struct boot_rec *b);
/*
 * Each feature's state in the boot b and why (st: one per feature of feat;
 * why: BOOT_WHY_LEN bytes per feature): 0 or -errno.
 */
#define BOOT_WHY_LEN 512
int boot_feature_states(const struct boot_rec *b, const struct features *feat,
			enum features_state *st, char *why);
/* The list, text or JSON (json) to f. */
int boot_features(const struct boot_rec *b, const struct features *feat, FILE *f, bool json);

#endif

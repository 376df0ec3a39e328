/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What each hardening feature cost in one recording: report's roll-up (the
 * kernel samples of each feature of share/features.conf, compiler-inserted
 * sites first, then the innermost frame a feature names, and for the
 * compiler-inserted ones their sites in the code that ran and what --blocks
 * counted of them), and features FILE's list of every feature.
 */
#ifndef KP_FEATURE_COSTS_H
#define KP_FEATURE_COSTS_H

#include <stdio.h>

struct datafile;
struct features;
struct kernel_dwarf;
struct json;

/*
 * Once per df, after stacks_name_frames(); j NULL: text to f.  When record
 * could not read the kernel's text (no site known), the table is left out:
 * one line saying why in text, rows null in JSON.
 */
int feature_costs_rollup(struct datafile *df, const struct features *feat, FILE *f, struct json *j);

/*
 * Why no compiler-inserted site is known in df (record could not read the
 * kernel's text: protect.source "none: WHY"), else NULL: then a table of
 * the features' shares would count the samples on the sites as (unmapped).
 */
const char *feature_costs_sites_unknown(struct datafile *df);

/*
 * Every feature of feat (frames named with kd's inline frames; kd NULL:
 * none) with what it is (type, position, when), its state
 * on the recorded kernel (features.h's features_state, from the
 * recorded config, command line and sites) and its measured cost: its
 * share of the kernel samples and CPU time per run.
 */
int feature_costs_list(struct datafile *df, struct kernel_dwarf *kd, const struct features *feat,
		       FILE *f, struct json *j);

#endif

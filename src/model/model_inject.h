/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf inject --model: the machine model's raw table, counted while
 * `record --model` ran in the VM, merged into that recording.
 */
#ifndef KP_MODEL_INJECT_H
#define KP_MODEL_INJECT_H

#include <stddef.h>

/*
 * Add the counts of the table at table_path to the recording at data_path,
 * atomically (the recording is left as it was on any error).  why says what
 * is wrong ("" when the -errno says it all).
 */
int model_inject(const char *table_path, const char *data_path, char *why, size_t len);

#endif

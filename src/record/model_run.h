/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf record --model: CMD in the machine model's window, no probes (model_run.c). */
#ifndef KP_MODEL_RUN_H
#define KP_MODEL_RUN_H

struct record_opts;

/* Record as *o says, with --model: the exit status kprotperf record returns. */
int record_model_run(const struct record_opts *o);

#endif

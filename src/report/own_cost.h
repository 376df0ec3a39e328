/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf's own cost in a recording: the samples in its probes (the
 * "[kprotperf probe]" frame, symbols/stacks.h) and the kernel's run-time
 * statistics of its BPF programs (counters bpf_runs.PROG, bpf_run_ns.PROG).
 */
#ifndef KP_OWN_COST_H
#define KP_OWN_COST_H

#include <stdio.h>

struct datafile;
struct json;

/*
 * One header line (and the programs' lines) to f, or the object own_cost
 * to j when j is set; nothing for a recording with neither samples in the
 * probe nor BPF statistics.  Needs the frames table (stacks_name_frames).
 */
int own_cost_show(struct datafile *df, FILE *f, struct json *j);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/* Stack sampling: one perf event per online CPU running the BPF sampler. */
#ifndef KP_SAMPLER_H
#define KP_SAMPLER_H

#include <stdbool.h>
#include <linux/types.h>

#include "record/pmu_events.h"

struct bpf_link;
struct bpf_program;

struct sampler {
	struct bpf_link **links;
	int n;
	/*
	 * stats: the kernel's BPF run-time statistics (the run count and time
	 * of kprotperf's own programs) were turned on before the workload ran;
	 * they stay on while stats_fd is open (until sampler_detach).
	 */
	int stats_fd;
	bool stats;
};

/* What is sampled: ev (cpu-clock, or -e's), every period events, else at freq Hz. */
struct sampler_event {
	const struct pmu_event *ev;
	__u64 period;
	unsigned int freq;
};

/*
 * With stats, also turns the BPF run-time statistics on, before the workload
 * runs, where the kernel can (else s->stats stays false and the recording
 * has none).
 */
int sampler_attach(struct sampler *s, struct bpf_program *prog, const struct sampler_event *e,
		   bool stats);
/* Also turns the statistics off: what they counted stays readable. */
void sampler_detach(struct sampler *s);

#endif

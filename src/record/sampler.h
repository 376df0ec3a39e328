/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU-clock sampling: one perf event per online CPU running the BPF sampler. */
#ifndef KP_SAMPLER_H
#define KP_SAMPLER_H

#include <stdbool.h>

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

/*
 * With stats, also turns the BPF run-time statistics on, before the workload
 * runs, where the kernel can (else s->stats stays false and the recording
 * has none).
 */
int sampler_attach(struct sampler *s, struct bpf_program *prog, unsigned int freq, bool stats);
/* Also turns the statistics off: what they counted stays readable. */
void sampler_detach(struct sampler *s);

#endif

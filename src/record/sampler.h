/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU-clock sampling: one perf event per online CPU running the BPF sampler. */
#ifndef KP_SAMPLER_H
#define KP_SAMPLER_H

struct bpf_link;
struct bpf_program;

struct sampler {
	struct bpf_link **links;
	int n;
};

int sampler_attach(struct sampler *s, struct bpf_program *prog, unsigned int freq);
void sampler_detach(struct sampler *s);

#endif

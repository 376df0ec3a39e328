// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack sampling: one perf event per online CPU, each running the BPF
 * sampler: cpu-clock by default, or record -e's event, at -F's frequency
 * or every -c events.
 */
#include "record/sampler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "system/cpus.h"

static int open_sampling(const struct sampler_event *e, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	pmu_event_attr(e->ev, &attr);
	attr.read_format = 0;
	if (e->period) {
		attr.sample_period = e->period;
	} else {
		attr.freq = 1;
		attr.sample_freq = e->freq;
	}
	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sampler_attach(struct sampler *s, struct bpf_program *prog, const struct sampler_event *e,
		   bool stats)
{
	unsigned char mask[CPUS_MAX / 8];
	int ncpu = cpus_online(mask, CPUS_MAX), cpu, fd, err;

	if (ncpu < 0)
		return ncpu;
	/* kernels before 5.8 have no BPF_ENABLE_STATS: record without, and say so */
	s->stats_fd = stats ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
	s->stats = s->stats_fd >= 0;
	if (stats && !s->stats)
		fprintf(stderr,
			"kprotperf record: warning: --bpf-stats: the kernel refused to keep BPF run-time"
			" statistics (%s); recording without them\n",
			strerror(-s->stats_fd));
	s->n = 0;
	s->links = calloc(ncpu, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	for (cpu = 0; cpu < ncpu; cpu++) {
		if (!cpus_has(mask, cpu))
			continue;
		fd = open_sampling(e, cpu);
		if (fd < 0) {
			err = fd;
			goto err_detach;
		}
		s->links[s->n] = bpf_program__attach_perf_event(prog, fd);
		if (!s->links[s->n]) {
			err = -errno;
			close(fd);
			goto err_detach;
		}
		s->n++;
	}
	return 0;
err_detach:
	sampler_detach(s);
	return err;
}

void sampler_detach(struct sampler *s)
{
	int i;

	/* destroying a perf_event link closes its perf event fd too */
	for (i = 0; i < s->n; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->n = 0;
	if (s->stats && s->stats_fd >= 0)
		close(s->stats_fd);
	s->stats_fd = -1;
}

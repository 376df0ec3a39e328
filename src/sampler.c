// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "sampler.h"

#define MAX_CPUS 4096

/* Parses /sys/devices/system/cpu/online ("0-3,5,7-8"). */
int online_cpus(unsigned char *mask, int max)
{
	char buf[1024], *p = buf, *end;
	int top = 0, lo, hi;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/online", "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	memset(mask, 0, (max + 7) / 8);
	while (*p && *p != '\n') {
		lo = hi = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (; lo <= hi && lo < max; lo++)
			mask[lo / 8] |= 1 << (lo % 8);
		top = hi + 1 > top ? hi + 1 : top;
		p = *end == ',' ? end + 1 : end;
	}
	return top < max ? top : max;
}

static int open_clock(int cpu, unsigned int freq)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = freq,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int sampler_attach(struct sampler *s, struct bpf_program *prog, unsigned int freq)
{
	unsigned char mask[MAX_CPUS / 8];
	int ncpu = online_cpus(mask, MAX_CPUS), cpu, fd, err;

	if (ncpu < 0)
		return ncpu;
	s->n = 0;
	s->links = calloc(ncpu, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	for (cpu = 0; cpu < ncpu; cpu++) {
		if (!(mask[cpu / 8] & (1 << (cpu % 8))))
			continue;
		fd = open_clock(cpu, freq);
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
}

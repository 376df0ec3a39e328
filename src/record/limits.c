// SPDX-License-Identifier: GPL-2.0-only
/*
 * Limits that protect the machine: the kernel memory the BPF maps sized by
 * record's options would take, checked against what the machine has
 * available before a single map is created.  Preallocated maps take their
 * whole size at load time, from memory nothing can swap out.
 */
#include "record/limits.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "kprotperf.h"
#include "record.skel.h"

/* The kernel's own bookkeeping per hash element (approximate). */
#define HTAB_ELEM_BYTES 48

static unsigned long long pow2_at_least(unsigned long long n)
{
	unsigned long long p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static unsigned long long round8(unsigned long long n)
{
	return (n + 7) & ~7ULL;
}

/* What the kernel allocates for m as it is sized now (kernel/bpf/hashtab.c, ringbuf.c). */
static unsigned long long map_bytes(const struct bpf_map *m)
{
	unsigned long long n = bpf_map__max_entries(m), cpus = libbpf_num_possible_cpus();
	unsigned long long key = round8(bpf_map__key_size(m)), val = round8(bpf_map__value_size(m));

	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_RINGBUF:
		return n;
	case BPF_MAP_TYPE_PERCPU_HASH:
		return pow2_at_least(n) * 16 + n * (HTAB_ELEM_BYTES + key + 8 + val * cpus);
	case BPF_MAP_TYPE_ARRAY:
		return n * val;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return n * val * cpus;
	default:
		/* a hash: preallocated with one spare element per CPU, buckets of 16 bytes */
		return pow2_at_least(n) * 16 + (n + cpus) * (HTAB_ELEM_BYTES + key + val);
	}
}

/* MemAvailable of /proc/meminfo in bytes, or 0 when it cannot be read. */
static unsigned long long mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* An option sizing BPF maps, and what they take as sized. */
struct limit {
	const char *opt;
	unsigned int v;
	unsigned long long bytes;
};

static int too_big(const struct limit *l, unsigned long long avail, char *why, size_t len)
{
	snprintf(why, len,
		 "%s %u needs %.1f MiB of kernel memory for its BPF maps, more than half of the "
		 "%.1f MiB available (MemAvailable in /proc/meminfo): give a smaller %s",
		 l->opt, l->v, l->bytes / 1048576.0, avail / 1048576.0, l->opt);
	return -ENOMEM;
}

/* Each alone fits, all maps together do not: name the option with the largest share. */
static int too_big_together(const struct limit *l, size_t n, const struct limit *largest,
			    unsigned long long total, unsigned long long avail, char *why,
			    size_t len)
{
	size_t i, off = 0;

	for (i = 0; i < n && off < len; i++)
		off += snprintf(why + off, len - off, "%s%s %u",
				i ? (i + 1 < n ? ", " : " and ") : "", l[i].opt, l[i].v);
	if (off < len)
		snprintf(
			why + off, len - off,
			" need %.1f MiB of kernel memory for the BPF maps together, more than half "
			"of the %.1f MiB available (MemAvailable in /proc/meminfo): give a smaller %s",
			total / 1048576.0, avail / 1048576.0, largest->opt);
	return -ENOMEM;
}

int limits_check(const struct record_bpf *skel, unsigned int ring_mib, unsigned int max_stacks,
		 unsigned int max_tasks, char *why, size_t len)
{
	struct limit l[] = {
		{"--ring-size", ring_mib, map_bytes(skel->maps.events)},
		{"--max-stacks", max_stacks, map_bytes(skel->maps.stacks_sent)},
		{"--max-tasks", max_tasks,
		 map_bytes(skel->maps.tree) + map_bytes(skel->maps.systab)},
	};
	unsigned long long avail = mem_available(), total = 0;
	const struct limit *largest = &l[0];
	const struct bpf_map *m;
	size_t i;

	/* without /proc/meminfo there is nothing to compare with: the kernel still says no */
	if (!avail)
		return 0;
	bpf_object__for_each_map (m, skel->obj)
		total += map_bytes(m);
	if (total <= avail / 2)
		return 0;
	for (i = 1; i < sizeof(l) / sizeof(l[0]); i++)
		if (l[i].bytes > largest->bytes)
			largest = &l[i];
	if (largest->bytes > avail / 2)
		return too_big(largest, avail, why, len);
	return too_big_together(l, sizeof(l) / sizeof(l[0]), largest, total, avail, why, len);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a recording says about itself, as the data file holds it: the meta,
 * config, vulnerabilities, counters and tasks tables.
 */
#ifndef KP_META_H
#define KP_META_H

struct datafile;

/* The (key, value) lists meta_each reads. */
enum meta_list {
	META_ALL,	      /* meta, by key */
	META_CONFIG,	      /* config: (option, value), by option */
	META_VULNERABILITIES, /* vulnerabilities: (name, status), by name */
	META_COUNTERS,	      /* counters: (name, value), by name */
	/* config, by option: CONFIG_ left out of the option */
	META_CONFIG_SHORT,
	/* the vulnerabilities not fully mitigated (status "Vulnerable..."), spaces as '_' */
	META_NOT_MITIGATED,
	/* the others but those not affected (Mitigation..., Unknown...), spaces as '_' */
	META_MITIGATED,
	/* the vulnerabilities that do not affect the CPU, status "Not affected": (name, "") */
	META_NOT_AFFECTED,
	/* the counters of lost events that are not 0 */
	META_LOST,
	/*
	 * the kernel's BPF run-time statistics of kprotperf's programs:
	 * bpf_runs.PROG (runs) and bpf_run_ns.PROG (ns), by name
	 */
	META_BPF_STATS,
};

/* One (key, value) pair; num is value as a number (counters). */
struct meta_pair {
	const char *key, *value;
	long long num;
};

/* Non-zero stops the walk and is returned. */
typedef int (*meta_fn)(const struct meta_pair *p, void *ctx);
int meta_each(struct datafile *df, enum meta_list list, meta_fn fn, void *ctx);
/* Counter name's value, 0 when absent. */
long long meta_counter(struct datafile *df, const char *name);
/* All events lost, summed over the lost* counters. */
long long meta_lost(struct datafile *df);
/* The number of processes the recording saw. */
long long meta_processes(struct datafile *df);

#endif

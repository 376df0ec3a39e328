/* SPDX-License-Identifier: GPL-2.0-only */
/* From BPF maps to the data file, once a recording has stopped. */
#ifndef KP_COLLECT_H
#define KP_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_object;
struct datafile;
struct ksyms;
struct procs;
struct run_deltas;
struct stackstore;

/* Sum the per-CPU counters map into totals[KP_CNT_MAX]. */
int collect_counters(int fd, __u64 *totals);
int collect_write_counters(struct datafile *df, const __u64 *totals);
/*
 * The kernel's run-time statistics of kprotperf's loaded programs
 * (BPF_ENABLE_STATS was on), summed by program name over the objects
 * (record's, and --func's copies), written as the counters bpf_runs.PROG
 * and bpf_run_ns.PROG.
 */
struct collect_prog_stats {
	char name[64];
	__u64 runs, ns;
};

struct collect_stats {
	struct collect_prog_stats *v;
	size_t n, cap;
};

int collect_bpf_stats(struct bpf_object *obj, void *stats);
int collect_write_stats(struct datafile *df, struct collect_stats *stats);

/* A latency key's name, in buf if it must be made up. */
typedef const char *(*lat_name_fn)(__u32 id, void *ctx, char *buf, size_t len);

/* Every key of a per-CPU kp_lat array that saw a call, with both histograms. */
int collect_latency(struct datafile *df, int fd, const char *kind, __u32 nkeys, lat_name_fn name,
		    void *ctx);
/* The returns and time of every key of a per-CPU kp_lat array, summed. */
int collect_lat_total(int fd, __u32 nkeys, __u64 *done, __u64 *total_ns);
/* Every key and value of a BPF hash map, in two arrays the caller frees. */
int collect_dump(int fd, size_t ksz, size_t vsz, void **keys, void **vals, size_t *n);
/* Frames of these kernel stack ids (sorted and deduplicated in place) and their symbols. */
int collect_kstacks(struct datafile *df, const struct stackstore *st, __s32 *ids, size_t n,
		    const struct ksyms *ks);
/*
 * The samples and their stacks; with runs, what each run added as
 * run_samples rows, the last one's (run) from this same read; weighed (a
 * sampling event other than cpu-clock), the sample_weights rows.
 */
int collect_samples(struct datafile *df, const struct stackstore *st, struct procs *procs,
		    const struct ksyms *ks, struct run_deltas *runs, unsigned int run,
		    bool weighed);

/*
 * record --repeat: the BPF maps only ever grow over all runs, so what a run
 * added is the difference between the maps at its end and at the previous
 * run's end.  Call them once per run and kind, in run order; the samples
 * of the last run go to collect_samples instead.
 */
int collect_deltas_new(struct run_deltas **out);
void collect_deltas_free(struct run_deltas *r);
/*
 * run_latency rows: what each key of a per-CPU kp_lat array gained in this
 * run; with name (the last run), its collect_latency rows too, from this read.
 */
int collect_run_latency(struct run_deltas *r, struct datafile *df, unsigned int run,
			const char *kind, int fd, __u32 nkeys, lat_name_fn name, void *ctx);
/* Keep what each sample key gained in this run, for collect_samples. */
int collect_run_samples(struct run_deltas *r, const struct stackstore *st, unsigned int run);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows kprotperf record writes into a new data file (datafile_create), one
 * writer per table; the schema is in docs/datafile.md.  Integer
 * columns that may be NULL take a pointer: NULL stores NULL.
 */
#ifndef KP_RECORDING_H
#define KP_RECORDING_H

#include <stdbool.h>
#include <linux/types.h>

struct datafile;
struct kv_list;

/* The meta, config and vulnerabilities tables: one row per key of l. */
int recording_put_meta(struct datafile *df, const struct kv_list *l);
/* The same, replacing the values of keys already there (kprotperf inject). */
int recording_set_meta(struct datafile *df, const struct kv_list *l);
int recording_put_config(struct datafile *df, const struct kv_list *l);
int recording_put_vulns(struct datafile *df, const struct kv_list *l);

int recording_put_counter(struct datafile *df, const char *name, __u64 value);

/* One key's latency (syscall nr or function id), summed over the CPUs. */
struct recording_lat {
	__u64 calls, done, total_ns, oncpu_ns, max_ns;
};

/* A latency row; offcpu_ns is total_ns - oncpu_ns. */
int recording_put_latency(struct datafile *df, const char *kind, __u32 id, const char *name,
			  const struct recording_lat *l);
/* One latency_hist row: bucket [lo_ns, hi_ns) of clock "total" or "oncpu". */
int recording_put_hist_bucket(struct datafile *df, const char *kind, __u32 id, const char *clock,
			      __u32 bucket, __u64 lo_ns, __u64 hi_ns, __u64 count);

int recording_put_task(struct datafile *df, long long pid, long long ppid, const char *comm,
		       bool exited);
int recording_put_map(struct datafile *df, long long pid, __u64 start, __u64 end, __u64 pgoff,
		      const char *path, const char *build_id);

/* kstack NULL: the sample hit user mode; negative ids: the stack was lost. */
int recording_put_sample(struct datafile *df, __u32 pid, __u32 tid, const char *comm,
			 const __s32 *kstack, long long ustack, __u64 count);
/* A kernel frame and the kallsyms symbol it is in, both once whatever the calls. */
int recording_put_kstack_frame(struct datafile *df, __s32 stack, int depth, __u64 addr);
int recording_put_ksym(struct datafile *df, __u64 addr, const char *name, const char *module);
int recording_put_ustack_frame(struct datafile *df, long long stack, int depth, __u64 addr,
			       const char *module, const char *symbol, __u64 offset);

/* record --func: a probed function (or inline instance) as id, probed by method. */
int recording_put_func(struct datafile *df, long long id, const char *name, const char *symbol,
		       __u64 addr, const char *module, const char *method);
/* record --func: a pattern no function of the recorded kernel matches (record goes on). */
int recording_put_func_absent(struct datafile *df, const char *pattern);
int recording_put_func_syscall(struct datafile *df, long long func, long long nr, __u64 calls,
			       __u64 total_ns);
int recording_put_func_stack(struct datafile *df, long long func, long long kstack, __u64 calls,
			     __u64 total_ns);
/* Contexts cut to the same name add up in one row. */
int recording_put_func_context(struct datafile *df, long long func, const char *context,
			       __u64 calls, __u64 total_ns);

/* An inline instance record --func probed, as the inlines table has it. */
struct recording_inline {
	long long func;
	const char *name, *parent, *call_file;
	long long call_line;
	__u64 entry;
	const char *ranges, *exits;
	__u64 bytes;
};

int recording_put_inline(struct datafile *df, const struct recording_inline *in);

/* record --repeat: a run's row; exit_code NULL without a command (-p, -a). */
int recording_put_run(struct datafile *df, unsigned int run, __u64 wall_ns, const int *exit_code,
		      const char *end);
/* What one key of a latency kind gained in run; offcpu_ns is total_ns - oncpu_ns. */
int recording_put_run_latency(struct datafile *df, unsigned int run, const char *kind, __u32 id,
			      const struct recording_lat *l);
int recording_put_run_sample(struct datafile *df, unsigned int run, const __s32 *kstack,
			     long long ustack, __u64 count);

#endif

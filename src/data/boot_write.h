/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows kprotperf boot writes into a new data file (datafile_create),
 * one writer per table of data/boot_schema.h; the meta and config tables go
 * through data/recording.h, the cache geometries through data/model.h.
 */
#ifndef KP_BOOT_WRITE_H
#define KP_BOOT_WRITE_H

#include <stdbool.h>
#include <linux/types.h>

struct datafile;

/* A boot_runs row: a value whose has_ flag is false is stored as NULL. */
struct boot_run_row {
	bool has_clock_offset, has_initcalls_end, has_first_user, has_entry, has_first_user_insns;
	__u64 clock_offset_ns, initcalls_end_ns, first_user_ns, entry_insns, first_user_insns;
	__u64 initcalls;
};

int boot_put_run(struct datafile *df, unsigned int run, const struct boot_run_row *r);
int boot_put_initcall(struct datafile *df, unsigned int run, unsigned int seq, const char *name,
		      __u64 start_ns, __u64 ns, int ret);
int boot_put_func(struct datafile *df, unsigned int run, const char *name, const char *module,
		  __u64 insns);
/* v: the six counts of data/model.h's enum model_stat */
int boot_put_func_misses(struct datafile *df, unsigned int run, const char *name,
			 const char *module, unsigned int geom, const __u64 *v);

/* schema 12: a function's I-TLB and D-TLB misses in geometry geom */
int boot_put_func_tlb(struct datafile *df, unsigned int run, const char *name, const char *module,
		      unsigned int geom, __u64 itlb, __u64 dtlb);
/* schema 12: the executions of its PCs of kind (a model_kind_names word or "-"), and flushes */
int boot_put_func_event(struct datafile *df, unsigned int run, const char *name, const char *module,
			const char *kind, __u64 execs, __u64 flushes);

/* schema 12: the entries of a retpoline and of a return thunk its PCs begin */
int boot_put_func_thunks(struct datafile *df, unsigned int run, const char *name,
			 const char *module, __u64 retpolines, __u64 return_thunks);

/* schema 15: the timing model's cycles of its PCs, then their stack (1 + MODEL_CYCS) */
int boot_put_func_cycles(struct datafile *df, unsigned int run, const char *name,
			 const char *module, const __u64 *cyc);

#endif

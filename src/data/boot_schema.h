/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A recording of a kernel's boot (kprotperf boot), schema 10 (12: TLBs, events): per boot (a
 * run) its phases, every initcall initcall_debug printed, and with the
 * machine model the instructions (and simulated misses) per kernel function
 * from reset to the first user process.  Functions are stored by name per
 * run, not by PC: every boot has its own KASLR offset, and each run is
 * symbolized with its own kallsyms when the recording is made.
 *
 * Times: the kernel's clock (printk's, local_clock()) starts at 0 early in
 * setup_arch; clock_offset_ns is reset -> that start, on the guest's clock
 * (under icount, 1 ns per instruction), so reset -> X is clock_offset_ns +
 * X_ns.  Instructions: entry_insns is reset -> the first instruction at the
 * kernel's linked (virtual) address, first_user_insns reset -> the first
 * user-mode instruction; both need the model, else NULL.
 */
#ifndef KP_DATA_BOOT_H
#define KP_DATA_BOOT_H

/* "name" of the code run before the kernel's entry (firmware, boot loader, decompressor) */
#define BOOT_PRE_KERNEL "[before kernel entry]"

#define BOOT_TABLES                                                                                \
	"CREATE TABLE boot_runs(run INTEGER PRIMARY KEY, clock_offset_ns INTEGER,"                 \
	" initcalls_end_ns INTEGER, first_user_ns INTEGER, entry_insns INTEGER,"                   \
	" first_user_insns INTEGER, initcalls INTEGER NOT NULL);"                                  \
	"CREATE TABLE boot_initcalls(run INTEGER NOT NULL, seq INTEGER NOT NULL,"                  \
	" name TEXT NOT NULL, start_ns INTEGER NOT NULL, ns INTEGER NOT NULL,"                     \
	" ret INTEGER NOT NULL, PRIMARY KEY(run, seq));"                                           \
	"CREATE TABLE boot_funcs(run INTEGER NOT NULL, name TEXT NOT NULL,"                        \
	" module TEXT NOT NULL, insns INTEGER NOT NULL, PRIMARY KEY(run, name, module));"          \
	"CREATE TABLE boot_func_misses(run INTEGER NOT NULL, name TEXT NOT NULL,"                  \
	" module TEXT NOT NULL, geom INTEGER NOT NULL, i1_misses INTEGER NOT NULL,"                \
	" d1_reads INTEGER NOT NULL, d1_read_misses INTEGER NOT NULL, d1_writes INTEGER NOT NULL," \
	" d1_write_misses INTEGER NOT NULL, ll_misses INTEGER NOT NULL,"                           \
	" PRIMARY KEY(run, name, module, geom));"

/*
 * schema 12: with a model table of format 2 (the TLBs and the mitigations'
 * events), per run and function its I-TLB and D-TLB misses per geometry
 * (cache mode, geometries that simulated TLBs) and, per instruction kind
 * (model_kind_names, "-": none), the executions of its PCs of that kind and
 * how many of them flushed TLBs; and the entries of a retpoline or return
 * thunk its PCs begin (as data/model.c counts them, by the thunks' names).  A recording of format 2
 * says so in meta model.format; one without (older, or format 1) has no rows here.
 */
#define BOOT_MODEL_TABLES                                                                     \
	"CREATE TABLE boot_func_tlb(run INTEGER NOT NULL, name TEXT NOT NULL,"                \
	" module TEXT NOT NULL, geom INTEGER NOT NULL, itlb_misses INTEGER NOT NULL,"         \
	" dtlb_misses INTEGER NOT NULL, PRIMARY KEY(run, name, module, geom));"               \
	"CREATE TABLE boot_func_events(run INTEGER NOT NULL, name TEXT NOT NULL,"             \
	" module TEXT NOT NULL, kind TEXT NOT NULL, execs INTEGER NOT NULL,"                  \
	" flushes INTEGER NOT NULL, PRIMARY KEY(run, name, module, kind));"                   \
	"CREATE TABLE boot_func_thunks(run INTEGER NOT NULL, name TEXT NOT NULL,"             \
	" module TEXT NOT NULL, retpolines INTEGER NOT NULL, return_thunks INTEGER NOT NULL," \
	" PRIMARY KEY(run, name, module));"

/*
 * schema 15: with the timing model (a boot under --model timing), per run
 * and function the cycles the out-of-order core model charged its PCs and
 * their stack, as model_cycles holds them per PC (data/model.h).
 */
#define BOOT_TIMING_TABLES                                                            \
	"CREATE TABLE boot_func_cycles(run INTEGER NOT NULL, name TEXT NOT NULL,"     \
	" module TEXT NOT NULL, cycles INTEGER NOT NULL, base INTEGER NOT NULL,"      \
	" branch INTEGER NOT NULL, icache INTEGER NOT NULL, dcache INTEGER NOT NULL," \
	" tlb INTEGER NOT NULL, serialize INTEGER NOT NULL, PRIMARY KEY(run, name, module));"

#endif

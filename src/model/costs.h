/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cost tables est_cycles weighs the model's counts by: one small JSON
 * object per CPU (docs/model.md, "Estimated cycles"), every cost in extra
 * cycles over cpi, every cost with its source.  Shipped tables (share/
 * costs/NAME.json, built in; an installed kprotperf's PREFIX/share/
 * kprotperf/costs/NAME.json first) for the guest models the VM runs, and
 * this machine's, measured by kprotperf calibrate into
 * ${XDG_CACHE_HOME:-~/.cache}/kprotperf/costs/native.json.
 *
 * A table is untrusted input: a regular file of at most 64 KiB opened
 * through no symbolic link, strict JSON of the one flat format (numbers
 * and strings only, no duplicate key), every key known (a key starting
 * with '_' is a note, ignored; any other unknown key is refused: a typo
 * would leave a cost unset), every cost and its source present, numbers
 * finite and within bounds; the core's figures optional, but whole.  A
 * bad one is refused in one line naming the problem and the way out.
 */
#ifndef KP_MODEL_COSTS_H
#define KP_MODEL_COSTS_H

#include <stdbool.h>
#include <stddef.h>

enum model_cost_key {
	MC_I1_MISS,
	MC_D1_MISS,
	MC_LL_MISS,
	MC_ITLB_MISS,
	MC_DTLB_MISS,
	MC_CR3_WRITE,
	MC_TLB_FLUSH,
	MC_LFENCE,
	MC_MFENCE,
	MC_SFENCE,
	MC_CPUID,
	MC_WRMSR,
	MC_RDMSR,
	MC_VERW,
	MC_IRET,
	MC_SYSRET,
	MC_SWAPGS,
	MC_MOV_CR,
	MC_INVLPG,
	MC_INVPCID,
	MC_WBINVD,
	MC_LXDT,
	MC_CALL_IND,
	MC_JMP_IND,
	MC_RET,
	MC_RETPOLINE,
	MC_RETURN_THUNK,
	MC_KEYS
};

/*
 * The core's figures an out-of-order timing model needs, measured by
 * kprotperf calibrate (docs/model.md, "The core's figures"): a table's
 * optional "core" object, with "core_sources", all of them or none, so that
 * a table written before them still reads.  load_to_use: cycles from a
 * load's issue to its value, data in L1, L2, LL or DRAM; tlb: the extra
 * cycles of a load whose D-TLB miss hits the second-level TLB
 * (stlb_hit), misses it and walks page tables in cache (walk_cached), or
 * misses it going to DRAM (dram), each over the load-to-use of its data's
 * level; mispredict: a mispredicted branch's penalty; stream: a
 * sequential read's bandwidth, prefetchers on; rep_stosb, rep_movsb: a
 * 4 KiB fast string's cycles per 64-byte line, its lines in L1, L2 or DRAM;
 * ll_capacity: the largest working set a random chase still finds in the
 * last level (this tenant's share of it), KiB; rename_registers: the
 * results of general-register writes a core holds in flight behind a miss
 * (core.prf of a core description); fetch_block_crossing: a small loop's
 * time across two 64-byte blocks over its time within one (2 where a core
 * fetches one block a cycle: core.fetch_block); l2_stream_cycles_per_line:
 * a sequential read's cycles a line through half of L2, the rate L1 takes
 * lines from L2 (core latency.l1_fill); ll_random_cycles_per_line:
 * independent loads' cycles a line from beyond L2, at random, as many in
 * flight as L1's miss buffers (what the last level's latency grows to with
 * them: core latency.ll_queue); scheduler:
 * the operations a core holds waiting for their operands, from the same
 * loads' rate with six operations waiting for each (core.sched);
 * stream_4k_cycles_per_line: a sum of each line's eight longs through
 * 4 KiB pages (over stream_cycles_per_line's read in 2 MiB ones: what
 * leaving a page costs a stream, core latency.page_cross); ll_lost: of a
 * million last-level hits, those this tenant finds gone to DRAM (core
 * latency.ll_lost).
 * ll_capacity and all after it are optional (a table written before them
 * reads with 0: unknown, written and shown only when known).
 */
enum model_core_key {
	MK_LTU_L1,
	MK_LTU_L2,
	MK_LTU_LL,
	MK_LTU_DRAM,
	MK_STLB_HIT,
	MK_WALK_CACHED,
	MK_WALK_DRAM,
	MK_MISPREDICT,
	MK_STREAM_BPC,
	MK_STREAM_CPL,
	MK_STOSB_L1,
	MK_STOSB_L2,
	MK_STOSB_DRAM,
	MK_MOVSB_L1,
	MK_MOVSB_L2,
	MK_MOVSB_DRAM,
	MK_LL_CAPACITY, /* from here on optional, each a member of its own */
	MK_RENAME,
	MK_FETCH_CROSSING,
	MK_L2_STREAM,
	MK_LL_RANDOM,
	MK_SCHEDULER,
	MK_STREAM_4K,
	MK_LL_LOST,
	MK_KEYS
};
#define MK_OPTIONAL MK_LL_CAPACITY

/* The members of "core" (one number, or an object of numbers), each a source in "core_sources". */
enum model_core_group {
	MG_LTU,
	MG_TLB,
	MG_MISPREDICT,
	MG_STREAM_BPC,
	MG_STREAM_CPL,
	MG_STOSB,
	MG_MOVSB,
	MG_LL_CAPACITY, /* from here on optional, in MK_OPTIONAL's order */
	MG_RENAME,
	MG_FETCH_CROSSING,
	MG_L2_STREAM,
	MG_LL_RANDOM,
	MG_SCHEDULER,
	MG_STREAM_4K,
	MG_LL_LOST,
	MG_KEYS
};
#define MG_OPTIONAL MG_LL_CAPACITY

/* A member's name, its figures' unit, the least a figure may be (a latency or a rate is > 0). */
struct model_core_group_info {
	const char *name, *unit;
	double lo;
};

/* A figure: its member, its name in the member's object (NULL: the member is the number). */
struct model_core_field {
	enum model_core_group group;
	const char *name;
};

extern const struct model_core_group_info model_core_groups[MG_KEYS];
extern const struct model_core_field model_core_fields[MK_KEYS];
/* Figure k's name as "member.name" (or "member") into buf. */
const char *model_core_name(int k, char *buf, size_t len);

struct model_costs {
	char name[128], path[256], vendor[16], model_name[64];
	int family, model;
	double ghz, cpi, c[MC_KEYS];
	int has_core;
	double core[MK_KEYS];
};

extern const char *const model_cost_names[MC_KEYS];

/* kind word of the raw table → its cost key, or -1 (no cost of its own) */
int model_cost_of_kind(const char *kind);
/* a file (regular, ≤ 64 KiB, no link followed): 0 or -errno with one line printed naming the
 * problem */
int model_costs_load(const char *path, struct model_costs *c);
/*
 * --costs GIVEN (a path, or "native": this machine's calibrated table, refused when it is of
 * another CPU), else the shipped table for the guest's cpu.model string (Skylake, Cascadelake,
 * EPYC-Rome), else this machine's calibrated table, else -ENOENT with one line saying how to get
 * one
 */
int model_costs_pick(const char *given, const char *guest_cpu_model, struct model_costs *c);
/*
 * est_cycles' table, into *costs (NULL: none): for a recording of the
 * timing model (timing) none, its est_cycles being the model's cycles, and
 * a table given said in a line not to be used; else model_costs_pick()'s,
 * into c.  0, or its -errno (its line printed) when the table given cannot
 * be had.
 */
int model_costs_est(bool timing, const char *given, const char *guest_cpu_model,
		    struct model_costs *c, const struct model_costs **costs);

/* Beyond the shared API: what kprotperf calibrate needs. */

/* A cost's source as a table gives it, at most this long with its NUL. */
#define MODEL_COST_SOURCE_MAX 512
/* Whole tables are at most this long. */
#define MODEL_COSTS_MAX (64 << 10)

struct model_cost_sources {
	char s[MC_KEYS][MODEL_COST_SOURCE_MAX];
	char core[MG_KEYS][MODEL_COST_SOURCE_MAX];
};

/* model_costs_load and model_costs_pick that also give each cost's source (src NULL: not). */
int model_costs_load_sources(const char *path, struct model_costs *c,
			     struct model_cost_sources *src);
int model_costs_pick_sources(const char *given, const char *guest_cpu_model, struct model_costs *c,
			     struct model_cost_sources *src);
/* The table open at fd (named path; fd closed) read: as model_costs_load. */
int model_costs_load_fd(int fd, const char *path, struct model_costs *c,
			struct model_cost_sources *src);
/*
 * A table's text (n bytes, from origin, as errors name it) read: 0, or
 * -EINVAL with why set to the problem and the way out (no "kprotperf:");
 * -EFBIG over MODEL_COSTS_MAX bytes, -ENOMEM.
 */
int model_costs_parse(const char *text, size_t n, const char *origin, struct model_costs *c,
		      struct model_cost_sources *src, char *why, size_t len);
/* This machine's CPU (vendor, family, model, model_name from CPUID) into c. */
void model_costs_this_cpu(struct model_costs *c);
/* Where calibrate writes this machine's table: its folder and name into buf; NULL without $HOME. */
const char *model_costs_native_dir(char *buf, size_t len);
#define MODEL_COSTS_NATIVE "native.json"
/* Whether c's CPU is this machine's (vendor, family, model and model_name equal). */
int model_costs_same_cpu(const struct model_costs *c, const struct model_costs *here);

#endif

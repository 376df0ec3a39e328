/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's tables (record --model, kprotperf inject --model):
 * per guest PC the instructions executed and, per simulated cache geometry,
 * the misses charged to it; the geometries; the workload's user function
 * symbols at their run-time addresses.  Kernel PCs are those at or above
 * MODEL_KERNEL_START (they read as negative integers in SQL).
 */
#ifndef KP_DATA_MODEL_H
#define KP_DATA_MODEL_H

#include <stdbool.h>
#include <linux/types.h>

struct datafile;

#define MODEL_KERNEL_START 0xffff800000000000ULL
/* geometries one recording may hold (the plugin's sweep) */
#define MODEL_GEOMS_MAX 16

#define MODEL_TABLES                                                                               \
	"CREATE TABLE model_pcs(pc INTEGER PRIMARY KEY, insns INTEGER NOT NULL);"                  \
	"CREATE TABLE model_misses(pc INTEGER NOT NULL, geom INTEGER NOT NULL,"                    \
	" i1_misses INTEGER NOT NULL, d1_reads INTEGER NOT NULL, d1_read_misses INTEGER NOT NULL," \
	" d1_writes INTEGER NOT NULL, d1_write_misses INTEGER NOT NULL,"                           \
	" ll_misses INTEGER NOT NULL, PRIMARY KEY(pc, geom));"                                     \
	"CREATE TABLE model_geoms(geom INTEGER PRIMARY KEY, i1_size INTEGER,"                      \
	" i1_assoc INTEGER, i1_line INTEGER, d1_size INTEGER, d1_assoc INTEGER,"                   \
	" d1_line INTEGER, ll_size INTEGER, ll_assoc INTEGER, ll_line INTEGER);"                   \
	"CREATE TABLE usyms(addr INTEGER PRIMARY KEY, size INTEGER NOT NULL,"                      \
	" name TEXT NOT NULL, module TEXT NOT NULL);"

/* schema 11: the model's TLBs and the events of each PC (raw table format 2) */
#define MODEL_TLB_TABLES                                                                       \
	"CREATE TABLE model_tlb(pc INTEGER NOT NULL, geom INTEGER NOT NULL,"                   \
	" itlb_misses INTEGER NOT NULL, dtlb_misses INTEGER NOT NULL, PRIMARY KEY(pc, geom));" \
	"CREATE TABLE model_events(pc INTEGER PRIMARY KEY, kind TEXT NOT NULL,"                \
	" flushes INTEGER NOT NULL);"                                                          \
	"CREATE TABLE model_tlbs(geom INTEGER PRIMARY KEY, itlb_entries INTEGER,"              \
	" itlb_assoc INTEGER, dtlb_entries INTEGER, dtlb_assoc INTEGER);"

/*
 * schema 14: the timing model's cycles of each PC (mode timing), and their
 * stack: what the out-of-order core model charged them to
 */
#define MODEL_TIMING_TABLES                                                          \
	"CREATE TABLE model_cycles(pc INTEGER PRIMARY KEY, cycles INTEGER NOT NULL," \
	" base INTEGER NOT NULL, branch INTEGER NOT NULL, icache INTEGER NOT NULL,"  \
	" dcache INTEGER NOT NULL, tlb INTEGER NOT NULL, serialize INTEGER NOT NULL);"

/*
 * schema 16: the bytes a kernel instruction ran when they were not the
 * image's (alternatives, static calls, jump labels rewritten at boot), as
 * hex: the data view decodes them instead of the file's
 */
#define MODEL_RUNNING_TABLES \
	"CREATE TABLE model_running(pc INTEGER PRIMARY KEY, code TEXT NOT NULL);"
/* an x86 instruction's bytes, at most */
#define MODEL_RUNNING_BYTES 15
/* the running instructions a table may list (the plugin's KP_PATCHED_MAX) */
#define MODEL_RUNNING_MAX (1U << 18)

/*
 * schema 17: the string helpers' accesses per kernel call site (the raw
 * table's '# callsite' lines): pc a rep string instruction's, site the call
 * that reached its function (0: not known)
 */
#define MODEL_SITES_TABLES                                                     \
	"CREATE TABLE model_sites(pc INTEGER NOT NULL, site INTEGER NOT NULL," \
	" reads INTEGER NOT NULL, writes INTEGER NOT NULL, PRIMARY KEY(pc, site));"

/*
 * schema 18: of model_sites' accesses, those of a call site made by a slab
 * allocator (memset zeroing the object it returns), by the call into that
 * allocator (alloc), which passed the cache
 */
#define MODEL_ALLOC_SITES_TABLES                                                     \
	"CREATE TABLE model_alloc_sites(pc INTEGER NOT NULL, site INTEGER NOT NULL," \
	" alloc INTEGER NOT NULL, reads INTEGER NOT NULL, writes INTEGER NOT NULL,"  \
	" PRIMARY KEY(pc, site, alloc));"

/*
 * The kind of an instruction, as the raw table's EV column names it (format
 * 2): its executions are its PC's.  X(kind, serializing)
 */
#define MODEL_KIND_LIST \
	X(lfence, 1)    \
	X(mfence, 1)    \
	X(sfence, 0)    \
	X(cpuid, 1)     \
	X(wrmsr, 1)     \
	X(rdmsr, 0)     \
	X(verw, 1)      \
	X(iret, 1)      \
	X(sysret, 1)    \
	X(sysexit, 1)   \
	X(swapgs, 0)    \
	X(mov_cr3, 1)   \
	X(mov_cr, 1)    \
	X(mov_dr, 1)    \
	X(invlpg, 1)    \
	X(invpcid, 1)   \
	X(wbinvd, 1)    \
	X(lxdt, 1)      \
	X(serialize, 1) \
	X(call_ind, 0)  \
	X(jmp_ind, 0)   \
	X(ret, 0)       \
	X(syscall, 0)

#define X(k, s) MK_##k,
enum model_kind { MODEL_KIND_LIST MODEL_KINDS };
#undef X

/* The kinds' names as the raw table spells them; a NULL after the last. */
extern const char *const model_kind_names[MODEL_KINDS + 1];
/* Whether executing kind k serializes the pipeline (spec of issue 45, §4). */
bool model_kind_serializing(enum model_kind k);
/* The kind named s; -1: none ("-" or unknown). */
int model_kind_of(const char *s);

/* The timing model's cycle stack, as Sniper's CPI stacks split a core's cycles. */
enum model_cyc {
	MODEL_CYC_BASE,
	MODEL_CYC_BRANCH,
	MODEL_CYC_ICACHE,
	MODEL_CYC_DCACHE,
	MODEL_CYC_TLB,
	MODEL_CYC_SERIALIZE,
	MODEL_CYCS
};

/* The stack's names, as the database's columns and JSON's "stack" keys. */
extern const char *const model_cyc_names[MODEL_CYCS];

/*
 * What a PC adds beyond its caches' misses (format 2), in one geometry: its
 * TLB misses, its TLB flushes, the entries of a retpoline or return thunk
 * it begins, and the executions of its kind; with mode timing (schema 14)
 * its cycles and their stack.
 */
enum model_xstat {
	MODEL_ITLB_MISSES,
	MODEL_DTLB_MISSES,
	MODEL_TLB_FLUSHES,
	MODEL_RETPOLINES,
	MODEL_RETURN_THUNKS,
	MODEL_XKINDS, /* MODEL_XKINDS + k: the executions of kind k */
	/* mode timing: the cycles, then their stack (MODEL_CYCLES + 1 + enum model_cyc) */
	MODEL_CYCLES = MODEL_XKINDS + MODEL_KINDS,
	MODEL_XSTATS = MODEL_CYCLES + 1 + MODEL_CYCS
};

/* The misses of one PC in one geometry, in the raw table's column order. */
enum model_stat {
	MODEL_I1_MISSES,
	MODEL_D1_READS,
	MODEL_D1_READ_MISSES,
	MODEL_D1_WRITES,
	MODEL_D1_WRITE_MISSES,
	MODEL_LL_MISSES,
	MODEL_STATS
};

/* The names of enum model_stat's values, as columns and JSON keys. */
extern const char *const model_stat_names[MODEL_STATS];

/* A cache geometry: I1, D1 and LL, each size, ways and line in bytes. */
struct model_geom {
	__u32 cache[3][3];
	__u32 tlb[2][2]; /* I-TLB and D-TLB: entries and ways; 0 without TLBs */
};

/* Writers (inject). */
int model_put_pc(struct datafile *df, __u64 pc, __u64 insns);
int model_put_misses(struct datafile *df, __u64 pc, unsigned int geom, const __u64 *v);
int model_put_geom(struct datafile *df, unsigned int geom, const struct model_geom *g);
int model_put_tlb(struct datafile *df, __u64 pc, unsigned int geom, __u64 itlb, __u64 dtlb);
/* kind: a model_kind_names word or "-" */
int model_put_event(struct datafile *df, __u64 pc, const char *kind, __u64 flushes);
/* the len (1 to MODEL_RUNNING_BYTES) bytes b the kernel instruction at pc ran */
int model_put_running(struct datafile *df, __u64 pc, const __u8 *b, unsigned int len);
int model_put_tlbs(struct datafile *df, unsigned int geom, const struct model_geom *g);
/* cyc: the cycles, then the MODEL_CYCS of their stack */
int model_put_cycles(struct datafile *df, __u64 pc, const __u64 *cyc);
/*
 * the reads and writes of the rep string instruction at pc for the call at
 * site (0: none known), added to those of (pc, site) put before; alloc (0:
 * none) the slab allocator's call that made site's: model_alloc_sites too
 */
int model_put_site(struct datafile *df, __u64 pc, __u64 site, __u64 alloc, __u64 reads,
		   __u64 writes);
int model_put_usym(struct datafile *df, __u64 addr, __u64 size, const char *name,
		   const char *module);
/* Keep only the kernel and user symbols that hold a counted PC (and _stext, _text). */
int model_prune_symbols(struct datafile *df);

/* Readers. */
int model_geoms(struct datafile *df, struct model_geom *g, unsigned int max, unsigned int *n);

/* One function's (or line's) totals: insns and the stats of one geometry. */
struct model_row {
	const char *name;
	const char *module; /* "[kernel]", a kernel module's name or the binary's path */
	__u64 addr;  /* the symbol's start (a PC no symbol holds); the PC for model_each_pc */
	__u64 start; /* model_each_pc: the start of the symbol holding the PC (the PC, none) */
	__u64 insns;
	__u64 v[MODEL_STATS];
	__u64 x[MODEL_XSTATS];
};
typedef int (*model_row_fn)(const struct model_row *r, void *ctx);

/* Per function (kernel: ksyms, user: usyms; "[unknown]" else) in geometry geom, by insns. */
int model_functions(struct datafile *df, unsigned int geom, model_row_fn fn, void *ctx);
/* Each counted PC with its function's name, by PC. */
int model_each_pc(struct datafile *df, unsigned int geom, model_row_fn fn, void *ctx);
/*
 * fn on each kernel instruction that ran other bytes than the image's
 * (model_running): its runtime pc and its len bytes b (1 to
 * MODEL_RUNNING_BYTES; a row of other code is skipped: the file is checked)
 */
typedef int (*model_running_row_fn)(__u64 pc, const __u8 *b, unsigned int len, void *ctx);
int model_running_each(struct datafile *df, model_running_row_fn fn, void *ctx);
/* fn on each (pc, site) of model_sites, by pc then site as SQL orders them (none before schema 17)
 */
typedef int (*model_site_row_fn)(__u64 pc, __u64 site, __u64 reads, __u64 writes, void *ctx);
int model_sites_each(struct datafile *df, model_site_row_fn fn, void *ctx);
/* fn on each row of model_alloc_sites, by pc, site, alloc (none before schema 18) */
typedef int (*model_alloc_site_row_fn)(__u64 pc, __u64 site, __u64 alloc, __u64 reads, __u64 writes,
				       void *ctx);
int model_alloc_sites_each(struct datafile *df, model_alloc_site_row_fn fn, void *ctx);
/* A mapping of CMD's files, to turn a user PC into a file offset. */
struct model_map {
	__u64 start, end, pgoff;
	const char *path, *build_id;
};
typedef int (*model_map_fn)(const struct model_map *m, void *ctx);
/* Each distinct mapping of a file (any process's), by path and start. */
int model_maps(struct datafile *df, model_map_fn fn, void *ctx);
/* Whether the recording holds the model's counts. */
bool model_present(struct datafile *df);
/* Whether geometry geom of the recording simulated TLBs. */
bool model_has_tlb(struct datafile *df, unsigned int geom);

#endif

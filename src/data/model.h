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
};

/* Writers (inject). */
int model_put_pc(struct datafile *df, __u64 pc, __u64 insns);
int model_put_misses(struct datafile *df, __u64 pc, unsigned int geom, const __u64 *v);
int model_put_geom(struct datafile *df, unsigned int geom, const struct model_geom *g);
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
	__u64 addr; /* the symbol's start (a PC no symbol holds); the PC for model_each_pc */
	__u64 insns;
	__u64 v[MODEL_STATS];
};
typedef int (*model_row_fn)(const struct model_row *r, void *ctx);

/* Per function (kernel: ksyms, user: usyms; "[unknown]" else) in geometry geom, by insns. */
int model_functions(struct datafile *df, unsigned int geom, model_row_fn fn, void *ctx);
/* Each counted PC with its function's name, by PC. */
int model_each_pc(struct datafile *df, unsigned int geom, model_row_fn fn, void *ctx);
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

#endif

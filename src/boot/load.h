/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A boot recording (kprotperf boot) loaded for its views (report, folded,
 * diff, features, the protection map): its header, per boot its phases and
 * instruction counts, and each initcall and kernel function with its value
 * in every boot, so that the views can take means and intervals over boots.
 */
#ifndef KP_BOOT_LOAD_H
#define KP_BOOT_LOAD_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <linux/types.h>

#include "data/model.h"
#include "model/rows.h"

struct datafile;

/*
 * Times from reset: the kernel's entry (the model's instructions, 1 ns each
 * under icount; unknown without the model), the end of the initcalls, the
 * first user process (the kernel's clock, placed on reset's by the boot's
 * clock offset).  No phase ends at the kernel clock's start: printk's clock
 * is re-based while it settles ("sched_clock: Marking stable"), so its
 * offset against reset holds from there on, not at its zero.
 */
enum boot_phase { BOOT_KERNEL_ENTRY, BOOT_INITCALLS_END, BOOT_FIRST_USER, BOOT_PHASES };
/* Their names in JSON (diff's interface): kernel_entry, initcalls_end, first_user. */
extern const char *const boot_phase_names[BOOT_PHASES];
/* What each measures, for text: "reset -> kernel entry", ... */
extern const char *const boot_phase_about[BOOT_PHASES];

/* An initcall (module "") or a function: its value in each boot, 0 in those without it. */
struct boot_series {
	char *name, *module;
	double *v;		    /* per run: ns (initcalls), instructions (functions) */
	double mean;		    /* over all runs */
	size_t nruns;		    /* the runs it was seen in */
	__u64 (*miss)[MODEL_STATS]; /* functions with cache: per geometry, summed over runs */
};

struct boot_rec {
	const char *path;
	struct datafile *df;
	size_t runs;
	const char *release, *build_id, *cmdline, *append, *mode; /* NULL: not said */
	double *phase[BOOT_PHASES];	  /* per run, ns from reset; NAN: unknown */
	double *clock_offset;		  /* per run, reset -> printk's time 0 (boot.h); NAN */
	double *first_initcall;		  /* per run, the first initcall's start from reset; NAN */
	double *entry_insns, *user_insns; /* per run, reset -> kernel entry, -> first user; NAN */
	/* sorted by name (and module): boot_find() */
	struct boot_series *calls, *funcs;
	size_t ncalls, nfuncs;
	bool model, cache; /* per-function counts; misses too */
	bool events, tlb;  /* a model table of format 2: its events; its TLBs (cache) */
	/* --model timing: est_cycles is the timing model's cycles, of core core */
	bool timing;
	const char *core;
	unsigned int ngeom;
	struct model_geom geoms[MODEL_GEOMS_MAX];
};

/*
 * Load the boot recording df, opened from path: -ENODATA when it is not one
 * (no meta boot.runs), -EBADMSG for a bad value (said as data/'s readers
 * say it), -ENOMEM.
 */
int boot_load(struct datafile *df, const char *path, struct boot_rec *b);
void boot_free(struct boot_rec *b);
/* The series of that name and module in s[0..n); NULL: none. */
const struct boot_series *boot_find(const struct boot_series *s, size_t n, const char *name,
				    const char *module);
/* The mean of the values of v[0..n) that are known (not NAN); NAN when none. */
double boot_mean(const double *v, size_t n);
/* The known values of v[0..n) packed to the front of out; how many. */
size_t boot_known(const double *v, size_t n, double *out);
/* Pointers to s[0..n) sorted by mean, largest first, then by name (caller frees); NULL: no memory.
 */
const struct boot_series **boot_by_mean(const struct boot_series *s, size_t n);
/* The sum over runs of f's misses that folded --model i1|d1|ll and diff weigh: I1 + D1 + LL. */
__u64 boot_misses(const __u64 *v);

/*
 * Per boot, each function's model counts in one geometry and the kernel's
 * (every function but the code before the kernel's entry, module
 * "[boot]"): f[i * runs + r] for b->funcs[i] in run r, f[nfuncs * runs +
 * r] the kernel's.  Names point into b.
 */
struct boot_model {
	size_t nfuncs, runs;
	struct model_func *f;
};
/* b's counts in geometry geom (no geometry of b: instructions and events alone); -ENOMEM. */
int boot_model_load(const struct boot_rec *b, unsigned int geom, struct boot_model *m);
void boot_model_free(struct boot_model *m);
/* The model's fields of a table of format 2 the views show per boot, as columns and JSON keys. */
enum boot_xfield { BX_ITLB, BX_DTLB, BX_CR3, BX_FLUSHES, BX_SERIALIZING, BX_EST, BOOT_XFIELDS };
extern const char *const boot_xfield_names[BOOT_XFIELDS];
/* Field k of f of b; est_cycles the timing model's cycles, else weighed by costs. */
double boot_xvalue(const struct boot_rec *b, const struct model_func *f,
		   const struct model_costs *costs, enum boot_xfield k);
/*
 * Whether b counted field k: its events (TLBs for the TLB misses, in a
 * geometry of its own: tlb_geom) and, for est_cycles, the timing model's
 * cycles or a cost table.
 */
bool boot_xknown(const struct boot_rec *b, enum boot_xfield k, bool tlb_geom, bool costs);

/*
 * est_cycles' table for b into *costs: the one given (--costs), else the
 * one model_costs_pick() finds for cpu (NULL: none).  A boot under the
 * timing model takes none: its est_cycles are the model's cycles, and a
 * table given is said, in one line, not to be used.  -errno with why when
 * the table given cannot be had.
 */
int boot_costs(const struct boot_rec *b, const char *given, const char *cpu,
	       struct model_costs *buf, const struct model_costs **costs, char *why, size_t len);
/* The "# est_cycles ..." line: the timing model that made them, or the table, or none. */
void boot_est_head(FILE *f, const struct boot_rec *b, const struct model_costs *costs);
/* What est_cycles is, after its name in a table: " (estimate)" or " (timing model)". */
const char *boot_est_label(const struct boot_rec *b);
/*
 * 0, or -EINVAL with why when both boots have the model and one's
 * est_cycles are the timing model's cycles and the other's counts x costs,
 * or the two are of two core models: their difference would be of the two
 * methods, or the two cores, not of the two kernels.
 */
int boot_same_kind(const struct boot_rec b[2], char *why, size_t len);

/* Function i's counts in run r (i == m->nfuncs: the kernel's). */
static inline const struct model_func *boot_model_at(const struct boot_model *m, size_t i, size_t r)
{
	return &m->f[i * m->runs + r];
}

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's counts of one recording as its views read them: the
 * recording's model meta checked, its geometries, and its functions (kernel
 * and user) in one geometry, sorted by instructions.
 */
#ifndef KP_MODEL_ROWS_H
#define KP_MODEL_ROWS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "data/model.h"
#include "model/costs.h"

struct datafile;

struct model_func {
	char *name, *module; /* an inline instance's module: the function it is inlined in */
	__u64 insns;
	__u64 v[MODEL_STATS];
	__u64 x[MODEL_XSTATS];
};

/* What the views derive from a row's counts (format 2), as columns and JSON keys. */
enum model_field {
	MF_ITLB_MISSES,
	MF_DTLB_MISSES,
	MF_CR3_WRITES,
	MF_TLB_FLUSHES,
	MF_SERIALIZING,
	MF_INDIRECT_BRANCHES,
	MF_RETURNS,
	MF_RETPOLINES,
	MF_RETURN_THUNKS,
	MODEL_FIELDS
};
extern const char *const model_field_names[MODEL_FIELDS];

/* a += b, saturated: the counts are read from a file and may be anything. */
void model_func_add(struct model_func *a, const struct model_func *b);

struct model_counts {
	const char *mode, *window, *qemu;
	bool cache; /* misses were simulated */
	unsigned int ngeom, geom;
	struct model_geom geoms[MODEL_GEOMS_MAX];
	struct model_func *funcs;
	size_t nfuncs, cap;
	/* kernel functions inlined, by name and the function they are inlined in, inclusive */
	struct model_func *inlines;
	size_t ninlines;
	bool have_inlines;		 /* the kernel's DWARF was there to find them */
	struct model_func total, kernel; /* all PCs, the kernel's */
	struct model_func user;		 /* the other PCs' */
	unsigned int format;		 /* of the raw table merged: 1, 2 */
	bool events;			 /* instruction kinds and TLB flushes counted (format 2) */
	bool tlb;			 /* geometry geom simulated TLBs */
	const char *guest_pti, *guest_pcid; /* "0", "1", "unknown" */
	const struct model_costs *costs;    /* est_cycles' table; NULL: none */
	struct model_costs costs_buf;
	/* mode timing: est_cycles is the core model's cycles, not counts x costs */
	bool timing;
	const char *core, *params; /* the core model's name, its KEY=VALUE words */
	/* the instructions the core saw, those it did not know, prefetches, all cycles */
	const char *totals[4];
	bool stack; /* the views show each row's cycle stack (report --stack) */
};

/* A row's derived field k (model_field_names[k]). */
__u64 model_field(const struct model_func *f, enum model_field k);
/* Whether c counted what field k derives from: TLBs for the TLB misses, events for the rest. */
bool model_field_known(const struct model_counts *c, enum model_field k);
/* Whether c has est_cycles: the timing model's cycles, or a cost table's estimate. */
bool model_has_est(const struct model_counts *c);
/* A row's est_cycles: the timing model's cycles, else under c's costs; NAN: neither. */
double model_func_est(const struct model_counts *c, const struct model_func *f);
/* A row's estimated cycles under cost table costs (spec §4). */
double model_est_cycles(const struct model_costs *costs, const struct model_func *f);
/* model_counts_costs() said why it failed in its line: nothing more to say */
#define MODEL_SAID (-ECANCELED)

/*
 * c->costs: the table given (--costs FILE|native: 0 or MODEL_SAID, its line
 * printed), else the one model_costs_pick() finds for the recording's CPU
 * (none: c->costs NULL, said in one line).  A timing recording takes none:
 * the table given is said, in one line, to be unused.
 */
int model_counts_costs(struct datafile *df, const char *given, struct model_counts *c);

/*
 * Read df's counts in geometry geom.  -ENODATA with why when df has none
 * (not recorded with --model, or the counts never merged), -ERANGE when it
 * has no geometry geom; otherwise as data/ readers fail.
 */
int model_counts_read(struct datafile *df, unsigned int geom, struct model_counts *c, char *why,
		      size_t len);
/*
 * model_counts_read without the functions (c->funcs none, the totals 0): for
 * a view that walks the PCs itself and adds each with model_counts_add
 */
int model_counts_head(struct datafile *df, unsigned int geom, struct model_counts *c, char *why,
		      size_t len);
/* r's counts into c's totals (c->total, and c->kernel or c->user) */
int model_counts_add(struct model_counts *c, const struct model_row *r);
void model_counts_free(struct model_counts *c);
/* 0, or -EINVAL with why when one of b and h is of the timing model and the other not. */
int model_counts_same_kind(const struct model_counts *b, const struct model_counts *h, char *why,
			   size_t len);
/* c->stack as asked (--stack); -EINVAL with why when c is not of the timing model. */
int model_counts_stack(struct model_counts *c, bool stack, char *why, size_t len);
struct kernel_dwarf;
/* c's inlines from the kernel PCs' inline chains in kd (NULL: none found, no table). */
int model_counts_inlines(struct datafile *df, struct kernel_dwarf *kd, struct model_counts *c);
/* The row of f[0..n) with that name and module; NULL: none. */
const struct model_func *model_counts_find(const struct model_func *f, size_t n, const char *name,
					   const char *module);

#endif

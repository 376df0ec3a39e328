/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's counts of one recording as its views read them: the
 * recording's model meta checked, its geometries, and its functions (kernel
 * and user) in one geometry, sorted by instructions.
 */
#ifndef KP_MODEL_ROWS_H
#define KP_MODEL_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "data/model.h"

struct datafile;

struct model_func {
	char *name, *module; /* an inline instance's module: the function it is inlined in */
	__u64 insns;
	__u64 v[MODEL_STATS];
};

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
};

/*
 * Read df's counts in geometry geom.  -ENODATA with why when df has none
 * (not recorded with --model, or the counts never merged), -ERANGE when it
 * has no geometry geom; otherwise as data/ readers fail.
 */
int model_counts_read(struct datafile *df, unsigned int geom, struct model_counts *c, char *why,
		      size_t len);
void model_counts_free(struct model_counts *c);
struct kernel_dwarf;
/* c's inlines from the kernel PCs' inline chains in kd (NULL: none found, no table). */
int model_counts_inlines(struct datafile *df, struct kernel_dwarf *kd, struct model_counts *c);
/* The row of f[0..n) with that name and module; NULL: none. */
const struct model_func *model_counts_find(const struct model_func *f, size_t n, const char *name,
					   const char *module);

#endif

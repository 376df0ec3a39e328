/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's table of one boot (a raw folder's model.txt) summed
 * per kernel function with that boot's kallsyms (kallsyms.txt: its own
 * KASLR addresses): PCs below the kernel's (firmware, boot loader,
 * decompressor) into BOOT_PRE_KERNEL of module "[boot]", kernel PCs no
 * symbol holds into "[unknown]".  Both files are untrusted.
 */
#ifndef KP_BOOT_FUNCS_H
#define KP_BOOT_FUNCS_H

#include <stddef.h>
#include <linux/types.h>

#include "model/table.h"

struct boot_funcs;

/*
 * One function's sums: insns, then the table's ngeom x MODEL_STATS counts;
 * with a table of format 2 (else NULL), its ngeom x 2 I-TLB and D-TLB misses
 * (when the table simulated TLBs) and, per kind (MODEL_KINDS: none, "-"),
 * the executions of its PCs of that kind and those that flushed TLBs, and
 * the entries of the retpoline and return thunks its PCs begin; with a
 * table of mode timing its cycles and their stack (1 + MODEL_CYCS).
 */
struct boot_func {
	const char *name, *module;
	const __u64 *v;
	const __u64 *tlb;
	const __u64 *execs, *flushes; /* MODEL_KINDS + 1 each */
	const __u64 *thunks;	      /* entries of a retpoline, of a return thunk */
	const __u64 *cyc;	      /* mode timing: its cycles, then their stack; else NULL */
};

/*
 * model.txt and kallsyms.txt at these paths into *out, the table's header
 * into *t: 0, or -errno with why naming the file and the problem.
 */
int boot_funcs_read(struct boot_funcs **out, struct model_table *t, const char *model,
		    const char *kallsyms, char *why, size_t len);
/* The i-th function, by name then module; NULL past the last. */
const struct boot_func *boot_funcs_at(const struct boot_funcs *bf, size_t i, struct boot_func *f);
void boot_funcs_free(struct boot_funcs *bf);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which kernel symbols a --func pattern means: globs over function names with
 * compiler clone suffixes (.isra.N, .constprop.N, .part.N, ...) folded into
 * the function they were cloned from (util/funcname.h).
 */
#ifndef KP_FUNCMATCH_H
#define KP_FUNCMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct ksyms;

struct func_sym {
	const char *symbol; /* kallsyms name, owned by the ksyms table */
	const char *module; /* "" for vmlinux */
	__u64 addr;
};

struct func_target {
	char name[64];	       /* the function: symbol without clone suffix */
	struct func_sym *syms; /* every symbol probed for it */
	size_t nsyms;
	bool clone; /* only compiler clones exist, no symbol of its own */
};

/* Targets for the patterns, sorted by name; -ENOENT and *bad on a pattern matching nothing. */
int func_match(const struct ksyms *ks, char *const *patterns, int n, struct func_target **out,
	       size_t *nout, const char **bad);
void func_targets_free(struct func_target *t, size_t n);
/* Up to k function names closest to name by edit distance, into best[]; returns how many. */
int func_closest(const struct ksyms *ks, const char *name, char best[][64], int k);

#endif

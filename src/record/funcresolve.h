/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the --func patterns stand for on the running kernel: out-of-line
 * symbols (funcmatch.h), inline instances of functions inlined into every
 * caller (inline_probes.h), and the patterns that match neither, which
 * record keeps as absent on this kernel, so that one command line records on
 * two kernel builds (a function compiled out of one).
 */
#ifndef KP_FUNCRESOLVE_H
#define KP_FUNCRESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "func_layout.h"

struct func_target;
struct inline_probes;
struct ksyms;

struct func_resolved {
	struct func_target *t; /* funcmatch.h's targets, sorted by name */
	size_t n;
	struct inline_probes *inl;	  /* NULL: no inlined-only function */
	const char *absent[KP_MAX_FUNCS]; /* the patterns matching nothing, given order */
	size_t nabsent;
};

/*
 * Resolve the n patterns against ks (and the DWARF of vmlinux, or the
 * running kernel's found by build-id, for plain names without a symbol).
 * A pattern matching nothing is absent: record goes on, and warn gets one
 * line naming them all with the closest names ("" when none is absent),
 * unless strict, or no pattern matches at all: then -ENOENT and why says
 * what matched nothing.  A vmlinux that cannot tell (no DWARF, not an ELF
 * file, another build) is an error whatever strict says.
 */
int func_resolve(struct func_resolved *r, const struct ksyms *ks, char *const *patterns, int n,
		 const char *vmlinux, bool strict, char *warn, size_t wlen, char *why, size_t len);
/* What func_resolve made. */
void func_resolved_free(struct func_resolved *r);

#endif

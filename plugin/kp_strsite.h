/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The string helpers' accesses per call site (docs/model.md, "The buffers
 * string instructions fill"): with vmlinux= and caches, each access of a
 * rep string instruction in a function kp_vmlinux.h names is counted for
 * the kernel call that reached it.  No register is read: a direct call into
 * one of them pushes (its PC, its push's address) on a shadow stack
 * (kp_shadow.h), a ret of one of them or of a return thunk pops by its
 * load's address, and a jump from one to another's entry, seen at
 * translation, lets the second take the first's call (memset's jump to
 * memset_erms).  Calls into the slab allocators are followed too: a
 * string function called by one (memset zeroing the object for
 * init_on_alloc or __GFP_ZERO) is counted with the allocator's call, which
 * passed the cache.  The model runs one vCPU: one shadow stack.
 */
#ifndef KP_STRSITE_H
#define KP_STRSITE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <qemu-plugin.h>

#include "kp_shadow.h"

#define KP_SITES_MAX (1u << 16) /* (PC, site) pairs counted, at most */

struct kp_strsites {
	struct kp_shadow sh;
	GHashTable *insns;	  /* PC -> struct kp_strinsn, made at translation */
	GHashTable *pairs;	  /* struct kp_strcount, itself its key */
	struct kp_strcount *last; /* the pair counted last */
	uint64_t dropped;	  /* accesses of pairs beyond KP_SITES_MAX */
};

/* the callbacks' own instrumentation of one kernel instruction, at translation */
void kp_strsite_instrument(struct qemu_plugin_insn *insn);
/* '# callsites' and its lines, for the table's header */
void kp_strsite_write(FILE *f);

#endif

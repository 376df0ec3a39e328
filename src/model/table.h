/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The raw table plugin/kp_model.c writes at QEMU's exit (and vm-run.sh
 * stamps with the kernel that ran): '#' header lines, then per guest PC its
 * instructions and, per cache geometry, six counts.  Read as untrusted:
 * every line bounded and checked, PCs strictly increasing.
 */
#ifndef KP_MODEL_TABLE_H
#define KP_MODEL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "data/model.h"

struct model_table {
	char mode[8];	  /* insns or cache */
	char window[16];  /* complete, incomplete or none */
	char qemu[128];	  /* the QEMU version the plugin ran in */
	char kernel[129]; /* the build id of the kernel that ran, "" when not said */
	char iaddr[16];	  /* cache: physical, or host when never calibrated */
	unsigned int opened, closed, restarts, stray_stops;
	/* the boot window's (window=boot): reset -> the kernel's entry, -> the first user insn */
	bool has_entry, has_first_user;
	__u64 entry_insns, first_user_insns;
	unsigned int ngeom;
	struct model_geom geom[MODEL_GEOMS_MAX];
};

/* One row: pc, its instructions and ngeom x MODEL_STATS counts. */
typedef int (*model_table_fn)(__u64 pc, __u64 insns, const __u64 *v, void *ctx);

/*
 * Read the table at path: its header into *t, then fn for each row (fn NULL:
 * the header alone).  -EBADMSG with why naming the line for a bad table;
 * -errno (why "" when the error says it all) when it cannot be read.
 */
int model_table_read(const char *path, struct model_table *t, model_table_fn fn, void *ctx,
		     char *why, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reading commands' side of a boot recording (src/boot/): report,
 * folded, diff and features hand one to these, which load it and say a
 * failure in one line: each returns the command's exit status.
 */
#ifndef KP_CMD_BOOT_VIEW_H
#define KP_CMD_BOOT_VIEW_H

#include <stdbool.h>

struct boot_rec;
struct datafile;
struct features;
struct model_view_opts;

/* df (opened from path) loaded into b: 0, or 1 after saying why (b freed). */
int cli_boot_load(const char *cmd, struct datafile *df, const char *path, struct boot_rec *b);
/* report FILE of a boot recording. */
int cli_boot_report(struct datafile *df, const char *path, const struct model_view_opts *o);
/* folded FILE of a boot recording: w an enum model_weight, -1 the phases and initcalls. */
int cli_boot_folded(struct datafile *df, const char *path, int w, unsigned int geom);
/* diff of two boot recordings (path[0] the base); refused when only one is. */
int cli_boot_diff(struct datafile *const df[2], const char *const path[2],
		  const struct model_view_opts *o);
/* features --svg|--json BASE HARDENED of boot recordings; refused when only one is. */
int cli_boot_map(struct datafile *const df[2], const char *const path[2],
		 const struct features *feat, bool svg);
/* features FILE of a boot recording, feat the feature mapping. */
int cli_boot_features(struct datafile *df, const char *path, const struct features *feat,
		      bool json);

#endif

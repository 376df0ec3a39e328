/* SPDX-License-Identifier: GPL-2.0-only */
/* Private scratch folders: made 0700 under a fresh name, removed whole without following links. */
#ifndef KP_SCRATCH_H
#define KP_SCRATCH_H

#include <stddef.h>

/* PARENT/kprotperf-NAME.XXXXXX into dir (parent NULL: $TMPDIR, else /tmp): 0 or -errno. */
int scratch_make(char *dir, size_t len, const char *parent, const char *name);
/* dir and all in it (symbolic links removed, never followed; no other mount entered). */
int scratch_remove(const char *dir);

#endif

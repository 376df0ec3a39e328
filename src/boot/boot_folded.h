/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * folded FILE of a boot recording, for flamegraph.pl: by default the boot's
 * time to the first user process, its phases and its initcalls
 * ("boot;initcalls;NAME NS", mean per boot); with --model W one line per
 * function ("boot;[kernel];NAME N"), weighted by W (model/model_folded.h's).
 */
#ifndef KP_BOOT_FOLDED_H
#define KP_BOOT_FOLDED_H

#include <stddef.h>
#include <stdio.h>

struct boot_rec;

/* w: an enum model_weight, or -1 for the phases and initcalls; -ENODATA/-ERANGE with why. */
int boot_folded(const struct boot_rec *b, int w, unsigned int geom, FILE *f, char *why, size_t len);

#endif

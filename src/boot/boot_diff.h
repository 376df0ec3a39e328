/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * diff of two boot recordings: the phases, the initcalls and, with the
 * machine model, the kernel functions of the base (b[0]) and the hardened
 * (b[1]) boots, matched by name (and module), means per boot with Welch's
 * 95% interval of the change over the boots; text or JSON (docs/boot.md's
 * "Views of a boot recording" gives the JSON's keys).
 */
#ifndef KP_BOOT_DIFF_H
#define KP_BOOT_DIFF_H

#include <stddef.h>
#include <stdio.h>

struct boot_rec;
struct model_view_opts;

/* b[0] the base, b[1] the hardened; -ERANGE with why for a geometry (o->geom) the base lacks. */
int boot_diff(const struct boot_rec *b, const struct model_view_opts *o, FILE *f, char *why,
	      size_t len);

#endif

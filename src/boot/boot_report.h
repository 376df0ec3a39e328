/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report of a boot recording: its header, its phases (mean over boots with
 * a 95% interval), its initcalls by mean time and, with the machine model,
 * its kernel functions by mean instructions per boot; text or JSON.
 */
#ifndef KP_BOOT_REPORT_H
#define KP_BOOT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct boot_rec;
struct json;
struct model_view_opts;

/* o: rows per table (top), the geometry of the misses (geom), json. -ERANGE: no such geometry. */
int boot_report(const struct boot_rec *b, const struct model_view_opts *o, FILE *f, char *why,
		size_t len);

/* Shared with diff: the header lines of a recording, and its JSON fields (path, kernel_release,
 * ...). */
void boot_header_text(FILE *f, const char *side, const struct boot_rec *b);
void boot_header_json(struct json *j, const struct boot_rec *b);
/* geom checked against b's geometries: 0, or -ERANGE with why. */
int boot_check_geom(const struct boot_rec *b, unsigned int geom, char *why, size_t len);

#endif

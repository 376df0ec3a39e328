/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf diff's first section: on what the two recordings differ (kernel
 * build, hardening knobs on the cmdline, hardening config, CPU vulnerability
 * mitigations), and why their numbers may not compare (warnings).
 */
#ifndef KP_DIFF_PROV_H
#define KP_DIFF_PROV_H

#include <stddef.h>
#include <stdio.h>

struct datafile;
struct features;
struct json;

#define DIFF_MAX_NOTES 16

/* The sides' names in messages and JSON keys, by DM_BASE and DM_HARD. */
extern const char *const prov_side_name[2];

/* "warning: ..." and "note: ..." lines, shown in the header and in JSON. */
struct diff_notes {
	char v[DIFF_MAX_NOTES][1024];
	int n;
};

void prov_note(struct diff_notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Different commands or sampling rates; fewer than 5 runs on a side (with
 * one, its intervals are one_run: "from ..., not over runs").
 */
void prov_warnings(struct datafile *const df[2], const size_t runs[2], const char *one_run,
		   struct diff_notes *n);
/*
 * What differs, as "#   " lines to f, or the "provenance" object to j when j
 * is set; a config option names the feature of feat (may be NULL) it builds.
 */
int prov_print(struct datafile *const df[2], const struct features *feat, FILE *f, struct json *j);
/* "# base:     PATH: kernel R (build-id B), N runs of 'CMD', F Hz, schema S" */
void prov_side_text(int side, const char *path, struct datafile *df, size_t runs, FILE *f);
/* The side's JSON object; vmlinux NULL: none, missing says why. */
void prov_side_json(int side, const char *path, struct datafile *df, size_t runs,
		    const char *vmlinux, const char *missing, struct json *j);

#endif

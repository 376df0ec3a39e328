/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The readers the data file targets run on a recording they checked: one of
 * report (text, JSON, --inline, --hist, features FILE's list), folded,
 * annotate, diff (its tables, JSON, --folded, the protection map) and the
 * machine model's views (report, annotate, folded and diff --model), chosen
 * by v, a hash of the input.  The recorded kernel's DWARF is KP_FUZZ_VMLINUX
 * (seeds.sh's small ELF file, whose build id some seeds carry) and the
 * recorded user binaries are looked for under KP_FUZZ_SYMFS (its symfs/),
 * else an empty folder of the process's own: never the host's files, which
 * are not the input (reading libc's compressed debug file took a quarter of
 * the time).
 */
#ifndef KP_FUZZ_READERS_H
#define KP_FUZZ_READERS_H
#include <stdbool.h>
#include <stdlib.h>

#include "fuzz.h"
#include "data/datafile.h"
#include "diff/diff.h"
#include "diff/diff_folded.h"
#include "diff/diff_map.h"
#include "features/feature_costs.h"
#include "features/features.h"
#include "model/model_annotate.h"
#include "model/model_folded.h"
#include "model/model_report.h"
#include "report/report.h"
#include "report/report_annotate.h"
#include "report/report_folded.h"
#include "symbols/kernel_dwarf.h"

/*
 * ASan's allocator for the data file targets (ASAN_OPTIONS still
 * overrides): fuzz_datafile copies each input whole three times
 * (libFuzzer's, SQLite's, the pages SQLite reads it into), a few hundred
 * KiB freed per input, and SQLite allocates per value and statement.
 * Behind the default 256 MiB quarantine every allocation came from pages
 * never touched before, and freed pages went back to the kernel: page
 * faults, madvise and the quarantine's recycling were half of a profile.
 * 16 MiB still holds many inputs' frees, so a use after free within one
 * input is caught as before.
 */
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16:allocator_release_to_os_interval_ms=-1";
}

static struct features *fuzz_feat;
static const char *fuzz_symfs;

/* The features list and the folder for --symfs, once per process. */
static inline void fuzz_readers_init(void)
{
	char why[256];

	fuzz_symfs = getenv("KP_FUZZ_SYMFS") ?: fuzz_folder();
	if (features_load(&fuzz_feat, NULL, why, sizeof(why)))
		abort();
}

/* Whether reader v diffs two recordings (fuzz_read's df[1]) rather than reading one. */
static inline bool fuzz_read_two(size_t v)
{
	return v % 4 == 2;
}

/* df as a reader gets it: --symfs set, the kernel's DWARF when its build id is the file's. */
static inline struct kernel_dwarf *fuzz_dwarf(struct datafile *df)
{
	const char *vmlinux = getenv("KP_FUZZ_VMLINUX");
	struct kernel_dwarf *kd = NULL;
	char why[512];

	datafile_set_symfs(df, fuzz_symfs);
	if (vmlinux && kernel_dwarf_open(&kd, df, vmlinux, why, sizeof(why)))
		kd = NULL;
	return kd;
}

/* One of report's ways, chosen by v. */
static inline void fuzz_report(struct datafile *df, struct kernel_dwarf *kd, size_t v)
{
	static const struct report_opts opts[] = {
		{.sort = S_TOTAL, .top = 20, .inlines = true},
		{.sort = S_P99, .top = 5, .json = true, .inlines = true},
		{.sort = S_TOTAL, .top = 20, .inlines = true, .inline_table = true},
		{.sort = S_TOTAL, .top = 20, .json = true, .inline_table = true},
		{.hist = "getppid", .sort = S_TOTAL, .top = 20},
	};

	/* one way in six: features FILE's list instead */
	if (v % 6 == 5)
		feature_costs_list(df, kd, fuzz_feat, stdout, NULL);
	else
		report_show(df, kd, "", fuzz_feat, &opts[v % (sizeof(opts) / sizeof(opts[0]))]);
}

static inline void fuzz_folded(struct datafile *df, struct kernel_dwarf *kd, size_t v)
{
	static const struct folded_frames fr[] = {
		{.user = true, .kernel = true, .inlines = true},
		{.kernel = true, .inlines = true, .srcline = true},
	};

	/* annotate needs the DWARF, as its command does */
	if (kd && v % 4 == 3)
		annotate_show(df, kd, "allocate_slab", v & 1);
	else
		folded_print(df, kd, &fr[v & 1], v % 4 == 2, NULL);
}

/* The machine model's views of df: report, annotate's hottest lines, folded (by est: no table). */
static inline void fuzz_model(struct datafile *df, struct kernel_dwarf *kd, size_t v)
{
	struct model_view_opts o = {.geom = v & 8 ? 1 : 0, .top = 10, .json = v & 4};
	struct model_annotate_opts a = {.geom = o.geom, .top = 10, .json = o.json};
	char why[512];

	if (v % 4 == 0)
		model_report(df, kd, &o, why, sizeof(why));
	else if (v % 4 == 1)
		model_annotate(df, kd, "", &a, why, sizeof(why));
	else
		model_folded(df, v % 4 == 2 ? MW_ITLB : MW_EST, o.geom, NULL, true, true, stdout,
			     why, sizeof(why));
}

/* df[0] against df[1]: diff's tables, their JSON, --folded, the protection map or --model. */
static inline void fuzz_diff(struct datafile *const df[2], struct kernel_dwarf *const kd[2],
			     const char *const path[2], size_t v)
{
	struct diff_opts o = {.path = {path[0], path[1]}, .top = 10, .json = v % 4 == 1};
	struct diff_inputs in = {.feat = fuzz_feat, .df = {df[0], df[1]}, .kd = {kd[0], kd[1]}};
	char why[512];

	if (v % 5 == 4)
		model_diff(df[0], kd[0], df[1], kd[1],
			   &(struct model_view_opts){.top = 10, .json = v & 8, .by_est = v & 16},
			   why, sizeof(why));
	else if (v % 4 == 2)
		diff_folded(df[0], kd[0], df[1], kd[1], true, stdout);
	else if (v % 4 == 3)
		diff_map(in.df, in.kd, o.path, fuzz_feat, v & 4, stdout);
	else
		diff_tables(&o, &in, stdout);
}

/*
 * Reader v on df[0] (and df[1] when fuzz_read_two(v)), named path[0] and
 * path[1], each with its DWARF opened here, as a command opens it.
 */
static inline void fuzz_read(struct datafile *const df[2], const char *const path[2], size_t v)
{
	struct kernel_dwarf *kd[2] = {fuzz_dwarf(df[0]), NULL};

	switch (v % 4) {
	case 0:
		fuzz_report(df[0], kd[0], v / 4);
		break;
	case 1:
		fuzz_folded(df[0], kd[0], v / 4);
		break;
	case 3:
		fuzz_model(df[0], kd[0], v / 4);
		break;
	default:
		kd[1] = fuzz_dwarf(df[1]);
		fuzz_diff(df, kd, path, v / 4);
	}
	kernel_dwarf_close(kd[0]);
	kernel_dwarf_close(kd[1]);
}
#endif

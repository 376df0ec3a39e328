// SPDX-License-Identifier: GPL-2.0-only
/*
 * A data file from anyone: the input is the file's bytes (seeds: the golden
 * recordings), checked as report, folded, annotate, diff and features check
 * a file they open (datafile_load: the same checks, from memory rather than
 * a file written anew per input) and read by one of those commands'
 * printers, chosen by a hash of the input (opening checks the file whole,
 * the slow part: one command per input), output to /dev/null.  KP_FUZZ_VMLINUX, when set, is a small ELF file with
 * DWARF standing in for the recorded kernel (the seeds carry its build id),
 * so that the paths with kernel DWARF run too.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "data/datafile.h"
#include "features/features.h"
#include "diff/diff.h"
#include "diff/diff_folded.h"
#include "diff/diff_map.h"
#include "report/report_annotate.h"
#include "report/report_folded.h"
#include "report/report.h"
#include "features/feature_costs.h"
#include "symbols/kernel_dwarf.h"

/*
 * ASan's allocator for this target (ASAN_OPTIONS still overrides): each
 * input is copied whole three times (libFuzzer's, SQLite's, the pages
 * SQLite reads it into), a few hundred KiB freed per input.  Behind the
 * default 256 MiB quarantine every allocation came from pages never
 * touched before, and freed pages went back to the kernel: page faults,
 * madvise and the quarantine's recycling were half of a profile.  16 MiB
 * still holds many inputs' frees, so a use after free within one input is
 * caught as before.
 */
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16:allocator_release_to_os_interval_ms=-1";
}

static struct features *feat;
/*
 * Where the recorded user binaries are looked for (--symfs): KP_FUZZ_SYMFS
 * (seeds.sh's symfs/, one small ELF file at a path a seed records), else an
 * empty folder of the process's own.  Never the host's files: they are not the input, and
 * reading libc's compressed debug file took a quarter of the target's time.
 */
static const char *symfs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char why[256];

	fuzz_init();
	symfs = getenv("KP_FUZZ_SYMFS") ?: fuzz_folder();
	if (features_load(&feat, NULL, why, sizeof(why)))
		abort();
	return 0;
}

/* The input's bytes, and the name that stands for its path. */
struct input {
	const uint8_t *data;
	size_t size;
	const char *path;
};

/* The input checked anew for each reader: some leave TEMP tables behind. */
static struct datafile *open_df(const struct input *in, struct kernel_dwarf **kd)
{
	const char *vmlinux = getenv("KP_FUZZ_VMLINUX");
	struct datafile *df;
	char why[512];

	*kd = NULL;
	if (datafile_load(&df, in->path, in->data, in->size, why, sizeof(why)))
		return NULL;
	datafile_set_symfs(df, symfs);
	if (vmlinux && kernel_dwarf_open(kd, df, vmlinux, why, sizeof(why)))
		*kd = NULL;
	return df;
}

static void done(struct datafile *df, struct kernel_dwarf *kd)
{
	kernel_dwarf_close(kd);
	datafile_close(df);
}

/* One of report's ways, chosen by v. */
static void reports(const struct input *in, size_t v)
{
	static const struct report_opts opts[] = {
		{.sort = S_TOTAL, .top = 20, .inlines = true},
		{.sort = S_P99, .top = 5, .json = true, .inlines = true},
		{.sort = S_TOTAL, .top = 20, .inlines = true, .inline_table = true},
		{.sort = S_TOTAL, .top = 20, .json = true, .inline_table = true},
		{.hist = "getppid", .sort = S_TOTAL, .top = 20},
	};
	struct kernel_dwarf *kd;
	struct datafile *df = open_df(in, &kd);

	if (!df)
		return;
	/* one way in six: features FILE's list instead */
	if (v % 6 == 5)
		feature_costs_list(df, kd, feat, stdout, NULL);
	else
		report_show(df, kd, "", feat, &opts[v % (sizeof(opts) / sizeof(opts[0]))]);
	done(df, kd);
}

static void folded(const struct input *in, size_t v)
{
	static const struct folded_frames fr[] = {
		{.user = true, .kernel = true, .inlines = true},
		{.kernel = true, .inlines = true, .srcline = true},
	};
	struct kernel_dwarf *kd;
	struct datafile *df = open_df(in, &kd);

	if (!df)
		return;
	/* annotate needs the DWARF, as its command does */
	if (kd && v % 4 == 3)
		annotate_show(df, kd, "allocate_slab", v & 1);
	else
		folded_print(df, kd, &fr[v & 1], v % 4 == 2, NULL);
	done(df, kd);
}

/* The file against itself: diff's tables, their JSON, --folded or the protection map. */
static void diffs(const struct input *input, size_t v)
{
	struct diff_opts o = {.path = {input->path, input->path}, .top = 10, .json = v % 4 == 1};
	struct diff_inputs in = {.feat = feat};

	in.df[0] = open_df(input, &in.kd[0]);
	in.df[1] = in.df[0] ? open_df(input, &in.kd[1]) : NULL;
	if (!in.df[1]) {
		if (in.df[0])
			done(in.df[0], in.kd[0]);
		return;
	}
	if (v % 4 == 2)
		diff_folded(in.df[0], in.kd[0], in.df[1], in.kd[1], true, stdout);
	else if (v % 4 == 3)
		diff_map(in.df, in.kd, o.path, feat, v & 4, stdout);
	else
		diff_tables(&o, &in, stdout);
	done(in.df[0], in.kd[0]);
	done(in.df[1], in.kd[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct input in = {data, size, "input.data"};
	size_t v = 0, i;

	/* which of each command's ways: a hash of the input, as mutations change it */
	for (i = 0; i < size; i += 61)
		v = v * 31 + data[i];
	v += size;
	/* one command's way per input: each opens and checks the file whole, the slow part */
	switch (v % 3) {
	case 0:
		reports(&in, v / 3);
		break;
	case 1:
		folded(&in, v / 3);
		break;
	default:
		diffs(&in, v / 3);
	}
	return 0;
}

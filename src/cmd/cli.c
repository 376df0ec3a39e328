// SPDX-License-Identifier: GPL-2.0-only
/* What the reading commands share: their FILE operand, opening it, and its kernel's DWARF. */
#include "cmd/cli.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "data/datafile.h"
#include "data/model.h"
#include "data/samples.h"
#include "features/features.h"
#include "features/sites.h"
#include "model/model_report.h"
#include "model/rows.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"

const char *cli_prefix_path(const char *rel, char *buf, size_t len)
{
	char exe[PATH_MAX], *bindir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	bindir = dirname(exe);
	if (strcmp(basename(bindir), "bin"))
		return NULL;
	ret = snprintf(buf, len, "%s/%s", dirname(bindir), rel);
	return ret > 0 && (size_t)ret < len && !access(buf, F_OK) ? buf : NULL;
}

const char *cli_data_file(const char *name, char *buf, size_t len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "share/kprotperf/%s", name);
	return cli_prefix_path(rel, buf, len);
}

int cli_input(int argc, char **argv, const char *cmd, const char **input)
{
	if (input && optind < argc)
		*input = argv[optind++];
	if (optind < argc) {
		fprintf(stderr,
			"kprotperf %s: unexpected argument '%s' (see kprotperf %s --help)\n", cmd,
			argv[optind], cmd);
		return -EINVAL;
	}
	return 0;
}

int cli_symfs(const char *cmd, const char *dir)
{
	struct stat st;

	if (*dir && !stat(dir, &st) && S_ISDIR(st.st_mode))
		return 0;
	/* a typo would otherwise only show as frames missing from the output */
	fprintf(stderr, "kprotperf %s: --symfs '%s': no such folder\n", cmd, dir);
	return -EINVAL;
}

int cli_open(const char *cmd, const char *path, const char *symfs, struct datafile **out)
{
	char why[256];
	int err = datafile_open(out, path, why, sizeof(why));

	if (!err) {
		datafile_set_symfs(*out, symfs);
		return 0;
	}
	if (*why)
		fprintf(stderr, "kprotperf %s: %s: %s\n", cmd, path, why);
	else if (err == -ENOENT)
		fprintf(stderr,
			"kprotperf %s: %s: no such file (record one with kprotperf record)\n", cmd,
			path);
	else
		fprintf(stderr, "kprotperf %s: cannot read %s: %s\n", cmd, path, strerror(-err));
	return err;
}

/* Whether test finds something to say of df, then said in one line. */
static bool say(const char *cmd, const char *path, struct datafile *df,
		bool (*test)(struct datafile *df, char *why, size_t len))
{
	char why[640];

	if (!test(df, why, sizeof(why)))
		return false;
	esc_printf(stderr, "kprotperf %s: %s: %s\n", cmd, path, why);
	return true;
}

bool cli_bad_data(const char *cmd, const char *path, struct datafile *df)
{
	return say(cmd, path, df, datafile_why);
}

/* The first feature whose 'sites =' names no pattern of features/sites.h; -1: none. */
static long unknown_sites(const struct features *f)
{
	const char *s;
	size_t i;
	int k;

	for (i = 0; i < features_count(f); i++) {
		s = features_sites(f, i);
		for (k = 0; s && k < SITES_UNCLASSIFIED; k++)
			if (!strcmp(s, sites_kind_name(k)))
				break;
		if (s && k == SITES_UNCLASSIFIED)
			return i;
	}
	return -1;
}

int cli_features(const char *cmd, const char *path, struct features **out)
{
	char why[512] = "", installed[PATH_MAX];
	long bad;
	int err;

	path = path ?: cli_data_file("features.conf", installed, sizeof(installed));
	err = features_load(out, path, why, sizeof(why));

	/* why names the file, and the line when it is one */
	if (err) {
		esc_printf(stderr, "kprotperf %s: %s\n", cmd, why);
		return err;
	}
	bad = unknown_sites(*out);
	if (bad < 0)
		return 0;
	esc_printf(stderr,
		   "kprotperf %s: %s: [%s]: sites '%s' is no pattern kprotperf features knows"
		   " (stack_canary, return_thunk, retpoline, zero_call_used_regs, fortify, ubsan,"
		   " kcfi, ibt)\n",
		   cmd, path ?: "built-in features.conf", features_name(*out, bad),
		   features_sites(*out, bad));
	features_free(*out);
	*out = NULL;
	return -EINVAL;
}

void cli_read_error(const char *cmd, const char *path, struct datafile *df, int err)
{
	if (err != -EBADMSG || !cli_bad_data(cmd, path, df))
		fprintf(stderr, "kprotperf %s: reading %s: %s\n", cmd, path, strerror(-err));
}

bool cli_no_samples(const char *cmd, const char *path, struct datafile *df)
{
	return say(cmd, path, df, samples_none);
}

int cli_kernel_dwarf(const char *cmd, struct datafile *df, const char *vmlinux, const char *missing,
		     struct kernel_dwarf **out, char *note, size_t len)
{
	char own[1024];
	int err;

	if (!note) {
		note = own;
		len = sizeof(own);
	}
	*note = '\0';
	err = kernel_dwarf_open(out, df, vmlinux, note, len);

	if (err)
		esc_printf(stderr, "kprotperf %s: %s\n", cmd, note);
	else if (!*out && missing)
		esc_printf(stderr, "kprotperf %s: %s: %s\n", cmd, missing, note);
	return err;
}

int cli_geom(const char *cmd, const char *arg, unsigned int *geom)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v >= MODEL_GEOMS_MAX) {
		esc_printf(stderr, "kprotperf %s: --geom '%s': want a geometry's index, 0 to %d\n",
			   cmd, arg, MODEL_GEOMS_MAX - 1);
		return -EINVAL;
	}
	*geom = v;
	return 0;
}

int cli_model_view(const char *cmd, struct datafile *base, struct kernel_dwarf *kb,
		   const char *path, struct datafile *hard, struct kernel_dwarf *kh,
		   const struct model_view_opts *o)
{
	char why[512] = "";
	int err = hard ? model_diff(base, kb, hard, kh, o, why, sizeof(why))
		       : model_report(base, kb, o, why, sizeof(why));

	if (!err || err == MODEL_SAID)
		return !!err;
	/* diff's why names the side, as "BASE: ..." or "HARDENED: ..." */
	if (why[0] && hard)
		esc_printf(stderr, "kprotperf %s: %s\n", cmd, why);
	else if (why[0])
		esc_printf(stderr, "kprotperf %s: %s: %s\n", cmd, path, why);
	else
		cli_read_error(cmd, path, base, err);
	return 1;
}

// SPDX-License-Identifier: GPL-2.0-only
/* The reading commands' side of a boot recording (boot_view.h): loaded, shown, errors said. */
#include "cmd/boot_view.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "boot/boot_diff.h"
#include "boot/boot_features.h"
#include "boot/boot_folded.h"
#include "boot/boot_report.h"
#include "boot/load.h"
#include "boot/map.h"
#include "cmd/cli.h"
#include "data/boot_read.h"
#include "model/model_report.h"
#include "util/esc.h"

int cli_boot_load(const char *cmd, struct datafile *df, const char *path, struct boot_rec *b)
{
	int err = boot_load(df, path, b);

	if (!err)
		return 0;
	cli_read_error(cmd, path, df, err);
	boot_free(b);
	return 1;
}

/* A view's failure: why it said, else the reading error. */
static int said(const char *cmd, struct datafile *df, const char *path, int err, const char *why)
{
	if (err && why[0])
		esc_printf(stderr, "kprotperf %s: %s: %s\n", cmd, path, why);
	else if (err)
		cli_read_error(cmd, path, df, err);
	return err ? 1 : 0;
}

int cli_boot_report(struct datafile *df, const char *path, const struct model_view_opts *o)
{
	struct boot_rec b;
	char why[256] = "";
	int err;

	if (cli_boot_load("report", df, path, &b))
		return 1;
	err = boot_report(&b, o, stdout, why, sizeof(why));
	boot_free(&b);
	return said("report", df, path, err, why);
}

int cli_boot_folded(struct datafile *df, const char *path, int w, unsigned int geom)
{
	struct boot_rec b;
	char why[256] = "";
	int err;

	if (cli_boot_load("folded", df, path, &b))
		return 1;
	err = boot_folded(&b, w, geom, stdout, why, sizeof(why));
	boot_free(&b);
	return said("folded", df, path, err, why);
}

/* Both of df[2] loaded into b when both are boot recordings: 0, or 1 after saying why. */
static int load_pair(const char *cmd, struct datafile *const df[2], const char *const path[2],
		     struct boot_rec b[2])
{
	bool boot[2] = {boot_present(df[0]), boot_present(df[1])};

	if (boot[0] != boot[1]) {
		esc_printf(stderr,
			   "kprotperf %s: %s is a boot recording (kprotperf boot) and %s a"
			   " recording of a workload (kprotperf record): %s compares two of a"
			   " kind\n",
			   cmd, path[!boot[0]], path[boot[0]], cmd);
		return 1;
	}
	if (cli_boot_load(cmd, df[0], path[0], &b[0]))
		return 1;
	if (!cli_boot_load(cmd, df[1], path[1], &b[1]))
		return 0;
	boot_free(&b[0]);
	return 1;
}

static void free_pair(struct boot_rec b[2])
{
	boot_free(&b[1]);
	boot_free(&b[0]);
}

int cli_boot_diff(struct datafile *const df[2], const char *const path[2],
		  const struct model_view_opts *o)
{
	struct boot_rec b[2];
	char why[256] = "";
	int err;

	if (load_pair("diff", df, path, b))
		return 1;
	err = boot_diff(b, o, stdout, why, sizeof(why));
	free_pair(b);
	if (err && why[0])
		esc_printf(stderr, "kprotperf diff: %s\n", why);
	else if (err)
		fprintf(stderr, "kprotperf diff: reading %s and %s: %s\n", path[0], path[1],
			strerror(-err));
	return err ? 1 : 0;
}

int cli_boot_map(struct datafile *const df[2], const char *const path[2],
		 const struct features *feat, bool svg)
{
	struct boot_rec b[2];
	int err;

	if (load_pair("features", df, path, b))
		return 1;
	err = boot_map(b, feat, path, svg, stdout);
	free_pair(b);
	if (err == -ENODATA)
		fprintf(stderr,
			"kprotperf features: %s or %s has no per-function counts: boot both with"
			" --model insns for the map of boot costs\n",
			path[0], path[1]);
	else if (err)
		fprintf(stderr, "kprotperf features: reading %s and %s: %s\n", path[0], path[1],
			strerror(-err));
	return err ? 1 : 0;
}

int cli_boot_features(struct datafile *df, const char *path, const struct features *feat, bool json)
{
	struct boot_rec b;
	int err;

	if (cli_boot_load("features", df, path, &b))
		return 1;
	err = boot_features(&b, feat, stdout, json);
	boot_free(&b);
	return said("features", df, path, err, "");
}

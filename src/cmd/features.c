// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf features: its options, then the inventory of a kernel's text
 * built and printed or, given a recording, every feature's state and cost.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/cmds.h"
#include "cmd/options.h"
#include "data/datafile.h"
#include "data/features.h"
#include "protect/inventory.h"
#include "protect/inventory_print.h"
#include "report/report_features.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"
#include "util/json.h"

struct features_opts {
	const char *vmlinux;
	const char *func;
	const char *map; /* --features FILE */
	const char *input;
	bool json;
};

enum { O_VMLINUX = OPTIONS_LONG_ONLY, O_JSON, O_FEATURES };

static const struct options_entry entries[] = {
	{O_VMLINUX, "vmlinux", "PATH",
	 "inventory this vmlinux file instead, as linked (its\n"
	 "symbol table and text, before a boot patched them)"},
	{'f', "func", "NAME", "the sites in function NAME, one a line"},
	{O_FEATURES, "features", "MAP",
	 "with FILE: the feature mapping instead of the built-in\n"
	 "one (format: see README.md)"},
	{O_JSON, "json", NULL, "as one JSON object"},
	{},
};

static const struct options_cmd command = {
	.name = "features",
	.head = "Usage: kprotperf features [--vmlinux PATH] [--func NAME] [--json]\n"
		"       kprotperf features [--features MAP] [--json] FILE\n"
		"The protections the compiler inserted into the kernel's functions, found by\n"
		"instruction pattern in the running kernel's text (/proc/kcore, as the boot\n"
		"patched it, named by /proc/kallsyms): IBT landing pads, stack canaries, return\n"
		"thunks, retpolines, zeroed call-used registers, FORTIFY_SOURCE and UBSAN\n"
		"handler calls, kCFI checks; per feature, its sites and the functions that\n"
		"have one. A branch to a kernel thunk or a use of the canary that matches no\n"
		"pattern is counted as unclassified. Needs root (kallsyms' addresses,\n"
		"/proc/kcore).\n"
		"With a recording FILE: every hardening feature kprotperf knows, what it is\n"
		"(type: source, compiler, config or boot; position: code, data or layout;\n"
		"when: build, boot or run), its state on the recorded kernel (on, off, not\n"
		"built, and from what) and its cost: its share of the kernel samples and its\n"
		"CPU time per run.\n",
	.column = 23,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct features_opts *o = ctx;

	switch (key) {
	case 'f':
		o->func = arg;
		break;
	case O_VMLINUX:
		o->vmlinux = arg;
		break;
	case O_JSON:
		o->json = true;
		break;
	case O_FEATURES:
		o->map = arg;
		break;
	}
	return 0;
}

/* features FILE: the recording's features, errors said in one line. */
static int recorded(const struct features_opts *o)
{
	struct kernel_dwarf *kd = NULL;
	struct features *feat;
	struct datafile *df;
	char note[1024] = "";
	struct json j;
	int err;

	if (cli_features("features", o->map, &feat))
		return 1;
	err = cli_open("features", o->input, &df);
	/* inline frames: a feature may name a function inlined (shuffle_freelist) */
	if (!err && cli_kernel_dwarf("features", df, NULL, NULL, &kd, note, sizeof(note))) {
		datafile_close(df);
		err = 1;
	}
	if (err) {
		features_free(feat);
		return 1;
	}
	if (o->json) {
		json_begin(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "kernel_release", datafile_meta(df, "kernel.release"));
		json_str(&j, "sites_source", datafile_meta(df, "protect.source"));
	} else {
		esc_printf(stdout, "# kprotperf features of %s: kernel %s\n", o->input,
			   datafile_meta(df, "kernel.release") ?: "?");
	}
	err = report_feature_list(df, kd, feat, stdout, o->json ? &j : NULL);
	if (o->json) {
		json_close(&j, '}');
		json_end(&j);
	}
	if (err)
		cli_read_error("features", o->input, df, err);
	kernel_dwarf_close(kd);
	datafile_close(df);
	features_free(feat);
	return err ? 1 : 0;
}

static int usage(const char *what)
{
	fprintf(stderr, "kprotperf features: %s (see kprotperf features --help)\n", what);
	return 2;
}

int cmd_features(int argc, char **argv)
{
	struct features_opts o = {0};
	struct inventory *inv;
	char why[4352];
	int err;

	err = options_parse(&command, argc, argv, set_opt, &o);
	if (err)
		return err > 0 ? 0 : 2;
	err = cli_input(argc, argv, "features", &o.input);
	if (err)
		return 2;
	if (o.input && (o.vmlinux || o.func))
		return usage("--vmlinux and --func inventory a kernel's text, not a recording FILE");
	if (!o.input && o.map)
		return usage("--features maps a recording's samples: give its FILE");
	if (o.input)
		return recorded(&o);
	err = inventory_build(o.vmlinux, &inv, why, sizeof(why));
	if (err) {
		fprintf(stderr, "kprotperf features: %s\n", why);
		return 1;
	}
	err = inventory_print(stdout, inv, o.func, o.json);
	if (err == -ENOENT)
		fprintf(stderr,
			"kprotperf features: --func %s: no function of that name in the kernel's "
			"text (%s)\n",
			o.func, inv->source);
	inventory_free(inv);
	return err ? 1 : 0;
}

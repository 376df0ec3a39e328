// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf features: its options, then the inventory of a kernel's text
 * built and printed or, given a recording, every feature's state and cost.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/boot_view.h"
#include "cmd/cli.h"
#include "cmd/options.h"
#include "data/boot_read.h"
#include "data/datafile.h"
#include "datatype/layout.h"
#include "diff/diff_map.h"
#include "features/feature_costs.h"
#include "features/features.h"
#include "features/inventory.h"
#include "features/inventory_print.h"
#include "symbols/debuginfo.h"
#include "symbols/kernel_dwarf.h"
#include "system/provenance.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/kv.h"

struct features_opts {
	const char *vmlinux[2]; /* --vmlinux, once or twice */
	int nvmlinux;
	const char *func;
	const char *layout;   /* --layout TYPE */
	const char *map;      /* --features FILE */
	const char *input[2]; /* FILE, or BASE and HARDENED */
	bool json, svg;
};

enum { O_VMLINUX = OPTIONS_LONG_ONLY, O_JSON, O_FEATURES, O_SVG, O_LAYOUT };

static const struct options_entry entries[] = {
	{O_VMLINUX, "vmlinux", "PATH",
	 "inventory this vmlinux file instead, as linked (its\n"
	 "symbol table and text, before a boot patched them);\n"
	 "twice: the two side by side, base then hardened"},
	{'f', "func", "NAME", "the sites in function NAME, one a line"},
	{O_LAYOUT, "layout", "TYPE",
	 "the layout of struct, union or typedef TYPE as pahole\n"
	 "shows it (members, offsets, sizes, holes, cache lines),\n"
	 "from the DWARF of --vmlinux (twice: both side by side,\n"
	 "the members that moved marked) or the running kernel's"},
	{O_FEATURES, "features", "MAP",
	 "with FILE: the feature mapping instead of the built-in\n"
	 "one (format: docs/features.md)"},
	{O_SVG, "svg", NULL, "with BASE and HARDENED: the protection map as SVG"},
	{O_JSON, "json", NULL, "as one JSON object"},
	{},
};

static const struct options_example examples[] = {
	{"sudo kprotperf features", "the running kernel's compiler-inserted protections"},
	{"kprotperf features --vmlinux vmlinux --func do_sys_openat2",
	 "the sites in one function of a vmlinux file"},
	{"kprotperf features k.data", "every feature's state and cost in a recording"},
	{"kprotperf features --svg base.data hardened.data > map.svg", "the protection map"},
	{"kprotperf features --layout task_struct --vmlinux base/vmlinux --vmlinux rand/vmlinux",
	 "where RANDSTRUCT moved task_struct's members"},
	{},
};

const struct options_cmd features_options = {
	.name = "features",
	.head = "Usage: kprotperf features [--vmlinux PATH] [--func NAME] [--json]\n"
		"       kprotperf features --vmlinux BASE --vmlinux HARDENED [--json]\n"
		"       kprotperf features [--features MAP] [--json] FILE\n"
		"       kprotperf features [--features MAP] --svg|--json BASE HARDENED\n"
		"       kprotperf features --layout TYPE [--vmlinux A [--vmlinux B]] [--json]\n"
		"The protections the compiler inserted into the kernel's functions, found by\n"
		"instruction pattern in the running kernel's text (/proc/kcore, as the boot\n"
		"patched it, named by /proc/kallsyms): IBT landing pads, stack canaries, return\n"
		"thunks, retpolines, zeroed call-used registers, FORTIFY_SOURCE and UBSAN\n"
		"handler calls, kCFI checks; per feature, its sites and the functions that\n"
		"have one. A branch to a kernel thunk or a use of the canary that matches no\n"
		"pattern is counted as unclassified. Needs root, or CAP_SYSLOG (kallsyms'\n"
		"addresses) and CAP_SYS_RAWIO (/proc/kcore; else the running kernel's\n"
		"vmlinux is used, found by build id).\n"
		"\n"
		"With a recording FILE: every hardening feature kprotperf knows, what it is\n"
		"(type: source, compiler, config or boot; position: code, data or layout;\n"
		"when: build, boot or run), its state on the recorded kernel (on, off, not\n"
		"built, and from what) and its cost: its share of the kernel samples and its\n"
		"CPU time per run.\n"
		"\n"
		"With two recordings: the protection map, the features on a grid of type by\n"
		"position, each cell coloured by its features' change of CPU time per run\n"
		"from BASE to HARDENED, as a share of the base kernel's; --svg draws it (a\n"
		"tooltip gives each feature's change and 95% interval), --json gives its\n"
		"numbers.\n"
		"\n"
		"With --vmlinux twice: the two kernels' inventories side by side (a config\n"
		"pair that changes a compiler-inserted protection).\n"
		"\n"
		"With --layout TYPE: a type's layout from a vmlinux's DWARF (the running\n"
		"kernel's, found by build id, without --vmlinux); with --vmlinux twice, each\n"
		"member's offset in both, e.g. a build with RANDSTRUCT beside one without.\n"
		"\n"
		"Boot recordings (kprotperf boot): FILE's features with their state in that\n"
		"boot and the instructions per boot their functions ran (with the model);\n"
		"the map of two places the features that ran at boot, or are switched at boot,\n"
		"by the change of those instructions per boot.\n",
	.column = 23,
	.examples = examples,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct features_opts *o = ctx;

	switch (key) {
	case 'f':
		o->func = arg;
		break;
	case O_LAYOUT:
		o->layout = arg;
		break;
	case O_VMLINUX:
		if (o->nvmlinux < 2)
			o->vmlinux[o->nvmlinux] = arg;
		o->nvmlinux++;
		break;
	case O_JSON:
		o->json = true;
		break;
	case O_FEATURES:
		o->map = arg;
		break;
	case O_SVG:
		o->svg = true;
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
	err = cli_open("features", o->input[0], NULL, &df);
	if (!err && boot_present(df)) {
		err = cli_boot_features(df, o->input[0], feat, o->json);
		datafile_close(df);
		features_free(feat);
		return err;
	}
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
		esc_printf(stdout, "# kprotperf features of %s: kernel %s\n", o->input[0],
			   datafile_meta(df, "kernel.release") ?: "?");
	}
	err = feature_costs_list(df, kd, feat, stdout, o->json ? &j : NULL);
	if (o->json) {
		json_close(&j, '}');
		json_end(&j);
	}
	if (err)
		cli_read_error("features", o->input[0], df, err);
	kernel_dwarf_close(kd);
	datafile_close(df);
	features_free(feat);
	return err ? 1 : 0;
}

static void close_pair(struct datafile *df[2], struct kernel_dwarf *kd[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		kernel_dwarf_close(kd[i]);
		if (df[i])
			datafile_close(df[i]);
	}
}

/* A bad value names its file; any other error both. */
static void say_error(const struct features_opts *o, struct datafile *df[2], int err)
{
	if (err == -EBADMSG && (cli_bad_data("features", o->input[0], df[0]) ||
				cli_bad_data("features", o->input[1], df[1])))
		return;
	fprintf(stderr, "kprotperf features: reading %s and %s: %s\n", o->input[0], o->input[1],
		strerror(-err));
}

/* features --svg|--json BASE HARDENED: the protection map. */
static int map(const struct features_opts *o)
{
	struct kernel_dwarf *kd[2] = {NULL, NULL};
	struct datafile *df[2] = {NULL, NULL};
	char note[2][1024];
	struct features *feat;
	int i, err;

	if (cli_features("features", o->map, &feat))
		return 1;
	/* a boot recording's functions are named already: no DWARF to look for */
	for (i = 0, err = 0; i < 2 && !err; i++)
		err = cli_open("features", o->input[i], NULL, &df[i])
			      ?: boot_present(df[i])
				 ? 0
				 : cli_kernel_dwarf("features", df[i], NULL, NULL, &kd[i], note[i],
						    sizeof(note[i]));
	if (!err && (boot_present(df[0]) || boot_present(df[1]))) {
		err = cli_boot_map(df, o->input, feat, o->svg);
	} else if (!err) {
		err = diff_map(df, kd, o->input, feat, o->svg, stdout);
		if (err)
			say_error(o, df, err);
	}
	close_pair(df, kd);
	features_free(feat);
	return err ? 1 : 0;
}

static int usage(const char *what)
{
	fprintf(stderr, "kprotperf features: %s (see kprotperf features --help)\n", what);
	return 2;
}

/* features --vmlinux BASE --vmlinux HARDENED: the two inventories side by side. */
static int compare(const struct features_opts *o)
{
	struct inventory *inv[2] = {NULL, NULL};
	char why[4352];
	int i, err = 0;

	for (i = 0; i < 2 && !err; i++)
		err = inventory_build(o->vmlinux[i], &inv[i], why, sizeof(why));
	if (err)
		fprintf(stderr, "kprotperf features: %s\n", why);
	else
		inventory_print_diff(stdout, inv, o->json);
	inventory_free(inv[0]);
	inventory_free(inv[1]);
	return err ? 1 : 0;
}

/* The running kernel's vmlinux with DWARF, found by its build id, into path. */
static int running_vmlinux(char *path, size_t len)
{
	struct kv_list k = {};
	int err = provenance_kernel(&k);
	const char *rel = kv_get(&k, "kernel.release");

	err = err ?: debuginfo_find(rel, kv_get(&k, "kernel.build_id"), NULL, path, len);
	if (err)
		esc_printf(
			stderr,
			"kprotperf features: --layout: no vmlinux with DWARF found for the running "
			"kernel %s: install linux-image-%s-dbg (or build it with "
			"scripts/kernel-build.sh), or give one with --vmlinux\n",
			rel ?: "?", rel ?: "RELEASE");
	kv_list_free(&k);
	return err;
}

/* The layout of o->layout in the vmlinux at path, errors said in one line. */
static int layout_of(const struct features_opts *o, const char *path, struct layout **l)
{
	char why[1024], closest[128];
	struct debuginfo *di;
	int err;

	err = debuginfo_open(&di, path);
	if (err) {
		debuginfo_explain(err, path, NULL, why, sizeof(why));
		esc_printf(stderr, "kprotperf features: %s\n", why);
		return err;
	}
	err = layout_find(di, path, o->layout, l, closest, sizeof(closest));
	debuginfo_close(di);
	if (err == -ENOENT)
		esc_printf(stderr, "kprotperf features: no type '%s' in %s%s%s%s\n", o->layout,
			   path, closest[0] ? " (closest: " : "", closest, closest[0] ? ")" : "");
	else if (err)
		esc_printf(stderr, "kprotperf features: --layout %s in %s: %s\n", o->layout, path,
			   strerror(-err));
	return err;
}

/* features --layout TYPE: pahole's view of one build, or two side by side. */
static int layout(const struct features_opts *o)
{
	const char *names[2] = {o->vmlinux[0], o->vmlinux[1]};
	struct layout *l[2] = {NULL, NULL};
	char path[4096];
	int i, n = o->vmlinux[1] ? 2 : 1, err = 0;
	struct json j;

	if (!names[0]) {
		if (running_vmlinux(path, sizeof(path)))
			return 1;
		names[0] = path;
	}
	for (i = 0; i < n && !err; i++)
		err = layout_of(o, names[i], &l[i]);
	if (!err && o->json) {
		json_begin(&j, stdout);
		json_open(&j, NULL, '{');
		if (n == 2)
			layout_json_pair(&j, (const struct layout **)l, names);
		else
			layout_json(&j, l[0]);
		json_close(&j, '}');
		json_end(&j);
	} else if (!err && n == 2) {
		layout_print_pair(stdout, (const struct layout **)l, names);
	} else if (!err) {
		esc_printf(stdout, "/* %s */\n", names[0]);
		layout_print(stdout, l[0]);
	}
	layout_free(l[0]);
	layout_free(l[1]);
	return err ? 1 : 0;
}

int cmd_features(int argc, char **argv)
{
	struct features_opts o = {0};
	struct inventory *inv;
	char why[4352];
	int err;

	err = options_parse(&features_options, argc, argv, set_opt, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (argc - optind == 2)
		o.input[1] = argv[argc - 1];
	err = cli_input(argc - !!o.input[1], argv, "features", &o.input[0]);
	if (err)
		return 2;
	if (o.input[1] && !o.svg && !o.json)
		return usage("two recordings make the protection map: give --svg or --json");
	if (o.svg && !o.input[1])
		return usage("--svg draws the map of two recordings: give BASE and HARDENED");
	if (o.svg && o.json)
		return usage("--svg or --json, not both");
	if (o.nvmlinux > 2)
		return usage("--vmlinux: once, or twice for BASE and HARDENED");
	if (o.vmlinux[1] && o.func)
		return usage("--func shows one kernel's sites: give --vmlinux once");
	if (o.layout && o.func)
		return usage("--layout or --func, not both");
	if (o.layout && o.input[0])
		return usage("--layout reads a vmlinux's DWARF, not a recording FILE");
	if (o.input[0] && (o.vmlinux[0] || o.func))
		return usage(
			"--vmlinux and --func inventory a kernel's text, not a recording FILE");
	if (!o.input[0] && o.map)
		return usage("--features maps a recording's samples: give its FILE");
	if (o.layout)
		return layout(&o);
	if (o.input[1])
		return map(&o);
	if (o.input[0])
		return recorded(&o);
	if (o.vmlinux[1])
		return compare(&o);
	err = inventory_build(o.vmlinux[0], &inv, why, sizeof(why));
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

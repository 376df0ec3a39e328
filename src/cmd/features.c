// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf features: its options, the inventory built, then printed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/cmds.h"
#include "cmd/options.h"
#include "protect/inventory.h"
#include "protect/inventory_print.h"

struct features_opts {
	const char *vmlinux;
	const char *func;
	bool json;
};

enum { O_VMLINUX = OPTIONS_LONG_ONLY, O_JSON };

static const struct options_entry entries[] = {
	{O_VMLINUX, "vmlinux", "PATH",
	 "inventory this vmlinux file instead, as linked (its\n"
	 "symbol table and text, before a boot patched them)"},
	{'f', "func", "NAME", "the sites in function NAME, one a line"},
	{O_JSON, "json", NULL, "as one JSON object"},
	{},
};

static const struct options_cmd command = {
	.name = "features",
	.head = "Usage: kprotperf features [--vmlinux PATH] [--func NAME] [--json]\n"
		"The protections the compiler inserted into the kernel's functions, found by\n"
		"instruction pattern in the running kernel's text (/proc/kcore, as the boot\n"
		"patched it, named by /proc/kallsyms): IBT landing pads, stack canaries, return\n"
		"thunks, retpolines, zeroed call-used registers, FORTIFY_SOURCE and UBSAN\n"
		"handler calls, kCFI checks; per feature, its sites and the functions that\n"
		"have one. A branch to a kernel thunk or a use of the canary that matches no\n"
		"pattern is counted as unclassified. Needs root (kallsyms' addresses,\n"
		"/proc/kcore).\n",
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
	}
	return 0;
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
	err = cli_input(argc, argv, "features", NULL);
	if (err)
		return 2;
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

// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf inject: its options, then each recording given the model's counts. */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/options.h"
#include "model/model_inject.h"
#include "util/esc.h"

static const struct options_entry entries[] = {
	{'m', "model", "TABLE",
	 "the raw table of kprotperf's machine model (scripts/vm-run.sh\n"
	 "--model-out; vm-run.sh merges it by itself)"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf inject --model vm-out/model.txt vm-out/k.data",
	 "the instructions and cache misses the model counted while\n"
	 "kprotperf record --model -o k.data ran, into k.data"},
	{},
};

const struct options_cmd inject_options = {
	.name = "inject",
	.head = "Usage: kprotperf inject --model TABLE FILE...\n"
		"Merge the machine model's counts into the recording made while they were\n"
		"counted: kprotperf record --model in the VM, under scripts/vm-run.sh --model,\n"
		"which calls this itself with the recordings the guest left. Each FILE not\n"
		"recorded with --model is named and left as is; the one that is must be of the\n"
		"kernel build the table counted and have opened as many windows as the table\n"
		"counted. A FILE is replaced atomically: on any error it is left as it was.\n",
	.status = "0 when a FILE took the counts, 1 when none did or one failed (one line\n"
		  "on stderr each), 2 for a usage error.\n",
	.column = 23,
	.examples = examples,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	*(const char **)ctx = arg;
	return 0;
}

/* One FILE: 1 merged, 0 not a --model recording, -errno after saying why. */
static int inject_one(const char *table, const char *path)
{
	char why[512];
	int err = model_inject(table, path, why, sizeof(why));

	if (!err)
		return 1;
	if (err == -EINVAL && strstr(why, "not recorded with record --model")) {
		esc_printf(stderr, "kprotperf inject: %s: %s: left as is\n", path, why);
		return 0;
	}
	esc_printf(stderr, "kprotperf inject: %s: %s\n", path, why[0] ? why : strerror(-err));
	return err;
}

int cmd_inject(int argc, char **argv)
{
	const char *table = NULL;
	int i, ret, merged = 0, failed = 0;

	ret = options_parse(&inject_options, argc, argv, set_opt, &table);
	if (ret)
		return ret > 0 ? 0 : 2;
	if (!table || optind == argc) {
		fprintf(stderr,
			"kprotperf inject: give --model TABLE and the recordings (FILE...)\n");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		ret = inject_one(table, argv[i]);
		merged += ret > 0;
		failed += ret < 0;
	}
	if (!failed && !merged)
		fprintf(stderr, "kprotperf inject: no FILE was recorded with record --model\n");
	return failed || !merged;
}

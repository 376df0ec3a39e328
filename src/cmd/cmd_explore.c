// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf explore: its options, then the search or the replay. */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/options.h"
#include "explore/explore.h"

#define DEFAULT_RUNS 100

enum {
	O_TARGET = OPTIONS_LONG_ONLY,
	O_BUDGET,
	O_SEED,
	O_TEMPLATES,
	O_VMLINUX,
	O_SCENARIO_SECONDS,
	O_REPLAY,
	O_JSON,
};

static const struct options_entry entries[] = {
	{O_TARGET, "target", "FUNC",
	 "the kernel function whose cost to explore: timed\n"
	 "per call (--func) and counted block by block\n"
	 "(--blocks); a function inlined into all its callers\n"
	 "at each instance (needs the kernel's DWARF)"},
	{O_BUDGET, "budget", "TIME|RUNS",
	 "how long to search: a number of runs (default 100),\n"
	 "or a time with its unit (90s, 10m, 1h)"},
	{O_SEED, "seed", "N", "the search's seed (default 1): the same seed, the\nsame search"},
	{'o', "output", "DIR|FILE",
	 "the search's folder (default explore.out): corpus/\n"
	 "(the scenarios kept), findings/ (those that hung or\n"
	 "crashed), explore.data (the recording of every run);\n"
	 "with --replay, the data file (default kprotperf.data)"},
	{O_TEMPLATES, "templates", "FILE",
	 "the scenario templates instead of the built-in\nshare/explore.conf"},
	{O_VMLINUX, "vmlinux", "PATH",
	 "the kernel's vmlinux with DWARF (default: found by\n"
	 "build-id or under /usr/lib/debug/boot, /boot,\n"
	 "/lib/modules), for an inlined target and names"},
	{O_SCENARIO_SECONDS, "scenario-seconds", "N",
	 "each scenario's time (default 10), after which it\n"
	 "is killed and kept as a finding"},
	{O_REPLAY, "replay", "FILE",
	 "record one scenario file (of corpus/, say) as the\n"
	 "search does, into the data file -o names"},
	{'r', "repeat", "N", "with --replay: run it N times (default 1), as record -r"},
	{O_JSON, "json", NULL, "the result as one JSON object"},
	{'q', "quiet", NULL, "no progress line and no line per scenario kept"},
	{},
};

static const struct options_example examples[] = {
	{"sudo kprotperf explore --target shuffle_freelist --budget 10m",
	 "ten minutes of search for what makes shuffle_freelist cost"},
	{"sudo kprotperf explore --target shuffle_freelist --replay explore.out/corpus/0003.scn -r 5",
	 "one scenario kept, recorded five times"},
	{},
};

const struct options_cmd explore_options = {
	.name = "explore",
	.head = "Usage: kprotperf explore --target FUNC [OPTIONS]\n"
		"       kprotperf explore --target FUNC --replay FILE [-r N] [-o FILE]\n"
		"Search for the syscall workloads that drive a kernel function's cost: short\n"
		"scenarios of syscalls (share/explore.conf's templates: fork, mmap, pipe,\n"
		"open, setxattr, ...) run one after the other in a sandbox, each mutated\n"
		"from those kept; a scenario is kept when its run reaches a block of the\n"
		"function no run had, a context (slab cache, calling syscall) none had, or a\n"
		"new maximum of a block's executions, a loop's trips or the time per call.\n"
		"Then the contexts found, each with the scenario that made its calls cost\n"
		"the most. Needs root (or CAP_BPF, CAP_PERFMON and CAP_SYSLOG: see\n"
		"kprotperf-record(1)) and kprobes.\n",
	.column = 25,
	.examples = examples,
	.opts = entries,
};

static const struct options_number num_seed = {"--seed", 0, 18446744073709551615.0, true,
					       "expected a number, 0 to 2^64-1"};
static const struct options_number num_runs = {
	"--budget", 1, 1000000, true, "expected runs (1 to 1000000) or a time: 90s, 10m, 1h"};
static const struct options_number num_repeat = {"--repeat", 1, 100000, true,
						 "expected a number of runs, 1 to 100000"};
static const struct options_number num_seconds = {"--scenario-seconds", 1, 3600, true,
						  "expected seconds, 1 to 3600"};

/* RUNS, or TIME with its unit: s, m or h. */
static int budget(struct explore_opts *o, const char *arg)
{
	static const char units[] = "smh";
	static const double scale[] = {1, 60, 3600};
	size_t len = strlen(arg);
	const char *u = len ? strchr(units, arg[len - 1]) : NULL;
	char num[32];
	double v;
	int err;

	if (!u || !*u || len >= sizeof(num)) {
		err = options_num(&explore_options, &num_runs, arg, &v);
		o->runs = v;
		return err;
	}
	snprintf(num, sizeof(num), "%.*s", (int)len - 1, arg);
	err = options_num(&explore_options, &num_runs, num, &v);
	o->seconds = v * scale[u - units];
	o->runs = 0;
	return err;
}

static int set_opt(void *ctx, int key, const char *arg)
{
	struct explore_opts *o = ctx;
	double v;
	int err = 0;

	switch (key) {
	case O_TARGET:
		o->target = arg;
		break;
	case O_BUDGET:
		return budget(o, arg);
	case O_SEED:
		err = options_num(&explore_options, &num_seed, arg, &v);
		o->seed = strtoull(arg, NULL, 10);
		break;
	case 'o':
		o->dir = o->output = arg;
		break;
	case O_TEMPLATES:
		o->templates = arg;
		break;
	case O_VMLINUX:
		o->vmlinux = arg;
		break;
	case O_SCENARIO_SECONDS:
		err = options_num(&explore_options, &num_seconds, arg, &v);
		o->limit_s = v;
		break;
	case O_REPLAY:
		o->replay = arg;
		break;
	case 'r':
		err = options_num(&explore_options, &num_repeat, arg, &v);
		o->repeat = v;
		break;
	case O_JSON:
		o->json = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	}
	return err;
}

static int parse(int argc, char **argv, struct explore_opts *o)
{
	int err;

	*o = (struct explore_opts){.dir = "explore.out",
				   .output = "kprotperf.data",
				   .runs = DEFAULT_RUNS,
				   .seed = 1,
				   .repeat = 1,
				   .limit_s = 10};
	err = options_parse(&explore_options, argc, argv, set_opt, o);
	if (err)
		return err;
	if (cli_input(argc, argv, "explore", NULL))
		return -EINVAL;
	if (o->repeat > 1 && !o->replay) {
		fputs("kprotperf explore: -r N repeats a --replay; a search's runs are its "
		      "--budget\n",
		      stderr);
		return -EINVAL;
	}
	if (!o->target) {
		fputs("kprotperf explore: which kernel function? give --target FUNC (see kprotperf "
		      "explore --help)\n",
		      stderr);
		return -EINVAL;
	}
	return 0;
}

int cmd_explore(int argc, char **argv)
{
	char installed[PATH_MAX];
	struct explore_opts o;
	int err = parse(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : 2;
	o.templates = o.templates ?: cli_data_file("explore.conf", installed, sizeof(installed));
	return explore_run(&o);
}

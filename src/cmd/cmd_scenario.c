// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf scenario: its options, the templates and the scenario file
 * read, then the scenario run in its sandbox, whose exit status it exits
 * with.  kprotperf explore runs each scenario it tries this way.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h> /* optind */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/options.h"
#include "explore/scenario.h"
#include "util/esc.h"

struct scenario_opts {
	struct scn_limits lim;
	const char *templates;
	const char *file;
	bool list;
};

enum { O_SECONDS = OPTIONS_LONG_ONLY, O_MEM, O_PROCS, O_FILES, O_DIR, O_TEMPLATES, O_LIST };

static const struct options_entry entries[] = {
	{O_SECONDS, "seconds", "N",
	 "time for the whole scenario (default 10); then every\n"
	 "process of it is killed and the exit status is 124"},
	{O_MEM, "mem", "BYTES",
	 "address space each process of it may map beyond what\n"
	 "kprotperf has mapped, and the bytes its files may hold\n"
	 "all together (default 1073741824)"},
	{O_PROCS, "procs", "N",
	 "processes the user may have at once, all of the user's\n"
	 "counted (RLIMIT_NPROC, which root is exempt from;\n"
	 "default 256)"},
	{O_FILES, "files", "N", "open files per process (default 1024)"},
	{O_DIR, "dir", "DIR", "where the scratch folder is made (default $TMPDIR, else /tmp)"},
	{O_TEMPLATES, "templates", "FILE",
	 "the actions' templates instead of the built-in ones\n"
	 "(format: share/explore.conf)"},
	{O_LIST, "list", NULL, "print the templates' actions and parameters, and exit"},
	{'q', "quiet", NULL, "no line of the syscall errors counted, nor of $TMPDIR\nignored"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf scenario --list", "the actions and their parameters"},
	{"sudo kprotperf record -o s.data -- kprotperf scenario explore.out/corpus/0017.scn",
	 "a scenario explore kept, recorded"},
	{},
};

const struct options_cmd scenario_options = {
	.name = "scenario",
	.head = "Usage: kprotperf scenario [OPTIONS] FILE\n"
		"Run the scenario in FILE, the steps kprotperf explore tries: one a line, an\n"
		"action with a value for each of its parameters ('mmap count=16 size=65536\n"
		"shared=0 touch=1'; see --list). Its steps run in a sandbox: a process group\n"
		"of their own, no capabilities, the limits below, a new scratch folder as\n"
		"their working directory; at the end (Ctrl-C too) every process they started\n"
		"is killed and the folder removed. A syscall's error is no failure: the\n"
		"errors are counted and said in one line.\n",
	.status = "0, 1 when a step failed, 124 when the time was up, 128+N when signal\n"
		  "N stopped it, 2 for a usage error.\n",
	.column = 24,
	.examples = examples,
	.opts = entries,
};

static const struct options_number num_seconds = {"--seconds", 1, 86400, true,
						  "expected seconds, 1..86400"};
static const struct options_number num_mem = {"--mem", 1 << 24, 1LL << 40, true,
					      "expected bytes, 16777216..1099511627776"};
static const struct options_number num_procs = {"--procs", 1, 1 << 22, true,
						"expected processes, 1..4194304"};
/* the kernel's default nr_open: no process may have more */
static const struct options_number num_files = {"--files", 4, 1 << 20, true,
						"expected open files, 4..1048576"};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct scenario_opts *o = ctx;
	double v = 0;
	int err = 0;

	switch (key) {
	case O_SECONDS:
		err = options_num(&scenario_options, &num_seconds, arg, &v);
		o->lim.seconds = v;
		break;
	case O_MEM:
		err = options_num(&scenario_options, &num_mem, arg, &v);
		o->lim.mem = v;
		break;
	case O_PROCS:
		err = options_num(&scenario_options, &num_procs, arg, &v);
		o->lim.procs = v;
		break;
	case O_FILES:
		err = options_num(&scenario_options, &num_files, arg, &v);
		o->lim.files = v;
		break;
	case O_DIR:
		o->lim.dir = arg;
		break;
	case O_TEMPLATES:
		o->templates = arg;
		break;
	case O_LIST:
		o->list = true;
		break;
	case 'q':
		o->lim.quiet = true;
		break;
	}
	return err;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct scenario_opts *o)
{
	const char *bad = NULL;
	int err;

	*o = (struct scenario_opts){
		.lim = {.seconds = 10, .mem = 1ULL << 30, .procs = 256, .files = 1024},
	};
	err = options_parse(&scenario_options, argc, argv, set_opt, o);
	if (err)
		return err;
	if (o->list && optind < argc)
		bad = "--list reads no FILE";
	else if (!o->list && argc - optind != 1)
		bad = "needs one scenario FILE";
	if (bad) {
		fprintf(stderr, "kprotperf scenario: %s (see kprotperf scenario --help)\n", bad);
		return -EINVAL;
	}
	o->file = argv[optind];
	return 0;
}

/* The scenario in o->file run, or the templates listed: the exit status. */
static int run(const struct scenario_opts *o, const struct scn_templates *t)
{
	struct scenario s;
	char why[512];

	if (o->list) {
		scn_templates_print(t, stdout);
		if (!fflush(stdout))
			return 0;
		fprintf(stderr, "kprotperf scenario: %s\n", strerror(errno));
		return 1;
	}
	if (scn_read(t, o->file, &s, why, sizeof(why))) {
		esc_printf(stderr, "kprotperf scenario: %s\n", why);
		return 1;
	}
	return scenario_run(t, &s, &o->lim);
}

int cmd_scenario(int argc, char **argv)
{
	char why[512], installed[PATH_MAX];
	struct scn_templates *t;
	struct scenario_opts o;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	o.templates = o.templates ?: cli_data_file("explore.conf", installed, sizeof(installed));
	if (scn_templates_load(&t, o.templates, why, sizeof(why))) {
		esc_printf(stderr, "kprotperf scenario: %s\n", why);
		return 1;
	}
	err = run(&o, t);
	scn_templates_free(t);
	return err;
}

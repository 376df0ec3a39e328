// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf symbolize: its options, the vmlinux opened, then each address
 * printed in eu-addr2line's format by symbols/addr2line.c.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/options.h"
#include "symbols/addr2line.h"
#include "symbols/debuginfo.h"

struct sym_opts {
	const char *vmlinux;
	struct addr2line_opts out;
};

enum { O_SLIDE = OPTIONS_LONG_ONLY };

static const struct options_entry entries[] = {
	{'e', "vmlinux", "PATH", "vmlinux with DWARF (e.g. from linux-image-RELEASE-dbg)"},
	{'a', "addresses", NULL, "print each address (as 0x%016x) before its lines"},
	{'f', "functions", NULL, "print function names"},
	{'i', "inlines", NULL, "print the inline chain"},
	{'s', "basenames", NULL, "file names without their directories"},
	{O_SLIDE, "slide", "HEX",
	 "subtracted from every address (runtime minus link-time\n"
	 "address, e.g. from a KASLR kernel's /proc/kallsyms)"},
	{},
};

static const struct options_example examples[] = {
	{"echo ffffffff81234567 | kprotperf symbolize -e vmlinux -f -i",
	 "its function, source line and inline chain"},
	{"kprotperf symbolize -e vmlinux --slide 2e000000 ADDR...",
	 "addresses of a KASLR kernel, moved by its slide"},
	{},
};

const struct options_cmd symbolize_options = {
	.name = "symbolize",
	.head = "Usage: kprotperf symbolize --vmlinux PATH [OPTIONS] [ADDR...]\n"
		"Print the function and source line of each kernel address (hex, 0x optional;\n"
		"from stdin, one a line, unless given as arguments), from the DWARF of PATH,\n"
		"in eu-addr2line's format without columns: with -f a function line before\n"
		"each FILE:LINE line; with -i also the functions the code was inlined into,\n"
		"innermost first, each with its call site. ?? and ??:0 mark what is unknown.\n",
	.column = 23,
	.examples = examples,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct sym_opts *o = ctx;

	switch (key) {
	case 'e':
		o->vmlinux = arg;
		break;
	case 'a':
		o->out.addresses = true;
		break;
	case 'f':
		o->out.functions = true;
		break;
	case 'i':
		o->out.inlines = true;
		break;
	case 's':
		o->out.basenames = true;
		break;
	case O_SLIDE:
		if (addr2line_hex(arg, &o->out.slide)) {
			fprintf(stderr, "kprotperf symbolize: --slide wants hex, not '%s'\n", arg);
			return -EINVAL;
		}
		break;
	}
	return 0;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct sym_opts *o)
{
	int err;

	memset(o, 0, sizeof(*o));
	err = options_parse(&symbolize_options, argc, argv, set_opt, o);
	if (err)
		return err;
	if (!o->vmlinux) {
		fputs("kprotperf symbolize: --vmlinux PATH is required (see kprotperf symbolize "
		      "--help)\n",
		      stderr);
		return -EINVAL;
	}
	return 0;
}

/* The addresses given as arguments, else those read from stdin, one a line. */
static int print_all(struct addr2line *a, int argc, char **argv)
{
	size_t cap = 0;
	char *line = NULL;
	int err = 0;

	if (optind < argc) {
		for (; optind < argc && !err; optind++)
			err = addr2line_print(a, argv[optind]);
		return err;
	}
	while (!err && getline(&line, &cap, stdin) > 0) {
		if (line[strspn(line, " \t\r\n")])
			err = addr2line_print(a, line);
	}
	free(line);
	return err;
}

/* The release the -dbg package is named after: vmlinux-RELEASE's, else the running kernel's. */
static const char *guess_release(const char *path, struct utsname *u)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (!strncmp(base, "vmlinux-", 8) && base[8])
		return base + 8;
	return uname(u) ? NULL : u->release;
}

static void open_error(const char *path, int err)
{
	struct utsname u;
	char why[512];

	debuginfo_explain(err, path, guess_release(path, &u), why, sizeof(why));
	fprintf(stderr, "kprotperf symbolize: %s\n", why);
}

int cmd_symbolize(int argc, char **argv)
{
	struct addr2line *a = NULL;
	struct debuginfo *di;
	struct sym_opts o;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	err = debuginfo_open(&di, o.vmlinux);
	if (err) {
		open_error(o.vmlinux, err);
		return 1;
	}
	err = addr2line_new(&a, di, o.vmlinux, &o.out) ?: print_all(a, argc, argv);
	if (!err && fflush(stdout))
		err = -errno;
	if (err)
		fprintf(stderr, "kprotperf symbolize: %s\n", strerror(-err));
	addr2line_free(a);
	debuginfo_close(di);
	return err ? 1 : 0;
}

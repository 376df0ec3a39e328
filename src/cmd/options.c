// SPDX-License-Identifier: GPL-2.0-only
/*
 * The subcommands' option tables: getopt_long's arrays built from them,
 * --help printed from them, and the usage errors every command shares.
 */
#include "cmd/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options in a table at most, -h, --help included. */
#define OPTIONS_MAX 32

/* Every command's last option. */
static const struct options_entry help_entry = {'h', "help", NULL, "this text"};

void options_column(FILE *f, int n, int column, const char *text)
{
	fprintf(f, "%*s", n < column ? column - n : 2, "");
	for (; *text; text++) {
		fputc(*text, f);
		if (*text == '\n')
			fprintf(f, "%*s", column, "");
	}
	fputc('\n', f);
}

static void print_entry(const struct options_cmd *cmd, const struct options_entry *e)
{
	int n;

	if (e->key < OPTIONS_LONG_ONLY)
		n = printf("  -%c, --%s", e->key, e->name);
	else
		n = printf("      --%s", e->name);
	if (e->arg)
		n += printf(" %s", e->arg);
	options_column(stdout, n, cmd->column, e->help);
}

const char options_status_default[] = "0 when it succeeded, 1 when it failed (one line on stderr\n"
				      "says why), 2 for a usage error.\n";

const struct options_entry *options_next(const struct options_cmd *cmd,
					 const struct options_entry *prev)
{
	if (prev == &help_entry)
		return NULL;
	prev = prev ? prev + 1 : cmd->opts;
	return prev->name ? prev : &help_entry;
}

/* Each example's line, then what it does indented below it. */
static void print_examples(const struct options_example *ex)
{
	fputs("Examples:\n", stdout);
	for (; ex->line; ex++) {
		printf("  %s\n", ex->line);
		options_column(stdout, 0, 6, ex->what);
	}
}

static void print_help(const struct options_cmd *cmd)
{
	const struct options_entry *e = NULL;

	fputs(cmd->head, stdout);
	while ((e = options_next(cmd, e)))
		print_entry(cmd, e);
	if (cmd->foot)
		fputs(cmd->foot, stdout);
	if (cmd->examples)
		print_examples(cmd->examples);
	printf("Exit status: %s", cmd->status ?: options_status_default);
}

static void add_getopt(const struct options_entry *e, struct option *lo, char **s)
{
	*lo = (struct option){e->name, e->arg ? required_argument : no_argument, NULL, e->key};
	if (e->key >= OPTIONS_LONG_ONLY)
		return;
	*(*s)++ = e->key;
	if (e->arg)
		*(*s)++ = ':';
}

/* getopt_long's arrays for cmd's table, or -E2BIG for a table longer than OPTIONS_MAX. */
static int build_getopt(const struct options_cmd *cmd, struct option *longopts, char *shortopts)
{
	const struct options_entry *e;
	char *s = shortopts;
	int n = 0;

	if (cmd->in_order)
		*s++ = '+';
	/* missing arguments as ':', not '?', and no message from getopt */
	*s++ = ':';
	for (e = cmd->opts; e->name; e++) {
		if (n == OPTIONS_MAX - 1)
			return -E2BIG;
		add_getopt(e, &longopts[n++], &s);
	}
	add_getopt(&help_entry, &longopts[n++], &s);
	longopts[n] = (struct option){};
	*s = '\0';
	return 0;
}

int options_parse(const struct options_cmd *cmd, int argc, char **argv, options_set_fn *set,
		  void *ctx)
{
	struct option longopts[OPTIONS_MAX + 1];
	char shortopts[2 * OPTIONS_MAX + 3];
	int c, err;

	err = build_getopt(cmd, longopts, shortopts);
	if (err) {
		fprintf(stderr, "kprotperf %s: too many options for the table\n", cmd->name);
		return -EINVAL;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			print_help(cmd);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "kprotperf %s: %s '%s' (see kprotperf %s --help)\n",
				cmd->name, c == ':' ? "missing argument to" : "unknown option",
				argv[optind - 1], cmd->name);
			return -EINVAL;
		}
		err = set(ctx, c, optarg);
		if (err)
			return err;
	}
	return 0;
}

const struct options_number options_top = {"-n", 1, 1000000, true,
					   "expected a number of rows, 1..1000000"};

/* Whether s is spelled as n accepts: strtod alone takes " -0x1p3", "inf" and "nan". */
static bool number_spelling(const char *s, bool integer)
{
	const char *chars = integer ? "0123456789" : "0123456789.eE+-";

	return (*s >= '0' && *s <= '9') || (*s == '.' && !integer) ? !s[strspn(s, chars)] : false;
}

int options_num(const struct options_cmd *cmd, const struct options_number *n, const char *arg,
		double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!number_spelling(arg, n->integer) || errno || end == arg || *end || v < n->lo ||
	    v > n->hi) {
		fprintf(stderr, "kprotperf %s: invalid %s '%s': %s\n", cmd->name, n->name, arg,
			n->want);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A subcommand's options as one table: it gives getopt_long its long options
 * and short-option string, prints --help, and handles -h, unknown options and
 * missing arguments the same way for every command.  The same table makes
 * the command's man page and shell completion's lists (kprotperf help).
 */
#ifndef KP_OPTIONS_H
#define KP_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

/* Keys of options without a short letter start here (getopt_long's own convention). */
#define OPTIONS_LONG_ONLY 256

struct options_entry {
	int key;	  /* the short option's letter, or OPTIONS_LONG_ONLY + n */
	const char *name; /* the long option, without "--" */
	const char *arg;  /* its argument's name in --help; NULL: it takes none */
	/* the --help text; each further line after a '\n' is indented to the column */
	const char *help;
};

/* A command line of --help's and the man page's examples, and what it does. */
struct options_example {
	const char *line;
	const char *what;
};

/*
 * head is "Usage: kprotperf NAME ..." lines (further ones indented), then
 * the description: paragraphs split by an empty line, a line indented by
 * two spaces shown as is (a command line).
 */
struct options_cmd {
	const char *name; /* the subcommand, for "kprotperf NAME: ..." */
	const char *head; /* --help before the options: synopsis and description */
	const char *foot; /* --help after them (the man page's NOTES), or NULL */
	/* the exit status when not options_status_default, e.g. the workload's */
	const char *status;
	const struct options_example *examples; /* ends with a NULL line; NULL: none */
	int column;				/* where the options' help texts start */
	bool in_order; /* options end at the first operand (record's -- CMD [ARGS...]) */
	const struct options_entry *opts; /* ends with an entry whose name is NULL */
};

/* What the exit status of a command means unless its table says otherwise. */
extern const char options_status_default[];

/* The option after prev in cmd's table (the first for NULL), -h, --help last; then NULL. */
const struct options_entry *options_next(const struct options_cmd *cmd,
					 const struct options_entry *prev);

/* Called for each option found, with its key and argument; 0 or -EINVAL after printing why. */
typedef int options_set_fn(void *ctx, int key, const char *arg);

/*
 * Parse argv[1..] with cmd's table, calling set for each option (-h, --help
 * excepted: the table's --help is printed).  Returns 0 with optind at the
 * first operand, 1 after --help, or -EINVAL after printing the usage error.
 */
int options_parse(const struct options_cmd *cmd, int argc, char **argv, options_set_fn *set,
		  void *ctx);

/*
 * One row of a two-column listing, its first n columns already printed to f:
 * text at column, or two spaces further when the row is already past it,
 * each further line of text indented to column.
 */
void options_column(FILE *f, int n, int column, const char *text);

/* A numeric option's argument: what is accepted, and what the error says. */
struct options_number {
	const char *name; /* as the error names it: "frequency", "-n", "--repeat" */
	double lo, hi;	  /* the range, both included */
	bool integer;	  /* whole decimal numbers only (no sign, point or exponent) */
	const char *want; /* what is expected, e.g. "expected 1..100000 Hz" */
};

/*
 * Every numeric option of every command goes through this one parser: arg
 * is all digits (with a decimal point or exponent when !integer), with no
 * sign, spaces, hex, inf or nan, and from lo to hi.  0 with *out set, or
 * -EINVAL after printing "kprotperf CMD: invalid NAME 'ARG': WANT".
 */
int options_num(const struct options_cmd *cmd, const struct options_number *n, const char *arg,
		double *out);

/* -n, --top N of the commands that print tables: rows per table. */
extern const struct options_number options_top;

#endif

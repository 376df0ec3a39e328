/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A subcommand's options as one table: it gives getopt_long its long options
 * and short-option string, prints --help, and handles -h, unknown options and
 * missing arguments the same way for every command.  The same table is meant
 * to generate man pages and shell completion.
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

struct options_cmd {
	const char *name; /* the subcommand, for "kprotperf NAME: ..." */
	const char *head; /* --help before the options: synopsis and description */
	const char *foot; /* --help after them, or NULL */
	int column;	  /* where the options' help texts start */
	bool in_order;	  /* options end at the first operand (record's -- CMD [ARGS...]) */
	const struct options_entry *opts; /* ends with an entry whose name is NULL */
};

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

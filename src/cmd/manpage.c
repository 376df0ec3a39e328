// SPDX-License-Identifier: GPL-2.0-only
/*
 * The man pages' scdoc source, written from the commands' table and their
 * option tables: what --help says, the man page says (kprotperf help --scdoc).
 */
#include "cmd/manpage.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/options.h"

/* s up to end, each character of special escaped with a backslash. */
static void put_escaped(FILE *f, const char *s, const char *end, const char *special)
{
	for (; s < end; s++) {
		if (strchr(special, *s))
			fputc('\\', f);
		fputc(*s, f);
	}
}

/*
 * s up to end, a line's start, with scdoc's formatting characters escaped:
 * those of bold and underline anywhere, those of lists, headings and
 * tables at the start.
 */
static void put_text(FILE *f, const char *s, const char *end)
{
	if (s < end && strchr("-.#|:[", *s))
		fputc('\\', f);
	put_escaped(f, s, end, "*_\\");
}

static void put_str(FILE *f, const char *s)
{
	put_text(f, s, s + strlen(s));
}

/* A --help text with lines broken for the terminal, prefixed by indent each. */
static void put_lines(FILE *f, const char *s, const char *indent)
{
	const char *nl;

	for (; *s; s = *nl ? nl + 1 : nl) {
		nl = strchrnul(s, '\n');
		fputs(indent, f);
		put_text(f, s, nl);
		fputc('\n', f);
	}
}

/* head's "Usage:" lines, the command in bold, one a line: the rest of head. */
static const char *put_synopsis(FILE *f, const char *head)
{
	const char *s = head + strlen("Usage: "), *nl, *args;
	bool more;

	fputs("# SYNOPSIS\n\n", f);
	do {
		nl = strchrnul(s, '\n');
		s += strspn(s, " ");
		args = strchr(strchr(s, ' ') + 1, ' ');
		if (!args || args > nl)
			args = nl;
		fputc('*', f);
		put_text(f, s, args);
		fputc('*', f);
		put_text(f, args, nl);
		s = *nl ? nl + 1 : nl;
		more = !strncmp(s, "       kprotperf", 16);
		fputs(more ? "++\n" : "\n\n", f);
	} while (more);
	return s;
}

/* Paragraphs of --help text, command lines (indented two spaces) kept as they are. */
static void put_prose(FILE *f, const char *s)
{
	bool literal = false, is;
	const char *nl;

	for (; *s; s = *nl ? nl + 1 : nl) {
		nl = strchrnul(s, '\n');
		is = !strncmp(s, "  ", 2);
		if (is != literal)
			fputs(is ? "\n```\n" : "```\n\n", f);
		literal = is;
		if (is)
			/* shown as is, but for the backslash scdoc takes as an escape there too */
			put_escaped(f, s + 2, nl, "\\");
		else
			put_text(f, s, nl);
		fputc('\n', f);
	}
	fputs(literal ? "```\n\n" : "\n", f);
}

static void put_options(FILE *f, const struct options_cmd *cmd)
{
	const struct options_entry *e = NULL;

	fputs("# OPTIONS\n\n", f);
	while ((e = options_next(cmd, e))) {
		if (e->key < OPTIONS_LONG_ONLY)
			fprintf(f, "*-%c*, ", e->key);
		fputs("*--", f);
		put_str(f, e->name);
		fputc('*', f);
		if (e->arg) {
			fputs(" _", f);
			put_str(f, e->arg);
			fputc('_', f);
		}
		fputc('\n', f);
		put_lines(f, e->help, "\t");
		fputc('\n', f);
	}
}

static void put_examples(FILE *f, const struct options_example *ex)
{
	fputs("# EXAMPLES\n\n", f);
	for (; ex->line; ex++) {
		fputc('*', f);
		put_str(f, ex->line);
		fputs("*\n", f);
		put_lines(f, ex->what, "\t");
		fputc('\n', f);
	}
}

/* SEE ALSO: kprotperf(1) and every command's page but self's (NULL: kprotperf(1)). */
static void put_see_also(FILE *f, const struct command *self, const struct command *cmds, size_t n)
{
	size_t i;

	fputs("# SEE ALSO\n\n", f);
	if (self)
		fputs("*kprotperf*(1), ", f);
	for (i = 0; i < n; i++)
		if (&cmds[i] != self)
			fprintf(f, "*kprotperf-%s*(1), ", cmds[i].name);
	fputs("*perf*(1), *bpftrace*(8), *flamegraph.pl*\n", f);
}

static void put_command_page(FILE *f, const struct command *c, const struct command *cmds, size_t n)
{
	const struct options_cmd *o = c->opts;
	const char *description;

	fprintf(f, "kprotperf-%s(1) \"kprotperf %s\"\n\n# NAME\n\nkprotperf-%s - ", c->name,
		KPROTPERF_VERSION, c->name);
	put_str(f, c->summary);
	fputs("\n\n", f);
	description = put_synopsis(f, o->head);

	fputs("# DESCRIPTION\n\n", f);
	put_prose(f, description);
	put_options(f, o);
	if (o->foot) {
		fputs("# NOTES\n\n", f);
		put_prose(f, o->foot);
	}
	if (o->examples)
		put_examples(f, o->examples);
	fputs("# EXIT STATUS\n\n", f);
	put_lines(f, o->status ?: options_status_default, "");
	fputc('\n', f);
	put_see_also(f, c, cmds, n);
}

/* kprotperf(1): what kprotperf does, its commands, then what no one command owns. */
static void put_main_page(FILE *f, const struct command *cmds, size_t n)
{
	size_t i;

	fprintf(f, "kprotperf(1) \"kprotperf %s\"\n\n%s", KPROTPERF_VERSION, manpage_main_head);
	for (i = 0; i < n; i++) {
		fprintf(f, "*kprotperf-%s*(1)\n\t", cmds[i].name);
		put_str(f, cmds[i].summary);
		fputs("\n\n", f);
	}
	fputs(manpage_main_rest, f);
	fputs("# EXIT STATUS\n\n", f);
	put_lines(f, options_status_default, "");
	fputs("*kprotperf record* exits with the recorded command's status: see "
	      "*kprotperf-record*(1).\n\n",
	      f);
	put_see_also(f, NULL, cmds, n);
}

void manpage_write(FILE *f, const struct command *c, const struct command *cmds, size_t n)
{
	if (c)
		put_command_page(f, c, cmds, n);
	else
		put_main_page(f, cmds, n);
}

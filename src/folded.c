// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf folded: one line per distinct stack, "comm;user;...;kernel_[k] N",
 * root first, as flamegraph.pl and speedscope read it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datafile.h"
#include "folded.h"
#include "stacks.h"

struct folded_opts {
	const char *input;
	bool user, kernel; /* which frames to keep */
};

struct folder {
	struct df *df;
	const struct folded_opts *o;
	sqlite3_stmt *frames;
};

static const char usage[] =
	"Usage: kprotperf folded [OPTIONS] [FILE]\n"
	"Print the CPU samples of a recording (FILE, default kprotperf.data) as folded\n"
	"stacks, one line per distinct stack: comm;user frames;kernel frames COUNT,\n"
	"root first, kernel frames marked _[k]. Pipe into flamegraph.pl:\n"
	"  kprotperf folded k.data | flamegraph.pl > k.svg\n"
	"  -i, --input FILE   the data file (same as the FILE argument)\n"
	"  -K, --kernel-only  keep only kernel frames\n"
	"  -U, --user-only    keep only user frames\n"
	"  -h, --help         this text\n";

/* Appends the frames of one stack, root first; space is 'k' or 'u'. */
static int append_stack(struct folder *fo, FILE *line, const char *space, long long stack)
{
	sqlite3_stmt *st = fo->frames;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, space, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, stack);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(line, ";%s%s", sqlite3_column_text(st, 0), *space == 'k' ? "_[k]" : "");
	return df_errno(rc);
}

static int fold_row(sqlite3_stmt *row, void *ctx)
{
	struct folder *fo = ctx;
	char *buf = NULL;
	size_t len = 0;
	FILE *line = open_memstream(&buf, &len);
	int err = 0;

	if (!line)
		return -errno;
	fputs((const char *)sqlite3_column_text(row, 0), line);
	if (fo->o->user && sqlite3_column_type(row, 1) != SQLITE_NULL) {
		if (sqlite3_column_int64(row, 1) < 0)
			fputs(";[unknown]", line);
		else
			err = append_stack(fo, line, "u", sqlite3_column_int64(row, 1));
	}
	if (!err && fo->o->kernel && sqlite3_column_type(row, 2) != SQLITE_NULL) {
		if (sqlite3_column_int64(row, 2) < 0)
			fputs(";[kernel stack lost]_[k]", line);
		else
			err = append_stack(fo, line, "k", sqlite3_column_int64(row, 2));
	}
	fclose(line);
	if (!err)
		err = df_insert(fo->df, "INSERT INTO folded VALUES(?,?)", "ti", buf,
				sqlite3_column_int64(row, 3));
	free(buf);
	return err;
}

static int print_line(sqlite3_stmt *st, void *ctx)
{
	printf("%s %lld\n", sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1));
	return 0;
}

/* Different stack ids can print the same line: they are merged by the GROUP BY. */
static int fold(struct folder *fo)
{
	sqlite3 *db = df_db(fo->df);
	int rc, err;

	rc = sqlite3_exec(db, "CREATE TEMP TABLE folded(line TEXT, n INTEGER)", NULL, NULL, NULL);
	rc = rc
		     ?: sqlite3_prepare_v2(db,
					   "SELECT name FROM frames WHERE space = ? AND stack = ?"
					   " ORDER BY depth DESC",
					   -1, &fo->frames, NULL);
	if (rc != SQLITE_OK)
		return df_errno(rc);
	err = df_each_row(fo->df,
			  "SELECT comm, ustack, kstack, SUM(count) FROM samples"
			  " GROUP BY comm, ustack, kstack",
			  fold_row, fo);
	sqlite3_finalize(fo->frames);
	return err
		       ?: df_each_row(fo->df,
				      "SELECT line, SUM(n) FROM folded GROUP BY line"
				      " ORDER BY line",
				      print_line, NULL);
}

static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'},
	{"kernel-only", no_argument, NULL, 'K'},
	{"user-only", no_argument, NULL, 'U'},
	{"help", no_argument, NULL, 'h'},
	{},
};

static int parse(int argc, char **argv, struct folded_opts *o)
{
	int c;

	*o = (struct folded_opts){.input = "kprotperf.data", .user = true, .kernel = true};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:KUh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'K':
			o->user = false;
			break;
		case 'U':
			o->kernel = false;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			return cli_bad_option("folded", c, argv[optind - 1]);
		}
	}
	if (!o->user && !o->kernel) {
		fputs("kprotperf folded: -K and -U exclude each other\n", stderr);
		return -EINVAL;
	}
	return cli_input(argc, argv, "folded", &o->input);
}

int cmd_folded(int argc, char **argv)
{
	struct folded_opts o;
	struct folder fo = {.o = &o};
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_open("folded", o.input, &fo.df))
		return 1;
	err = stacks_name_frames(fo.df) ?: fold(&fo);
	if (err)
		fprintf(stderr, "kprotperf folded: reading %s: %s\n", o.input, strerror(-err));
	df_close(fo.df);
	return err ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf folded: one line per distinct stack, "comm;user;...;kernel_[k] N",
 * root first, as flamegraph.pl and speedscope read it.  N is a sample count,
 * or with --weight latency the ns spent in a probed function entered from
 * that kernel stack (the line then starts with the function's name).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "data/datafile.h"
#include "report/folded.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"

enum weight { W_UNSET, W_SAMPLES, W_LATENCY };

struct folded_opts {
	const char *input;
	const char *func;    /* --func: only this probed function's stacks */
	const char *vmlinux; /* --vmlinux */
	enum weight weight;
	struct folded_frames fr;
};

struct folder {
	struct df *df;
	const struct folded_frames *o;
	bool cut; /* the first column is a probed function: cut the stack there */
	sqlite3_stmt *frames;
	folded_fn fn;
	void *ctx;
};

static const char usage[] =
	"Usage: kprotperf folded [OPTIONS] [FILE]\n"
	"Print the CPU samples of a recording (FILE, default kprotperf.data) as folded\n"
	"stacks, one line per distinct stack: comm;user frames;kernel frames COUNT,\n"
	"root first, kernel frames marked _[k], functions the compiler inlined there\n"
	"marked _[i] (from the kernel's DWARF). Pipe into flamegraph.pl:\n"
	"  kprotperf folded k.data | flamegraph.pl --colors=java > k.svg\n"
	"With --weight latency, the kernel stacks the functions probed by record --func\n"
	"were entered from instead: function;kernel frames NS, weighted by the ns spent\n"
	"in the function:\n"
	"  kprotperf folded --weight latency k.data | flamegraph.pl --countname ns > f.svg\n"
	"  -i, --input FILE   the data file (same as the FILE argument)\n"
	"  -K, --kernel-only  keep only kernel frames\n"
	"  -U, --user-only    keep only user frames\n"
	"      --weight W     samples (default: CPU samples) or latency (probed functions)\n"
	"      --func NAME    only probed function NAME (implies --weight latency)\n"
	"      --no-inline    no inline frames\n"
	"      --srcline      kernel frames as function:file:line\n"
	"      --vmlinux PATH the recorded kernel's vmlinux with DWARF (default: found by\n"
	"                     build-id, or under /usr/lib/debug/boot, /boot, /lib/modules)\n"
	"  -h, --help         this text\n";

/* Whether frame is function func or one of its clones (func.isra.0, ...). */
static bool is_func(const char *frame, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(frame, func, n) && (!frame[n] || frame[n] == '.');
}

/*
 * Appends the frames of one stack, root first; space is 'k' or 'u'.  With
 * cut, *cut_at is where the leafmost frame of that function ends: what lies
 * beyond is the probe's own machinery (BPF program, trampoline).
 */
static int append_stack(struct folder *fo, FILE *line, const char *space, long long stack,
			const char *cut, long *cut_at)
{
	sqlite3_stmt *st = fo->frames;
	const char *name;
	bool inl;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, space, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, stack);
	sqlite3_bind_int(st, 3, fo->o->inlines);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		inl = sqlite3_column_int(st, 1);
		fprintf(line, ";%s", name);
		if (fo->o->srcline && sqlite3_column_type(st, 2) != SQLITE_NULL)
			fprintf(line, ":%s:%d", sqlite3_column_text(st, 2),
				sqlite3_column_int(st, 3));
		fputs(*space != 'k' ? "" : inl ? "_[i]" : "_[k]", line);
		if (cut && is_func(name, cut))
			*cut_at = ftell(line);
	}
	return df_errno(rc);
}

static int fold_row(sqlite3_stmt *row, void *ctx)
{
	struct folder *fo = ctx;
	const char *cut = fo->cut ? (const char *)sqlite3_column_text(row, 0) : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *line = open_memstream(&buf, &len);
	long cut_at = -1;
	int err = 0;

	if (!line)
		return -errno;
	fputs((const char *)sqlite3_column_text(row, 0), line);
	if (fo->o->user && sqlite3_column_type(row, 1) != SQLITE_NULL) {
		if (sqlite3_column_int64(row, 1) < 0)
			fputs(";[unknown]", line);
		else
			err = append_stack(fo, line, "u", sqlite3_column_int64(row, 1), NULL, NULL);
	}
	if (!err && fo->o->kernel && sqlite3_column_type(row, 2) != SQLITE_NULL) {
		if (sqlite3_column_int64(row, 2) < 0)
			fputs(";[kernel stack lost]_[k]", line);
		else
			err = append_stack(fo, line, "k", sqlite3_column_int64(row, 2), cut,
					   &cut_at);
	}
	fclose(line);
	if (cut_at >= 0)
		buf[cut_at] = 0;
	if (!err)
		err = df_insert(fo->df, "INSERT INTO folded VALUES(?,?)", "ti", buf,
				sqlite3_column_int64(row, 3));
	free(buf);
	return err;
}

static int emit_line(sqlite3_stmt *st, void *ctx)
{
	struct folder *fo = ctx;

	return fo->fn((const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
		      fo->ctx);
}

static int print_line(const char *line, long long n, void *ctx)
{
	printf("%s %lld\n", line, n);
	return 0;
}

static const char samples_sql[] =
	"SELECT comm, ustack, kstack, SUM(count) FROM samples GROUP BY comm, ustack, kstack";
/*
 * Shaped like samples_sql, the function standing where the comm does.  Both
 * %Q are the function asked for (by name or symbol probed), NULL for all.
 */
#define FUNC_FILTER " WHERE %Q IS NULL OR %Q IN (f.name, f.symbol)"
static const char func_stacks_sql[] = "SELECT f.name, NULL, s.kstack, s.total_ns FROM"
				      " func_stacks s JOIN funcs f ON f.id = s.func" FUNC_FILTER;

/* Different stack ids can print the same line: they are merged by the GROUP BY. */
static int fold(struct folder *fo, const char *sql)
{
	sqlite3 *db = df_db(fo->df);
	int rc, err;

	rc = sqlite3_exec(db, "CREATE TEMP TABLE folded(line TEXT, n INTEGER)", NULL, NULL, NULL);
	rc = rc
		     ?: sqlite3_prepare_v2(
				db,
				"SELECT name, inl, file, line FROM frames WHERE space = ?"
				" AND stack = ? AND (?3 OR sub = 0)"
				" ORDER BY depth DESC, sub",
				-1, &fo->frames, NULL);
	if (rc != SQLITE_OK)
		return df_errno(rc);
	err = df_each_row(fo->df, sql, fold_row, fo);
	sqlite3_finalize(fo->frames);
	/* calls that never returned weigh nothing */
	return err
		       ?: df_each_row(fo->df,
				      "SELECT line, SUM(n) FROM folded GROUP BY line"
				      " HAVING SUM(n) > 0 ORDER BY line",
				      emit_line, fo);
}

int folded_samples(struct df *df, const struct folded_frames *o, folded_fn fn, void *ctx)
{
	struct folder fo = {.df = df, .o = o, .fn = fn, .ctx = ctx};

	return fold(&fo, samples_sql);
}

static int first_int(sqlite3_stmt *st, void *n)
{
	*(long long *)n = sqlite3_column_int64(st, 0);
	return 0;
}

/* How many probed functions match func (all if NULL), or -errno. */
static long long count_funcs(struct df *df, const char *func)
{
	char *sql = sqlite3_mprintf("SELECT COUNT(*) FROM funcs f" FUNC_FILTER, func, func);
	long long n = 0;
	int err;

	if (!sql)
		return -ENOMEM;
	err = df_each_row(df, sql, first_int, &n);
	sqlite3_free(sql);
	return err ?: n;
}

/* The rows to fold for --weight latency; 1 after saying why there are none, or -errno. */
static int func_rows_sql(struct df *df, const struct folded_opts *o, char **sql)
{
	long long all = count_funcs(df, NULL), n = o->func ? count_funcs(df, o->func) : all;

	if (all < 0 || n < 0)
		return all < 0 ? all : n;
	if (!all) {
		fprintf(stderr,
			"kprotperf folded: %s has no --func data (no probed functions): record "
			"with kprotperf record --func NAME, or fold its samples (--weight samples)\n",
			o->input);
		return 1;
	}
	if (!n) {
		fprintf(stderr,
			"kprotperf folded: no probed function named '%s' in %s (see the FUNCTION "
			"column of kprotperf report)\n",
			o->func, o->input);
		return 1;
	}
	*sql = sqlite3_mprintf(func_stacks_sql, o->func, o->func);
	return *sql ? 0 : -ENOMEM;
}

static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'}, {"kernel-only", no_argument, NULL, 'K'},
	{"user-only", no_argument, NULL, 'U'},	 {"weight", required_argument, NULL, 'w'},
	{"func", required_argument, NULL, 'f'},	 {"no-inline", no_argument, NULL, 'n'},
	{"srcline", no_argument, NULL, 's'},	 {"vmlinux", required_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},	 {},
};

static int parse_weight(const char *arg, enum weight *w)
{
	if (!strcmp(arg, "samples") || !strcmp(arg, "latency")) {
		*w = !strcmp(arg, "samples") ? W_SAMPLES : W_LATENCY;
		return 0;
	}
	fprintf(stderr,
		"kprotperf folded: unknown weight '%s': samples (CPU samples) or latency "
		"(time in the functions probed by record --func)\n",
		arg);
	return -EINVAL;
}

/* Which frames and weights: the options that exclude each other, or what --func implies. */
static int check_opts(struct folded_opts *o)
{
	const char *why = NULL;

	if (o->weight == W_UNSET)
		o->weight = o->func ? W_LATENCY : W_SAMPLES;
	if (!o->fr.user && !o->fr.kernel)
		why = "-K and -U exclude each other";
	else if (o->func && o->weight == W_SAMPLES)
		why = "--func selects probed function stacks: it needs --weight latency";
	else if (!o->fr.kernel && o->weight == W_LATENCY)
		why = "-U keeps no frames of --weight latency (probed functions have only "
		      "kernel stacks)";
	if (why)
		fprintf(stderr, "kprotperf folded: %s\n", why);
	return why ? -EINVAL : 0;
}

static int parse(int argc, char **argv, struct folded_opts *o)
{
	int c;

	*o = (struct folded_opts){.input = "kprotperf.data",
				  .fr = {.user = true, .kernel = true, .inlines = true}};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:KUh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'K':
			o->fr.user = false;
			break;
		case 'U':
			o->fr.kernel = false;
			break;
		case 'w':
			if (parse_weight(optarg, &o->weight))
				return -EINVAL;
			break;
		case 'f':
			o->func = optarg;
			break;
		case 'n':
			o->fr.inlines = false;
			break;
		case 's':
			o->fr.srcline = true;
			break;
		case 'v':
			o->vmlinux = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			return cli_bad_option("folded", c, argv[optind - 1]);
		}
	}
	return check_opts(o) ?: cli_input(argc, argv, "folded", &o->input);
}

int cmd_folded(int argc, char **argv)
{
	struct folded_opts o;
	struct folder fo = {.o = &o.fr, .fn = print_line};
	struct kernel_dwarf *kd = NULL;
	char *sql = NULL;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_open("folded", o.input, &fo.df))
		return 1;
	fo.cut = o.weight == W_LATENCY;
	if (fo.cut)
		err = func_rows_sql(fo.df, &o, &sql);
	if (!err && (o.fr.inlines || o.fr.srcline) && o.fr.kernel)
		err = cli_kdebug("folded", fo.df, o.vmlinux,
				 o.fr.srcline ? "note: no kernel source lines" : NULL, &kd, NULL, 0)
			      ? 1
			      : 0;
	if (!err)
		err = stacks_name_frames(fo.df, kd) ?: fold(&fo, sql ?: samples_sql);
	if (err < 0)
		fprintf(stderr, "kprotperf folded: reading %s: %s\n", o.input, strerror(-err));
	sqlite3_free(sql);
	kernel_dwarf_close(kd);
	df_close(fo.df);
	return err ? 1 : 0;
}

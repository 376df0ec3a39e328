/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data file: one SQLite database per recording (schema in README.md).
 * Written to a temporary file beside the target and renamed into place on
 * commit, so a reader never sees a half-written file.
 */
#ifndef KP_DATAFILE_H
#define KP_DATAFILE_H

#include <sqlite3.h>
#include <stddef.h>
#include <sys/types.h>

#define KP_SCHEMA_VERSION 4
/* the oldest schema report still reads */
#define KP_SCHEMA_OLDEST  2
#define KP_APPLICATION_ID 0x4b505046 /* "KPPF" */
/* record's CPU-clock sampling rate without -F; older files do not say theirs */
#define KP_DEFAULT_FREQ_HZ 99

struct df;

int df_create(struct df **out, const char *path);
/*
 * Insert one row: types is one letter per column, i (int64), t (text, NULL
 * pointer stores NULL), d (double); the values follow.  Statements are cached.
 */
int df_insert(struct df *df, const char *sql, const char *types, ...);
/* Make the file durable, give it to uid/gid (-1: keep), mode 0600, rename into place. */
int df_commit(struct df *df, uid_t uid, gid_t gid);
/* Drop an uncommitted file. */
void df_abort(struct df *df);

/*
 * Open for reading.  On failure, why says what is wrong with the file, or is
 * "" when the error (-errno: -ENOENT, ...) says it all.
 */
int df_open(struct df **out, const char *path, char *why, size_t len);
sqlite3 *df_db(struct df *df);
/* Run sql, calling fn on each row until it returns non-zero: that value, or -errno. */
int df_each_row(struct df *df, const char *sql, int (*fn)(sqlite3_stmt *st, void *ctx), void *ctx);
const char *df_meta(struct df *df, const char *key);
/* ns per CPU sample: 1e9 / meta sampling.freq_hz, record's default rate when absent. */
double df_sample_period_ns(struct df *df);
/* Step st, whose rows are (bucket, count), into hist[n] (zeroed first); finalizes st. */
int df_hist_rows(sqlite3_stmt *st, unsigned long long *hist, size_t n);
/* The first column of the first row of sql, whose one parameter (if any) is arg; 0 if none. */
long long df_scalar(struct df *df, const char *sql, const char *arg);
void df_close(struct df *df);
/* Map an SQLite result code to a negative errno. */
int df_errno(int rc);

#endif

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data file itself: creating it (schema, stamp), inserting rows through
 * cached statements, committing it atomically, and opening one for reading
 * (validation, meta, the SQL functions readers use).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/datafile.h"
#include "data/provenance.h"
#include "util/funcname.h"

/* distinct INSERTs a recording makes; more is a programming error (-ENOSPC) */
#define STMT_CACHE 32

struct df {
	sqlite3 *db;
	char *path; /* final name */
	char *tmp;  /* name while writing; NULL when opened for reading */
	struct {
		const char *sql;
		sqlite3_stmt *stmt;
	} cache[STMT_CACHE];
	struct kv_list meta;
};

/* Documented in README.md ("The data file"); bump KP_SCHEMA_VERSION on any change. */
#define RUN_TABLES(temp)                                                                         \
	"CREATE " temp "TABLE runs(run INTEGER PRIMARY KEY, wall_ns INTEGER, exit_code INTEGER," \
	" end TEXT);"                                                                            \
	"CREATE " temp "TABLE run_latency(run INTEGER, kind TEXT, id INTEGER, calls INTEGER,"    \
	" done INTEGER, total_ns INTEGER, oncpu_ns INTEGER, offcpu_ns INTEGER,"                  \
	" PRIMARY KEY(run, kind, id));"                                                          \
	"CREATE " temp "TABLE run_samples(run INTEGER, kstack INTEGER, ustack INTEGER,"          \
	" count INTEGER);"
#define INLINES_TABLE                                                                    \
	"inlines(func INTEGER PRIMARY KEY, name TEXT, parent TEXT,"                      \
	" call_file TEXT, call_line INTEGER, entry INTEGER, ranges TEXT, bytes INTEGER," \
	" exits TEXT)"
static const char schema[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE config(option TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE vulnerabilities(name TEXT PRIMARY KEY, status TEXT NOT NULL);"
	"CREATE TABLE counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
	"CREATE TABLE latency(kind TEXT, id INTEGER, name TEXT, calls INTEGER, done INTEGER,"
	" total_ns INTEGER, oncpu_ns INTEGER, offcpu_ns INTEGER, max_ns INTEGER,"
	" PRIMARY KEY(kind, id));"
	"CREATE TABLE latency_hist(kind TEXT, id INTEGER, clock TEXT, bucket INTEGER,"
	" lo_ns INTEGER, hi_ns INTEGER, count INTEGER, PRIMARY KEY(kind, id, clock, bucket));"
	"CREATE TABLE tasks(pid INTEGER, ppid INTEGER, comm TEXT, exited INTEGER);"
	"CREATE TABLE maps(pid INTEGER, start INTEGER, end INTEGER, pgoff INTEGER, path TEXT,"
	" build_id TEXT);"
	"CREATE TABLE samples(pid INTEGER, tid INTEGER, comm TEXT, kstack INTEGER,"
	" ustack INTEGER, count INTEGER);"
	"CREATE TABLE kstack_frames(stack INTEGER, depth INTEGER, addr INTEGER,"
	" PRIMARY KEY(stack, depth));"
	"CREATE TABLE ksyms(addr INTEGER PRIMARY KEY, name TEXT, module TEXT);"
	"CREATE TABLE ustack_frames(stack INTEGER, depth INTEGER, addr INTEGER, module TEXT,"
	" symbol TEXT, offset INTEGER, PRIMARY KEY(stack, depth));"
	/* schema 2: record --func */
	"CREATE TABLE funcs(id INTEGER PRIMARY KEY, name TEXT, symbol TEXT, addr INTEGER,"
	" module TEXT, method TEXT);"
	"CREATE TABLE func_syscalls(func INTEGER, nr INTEGER, calls INTEGER, total_ns INTEGER,"
	" PRIMARY KEY(func, nr));"
	"CREATE TABLE func_stacks(func INTEGER, kstack INTEGER, calls INTEGER, total_ns INTEGER,"
	" PRIMARY KEY(func, kstack));"
	"CREATE TABLE func_contexts(func INTEGER, context TEXT, calls INTEGER, total_ns INTEGER,"
	" PRIMARY KEY(func, context));"
	/* schema 3: record --func on inlined functions */
	"CREATE TABLE " INLINES_TABLE ";"
	/* schema 4: record --repeat */
	RUN_TABLES("");

int df_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EBADMSG;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		return errno ? -errno : -EIO;
	default:
		return -EIO;
	}
}

static struct df *df_alloc(const char *path)
{
	struct df *df = calloc(1, sizeof(*df));

	if (!df)
		return NULL;
	df->path = strdup(path);
	if (!df->path) {
		free(df);
		return NULL;
	}
	return df;
}

static void df_free(struct df *df)
{
	int i;

	for (i = 0; i < STMT_CACHE; i++)
		sqlite3_finalize(df->cache[i].stmt);
	sqlite3_close(df->db);
	kv_list_free(&df->meta);
	free(df->tmp);
	free(df->path);
	free(df);
}

/* A unique temporary name in the target's directory, so rename() is atomic. */
static int make_tmp(struct df *df)
{
	int fd;

	if (asprintf(&df->tmp, "%s.tmp.XXXXXX", df->path) < 0) {
		df->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(df->tmp);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0600);
	close(fd);
	return 0;
}

/* Marks the file as ours and says which schema it holds. */
static int stamp(sqlite3 *db)
{
	char *sql = sqlite3_mprintf("PRAGMA application_id = %d; PRAGMA user_version = %d;",
				    KP_APPLICATION_ID, KP_SCHEMA_VERSION);
	int err;

	if (!sql)
		return -ENOMEM;
	err = df_errno(sqlite3_exec(db, sql, NULL, NULL, NULL));
	sqlite3_free(sql);
	return err;
}

int df_create(struct df **out, const char *path)
{
	struct df *df = df_alloc(path);
	int err;

	if (!df)
		return -ENOMEM;
	err = make_tmp(df);
	if (err)
		goto err_free;
	errno = 0;
	err = df_errno(sqlite3_open_v2(df->tmp, &df->db, SQLITE_OPEN_READWRITE, NULL));
	if (err)
		goto err_unlink;
	/* durability comes from fsync + rename in df_commit, not from a journal */
	err = df_errno(sqlite3_exec(df->db,
				    "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
				    "BEGIN;",
				    NULL, NULL, NULL));
	if (!err)
		err = df_errno(sqlite3_exec(df->db, schema, NULL, NULL, NULL));
	if (!err)
		err = stamp(df->db);
	if (err)
		goto err_unlink;
	*out = df;
	return 0;
err_unlink:
	unlink(df->tmp);
err_free:
	df_free(df);
	return err;
}

static sqlite3_stmt *cached_stmt(struct df *df, const char *sql)
{
	int i;

	for (i = 0; i < STMT_CACHE && df->cache[i].sql; i++) {
		if (df->cache[i].sql == sql || !strcmp(df->cache[i].sql, sql)) {
			sqlite3_reset(df->cache[i].stmt);
			return df->cache[i].stmt;
		}
	}
	if (i == STMT_CACHE) {
		errno = ENOSPC;
		return NULL;
	}
	if (sqlite3_prepare_v2(df->db, sql, -1, &df->cache[i].stmt, NULL) != SQLITE_OK)
		return NULL;
	df->cache[i].sql = sql;
	return df->cache[i].stmt;
}

static int bind_args(sqlite3_stmt *st, const char *types, va_list ap)
{
	const char *s;
	int i, rc = SQLITE_OK;

	for (i = 0; types[i] && rc == SQLITE_OK; i++) {
		switch (types[i]) {
		case 'i':
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
			break;
		case 't':
			s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i + 1);
			break;
		default:
			return SQLITE_MISUSE;
		}
	}
	return rc;
}

int df_insert(struct df *df, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st = cached_stmt(df, sql);
	va_list ap;
	int rc;

	if (!st)
		return errno == ENOSPC ? -ENOSPC : df_errno(sqlite3_errcode(df->db)) ?: -EINVAL;
	va_start(ap, types);
	rc = bind_args(st, types, ap);
	va_end(ap);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	return df_errno(rc);
}

static int fsync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) && errno != EINVAL)
		err = -errno;
	close(fd);
	return err;
}

static int fsync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int err;

	if (!copy)
		return -ENOMEM;
	err = fsync_path(dirname(copy), O_RDONLY | O_DIRECTORY);
	free(copy);
	return err;
}

int df_commit(struct df *df, uid_t uid, gid_t gid)
{
	int err, i;

	errno = 0;
	err = df_errno(sqlite3_exec(df->db, "COMMIT;", NULL, NULL, NULL));
	for (i = 0; i < STMT_CACHE; i++) {
		sqlite3_finalize(df->cache[i].stmt);
		df->cache[i].stmt = NULL;
	}
	if (!err)
		err = df_errno(sqlite3_close(df->db));
	df->db = NULL;
	if (!err)
		err = fsync_path(df->tmp, O_RDONLY);
	if (!err && uid != (uid_t)-1 && chown(df->tmp, uid, gid))
		err = -errno;
	if (!err && rename(df->tmp, df->path))
		err = -errno;
	if (err) {
		df_abort(df);
		return err;
	}
	err = fsync_dir_of(df->path);
	df_free(df);
	return err;
}

void df_abort(struct df *df)
{
	if (df->tmp)
		unlink(df->tmp);
	df_free(df);
}

static int pragma_int(sqlite3 *db, const char *sql, long long *val)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*val = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

static int quick_check(sqlite3 *db)
{
	sqlite3_stmt *st;
	const char *res;
	int rc;

	rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	rc = res && !strcmp(res, "ok") ? SQLITE_OK : SQLITE_CORRUPT;
	sqlite3_finalize(st);
	return rc;
}

static int load_meta(struct df *df)
{
	sqlite3_stmt *st;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(df->db, "SELECT key, value FROM meta", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return df_errno(rc);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = kv_add(&df->meta, (const char *)sqlite3_column_text(st, 0), "%s",
			     (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return err ?: df_errno(rc);
}

/* Checks that the file is a kprotperf recording this version can read. */
static int validate(struct df *df, char *why, size_t len)
{
	long long id = 0, version = 0;
	int rc = pragma_int(df->db, "PRAGMA application_id", &id);

	if (rc == SQLITE_CORRUPT) {
		snprintf(why, len, "corrupt or truncated data file: record it again");
		return -EBADMSG;
	}
	if (rc != SQLITE_OK) {
		snprintf(why, len, "not a kprotperf data file (not an SQLite database)");
		return -EBADMSG;
	}
	if (id != KP_APPLICATION_ID) {
		snprintf(why, len, "not a kprotperf data file (foreign SQLite database)");
		return -EBADMSG;
	}
	pragma_int(df->db, "PRAGMA user_version", &version);
	if (version > KP_SCHEMA_VERSION) {
		snprintf(why, len,
			 "written by a newer kprotperf (newer schema version): upgrade kprotperf");
		return -EPROTONOSUPPORT;
	}
	if (version < KP_SCHEMA_OLDEST) {
		snprintf(why, len,
			 "written by an older kprotperf (older schema version): record it again");
		return -EPROTONOSUPPORT;
	}
	if (quick_check(df->db) != SQLITE_OK || load_meta(df)) {
		snprintf(why, len, "corrupt or truncated data file: record it again");
		return -EBADMSG;
	}
	/* what older schemas lack reads as empty, from tables beside the read-only file */
	if (version < 3)
		rc = sqlite3_exec(df->db, "CREATE TEMP TABLE " INLINES_TABLE, NULL, NULL, NULL);
	if (rc == SQLITE_OK && version < 4)
		rc = sqlite3_exec(df->db, RUN_TABLES("TEMP "), NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		snprintf(why, len, "cannot create the temporary tables an older data file lacks");
	return df_errno(rc);
}

/* kp_func_base(name): name without its clone suffix (.isra.0, .cold, ...): util/funcname.h. */
static void func_base(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *name = (const char *)sqlite3_value_text(argv[0]);
	size_t len = name ? funcname_clone_base_len(name) : 0;

	if (!name)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_text(ctx, name, len ? (int)len : -1, SQLITE_TRANSIENT);
}

/* The SQL functions the readers' queries use. */
static int add_functions(sqlite3 *db)
{
	return df_errno(sqlite3_create_function(db, "kp_func_base", 1,
						SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, func_base,
						NULL, NULL));
}

int df_open(struct df **out, const char *path, char *why, size_t len)
{
	struct stat stb;
	struct df *df;
	int err;

	*why = '\0';
	if (stat(path, &stb))
		return -errno;
	if (!S_ISREG(stb.st_mode) || stb.st_size == 0) {
		snprintf(why, len, "%s",
			 stb.st_size == 0 ? "empty file, not a kprotperf data file"
					  : "not a regular file");
		return -EBADMSG;
	}
	df = df_alloc(path);
	if (!df)
		return -ENOMEM;
	errno = 0;
	err = df_errno(sqlite3_open_v2(path, &df->db, SQLITE_OPEN_READONLY, NULL));
	if (!err)
		err = validate(df, why, len) ?: add_functions(df->db);
	if (err) {
		df_free(df);
		return err;
	}
	*out = df;
	return 0;
}

sqlite3 *df_db(struct df *df)
{
	return df->db;
}

int df_each_row(struct df *df, const char *sql, int (*fn)(sqlite3_stmt *st, void *ctx), void *ctx)
{
	sqlite3_stmt *st;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(df->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return df_errno(rc);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = fn(st, ctx);
	sqlite3_finalize(st);
	return err ?: df_errno(rc);
}

const char *df_meta(struct df *df, const char *key)
{
	return kv_get(&df->meta, key);
}

double df_sample_period_ns(struct df *df)
{
	const char *hz = df_meta(df, "sampling.freq_hz");
	double f = hz ? atof(hz) : 0;

	return 1e9 / (f > 0 ? f : KP_DEFAULT_FREQ_HZ);
}

void df_close(struct df *df)
{
	df_free(df);
}

long long df_scalar(struct df *df, const char *sql, const char *arg)
{
	sqlite3_stmt *st;
	long long v = 0;

	if (sqlite3_prepare_v2(df_db(df), sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int df_hist_rows(sqlite3_stmt *st, unsigned long long *hist, size_t n)
{
	long long b;
	int rc;

	memset(hist, 0, n * sizeof(*hist));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b = sqlite3_column_int64(st, 0);
		if (b >= 0 && (size_t)b < n)
			hist[b] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return df_errno(rc);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data file itself: creating it (schema, stamp), committing it atomically
 * or dropping it, and opening one for reading (validation, meta, schema
 * version, the SQL functions readers use).  Its statements run through
 * data/query.c, on the connection it holds (datafile_int.h).
 */
#include "data/datafile.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/check.h"
#include "data/compat.h"
#include "data/datafile_int.h"
#include "data/query.h"
#include "data/schema.h"
#include "util/funcname.h"
#include "util/kv.h"
#include "util/safeio.h"

static struct datafile *df_alloc(const char *path)
{
	struct datafile *df = calloc(1, sizeof(*df));

	if (!df)
		return NULL;
	df->dir = df->fd = -1;
	df->path = strdup(path);
	if (!df->path) {
		free(df);
		return NULL;
	}
	return df;
}

static void df_free(struct datafile *df)
{
	query_conn_close(&df->conn);
	if (df->fd >= 0)
		close(df->fd);
	if (df->dir >= 0)
		close(df->dir);
	kv_list_free(&df->meta);
	free(df->tmp);
	free(df->path);
	free(df);
}

/*
 * Which boot and pid namespace a pid in a temporary name belongs to, as
 * "BOOT-PIDNS" (8 hex digits of the boot id, the pid namespace's inode):
 * a pid means nothing to a recorder of another boot, container or host
 * (NFS).  "" when it cannot be told: nothing is then ever cleaned.
 */
static void tmp_tag(char *tag, size_t len)
{
	char boot[9] = "";
	struct stat st;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	tag[0] = '\0';
	if (!f)
		return;
	if (fscanf(f, "%8[0-9a-f]", boot) == 1 && strlen(boot) == 8 &&
	    !stat("/proc/self/ns/pid", &st))
		snprintf(tag, len, "%s-%llu", boot, (unsigned long long)st.st_ino);
	fclose(f);
}

/*
 * Whether name, in dir, is a temporary file of one of our dead recorders:
 * PREFIX<pid>.XXXXXX where PREFIX is "PATH.tmp.TAG-", pid no longer runs,
 * and it is a regular file of ours with the mode make_tmp gives it (a kept
 * recording, mode 0400, is not one).
 */
static bool stale(DIR *dir, const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	struct stat st;
	char *end;
	long pid;

	if (strncmp(name, prefix, n) || name[n] < '1' || name[n] > '9')
		return false;
	errno = 0;
	pid = strtol(name + n, &end, 10);
	if (errno || pid <= 0 || pid > INT_MAX || *end != '.' || strlen(end) != 7)
		return false;
	if (!kill(pid, 0) || errno != ESRCH)
		return false;
	if (fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW))
		return false;
	return S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 07777) == 0600;
}

/*
 * The temporary files of recorders that died (SIGKILL, power loss) before
 * committing, beside the target.  Only what is certainly ours is removed;
 * best effort: a file that cannot be removed is no reason to fail.
 */
static void clean_stale(int dirfd, const char *prefix)
{
	int fd = dup(dirfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)))
		if (stale(dir, e->d_name, prefix))
			unlinkat(dirfd, e->d_name, 0);
	closedir(dir);
}

/*
 * A unique temporary name in the target's folder, so the rename is atomic:
 * PATH.tmp.BOOT-PIDNS-PID.XXXXXX, which lets a later recorder of the same
 * boot and pid namespace remove it if we are killed.  The folder is one no
 * other user can write (util/safeio.h), but owner, the user the file is for.
 */
static int make_tmp(struct datafile *df, uid_t owner, char *why, size_t len)
{
	char tag[64], prefix[NAME_MAX + 1];

	df->dir = safeio_dir_of(df->path, owner, &df->name, why, len);
	if (df->dir < 0)
		return df->dir;
	tmp_tag(tag, sizeof(tag));
	snprintf(prefix, sizeof(prefix), "%s.tmp.%s-", df->name, tag);
	if (tag[0])
		clean_stale(df->dir, prefix);
	snprintf(prefix, sizeof(prefix), "%s.tmp.%s-%d.", df->name, tag[0] ? tag : "0-0",
		 (int)getpid());
	df->fd = safeio_tmp(df->dir, prefix, 0600, df->tmp_name, sizeof(df->tmp_name));
	if (df->fd < 0)
		return df->fd;
	fchmod(df->fd, 0600);
	/* SQLite opens it by its path: the folder's path and the name made */
	if (asprintf(&df->tmp, "%.*s%s", (int)(df->name - df->path), df->path, df->tmp_name) < 0) {
		df->tmp = NULL;
		unlinkat(df->dir, df->tmp_name, 0);
		return -ENOMEM;
	}
	return 0;
}

int datafile_check_target(const char *path, char *why, size_t len)
{
	struct stat st;
	char *real;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, len,
			 "it is a directory: give a file name, e.g. -o '%s/kprotperf.data'", path);
		return -EISDIR;
	}
	if (!S_ISLNK(st.st_mode)) {
		snprintf(why, len,
			 "it is a device, FIFO or socket, not a regular file: the data file would "
			 "replace it; choose another path with -o");
		return -EEXIST;
	}
	/* renaming over a link would replace it, and root must not write where one points */
	real = realpath(path, NULL);
	if (!real)
		snprintf(why, len,
			 "it is a symbolic link to a missing file: give a path "
			 "that is not a link with -o");
	else
		snprintf(why, len,
			 "it is a symbolic link: record does not write through links; "
			 "give the file it points to: -o '%s'",
			 real);
	free(real);
	return -ELOOP;
}

/* Marks the file as ours and says which schema it holds. */
static int stamp(struct datafile *df)
{
	char sql[80];

	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d;",
		 KP_APPLICATION_ID, KP_SCHEMA_VERSION);
	df->schema = KP_SCHEMA_VERSION;
	return query_exec(df, sql);
}

int datafile_create(struct datafile **out, const char *path, uid_t owner, char *why, size_t len)
{
	struct datafile *df = df_alloc(path);
	int err;

	if (len)
		*why = '\0';
	if (!df)
		return -ENOMEM;
	err = make_tmp(df, owner, why, len);
	if (err)
		goto err_free;
	errno = 0;
	/* NOFOLLOW: a link put in place of the file made is not followed */
	err = query_conn_open(&df->conn, df->tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW);
	if (err)
		goto err_unlink;
	/* durability comes from fsync + rename in datafile_commit, not from a journal */
	err = query_exec(df, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;")
		?: query_exec(df, schema_base) ?: query_exec(df, schema_added) ?: stamp(df);
	if (err)
		goto err_unlink;
	*out = df;
	return 0;
err_unlink:
	unlinkat(df->dir, df->tmp_name, 0);
err_free:
	df_free(df);
	return err;
}

/*
 * What appeared at the path while recording is not replaced, and the
 * recording is not lost either: it stays where it is, read-only (so that no
 * later recorder takes it for a stale temporary file), and why says where.
 */
static int keep(struct datafile *df, char *why, size_t len)
{
	char what[512] = "";
	int err = datafile_check_target(df->path, what, sizeof(what)) ?: -EEXIST;

	/* what it is, without the advice given before recording */
	what[strcspn(what, ":")] = '\0';
	fchmod(df->fd, 0400);
	snprintf(why, len,
		 "cannot write '%s': %s now: the recording is kept in '%s': move it where you "
		 "want it",
		 df->path, what[0] ? what : strerror(-err), df->tmp);
	free(df->tmp);
	df->tmp = NULL;
	df_free(df);
	return err;
}

int datafile_commit(struct datafile *df, uid_t uid, gid_t gid, char *why, size_t len)
{
	int err, close_err;

	if (len)
		why[0] = '\0';
	errno = 0;
	err = query_exec(df, "COMMIT;");
	close_err = query_conn_close(&df->conn);
	if (!err)
		err = close_err;
	if (!err && fsync(df->fd) && errno != EINVAL)
		err = -errno;
	if (!err && uid != (uid_t)-1 && fchown(df->fd, uid, gid))
		err = -errno;
	/* what appeared at the path while recording is not replaced either */
	if (!err && datafile_check_target(df->path, NULL, 0))
		return keep(df, why, len);
	if (!err && renameat(df->dir, df->tmp_name, df->dir, df->name))
		err = -errno;
	if (err) {
		datafile_abort(df);
		return err;
	}
	/* the rename made durable; a folder that cannot be synced (EINVAL) has nothing to do */
	err = fsync(df->dir) && errno != EINVAL ? -errno : 0;
	df_free(df);
	return err;
}

void datafile_abort(struct datafile *df)
{
	if (df->tmp)
		unlinkat(df->dir, df->tmp_name, 0);
	df_free(df);
}

/* PRAGMA quick_check's one row: "ok" or the first problem found. */
static int ok_row(sqlite3_stmt *st, void *ok)
{
	const char *res = query_text(st, 0);

	*(bool *)ok = res && !strcmp(res, "ok");
	return 1;
}

static int meta_row(sqlite3_stmt *st, void *meta)
{
	return kv_add(meta, query_text(st, 0), "%s", query_text(st, 1));
}

/* Every value checked before meta is read and anyone reads the rest. */
static int check_values(struct datafile *df, char *why, size_t len)
{
	int err = check_tables(df);

	if (!err && query_each(df, "SELECT key, value FROM meta", meta_row, &df->meta, ""))
		err = query_bad(df, "table meta cannot be read");
	if (err == -EBADMSG)
		datafile_why(df, why, len);
	return err;
}

/* Checks that the file is a kprotperf recording this version can read. */
static int validate(struct datafile *df, char *why, size_t len)
{
	long long id = 0;
	bool ok = false;
	int err = query_each(df, "PRAGMA application_id", query_int_row, &id, "");

	if (err < 0 && sqlite3_errcode(df->conn.db) == SQLITE_CORRUPT) {
		snprintf(why, len, "corrupt or truncated data file: record it again");
		return -EBADMSG;
	}
	if (err < 0) {
		snprintf(why, len, "not a kprotperf data file (not an SQLite database)");
		return -EBADMSG;
	}
	if (id != KP_APPLICATION_ID) {
		snprintf(why, len, "not a kprotperf data file (foreign SQLite database)");
		return -EBADMSG;
	}
	query_each(df, "PRAGMA user_version", query_int_row, &df->schema, "");
	if (df->schema > KP_SCHEMA_VERSION) {
		snprintf(why, len,
			 "written by a newer kprotperf (newer schema version): upgrade kprotperf");
		return -EPROTONOSUPPORT;
	}
	if (df->schema < KP_SCHEMA_OLDEST) {
		snprintf(why, len,
			 "written by an older kprotperf (older schema version): record it again");
		return -EPROTONOSUPPORT;
	}
	if (query_each(df, "PRAGMA quick_check(1)", ok_row, &ok, "") < 0 || !ok) {
		snprintf(why, len, "corrupt or truncated data file: record it again");
		return -EBADMSG;
	}
	err = df->schema < KP_SCHEMA_VERSION ? compat_attach(df) : 0;
	if (err) {
		snprintf(why, len, "cannot make the empty tables an older data file lacks");
		return err;
	}
	return check_values(df, why, len);
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
	/* innocuous: TEMP views may call it with trusted_schema off */
	return query_errno(sqlite3_create_function(
		db, "kp_func_base", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
		func_base, NULL, NULL));
}

/* The first n bytes of a file of size bytes: 0 if they begin as an SQLite database does. */
static int magic_ok(const void *head, size_t n, size_t size, char *why, size_t len)
{
	static const char magic[16] = "SQLite format 3";

	if (n >= sizeof(magic) && !memcmp(head, magic, sizeof(magic)))
		return 0;
	snprintf(why, len, "%s",
		 size ? "not a kprotperf data file (not an SQLite database)"
		      : "empty file, not a kprotperf data file");
	return -EBADMSG;
}

/*
 * A regular file that begins as an SQLite database does; whatever else
 * SQLite might make of a file is no data file (and a FIFO would block it).
 */
static int check_magic(const char *path, char *why, size_t len)
{
	char head[16];
	struct stat st;
	int fd = safeio_open_regular(path, &st, why, len);
	ssize_t n;

	if (fd < 0)
		return fd == -EINVAL && *why ? -EBADMSG : fd;
	n = st.st_size ? read(fd, head, sizeof(head)) : 0;
	close(fd);
	if (n < 0)
		return -errno;
	return magic_ok(head, n, st.st_size, why, len);
}

/* The file's own SQL (its schema) may not call our functions or write the file's pages. */
static int distrust(struct datafile *df)
{
	int err = query_errno(
		sqlite3_db_config(df->conn.db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL));

	return err ?: query_exec(df, "PRAGMA trusted_schema = OFF");
}

/*
 * What a reader's connection gets before anyone reads it, whoever holds the
 * bytes (the file, or memory for datafile_load).  One read transaction for
 * the connection's life: the file is locked, checked for a journal and its
 * header read once, not at every statement (~8 system calls each, most of
 * the time an open took); and every reader sees the same file.  The
 * readers' TEMP tables (named frames, older schemas' empty tables) are kept
 * in memory.
 */
static int open_checked(struct datafile *df, char *why, size_t len)
{
	return distrust(df) ?: query_exec(df, "PRAGMA temp_store = MEMORY; BEGIN") ?:
		       validate(df, why, len) ?: add_functions(df->conn.db);
}

/*
 * path as an SQLite URI that opens the file's bytes alone, immutable: no
 * lock taken, no -wal, -shm or -journal file made, read or removed beside
 * it (a WAL-marked file made SQLite create two), whoever's folder it is in.
 * Every byte but [A-Za-z0-9/._-] is escaped, so none is read as the URI's
 * query or fragment; "file://" before an absolute path, whose "//" would
 * otherwise start an authority.
 */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	char *uri = malloc(sizeof("file://?immutable=1") + 3 * n), *u;

	if (!uri)
		return NULL;
	u = stpcpy(uri, *path == '/' ? "file://" : "file:");
	for (; *path; path++) {
		unsigned char c = *path;

		/* ASCII alone: isalnum() would follow the locale */
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/._-", c)) {
			*u++ = c;
			continue;
		}
		*u++ = '%';
		*u++ = hex[c >> 4];
		*u++ = hex[c & 15];
	}
	strcpy(u, "?immutable=1");
	return uri;
}

int datafile_open(struct datafile **out, const char *path, char *why, size_t len)
{
	struct datafile *df;
	char *uri;
	int err;

	*why = '\0';
	err = check_magic(path, why, len);
	if (err)
		return err;
	df = df_alloc(path);
	uri = immutable_uri(path);
	if (!df || !uri) {
		free(uri);
		if (df)
			df_free(df);
		return -ENOMEM;
	}
	errno = 0;
	err = query_conn_open(&df->conn, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
	free(uri);
	err = err ?: open_checked(df, why, len);
	if (err) {
		df_free(df);
		return err;
	}
	*out = df;
	return 0;
}

/*
 * The bytes into an in-memory database of df's connection, writable (and
 * growing) for datafile_recheck's callers: nothing of data/ writes to a
 * file opened for reading.  SQLite gets a copy of its own: the caller's
 * bytes may not outlive df.
 */
static int deserialize(struct datafile *df, const void *data, size_t size)
{
	unsigned char *copy;
	int err =
		query_conn_open(&df->conn, ":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY);

	if (err)
		return err;
	copy = sqlite3_malloc64(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, size);
	/*
	 * Bytes marked WAL (header bytes 18 and 19 = 2) read as the file's own
	 * pages, as datafile_open's immutable file does: SQLite holds no WAL
	 * database in memory.
	 */
	if (size > 19 && copy[18] == 2 && copy[19] == 2)
		copy[18] = copy[19] = 1;
	/* freed by SQLite, on failure too */
	return query_errno(sqlite3_deserialize(df->conn.db, "main", copy, size, size,
					       SQLITE_DESERIALIZE_FREEONCLOSE |
						       SQLITE_DESERIALIZE_RESIZEABLE));
}

int datafile_load(struct datafile **out, const char *name, const void *data, size_t size, char *why,
		  size_t len)
{
	struct datafile *df;
	int err;

	*why = '\0';
	err = magic_ok(data, size, size, why, len);
	if (err)
		return err;
	df = df_alloc(name);
	if (!df)
		return -ENOMEM;
	df->conn.keep_each = true;
	errno = 0;
	err = deserialize(df, data, size) ?: open_checked(df, why, len);
	if (err) {
		df_free(df);
		return err;
	}
	*out = df;
	return 0;
}

int datafile_recheck(struct datafile *df, char *why, size_t len)
{
	*why = '\0';
	df->conn.bad[0] = '\0';
	kv_list_free(&df->meta);
	return check_values(df, why, len);
}

/* The bytes of the file at in (a regular file, checked by the caller) into fd. */
static int copy_into(int in, int fd)
{
	char buf[1 << 16];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return errno ? -errno : -EIO;
	return n < 0 ? -errno : 0;
}

/*
 * The copy is what is checked and then changed: the file at path may
 * change after the check, the copy cannot.
 */
static int update_copy(struct datafile *df, char *why, size_t len)
{
	struct stat st;
	int in = safeio_open_regular(df->path, &st, why, len), err;

	if (in < 0)
		return in;
	err = copy_into(in, df->fd);
	close(in);
	if (err)
		return err;
	errno = 0;
	err = query_conn_open(&df->conn, df->tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW);
	err = err ?: distrust(df)
		?: query_exec(df, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
				  " PRAGMA temp_store = MEMORY; BEGIN")
		?: validate(df, why, len) ?: add_functions(df->conn.db);
	if (!err && df->schema != KP_SCHEMA_VERSION) {
		snprintf(why, len, "written by another version of kprotperf (schema %lld, not %d)",
			 df->schema, KP_SCHEMA_VERSION);
		err = -EPROTONOSUPPORT;
	}
	return err;
}

int datafile_update(struct datafile **out, const char *path, uid_t *uid, gid_t *gid, char *why,
		    size_t len)
{
	struct datafile *df;
	struct stat st;
	int err;

	*why = '\0';
	err = check_magic(path, why, len);
	if (err)
		return err;
	if (stat(path, &st))
		return -errno;
	*uid = st.st_uid;
	*gid = st.st_gid;
	df = df_alloc(path);
	if (!df)
		return -ENOMEM;
	err = make_tmp(df, st.st_uid, why, len) ?: update_copy(df, why, len);
	if (err) {
		if (df->tmp)
			unlinkat(df->dir, df->tmp_name, 0);
		df_free(df);
		return err;
	}
	*out = df;
	return 0;
}

const char *datafile_meta(struct datafile *df, const char *key)
{
	return kv_get(&df->meta, key);
}

double datafile_sample_period_ns(struct datafile *df)
{
	const char *hz = datafile_meta(df, "sampling.freq_hz");
	const char *ev = datafile_meta(df, "sampling.event");
	const char *period = datafile_meta(df, "sampling.period");
	double f = hz ? atof(hz) : 0;

	/* a sample of another event (record -e) stands for no known time */
	if (ev && strcmp(ev, "cpu-clock") && strcmp(ev, "task-clock"))
		return NAN;
	/* the clocks' periods are in ns (check.c: 1 to 2^40) */
	if (period)
		return atof(period);
	return 1e9 / (f > 0 ? f : KP_DEFAULT_FREQ_HZ);
}

void datafile_close(struct datafile *df)
{
	df_free(df);
}

long long datafile_schema(struct datafile *df)
{
	return df->schema;
}

void datafile_set_symfs(struct datafile *df, const char *dir)
{
	df->symfs = dir;
}

const char *datafile_symfs(const struct datafile *df)
{
	return df->symfs;
}

bool datafile_why(struct datafile *df, char *why, size_t len)
{
	if (!*df->conn.bad) {
		*why = '\0';
		return false;
	}
	snprintf(why, len, "corrupt data file: %s: record it again", df->conn.bad);
	return true;
}

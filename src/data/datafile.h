/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data file's public API: one SQLite database per recording (schema in
 * docs/datafile.md), created, committed or aborted by record, opened and
 * closed by the readers, with its meta and schema version at hand.  Everything else is
 * read and written through data/'s typed functions (data/samples.h,
 * data/latency.h, ...); the SQL lives behind them, in data/ alone.
 *
 * A new file is written to a temporary file beside the target,
 * PATH.tmp.BOOT-PIDNS-PID.XXXXXX, and renamed into place on commit, so a
 * reader never sees a half-written file; one left by a recorder that was
 * killed is removed by the next one to write beside it in the same boot and
 * pid namespace, once PID no longer runs, if it is a regular file of the
 * same user with mode 0600.
 */
#ifndef KP_DATAFILE_H
#define KP_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define KP_SCHEMA_VERSION 18
/* the oldest schema report still reads */
#define KP_SCHEMA_OLDEST  2
#define KP_APPLICATION_ID 0x4b505046 /* "KPPF" */
/* record's CPU-clock sampling rate without -F; older files do not say theirs */
#define KP_DEFAULT_FREQ_HZ 99

struct datafile;

/*
 * Whether a data file may be written at path: absent or a regular file
 * (replaced).  A directory (-EISDIR), a symbolic link (-ELOOP: not followed)
 * or a device, FIFO or socket (-EEXIST) is refused with why; other -errno
 * from lstat (-EACCES, -ENOTDIR, ...) say it all.
 */
int datafile_check_target(const char *path, char *why, size_t len);
/*
 * A new file of the current schema, for writers (data/recording.h), in a
 * folder no other user than owner (-1: none; the user it is for) can write:
 * -EPERM and why otherwise ("" when the error says it all).
 */
int datafile_create(struct datafile **out, const char *path, uid_t owner, char *why, size_t len);
/*
 * Make the file durable, give it to uid/gid (-1: keep), mode 0600, rename
 * into place.  When the path became something not to replace while
 * recording (datafile_check_target), the file is kept under its temporary
 * name, mode 0400, and why says so and where ("" on other errors; why may
 * be NULL with len 0).
 */
int datafile_commit(struct datafile *df, uid_t uid, gid_t gid, char *why, size_t len);
/*
 * An existing data file of the current schema, to add to: a copy beside it
 * is checked as datafile_open checks a file, changed, and renamed over it
 * by datafile_commit (give it *uid and *gid, the file's owner, found here);
 * datafile_abort leaves the file as it was.  -EPROTONOSUPPORT with why for
 * another schema; otherwise as datafile_open.
 */
int datafile_update(struct datafile **out, const char *path, uid_t *uid, gid_t *gid, char *why,
		    size_t len);
/* Drop an uncommitted file. */
void datafile_abort(struct datafile *df);

/*
 * Open for reading: the file's bytes alone, immutable (no lock, and no
 * journal, -wal or -shm file read, made or removed beside it).  On failure,
 * why says what is wrong with the file, or is "" when the error (-errno:
 * -ENOENT, ...) says it all.
 */
int datafile_open(struct datafile **out, const char *path, char *why, size_t len);
/*
 * A data file's size bytes, opened from memory and checked as datafile_open
 * checks a file, with the same errors and why; name stands for its path.
 * The fuzzer's way in: a fresh file per input costs more than the check.
 * As datafile_open, it reads bytes marked WAL (record never writes them)
 * as the database's own pages, without a WAL.  The copy in memory may be
 * written (data/query.h) by a caller that then calls datafile_recheck
 * before reading it.
 */
int datafile_load(struct datafile **out, const char *name, const void *data, size_t size, char *why,
		  size_t len);
/*
 * The values of df checked again as opening checks them, after its caller
 * changed rows (the rows fuzzer: any values a file could hold): the same
 * errors and why, meta read anew and the last bad value forgotten.  The
 * schema version and the file's integrity (PRAGMA quick_check) are not
 * checked again: changing rows through SQLite leaves both as they were.
 */
int datafile_recheck(struct datafile *df, char *why, size_t len);
void datafile_close(struct datafile *df);
/* The value of a meta key, NULL when absent. */
const char *datafile_meta(struct datafile *df, const char *key);
/*
 * ns per CPU sample: 1e9 / meta sampling.freq_hz, record's default rate when
 * absent; sampling.period with record -c; NAN for samples of an event that
 * is no clock (record -e), which stand for no known time.
 */
double datafile_sample_period_ns(struct datafile *df);
/* The schema version the file holds (PRAGMA user_version). */
long long datafile_schema(struct datafile *df);
/*
 * The folder the files the recording names (mapped files, their debug
 * files) are read under when reading it, as perf's --symfs: NULL (the
 * default) for the host's own.  A setting of the reader's, kept with the
 * recording so that every reader of it sees it;
 * dir is not copied and must outlive df.
 */
void datafile_set_symfs(struct datafile *df, const char *dir);
const char *datafile_symfs(const struct datafile *df);

/*
 * Why a reader of df failed with -EBADMSG, as "corrupt data file: WHAT:
 * record it again" into why; false (why "") when nothing bad was read.
 */
bool datafile_why(struct datafile *df, char *why, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a struct datafile holds, internal to data/: datafile.c makes, opens
 * and closes it, query.c runs every statement on its connection.  Everyone
 * else has the opaque handle of datafile.h.
 */
#ifndef KP_DATAFILE_INT_H
#define KP_DATAFILE_INT_H

#include <limits.h>
#include <stdbool.h>
#include <sqlite3.h>

#include "util/kv.h"

/* distinct INSERTs a recording makes; more is a programming error (-ENOSPC) */
#define QUERY_CACHE_SIZE 48

/*
 * query_each's statements kept on a file, by a hash of their SQL text:
 * opening's checks alone run ~90 distinct ones, a reader as many again.
 */
#define QUERY_EACH_SLOTS 512

/* A data file's database and the statements query_insert and query_each cached on it. */
struct query_conn {
	sqlite3 *db;
	struct {
		const char *sql;
		sqlite3_stmt *stmt;
	} cache[QUERY_CACHE_SIZE];
	/*
	 * whether query_each keeps its statements: on datafile_load's
	 * connections, whose values are checked again and again; not on a
	 * reader's file, which runs each statement about once (kept, they
	 * cost report ~10% more CPU time, in fewer instructions: more memory)
	 */
	bool keep_each;
	struct {
		char *sql; /* a copy: callers build SQL in buffers of their own */
		sqlite3_stmt *stmt;
	} each[QUERY_EACH_SLOTS];
	char bad[512]; /* the bad value a reader found (query_bad), "" if none */
};

struct datafile {
	struct query_conn conn;
	char *path; /* final name */
	char *tmp;  /* name while writing; NULL when opened for reading */
	/* while writing: the folder (checked once, util/safeio.h), the file, their names in it */
	int dir, fd;
	const char *name;
	char tmp_name[NAME_MAX + 1];
	struct kv_list meta;
	long long schema;  /* PRAGMA user_version */
	bool compat;	   /* data/compat.c attached what an older schema lacks */
	const char *symfs; /* datafile_set_symfs()'s, NULL: the recorded paths as they are */
};

#endif

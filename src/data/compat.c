// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tables an older data file lacks (compat.h), from one in-memory
 * database attached read-only to each such file, its bytes made at build
 * time (scripts/gen-compat-image.c).  Creating them anew in TEMP for each
 * file (23 tables for a schema-4 file) was half the cost of opening it, each
 * CREATE writing and re-reading the schema; attaching costs reading theirs.
 */
#include "data/compat.h"

#include <sqlite3.h>

#include "compat_image.h"
#include "data/datafile_int.h"
#include "data/query.h"

int compat_attach(struct datafile *df)
{
	int err;

	/* no ATTACH within a transaction: the read one ends for it */
	err = query_exec(df, "COMMIT; ATTACH ':memory:' AS " COMPAT_DB) ?:
		       query_errno(sqlite3_deserialize(
			       query_db(df), COMPAT_DB,
			       /* read-only: SQLite writes none of it */
			       (unsigned char *)compat_image, sizeof(compat_image),
			       sizeof(compat_image), SQLITE_DESERIALIZE_READONLY)) ?:
		       query_exec(df, "BEGIN");
	df->compat = !err;
	return err;
}

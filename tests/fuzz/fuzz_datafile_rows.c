// SPDX-License-Identifier: GPL-2.0-only
/*
 * A data file's rows from anyone, without the cost of opening a file per
 * input (fuzz_datafile: ~230 inputs a CPU-second): the process opens each
 * recording of KP_FUZZ_RECORDINGS once (seeds.sh's: the datafile seeds cut
 * to 6 rows a table), in memory and writable; an input picks one and edits
 * its rows (sets a column of a row to a value, adds a row, deletes one),
 * then its values are checked again as opening checks them
 * (datafile_recheck) and, when they pass, one input in READ_EVERY runs a
 * reader of fuzz_read on it, all in a transaction then rolled back, so that
 * the next input starts from the recording as it was.  Anything a file
 * could hold is a legal state, so edits made through SQLite are fair; the
 * file's own structure (pages, schema) is fuzz_datafile's.  The statements
 * of the checks and of the edits are prepared once, not per input.
 *
 * An input: byte 0 picks the recording, then edits until the input ends,
 * each an op byte (what: set, add or delete; which column), a table byte,
 * a row byte (the row's place in the table; none past its end) and, for
 * set and add, a value (value()).
 */
#include <dirent.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "readers.h"
#include "data/query.h"

#define MAX_RECS   32
#define MAX_TABLES 64
#define MAX_COLS   12
/*
 * One input in READ_EVERY whose values pass runs a reader too, chosen by
 * the input's hash: under the sanitizers a reader takes ~14 ms here, and
 * its TEMP tables make the next input on the recording prepare every
 * statement again (~16 ms), where an input's edits and checks take ~0.45
 * ms: one in 64 ran ~1,050 inputs a CPU-second, one in 256 ~1,770.
 */
#define READ_EVERY 256

enum edit { E_SET, E_ADD, E_DEL, E_KINDS };

struct table {
	char *name;
	char *cols[MAX_COLS];
	int ncols;
	sqlite3_stmt *st[MAX_COLS][E_KINDS]; /* prepared on first use */
};

static struct rec {
	struct datafile *df;
	char *path;
	struct table t[MAX_TABLES];
	int ntables;
} recs[MAX_RECS];
static int nrecs;

/* The bytes of the file at path (malloc'd) into *size, or abort: the harness's own failure. */
static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0)
		abort();
	rewind(f);
	buf = malloc(n ?: 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		abort();
	fclose(f);
	*size = n;
	return buf;
}

static int table_row(sqlite3_stmt *st, void *ctx)
{
	struct rec *r = ctx;
	struct table *t = &r->t[r->ntables];

	if (r->ntables == MAX_TABLES)
		abort();
	if (!t->name || strcmp(t->name, query_str(st, 0))) {
		if (t->name)
			t = &r->t[++r->ntables];
		t->name = strdup(query_str(st, 0));
	}
	if (t->ncols < MAX_COLS)
		t->cols[t->ncols++] = strdup(query_str(st, 1));
	return 0;
}

/* The tables of the file itself and their columns: not the TEMP tables an older schema gets. */
static void tables_of(struct rec *r)
{
	if (query_each(r->df,
		       "SELECT m.name, c.name FROM main.sqlite_schema m,"
		       " pragma_table_info(m.name, 'main') c WHERE m.type = 'table'"
		       " ORDER BY m.name, c.cid",
		       table_row, r, "") < 0)
		abort();
	r->ntables += r->t[r->ntables].name != NULL;
}

/* sql on df, which cannot fail but for the harness's own bugs. */
static void must(struct datafile *df, const char *sql)
{
	if (query_exec(df, sql))
		abort();
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Each recording of dir opened and checked once, in the order of their names. */
static void load_all(const char *dir)
{
	struct dirent **e;
	int n = scandir(dir, &e, NULL, by_name), i;
	char why[512];
	size_t size;
	void *data;

	if (n < 0)
		abort();
	for (i = 0; i < n; i++) {
		struct rec *r = &recs[nrecs];

		if (e[i]->d_name[0] != '.' && nrecs < MAX_RECS &&
		    asprintf(&r->path, "%s/%s", dir, e[i]->d_name) > 0) {
			data = slurp(r->path, &size);
			/* a seed refused is the harness's failure: the seeds are record's */
			if (datafile_load(&r->df, r->path, data, size, why, sizeof(why))) {
				fprintf(stderr, "%s: %s\n", r->path, why);
				abort();
			}
			free(data);
			/*
			 * the open's transaction (and the TEMP tables an older schema
			 * gets) committed: each input has one of its own, rolled back
			 */
			must(r->df, "COMMIT");
			tables_of(r);
			nrecs++;
		}
		free(e[i]);
	}
	free(e);
	if (!nrecs)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("KP_FUZZ_RECORDINGS");

	fuzz_init();
	fuzz_readers_init();
	if (!dir) {
		fprintf(stderr,
			"KP_FUZZ_RECORDINGS: set it to a folder of recordings (run.sh does)\n");
		abort();
	}
	load_all(dir);
	return 0;
}

/* The statement of an edit: ?1 the value (set, add), ?2 the row's place in its table. */
static sqlite3_stmt *edit_stmt(struct rec *r, struct table *t, int col, enum edit e)
{
	sqlite3_stmt **st = &t->st[col][e];
	char sql[1024];
	size_t n;
	int i;

	if (*st)
		return *st;
	if (e == E_SET) {
		snprintf(sql, sizeof(sql),
			 "UPDATE main.\"%s\" SET \"%s\" = ?1 WHERE rowid ="
			 " (SELECT rowid FROM main.\"%s\" LIMIT 1 OFFSET ?2)",
			 t->name, t->cols[col], t->name);
	} else if (e == E_DEL) {
		snprintf(sql, sizeof(sql),
			 "DELETE FROM main.\"%s\" WHERE rowid ="
			 " (SELECT rowid FROM main.\"%s\" LIMIT 1 OFFSET ?2)",
			 t->name, t->name);
	} else {
		/* a copy of the row with the value in col: OR IGNORE, a key may be taken */
		n = snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO main.\"%s\" SELECT ",
			     t->name);
		for (i = 0; i < t->ncols && n < sizeof(sql); i++)
			n += snprintf(sql + n, sizeof(sql) - n, i == col ? "%s?1" : "%s\"%s\"",
				      i ? ", " : "", t->cols[i]);
		if (n < sizeof(sql))
			snprintf(sql + n, sizeof(sql) - n, " FROM main.\"%s\" LIMIT 1 OFFSET ?2",
				 t->name);
	}
	if (sqlite3_prepare_v3(query_db(r->df), sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL))
		abort();
	return *st;
}

/* What is left of the input. */
struct cursor {
	const uint8_t *p;
	size_t n;
};

static bool take(struct cursor *c, void *out, size_t n)
{
	if (c->n < n)
		return false;
	memcpy(out, c->p, n);
	c->p += n;
	c->n -= n;
	return true;
}

/* The bounds check.c's rules have, and one past them. */
static const int64_t edges[] = {
	0, 1, -1, -2, 2, 4096, 4097, 65536, 2147483647, 2147483648LL, -2147483648LL,
	-2147483649LL, 4294967296LL, 1099511627776LL, 1099511627777LL,
	1152921504606846976LL, 1152921504606846977LL, INT64_MAX, INT64_MIN,
};

/* The lengths of long texts: check.c's bounds for names and texts, and one past them. */
static const size_t longs[] = {4095, 4096, 4097};

/* n bytes of ch bound to ?1 as text. */
static bool long_text(sqlite3_stmt *st, uint8_t ch, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memset(s, ch, n);
	return !sqlite3_bind_text(st, 1, s, n, free);
}

/*
 * A value from the input bound to ?1: a type byte, then NULL, an integer
 * (8 bytes, 1 byte, or one of edges), text or a blob (a length byte and
 * its bytes), a real (8 bytes), or a long text (a byte picking one of
 * longs, then the byte repeated).
 */
static bool value(struct cursor *c, sqlite3_stmt *st)
{
	uint8_t type, b[2], len;
	int64_t i = 0;
	double d;

	if (!take(c, &type, 1))
		return false;
	switch (type % 8) {
	case 0:
		return !sqlite3_bind_null(st, 1);
	case 1:
		return take(c, &i, 8) && !sqlite3_bind_int64(st, 1, i);
	case 2:
		return take(c, b, 1) && !sqlite3_bind_int64(st, 1, (int8_t)b[0]);
	case 3:
		return take(c, b, 1) &&
		       !sqlite3_bind_int64(st, 1, edges[b[0] % (sizeof(edges) / sizeof(*edges))]);
	case 4:
	case 5:
		if (!take(c, &len, 1) || c->n < len)
			return false;
		i = type % 8 == 4 ? sqlite3_bind_text(st, 1, (const char *)c->p, len,
						    SQLITE_TRANSIENT)
				  : sqlite3_bind_blob(st, 1, c->p, len, SQLITE_TRANSIENT);
		c->p += len;
		c->n -= len;
		return !i;
	case 6:
		return take(c, &d, 8) && !sqlite3_bind_double(st, 1, d);
	default:
		if (!take(c, b, 2))
			return false;
		return long_text(st, b[1], longs[b[0] % (sizeof(longs) / sizeof(*longs))]);
	}
}

/* One edit of r's rows: false when the input ends before it does. */
static bool edit(struct rec *r, struct cursor *c)
{
	uint8_t op[3];
	struct table *t;
	enum edit e;
	sqlite3_stmt *st;
	int col;

	if (!take(c, op, sizeof(op)))
		return false;
	e = op[0] % E_KINDS;
	t = &r->t[op[1] % r->ntables];
	col = e == E_DEL ? 0 : op[0] / E_KINDS % t->ncols;
	st = edit_stmt(r, t, col, e);
	if (e != E_DEL && !value(c, st))
		return false;
	sqlite3_bind_int64(st, 2, op[2]);
	/* refused (a key taken, a NOT NULL column): the file could not hold it either */
	sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return true;
}

/* The checks of opening run again on df: 0 when its values pass. */
static int checked(struct datafile *df)
{
	char why[512];

	return datafile_recheck(df, why, sizeof(why));
}

/*
 * Reader v on r, other the second recording diff reads, as it is but for
 * its meta, read anew (it may be that of an earlier input's edits, rolled
 * back).  The readers' TEMP tables go with the rollback of r's transaction
 * and of one of other's.
 */
static void read_one(struct rec *r, struct rec *other, size_t v)
{
	struct datafile *df[2] = {r->df, other->df};
	const char *path[2] = {r->path, other->path};
	bool two = fuzz_read_two(v) && other != r;

	if (two)
		must(other->df, "BEGIN");
	if (!two || !checked(other->df))
		fuzz_read(df, path, v);
	if (two)
		must(other->df, "ROLLBACK");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = {data, size};
	struct rec *r;
	size_t v = size, i;
	uint8_t which;

	if (!take(&c, &which, 1))
		return 0;
	/* whether a reader runs, and which: a hash of the input, as mutations change it */
	for (i = 0; i < size; i++)
		v = v * 31 + data[i];
	r = &recs[which % nrecs];
	must(r->df, "BEGIN");
	while (edit(r, &c))
		;
	if (!checked(r->df) && v % READ_EVERY == 0)
		read_one(r, &recs[(which + 1) % nrecs], v / READ_EVERY);
	must(r->df, "ROLLBACK");
	return 0;
}

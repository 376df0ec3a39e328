// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorded ranges of an inline instance (inlines.ranges, "0xlo-0xhi
 * ..."), parsed by symbols/recorded_inlines.c as report --inline loads a
 * recording: the input is the ranges text, written into every row of the
 * inlines table of a copy of a real recording (KP_FUZZ_TEMPLATE, default
 * tests/golden/vm/data/inl-base.data), then the file is reported with --inline.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>

#include "fuzz.h"
#include "data/datafile.h"
#include "report/report.h"

static sqlite3 *db;
static sqlite3_stmt *set;

static void copy_template(const char *to)
{
	const char *from = getenv("KP_FUZZ_TEMPLATE") ?: "tests/golden/vm/data/inl-base.data";
	char buf[65536];
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	size_t n;

	if (!in || !out) {
		fprintf(stderr, "fuzz_ranges: cannot copy %s to %s\n", from, to);
		abort();
	}
	while ((n = fread(buf, 1, sizeof(buf), in)))
		if (fwrite(buf, 1, n, out) != n)
			abort();
	fclose(in);
	if (fclose(out))
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path;

	fuzz_init();
	path = fuzz_file((const uint8_t *)"", 0, ".data");
	copy_template(path);
	/* the harness's writer: no journal, no sync, for speed */
	if (sqlite3_open(path, &db) ||
	    sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", NULL, NULL,
			 NULL) ||
	    sqlite3_prepare_v2(db, "UPDATE inlines SET ranges = ?1", -1, &set, NULL)) {
		fprintf(stderr, "fuzz_ranges: %s\n", sqlite3_errmsg(db));
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_opts o = {.sort = S_TOTAL, .top = 20, .json = size & 1, .inline_table = true};
	struct datafile *df;
	char why[512];

	sqlite3_bind_text(set, 1, (const char *)data, size, SQLITE_TRANSIENT);
	if (sqlite3_step(set) != SQLITE_DONE)
		abort();
	sqlite3_reset(set);
	/* ranges refused when the file is opened are one clear error too */
	if (datafile_open(&df, fuzz_path, why, sizeof(why)))
		return 0;
	/* --inline has no feature table: no mapping needed */
	report_show(df, NULL, "", NULL, &o);
	datafile_close(df);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorded ranges of an inline instance (inlines.ranges and
 * block_inlines.ranges, "0xlo-0xhi ..."): the input is the ranges text,
 * parsed by data/inline_tables.c as opening a recording checks it and as its
 * readers walk it.  Every range given out must be one with lo < hi, at most
 * 4096 of them, and a refusal must be one printable line.
 *
 * The text goes to the parser directly, with the recording (KP_FUZZ_TEMPLATE,
 * default tests/golden/vm/data/inl-base.data) opened once for the refusal's
 * wording: written into a recording and opened anew, each input cost a whole
 * open and check (~90 executions a second).  The datafile target reaches the
 * same parser through whole files.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "fuzz.h"
#include "data/datafile.h"
#include "data/inline_tables.h"

static struct datafile *df;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("KP_FUZZ_TEMPLATE") ?: "tests/golden/vm/data/inl-base.data";
	char why[512];

	fuzz_init();
	if (datafile_open(&df, path, why, sizeof(why))) {
		fprintf(stderr, "fuzz_ranges: %s: %s\n", path, why);
		abort();
	}
	return 0;
}

static int check_range(__u64 lo, __u64 hi, void *ctx)
{
	unsigned int *n = ctx;

	if (lo >= hi || ++*n > 4096)
		abort(); /* the parser let through what its readers trust not to be */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), why[512];
	unsigned int n = 0;
	const char *c;
	int err;

	err = inline_tables_ranges_of(df, "inlines", 1, text, check_range, &n);
	if (err && (err != -EBADMSG || !datafile_why(df, why, sizeof(why))))
		abort(); /* a refusal is -EBADMSG with its reason, nothing else */
	for (c = err ? why : ""; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			abort();
	free(text);
	return 0;
}

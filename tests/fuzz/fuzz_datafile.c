// SPDX-License-Identifier: GPL-2.0-only
/*
 * A data file from anyone: the input is the file's bytes (seeds: the golden
 * recordings), checked as report, folded, annotate, diff and features check
 * a file they open (datafile_load: the same checks, from memory rather than
 * a file written anew per input) and read by one of those commands'
 * printers (readers.h), chosen by a hash of the input (opening checks the
 * file whole, the slow part: one command per input), output to /dev/null.
 * Its rows alone, through one open per recording, are fuzz_datafile_rows'.
 */
#include <stdint.h>

#include "fuzz.h"
#include "readers.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	fuzz_readers_init();
	return 0;
}

/* The input checked as a reader checks a file it opens: NULL when refused. */
static struct datafile *load(const uint8_t *data, size_t size, const char *path)
{
	struct datafile *df;
	char why[512];

	return datafile_load(&df, path, data, size, why, sizeof(why)) ? NULL : df;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const path[2] = {"input.data", "input.data"};
	struct datafile *df[2] = {NULL, NULL};
	size_t v = 0, i;

	/* which of each command's ways: a hash of the input, as mutations change it */
	for (i = 0; i < size; i += 61)
		v = v * 31 + data[i];
	v += size;
	/* one command's way per input: each opens and checks the file whole, the slow part */
	df[0] = load(data, size, path[0]);
	/* diff reads the file against itself, opened twice as diff opens its two */
	if (df[0] && fuzz_read_two(v))
		df[1] = load(data, size, path[1]);
	if (df[0] && (df[1] || !fuzz_read_two(v)))
		fuzz_read(df, path, v);
	if (df[1])
		datafile_close(df[1]);
	if (df[0])
		datafile_close(df[0]);
	return 0;
}

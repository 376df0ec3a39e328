/* SPDX-License-Identifier: GPL-2.0-only */
/* The workloads' shared command line: [-h | --help | COUNT]. */
#ifndef KP_COUNT_ARG_H
#define KP_COUNT_ARG_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The COUNT argument, or dflt without one.  0 means exit 0 (help printed),
 * -1 exit 1 (the reason printed).
 */
static long long count_arg(int argc, char **argv, long long dflt, const char *what,
			   void (*usage)(FILE *f, const char *prog))
{
	long long n;
	char *end;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout, argv[0]);
		return 0;
	}
	if (argc > 2) {
		usage(stderr, argv[0]);
		return -1;
	}
	if (argc < 2)
		return dflt;
	errno = 0;
	n = strtoll(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n < 1) {
		fprintf(stderr, "%s: bad %s '%s'\n", argv[0], what, argv[1]);
		return -1;
	}
	return n;
}

#endif

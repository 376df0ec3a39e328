// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf: what a kernel hardening feature costs, and where. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		commands_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("kprotperf %s\n", KPROTPERF_VERSION);
		return 0;
	}
	c = commands_find(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "kprotperf: unknown command '%s' (see kprotperf --help)\n", argv[1]);
	return 2;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf folded: one line per distinct stack, "comm;user;...;kernel_[k] N",
 * root first, as flamegraph.pl and speedscope read it.  N is a sample count
 * (the events the samples stand for when sampled on an event: record -e),
 * or with --weight latency the ns spent in a probed function entered from
 * that kernel stack (the line then starts with the function's name).
 */
#include "report/report_folded.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "symbols/folded_stacks.h"
#include "symbols/stacks.h"
#include "symbols/user_frames.h"

static int print_line(const char *line, long long n, void *ctx)
{
	printf("%s %lld\n", line, n);
	return 0;
}

int folded_print(struct datafile *df, struct kernel_dwarf *kd, const struct folded_frames *fr,
		 bool latency, const char *func)
{
	/* user files are read only for the inline frames the lines show */
	bool need = fr->user && fr->inlines;
	struct user_files *uf = need ? user_files_new() : NULL;
	int err = need && !uf ? -ENOMEM : stacks_name_frames(df, kd, uf);

	user_files_free(uf);
	if (err)
		return err;
	if (latency)
		return folded_latency(df, fr, func, print_line, NULL);
	return folded_events(df, fr, print_line, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf boot's reading of a guest's kernel log (a raw folder's
 * dmesg.txt, boot/dmesg.c): the input is the log (seeds: a boot's lines,
 * hostile ones among them); every initcall it keeps has a name without
 * its "+0x..", times within what a data file holds, and a clock offset
 * or why there is none.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/dmesg.h"
#include "fuzz.h"

#define NS_MAX (1ULL << 60)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct boot_dmesg d;
	char why[256];
	size_t i;
	int err = boot_dmesg_read(fuzz_file(data, size, ".txt"), &d, why, sizeof(why));

	for (i = 0; !err && i < d.n; i++) {
		const struct boot_initcall *ic = &d.ic[i];

		if (!ic->name[0] || strchr(ic->name, '+') || strchr(ic->name, ' ') ||
		    ic->start_ns > NS_MAX || ic->ns > NS_MAX)
			abort();
		if (!d.has_initcalls_end)
			abort();
	}
	if (!err && d.has_clock_offset && (d.clock_offset_ns > NS_MAX || d.why_no_offset[0]))
		abort();
	if (!err && !d.has_clock_offset && !d.why_no_offset[0])
		abort();
	boot_dmesg_free(&d);
	return 0;
}

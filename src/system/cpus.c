// SPDX-License-Identifier: GPL-2.0-only
/* The machine's CPUs: the one reader of which are online. */
#include "system/cpus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses /sys/devices/system/cpu/online ("0-3,5,7-8"). */
int cpus_online(unsigned char *mask, int max)
{
	char buf[1024], *p = buf, *end;
	int top = 0, lo, hi;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/online", "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	memset(mask, 0, (max + 7) / 8);
	while (*p && *p != '\n') {
		lo = hi = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (; lo <= hi && lo < max; lo++)
			mask[lo / 8] |= 1 << (lo % 8);
		top = hi + 1 > top ? hi + 1 : top;
		p = *end == ',' ? end + 1 : end;
	}
	return top < max ? top : max;
}

bool cpus_has(const unsigned char *mask, int cpu)
{
	return mask[cpu / 8] & (1 << (cpu % 8));
}

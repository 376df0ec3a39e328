// SPDX-License-Identifier: GPL-2.0-only
/* Numbers as the tables print them. */
#include <stdio.h>

#include "util/fmt.h"

void fmt_ns(char *buf, size_t len, unsigned long long ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", ns / 1e9);
}

void fmt_count(char *buf, size_t len, unsigned long long v)
{
	char digits[32];
	size_t n, i, o = 0;

	n = snprintf(digits, sizeof(digits), "%llu", v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
}

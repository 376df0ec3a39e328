// SPDX-License-Identifier: GPL-2.0-only
/* Numbers as the tables print them. */
#include "util/fmt.h"

#include <math.h>
#include <stdio.h>

/*
 * Sums and products of a data file's numbers (2^40 samples times a period)
 * can pass 2^64, where a conversion to an integer type is undefined: the
 * value stays a double, rounded to whole ns (as the tables' integers are),
 * its magnitude formatted and its sign put before.
 */
void fmt_ns(char *buf, size_t len, double ns)
{
	const char *sign = ns < 0 ? "-" : "";
	double a = round(fabs(ns));

	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (isinf(ns))
		snprintf(buf, len, "%sinf", sign);
	else if (a < 1000)
		snprintf(buf, len, "%s%.0fns", sign, a);
	else if (a < 1e6)
		snprintf(buf, len, "%s%.2fus", sign, a / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%s%.2fms", sign, a / 1e6);
	else if (a < 1e18)
		snprintf(buf, len, "%s%.3fs", sign, a / 1e9);
	else /* 32 years and more: "%.3f" would take up to 300 digits */
		snprintf(buf, len, "%s%.3es", sign, a / 1e9);
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

void fmt_amount(char *buf, size_t len, double x, bool time, bool per_call)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else if (time)
		fmt_ns(buf, len, x);
	else if (per_call && x && fabs(x) < 0.1)
		snprintf(buf, len, "%.2g", x);
	else if (per_call && fabs(x) < 100)
		snprintf(buf, len, "%.2f", x);
	else if (x < 0 || x >= 1e18)
		snprintf(buf, len, "%.4g", x);
	else
		fmt_count(buf, len, llround(x));
}

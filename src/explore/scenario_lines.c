// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the line-based files of scenarios (explore.conf, scenario files):
 * comments, blanks, whole numbers, and errors that name their line.
 */
#include "explore/scenario_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/textline.h"

/* No value of any action comes near it, and twice it still fits a long long. */
#define NUMBER_MAX (1LL << 62)

int scn_bad(struct scn_src *p, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = textline_error(p->why, p->len, p->file, p->line, fmt, ap);
	va_end(ap);
	return err;
}

/* The line without its comment and the white space around. */
static char *strip(char *s)
{
	s[strcspn(s, "#")] = 0;
	return textline_trim(s);
}

int scn_lines(FILE *in, struct scn_src *p, int (*fn)(struct scn_src *p, char *line, void *ctx),
	      void *ctx)
{
	char *buf = NULL, *s;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&buf, &cap, in) >= 0) {
		p->line++;
		s = strip(buf);
		if (*s)
			err = fn(p, s, ctx);
	}
	free(buf);
	if (!err && ferror(in))
		err = -EIO;
	return err;
}

int scn_number(const char *s, long long *v)
{
	long long x = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		x = x * 10 + (*s - '0');
		if (x > NUMBER_MAX)
			return -EINVAL;
	}
	*v = x;
	return 0;
}

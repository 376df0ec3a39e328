// SPDX-License-Identifier: GPL-2.0-only
/* What the readers of line-based files share (textline.h). */
#include "util/textline.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

char *textline_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = 0;
	return s;
}

int textline_error(char *why, size_t len, const char *file, unsigned int line, const char *fmt,
		   va_list ap)
{
	int n = line ? snprintf(why, len, "%s:%u: ", file, line) : snprintf(why, len, "%s: ", file);

	if (n >= 0 && (size_t)n < len)
		vsnprintf(why + n, len - n, fmt, ap);
	return -EINVAL;
}

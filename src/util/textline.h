/* SPDX-License-Identifier: GPL-2.0-only */
/* What the readers of line-based files (features.conf, explore.conf, scenarios) share. */
#ifndef KP_TEXTLINE_H
#define KP_TEXTLINE_H

#include <stdarg.h>
#include <stddef.h>

/* s without its leading and trailing white space, cut in place. */
char *textline_trim(char *s);
/*
 * "FILE:LINE: " (line 0: "FILE: ") and the message into why, for one
 * error line naming where; returns -EINVAL, the error such a file is.
 */
int textline_error(char *why, size_t len, const char *file, unsigned int line, const char *fmt,
		   va_list ap);

#endif

// SPDX-License-Identifier: GPL-2.0-only
/* Escaping text from a data file for a terminal or a folded line (esc.h). */
#include "util/esc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the longest escape of one unit: U+FFFE in XML, "\xef\xbf\xbe" */
#define ESC_UNIT 13

static bool cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

int esc_utf8(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (s[0] < 0x80)
		return s[0] ? 1 : 0;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return -1; /* a continuation byte, an overlong lead (c0, c1) or past U+10FFFF */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	/* the second byte's range rules out overlong forms, surrogates and > U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return -1;
	for (i = 2; i < n; i++)
		if (!cont(s[i]))
			return -i;
	return n;
}

/* The XML escape of the valid, non-control character at s into out; "" when none. */
static void xml_unit(const char *s, char out[ESC_UNIT])
{
	/* no &apos;: every attribute value is in double quotes */
	static const char *const entity[] = {
		['&'] = "&amp;",
		['<'] = "&lt;",
		['>'] = "&gt;",
		['"'] = "&quot;",
	};
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] < sizeof(entity) / sizeof(entity[0]) && entity[u[0]])
		strcpy(out, entity[u[0]]);
	else if (u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf))
		snprintf(out, ESC_UNIT, "\\x%02x\\x%02x\\x%02x", u[0], u[1], u[2]);
}

/*
 * The escape of the character at s into out (NUL-terminated), or "" when
 * it prints as it is; *used: the bytes of s it stands for.
 */
static void unit(const char *s, enum esc_mode m, char out[ESC_UNIT], int *used)
{
	unsigned char c = *s;
	int n = esc_utf8(s);

	*out = 0;
	*used = n < 0 ? 1 : n;
	if (c == '\n' || c == '\r' || c == '\t')
		snprintf(out, ESC_UNIT, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
	else if (c < 0x20 || c == 0x7f || n < 0)
		snprintf(out, ESC_UNIT, "\\x%02x", c);
	else if (c == 0xc2 && (unsigned char)s[1] < 0xa0)
		snprintf(out, ESC_UNIT, "\\x%02x\\x%02x", c, (unsigned char)s[1]);
	else if (c == ';' && m == ESC_FRAME)
		strcpy(out, ":");
	else if (m == ESC_XML)
		xml_unit(s, out);
}

/* s escaped to f (NULL: only counted), cut before limit bytes would be passed. */
static size_t put(FILE *f, const char *s, enum esc_mode m, size_t limit)
{
	char e[ESC_UNIT];
	size_t n = 0, k;
	int used;

	for (; *s; s += used) {
		unit(s, m, e, &used);
		k = *e ? strlen(e) : (size_t)used;
		if (n + k > limit)
			break;
		if (f)
			fwrite(*e ? e : s, 1, k, f);
		n += k;
	}
	return n;
}

size_t esc_fputs(FILE *f, const char *s, enum esc_mode m)
{
	return put(f, s, m, SIZE_MAX);
}

size_t esc_len(const char *s, enum esc_mode m)
{
	return put(NULL, s, m, SIZE_MAX);
}

/* One conversion of a format: %[flags][width][.prec][length]conv. */
struct conv {
	char flags[8], length[3], c;
	int width, prec; /* -1: none */
};

/* Reads the conversion at fmt (after its '%'), taking '*' arguments; returns its end. */
static const char *parse(const char *fmt, struct conv *cv, va_list *ap)
{
	size_t n = strspn(fmt, "-+ #0");

	*cv = (struct conv){.width = 0, .prec = -1};
	memcpy(cv->flags, fmt, n < sizeof(cv->flags) - 2 ? n : sizeof(cv->flags) - 2);
	fmt += n;
	if (*fmt == '*') {
		cv->width = va_arg(*ap, int);
		fmt++;
		/* printf: a negative '*' width is the '-' flag */
		if (cv->width < 0) {
			strcat(cv->flags, "-");
			cv->width = -cv->width;
		}
	} else {
		cv->width = strtol(fmt, (char **)&fmt, 10);
	}
	if (*fmt == '.') {
		fmt++;
		cv->prec = *fmt == '*' ? va_arg(*ap, int) : (int)strtol(fmt, (char **)&fmt, 10);
		fmt += *fmt == '*';
	}
	n = strspn(fmt, "hlzjt");
	memcpy(cv->length, fmt, n < sizeof(cv->length) ? n : sizeof(cv->length) - 1);
	cv->c = fmt[n];
	return fmt + n + (fmt[n] != 0);
}

/* A %s: the argument escaped, padded to the width. */
static int put_str(FILE *f, const struct conv *cv, const char *s)
{
	size_t n, w = cv->width, limit = cv->prec < 0 ? SIZE_MAX : (size_t)cv->prec;
	bool left = strchr(cv->flags, '-');

	s = s ?: "(null)";
	n = put(NULL, s, ESC_TEXT, limit);
	if (!left && n < w)
		fprintf(f, "%*s", (int)(w - n), "");
	put(f, s, ESC_TEXT, limit);
	if (left && n < w)
		fprintf(f, "%*s", (int)(w - n), "");
	return n < w ? w : n;
}

/* Any other conversion: fprintf's, its argument taken by its type (l z j t: long, LP64). */
static int put_other(FILE *f, const struct conv *cv, va_list *ap)
{
	bool ll = !strcmp(cv->length, "ll"), wide = *cv->length && strchr("lzjt", *cv->length);
	int w = cv->width, p = cv->prec;
	char spec[32];

	snprintf(spec, sizeof(spec), "%%%s*.*%s%c", cv->flags, wide ? "ll" : cv->length, cv->c);
	if (strchr("eEfFgGaA", cv->c))
		return fprintf(f, spec, w, p, va_arg(*ap, double));
	if (cv->c == 'p')
		return fprintf(f, spec, w, p, va_arg(*ap, void *));
	if (cv->c == 'd' || cv->c == 'i') {
		if (wide)
			return fprintf(f, spec, w, p,
				       ll ? va_arg(*ap, long long) : (long long)va_arg(*ap, long));
		return fprintf(f, spec, w, p, va_arg(*ap, int));
	}
	if (wide)
		return fprintf(f, spec, w, p,
			       ll ? va_arg(*ap, unsigned long long)
				  : (unsigned long long)va_arg(*ap, unsigned long));
	return fprintf(f, spec, w, p, va_arg(*ap, unsigned int));
}

int esc_printf(FILE *f, const char *fmt, ...)
{
	struct conv cv;
	va_list ap;
	const char *pct;
	int n, total = 0;

	va_start(ap, fmt);
	while (*fmt) {
		pct = strchrnul(fmt, '%');
		total += fwrite(fmt, 1, pct - fmt, f);
		if (!*pct)
			break;
		fmt = parse(pct + 1, &cv, &ap);
		if (cv.c == '%')
			n = fputc('%', f) == EOF ? -1 : 1;
		else if (cv.c == 's')
			n = put_str(f, &cv, va_arg(ap, const char *));
		else if (cv.c && strchr("diouxXcpeEfFgGaA", cv.c))
			n = put_other(f, &cv, &ap);
		else
			n = 0; /* %n and the unknown: nothing */
		total += n > 0 ? n : 0;
	}
	va_end(ap);
	return ferror(f) ? -1 : total;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON writer behind --json: it writes as it goes, nothing is built in
 * memory, and each nesting level remembers whether its next member needs a
 * comma.
 */
#include "util/json.h"

#include <math.h>

#include "util/esc.h"

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
}

/*
 * Always valid JSON (RFC 8259) whatever the bytes: control characters (C0,
 * DEL, C1) as \u00XX, each invalid UTF-8 sequence (its longest start of a
 * character) as one U+FFFD.
 */
static void put_string(FILE *f, const char *s)
{
	int n;

	fputc('"', f);
	for (; *s; s += n < 0 ? -n : n) {
		unsigned char c = *s;

		n = esc_utf8(s);
		if (n < 0)
			fputs("\\ufffd", f);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (c == 0xc2 && (unsigned char)s[1] < 0xa0)
			fprintf(f, "\\u%04x", (unsigned char)s[1]);
		else
			fwrite(s, 1, n, f);
	}
	fputc('"', f);
}

static void member(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

void json_open(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void json_close(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_str(struct json *j, const char *key, const char *v)
{
	member(j, key);
	if (v)
		put_string(j->f, v);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, unsigned long long v)
{
	member(j, key);
	fprintf(j->f, "%llu", v);
}

void json_i64(struct json *j, const char *key, long long v)
{
	member(j, key);
	fprintf(j->f, "%lld", v);
}

/*
 * JSON has no NaN or infinity: null.  %.17g reads back as the same double;
 * an integral value (ns) is printed as the integer it is, not 1.4071e+09.
 */
void json_double(struct json *j, const char *key, double v)
{
	member(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (v == trunc(v) && fabs(v) < 1e18)
		fprintf(j->f, "%.0f", v);
	else
		fprintf(j->f, "%.17g", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* A small streaming JSON writer: keys, strings and numbers, commas handled. */
#ifndef KP_JSON_H
#define KP_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_begin(struct json *j, FILE *f);
/* c is '{' or '['; key is NULL inside arrays and at the top. */
void json_open(struct json *j, const char *key, char c);
void json_close(struct json *j, char c);
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, unsigned long long v);
void json_i64(struct json *j, const char *key, long long v);
/* NaN and infinities (no JSON number) as null */
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_end(struct json *j);

#endif

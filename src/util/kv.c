// SPDX-License-Identifier: GPL-2.0-only
/*
 * Key-value lists: what a recording says about its kernel and machine is
 * gathered as one before it is written, and read back as one by diff.
 */
#include "util/kv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

int kv_add(struct kv_list *l, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *value;
	size_t i;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&value, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].key, key)) {
			free(l->v[i].value);
			l->v[i].value = value;
			return 0;
		}
	}

	if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		goto err_value;
	l->v[l->n].key = strdup(key);
	if (!l->v[l->n].key)
		goto err_value;
	l->v[l->n].value = value;
	l->n++;
	return 0;

err_value:
	free(value);
	return -ENOMEM;
}

const char *kv_get(const struct kv_list *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].key, key))
			return l->v[i].value;
	}
	return NULL;
}

void kv_list_free(struct kv_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->cap = 0;
}

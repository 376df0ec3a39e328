// SPDX-License-Identifier: GPL-2.0-only
/* The resolver's caches: a 64-bit key to a value, open addressing (per PC, per function). */
#include "datatype/dtype_int.h"

#include <errno.h>
#include <stdlib.h>

static size_t slot(__u64 key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key & (cap - 1);
}

void *dt_cache_get(const struct dt_cache *c, __u64 key, bool *found)
{
	size_t j;

	*found = false;
	if (!c->cap)
		return NULL;
	for (j = slot(key, c->cap); c->keys[j]; j = (j + 1) & (c->cap - 1))
		if (c->keys[j] == key + 1) {
			*found = true;
			return c->vals[j];
		}
	return NULL;
}

static int grow(struct dt_cache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 256, i, j;
	__u64 *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < c->cap; i++) {
		if (!c->keys[i])
			continue;
		for (j = slot(c->keys[i] - 1, cap); keys[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = c->keys[i];
		vals[j] = c->vals[i];
	}
	free(c->keys);
	free(c->vals);
	c->keys = keys;
	c->vals = vals;
	c->cap = cap;
	return 0;
}

/* key must not be there yet. */
int dt_cache_put(struct dt_cache *c, __u64 key, void *val)
{
	size_t j;

	if ((c->n + 1) * 2 > c->cap && grow(c))
		return -ENOMEM;
	for (j = slot(key, c->cap); c->keys[j]; j = (j + 1) & (c->cap - 1))
		;
	c->keys[j] = key + 1;
	c->vals[j] = val;
	c->n++;
	return 0;
}

void dt_cache_free(struct dt_cache *c, void (*free_val)(void *val))
{
	size_t i;

	for (i = 0; free_val && i < c->cap; i++)
		if (c->keys[i])
			free_val(c->vals[i]);
	free(c->keys);
	free(c->vals);
	*c = (struct dt_cache){0};
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The resolver's caches: a 64-bit key to a value, open addressing (per PC, per function);
 * three keys to a value, chained under their hash (a type, an offset, a hint).
 */
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

/* A memo's entry: its keys, its value, the next under the same hash. */
struct dt_memo {
	__u64 k[3];
	void *val;
	struct dt_memo *next;
};

static __u64 hash3(__u64 a, __u64 b, __u64 c)
{
	return (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^
	       (c * 0x165667b19e3779f9ULL);
}

void *dt_memo_get(const struct dt_cache *c, __u64 a, __u64 b, __u64 d, bool *found)
{
	const struct dt_memo *m = dt_cache_get(c, hash3(a, b, d), found);

	for (; m; m = m->next)
		if (m->k[0] == a && m->k[1] == b && m->k[2] == d)
			return m->val;
	*found = false;
	return NULL;
}

/* the keys must not be there yet */
int dt_memo_put(struct dt_cache *c, __u64 a, __u64 b, __u64 d, void *val)
{
	__u64 h = hash3(a, b, d);
	struct dt_memo *m = malloc(sizeof(*m)), *head;
	size_t j;
	bool found;

	if (!m)
		return -ENOMEM;
	*m = (struct dt_memo){{a, b, d}, val, NULL};
	head = dt_cache_get(c, h, &found);
	if (!found)
		return dt_cache_put(c, h, m) ? (free(m), -ENOMEM) : 0;
	m->next = head; /* after the head, which the table points to */
	for (j = slot(h, c->cap); c->keys[j] != h + 1; j = (j + 1) & (c->cap - 1))
		;
	c->vals[j] = m;
	return 0;
}

void dt_memo_free(struct dt_cache *c, void (*free_val)(void *val))
{
	struct dt_memo *m, *next;
	size_t i;

	for (i = 0; i < c->cap; i++) {
		for (m = c->keys[i] ? c->vals[i] : NULL; m; m = next) {
			next = m->next;
			if (free_val)
				free_val(m->val);
			free(m);
		}
	}
	dt_cache_free(c, NULL);
}

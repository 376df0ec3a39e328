/* SPDX-License-Identifier: GPL-2.0-only */
/* Key-value lists of strings: a key is set once, a second kv_add replaces its value. */
#ifndef KP_KV_H
#define KP_KV_H

#include <stddef.h>

struct kv {
	char *key;
	char *value;
};

struct kv_list {
	struct kv *v;
	size_t n, cap;
};

int kv_add(struct kv_list *l, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *kv_get(const struct kv_list *l, const char *key);
void kv_list_free(struct kv_list *l);

#endif

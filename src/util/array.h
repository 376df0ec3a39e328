/* SPDX-License-Identifier: GPL-2.0-only */
/* Growable arrays: one growth rule, doubling, for every list the tree builds up. */
#ifndef KP_ARRAY_H
#define KP_ARRAY_H

#include <stddef.h>

/*
 * Room for at least need elements of size bytes in the growable array *arr
 * of *cap elements, doubling it: 0, or -ENOMEM with *arr left as it was.
 */
int array_reserve(void **arr, size_t *cap, size_t need, size_t size);

#endif

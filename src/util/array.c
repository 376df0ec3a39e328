// SPDX-License-Identifier: GPL-2.0-only
/* Growable arrays: one growth rule, doubling, for every list the tree builds up. */
#include "util/array.h"

#include <errno.h>
#include <stdlib.h>

int array_reserve(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *tmp;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	tmp = reallocarray(*arr, n, size);
	if (!tmp)
		return -ENOMEM;
	*arr = tmp;
	*cap = n;
	return 0;
}

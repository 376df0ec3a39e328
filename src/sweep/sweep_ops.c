// SPDX-License-Identifier: GPL-2.0-only
/* The core operations by name (sweep_ops.h). */
#include "sweep/sweep_ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_ops.h"
#include "sweep/sweep_opts.h"

#define NAME(id, name, count, about) name,
static const char *const names[] = {CORE_OPS(NAME)};
#undef NAME
#define NOPS (sizeof(names) / sizeof(names[0]))

_Static_assert(NOPS <= SWEEP_OPS_MAX, "SWEEP_OPS_MAX is smaller than core-ops' operations");

size_t sweep_ops_all(const char **ops)
{
	size_t i;

	for (i = 0; i < NOPS; i++)
		ops[i] = names[i];
	return NOPS;
}

int sweep_ops_known(const char *name)
{
	size_t i;

	for (i = 0; i < NOPS; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

static size_t index_of(const char *const *v, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(v[i]) == len && !strncmp(v[i], s, len))
			return i;
	return n;
}

/* "no operation 'X': core-ops has A, B, ..." */
static int unknown(const char *s, size_t w, char *why, size_t len)
{
	size_t i, used;

	used = snprintf(why, len, "no operation '%.*s': core-ops has ", (int)(w > 64 ? 64 : w), s);
	for (i = 0; i < NOPS && used < len; i++)
		used += snprintf(why + used, len - used, "%s%s", i ? ", " : "", names[i]);
	return -EINVAL;
}

int sweep_ops_parse(const char *list, const char **ops, size_t max, char *why, size_t len)
{
	const char *s = list;
	size_t n = 0, k, w;

	while (*s) {
		w = strcspn(s, ",");
		k = index_of(names, NOPS, s, w);
		if (k == NOPS)
			return unknown(s, w, why, len);
		if (index_of(ops, n, s, w) == n && n < max)
			ops[n++] = names[k];
		s += w + (s[w] == ',');
	}
	if (!n) {
		snprintf(why, len, "no operation in '%s': give a comma-separated list", list);
		return -EINVAL;
	}
	return n;
}

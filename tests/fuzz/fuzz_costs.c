// SPDX-License-Identifier: GPL-2.0-only
/*
 * A cost table of est_cycles (model/costs.h) read as untrusted input: the
 * input is the table's text (seeds: the shipped tables and edits of one).
 * A table refused says why; one accepted has every number finite and in
 * its bounds and every string terminated, free of control characters.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/costs.h"

static void clean(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	if (n == len)
		abort();
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model_cost_sources src;
	struct model_costs c;
	char why[768];
	int k, err;

	if (size > MODEL_COSTS_MAX)
		return 0;
	err = model_costs_parse((const char *)data, size, "fuzz", &c, &src, why, sizeof(why));
	if (err && (err != -EINVAL || !why[0]))
		abort();
	if (err)
		return 0;
	if (!(c.ghz >= 0.05 && c.ghz <= 20 && c.cpi >= 0.01 && c.cpi <= 100))
		abort();
	for (k = 0; k < MC_KEYS; k++) {
		if (!(c.c[k] >= 0 && c.c[k] <= 1e9) || !src.s[k][0])
			abort();
		clean(src.s[k], sizeof(src.s[k]));
	}
	for (k = 0; c.has_core && k < MK_KEYS; k++)
		if (!(c.core[k] >= model_core_groups[model_core_fields[k].group].lo &&
		      c.core[k] <= 1e6))
			abort();
	for (k = 0; c.has_core && k < MG_KEYS; k++) {
		if (!src.core[k][0])
			abort();
		clean(src.core[k], sizeof(src.core[k]));
	}
	clean(c.name, sizeof(c.name));
	clean(c.vendor, sizeof(c.vendor));
	clean(c.model_name, sizeof(c.model_name));
	return 0;
}

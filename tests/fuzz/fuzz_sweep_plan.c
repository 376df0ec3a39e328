// SPDX-License-Identifier: GPL-2.0-only
/*
 * What kprotperf sweep reads of a DIR someone else may have filled: its
 * plan (sweep.plan: the first byte of the input even) or a job file
 * (DIR/VARIANT/job: odd), the rest of the input being the file.  Seeds:
 * docs/sweep/plan-6.1.txt, plans of every refusal, a job file.  A plan
 * accepted has a base and another variant, each named as a folder may be,
 * each resolving to a setup that prints; a refusal is one line naming the
 * file.  A job file accepted has a variant, a status and its runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sweep/sweep_jobfile.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_setup.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	return 0;
}

static void plan(const uint8_t *data, size_t size)
{
	char why[512] = "", line[1024];
	struct sweep_setup s;
	struct sweep_plan p;
	size_t i;

	if (sweep_plan_parse("plan", (const char *)data, size, &p, why, sizeof(why))) {
		if (strncmp(why, "plan", 4) || strchr(why, '\n'))
			abort();
		sweep_plan_free(&p);
		return;
	}
	if (p.n < 2 || p.n > SWEEP_VARIANTS_MAX || strcmp(p.v[p.base].name, "base"))
		abort();
	for (i = 0; i < p.n; i++) {
		if (!p.v[i].name[0] ||
		    strspn(p.v[i].name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
					"opqrstuvwxyz0123456789_-+") != strlen(p.v[i].name))
			abort();
		sweep_setup_of(&p, &p.v[i], &s);
		if (s.nsets > SWEEP_WORDS_MAX || s.nparams > SWEEP_WORDS_MAX)
			abort();
		sweep_setup_line(&s, line, sizeof(line));
		if (!line[0] || strchr(line, '\n'))
			abort();
	}
	sweep_plan_free(&p);
}

static void job(const uint8_t *data, size_t size)
{
	struct sweep_jobfile j;
	char why[512] = "";
	int err = sweep_jobfile_read(fuzz_file(data, size, ""), &j, why, sizeof(why));

	if (err && (!why[0] || strchr(why, '\n')))
		abort();
	if (!err && (!j.variant[0] || !j.status[0] || !j.repeat))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		job(data + 1, size - 1);
	else
		plan(data + 1, size - 1);
	return 0;
}

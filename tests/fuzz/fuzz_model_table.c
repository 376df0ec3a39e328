// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf inject --model TABLE: the input is the table (seeds: tables of
 * every mode and a sweep of two geometries), read by model/table.c as the
 * model writes it; every row it accepts has PCs in increasing order, counts
 * within the bounds a data file allows and, of mode timing, a cycle stack
 * summing to its cycles; every call-site line kernel addresses in
 * increasing order (pc, site, then the allocator's call, only with a
 * site), before the rows, as many as its section says.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/table.h"

struct seen {
	__u64 last, last_site[3], last_running;
	unsigned long rows, nsites, nrunning;
};

/* mode timing: each of the cycles and their stack a count, the stack summing to them */
static void cycles(const __u64 *cyc)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i <= MODEL_CYCS; i++)
		if (cyc[i] > (1ULL << 40))
			abort();
	for (i = 1; i <= MODEL_CYCS; i++)
		sum += cyc[i];
	if (sum + 6 < cyc[0] || sum > cyc[0] + 6)
		abort();
}

static int row(const struct model_table_row *r, void *ctx)
{
	struct seen *s = ctx;

	if ((s->rows && r->pc <= s->last) || r->insns > (1ULL << 40) || r->flushes > r->insns ||
	    r->kind >= MODEL_KINDS)
		abort();
	if (r->cyc)
		cycles(r->cyc);
	s->last = r->pc;
	s->rows++;
	return 0;
}

/* (pc, site, alloc) after the last line's */
static int site_after(const struct seen *s, const struct model_table_site *x)
{
	if (x->pc != s->last_site[0])
		return x->pc > s->last_site[0];
	if (x->site != s->last_site[1])
		return x->site > s->last_site[1];
	return x->alloc > s->last_site[2];
}

/*
 * a '# callsite' line: a helper's kernel PC, a kernel site or 0, an allocator's kernel call or
 * 0 (0 without a site), some access, in order
 */
static int site(const struct model_table_site *x, void *ctx)
{
	struct seen *s = ctx;

	if (s->rows || x->pc < MODEL_KERNEL_START || (x->site && x->site < MODEL_KERNEL_START) ||
	    (x->alloc && (x->alloc < MODEL_KERNEL_START || !x->site)) || x->reads > (1ULL << 40) ||
	    x->writes > (1ULL << 40) || !(x->reads | x->writes))
		abort();
	if (s->nsites && !site_after(s, x))
		abort();
	s->last_site[0] = x->pc;
	s->last_site[1] = x->site;
	s->last_site[2] = x->alloc;
	s->nsites++;
	return 0;
}

/* a '# running' line: a kernel PC above the last, 1 to 15 bytes */
static int running(const struct model_table_running *r, void *ctx)
{
	struct seen *s = ctx;

	if ((s->nrunning && r->pc <= s->last_running) || r->pc < MODEL_KERNEL_START || !r->len ||
	    r->len > MODEL_RUNNING_BYTES || s->rows)
		abort();
	s->last_running = r->pc;
	s->nrunning++;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_table t;
	struct seen s = {0};
	char why[512];
	unsigned int g;
	static const struct model_table_fns fns = {row, running, site};
	int err =
		model_table_read_fns(fuzz_file(data, size, ".txt"), &t, &fns, &s, why, sizeof(why));

	if (err && !why[0] && err != -EFBIG)
		abort();
	if (!err && (t.entry_insns > (1ULL << 40) || t.first_user_insns > (1ULL << 40) ||
		     (t.has_entry && t.has_first_user && t.entry_insns > t.first_user_insns)))
		abort();
	if (!err && model_table_timing(&t) &&
	    (t.ngeom != 1 || !t.core[0] || !t.has_totals || t.core_unknown > t.core_insns))
		abort();
	if (!err && (t.has_sites ? t.nsites != s.nsites || !t.ngeom : s.nsites))
		abort();
	if (!err &&
	    (t.has_patched ? t.patched_sites != s.nrunning || t.patched_sites > MODEL_RUNNING_MAX
			   : s.nrunning))
		abort();
	for (g = 0; !err && g < t.ngeom; g++)
		if (t.geom[g].cache[1][1] * t.geom[g].cache[1][2] > t.geom[g].cache[1][0])
			abort();
	return 0;
}

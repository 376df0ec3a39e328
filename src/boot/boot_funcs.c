// SPDX-License-Identifier: GPL-2.0-only
/* A boot's model table per kernel function (boot_funcs.h). */
#include "boot/boot_funcs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/boot_schema.h"
#include "symbols/ksyms.h"
#include "util/safeio.h"

/* a kallsyms with every module loaded is ~20 MiB; at boot there are none */
#define KALLSYMS_MAX (256ULL << 20)
/* the largest count a data file holds (check.c's R_COUNT: 2^40) */
#define SUM_MAX (1ULL << 40)

struct entry {
	const char *name, *module;
	size_t vi; /* its counts: vals[vi .. vi + stride) */
};

struct boot_funcs {
	struct ksyms *ks;
	struct entry *e;
	size_t n, cap;
	__u64 *vals;
	size_t nvals, capvals, stride;
	/* where a row's parts start in its stride: TLB misses, executions, flushes, cycles; 0: none
	 */
	size_t tlb, execs, flushes, thunks, cyc, ngeom;
};

static int load_kallsyms(struct boot_funcs *bf, const char *path, char *why, size_t len)
{
	char msg[128] = "";
	struct stat st;
	int fd, err;

	fd = safeio_open_regular(path, &st, msg, sizeof(msg));
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, msg[0] ? msg : strerror(-fd));
		return fd;
	}
	err = (unsigned long long)st.st_size > KALLSYMS_MAX ? -EFBIG : ksyms_load_fd(&bf->ks, fd);
	close(fd);
	if (err == -EFBIG)
		snprintf(why, len, "%s: larger than any kallsyms (256 MiB)", path);
	else if (err == -EINVAL)
		snprintf(why, len, "%s: a line is not 'ADDRESS TYPE NAME [MODULE]'", path);
	else if (err == -EPERM || err == -ENODATA)
		snprintf(why, len, "%s: no kernel address in it (kptr_restrict?)", path);
	return err;
}

static int grow(struct boot_funcs *bf)
{
	struct entry *e;
	__u64 *v;

	if (bf->n == bf->cap) {
		size_t cap = bf->cap ? 2 * bf->cap : 4096;

		e = reallocarray(bf->e, cap, sizeof(*e));
		if (!e)
			return -ENOMEM;
		bf->e = e;
		bf->cap = cap;
	}
	if (bf->nvals + bf->stride > bf->capvals) {
		size_t cap = bf->capvals ? 2 * bf->capvals : 4096 * bf->stride;

		v = reallocarray(bf->vals, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		bf->vals = v;
		bf->capvals = cap;
	}
	return 0;
}

/* Whether name is a retpoline thunk (1) or a return thunk (2), as data/model.c's MODEL_PCS. */
static int thunk_of(const char *name)
{
	static const char *const rt[] = {"__x86_return_thunk",	  "zen_untrain_ret",
					 "srso_return_thunk",	  "srso_untrain_ret",
					 "retbleed_return_thunk", "its_return_thunk",
					 "entry_untrain_ret"};
	size_t i;

	if (!strncmp(name, "__x86_indirect_thunk_", 21) ||
	    !strncmp(name, "__x86_indirect_call_thunk_", 26) ||
	    !strncmp(name, "__x86_indirect_jump_thunk_", 26))
		return 1;
	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++)
		if (!strcmp(name, rt[i]))
			return 2;
	return !strncmp(name, "srso_alias_", 11) ? 2 : 0;
}

/* PCs come in increasing order: a function's PCs follow each other, bar same-named ones. */
static int row(const struct model_table_row *r, void *ctx)
{
	__u64 pc = r->pc, insns = r->insns;
	const __u64 *v = r->v;
	struct boot_funcs *bf = ctx;
	const char *name = BOOT_PRE_KERNEL, *module = "[boot]";
	const struct ksym *k = NULL;
	struct entry *e = bf->n ? &bf->e[bf->n - 1] : NULL;
	size_t i;
	int err;

	if (pc >= MODEL_KERNEL_START) {
		k = ksyms_lookup(bf->ks, pc);
		name = k ? k->name : "[unknown]";
		module = k && k->module[0] ? k->module : "[kernel]";
	}
	if (!e || e->name != name || e->module != module) {
		err = grow(bf);
		if (err)
			return err;
		e = &bf->e[bf->n++];
		*e = (struct entry){name, module, bf->nvals};
		memset(bf->vals + bf->nvals, 0, bf->stride * sizeof(*bf->vals));
		bf->nvals += bf->stride;
	}
	/* each count is at most 2^40 (table.c), so a sum overflows SUM_MAX before __u64 */
	for (i = 0; i < 1 + bf->ngeom * MODEL_STATS; i++)
		bf->vals[e->vi + i] += i ? v[i - 1] : insns;
	for (i = 0; bf->tlb && i < bf->ngeom * 2; i++)
		bf->vals[e->vi + bf->tlb + i] += r->tlb[i];
	if (bf->execs) {
		i = r->kind >= 0 && r->kind < MODEL_KINDS ? (size_t)r->kind : MODEL_KINDS;
		bf->vals[e->vi + bf->execs + i] += insns;
		bf->vals[e->vi + bf->flushes + i] += r->flushes;
		/* a thunk's entries: its first PC (a retpoline's without a kind: not patched) */
		i = k && k->addr == pc ? (size_t)thunk_of(k->name) : 0;
		if (i == 2 || (i == 1 && r->kind < 0))
			bf->vals[e->vi + bf->thunks + i - 1] += insns;
	}
	for (i = 0; bf->cyc && i <= MODEL_CYCS; i++)
		bf->vals[e->vi + bf->cyc + i] += r->cyc[i];
	for (i = 0; i < bf->stride; i++)
		if (bf->vals[e->vi + i] > SUM_MAX)
			return -EOVERFLOW;
	return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	return strcmp(a->name, b->name) ?: strcmp(a->module, b->module) ?: (a->vi > b->vi) - (a->vi < b->vi);
}

/* Same-named functions (static ones of several files) add up into one row. */
static int merge(struct boot_funcs *bf)
{
	size_t i, j, out = 0;

	qsort(bf->e, bf->n, sizeof(*bf->e), entry_cmp);
	for (i = 0; i < bf->n; i++) {
		struct entry *o = out ? &bf->e[out - 1] : NULL;

		if (o && !strcmp(o->name, bf->e[i].name) && !strcmp(o->module, bf->e[i].module)) {
			for (j = 0; j < bf->stride; j++) {
				bf->vals[o->vi + j] += bf->vals[bf->e[i].vi + j];
				if (bf->vals[o->vi + j] > SUM_MAX)
					return -EOVERFLOW;
			}
			continue;
		}
		bf->e[out++] = bf->e[i];
	}
	bf->n = out;
	return 0;
}

/* The model's table's header first: its geometries say how many counts a row has. */
static int read_table(struct boot_funcs *bf, struct model_table *t, const char *model, char *why,
		      size_t len)
{
	char msg[400];
	int err = model_table_read(model, t, NULL, NULL, msg, sizeof(msg));

	if (!err) {
		bf->ngeom = t->ngeom;
		bf->stride = 1 + t->ngeom * MODEL_STATS;
		if (model_table_has_tlb(t)) {
			bf->tlb = bf->stride;
			bf->stride += t->ngeom * 2;
		}
		if (t->format >= 2) {
			bf->execs = bf->stride;
			bf->flushes = bf->execs + MODEL_KINDS + 1;
			bf->thunks = bf->flushes + MODEL_KINDS + 1;
			bf->stride = bf->thunks + 2;
		}
		if (model_table_timing(t)) {
			bf->cyc = bf->stride;
			bf->stride += 1 + MODEL_CYCS;
		}
		err = model_table_read(model, t, row, bf, msg, sizeof(msg));
	}
	if (err == -EOVERFLOW)
		snprintf(why, len, "%s: a function's counts add up past 2^40", model);
	else if (err)
		snprintf(why, len, "%s: %s", model, msg[0] ? msg : strerror(-err));
	return err ?: merge(bf);
}

int boot_funcs_read(struct boot_funcs **out, struct model_table *t, const char *model,
		    const char *kallsyms, char *why, size_t len)
{
	struct boot_funcs *bf = calloc(1, sizeof(*bf));
	int err;

	*why = '\0';
	if (!bf)
		return -ENOMEM;
	err = load_kallsyms(bf, kallsyms, why, len);
	err = err ?: read_table(bf, t, model, why, len);
	if (err) {
		boot_funcs_free(bf);
		return err;
	}
	*out = bf;
	return 0;
}

const struct boot_func *boot_funcs_at(const struct boot_funcs *bf, size_t i, struct boot_func *f)
{
	const __u64 *v;

	if (i >= bf->n)
		return NULL;
	v = bf->vals + bf->e[i].vi;
	*f = (struct boot_func){bf->e[i].name,
				bf->e[i].module,
				v,
				bf->tlb ? v + bf->tlb : NULL,
				bf->execs ? v + bf->execs : NULL,
				bf->execs ? v + bf->flushes : NULL,
				bf->execs ? v + bf->thunks : NULL,
				bf->cyc ? v + bf->cyc : NULL};
	return f;
}

void boot_funcs_free(struct boot_funcs *bf)
{
	if (!bf)
		return;
	ksyms_free(bf->ks);
	free(bf->vals);
	free(bf->e);
	free(bf);
}

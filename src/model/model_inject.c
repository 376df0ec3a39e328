// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf inject --model (model_inject.h).  The table and the recording must be
 * of one run: the same kernel build (the build id vm-run.sh stamps on the
 * table, from the booted guest, against the recording's), as many windows
 * counted as the recording opened, counts not merged before.
 */
#include "model/model_inject.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/model.h"
#include "data/recording.h"
#include "model/table.h"
#include "util/kv.h"

/* Whether the table belongs to the recording; why says why not. */
static int matches(struct datafile *df, const struct model_table *t, char *why, size_t len)
{
	const char *windows = datafile_meta(df, "model.windows");
	const char *state = datafile_meta(df, "model.state");
	const char *kernel = datafile_meta(df, "kernel.build_id");

	if (!windows || !state) {
		snprintf(why, len, "not recorded with record --model: nothing to add counts to");
		return -EINVAL;
	}
	if (!t->kernel[0]) {
		snprintf(
			why, len,
			"the table does not say which kernel it counted (scripts/vm-run.sh --model "
			"adds its '# kernel_build_id' line)");
		return -EINVAL;
	}
	if (!kernel || strcmp(kernel, t->kernel)) {
		snprintf(why, len,
			 "the table counted kernel build %.40s, the recording was made on %.40s: "
			 "merge the table of the boot that made the recording",
			 t->kernel, kernel ? kernel : "an unknown build");
		return -EINVAL;
	}
	if (strtoul(windows, NULL, 10) != t->opened) {
		snprintf(why, len,
			 "the table counted %u windows, the recording opened %s: other windows "
			 "(model-window, another record --model) ran in that boot",
			 t->opened, windows);
		return -EINVAL;
	}
	if (strcmp(state, "awaiting")) {
		snprintf(why, len, "it holds the model's counts already");
		return -EEXIST;
	}
	return 0;
}

static int put_row(const struct model_table_row *r, void *ctx)
{
	void **c = ctx;
	struct datafile *df = c[0];
	const struct model_table *t = c[1];
	unsigned int g;
	int err = model_put_pc(df, r->pc, r->insns);

	for (g = 0; g < t->ngeom && !err; g++)
		err = model_put_misses(df, r->pc, g, r->v + g * MODEL_STATS);
	for (g = 0; r->tlb && g < t->ngeom && !err; g++)
		err = model_put_tlb(df, r->pc, g, r->tlb[2 * g], r->tlb[2 * g + 1]);
	if (!err && r->cyc)
		err = model_put_cycles(df, r->pc, r->cyc);
	if (!err && (r->kind >= 0 || r->flushes))
		err = model_put_event(df, r->pc, r->kind >= 0 ? model_kind_names[r->kind] : "-",
				      r->flushes);
	return err;
}

static int put_site(const struct model_table_site *x, void *ctx)
{
	void **c = ctx;

	return model_put_site(c[0], x->pc, x->site, x->alloc, x->reads, x->writes);
}

static int put_running(const struct model_table_running *r, void *ctx)
{
	void **c = ctx;

	return model_put_running(c[0], r->pc, r->b, r->len);
}

/* The core model's name, parameters and totals, as the table said them. */
static int timing_meta(struct kv_list *meta, const struct model_table *t)
{
	int err = kv_add(meta, "model.core", "%s", t->core);

	err = err ?: kv_add(meta, "model.timing", "%s", t->timing);
	err = err ?: kv_add(meta, "model.timing_insns", "%llu", (unsigned long long)t->core_insns);
	err = err
		      ?: kv_add(meta, "model.timing_unknown", "%llu",
				(unsigned long long)t->core_unknown);
	err = err
		      ?: kv_add(meta, "model.timing_prefetches", "%llu",
				(unsigned long long)t->prefetches);
	return err ?: kv_add(meta, "model.timing_cycles", "%llu", (unsigned long long)t->cycles);
}

static int put_meta(struct datafile *df, const struct model_table *t)
{
	bool whole = !strcmp(t->window, "complete") && t->opened == t->closed;
	struct kv_list meta = {};
	int err;

	err = kv_add(&meta, "model.state", "counted");
	err = err ?: kv_add(&meta, "model.mode", "%s", t->mode);
	err = err ?: kv_add(&meta, "model.qemu", "%s", t->qemu);
	err = err ?: kv_add(&meta, "model.window", "%s", whole ? "complete" : "incomplete");
	err = err ?: kv_add(&meta, "model.windows_closed", "%u", t->closed);
	if (!err && t->iaddr[0])
		err = kv_add(&meta, "model.iaddr", "%s", t->iaddr);
	err = err ?: kv_add(&meta, "model.format", "%u", t->format);
	if (!err && t->format >= 2)
		err = kv_add(&meta, "model.guest_pti", "%s",
			     t->guest_pti[0] ? t->guest_pti : "unknown");
	if (!err && t->format >= 2)
		err = kv_add(&meta, "model.guest_pcid", "%s",
			     t->guest_pcid[0] ? t->guest_pcid : "unknown");
	if (!err && model_table_timing(t))
		err = timing_meta(&meta, t);
	/* whether the running bytes of every patched site are known (model_running) */
	if (!err && t->has_patched)
		err = kv_add(&meta, "model.patched_sites", "%llu",
			     (unsigned long long)t->patched_sites);
	if (!err && t->has_patched)
		err = kv_add(&meta, "model.patched_dropped", "%llu",
			     (unsigned long long)t->patched_dropped);
	/* the string helpers' accesses no (PC, site) pair holds: model_sites lacks them */
	if (!err && t->has_sites)
		err = kv_add(&meta, "model.callsites_dropped", "%llu",
			     (unsigned long long)t->sites_dropped);
	err = err ?: recording_set_meta(df, &meta);
	kv_list_free(&meta);
	return err;
}

static int merge(struct datafile *df, const char *table_path, struct model_table *t, char *why,
		 size_t len)
{
	static const struct model_table_fns fns = {put_row, put_running, put_site};
	void *ctx[2] = {df, t};
	unsigned int g;
	int err = matches(df, t, why, len);

	for (g = 0; g < t->ngeom && !err; g++)
		err = model_put_geom(df, g, &t->geom[g]);
	for (g = 0; model_table_has_tlb(t) && g < t->ngeom && !err; g++)
		err = model_put_tlbs(df, g, &t->geom[g]);
	/* read again: rows go straight into the file, and the file may have changed */
	err = err ?: model_table_read_fns(table_path, t, &fns, ctx, why, len);
	err = err ?: matches(df, t, why, len);
	err = err ?: model_prune_symbols(df) ?: put_meta(df, t);
	if (err && !*why)
		datafile_why(df, why, len);
	return err;
}

int model_inject(const char *table_path, const char *data_path, char *why, size_t len)
{
	struct model_table t;
	struct datafile *df;
	uid_t uid;
	gid_t gid;
	int err;

	err = model_table_read(table_path, &t, NULL, NULL, why, len);
	if (err)
		return err;
	err = datafile_update(&df, data_path, &uid, &gid, why, len);
	if (err)
		return err;
	err = merge(df, table_path, &t, why, len);
	if (err) {
		datafile_abort(df);
		return err;
	}
	return datafile_commit(df, uid, gid, why, len);
}

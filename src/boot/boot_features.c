// SPDX-License-Identifier: GPL-2.0-only
/*
 * features FILE of a boot recording (boot_features.h).  A feature's state comes
 * from what the recording says of the booted kernel, as features FILE of a
 * workload's recording has it (features/features.h's features_state), minus
 * the compiler-inserted sites: a boot recording scans none.
 */
#include "boot/boot_features.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boot/load.h"
#include "data/meta.h"
#include "features/features.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/kv.h"

void boot_feature_insns(const struct boot_rec *b, const struct features *feat, double *v, bool *ran)
{
	size_t nf = features_count(feat), i, r;
	const char *name;
	long k;

	memset(v, 0, nf * b->runs * sizeof(*v));
	if (ran)
		memset(ran, 0, nf * sizeof(*ran));
	for (i = 0; i < b->nfuncs; i++) {
		name = features_match(feat, b->funcs[i].name);
		k = name ? features_index(feat, name) : -1;
		if (k < 0)
			continue;
		for (r = 0; r < b->runs; r++)
			v[k * b->runs + r] += b->funcs[i].v[r];
		if (ran && b->funcs[i].mean > 0)
			ran[k] = true;
	}
}

double boot_insns(const struct boot_rec *b)
{
	double whole = boot_mean(b->user_insns, b->runs), sum = 0;
	size_t i;

	for (i = 0; isnan(whole) && i < b->nfuncs; i++)
		sum += b->funcs[i].mean;
	return isnan(whole) ? sum : whole;
}

static const char *config_of(const char *option, void *ctx)
{
	return kv_get(ctx, option);
}

static int config_pair(const struct meta_pair *p, void *l)
{
	return kv_add(l, p->key, "%s", p->value);
}

/* One feature: what it is, its state and why, its instructions per boot (NAN: no model). */
static void row(const struct boot_rec *b, const struct features *feat, size_t i, double insns,
		double whole, const struct features_facts *k, FILE *f, struct json *j)
{
	const char *c[FEATURES_CLASSES], *name = features_name(feat, i);
	double pct = whole > 0 ? 100.0 * insns / whole : NAN;
	enum features_state st;
	char why[512], in[32] = "-", share[32] = "-";
	int n;

	for (n = 0; n < FEATURES_CLASSES; n++)
		c[n] = features_class(feat, i, n);
	st = features_state(feat, i, k, why, sizeof(why));
	if (!j) {
		if (!isnan(insns))
			snprintf(in, sizeof(in), "%.0f", insns);
		if (!isnan(pct))
			snprintf(share, sizeof(share), "%.3f%%", pct);
		esc_printf(f, "%-22s %-8s %-8s %-5s %-9s %14s %8s  %s\n", name, c[0] ?: "-",
			   c[1] ?: "-", c[2] ?: "-", features_state_name(st), in, share, why);
		return;
	}
	json_open(j, NULL, '{');
	json_str(j, "name", name);
	json_str(j, "about", features_about(feat, i));
	json_str(j, "type", c[0]);
	json_str(j, "position", c[1]);
	json_str(j, "when", c[2]);
	json_str(j, "state", features_state_name(st));
	json_str(j, "why", why);
	json_double(j, "insns_per_boot", b->model ? insns : NAN);
	json_double(j, "boot_pct", b->model ? pct : NAN);
	json_close(j, '}');
}

static void list(const struct boot_rec *b, const struct features *feat, const double *v,
		 const struct features_facts *k, FILE *f, struct json *j)
{
	double whole = boot_insns(b), m;
	size_t i;

	if (j) {
		json_double(j, "insns_per_boot", b->model ? whole : NAN);
		json_open(j, "features", '[');
	} else {
		if (!b->model)
			fputs("# no per-function counts: boot with --model insns for what each"
			      " feature's functions cost\n",
			      f);
		fprintf(f, "%-22s %-8s %-8s %-5s %-9s %14s %8s  %s\n", "FEATURE", "TYPE",
			"POSITION", "WHEN", "STATE", "INSNS/BOOT", "BOOT", "STATE FROM");
	}
	for (i = 0; i < features_count(feat); i++) {
		m = boot_mean(v + i * b->runs, b->runs);
		row(b, feat, i, b->model ? m : NAN, whole, k, f, j);
	}
	if (j)
		json_close(j, ']');
}

int boot_feature_states(const struct boot_rec *b, const struct features *feat,
			enum features_state *st, char *why)
{
	struct kv_list config = {0};
	struct features_facts k = {.config = config_of, .ctx = &config, .cmdline = b->cmdline};
	int err = meta_each(b->df, META_CONFIG_SHORT, config_pair, &config);
	size_t i;

	k.config_known = config.n > 0;
	for (i = 0; !err && i < features_count(feat); i++)
		st[i] = features_state(feat, i, &k, why + i * BOOT_WHY_LEN, BOOT_WHY_LEN);
	kv_list_free(&config);
	return err;
}

int boot_features(const struct boot_rec *b, const struct features *feat, FILE *f, bool json)
{
	struct kv_list config = {0};
	struct features_facts k = {.config = config_of, .ctx = &config, .cmdline = b->cmdline};
	double *v = calloc(features_count(feat) * b->runs + 1, sizeof(*v));
	struct json j;
	int err = v ? meta_each(b->df, META_CONFIG_SHORT, config_pair, &config) : -ENOMEM;

	if (!err) {
		k.config_known = config.n > 0;
		boot_feature_insns(b, feat, v, NULL);
		if (json) {
			json_begin(&j, f);
			json_open(&j, NULL, '{');
			json_str(&j, "kernel_release", b->release);
			json_u64(&j, "runs", b->runs);
		} else {
			esc_printf(f,
				   "# kprotperf features of %s: boot recording, kernel %s, %zu"
				   " boot%s\n",
				   b->path, b->release ?: "?", b->runs, b->runs == 1 ? "" : "s");
		}
		list(b, feat, v, &k, f, json ? &j : NULL);
		if (json) {
			json_close(&j, '}');
			json_end(&j);
		}
	}
	kv_list_free(&config);
	free(v);
	return err;
}

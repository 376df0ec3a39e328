// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff's header: on what the two recordings differ (kernel build,
 * CPU model, cmdline knobs, config, vulnerabilities) and the notes and
 * warnings.
 */
#include "diff/prov.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/meta.h"
#include "diff/metrics.h"
#include "features/features.h"
#include "system/provenance.h"
#include "util/esc.h"
#include "util/json.h"

/* fewer runs than this on a side make intervals over runs unreliable */
#define DIFF_MIN_RUNS 5

void prov_note(struct diff_notes *n, const char *fmt, ...)
{
	va_list ap;

	if (n->n >= DIFF_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(n->v[n->n++], sizeof(n->v[0]), fmt, ap);
	va_end(ap);
}

static const char *meta_or(struct datafile *df, const char *key, const char *dflt)
{
	return datafile_meta(df, key) ?: dflt;
}

const char *const prov_side_name[2] = {"base", "hardened"};

/*
 * How a side sampled: "99 Hz" on cpu-clock (its rate alone, as always),
 * else "EVENT at 99 Hz" or with record -c "EVENT, period 4"; true when on
 * cpu-clock at a rate.
 */
static bool sampling_text(struct datafile *df, char *buf, size_t len)
{
	const char *ev = meta_or(df, "sampling.event", "cpu-clock");
	const char *hz = meta_or(df, "sampling.freq_hz", "?");
	const char *period = datafile_meta(df, "sampling.period");

	if (period)
		snprintf(buf, len, "%.200s, period %.30s", ev, period);
	else if (strcmp(ev, "cpu-clock"))
		snprintf(buf, len, "%.200s at %.30s Hz", ev, hz);
	else
		snprintf(buf, len, "%.30s Hz", hz);
	return !period && !strcmp(ev, "cpu-clock");
}

void prov_warnings(struct datafile *const df[2], const size_t runs[2], const char *one_run,
		   struct diff_notes *n)
{
	const char *cb = meta_or(df[DM_BASE], "record.command", "-");
	const char *ch = meta_or(df[DM_HARD], "record.command", "-");
	char fb[256], fh[256];
	bool clock_b = sampling_text(df[DM_BASE], fb, sizeof(fb));
	bool clock_h = sampling_text(df[DM_HARD], fh, sizeof(fh));
	int i;

	if (strcmp(cb, ch))
		prov_note(n,
			  "warning: the recordings ran different commands ('%.300s' and '%.300s'):"
			  " their numbers may not be comparable",
			  cb, ch);
	if (strcmp(fb, fh) && clock_b && clock_h)
		prov_note(n,
			  "warning: different sampling frequencies (%s and %s): samples are"
			  " compared as CPU time (samples x period)",
			  fb, fh);
	else if (strcmp(fb, fh))
		prov_note(n, "warning: different sampling (%s and %s)", fb, fh);
	for (i = 0; i < 2; i++)
		if (runs[i] < DIFF_MIN_RUNS)
			prov_note(n,
				  "warning: %s has %zu run%s, fewer than %d: intervals are %s"
				  " (record with --repeat %d or more)",
				  prov_side_name[i], runs[i], runs[i] == 1 ? "" : "s",
				  DIFF_MIN_RUNS, runs[i] == 1 ? one_run : "wide and rough",
				  DIFF_MIN_RUNS);
}

/* The hardening knobs of a cmdline: "init_on_alloc=1" -> init_on_alloc: 1, "nopti" -> (set). */
static int load_knobs(struct datafile *df, struct kv_list *l)
{
	char *copy = strdup(meta_or(df, "kernel.cmdline", "")), *tok, *save = NULL, *eq;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " ", &save); tok && !err; tok = strtok_r(NULL, " ", &save)) {
		if (!provenance_is_knob(tok))
			continue;
		eq = strchr(tok, '=');
		if (eq)
			*eq++ = 0;
		err = kv_add(l, tok, "%s", eq ?: "(set)");
	}
	free(copy);
	return err;
}

static int kv_pair(const struct meta_pair *p, void *l)
{
	return kv_add(l, p->key, "%s", p->value);
}

/* What differs, either way round: a key one side lacks is "(not set)" there. */
struct differ {
	FILE *f;
	struct json *j;
	const char *what; /* "cmdline", "config", "vulnerability" */
	const struct features *feat;
	int n;
};

static bool same(const char *b, const char *h)
{
	return b && h && !strcmp(b, h);
}

/* A config option names the feature it builds (features.conf's config lines). */
static void one_diff(struct differ *d, const char *key, const char *b, const char *h)
{
	const char *feature =
		!strcmp(d->what, "config") && d->feat ? features_of_config(d->feat, key) : NULL;

	if (same(b, h))
		return;
	d->n++;
	if (!d->j) {
		esc_printf(d->f, "#   %s %s: %s -> %s%s%s%s\n", d->what, key, b ?: "(not set)",
			   h ?: "(not set)", feature ? " (" : "", feature ?: "",
			   feature ? ")" : "");
		return;
	}
	json_open(d->j, NULL, '{');
	json_str(d->j, "name", key);
	json_str(d->j, "base", b);
	json_str(d->j, "hardened", h);
	if (!strcmp(d->what, "config"))
		json_str(d->j, "feature", feature);
	json_close(d->j, '}');
}

static void each_diff(struct differ *d, const struct kv_list *b, const struct kv_list *h)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		one_diff(d, b->v[i].key, b->v[i].value, kv_get(h, b->v[i].key));
	for (i = 0; i < h->n; i++)
		if (!kv_get(b, h->v[i].key))
			one_diff(d, h->v[i].key, NULL, h->v[i].value);
}

static bool lists_differ(const struct kv_list *b, const struct kv_list *h)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (!same(b->v[i].value, kv_get(h, b->v[i].key)))
			return true;
	for (i = 0; i < h->n; i++)
		if (!kv_get(b, h->v[i].key))
			return true;
	return false;
}

/* The JSON arrays, and the lists read for them but the cmdline's (-1). */
static const struct {
	const char *key, *what;
	int list;
} lists[] = {
	{"cmdline", "cmdline", -1},
	{"config", "config", META_CONFIG_SHORT},
	{"vulnerabilities", "vulnerability", META_VULNERABILITIES},
};

#define NLISTS (sizeof(lists) / sizeof(lists[0]))

static int load_list(struct datafile *df, int i, struct kv_list *l)
{
	return lists[i].list < 0 ? load_knobs(df, l) : meta_each(df, lists[i].list, kv_pair, l);
}

/* Linux 6.9 renamed the x86 mitigation options; the old name, then the new. */
static const char *const renamed[][2] = {
	{"PAGE_TABLE_ISOLATION", "MITIGATION_PAGE_TABLE_ISOLATION"},
	{"RETPOLINE", "MITIGATION_RETPOLINE"},
	{"RETHUNK", "MITIGATION_RETHUNK"},
	{"SLS", "MITIGATION_SLS"},
	{"CPU_UNRET_ENTRY", "MITIGATION_UNRET_ENTRY"},
	{"CPU_IBPB_ENTRY", "MITIGATION_IBPB_ENTRY"},
	{"CPU_IBRS_ENTRY", "MITIGATION_IBRS_ENTRY"},
	{"CPU_SRSO", "MITIGATION_SRSO"},
	{"CALL_DEPTH_TRACKING", "MITIGATION_CALL_DEPTH_TRACKING"},
};

static struct kv *kv_find(struct kv_list *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

/*
 * Across the rename (a kernel before 6.9 against one after) an option would
 * show as one name unset and another set: the old side's takes the new name,
 * so only a change of value is a difference.  Returns how many were renamed.
 */
static int unify_renames(struct kv_list *c[2])
{
	struct kv *old;
	size_t i;
	int s, n = 0;
	char *name;

	for (i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		for (s = 0; s < 2; s++) {
			old = kv_find(c[s], renamed[i][0]);
			if (!old || kv_get(c[s], renamed[i][1]) || !kv_get(c[!s], renamed[i][1]) ||
			    kv_get(c[!s], renamed[i][0]))
				continue;
			name = strdup(renamed[i][1]);
			if (!name)
				return -ENOMEM;
			free(old->key);
			old->key = name;
			n++;
		}
	return n;
}

/*
 * Text: the release when it differs; the build-id only when nothing else
 * tells the two builds apart (same release, config and cmdline knobs), as
 * two builds of one source differing in config always differ in build-id.
 * JSON: both, always.
 */
static void kernel_diff(struct datafile *const df[2], struct differ *d, bool alike)
{
	static const char *const keys[][3] = {{"kernel.release", "release", "kernel_release"},
					      {"kernel.build_id", "build-id", "build_id"}};
	const char *b, *h;
	size_t i;

	d->what = "kernel";
	for (i = 0; i < 2; i++) {
		b = datafile_meta(df[DM_BASE], keys[i][0]);
		h = datafile_meta(df[DM_HARD], keys[i][0]);
		if (!d->j) {
			if (i == 0)
				alike = alike && same(b, h);
			if (i == 0 || alike)
				one_diff(d, keys[i][1], b, h);
			continue;
		}
		json_open(d->j, keys[i][2], '{');
		json_str(d->j, "base", b);
		json_str(d->j, "hardened", h);
		json_close(d->j, '}');
	}
}

/*
 * The CPU's model name (/proc/cpuinfo's, in a VM QEMU's: "Intel Core
 * Processor (Skylake)" under vm-run.sh --cpu Skylake-Client-v1): text when
 * it differs, JSON always.
 */
static void cpu_diff(struct datafile *const df[2], struct differ *d)
{
	const char *b = datafile_meta(df[DM_BASE], "cpu.model");
	const char *h = datafile_meta(df[DM_HARD], "cpu.model");

	d->what = "cpu";
	if (!d->j) {
		if (b || h)
			one_diff(d, "model", b, h);
		return;
	}
	json_open(d->j, "cpu_model", '{');
	json_str(d->j, "base", b);
	json_str(d->j, "hardened", h);
	json_close(d->j, '}');
}

static void print_lists(struct datafile *const df[2], struct differ *d, struct kv_list (*l)[2])
{
	size_t i;

	kernel_diff(df, d, !lists_differ(&l[0][0], &l[0][1]) && !lists_differ(&l[1][0], &l[1][1]));
	cpu_diff(df, d);
	for (i = 0; i < NLISTS; i++) {
		d->what = lists[i].what;
		if (d->j)
			json_open(d->j, lists[i].key, '[');
		each_diff(d, &l[i][0], &l[i][1]);
		if (d->j)
			json_close(d->j, ']');
	}
}

int prov_print(struct datafile *const df[2], const struct features *feat, FILE *f, struct json *j)
{
	struct differ d = {.f = f, .j = j, .feat = feat};
	struct kv_list l[NLISTS][2] = {};
	int err = 0, renames = 0;
	size_t i;

	for (i = 0; i < NLISTS && !err; i++)
		err = load_list(df[DM_BASE], i, &l[i][0]) ?: load_list(df[DM_HARD], i, &l[i][1]);
	if (!err) {
		/* lists[1] is the config */
		renames = unify_renames((struct kv_list *[2]){&l[1][0], &l[1][1]});
		err = renames < 0 ? renames : 0;
	}
	if (!err) {
		if (j)
			json_open(j, "provenance", '{');
		else
			fputs("# differs (base -> hardened):\n", f);
		print_lists(df, &d, l);
		if (j)
			json_u64(j, "config_renamed", renames);
		else if (renames)
			fprintf(f,
				"#   (%d config options renamed in Linux 6.9, e.g. RETPOLINE to"
				" MITIGATION_RETPOLINE, compared under their new names)\n",
				renames);
		if (j)
			json_close(j, '}');
		else if (!d.n)
			fputs("#   nothing: same kernel build, CPU model, hardening knobs, config"
			      " and CPU vulnerabilities\n",
			      f);
	}
	for (i = 0; i < NLISTS; i++) {
		kv_list_free(&l[i][0]);
		kv_list_free(&l[i][1]);
	}
	return err;
}

void prov_side_text(int side, const char *path, struct datafile *df, size_t runs, FILE *f)
{
	char sampling[256];

	sampling_text(df, sampling, sizeof(sampling));
	esc_printf(f, "# %-9s %s: kernel %s (build-id %s), %zu run%s of '%s', %s, schema %lld\n",
		   side ? "hardened:" : "base:", path, meta_or(df, "kernel.release", "?"),
		   meta_or(df, "kernel.build_id", "?"), runs, runs == 1 ? "" : "s",
		   datafile_meta(df, "record.command") ?: meta_or(df, "record.mode", "?"), sampling,
		   datafile_schema(df));
}

void prov_side_json(int side, const char *path, struct datafile *df, size_t runs,
		    const char *vmlinux, const char *missing, struct json *j)
{
	json_open(j, prov_side_name[side], '{');
	json_str(j, "path", path);
	json_str(j, "kernel_release", datafile_meta(df, "kernel.release"));
	json_str(j, "build_id", datafile_meta(df, "kernel.build_id"));
	json_str(j, "arch", datafile_meta(df, "arch"));
	json_str(j, "command", datafile_meta(df, "record.command"));
	json_u64(j, "schema", datafile_schema(df));
	json_u64(j, "runs", runs);
	json_double(j, "sample_period_ns", datafile_sample_period_ns(df));
	json_open(j, "debuginfo", '{');
	if (vmlinux)
		json_str(j, "vmlinux", vmlinux);
	else
		json_str(j, "missing", missing);
	json_close(j, '}');
	json_close(j, '}');
}

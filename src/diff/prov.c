// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff's header: on what the two recordings differ (kernel build,
 * cmdline knobs, config, vulnerabilities) and the notes and warnings.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/meta.h"
#include "data/provenance.h"
#include "diff/metrics.h"
#include "diff/prov.h"
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

void prov_warnings(struct datafile *const df[2], const size_t runs[2], struct diff_notes *n)
{
	const char *cb = meta_or(df[DM_BASE], "record.command", "-");
	const char *ch = meta_or(df[DM_HARD], "record.command", "-");
	const char *fb = meta_or(df[DM_BASE], "sampling.freq_hz", "?");
	const char *fh = meta_or(df[DM_HARD], "sampling.freq_hz", "?");
	int i;

	if (strcmp(cb, ch))
		prov_note(n,
			  "warning: the recordings ran different commands ('%.300s' and '%.300s'):"
			  " their numbers may not be comparable",
			  cb, ch);
	if (strcmp(fb, fh))
		prov_note(n,
			  "warning: different sampling frequencies (%s Hz and %s Hz): samples are"
			  " compared as CPU time (samples x period)",
			  fb, fh);
	for (i = 0; i < 2; i++)
		if (runs[i] < DIFF_MIN_RUNS)
			prov_note(n,
				  "warning: %s has %zu run%s, fewer than %d: intervals are %s"
				  " (record with --repeat %d or more)",
				  prov_side_name[i], runs[i], runs[i] == 1 ? "" : "s",
				  DIFF_MIN_RUNS,
				  runs[i] == 1 ? "from histograms and sample counts, not over runs"
					       : "wide and rough",
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
	int n;
};

static void one_diff(struct differ *d, const char *key, const char *b, const char *h)
{
	if (b && h && !strcmp(b, h))
		return;
	d->n++;
	if (!d->j) {
		esc_printf(d->f, "#   %s %s: %s -> %s\n", d->what, key, b ?: "(not set)",
			   h ?: "(not set)");
		return;
	}
	json_open(d->j, NULL, '{');
	json_str(d->j, "name", key);
	json_str(d->j, "base", b);
	json_str(d->j, "hardened", h);
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

/* The JSON arrays, and the lists read for them but the cmdline's (-1). */
static const struct {
	const char *key;
	int list;
} lists[] = {
	{"cmdline", -1},
	{"config", META_CONFIG_SHORT},
	{"vulnerabilities", META_VULNERABILITIES},
};

static int load_list(struct datafile *df, int i, struct kv_list *l)
{
	return lists[i].list < 0 ? load_knobs(df, l) : meta_each(df, lists[i].list, kv_pair, l);
}

/* Text: only when they differ; JSON: both, always. */
static void kernel_diff(struct datafile *const df[2], struct differ *d)
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
			one_diff(d, keys[i][1], b, h);
			continue;
		}
		json_open(d->j, keys[i][2], '{');
		json_str(d->j, "base", b);
		json_str(d->j, "hardened", h);
		json_close(d->j, '}');
	}
}

int prov_print(struct datafile *const df[2], FILE *f, struct json *j)
{
	static const char *const what[] = {"cmdline", "config", "vulnerability"};
	struct differ d = {.f = f, .j = j};
	struct kv_list l[2] = {};
	size_t i;
	int err = 0;

	if (j)
		json_open(j, "provenance", '{');
	else
		fputs("# differs (base -> hardened):\n", f);
	kernel_diff(df, &d);
	for (i = 0; i < 3 && !err; i++) {
		err = load_list(df[DM_BASE], i, &l[0]) ?: load_list(df[DM_HARD], i, &l[1]);
		d.what = what[i];
		if (j)
			json_open(j, lists[i].key, '[');
		if (!err)
			each_diff(&d, &l[0], &l[1]);
		if (j)
			json_close(j, ']');
		kv_list_free(&l[0]);
		kv_list_free(&l[1]);
	}
	if (j)
		json_close(j, '}');
	else if (!d.n)
		fputs("#   nothing: same kernel build, hardening knobs, config and CPU"
		      " vulnerabilities\n",
		      f);
	return err;
}

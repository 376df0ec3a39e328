// SPDX-License-Identifier: GPL-2.0-only
/*
 * The geometries of a cache sweep side by side (model_sweep.h): report --model's
 * misses and miss rates per geometry, diff --model's change in the kernel's
 * misses per geometry, the two recordings' geometries matched by value.
 * Miss rates as cachegrind's: I1 misses of instructions, D1 misses of D1
 * reads and writes, LL misses of all three.
 */
#include "model/model_sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "util/json.h"

static const char *const side_name[2] = {"base", "hardened"};

/* The geometry g of one side, matched to the first equal one of the base not yet matched. */
static void sweep_add(struct model_sweep *s, int side, const struct model_geom *g, int k)
{
	unsigned int i;

	for (i = 0; side && i < s->n; i++) {
		if (s->g[i].at[1] < 0 && !memcmp(s->g[i].g.cache, g->cache, sizeof(g->cache))) {
			s->g[i].at[1] = k;
			return;
		}
	}
	s->g[s->n++] = (struct sweep_geom){.g = *g, .at = {side ? -1 : k, side ? k : -1}};
}

static bool cache_mode(struct datafile *df)
{
	const char *mode = datafile_meta(df, "model.mode");

	/* timing simulates the caches of one geometry too */
	return mode && (!strcmp(mode, "cache") || !strcmp(mode, "timing"));
}

static int side_geoms(struct model_sweep *s, struct datafile *df, int side)
{
	struct model_geom g[MODEL_GEOMS_MAX];
	unsigned int n = 0, k;
	int err = cache_mode(df) ? model_geoms(df, g, MODEL_GEOMS_MAX, &n) : 0;

	for (k = 0; !err && k < n && k < MODEL_GEOMS_MAX; k++)
		sweep_add(s, side, &g[k], k);
	return err;
}

static int read_geom(struct datafile *df, int side, bool two, struct sweep_geom *g, char *why,
		     size_t len)
{
	char what[400] = "";
	int err = model_counts_read(df, g->at[side], &g->c[side], what, sizeof(what));

	if (err && what[0] && two)
		snprintf(why, len, "the %s recording: %s", side_name[side], what);
	else if (err && what[0])
		snprintf(why, len, "%s", what);
	return err;
}

int model_sweep_read(struct datafile *base, struct datafile *hard, struct model_sweep **out,
		     char *why, size_t len)
{
	struct datafile *df[2] = {base, hard};
	struct model_sweep *s = calloc(1, sizeof(*s));
	int side, err = s ? 0 : -ENOMEM;
	unsigned int i;

	for (side = 0; !err && side < 2 && df[side]; side++)
		err = side_geoms(s, df[side], side);
	for (i = 0; !err && i < s->n; i++)
		for (side = 0; !err && side < 2; side++)
			if (s->g[i].at[side] >= 0)
				err = read_geom(df[side], side, hard != NULL, &s->g[i], why, len);
	if (err) {
		model_sweep_free(s);
		s = NULL;
	}
	*out = s;
	return err;
}

void model_sweep_free(struct model_sweep *s)
{
	unsigned int i;

	for (i = 0; s && i < s->n; i++) {
		model_counts_free(&s->g[i].c[0]);
		model_counts_free(&s->g[i].c[1]);
	}
	free(s);
}

int model_sweep_match(struct datafile *hard, const struct model_counts *b, unsigned int *geom)
{
	struct model_geom g[MODEL_GEOMS_MAX];
	unsigned int n = 0, k;
	int err;

	*geom = 0;
	if (!b->cache || b->geom >= b->ngeom || !cache_mode(hard))
		return 0;
	err = model_geoms(hard, g, MODEL_GEOMS_MAX, &n);
	for (k = 0; !err && k < n; k++) {
		if (!memcmp(g[k].cache, b->geoms[b->geom].cache, sizeof(g[k].cache))) {
			*geom = k;
			break;
		}
	}
	return err;
}

bool model_sweep_same(const struct model_counts *b, const struct model_counts *h)
{
	return b->cache && h->cache && b->geom < b->ngeom && h->geom < h->ngeom &&
	       !memcmp(b->geoms[b->geom].cache, h->geoms[h->geom].cache, sizeof(b->geoms[0].cache));
}

/* A cache's size,ways,line, the size in K or M when it is a whole number of them. */
static void cache_text(char *buf, size_t len, const __u32 *c)
{
	if (c[0] >= (1U << 20) && !(c[0] & ((1U << 20) - 1)))
		snprintf(buf, len, "%uM,%u,%u", c[0] >> 20, c[1], c[2]);
	else if (c[0] >= 1024 && !(c[0] & 1023))
		snprintf(buf, len, "%uK,%u,%u", c[0] >> 10, c[1], c[2]);
	else
		snprintf(buf, len, "%u,%u,%u", c[0], c[1], c[2]);
}

static void geom_cols(FILE *f, const struct model_geom *g)
{
	char buf[48];
	int c;

	for (c = 0; c < 3; c++) {
		cache_text(buf, sizeof(buf), g->cache[c]);
		fprintf(f, " %-13s", buf);
	}
}

/* The misses of I1, D1 (reads and writes) and LL, and what each rate is of. */
static void levels(const struct model_func *f, __u64 m[3], __u64 of[3])
{
	__u64 d = f->v[MODEL_D1_READS] + f->v[MODEL_D1_WRITES];

	m[0] = f->v[MODEL_I1_MISSES];
	m[1] = f->v[MODEL_D1_READ_MISSES] + f->v[MODEL_D1_WRITE_MISSES];
	m[2] = f->v[MODEL_LL_MISSES];
	if (of) {
		of[0] = f->insns;
		of[1] = d;
		of[2] = f->insns + d;
	}
}

/* The user's share: all PCs' counts less the kernel's. */
static struct model_func user_part(const struct model_counts *c)
{
	struct model_func u = {.insns = c->total.insns - c->kernel.insns};
	int i;

	for (i = 0; i < MODEL_STATS; i++)
		u.v[i] = c->total.v[i] - c->kernel.v[i];
	return u;
}

static double rate(__u64 m, __u64 of)
{
	return of ? 100.0 * m / of : 0;
}

static void misses_cols(FILE *f, const struct model_func *r)
{
	__u64 m[3], of[3];
	int i;

	levels(r, m, of);
	for (i = 0; i < 3; i++)
		fprintf(f, " %11llu %7.3f%%", (unsigned long long)m[i], rate(m[i], of[i]));
}

void model_sweep_report_text(FILE *f, const struct model_sweep *s)
{
	static const char *const heads[] = {"I1", "D1", "LL"};
	char head[16];
	unsigned int i;
	int side, c;

	fputs("\nMisses per cache geometry (rates: I1 of instructions, D1 of its reads and writes,"
	      " LL of all three):\ngeom I1            D1            LL           ",
	      f);
	for (side = 0; side < 2; side++) {
		for (c = 0; c < 3; c++) {
			snprintf(head, sizeof(head), "%s %s", side ? "user" : "kernel", heads[c]);
			fprintf(f, " %11s %8s", head, "rate");
		}
	}
	fputc('\n', f);
	for (i = 0; i < s->n; i++) {
		struct model_func u = user_part(&s->g[i].c[0]);

		fprintf(f, "%4d", s->g[i].at[0]);
		geom_cols(f, &s->g[i].g);
		misses_cols(f, &s->g[i].c[0].kernel);
		misses_cols(f, &u);
		fputc('\n', f);
	}
}

static void cache_json(struct json *j, const struct model_geom *g)
{
	static const char *const names[] = {"i1", "d1", "ll"};
	int k;

	for (k = 0; k < 3; k++) {
		json_open(j, names[k], '{');
		json_u64(j, "size", g->cache[k][0]);
		json_u64(j, "assoc", g->cache[k][1]);
		json_u64(j, "line", g->cache[k][2]);
		json_close(j, '}');
	}
}

/* A side's counts: instructions, the six stats and, with rates, the three miss rates. */
static void stats_json(struct json *j, const char *key, const struct model_func *r, bool rates)
{
	static const char *const names[] = {"i1_miss_rate", "d1_miss_rate", "ll_miss_rate"};
	__u64 m[3], of[3];
	int i;

	json_open(j, key, '{');
	json_u64(j, "insns", r->insns);
	for (i = 0; i < MODEL_STATS; i++)
		json_u64(j, model_stat_names[i], r->v[i]);
	levels(r, m, of);
	for (i = 0; rates && i < 3; i++)
		json_double(j, names[i], of[i] ? (double)m[i] / of[i] : 0);
	json_close(j, '}');
}

void model_sweep_report_json(struct json *j, const struct model_sweep *s)
{
	unsigned int i;

	json_open(j, "geometries", '[');
	for (i = 0; i < s->n; i++) {
		struct model_func u = user_part(&s->g[i].c[0]);

		json_open(j, NULL, '{');
		json_u64(j, "geometry", s->g[i].at[0]);
		cache_json(j, &s->g[i].g);
		stats_json(j, "kernel", &s->g[i].c[0].kernel, true);
		stats_json(j, "user", &u, true);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static long long delta(__u64 b, __u64 h)
{
	return (long long)h - (long long)b;
}

static void diff_cols(FILE *f, const struct sweep_geom *g)
{
	__u64 b[3], h[3];
	int i;

	levels(&g->c[0].kernel, b, NULL);
	levels(&g->c[1].kernel, h, NULL);
	for (i = 0; i < 3; i++) {
		fprintf(f, " %11llu %+10lld", (unsigned long long)b[i], delta(b[i], h[i]));
		if (b[i])
			fprintf(f, " %+7.2f%%", 100.0 * delta(b[i], h[i]) / b[i]);
		else
			fprintf(f, " %8s", "-");
	}
}

static void diff_line(FILE *f, const struct sweep_geom *g)
{
	char idx[24];

	snprintf(idx, sizeof(idx), "%d/%d", g->at[0], g->at[1]);
	if (g->at[0] < 0 || g->at[1] < 0)
		snprintf(idx, sizeof(idx), g->at[0] < 0 ? "-/%d" : "%d/-",
			 g->at[0] < 0 ? g->at[1] : g->at[0]);
	fprintf(f, "%5s", idx);
	geom_cols(f, &g->g);
	if (g->at[0] >= 0 && g->at[1] >= 0)
		diff_cols(f, g);
	else
		fprintf(f, " only in the %s recording", side_name[g->at[0] < 0]);
	fputc('\n', f);
}

/* The kernel's instructions of each side: the same in every geometry of a recording. */
static void insns_text(FILE *f, const struct model_sweep *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct sweep_geom *g = &s->g[i];
		__u64 b = g->c[0].kernel.insns, h = g->c[1].kernel.insns;

		if (g->at[0] < 0 || g->at[1] < 0)
			continue;
		fprintf(f,
			"kernel instructions (in every geometry): base %llu, hardened %llu, %+lld",
			(unsigned long long)b, (unsigned long long)h, delta(b, h));
		if (b)
			fprintf(f, " (%+.2f%%)", 100.0 * delta(b, h) / b);
		fputc('\n', f);
		return;
	}
}

void model_sweep_diff_text(FILE *f, const struct model_sweep *s)
{
	static const char *const heads[] = {"I1", "D1", "LL"};
	char head[16];
	unsigned int i;
	int c;

	fputs("\nKernel misses per cache geometry, hardened - base (geometries matched by size, ways"
	      " and line):\n",
	      f);
	insns_text(f, s);
	fputs(" geom I1            D1            LL           ", f);
	for (c = 0; c < 3; c++) {
		snprintf(head, sizeof(head), "%s base", heads[c]);
		fprintf(f, " %11s %10s %8s", head, "delta", "change");
	}
	fputc('\n', f);
	for (i = 0; i < s->n; i++)
		diff_line(f, &s->g[i]);
}

static void kernel_json(struct json *j, const struct sweep_geom *g)
{
	static const char *const names[] = {"delta_i1_misses", "delta_d1_misses",
					    "delta_ll_misses"};
	__u64 b[3], h[3];
	int side, i;

	json_open(j, "kernel", '{');
	for (side = 0; side < 2; side++) {
		if (g->at[side] < 0)
			json_str(j, side_name[side], NULL);
		else
			stats_json(j, side_name[side], &g->c[side].kernel, false);
	}
	if (g->at[0] >= 0 && g->at[1] >= 0) {
		levels(&g->c[0].kernel, b, NULL);
		levels(&g->c[1].kernel, h, NULL);
		for (i = 0; i < 3; i++)
			json_i64(j, names[i], delta(b[i], h[i]));
		json_i64(j, "delta_misses", delta(b[0] + b[1] + b[2], h[0] + h[1] + h[2]));
	}
	json_close(j, '}');
}

static int diff_geom_json(struct json *j, const struct sweep_geom *g, size_t top,
			  model_funcs_json_fn fn)
{
	bool both = g->at[0] >= 0 && g->at[1] >= 0;
	int side, err = 0;

	json_open(j, NULL, '{');
	for (side = 0; side < 2; side++) {
		if (g->at[side] < 0)
			json_str(j, side ? "hardened_geometry" : "base_geometry", NULL);
		else
			json_u64(j, side ? "hardened_geometry" : "base_geometry", g->at[side]);
	}
	json_str(j, "only", both ? NULL : side_name[g->at[0] < 0]);
	cache_json(j, &g->g);
	kernel_json(j, g);
	if (both)
		err = fn(j, "functions", &g->c[0], &g->c[1], top);
	json_close(j, '}');
	return err;
}

int model_sweep_diff_json(struct json *j, const struct model_sweep *s, size_t top,
			  model_funcs_json_fn fn)
{
	unsigned int i;
	int err = 0;

	json_open(j, "geometries", '[');
	for (i = 0; !err && i < s->n; i++)
		err = diff_geom_json(j, &s->g[i], top, fn);
	json_close(j, ']');
	return err;
}

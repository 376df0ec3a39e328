// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --model --data (model_data.h): two recordings' loads and stores per
 * data type and member, matched by type name and member path, not offset
 * (two builds may lay a type out differently: RANDSTRUCT, or a member
 * moved), and by module: the kernel's with the kernel's, a user binary's
 * with the same path's, else with another user binary's type of that name
 * (a workload built twice in two layouts).  Types and members by the
 * change in D1 misses, hardened minus base; one on one side only said so.
 */
#include "model/model_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_report.h"
#include "model/model_sweep.h"
#include "util/esc.h"
#include "util/json.h"

struct mpair {
	const struct mdata_member *b, *h; /* NULL: absent on that side */
	long long change;		  /* in misses, hardened minus base */
};

struct tpair {
	const struct mdata_type *b, *h;
	long long change;
	struct mpair *m;
	size_t nm;
};

static const struct mdata_counts none;

static long long change_of(const struct mdata_counts *b, const struct mdata_counts *h)
{
	return (long long)mdata_misses(h ?: &none) - (long long)mdata_misses(b ?: &none);
}

static long long labs_ll(long long v)
{
	return v < 0 ? -v : v;
}

static int by_mchange(const void *x, const void *y)
{
	const struct mpair *a = x, *b = y;
	const struct mdata_member *ma = a->b ?: a->h, *mb = b->b ?: b->h;

	if (labs_ll(a->change) != labs_ll(b->change))
		return labs_ll(a->change) > labs_ll(b->change) ? -1 : 1;
	return strcmp(ma->member, mb->member)
		       ?: (ma->offset > mb->offset) - (ma->offset < mb->offset);
}

/* The members of both sides of p, each once, matched by path. */
static int members_pair(struct tpair *p)
{
	size_t nb = p->b ? p->b->nmembers : 0, nh = p->h ? p->h->nmembers : 0, i, k;
	bool *used = calloc(nh + 1, sizeof(*used));

	p->m = calloc(nb + nh + 1, sizeof(*p->m));
	if (!used || !p->m) {
		free(used);
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++) {
		struct mpair *m = &p->m[p->nm++];

		m->b = &p->b->members[i];
		for (k = 0; k < nh && !m->h; k++)
			if (!used[k] && !strcmp(p->h->members[k].member, m->b->member)) {
				used[k] = true;
				m->h = &p->h->members[k];
			}
	}
	for (k = 0; k < nh; k++)
		if (!used[k])
			p->m[p->nm++].h = &p->h->members[k];
	for (i = 0; i < p->nm; i++)
		p->m[i].change = change_of(p->m[i].b ? &p->m[i].b->c : NULL,
					   p->m[i].h ? &p->m[i].h->c : NULL);
	if (p->nm)
		qsort(p->m, p->nm, sizeof(*p->m), by_mchange);
	free(used);
	return 0;
}

static bool user_module(const struct mdata_type *t)
{
	return *t->module == '/';
}

/* h's type for b's: the same type and module, else (second pass) another user binary's. */
static const struct mdata_type *match(const struct mdata *h, const bool *used,
				      const struct mdata_type *b, bool loose)
{
	size_t k;

	for (k = 0; k < h->ntypes; k++) {
		const struct mdata_type *t = &h->types[k];

		if (used[k] || strcmp(t->type, b->type))
			continue;
		if (!strcmp(t->module, b->module) || (loose && user_module(t) && user_module(b)))
			return t;
	}
	return NULL;
}

static int by_tchange(const void *x, const void *y)
{
	const struct tpair *a = x, *b = y;
	const struct mdata_type *ta = a->b ?: a->h, *tb = b->b ?: b->h;

	if (labs_ll(a->change) != labs_ll(b->change))
		return labs_ll(a->change) > labs_ll(b->change) ? -1 : 1;
	return strcmp(ta->type, tb->type) ?: strcmp(ta->module, tb->module);
}

/* Mark h's type t used, by its index. */
static void use(const struct mdata *h, bool *used, const struct mdata_type *t)
{
	if (t)
		used[t - h->types] = true;
}

static int types_pair(const struct mdata *b, const struct mdata *h, struct tpair **out, size_t *n)
{
	struct tpair *p = calloc(b->ntypes + h->ntypes + 1, sizeof(*p));
	bool *used = calloc(h->ntypes + 1, sizeof(*used));
	size_t i, k, m = 0;
	int err = 0;

	if (!p || !used) {
		free(p);
		free(used);
		return -ENOMEM;
	}
	for (i = 0; i < b->ntypes; i++) {
		p[m].b = &b->types[i];
		p[m].h = match(h, used, p[m].b, false);
		use(h, used, p[m++].h);
	}
	for (i = 0; i < m; i++)
		if (!p[i].h && user_module(p[i].b))
			use(h, used, p[i].h = match(h, used, p[i].b, true));
	for (k = 0; k < h->ntypes; k++)
		if (!used[k])
			p[m++].h = &h->types[k];
	for (i = 0; i < m && !err; i++) {
		p[i].change = change_of(p[i].b ? &p[i].b->c : NULL, p[i].h ? &p[i].h->c : NULL);
		err = members_pair(&p[i]);
	}
	if (m)
		qsort(p, m, sizeof(*p), by_tchange);
	free(used);
	*out = p;
	*n = m;
	return err;
}

static void side_text(const char *name, const struct mdata *d)
{
	const struct model_geom *g = &d->mc.geoms[d->mc.geom];
	double s = mdata_share(d, 2), k = mdata_share(d, MD_KERNEL), u = mdata_share(d, MD_USER);

	printf("# %s: %llu loads and stores, typed %.1f%% (kernel %.1f%%, user %.1f%%); geometry %u:"
	       " D1 %u,%u,%u LL %u,%u,%u\n",
	       name, (unsigned long long)(d->accesses[MD_KERNEL] + d->accesses[MD_USER]),
	       s == s ? 100 * s : 0, k == k ? 100 * k : 0, u == u ? 100 * u : 0, d->mc.geom,
	       g->cache[1][0], g->cache[1][1], g->cache[1][2], g->cache[2][0], g->cache[2][1],
	       g->cache[2][2]);
	if (*d->kernel_note)
		esc_printf(stdout, "# %s: kernel accesses untyped: %s\n", name, d->kernel_note);
}

static const char *side_of(const void *b, const void *h)
{
	return !b ? "(hardened only)" : !h ? "(base only)" : "";
}

static void offset_col(char *buf, size_t len, const struct mdata_member *m)
{
	if (m)
		snprintf(buf, len, "+%llu", (unsigned long long)m->offset);
	else
		snprintf(buf, len, "-");
}

/* The columns after the name: offsets, size, misses of each side, change, accesses, side. */
static void cols_text(const char *ob, const char *oh, const char *size,
		      const struct mdata_counts *b, const struct mdata_counts *h, long long change,
		      const char *side)
{
	printf(" %9s %9s %9s %12llu %12llu %+10lld %12llu %12llu%s%s\n", ob, oh, size,
	       (unsigned long long)mdata_misses(b ?: &none),
	       (unsigned long long)mdata_misses(h ?: &none), change,
	       (unsigned long long)mdata_accesses(b ?: &none),
	       (unsigned long long)mdata_accesses(h ?: &none), *side ? "  " : "", side);
}

static void tpair_text(const struct tpair *p, int width, size_t top)
{
	const struct mdata_type *t = p->b ?: p->h;
	char left[1024], ob[24], oh[24], size[48];
	size_t i;

	if (p->b && p->h && strcmp(p->b->module, p->h->module))
		snprintf(left, sizeof(left), "%s  %s -> %s", t->type, p->b->module, p->h->module);
	else
		snprintf(left, sizeof(left), "%s  %s", t->type, t->module);
	if (p->b && p->h && p->b->size != p->h->size)
		snprintf(size, sizeof(size), "%llu/%llu", (unsigned long long)p->b->size,
			 (unsigned long long)p->h->size);
	else
		snprintf(size, sizeof(size), "%llu", (unsigned long long)t->size);
	esc_printf(stdout, "%-*s", width, left);
	cols_text("-", "-", size, p->b ? &p->b->c : NULL, p->h ? &p->h->c : NULL, p->change,
		  side_of(p->b, p->h));
	/* a type accessed only whole (a pseudo type, a scalar) has no member to list */
	for (i = 0; i < p->nm && i < top && !(p->nm == 1 && !*(p->m[0].b ?: p->m[0].h)->member);
	     i++) {
		const struct mpair *m = &p->m[i];
		const struct mdata_member *x = m->b ?: m->h;

		snprintf(left, sizeof(left), "    %s", *x->member ? x->member : "-");
		offset_col(ob, sizeof(ob), m->b);
		offset_col(oh, sizeof(oh), m->h);
		snprintf(size, sizeof(size), "%llu", (unsigned long long)x->size);
		esc_printf(stdout, "%-*s", width, left);
		cols_text(ob, oh, size, m->b ? &m->b->c : NULL, m->h ? &m->h->c : NULL, m->change,
			  side_of(m->b, m->h));
	}
	if (p->nm > top)
		printf("    (%zu more members, changed less)\n", p->nm - top);
}

static void diff_text(const struct mdata *b, const struct mdata *h, const struct tpair *p, size_t n,
		      size_t top)
{
	size_t i, shown = n < top ? n : top;
	int width = 40;

	for (i = 0; i < shown; i++) {
		const struct mdata_type *t = p[i].b ?: p[i].h;
		int w = strlen(t->type) + 2 + strlen(t->module) + (p[i].b && p[i].h ? 4 : 0) +
			(p[i].b && p[i].h ? strlen(p[i].h->module) : 0);

		width = w > width ? w : width;
	}
	side_text("base", b);
	side_text("hardened", h);
	if (!model_sweep_same(&b->mc, &h->mc))
		printf("# the two sides simulated different caches: their misses do not compare\n");
	printf("\nData types by the change in D1 misses (%zu of %zu; misses: D1 read and write "
	       "misses;\nchange: hardened minus base; members matched by name, their offsets on "
	       "each side;\nthe first %zu members of each type):\n",
	       shown, n, top);
	printf("%-*s %9s %9s %9s %12s %12s %10s %12s %12s\n", width, "type  module / member",
	       "base_off", "hard_off", "size", "base_misses", "hard_misses", "change", "base_acc",
	       "hard_acc");
	for (i = 0; i < shown; i++)
		tpair_text(&p[i], width, top);
	printf("%-*s", width, "(untyped)  -");
	cols_text("-", "-", "-", &b->untyped.c, &h->untyped.c,
		  change_of(&b->untyped.c, &h->untyped.c), "");
}

/* One side's counts of a pair: an object, or null when absent. */
static void side_json(struct json *j, const char *key, const struct mdata *d,
		      const struct mdata_counts *c)
{
	if (!c) {
		json_str(j, key, NULL);
		return;
	}
	json_open(j, key, '{');
	json_u64(j, "misses", mdata_misses(c));
	json_u64(j, "accesses", mdata_accesses(c));
	mdata_counts_json(j, d, c);
	json_close(j, '}');
}

static void offset_json(struct json *j, const char *key, const struct mdata_member *m)
{
	if (m)
		json_u64(j, key, m->offset);
	else
		json_str(j, key, NULL);
}

static void mpair_json(struct json *j, const struct mdata *b, const struct mdata *h,
		       const struct mpair *m)
{
	json_open(j, NULL, '{');
	json_str(j, "member", (m->b ?: m->h)->member);
	offset_json(j, "base_offset", m->b);
	offset_json(j, "hard_offset", m->h);
	json_u64(j, "size", (m->b ?: m->h)->size);
	json_str(j, "side", m->b && m->h ? "both" : m->b ? "base only" : "hardened only");
	json_i64(j, "change", m->change);
	side_json(j, "base", b, m->b ? &m->b->c : NULL);
	side_json(j, "hardened", h, m->h ? &m->h->c : NULL);
	json_close(j, '}');
}

static void tpair_json(struct json *j, const struct mdata *b, const struct mdata *h,
		       const struct tpair *p)
{
	size_t i;

	json_open(j, NULL, '{');
	json_str(j, "type", (p->b ?: p->h)->type);
	json_str(j, "base_module", p->b ? p->b->module : NULL);
	json_str(j, "hard_module", p->h ? p->h->module : NULL);
	if (p->b)
		json_u64(j, "base_size", p->b->size);
	else
		json_str(j, "base_size", NULL);
	if (p->h)
		json_u64(j, "hard_size", p->h->size);
	else
		json_str(j, "hard_size", NULL);
	json_str(j, "side", p->b && p->h ? "both" : p->b ? "base only" : "hardened only");
	json_i64(j, "change", p->change);
	side_json(j, "base", b, p->b ? &p->b->c : NULL);
	side_json(j, "hardened", h, p->h ? &p->h->c : NULL);
	json_open(j, "members", '[');
	for (i = 0; i < p->nm; i++)
		mpair_json(j, b, h, &p->m[i]);
	json_close(j, ']');
	json_close(j, '}');
}

static void recording_json(struct json *j, const char *key, const struct mdata *d)
{
	json_open(j, key, '{');
	model_header_json(j, &d->mc);
	mdata_shares_json(j, d);
	side_json(j, "untyped", d, &d->untyped.c);
	json_close(j, '}');
}

static void diff_json(const struct mdata *b, const struct mdata *h, const struct tpair *p, size_t n,
		      size_t top)
{
	struct json j;
	size_t i;

	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	recording_json(&j, "base", b);
	recording_json(&j, "hardened", h);
	json_bool(&j, "same_caches", model_sweep_same(&b->mc, &h->mc));
	json_open(&j, "data_types", '[');
	for (i = 0; i < n && i < top; i++)
		tpair_json(&j, b, h, &p[i]);
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
}

/* A side's failure named by its side, as diff --model names them. */
static int side_collect(struct mdata *d, const char *side, struct datafile *df,
			struct kernel_dwarf *kd, const char *note, unsigned int geom, char *why,
			size_t len)
{
	char w[512] = "";
	int err = mdata_collect(d, df, kd, note, geom, w, sizeof(w));

	if (err && *w)
		snprintf(why, len, "%s: %s", side, w);
	return err;
}

int model_data_diff(struct datafile *base, struct kernel_dwarf *kb, const char *nb,
		    struct datafile *hard, struct kernel_dwarf *kh, const char *nh,
		    const struct model_view_opts *o, char *why, size_t len)
{
	struct mdata b = {}, h = {};
	struct tpair *p = NULL;
	unsigned int hg = 0;
	size_t i, n = 0;
	/* the hardened recording's geometry of the base's caches, as diff --model matches them */
	int err = side_collect(&b, "BASE", base, kb, nb, o->geom, why, len)
			  ?: model_sweep_match(hard, &b.mc, &hg)
			  ?: side_collect(&h, "HARDENED", hard, kh, nh, hg, why, len)
			  ?: model_counts_same_kind(&b.mc, &h.mc, why, len) ?: types_pair(&b, &h, &p, &n);

	if (!err && o->json)
		diff_json(&b, &h, p, n, o->top);
	else if (!err)
		diff_text(&b, &h, p, n, o->top);
	for (i = 0; p && i < n; i++)
		free(p[i].m);
	free(p);
	mdata_free(&h);
	mdata_free(&b);
	return err;
}

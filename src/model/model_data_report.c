// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --model --data (model_data.h): the model's loads and stores per data
 * type, by D1 misses, each type's accessed members in offset order with the
 * cache lines marked as pahole marks them, then the accesses no type holds
 * and the PCs that made most of them, with the reason.  Also what the other
 * data views share: the header, the columns, the JSON counts.
 */
#include "model/model_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_report.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

static void share_text(char *buf, size_t len, double share)
{
	if (isnan(share))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100 * share);
}

void mdata_header_text(FILE *f, const struct mdata *d)
{
	const struct model_geom *g = &d->mc.geoms[d->mc.geom];
	char n[32], all[16], k[16], u[16];

	esc_printf(f, "# machine model: %s, window %s, QEMU %s\n", d->mc.mode, d->mc.window,
		   d->mc.qemu);
	fmt_count(n, sizeof(n), d->accesses[MD_KERNEL] + d->accesses[MD_USER]);
	share_text(all, sizeof(all), mdata_share(d, 2));
	share_text(k, sizeof(k), mdata_share(d, MD_KERNEL));
	share_text(u, sizeof(u), mdata_share(d, MD_USER));
	fprintf(f, "# data types: %s loads and stores, typed %s (kernel %s, user %s)\n", n, all, k,
		u);
	fprintf(f, "# geometry %u: D1 %u,%u,%u LL %u,%u,%u", d->mc.geom, g->cache[1][0],
		g->cache[1][1], g->cache[1][2], g->cache[2][0], g->cache[2][1], g->cache[2][2]);
	if (d->mc.tlb)
		fprintf(f, " DTLB %u,%u", g->tlb[1][0], g->tlb[1][1]);
	fprintf(f, "; ll_misses: the accessing instructions', their fetches' included\n");
	if (*d->kernel_note)
		esc_printf(f, "# kernel accesses untyped: %s\n", d->kernel_note);
}

static const char *const heads[MD_COUNTS] = {
	"reads", "writes", "d1_read_m", "d1_write_m", "ll_misses", "dtlb_misses",
};

void mdata_heads_text(FILE *f, const struct mdata *d)
{
	int k;

	for (k = 0; k < MD_COUNTS; k++)
		if (mdata_known(d, k))
			fprintf(f, " %11s", heads[k]);
}

void mdata_cols_text(FILE *f, const struct mdata *d, const struct mdata_counts *c)
{
	int k;

	for (k = 0; k < MD_COUNTS; k++)
		if (mdata_known(d, k))
			fprintf(f, " %11llu", (unsigned long long)c->v[k]);
}

void mdata_counts_json(struct json *j, const struct mdata *d, const struct mdata_counts *c)
{
	int k;

	for (k = 0; k < MD_COUNTS; k++)
		if (mdata_known(d, k))
			json_u64(j, mdata_count_names[k], c->v[k]);
}

void mdata_shares_json(struct json *j, const struct mdata *d)
{
	json_u64(j, "accesses", d->accesses[MD_KERNEL] + d->accesses[MD_USER]);
	json_double(j, "typed_share", mdata_share(d, 2));
	json_double(j, "kernel_typed_share", mdata_share(d, MD_KERNEL));
	json_double(j, "user_typed_share", mdata_share(d, MD_USER));
	json_str(j, "kernel_untyped_why", *d->kernel_note ? d->kernel_note : NULL);
}

void mdata_line_before(FILE *f, const struct mdata *d, int indent, __u64 offset, __u64 *cur)
{
	__u64 line = offset / d->line;

	if (line <= *cur)
		return;
	fprintf(f, "%*s/* --- cacheline %llu boundary (%llu bytes) --- */\n", indent, "",
		(unsigned long long)line, (unsigned long long)(line * d->line));
	*cur = line;
}

void mdata_line_after(FILE *f, const struct mdata *d, int indent, __u64 offset, __u64 size,
		      __u64 *cur)
{
	__u64 line = size ? (offset + size - 1) / d->line : 0;

	if (line <= *cur)
		return;
	fprintf(f, "%*s/* --- cacheline %llu boundary (%llu bytes) was %llu bytes ago --- */\n",
		indent, "", (unsigned long long)line, (unsigned long long)(line * d->line),
		(unsigned long long)(offset + size - line * d->line));
	*cur = line;
}

/* The widths of the type and module columns over the types shown. */
struct widths {
	int type, module, left; /* left: both, the size and their gaps */
};

static struct widths widths_of(const struct mdata *d, size_t n)
{
	struct widths w = {(int)strlen("(untyped)"), (int)strlen("module")};

	int member = 0;
	size_t i, k;

	for (i = 0; i < n; i++) {
		if ((int)strlen(d->types[i].type) > w.type)
			w.type = strlen(d->types[i].type);
		if ((int)strlen(d->types[i].module) > w.module)
			w.module = strlen(d->types[i].module);
		for (k = 0; k < d->types[i].nmembers; k++)
			if ((int)strlen(d->types[i].members[k].member) > member &&
			    strlen(d->types[i].members[k].member) <= 32)
				member = strlen(d->types[i].members[k].member);
	}
	/* a member's line: "    +OFFSET SIZE  member" */
	w.left = w.type + 2 + w.module + 2 + 6;
	w.left = 4 + 1 + 6 + 1 + 5 + 2 + member > w.left ? 4 + 1 + 6 + 1 + 5 + 2 + member : w.left;
	w.left = w.left < 40 ? 40 : w.left;
	return w;
}

static void type_text(const struct mdata *d, const struct mdata_type *t, const struct widths *w)
{
	char size[24] = "-", left[1024];

	if (t->size)
		snprintf(size, sizeof(size), "%llu", (unsigned long long)t->size);
	snprintf(left, sizeof(left), "%-*s  %-*s  %6s", w->type, t->type, w->module, t->module,
		 size);
	esc_printf(stdout, "%-*s", w->left, left);
	mdata_cols_text(stdout, d, &t->c);
	putchar('\n');
}

static void members_text(const struct mdata *d, const struct mdata_type *t, const struct widths *w)
{
	const struct mdata_member *m;
	__u64 cur = 0;
	char left[1024];
	size_t i;

	/* a type accessed only whole (a pseudo type, a scalar) has no member to list */
	if (t->nmembers == 1 && !*t->members[0].member)
		return;
	for (i = 0; i < t->nmembers; i++) {
		m = &t->members[i];
		if (t->size)
			mdata_line_before(stdout, d, 4, m->offset, &cur);
		snprintf(left, sizeof(left), "    +%-6llu %5llu  %s", (unsigned long long)m->offset,
			 (unsigned long long)m->size, *m->member ? m->member : "-");
		esc_printf(stdout, "%-*s", w->left, left);
		mdata_cols_text(stdout, d, &m->c);
		putchar('\n');
		if (t->size)
			mdata_line_after(stdout, d, 4, m->offset, m->size, &cur);
	}
}

static void untyped_text(const struct mdata *d, size_t top)
{
	size_t i, n = d->nupcs < top ? d->nupcs : top;
	const struct mdata_untyped *u;

	printf("\nUntyped PCs by accesses (%zu of %zu):\n", n, d->nupcs);
	printf("%11s  %-18s  %s\n", "accesses", "pc", "function+offset  module  reason");
	for (i = 0; i < n; i++) {
		u = &d->upcs[i];
		esc_printf(stdout, "%11llu  %#-18llx  %s+%#llx  %s  %s\n",
			   (unsigned long long)u->accesses, (unsigned long long)u->pc, u->func,
			   (unsigned long long)u->off, u->module, u->reason);
	}
}

/* The string helpers' accesses per caller: none without the plugin's call sites. */
static void calls_text(const struct mdata *d, size_t top)
{
	size_t i, n = d->ncalls < top ? d->ncalls : top;
	const struct mdata_call *k;

	if (!d->ncalls)
		return;
	printf("\nString helpers' accesses by caller (%zu of %zu; typed at the call: %%rdi "
	       "written, %%rsi read):\n",
	       n, d->ncalls);
	printf("%11s  %-28s  %s\n", "accesses", "helper", "caller+offset  reg  type or reason");
	for (i = 0; i < n; i++) {
		k = &d->calls[i];
		esc_printf(stdout, "%11llu  %-28s  %s+%#llx  %s  %s\n",
			   (unsigned long long)k->accesses, k->helper, k->caller,
			   (unsigned long long)k->caller_off, k->write ? "rdi" : "rsi",
			   k->type ?: k->reason);
	}
}

static void report_text(const struct mdata *d, size_t top)
{
	size_t i, n = d->ntypes < top ? d->ntypes : top;
	struct widths w = widths_of(d, n);
	char left[1024];

	mdata_header_text(stdout, d);
	printf("\nData types by D1 misses (%zu of %zu; members: +offset size member, the cache "
	       "lines\nmarked as pahole marks them):\n",
	       n, d->ntypes);
	snprintf(left, sizeof(left), "%-*s  %-*s  %6s", w.type, "type", w.module, "module", "size");
	printf("%-*s", w.left, left);
	mdata_heads_text(stdout, d);
	putchar('\n');
	for (i = 0; i < n; i++) {
		type_text(d, &d->types[i], &w);
		members_text(d, &d->types[i], &w);
	}
	type_text(d, &d->untyped, &w);
	untyped_text(d, top);
	calls_text(d, top);
}

static void member_json(struct json *j, const struct mdata *d, const struct mdata_member *m)
{
	json_open(j, NULL, '{');
	json_str(j, "member", m->member);
	json_u64(j, "offset", m->offset);
	json_u64(j, "size", m->size);
	mdata_counts_json(j, d, &m->c);
	json_close(j, '}');
}

static void type_json(struct json *j, const struct mdata *d, const struct mdata_type *t)
{
	size_t i;

	json_open(j, NULL, '{');
	json_str(j, "type", t->type);
	json_str(j, "module", t->module);
	json_u64(j, "size", t->size);
	mdata_counts_json(j, d, &t->c);
	json_open(j, "members", '[');
	for (i = 0; i < t->nmembers; i++)
		member_json(j, d, &t->members[i]);
	json_close(j, ']');
	json_close(j, '}');
}

static void untyped_json(struct json *j, const struct mdata *d, size_t top)
{
	size_t i;

	json_open(j, "untyped_totals", '{');
	mdata_counts_json(j, d, &d->untyped.c);
	json_close(j, '}');
	json_open(j, "untyped", '[');
	for (i = 0; i < d->nupcs && i < top; i++) {
		json_open(j, NULL, '{');
		json_u64(j, "pc", d->upcs[i].pc);
		json_str(j, "function", d->upcs[i].func);
		json_u64(j, "offset", d->upcs[i].off);
		json_str(j, "module", d->upcs[i].module);
		json_str(j, "reason", d->upcs[i].reason);
		json_u64(j, "accesses", d->upcs[i].accesses);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void calls_json(struct json *j, const struct mdata *d, size_t top)
{
	const struct mdata_call *k;
	size_t i;

	json_open(j, "callers", '[');
	for (i = 0; i < d->ncalls && i < top; i++) {
		k = &d->calls[i];
		json_open(j, NULL, '{');
		json_u64(j, "pc", k->pc);
		json_str(j, "helper", k->helper);
		json_u64(j, "site", k->site);
		json_str(j, "caller", k->caller);
		json_u64(j, "caller_offset", k->caller_off);
		json_str(j, "register", k->write ? "rdi" : "rsi");
		json_str(j, "type", k->type);
		json_str(j, "reason", k->reason);
		json_u64(j, "accesses", k->accesses);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void report_json(const struct mdata *d, size_t top)
{
	struct json j;
	size_t i;

	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	model_header_json(&j, &d->mc);
	json_u64(&j, "line", d->line);
	mdata_shares_json(&j, d);
	json_open(&j, "data_types", '[');
	for (i = 0; i < d->ntypes && i < top; i++)
		type_json(&j, d, &d->types[i]);
	json_close(&j, ']');
	untyped_json(&j, d, top);
	calls_json(&j, d, top);
	json_close(&j, '}');
	json_end(&j);
}

int model_data_report(struct datafile *df, struct kernel_dwarf *kd, const char *note,
		      const struct model_view_opts *o, char *why, size_t len)
{
	struct mdata d;
	int err = mdata_collect(&d, df, kd, note, o->geom, why, len);

	if (!err && o->json)
		report_json(&d, o->top);
	else if (!err)
		report_text(&d, o->top);
	mdata_free(&d);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's hardware prefetchers: see kp_prefetch.h.  Each
 * decides from the access alone and its own table; none looks at the
 * cache, so that one of them can sit beside any level.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kp_prefetch.h"

#define KP_PF_MAX_ENTRIES (1u << 20)

static int kp_pf_bad(const char *name, unsigned int v, const char *want)
{
	fprintf(stderr, "kp_model: prefetch %s=%u: want %s\n", name, v, want);
	return -EINVAL;
}

static int kp_pf_check(const struct kp_pf_cfg *c)
{
	unsigned int lines;

	if (c->line_bits < 4 || c->line_bits > KP_PF_PAGE_BITS)
		return kp_pf_bad("line_bits", c->line_bits, "4 to 12 (lines of 16 B to 4 KiB)");
	lines = 1u << (KP_PF_PAGE_BITS - c->line_bits);
	if (c->next_line > KP_PF_NEXT_STREAM)
		return kp_pf_bad("next_line", c->next_line, "0, 1 (every miss) or 2 (a stream's)");
	if (c->ip_entries &&
	    (c->ip_entries & (c->ip_entries - 1) || c->ip_entries > KP_PF_MAX_ENTRIES))
		return kp_pf_bad("ip_entries", c->ip_entries, "0 or a power of two up to 2^20");
	if (c->ip_entries && (!c->ip_distance || c->ip_distance > lines))
		return kp_pf_bad("ip_distance", c->ip_distance, "1 to a page's lines");
	if (c->streams > KP_PF_MAX_STREAMS)
		return kp_pf_bad("streams", c->streams, "0 to 64");
	if (c->streams && (!c->stream_distance || c->stream_distance > lines))
		return kp_pf_bad("stream_distance", c->stream_distance, "1 to a page's lines");
	if (c->streams && !c->stream_degree)
		return kp_pf_bad("stream_degree", c->stream_degree, "1 or more");
	if (c->next_page && !c->streams)
		return kp_pf_bad("next_page", 1, "streams to follow (streams=0)");
	return 0;
}

int kp_pf_init(struct kp_pf *p, const struct kp_pf_cfg *c)
{
	unsigned int i;
	int err = kp_pf_check(c);

	if (err)
		return err;
	*p = (struct kp_pf){.cfg = *c};
	for (i = 0; i < KP_PF_NP; i++)
		p->np[i].vpage = KP_PF_NONE;
	for (i = 0; i < KP_PF_RECENT; i++)
		p->recent[i] = KP_PF_NONE;
	if (c->ip_entries) {
		p->ip = malloc(c->ip_entries * sizeof(*p->ip));
		if (!p->ip)
			return -ENOMEM;
		for (i = 0; i < c->ip_entries; i++)
			p->ip[i] = (struct kp_pf_ip){.pc = KP_PF_NONE};
	}
	if (c->streams) {
		p->st = calloc(c->streams, sizeof(*p->st));
		if (!p->st)
			goto err_st;
		p->page = malloc(c->streams * sizeof(*p->page));
		if (!p->page)
			goto err_page;
		for (i = 0; i < c->streams; i++)
			p->page[i] = KP_PF_NONE;
	}
	return 0;

err_page:
	free(p->st);
err_st:
	free(p->ip);
	*p = (struct kp_pf){0};
	return -ENOMEM;
}

void kp_pf_free(struct kp_pf *p)
{
	free(p->page);
	free(p->st);
	free(p->ip);
	*p = (struct kp_pf){0};
}

/* line appended to out[n] unless there already (the kinds may agree): the new count */
static unsigned int kp_pf_emit(uint64_t *out, unsigned int n, uint64_t line)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (out[i] == line)
			return n;
	out[n] = line;
	return n + 1;
}

/*
 * The load's entry follows its stride: one that changes starts again at no
 * confidence.  Confident, it issues the line ip_distance strides ahead,
 * unless that is the access's own line, the one it issued last (strides
 * under a line) or in another page.
 */
static unsigned int kp_pf_ipstride(struct kp_pf *p, uint64_t pc, uint64_t pa, uint64_t *out,
				   unsigned int n, unsigned int max)
{
	struct kp_pf_ip *e = &p->ip[(pc ^ pc >> 16) & (p->cfg.ip_entries - 1)];
	unsigned int lb = p->cfg.line_bits;
	int64_t stride;
	uint64_t target;

	if (e->pc != pc) {
		*e = (struct kp_pf_ip){pc, pa, KP_PF_NONE, 0, 0};
		return n;
	}
	stride = (int64_t)(pa - e->last);
	e->last = pa;
	if (stride != e->stride) {
		e->stride = stride;
		e->conf = 0;
		return n;
	}
	if (e->conf < KP_PF_IP_CONF)
		e->conf++;
	if (e->conf < KP_PF_IP_CONF || !stride)
		return n;
	/* unsigned: a stride too large wraps, and lands in another page */
	target = pa + (uint64_t)stride * p->cfg.ip_distance;
	if (n == max || target >> KP_PF_PAGE_BITS != pa >> KP_PF_PAGE_BITS ||
	    target >> lb == pa >> lb || target >> lb == e->issued)
		return n;
	e->issued = target >> lb;
	return kp_pf_emit(out, n, e->issued);
}

/* page's stream, else NULL */
static struct kp_pf_stream *kp_pf_find(struct kp_pf *p, uint64_t page)
{
	unsigned int i;

	for (i = 0; i < p->cfg.streams; i++)
		if (p->page[i] == page)
			return &p->st[i];
	return NULL;
}

/* a stream for page started at line, in place of the least recently used (or an empty one) */
static void kp_pf_start(struct kp_pf *p, uint64_t page, int line)
{
	unsigned int i, victim = 0;
	uint64_t oldest = p->st[0].lru;

	/*
	 * The oldest kept in a register (through st[victim], each step would
	 * wait for a load), chosen without a branch: under misses all over,
	 * which one is oldest is anyone's guess, the host's predictor's too.
	 */
	for (i = 1; i < p->cfg.streams; i++) {
		uint64_t lru = p->st[i].lru;
		bool older = lru < oldest;

		victim = older ? i : victim;
		oldest = older ? lru : oldest;
	}
	p->page[victim] = page;
	p->st[victim] = (struct kp_pf_stream){++p->clock, line, line, 0, 0};
}

/*
 * A confident stream's prefetches from its next line on: stream_degree at
 * most, none over stream_distance ahead of the demand at line or past the
 * page's edge.  Issuing the edge's line, it may cross (p->edge) once its
 * demand walked stream_distance lines of the page its way: a page
 * streamed, not a few lines of an object that happened to lie near the
 * edge.
 */
static unsigned int kp_pf_run(struct kp_pf *p, struct kp_pf_stream *s, uint64_t base,
			      int line, uint64_t *out, unsigned int n, unsigned int max)
{
	int lines = 1 << (KP_PF_PAGE_BITS - p->cfg.line_bits), dist = p->cfg.stream_distance;
	unsigned int k;

	/* the demand caught up with what was issued: on from the next line */
	if ((s->next - line) * s->dir <= 0)
		s->next = line + s->dir;
	for (k = 0; k < p->cfg.stream_degree && n < max; k++) {
		if (s->next < 0 || s->next >= lines || (s->next - line) * s->dir > dist)
			break;
		n = kp_pf_emit(out, n, base + s->next);
		if (s->next == (s->dir > 0 ? lines - 1 : 0) && s->conf >= (unsigned int)dist)
			p->edge = p->cfg.next_page ? s->dir : 0;
		s->next += s->dir;
	}
	return n;
}

/*
 * A step within a page's stream: the same direction as before gains
 * confidence (the lines walked that way, up to a page's), the other starts
 * again at one.  A miss in a page without a stream starts one, of no
 * direction yet.
 */
static unsigned int kp_pf_stream(struct kp_pf *p, uint64_t pa, bool miss, uint64_t *out,
				 unsigned int n, unsigned int max)
{
	uint64_t page = pa >> KP_PF_PAGE_BITS, base = page << (KP_PF_PAGE_BITS - p->cfg.line_bits);
	int line = (pa >> p->cfg.line_bits) - base, dir;
	struct kp_pf_stream *s = kp_pf_find(p, page);

	if (!s) {
		if (miss)
			kp_pf_start(p, page, line);
		return n;
	}
	s->lru = ++p->clock;
	if (line == s->last)
		return n;
	dir = line > s->last ? 1 : -1;
	s->last = line;
	if (dir != s->dir) {
		s->dir = dir;
		s->conf = 1;
	} else if (s->conf < 1u << (KP_PF_PAGE_BITS - p->cfg.line_bits)) {
		s->conf++;
	}
	if (s->conf < KP_PF_STREAM_CONF)
		return n;
	return kp_pf_run(p, s, base, line, out, n, max);
}

unsigned int kp_pf_access(struct kp_pf *p, uint64_t pc, uint64_t pa, bool miss, uint64_t *out,
			  unsigned int max)
{
	unsigned int lb = p->cfg.line_bits, n = 0;
	uint64_t next = (pa >> lb) + 1;

	p->edge = 0;
	/* the kinds train whether or not out has room */
	if (p->cfg.next_line && miss && max &&
	    next << lb >> KP_PF_PAGE_BITS == pa >> KP_PF_PAGE_BITS &&
	    (p->cfg.next_line == KP_PF_NEXT_MISS ||
	     (next >= 2 && p->recent[(next - 2) & (KP_PF_RECENT - 1)] == next - 2)))
		n = kp_pf_emit(out, n, next);
	if (p->cfg.next_line == KP_PF_NEXT_STREAM)
		p->recent[(next - 1) & (KP_PF_RECENT - 1)] = next - 1;
	if (p->ip)
		n = kp_pf_ipstride(p, pc, pa, out, n, max);
	if (p->st)
		n = kp_pf_stream(p, pa, miss, out, n, max);
	return n;
}

void kp_pf_arm(struct kp_pf *p, uint64_t va, double at)
{
	struct kp_pf_np *e = &p->np[p->np_next];

	if (!p->edge)
		return;
	*e = (struct kp_pf_np){(va >> KP_PF_PAGE_BITS) + p->edge, at, p->edge};
	p->np_next = (p->np_next + 1) % KP_PF_NP;
	p->edge = 0;
}

int kp_pf_crossing(struct kp_pf *p, uint64_t va, double *at)
{
	int lines = 1 << (KP_PF_PAGE_BITS - p->cfg.line_bits);
	int line = (va >> p->cfg.line_bits) & (lines - 1);
	uint64_t vpage = va >> KP_PF_PAGE_BITS;
	unsigned int i;

	for (i = 0; i < KP_PF_NP; i++) {
		struct kp_pf_np *e = &p->np[i];
		int from = e->dir > 0 ? line : lines - 1 - line;

		if (e->vpage != vpage)
			continue;
		e->vpage = KP_PF_NONE;
		if (from >= (int)p->cfg.stream_distance)
			return 0;
		*at = e->at;
		return e->dir;
	}
	return 0;
}

unsigned int kp_pf_enter(struct kp_pf *p, uint64_t pa, int dir, uint64_t *out, unsigned int max)
{
	uint64_t page = pa >> KP_PF_PAGE_BITS, base = page << (KP_PF_PAGE_BITS - p->cfg.line_bits);
	int lines = 1 << (KP_PF_PAGE_BITS - p->cfg.line_bits), edge = dir > 0 ? 0 : lines - 1;
	int line = (pa >> p->cfg.line_bits) - base;
	struct kp_pf_stream *s = kp_pf_find(p, page);
	unsigned int n = 0;

	if (!s) {
		kp_pf_start(p, page, line);
		s = kp_pf_find(p, page);
	}
	*s = (struct kp_pf_stream){++p->clock, line, edge, dir, KP_PF_STREAM_CONF};
	while (n < max && n < p->cfg.stream_distance) {
		out[n++] = base + s->next;
		s->next += dir;
	}
	return n;
}

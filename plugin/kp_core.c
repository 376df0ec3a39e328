// SPDX-License-Identifier: GPL-2.0-only
/* The timing model's core: an instruction window (kp_core.h says what it models). */
#include "kp_core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KP_CORE_MAX_WIDTH   16
#define KP_CORE_MAX_WINDOW  4096
#define KP_CORE_MAX_MSHRS   256
#define KP_CORE_MAX_WALKERS 64
#define KP_CORE_MAX_REFILL  1000
#define KP_CORE_INFLIGHT    4096 /* lines in flight remembered, by line: a power of two */
#define KP_CORE_SLOTS	    4096 /* a resource's slots remembered, by slot: a power of two */
#define KP_CORE_MAX_ALUS    64
#define KP_CORE_MAX_LL_QUEUE 100000 /* hundredths of a cycle: 1,000 cycles a miss in flight */

static int kp_queue_init(struct kp_core_queue *q, unsigned int size)
{
	q->size = size;
	q->retire = size ? calloc(size, sizeof(*q->retire)) : NULL;
	q->why = size ? calloc(size, sizeof(*q->why)) : NULL;
	return size && (!q->retire || !q->why) ? -ENOMEM : 0;
}

static void kp_queue_free(struct kp_core_queue *q)
{
	free(q->why);
	free(q->retire);
	q->why = NULL;
	q->retire = NULL;
}

/*
 * r's slots of period cycles, and 1 / period when that is exact (a power
 * of two): a multiplication then gives the division's result to the bit
 */
static void kp_slots_init(struct kp_core_slots *r, double period)
{
	uint64_t bits;

	memcpy(&bits, &period, sizeof(bits));
	r->taken = calloc(KP_CORE_SLOTS, sizeof(uint64_t));
	r->period = period;
	/* no mantissa bits: a power of two (periods are normal numbers) */
	r->per = period && !(bits & ((1ull << 52) - 1)) ? 1.0 / period : 0;
}

int kp_core_init(struct kp_core *c, const struct kp_core_cfg *cfg, const char **bad)
{
	unsigned int u;

	memset(c, 0, sizeof(*c));
	if (!cfg->width || cfg->width > KP_CORE_MAX_WIDTH)
		*bad = "width";
	else if (!cfg->window || cfg->window > KP_CORE_MAX_WINDOW)
		*bad = "window";
	else if (!cfg->mshrs || cfg->mshrs > KP_CORE_MAX_MSHRS)
		*bad = "mshrs";
	else if (cfg->l2_mshrs > KP_CORE_MAX_MSHRS)
		*bad = "l2_mshrs";
	else if (cfg->ll_queue > KP_CORE_MAX_LL_QUEUE || (cfg->ll_queue && !cfg->l2_mshrs))
		*bad = "ll_queue";
	else if (cfg->walkers > KP_CORE_MAX_WALKERS)
		*bad = "walkers";
	else if (cfg->mispredict > KP_CORE_MAX_REFILL)
		*bad = "mispredict";
	else if (!cfg->ll || !cfg->dram || cfg->ll > cfg->dram)
		*bad = "dram";
	else if (cfg->lq > KP_CORE_MAX_WINDOW)
		*bad = "lq";
	else if (cfg->sq > KP_CORE_MAX_WINDOW)
		*bad = "sq";
	else if (cfg->prf > KP_CORE_MAX_WINDOW)
		*bad = "prf";
	else if (cfg->sched > KP_CORE_MAX_WINDOW)
		*bad = "sched";
	else if (cfg->fetch_block & (cfg->fetch_block - 1) || cfg->fetch_block > 4096)
		*bad = "fetch_block";
	else if (cfg->l1_fill > KP_CORE_MAX_REFILL)
		*bad = "l1_fill";
	else if (cfg->alus > KP_CORE_MAX_ALUS)
		*bad = "alus";
	else
		*bad = NULL;
	if (*bad)
		return -EINVAL;
	c->cfg = *cfg;
	while (cfg->fetch_block >> (c->fbits + 1))
		c->fbits++;
	/* a power of two at least the window: its index wraps by a mask */
	c->ring_mask = 1;
	while (c->ring_mask < cfg->window)
		c->ring_mask <<= 1;
	c->mshr = calloc(cfg->mshrs, sizeof(*c->mshr));
	c->l2mshr = cfg->l2_mshrs ? calloc(cfg->l2_mshrs, sizeof(*c->l2mshr)) : NULL;
	c->walker = cfg->walkers ? calloc(cfg->walkers, sizeof(*c->walker)) : NULL;
	c->ring = calloc(c->ring_mask--, sizeof(*c->ring));
	c->inflight = calloc(KP_CORE_INFLIGHT, sizeof(*c->inflight));
	kp_slots_init(&c->fill, cfg->l1_fill);
	kp_slots_init(&c->alu, cfg->alus ? 1.0 / cfg->alus : 0);
	for (u = 0; u < KP_CORE_UOP_CYCLES; u++)
		c->uop_cycles[u] = (double)u / cfg->width;
	c->sched.issue = cfg->sched ? calloc(cfg->sched, sizeof(*c->sched.issue)) : NULL;
	c->sched.why = cfg->sched ? calloc(cfg->sched, sizeof(*c->sched.why)) : NULL;
	if (!c->mshr || (cfg->l2_mshrs && !c->l2mshr) || (cfg->walkers && !c->walker) || !c->ring ||
	    !c->inflight || !c->fill.taken || !c->alu.taken ||
	    (cfg->sched && (!c->sched.issue || !c->sched.why)) || kp_queue_init(&c->lq, cfg->lq) ||
	    kp_queue_init(&c->sq, cfg->sq) || kp_queue_init(&c->prf, cfg->prf)) {
		kp_core_free(c);
		return -ENOMEM;
	}
	return 0;
}

void kp_core_free(struct kp_core *c)
{
	kp_queue_free(&c->prf);
	kp_queue_free(&c->sq);
	kp_queue_free(&c->lq);
	free(c->sched.why);
	free(c->sched.issue);
	c->sched.why = NULL;
	c->sched.issue = NULL;
	free(c->alu.taken);
	c->alu.taken = NULL;
	free(c->fill.taken);
	c->fill.taken = NULL;
	free(c->inflight);
	c->inflight = NULL;
	free(c->ring);
	free(c->walker);
	free(c->l2mshr);
	free(c->mshr);
	c->ring = NULL;
	c->walker = NULL;
	c->l2mshr = NULL;
	c->mshr = NULL;
}

/* A time and what held it back, the later of two kept. */
struct kp_when {
	double t;
	uint8_t why;
};

static inline void kp_later(struct kp_when *w, double t, uint8_t why)
{
	if (t > w->t) {
		w->t = t;
		w->why = why;
	}
}

/* the latest ready time among registers regs, with its cause */
static void kp_sources(const struct kp_core *c, uint64_t regs, struct kp_when *w)
{
	while (regs) {
		unsigned int r = __builtin_ctzll(regs);

		regs &= regs - 1;
		kp_later(w, c->ready[r], c->why[r]);
	}
}

/*
 * A fetch cycle takes one aligned block of code (an op cache's line): an
 * instruction whose last byte lies in another block than the one fetched
 * last waits for the next cycle, though the width has room.  A loop across
 * two blocks takes two cycles an iteration (a Zen 4's, measured: 1 within
 * a block, 2 across); straight code, 16 instructions a block to a width of
 * 4-8, is not held (the op queue between them hides it).
 */
static void kp_fetch_block(struct kp_core *c, const struct kp_core_insn *in, struct kp_when *f)
{
	uint64_t b = (in->end >> c->fbits) + 1;
	double cycle = (double)(uint64_t)f->t;

	if (b == c->fblock)
		return;
	if (c->fblock && cycle < c->fcycle + 1)
		cycle = c->fcycle + 1;
	c->fblock = b;
	c->fcycle = cycle;
	if (f->t < cycle)
		f->t = cycle;
}

/* the cycles of u uops at the width */
static inline double kp_uop_cycles(const struct kp_core *c, unsigned int u)
{
	return u < KP_CORE_UOP_CYCLES ? c->uop_cycles[u] : (double)u / c->cfg.width;
}

/* Fetch: in order, after a redirect, after its own I-side stall, a block a cycle. */
static struct kp_when kp_fetch(struct kp_core *c, const struct kp_core_insn *in, unsigned int uops)
{
	struct kp_when f = {c->fetch, KP_ST_BASE};

	kp_later(&f, c->redirect, c->redirect_why);
	if (in->fetch_stall) {
		f.t += in->fetch_stall;
		f.why = KP_ST_ICACHE;
	}
	if (c->cfg.fetch_block)
		kp_fetch_block(c, in, &f);
	c->fetch = f.t + kp_uop_cycles(c, uops);
	/* what a taken branch goes to is fetched from the next cycle on (times are >= 0) */
	if (in->taken && c->fetch < (double)(uint64_t)f.t + 1)
		c->fetch = (double)(uint64_t)f.t + 1;
	return f;
}

/* a full queue's oldest entry frees when its instruction retires */
static void kp_queue_wait(struct kp_core_queue *q, struct kp_when *d)
{
	if (!q->size || q->n < q->size)
		return;
	kp_later(d, q->retire[q->head], q->why[q->head]);
	if (++q->head == q->size) /* no division: a queue's size need not be a power of two */
		q->head = 0;
	q->n--;
}

static void kp_queue_add(struct kp_core_queue *q, double retire, uint8_t why)
{
	unsigned int i;

	if (!q->size)
		return;
	i = q->head + q->n++;
	if (i >= q->size)
		i -= q->size;
	q->retire[i] = retire;
	q->why[i] = why;
}

/* the scheduler's entry that issues soonest, gone: the heap's last moved down from the top */
static void kp_sched_pop(struct kp_core_sched *h)
{
	double t = h->issue[--h->n];
	uint8_t why = h->why[h->n];
	unsigned int i = 0, k;

	while ((k = 2 * i + 1) < h->n) {
		if (k + 1 < h->n && h->issue[k + 1] < h->issue[k])
			k++;
		if (t <= h->issue[k])
			break;
		h->issue[i] = h->issue[k];
		h->why[i] = h->why[k];
		i = k;
	}
	h->issue[i] = t;
	h->why[i] = why;
}

/* an instruction waiting from dispatch until it issues at t (held by why): an entry */
static void kp_sched_push(struct kp_core_sched *h, double t, uint8_t why)
{
	unsigned int i = h->n++, up;

	while (i && h->issue[up = (i - 1) / 2] > t) {
		h->issue[i] = h->issue[up];
		h->why[i] = h->why[up];
		i = up;
	}
	h->issue[i] = t;
	h->why[i] = why;
}

/*
 * The scheduler at dispatch (in order, so its time only grows): the
 * entries issued by then have left it; full, it waits for the first to
 * issue, held by what holds that one.
 */
static void kp_sched_wait(struct kp_core *c, struct kp_when *d)
{
	struct kp_core_sched *h = &c->sched;

	while (h->n && h->issue[0] <= d->t)
		kp_sched_pop(h);
	if (h->n == c->cfg.sched) {
		kp_later(d, h->issue[0], h->why[0]);
		kp_sched_pop(h);
	}
}

/*
 * Dispatch: room in the window, made by the oldest retiring, and in the
 * queues; a drain waits for all; never before the last; then room in the
 * scheduler.
 */
static void kp_dispatch(struct kp_core *c, const struct kp_core_insn *in, unsigned int uops,
			struct kp_when *d)
{
	while (c->n && c->uops + uops > c->cfg.window) {
		const struct kp_core_slot *s = &c->ring[c->head];

		kp_later(d, s->retire, s->cause);
		c->uops -= s->uops;
		c->head = (c->head + 1) & c->ring_mask;
		c->n--;
	}
	if (in->loads)
		kp_queue_wait(&c->lq, d);
	if (in->stores)
		kp_queue_wait(&c->sq, d);
	if (in->renames)
		kp_queue_wait(&c->prf, d);
	if (in->serializing)
		kp_later(d, c->retired, KP_ST_SERIALIZE);
	/* in order: a queue's stall on an older instruction holds this one too */
	kp_later(d, c->dispatched, c->dispatch_why);
	if (c->cfg.sched)
		kp_sched_wait(c, d);
	c->dispatched = d->t;
	c->dispatch_why = d->why;
}

/* of n miss buffers or walkers (when each frees), the one that frees first */
static double *kp_first_free(double *v, unsigned int n)
{
	double *first = v;
	unsigned int i;

	for (i = 1; i < n; i++)
		if (v[i] < *first)
			first = &v[i];
	return first;
}

/*
 * A line to or from memory taking cost cycles, at t or later: when the
 * channel is done.  The channel is busy cost cycles a line from when the
 * line was asked for (a read ready at t was asked for memory's latency
 * before it), not from t: a read asked for ahead of writes leaves the
 * channel to them meanwhile, whatever order they are handed over in.
 */
static double kp_channel_for(struct kp_core *c, double t, unsigned int cost)
{
	double asked = t - c->cfg.dram;

	if (!cost)
		return t;
	c->dram_free = (c->dram_free > asked ? c->dram_free : asked) + cost;
	return c->dram_free > t ? c->dram_free : t;
}

/* a line from memory, ready at t or later: when the channel has sent it */
static double kp_channel(struct kp_core *c, double t)
{
	return kp_channel_for(c, t, c->cfg.dram_line);
}

/* a dirty line back to memory, from t */
static double kp_writeback(struct kp_core *c, double t)
{
	return kp_channel_for(c, t, c->cfg.dram_wline ? c->cfg.dram_wline : c->cfg.dram_line);
}

/* A user of r asked for at t: when it gets r, at t or later (struct kp_core_slots). */
static double kp_slot(struct kp_core_slots *r, double t)
{
	uint64_t s;
	double at;

	if (!r->period)
		return t;
	/* + 1: a slot's entry 0 is none taken */
	s = (uint64_t)(r->per ? t * r->per : t / r->period) + 1;
	while (r->taken[s & (KP_CORE_SLOTS - 1)] == s)
		s++;
	r->taken[s & (KP_CORE_SLOTS - 1)] = s;
	at = (double)(s - 1) * r->period;
	return at > t ? at : t;
}

/*
 * the prefetches an access issued at t (early: a crossing's, asked for at
 * pf_from, the others left): when each line arrives, remembered
 */
static void kp_prefetches(struct kp_core *c, const struct kp_core_insn *in, double t, bool early)
{
	unsigned int cross = early ? c->cfg.page_cross : 0;
	uint32_t i;

	if (early)
		t = in->pf_from;
	for (i = 0; i < in->npf; i++) {
		uint64_t line = in->pf[i] & ~(KP_CORE_PF_DRAM | KP_CORE_PF_L2 | KP_CORE_PF_EARLY);
		struct kp_core_line *e = &c->inflight[line & (KP_CORE_INFLIGHT - 1)];

		if (!(in->pf[i] & KP_CORE_PF_EARLY) != !early)
			continue;
		e->line = line;
		if (in->pf[i] & KP_CORE_PF_DRAM) {
			e->ready = kp_channel_for(c, t + c->cfg.dram, c->cfg.dram_line + cross);
			cross = 0;
		} else if (in->pf[i] & KP_CORE_PF_L2 && c->cfg.l2)
			e->ready = kp_slot(&c->fill, t) + c->cfg.l2; /* an L1 prefetch: L1's fill path */
		else
			e->ready = t + c->cfg.ll;
	}
}

/* a store's line a prefetch is still bringing; the lines it dirtied, written back */
static void kp_store_waits(struct kp_core *c, const struct kp_core_insn *in, struct kp_when *done)
{
	const struct kp_core_line *e = &c->inflight[in->store_line & (KP_CORE_INFLIGHT - 1)];
	uint32_t i;

	if (in->store_line && e->line == in->store_line)
		kp_later(done, e->ready, KP_ST_DCACHE);
	for (i = 0; i < in->writebacks; i++) {
		double t = kp_writeback(c, done->t);

		if (in->string_line)
			kp_later(done, t, KP_ST_DCACHE);
	}
}

/*
 * A store that missed L1, dispatched at t: a miss buffer first (and one
 * of L2's when its line is beyond L2).  Its line, asked for once it has
 * them, taken by L1's fill path (no wait: a store retires before its line
 * is there), holds the buffers until it arrives.
 */
static void kp_store_miss(struct kp_core *c, const struct kp_core_insn *in, double t,
			  struct kp_when *done)
{
	double *buf = kp_first_free(c->mshr, c->cfg.mshrs), *l2buf = NULL, asked;

	kp_later(done, *buf, KP_ST_DCACHE);
	if (*buf > t)
		t = *buf;
	if (in->store_beyond && c->cfg.l2_mshrs) {
		l2buf = kp_first_free(c->l2mshr, c->cfg.l2_mshrs);
		kp_later(done, *l2buf, KP_ST_DCACHE);
		if (*l2buf > t)
			t = *l2buf;
	}
	asked = kp_slot(&c->fill, t);
	*buf = (asked > done->t ? asked : done->t) + in->store_lat;
	if (in->store_dram)
		*buf = kp_channel(c, *buf);
	if (l2buf)
		*l2buf = *buf;
}

/*
 * What an LL hit issued at t waits for the other misses beyond L2 in
 * flight then (L2's buffers busy): a last level's latency grows with the
 * misses it serves at once (docs/model.md, "The last level under load").
 */
static double kp_ll_queue(const struct kp_core *c, double t)
{
	unsigned int i, busy = 0;

	if (!c->cfg.ll_queue)
		return 0;
	for (i = 0; i < c->cfg.l2_mshrs; i++)
		busy += c->l2mshr[i] > t;
	return busy * c->cfg.ll_queue / 100.0;
}

/*
 * The load: its address, a walker when its translation walks, a miss
 * buffer when it missed L1, its latency; when its value is there.  *own:
 * what of its own held it (a walker, a miss buffer, its level, the
 * channel, a prefetch in flight), KP_ST_BASE when nothing.  *at: when
 * its address was ready (it issues then).
 */
static struct kp_when kp_load(struct kp_core *c, const struct kp_core_insn *in, struct kp_when d,
			      uint8_t *own, struct kp_when *at)
{
	uint32_t tlb = in->load_tlb < in->load_lat ? in->load_tlb : in->load_lat;
	struct kp_when l = d;
	double *buf = NULL, *l2buf = NULL, issue, addr, translated;

	kp_sources(c, in->addr, &l);
	*at = l;
	addr = l.t;
	if (in->load_walked && c->cfg.walkers) {
		double *w = kp_first_free(c->walker, c->cfg.walkers);

		kp_later(&l, *w, KP_ST_TLB);
		*w = l.t + tlb;
	}
	/* L1 is tagged by physical address: a miss, and its buffer, once translated */
	l.t += tlb;
	translated = l.t;
	if (in->load_miss) {
		buf = kp_first_free(c->mshr, c->cfg.mshrs);
		kp_later(&l, *buf, KP_ST_DCACHE);
		if (in->load_beyond && c->cfg.l2_mshrs) {
			l2buf = kp_first_free(c->l2mshr, c->cfg.l2_mshrs);
			kp_later(&l, *l2buf, KP_ST_DCACHE);
		}
		kp_later(&l, kp_slot(&c->fill, l.t), KP_ST_DCACHE);
	}
	issue = l.t;
	l.t += in->load_lat - tlb;
	if (l2buf && !in->load_dram)
		l.t += kp_ll_queue(c, issue);
	/* the longer of its two parts beyond an L1 hit (a wait for a walker the TLB's) names it */
	if (l.t > addr + in->load_l1)
		l.why = (translated - addr) * 2 > l.t - addr - in->load_l1 ? KP_ST_TLB
									   : KP_ST_DCACHE;
	if (in->load_dram)
		kp_later(&l, kp_channel(c, l.t), KP_ST_DCACHE);
	/* a hit on a line a prefetch or an earlier miss has not brought yet */
	if (in->load_line) {
		struct kp_core_line *e = &c->inflight[in->load_line & (KP_CORE_INFLIGHT - 1)];

		if (e->line == in->load_line)
			kp_later(&l, e->ready, KP_ST_DCACHE);
		/* its miss brings the line: a later load of it waits for it as for a prefetch */
		if (in->load_miss) {
			e->line = in->load_line;
			e->ready = l.t;
		}
	}
	/* its own parts took longer than an L1 hit: they, not its address, held it */
	if (l.t > addr + in->load_l1)
		*own = l.why;
	kp_prefetches(c, in, issue, false);
	if (buf)
		*buf = l.t;
	if (l2buf)
		*l2buf = l.t;
	return l;
}

/* Retirement: in order, width uops a cycle, not before completion; the charge. */
static void kp_retire(struct kp_core *c, unsigned int uops, struct kp_when done,
		      struct kp_core_charge *out)
{
	double base = kp_uop_cycles(c, uops), r = c->retired + base;
	struct kp_core_slot *s;

	out->base = base;
	if (done.t > r)
		r = done.t;
	else
		done.why = KP_ST_BASE;
	out->why = done.why;
	out->cycles = r - c->retired;
	c->retired = r;
	s = &c->ring[(c->head + c->n) & c->ring_mask];
	s->retire = r;
	s->uops = uops;
	s->cause = done.why;
	c->n++;
	c->uops += uops;
}

void kp_core_step(struct kp_core *c, const struct kp_core_insn *in, struct kp_core_charge *out)
{
	unsigned int uops = in->uops ? in->uops : 1;
	struct kp_when d, done, issue;
	uint64_t dst = in->dst;
	/*
	 * what of its own held its value back: what its registers pass on.  A
	 * cause inherited from a source is charged here but not passed on, or
	 * a chain of adds long after a miss would all be the miss's.
	 */
	uint8_t own = KP_ST_BASE, cause;

	if (uops > c->cfg.window)
		uops = c->cfg.window;
	if (in->pf_early)
		kp_prefetches(c, in, 0, true);
	d = kp_fetch(c, in, uops);
	kp_dispatch(c, in, uops, &d);
	issue = d;
	done = in->load_lat ? kp_load(c, in, d, &own, &issue) : d;
	kp_sources(c, in->src & ~in->addr, &done);
	/* its operation, ready, waits for a pipe: the core busy at its rate */
	if (in->alu)
		kp_later(&done, kp_slot(&c->alu, done.t), KP_ST_BASE);
	/*
	 * it waits in the scheduler until it issues: a plain load once its
	 * address is ready, anything else once its operands are (a load's value
	 * too, an operation's on it or a store of it)
	 */
	if (!in->load_lat || in->lat || in->stores || in->src & ~in->addr)
		issue = done;
	if (c->cfg.sched && issue.t > d.t)
		kp_sched_push(&c->sched, issue.t, issue.why);
	if (!in->load_lat)
		kp_prefetches(c, in, done.t, false);
	kp_store_waits(c, in, &done);
	if (in->store_lat)
		kp_store_miss(c, in, d.t, &done);
	/* a load's latency is load-to-use: a plain load adds nothing after it; a renamed move
	 * nothing */
	done.t += in->lat;
	if (in->fixed) {
		done.t += in->fixed;
		done.why = own = KP_ST_SERIALIZE;
	}
	while (dst) {
		unsigned int r = __builtin_ctzll(dst);

		dst &= dst - 1;
		c->ready[r] = done.t;
		c->why[r] = own;
	}
	kp_retire(c, uops, done, out);
	cause = c->ring[(c->head + c->n - 1) & c->ring_mask].cause;
	if (in->loads)
		kp_queue_add(&c->lq, c->retired, cause);
	if (in->stores)
		kp_queue_add(&c->sq, c->retired, cause);
	if (in->renames)
		kp_queue_add(&c->prf, c->retired, cause);
	if (in->mispredicted && done.t + c->cfg.mispredict > c->redirect) {
		c->redirect = done.t + c->cfg.mispredict;
		c->redirect_why = KP_ST_BRANCH;
	}
	if (in->serializing && c->retired > c->redirect) {
		c->redirect = c->retired;
		c->redirect_why = KP_ST_SERIALIZE;
	}
	c->insns++;
}

void kp_core_side(struct kp_core *c, const struct kp_core_insn *in)
{
	uint32_t i;

	kp_prefetches(c, in, c->fetch, false);
	if (in->pf_early)
		kp_prefetches(c, in, 0, true);
	for (i = 0; i < in->writebacks; i++)
		kp_writeback(c, c->fetch);
}

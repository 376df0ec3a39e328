// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's branch predictor: see kp_bpred.h.
 *
 * Conditional branches go to a tournament (McFarling's: bimodal + gshare,
 * a per-PC chooser), not to a TAGE.  The plugin predicts every branch the
 * guest retires in a window, so the cost per branch counts: three counter
 * reads, no tags, where a TAGE reads 4 to 8 tagged tables, folds the
 * history for each on every branch and runs an allocation and usefulness
 * policy.  And what the timing model needs is the effect of the code's
 * control flow (a loop's exit, a data-dependent branch, a retpoline), which
 * a tournament shows; a TAGE's gain is in long correlations worth a few
 * percent of accuracy that no cost table here is calibrated to.  Its
 * counts also follow from the code by hand, so the tests assert them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kp_bpred.h"

#define KP_BPRED_MAX   (1u << 24) /* most entries of any table */
#define KP_PATH_SHIFT  48	  /* history bits go above a canonical address's 48 */
#define KP_PATH_MAXBIT 16

static bool kp_pow2(unsigned int v)
{
	return v && !(v & (v - 1));
}

/* false, and a line naming it, when a size is not a power of two in range */
static bool kp_bpred_size(const char *name, unsigned int v)
{
	if (kp_pow2(v) && v <= KP_BPRED_MAX)
		return true;
	fprintf(stderr, "kp_model: bpred %s=%u: want a power of two, at most %u\n", name, v,
		KP_BPRED_MAX);
	return false;
}

static int kp_bpred_check(const struct kp_bpred_cfg *c)
{
	unsigned int index_bits;

	if (!kp_bpred_size("cond_entries", c->cond_entries) ||
	    !kp_bpred_size("btb_entries", c->btb_entries) ||
	    !kp_bpred_size("btb_assoc", c->btb_assoc) || !kp_bpred_size("ras_depth", c->ras_depth) ||
	    (c->loop_entries && !kp_bpred_size("loop_entries", c->loop_entries)))
		return -EINVAL;
	index_bits = __builtin_ctz(c->cond_entries);
	if (c->btb_assoc > c->btb_entries) {
		fprintf(stderr, "kp_model: bpred btb_assoc=%u: more than btb_entries=%u\n",
			c->btb_assoc, c->btb_entries);
		return -EINVAL;
	}
	if (c->hist_bits > index_bits) {
		fprintf(stderr, "kp_model: bpred hist_bits=%u: more than log2(cond_entries)=%u\n",
			c->hist_bits, index_bits);
		return -EINVAL;
	}
	if (c->path_bits > c->hist_bits || c->path_bits > KP_PATH_MAXBIT) {
		fprintf(stderr, "kp_model: bpred path_bits=%u: more than hist_bits=%u or %u\n",
			c->path_bits, c->hist_bits, KP_PATH_MAXBIT);
		return -EINVAL;
	}
	return 0;
}

int kp_bpred_init(struct kp_bpred *p, const struct kp_bpred_cfg *c)
{
	unsigned int i;
	int err = kp_bpred_check(c);

	if (err)
		return err;
	*p = (struct kp_bpred){.cfg = *c};
	/* the three counter tables in one block: bim, gsh, choice */
	p->bim = malloc(3 * (size_t)c->cond_entries);
	if (!p->bim)
		return -ENOMEM;
	p->btb = malloc(c->btb_entries * sizeof(*p->btb));
	if (!p->btb)
		goto err_btb;
	p->ras = calloc(c->ras_depth, sizeof(*p->ras));
	if (!p->ras)
		goto err_ras;
	if (c->loop_entries) {
		p->loop = malloc(c->loop_entries * sizeof(*p->loop));
		if (!p->loop)
			goto err_loop;
		for (i = 0; i < c->loop_entries; i++)
			p->loop[i] = (struct kp_loopent){.pc = KP_BPRED_NONE};
		p->loop_mask = c->loop_entries - 1;
	}
	p->gsh = p->bim + c->cond_entries;
	p->choice = p->gsh + c->cond_entries;
	/* weakly not taken, and the chooser weakly bimodal: that warms up first, needing no history
	 */
	for (i = 0; i < 3 * c->cond_entries; i++)
		p->bim[i] = 1;
	for (i = 0; i < c->btb_entries; i++)
		p->btb[i] = (struct kp_btbent){KP_BPRED_NONE, 0};
	p->cond_mask = c->cond_entries - 1;
	p->hist_mask = (1ull << c->hist_bits) - 1;
	p->path_mask = (1ull << c->path_bits) - 1;
	p->btb_set_mask = c->btb_entries / c->btb_assoc - 1;
	p->btb_assoc_bits = __builtin_ctz(c->btb_assoc);
	return 0;

err_loop:
	free(p->ras);
err_ras:
	free(p->btb);
err_btb:
	free(p->bim);
	*p = (struct kp_bpred){0};
	return -ENOMEM;
}

void kp_bpred_free(struct kp_bpred *p)
{
	free(p->loop);
	free(p->ras);
	free(p->btb);
	free(p->bim);
	*p = (struct kp_bpred){0};
}

/*
 * A 2-bit saturating counter moved toward up, without a branch: the host
 * would mispredict as often as the guest's branches go either way.
 */
static inline void kp_ctr(uint8_t *c, bool up)
{
	*c += up ? *c < 3 : -(*c > 0);
}

/* the PC's low bits, its high ones folded in: code far apart still spreads over the table */
static inline uint64_t kp_pc_index(const struct kp_bpred *p, uint64_t pc)
{
	return (pc ^ pc >> 16 ^ pc >> 32) & p->cond_mask;
}

#define KP_LOOP_CONF 2 /* runs after the first with the same trip before it predicts */

/*
 * The loop predictor on a branch the tournament predicted pred: its own
 * prediction when its entry is confident, and the entry trained.  A
 * branch the tournament got wrong takes an entry that has none of
 * confidence (a confident one loses some instead), the way it did not go
 * taken as the loop's, and turned round when it then ends twice in a row.
 */
static bool kp_loop(struct kp_bpred *p, uint64_t i, uint64_t pc, bool pred, bool taken)
{
	struct kp_loopent *e = &p->loop[i & p->loop_mask];

	if (e->pc != pc) {
		if (pred != taken && !(e->conf && e->conf--))
			*e = (struct kp_loopent){.pc = pc, .dir = !taken};
		return pred;
	}
	if (e->conf >= KP_LOOP_CONF)
		pred = e->iter + 1 == e->trip ? !e->dir : e->dir;
	if (taken == e->dir) {
		if (++e->iter == UINT16_MAX) /* no loop it can count */
			e->pc = KP_BPRED_NONE;
		return pred;
	}
	if (!e->iter) {
		/* two ends in a row: the entry took a run for the end (a branch warming up) */
		e->dir = !e->dir;
		e->trip = 0;
		e->conf = 0;
	} else if (e->iter + 1 == e->trip) {
		e->conf += e->conf < 7;
	} else {
		e->trip = e->iter + 1;
		e->conf = 0;
	}
	e->iter = 0;
	return pred;
}

/*
 * Both components predict and train on every branch; the chooser trains
 * only where they disagree, toward the one that was right.
 */
bool kp_bpred_cond(struct kp_bpred *p, uint64_t pc, bool taken)
{
	uint64_t i = kp_pc_index(p, pc), g = i ^ p->hist;
	bool bim = p->bim[i] >= 2, gsh = p->gsh[g] >= 2;
	bool pred = p->choice[i] >= 2 ? gsh : bim;

	if (bim != gsh)
		kp_ctr(&p->choice[i], gsh == taken);
	kp_ctr(&p->bim[i], taken);
	kp_ctr(&p->gsh[g], taken);
	p->hist = (p->hist << 1 | taken) & p->hist_mask;
	if (p->loop)
		pred = kp_loop(p, i, pc, pred, taken);
	return pred != taken;
}

/*
 * The BTB's key: the PC, the path history above its 48 bits (under 4-level
 * paging a canonical address's bits 48-63 copy bit 47, so two keys are
 * equal only for the same PC and history; under 5-level two may alias, as
 * a real BTB's partial tags do).  Its set: the key's high bits folded in.
 */
static inline struct kp_btbent *kp_btb_set(const struct kp_bpred *p, uint64_t key)
{
	uint64_t h = key ^ key >> 12 ^ key >> 24 ^ key >> KP_PATH_SHIFT;

	return p->btb + ((h & p->btb_set_mask) << p->btb_assoc_bits);
}

/*
 * A hit on the key predicts its target; a miss predicts nothing (fall
 * through), wrong.  Either way the key's entry ends up first in its set
 * with the real target, the least recently used dropped for a new one.
 */
bool kp_bpred_indirect(struct kp_bpred *p, uint64_t pc, uint64_t target)
{
	uint64_t key = pc ^ (p->hist & p->path_mask) << KP_PATH_SHIFT;
	struct kp_btbent *set = kp_btb_set(p, key), prev = set[0], cur;
	unsigned int w, assoc = p->cfg.btb_assoc;

	if (prev.key == key) {
		set[0].target = target;
		return prev.target != target;
	}
	set[0] = (struct kp_btbent){key, target};
	for (w = 1; w < assoc; w++) {
		cur = set[w];
		set[w] = prev;
		if (cur.key == key)
			return cur.target != target;
		prev = cur;
	}
	return true;
}

void kp_bpred_call(struct kp_bpred *p, uint64_t ret_addr)
{
	p->ras_top = (p->ras_top + 1) & (p->cfg.ras_depth - 1);
	p->ras[p->ras_top] = ret_addr;
}

/* the top popped whatever it holds: past the bottom, an older call's address */
bool kp_bpred_ret(struct kp_bpred *p, uint64_t target)
{
	uint64_t pred = p->ras[p->ras_top];

	p->ras_top = (p->ras_top - 1) & (p->cfg.ras_depth - 1);
	return pred != target;
}

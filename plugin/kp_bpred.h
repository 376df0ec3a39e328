/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's branch predictor, apart from QEMU so that it can be
 * tested on its own (issue 57's timing model charges a misprediction's
 * penalty per branch).  It follows the executed control flow only: the
 * caller reports each branch as it retires, with its outcome, and learns
 * whether the front end would have guessed it wrong.
 *
 *  - conditional branches: a tournament of a bimodal table (per PC) and a
 *    gshare table (PC xor global history), a chooser per PC picking the one
 *    that has been right more often (see kp_bpred.c for why not TAGE), and
 *    a loop predictor over them: a branch whose run the same way ended
 *    after the same count three times running is predicted to end there
 *    again (a loop's fixed trip count, past any history the tournament
 *    has; TAGE's long histories learn it, TAGE-SC-L adds such a table);
 *  - indirect jumps and calls: a set-associative LRU BTB keyed by the PC
 *    and, when asked, path_bits of the global history (cheap: gshare keeps
 *    it anyway), for call sites whose target follows the branches before;
 *  - returns: a circular return address stack, as hardware's: a call past
 *    its depth overwrites the oldest entry, a return past its bottom wraps
 *    round and predicts whatever stale entry is there (Skylake's fallback
 *    to the BTB there is not modelled).  A retpoline's ret, whose return
 *    address its thunk overwrote, is so mispredicted every time.
 *
 * Direct jumps and calls are never mispredicted here (their target is in
 * the instruction; a BTB miss on them costs a decode re-steer, not a
 * flush), but a call, direct or not, pushes the stack: kp_bpred_call.
 */
#ifndef KP_BPRED_H
#define KP_BPRED_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The sizes, from a core description.  cond_entries: entries of each of
 * the three conditional tables; hist_bits: global history bits hashed into
 * gshare's index, 0 to log2(cond_entries) (0: gshare is a second bimodal);
 * btb_entries, btb_assoc: the indirect BTB; path_bits: history bits in its
 * key, 0 to hist_bits and 16 (0: the PC alone); ras_depth: return stack
 * entries; loop_entries: the loop predictor's (0: none).  Every count of
 * entries a power of two.
 */
struct kp_bpred_cfg {
	unsigned int cond_entries, hist_bits, btb_entries, btb_assoc, ras_depth, path_bits;
	unsigned int loop_entries;
};

/*
 * a loop predictor's entry: its branch (KP_BPRED_NONE: empty), the way it
 * goes within the loop, the count of its last run (the trip: that way,
 * then the exit), this run's so far, and how many runs in a row had the
 * trip
 */
struct kp_loopent {
	uint64_t pc;
	uint16_t trip, iter;
	uint8_t conf;
	bool dir;
};

/* an indirect BTB entry: the key it was filled under (KP_BPRED_NONE: empty), its target */
struct kp_btbent {
	uint64_t key, target;
};

#define KP_BPRED_NONE UINT64_MAX

/*
 * The state.  bim, gsh, choice: 2-bit counters, 0 and 1 not taken, 2 and 3
 * taken (choice: 2 and 3 pick gshare); btb[set * assoc + way], most
 * recently used way first; ras[top] the newest return address.
 */
struct kp_bpred {
	struct kp_bpred_cfg cfg;
	uint8_t *bim, *gsh, *choice;
	uint64_t cond_mask, hist, hist_mask, path_mask;
	struct kp_btbent *btb;
	uint64_t btb_set_mask;
	unsigned int btb_assoc_bits;
	uint64_t *ras;
	unsigned int ras_top;
	struct kp_loopent *loop;
	uint64_t loop_mask;
};

/* 0, -EINVAL (a size that is not a power of two or out of range, named on stderr) or -ENOMEM */
int kp_bpred_init(struct kp_bpred *p, const struct kp_bpred_cfg *c);
void kp_bpred_free(struct kp_bpred *p);

/* each returns true when the prediction was wrong, and trains on the outcome */
bool kp_bpred_cond(struct kp_bpred *p, uint64_t pc, bool taken);
bool kp_bpred_indirect(struct kp_bpred *p, uint64_t pc, uint64_t target);
/* a call, direct or indirect: ret_addr pushed on the return stack */
void kp_bpred_call(struct kp_bpred *p, uint64_t ret_addr);
/* a return to target: the stack popped, wrong when its top was not target */
bool kp_bpred_ret(struct kp_bpred *p, uint64_t target);

#endif

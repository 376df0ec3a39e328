// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's branch predictor (plugin/kp_bpred.c) on patterns
 * whose mispredictions are known by construction, each count checked here
 * and the whole output by tests/unit/t_model_bpred.sh:
 *
 *  - a loop branch longer than the history mispredicts once per run, at
 *    its exit, once warm; one shorter than the history not at all;
 *  - an alternating branch: learned through the history, never by a
 *    bimodal table (hist_bits 0: it settles on not taken, every taken
 *    one wrong);
 *  - a random branch: about half;
 *  - recursion within the return stack's depth: every return right; past
 *    it by k: the last k wrong (the circular stack wrapped);
 *  - a retpoline: its thunk's ret wrong every time (its return address
 *    was overwritten), the function's own return right; a plain indirect
 *    call: wrong once; a return thunk that only returns: right; an SRSO
 *    style one (call, drop the return address, ret): wrong every time, and
 *    the stack left one deeper each time;
 *  - an indirect call site alternating between two targets: wrong every
 *    time keyed by its PC alone; when the branch before it tells them
 *    apart and the key has 4 path bits, wrong only on the 5 histories
 *    seen first (0, 1, 10, 101, 1010, then 0101 and 1010 only);
 *  - indirect call sites cycling through a BTB set: its ways only cold,
 *    one more each time wrong (LRU);
 *  - sizes that are not powers of two, or histories too long, refused.
 *
 * Then the speed of each call, the best of 3 runs, printed (a "speed"
 * line), not checked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "kp_bpred.h"
#include "model_harness.h"

static const struct kp_bpred_cfg base = {.cond_entries = 4096,
					 .hist_bits = 12,
					 .btb_entries = 512,
					 .btb_assoc = 4,
					 .ras_depth = 16,
					 .path_bits = 4};
static void init(struct kp_bpred *p, const struct kp_bpred_cfg *c)
{
	if (kp_bpred_init(p, c)) {
		printf("FAIL: kp_bpred_init refused a good configuration\n");
		bad = 1;
	}
}

/* runs of a loop of trip iterations: mispredicts in all, and in the last half */
static void loop(unsigned int trip, uint64_t want_last)
{
	struct kp_bpred p;
	uint64_t all = 0, last = 0;
	unsigned int r, i;
	bool m;

	init(&p, &base);
	for (r = 0; r < 100; r++) {
		for (i = 1; i <= trip; i++) {
			m = kp_bpred_cond(&p, 0x401000, i < trip);
			all += m;
			last += r >= 50 && m;
		}
	}
	printf("loop of %u, 100 runs: %" PRIu64 " mispredicted, %" PRIu64 " in the last 50\n", trip,
	       all, last);
	check("loop, last 50 runs", last, want_last);
	kp_bpred_free(&p);
}

/*
 * The same with a loop predictor of 64 entries, the trip fixed (steady:
 * its exit predicted once the trip came three times) or alternating
 * between trip and trip + 1 (never confident: the tournament's exits)
 */
static void loop_predicted(unsigned int trip, bool steady, uint64_t want_last)
{
	struct kp_bpred_cfg c = base;
	struct kp_bpred p;
	uint64_t all = 0, last = 0;
	unsigned int r, i, n;
	bool m;

	c.loop_entries = 64;
	init(&p, &c);
	for (r = 0; r < 100; r++) {
		n = trip + (!steady && r % 2);
		for (i = 1; i <= n; i++) {
			m = kp_bpred_cond(&p, 0x401000, i < n);
			all += m;
			last += r >= 50 && m;
		}
	}
	printf("loop of %u%s, loop predictor, 100 runs: %" PRIu64 " mispredicted, %" PRIu64
	       " in the last 50\n",
	       trip, steady ? "" : " or one more", all, last);
	check("loop predictor, last 50 runs", last, want_last);
	kp_bpred_free(&p);
}

/* an alternating branch, 1000 times, through hist_bits of history */
static void alternating(unsigned int hist_bits, uint64_t want_last)
{
	struct kp_bpred_cfg c = base;
	struct kp_bpred p;
	uint64_t all = 0, last = 0;
	unsigned int i;
	bool m;

	c.hist_bits = hist_bits;
	c.path_bits = 0;
	init(&p, &c);
	for (i = 0; i < 1000; i++) {
		m = kp_bpred_cond(&p, 0x401234, i & 1);
		all += m;
		last += i >= 500 && m;
	}
	printf("alternating, %u history bits%s: %" PRIu64 " of 1000, %" PRIu64 " of the last 500\n",
	       hist_bits, hist_bits ? "" : " (bimodal alone)", all, last);
	check("alternating, last 500", last, want_last);
	kp_bpred_free(&p);
}

static void random_branch(void)
{
	struct kp_bpred p;
	uint64_t all = 0;
	unsigned int i;

	init(&p, &base);
	for (i = 0; i < 100000; i++)
		all += kp_bpred_cond(&p, 0x405678, next() >> 63);
	printf("random, 100000: %" PRIu64 " mispredicted\n", all);
	if (all < 45000 || all > 55000) {
		printf("FAIL: random: not 45%% to 55%%\n");
		bad = 1;
	}
	kp_bpred_free(&p);
}

/* a function recursing depth deep, then unwinding, three times: wrong returns */
static void recursion(unsigned int depth, uint64_t want)
{
	struct kp_bpred p;
	uint64_t wrong = 0;
	unsigned int r, d;

	init(&p, &base);
	for (r = 0; r < 3; r++) {
		/* each level's call returns to its own address, so that a stale one shows */
		for (d = 0; d < depth; d++)
			kp_bpred_call(&p, 0x402000 + 16 * d);
		for (d = depth; d-- > 0;)
			wrong += kp_bpred_ret(&p, 0x402000 + 16 * d);
	}
	printf("recursion %u deep, return stack of %u, 3 times: %" PRIu64 " returns wrong\n", depth,
	       base.ras_depth, wrong);
	check("recursion", wrong, want);
	kp_bpred_free(&p);
}

#define OUTER_RET 0x400505 /* the caller's caller: the loops below run in a function */
#define CALL_RET  0x401005 /* after the call in the loop */
#define FUNC_A	  0x403000
#define FUNC_B	  0x403100

/*
 * A loop calling FUNC_A 1000 times, one of four ways
 * (below), in a function that then returns: wrong predictions of the
 * thunk's own ret (or the indirect call), of the function's return, and of
 * the caller's return.
 */
enum call_kind { RETPOLINE, INDIRECT, RETURN_THUNK, SRSO_THUNK };

static void calls(enum call_kind kind, const char *what, uint64_t want_thunk, uint64_t want_ret,
		  uint64_t want_outer)
{
	struct kp_bpred p;
	uint64_t thunk = 0, ret = 0, outer, f = FUNC_A;
	unsigned int i;

	init(&p, &base);
	kp_bpred_call(&p, OUTER_RET);
	for (i = 0; i < 1000; i++) {
		if (kind == RETPOLINE) {
			/* call __x86_indirect_thunk_rax; call 1f; ...; 1: mov %rax,(%rsp); ret */
			kp_bpred_call(&p, CALL_RET);
			kp_bpred_call(&p, 0x404005); /* the pause after call 1f */
			thunk += kp_bpred_ret(&p, f);
		} else {
			/* call *%rax, or the direct calls of the return thunks' loops */
			if (kind == INDIRECT)
				thunk += kp_bpred_indirect(&p, 0x401000, f);
			kp_bpred_call(&p, CALL_RET);
		}
		if (kind == SRSO_THUNK) {
			/* jmp srso_return_thunk: call srso_safe_ret; ud2 / lea 8(%rsp),%rsp; ret */
			kp_bpred_call(&p, 0x405005);
			thunk += kp_bpred_ret(&p, CALL_RET);
		} else {
			/* ret, or jmp __x86_return_thunk: ret */
			ret += kp_bpred_ret(&p, CALL_RET);
		}
	}
	outer = kp_bpred_ret(&p, OUTER_RET);
	printf("%s, 1000 calls: thunk %" PRIu64 ", return %" PRIu64 ", caller's return %" PRIu64
	       " wrong\n",
	       what, thunk, ret, outer);
	check(what, thunk, want_thunk);
	check(what, ret, want_ret);
	check(what, outer, want_outer);
	kp_bpred_free(&p);
}

/*
 * An indirect call alternating between two targets, after a branch taken
 * before one of them only: path_bits of that history in the BTB's key
 */
static void polymorphic(unsigned int path_bits, uint64_t want)
{
	struct kp_bpred_cfg c = base;
	struct kp_bpred p;
	uint64_t wrong = 0;
	unsigned int i;

	c.path_bits = path_bits;
	init(&p, &c);
	for (i = 0; i < 1000; i++) {
		kp_bpred_cond(&p, 0x406000, i & 1);
		wrong += kp_bpred_indirect(&p, 0x406010, i & 1 ? FUNC_B : FUNC_A);
	}
	printf("indirect call alternating, %u path bits: %" PRIu64 " of 1000 wrong\n", path_bits,
	       wrong);
	check("polymorphic", wrong, want);
	kp_bpred_free(&p);
}

/* sites indirect call sites in turn, 100 times, through one set of 4 ways: LRU's misses */
static void btb_ways(unsigned int sites, uint64_t want)
{
	struct kp_bpred_cfg c = base;
	struct kp_bpred p;
	uint64_t wrong = 0;
	unsigned int r, i;

	c.btb_entries = c.btb_assoc = 4;
	init(&p, &c);
	for (r = 0; r < 100; r++)
		for (i = 0; i < sites; i++)
			wrong += kp_bpred_indirect(&p, 0x407000 + 16 * i, FUNC_A + 16 * i);
	printf("%u indirect call sites in turn through a BTB of 4 ways: %" PRIu64 " of %u wrong\n",
	       sites, wrong, 100 * sites);
	check("BTB ways", wrong, want);
	kp_bpred_free(&p);
}

/* each refused, with -EINVAL, its line on stderr (the script compares them) */
static void refusals(void)
{
	struct kp_bpred_cfg c[] = {base, base, base, base, base, base, base};
	struct kp_bpred p;
	unsigned int i;

	c[0].cond_entries = 1000;
	c[1].btb_entries = 0;
	c[2].btb_assoc = 3;
	c[3].ras_depth = 24;
	c[4].btb_assoc = 1024;
	c[5].hist_bits = 13;
	c[6].path_bits = 13;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fflush(stdout);
		if (kp_bpred_init(&p, &c[i]) != -EINVAL) {
			printf("FAIL: bad configuration %u accepted\n", i);
			bad = 1;
		}
	}
}

/* ns per call: 256 branch sites of mixed patterns, indirect calls, call and return */
static void speed(void)
{
	const unsigned int n = 1 << 22;
	double t0, t1, t2, t3, cond = 1e9, ind = 1e9, ret = 1e9;
	struct kp_bpred p;
	uint64_t wrong = 0;
	unsigned int r, i;

	init(&p, &base);
	for (r = 0; r < 3; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			wrong += kp_bpred_cond(&p, 0x410000 + 8 * (i & 255),
					       (i * 2654435761u) >> 31);
		t1 = now_ns();
		for (i = 0; i < n; i++)
			wrong += kp_bpred_indirect(&p, 0x420000 + 8 * (i & 63),
						   0x430000 + (i & 1023));
		t2 = now_ns();
		for (i = 0; i < n; i++) {
			kp_bpred_call(&p, 0x440000 + (i & 7));
			wrong += kp_bpred_ret(&p, 0x440000 + (i & 7));
		}
		t3 = now_ns();
		best(&cond, t0, t1, n);
		best(&ind, t1, t2, n);
		best(&ret, t2, t3, n);
	}
	printf("speed: cond %.1f ns, indirect %.1f ns, call+ret %.1f ns (%" PRIu64 " wrong)\n",
	       cond, ind, ret, wrong);
	kp_bpred_free(&p);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	loop(20, 50);
	loop(4, 0);
	loop_predicted(20, true, 0);
	loop_predicted(20, false, 50);
	alternating(12, 0);
	alternating(0, 250);
	random_branch();
	recursion(16, 0);
	recursion(20, 3 * 4);
	calls(RETPOLINE, "retpoline", 1000, 0, 0);
	calls(INDIRECT, "indirect call", 1, 0, 0);
	calls(RETURN_THUNK, "return thunk", 0, 0, 0);
	calls(SRSO_THUNK, "srso return thunk", 1000, 0, 1);
	polymorphic(0, 1000);
	polymorphic(4, 5);
	btb_ways(4, 4);
	btb_ways(5, 500);
	refusals();
	speed();
	return bad;
}

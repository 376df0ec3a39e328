// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's prefetchers (plugin/kp_prefetch.c) on access
 * patterns whose prefetches are known by construction, each count checked
 * here and the whole output by tests/unit/t_model_prefetch.sh.  Beside the
 * prefetcher a cache of unbounded size over a region, as a caller would
 * keep one: a line is absent, prefetched (inserted, not yet demanded) or
 * present; a demand access to a prefetched line is a hit that counts it
 * useful.  Counted: misses, lines issued (returned and not already there),
 * useful, and lines outside the access's page (none may be).
 *
 *  - next-line, a page read line by line: every other line missed (the
 *    prefetcher runs on misses only), the others prefetched and used;
 *  - IP-stride, 4 lines apart, 2 strides ahead, over 4 pages: from the
 *    fourth access on, except where the target is in the next page;
 *    8 bytes apart, 4 strides ahead: each next line once, not per access;
 *  - streamer, a page up, a page down, two pages up: 3 misses a page, then
 *    every line prefetched, nothing past the page; 4 pages read
 *    interleaved: the same with 16 streams tracked, nothing with 2 (each
 *    stream replaced before its second access);
 *  - random lines over 64 MiB from 4 loads: next to no prefetches;
 *  - next_page, virtual pages on physical ones out of order: 4 pages up
 *    and 2 down cross into each next page at its first line (armed when
 *    the stream issued its page's last line), its first stream_distance
 *    lines fetched, the stream going on: 3 misses in all; off, 3 a page;
 *    a next page entered at its line 20, beyond that distance, no crossing;
 *  - no more lines returned than asked for;
 *  - parameters out of range refused.
 *
 * Then the speed of kp_pf_access, the best of 3 runs, printed (a "speed"
 * line), not checked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_prefetch.h"
#include "model_harness.h"

#define LINE_BITS 6
#define REGION	  (64ull << 20)
#define BASE	  0x100000000ull /* the region's physical address */

enum { ABSENT, PREFETCHED, PRESENT };

struct toy {
	uint8_t *state; /* per line of the region */
	unsigned int max;
	uint64_t misses, issued, useful, outside;
};

static void toy_init(struct toy *t, unsigned int max)
{
	*t = (struct toy){calloc(REGION >> LINE_BITS, 1), max, 0, 0, 0, 0};
	if (!t->state) {
		printf("FAIL: out of memory\n");
		exit(1);
	}
}

/* one demand access, and the prefetches it returns inserted */
static void toy_access(struct toy *t, struct kp_pf *p, uint64_t pc, uint64_t pa)
{
	uint8_t *st = &t->state[(pa - BASE) >> LINE_BITS];
	uint64_t out[16];
	unsigned int n, i;
	bool miss = *st == ABSENT;

	t->misses += miss;
	t->useful += *st == PREFETCHED;
	*st = PRESENT;
	n = kp_pf_access(p, pc, pa, miss, out, t->max);
	if (n > t->max) {
		printf("FAIL: %u lines returned, %u asked for\n", n, t->max);
		bad = 1;
		n = t->max;
	}
	for (i = 0; i < n; i++) {
		if (out[i] >> (KP_PF_PAGE_BITS - LINE_BITS) != pa >> KP_PF_PAGE_BITS) {
			t->outside++;
			continue;
		}
		st = &t->state[out[i] - (BASE >> LINE_BITS)];
		if (*st == ABSENT) {
			*st = PREFETCHED;
			t->issued++;
		}
	}
}

/* the counts printed after what, and checked */
static void toy_done(struct toy *t, const char *what, uint64_t misses, uint64_t issued,
		     uint64_t useful)
{
	printf("%s: %" PRIu64 " misses, %" PRIu64 " issued, %" PRIu64 " useful, %" PRIu64
	       " outside the page\n",
	       what, t->misses, t->issued, t->useful, t->outside);
	check(what, t->misses, misses);
	check(what, t->issued, issued);
	check(what, t->useful, useful);
	check(what, t->outside, 0);
	free(t->state);
}

static void pf_init(struct kp_pf *p, const struct kp_pf_cfg *c)
{
	if (kp_pf_init(p, c)) {
		printf("FAIL: kp_pf_init refused a good configuration\n");
		exit(1);
	}
}

static void next_line(void)
{
	struct kp_pf_cfg c = {.line_bits = LINE_BITS, .next_line = true};
	struct kp_pf p;
	struct toy t;
	uint64_t i;

	pf_init(&p, &c);
	toy_init(&t, 8);
	for (i = 0; i < 64; i++)
		toy_access(&t, &p, 0x401000, BASE + (i << LINE_BITS));
	toy_done(&t, "next-line, a page line by line", 32, 32, 32);
	kp_pf_free(&p);
}

/*
 * The next-line prefetcher on every miss, and on a stream's only (the line
 * before accessed lately): a page line by line, then its even lines and
 * after them its odd ones, where no miss follows the line before it.
 */
static void next_line_stream(void)
{
	static const struct {
		unsigned int mode, step;
		const char *what;
		uint64_t misses, issued, useful;
	} cases[] = {
		{KP_PF_NEXT_STREAM, 1, "next-line of a stream, a page line by line", 33, 31, 31},
		{KP_PF_NEXT_MISS, 2, "next-line, even lines then odd", 32, 32, 32},
		{KP_PF_NEXT_STREAM, 2, "next-line of a stream, even lines then odd", 64, 0, 0},
	};
	size_t k;
	uint64_t i;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct kp_pf_cfg c = {.line_bits = LINE_BITS, .next_line = cases[k].mode};
		struct kp_pf p;
		struct toy t;

		pf_init(&p, &c);
		toy_init(&t, 8);
		for (i = 0; i < 64; i++) {
			uint64_t line = cases[k].step == 1 ? i : i < 32 ? 2 * i : 2 * (i - 32) + 1;

			toy_access(&t, &p, 0x401000, BASE + (line << LINE_BITS));
		}
		toy_done(&t, cases[k].what, cases[k].misses, cases[k].issued, cases[k].useful);
		kp_pf_free(&p);
	}
}

/* n loads stride bytes apart, distance strides ahead */
static void ip_stride(uint64_t stride, unsigned int distance, unsigned int n, const char *what,
		      uint64_t misses, uint64_t issued)
{
	struct kp_pf_cfg c = {.line_bits = LINE_BITS, .ip_entries = 64, .ip_distance = distance};
	struct kp_pf p;
	struct toy t;
	unsigned int i;

	pf_init(&p, &c);
	toy_init(&t, 8);
	for (i = 0; i < n; i++) {
		/* another load at another address between: its own entry */
		toy_access(&t, &p, 0x401000, BASE + i * stride);
		toy_access(&t, &p, 0x401010, BASE + REGION / 2);
	}
	toy_done(&t, what, misses + 1, issued, issued);
	kp_pf_free(&p);
}

static const struct kp_pf_cfg l2 = {
	.line_bits = LINE_BITS, .streams = 16, .stream_distance = 8, .stream_degree = 2};

/* lines first to last of the pages from BASE, one step at a time */
static void stream(int first, int last, const char *what, uint64_t misses, uint64_t issued)
{
	struct kp_pf p;
	struct toy t;
	int step = first < last ? 1 : -1, i;

	pf_init(&p, &l2);
	toy_init(&t, 8);
	for (i = first;; i += step) {
		toy_access(&t, &p, 0x401000, BASE + ((uint64_t)i << LINE_BITS));
		if (i == last)
			break;
	}
	toy_done(&t, what, misses, issued, issued);
	kp_pf_free(&p);
}

/* 4 pages read up in turn, a line of each, streams tracked */
static void interleaved(unsigned int streams, uint64_t issued)
{
	struct kp_pf_cfg c = l2;
	struct kp_pf p;
	struct toy t;
	uint64_t i, pg;
	char what[64];

	c.streams = streams;
	pf_init(&p, &c);
	toy_init(&t, 8);
	for (i = 0; i < 64; i++)
		for (pg = 0; pg < 4; pg++)
			toy_access(&t, &p, 0x401000,
				   BASE + (pg << KP_PF_PAGE_BITS) + (i << LINE_BITS));
	snprintf(what, sizeof(what), "streamer, 4 pages interleaved, %u streams", streams);
	toy_done(&t, what, 256 - issued, issued, issued);
	kp_pf_free(&p);
}

/* random lines from 4 loads, through an L1D's prefetchers and an L2's streamer */
static void random_lines(void)
{
	struct kp_pf_cfg c1 = {.line_bits = LINE_BITS, .ip_entries = 64, .ip_distance = 4};
	struct kp_pf p1, p2;
	struct toy t1, t2;
	uint64_t pa, pc;
	unsigned int i;

	pf_init(&p1, &c1);
	pf_init(&p2, &l2);
	toy_init(&t1, 8);
	toy_init(&t2, 8);
	for (i = 0; i < 200000; i++) {
		pc = 0x401000 + 4 * (i & 3);
		pa = BASE + (next() % REGION & ~7ull);
		toy_access(&t1, &p1, pc, pa);
		toy_access(&t2, &p2, pc, pa);
	}
	printf("random, 200000 accesses: IP-stride %" PRIu64 " issued, streamer %" PRIu64
	       " issued\n",
	       t1.issued, t2.issued);
	if (t1.issued + t2.issued > 200 || t1.outside + t2.outside) {
		printf("FAIL: random: more than 0.1%% prefetched, or outside the page\n");
		bad = 1;
	}
	free(t2.state);
	free(t1.state);
	kp_pf_free(&p2);
	kp_pf_free(&p1);
}

/* a streamer of degree 8 asked for 1 line at most: up a page, one a line */
static void capped(void)
{
	struct kp_pf_cfg c = l2;
	struct kp_pf p;
	struct toy t;
	uint64_t i;

	c.stream_degree = 8;
	pf_init(&p, &c);
	toy_init(&t, 1);
	for (i = 0; i < 64; i++)
		toy_access(&t, &p, 0x401000, BASE + (i << LINE_BITS));
	/* one line per access from the third on, never more than one ahead */
	toy_done(&t, "streamer, degree 8, 1 asked for", 3, 61, 61);
	kp_pf_free(&p);
}

/*
 * next_page: a stream through the virtual pages from VBASE, one step a
 * line from line first to last, each virtual page on a physical page of
 * its own out of order (frame[]).  A demand missing its line asks for a
 * crossing first; a stream that reached its page's edge is armed at the
 * access's count.  Printed: the counts, the crossings made and the count
 * each was armed at.
 */
#define VBASE 0x7f0000000000ull
static const uint64_t frame[] = {5, 2, 9, 0};

static void cross_access(struct toy *t, struct kp_pf *p, int i, unsigned int *crossed,
			 char *at_s, size_t at_len)
{
	uint64_t va = VBASE + ((uint64_t)i << LINE_BITS), out[16];
	uint64_t pa = BASE + (frame[i >> 6] << KP_PF_PAGE_BITS) + (va & 4095);
	unsigned int k, j;
	double at;
	int dir;

	if (t->state[(pa - BASE) >> LINE_BITS] == ABSENT && (dir = kp_pf_crossing(p, va, &at))) {
		k = kp_pf_enter(p, pa, dir, out, 16);
		for (j = 0; j < k; j++)
			if (out[j] >> (KP_PF_PAGE_BITS - LINE_BITS) != pa >> KP_PF_PAGE_BITS)
				t->outside++;
			else if (t->state[out[j] - (BASE >> LINE_BITS)] == ABSENT)
				t->state[out[j] - (BASE >> LINE_BITS)] = PREFETCHED, t->issued++;
		snprintf(at_s + strlen(at_s), at_len - strlen(at_s), " %.0f", at);
		(*crossed)++;
	}
	toy_access(t, p, 0x401000, pa);
	kp_pf_arm(p, va, i);
}

/* pages after the first entered at their line from (ascending) */
static void crossing(int first, int last, int from, bool on, const char *what, uint64_t misses,
		     uint64_t issued, unsigned int crossings)
{
	struct kp_pf_cfg c = l2;
	unsigned int crossed = 0;
	int step = first < last ? 1 : -1, i;
	char at[64] = "", line[160];
	struct kp_pf p;
	struct toy t;

	c.next_page = on;
	pf_init(&p, &c);
	toy_init(&t, 8);
	for (i = first;; i += step) {
		if ((i & 63) >= from || i >> 6 == first >> 6)
			cross_access(&t, &p, i, &crossed, at, sizeof(at));
		if (i == last)
			break;
	}
	snprintf(line, sizeof(line), "%s, %u crossings (armed at%s)", what, crossed, at);
	check(line, crossed, crossings);
	toy_done(&t, line, misses, issued, issued);
	kp_pf_free(&p);
}

/* each refused, with -EINVAL, its line on stderr (the script compares them) */
static void refusals(void)
{
	struct kp_pf_cfg c[] = {l2, l2, l2, l2, l2, l2, l2, l2, l2};
	struct kp_pf p;
	unsigned int i;

	c[0].line_bits = 3;
	c[1].ip_entries = 100;
	c[2].ip_entries = 64; /* and no distance */
	c[3].streams = 65;
	c[4].stream_distance = 0;
	c[5].stream_distance = 65;
	c[6].stream_degree = 0;
	c[7].streams = 0;
	c[7].next_page = true;
	c[8].next_line = 3;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fflush(stdout);
		if (kp_pf_init(&p, &c[i]) != -EINVAL) {
			printf("FAIL: bad configuration %u accepted\n", i);
			bad = 1;
		}
	}
}

/* ns per access, all three kinds on: 16 loads striding, then random lines */
static void speed(void)
{
	struct kp_pf_cfg c = {.line_bits = LINE_BITS,
			      .next_line = true,
			      .ip_entries = 64,
			      .ip_distance = 4,
			      .streams = 16,
			      .stream_distance = 8,
			      .stream_degree = 2};
	const unsigned int n = 1 << 21;
	double t0, t1, t2, strided = 1e9, random = 1e9;
	uint64_t out[8], sum = 0;
	unsigned int r, i;
	struct kp_pf p;

	pf_init(&p, &c);
	for (r = 0; r < 3; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			sum += kp_pf_access(&p, 0x401000 + 4 * (i & 15),
					    BASE + (i & 15) * REGION / 16 +
						    (i >> 4) * 72 % (REGION / 16),
					    (i & 7) == 0, out, 8);
		t1 = now_ns();
		for (i = 0; i < n; i++)
			sum += kp_pf_access(&p, 0x401000 + 4 * (i & 15), BASE + next() % REGION,
					    true, out, 8);
		t2 = now_ns();
		best(&strided, t0, t1, n);
		best(&random, t1, t2, n);
	}
	printf("speed: strided %.1f ns, random %.1f ns per access (%" PRIu64 " lines)\n", strided,
	       random, sum);
	kp_pf_free(&p);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	next_line();
	next_line_stream();
	ip_stride(256, 2, 64, "IP-stride, 256 bytes, 2 ahead, 4 pages", 11, 53);
	ip_stride(8, 4, 1024, "IP-stride, 8 bytes, 4 ahead, 2 pages", 2, 126);
	stream(0, 63, "streamer, a page up", 3, 61);
	stream(63, 0, "streamer, a page down", 3, 61);
	stream(0, 127, "streamer, two pages up", 6, 122);
	interleaved(16, 4 * 61);
	interleaved(2, 0);
	random_lines();
	capped();
	crossing(0, 255, 0, true, "next page, 4 pages up", 3, 61 + 3 * 64, 3);
	crossing(255, 128, 0, true, "next page, 2 pages down", 3, 61 + 64, 1);
	crossing(0, 255, 0, false, "next page off, 4 pages up", 12, 4 * 61, 0);
	crossing(0, 127, 20, true, "next page, the next entered at its line 20", 6, 61 + 41, 0);
	refusals();
	speed();
	return bad;
}

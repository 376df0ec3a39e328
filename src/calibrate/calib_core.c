// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core's figures for a timing model (model/costs.h, "core"): the
 * load-to-use latency of each level and of each kind of TLB miss by random
 * pointer chases, the rename registers a miss leaves room for, the branch
 * mispredict penalty, a small loop across two fetch blocks, a sequential
 * read's bandwidth from memory and from L2, the fast strings' cycles per
 * line and independent loads' rate beyond L2; the working sets sized by the caches sysfs gives.
 */
#include "calibrate/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KIB (1UL << 10)
#define MIB (1UL << 20)

/* The caches the working sets are sized by, in bytes, and whether sysfs gave them; the sets. */
struct caches {
	size_t l1, l2, ll;
	bool sysfs;
	size_t ll_set, dram;
};

/* The first line of cpu0's cache/index<i>/<what> into buf: 0, or -1 when it cannot be read. */
static int sysfs_line(int i, const char *what, char *buf, size_t len)
{
	char path[80];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/%s", i, what);
	f = fopen(path, "re");
	if (!f)
		return -1;
	err = fgets(buf, len, f) ? 0 : -1;
	fclose(f);
	return err;
}

/* Cache index i's size ("32K", "1M") in bytes (0: none), its level, whether it is for code. */
static size_t sysfs_cache(int i, int *level, bool *instr)
{
	char lv[16], type[32], size[32], *end;
	unsigned long v;

	if (sysfs_line(i, "level", lv, sizeof(lv)) || sysfs_line(i, "type", type, sizeof(type)) ||
	    sysfs_line(i, "size", size, sizeof(size)))
		return 0;
	*level = atoi(lv);
	*instr = !strncmp(type, "Instruction", 11);
	v = strtoul(size, &end, 10);
	return v << (*end == 'M' ? 20 : *end == 'K' ? 10 : 0);
}

/*
 * L1 data, L2 and the last level from sysfs, else the defaults of a
 * common core (32 KiB, 256 KiB, 8 MiB).  The last level's set (its
 * load-to-use chase, the walks') is 4x L2 (at most half the last level)
 * until ll_sweep finds what of it this tenant has.  DRAM's set 4x the
 * last level, 64 MiB to 1 GiB, a power of two.
 */
static void cache_sizes(struct caches *s)
{
	int i, level;
	size_t v;
	bool instr;

	*s = (struct caches){32 * KIB, 256 * KIB, 8 * MIB, false, 0, 0};
	for (i = 0; i < 8; i++) {
		level = 0;
		v = sysfs_cache(i, &level, &instr);
		if (!v || instr)
			continue;
		s->sysfs = true;
		if (level == 1)
			s->l1 = v;
		else if (level == 2)
			s->l2 = v;
		else if (level > 2)
			s->ll = v;
	}
	s->ll_set = 4 * s->l2 < s->ll / 2 ? 4 * s->l2 : s->ll / 2;
	for (s->dram = 64 * MIB; s->dram < 4 * s->ll && s->dram < 1024 * MIB;)
		s->dram *= 2;
}

/* What pages the huge regions get: transparent huge pages, unless they are off. */
static const char *huge_pages(void)
{
	char buf[80] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return strstr(buf, "[never]") || !*buf
		       ? "4 KiB pages (transparent huge pages off or absent: TLB misses included)"
		       : "2 MiB pages (transparent huge pages, MADV_HUGEPAGE)";
}

/* Figure key: v, never below its member's least, rounded to 0.01, said on k->err. */
static void figure(struct calib *k, enum model_core_key key, double v)
{
	const struct model_core_group_info *g = &model_core_groups[model_core_fields[key].group];
	double *to = &k->r->costs.core[key];
	char name[64];

	*to = round((v > g->lo ? v : g->lo) * 100) / 100;
	if (k->err)
		fprintf(k->err, "calibrate: core.%-31s %8.2f %s\n",
			model_core_name(key, name, sizeof(name)), *to, g->unit);
}

static void source(struct calib *k, enum model_core_group g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void source(struct calib *k, enum model_core_group g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->r->src.core[g], MODEL_COST_SOURCE_MAX, fmt, ap);
	va_end(ap);
}

/* The data chases calib_core times round robin, as its figures and the costs use them. */
enum { C_L1, C_L2, C_LL, C_DRAM, C_TLB1, C_STLB, C_LINES_4K, C_WALK, C_DRAM_4K, C_N };

/* Pages within the L1 D-TLB (64 entries on Skylake, 72 on Zen 4, 96 on Golden Cove). */
#define TLB1_PAGES 32

/*
 * Pages over the L1 D-TLB, within the second level (1536 entries on
 * Skylake, 3072 on Zen 4), their lines 3/4 of L1: each page's line at an
 * offset of its own, so they spread over L1's sets.
 */
static size_t stlb_pages(const struct caches *s)
{
	size_t n = s->l1 / 64 * 3 / 4;

	return n < 512 ? n : 512;
}

/* The load-to-use latencies and the TLB's extras from the chases' cycles a load d. */
static void latencies(struct calib *k, const struct caches *s, const double *d)
{
	figure(k, MK_LTU_L1, d[C_L1]);
	figure(k, MK_LTU_L2, d[C_L2]);
	figure(k, MK_LTU_LL, d[C_LL]);
	figure(k, MK_LTU_DRAM, d[C_DRAM]);
	source(k, MG_LTU,
	       "measured: a random cyclic pointer chase, a dependent load a 64-byte line, through "
	       "%zu KiB (l1), %zu KiB (l2), %zu KiB (ll), %zu MiB (dram): half of L1's and L2's "
	       "size, the largest of ll_capacity's sizes up to 4x L2's and half of it, 4x the last level's (caches of %s: L1d %zu KiB, L2 %zu KiB, LL %zu KiB), "
	       "in %s; dram's lines at random within each 2 MiB, the 2 MiB stretches in a random "
	       "order: every line from memory, its translation mostly in the TLB (a host's too, "
	       "under a hypervisor)",
	       s->l1 / 2 / KIB, s->l2 / 2 / KIB, s->ll_set / KIB, s->dram / MIB,
	       s->sysfs ? "sysfs" : "no sysfs, defaults", s->l1 / KIB, s->l2 / KIB, s->ll / KIB,
	       huge_pages());
	figure(k, MK_STLB_HIT, d[C_STLB] - d[C_TLB1]);
	figure(k, MK_WALK_CACHED, d[C_WALK] - d[C_LL]);
	figure(k, MK_WALK_DRAM, d[C_DRAM_4K] - d[C_DRAM]);
	source(k, MG_TLB,
	       "measured: chases through one line in each 4 KiB page: stlb_hit: %zu pages (over "
	       "the L1 D-TLB, within the second level; the lines in L1) %.1f cycles a load, less %d "
	       "pages (within the L1 D-TLB) %.1f; walk_cached: %zu pages (beyond the second level; "
	       "lines as load_to_use.ll's, cached) %.1f, less load_to_use.ll; dram: every line of "
	       "256 MiB in 4 KiB pages %.1f, less load_to_use.dram (the walk's entries mostly "
	       "cached; under a hypervisor the host's side of the translation too)",
	       stlb_pages(s), d[C_STLB], TLB1_PAGES, d[C_TLB1], s->ll_set / 64, d[C_WALK],
	       d[C_DRAM_4K]);
}

/* The sizes ll_sweep chases: L2's 1.5x, 2x, 3x, 4x, 6x... */
static size_t sweep_next(size_t size, size_t l2)
{
	size_t m = size / l2;

	return size % l2 == 0 && !(m & (m - 1)) ? size / 2 * 3 : size / 3 * 4;
}

#define SWEEP_MAX 12 /* sizes at most */

/* One random chase through size, timed alone, every line of it in each repeat: cycles a load. */
static int sweep_one(struct calib *k, size_t size, double *c)
{
	long lines = size / 64;
	struct calib_region g = {size, CALIB_LINES, true, lines < 1L << 18 ? lines : 1L << 18};

	/* the warm-up run and the timed one together go round a set of up to 2^19 lines */
	return calib_regions(k, &g, 1, false, c);
}

/*
 * The last level as this tenant finds it (on this VM's EPYC a chase through 8 of sysfs's 32
 * MiB ran at DRAM's latency: a shared cache, and the host's translation, docs/model.md):
 * random chases from 1.5x L2 up to sysfs's size, each alone, until one's loads are more than
 * half of the way from L2's latency to DRAM's (an Intel mesh's L3 is a quarter of the way:
 * 100 cycles against 20 and 340 on family 6 model 207).  The largest set before it is the
 * capacity (L2's size when none: no last level to speak of), core.ll_capacity; the set of
 * load_to_use.ll and of the walks' chases the largest swept size up to 4x L2 and half the
 * capacity (1.5x L2 at least).
 */
static int ll_sweep(struct calib *k, struct caches *s)
{
	const struct calib_region ref[2] = {{s->l2 / 2, CALIB_LINES, true, 1L << 14},
					    {s->dram, CALIB_LINES, true, 1L << 13}};
	size_t size, cap = 0, used = 0, n = 0;
	double r[2], c, bound;
	char curve[320] = "";

	if (calib_regions(k, ref, 2, false, r))
		return -ENOMEM;
	bound = r[0] + (r[1] - r[0]) / 2;
	s->ll_set = s->l2 / 2 * 3;
	for (size = s->ll_set; n++ < SWEEP_MAX && size <= s->ll; size = sweep_next(size, s->l2)) {
		if (sweep_one(k, size, &c))
			return -ENOMEM;
		used += snprintf(curve + used, sizeof(curve) - used, "%s%zu %.0f", used ? ", " : "",
				 size / KIB, c);
		if (c > bound || used >= sizeof(curve))
			break;
		cap = size;
	}
	/* the set well within it: at the capacity's edge a chase's latency is half DRAM's */
	for (size = s->l2 / 2 * 3; size <= 4 * s->l2 && size <= cap / 2; size = sweep_next(size, s->l2))
		s->ll_set = size;
	figure(k, MK_LL_CAPACITY, (cap ? cap : s->l2) / KIB);
	source(k, MG_LL_CAPACITY,
	       "measured: random cyclic pointer chases in 2 MiB pages, each alone, from 1.5x L2 up "
	       "(KiB cycles): %s; the largest within %.0f cycles (L2's %.0f, half of the way to "
	       "DRAM's %.0f: an Intel mesh's L3 is a quarter of it)%s",
	       curve, bound, r[0], r[1], cap ? "" : "; none: L2's size");
	return 0;
}

/* The data chases: load-to-use, TLB misses, and the loads the costs derive from into *l. */
static int chases(struct calib *k, const struct caches *s, struct calib_loads *l)
{
	const struct calib_region g[C_N] = {
		[C_L1] = {s->l1 / 2, CALIB_LINES, true, 1L << 16},
		[C_L2] = {s->l2 / 2, CALIB_LINES, true, 1L << 16},
		[C_LL] = {s->ll_set, CALIB_LINES, true, 1L << 15},
		[C_DRAM] = {s->dram, CALIB_LOCAL, true, 1L << 15},
		[C_TLB1] = {TLB1_PAGES * 4 * KIB, CALIB_PAGES, false, 1L << 14},
		[C_STLB] = {stlb_pages(s) * 4 * KIB, CALIB_PAGES, false, 1L << 14},
		[C_LINES_4K] = {s->ll_set, CALIB_LINES, false, 1L << 15},
		[C_WALK] = {s->ll_set / 64 * 4 * KIB, CALIB_PAGES, false, 1L << 14},
		[C_DRAM_4K] = {256 * MIB, CALIB_LINES, false, 1L << 14},
	};
	double d[C_N];
	int i;

	/*
	 * Each alone, as ll_sweep times them: round robin, the DRAM chases between two runs of
	 * the last level's set evicted it (a victim L3 keeps a line the L2 drops only once it
	 * is reused), and its one warm-up pass left it at DRAM's latency (345 cycles where the
	 * sweep had 94 at the same size, on an Intel Xeon of family 6 model 207).
	 */
	for (i = 0; i < C_N; i++)
		if (calib_regions(k, &g[i], 1, false, &d[i]))
			return -ENOMEM;
	latencies(k, s, d);
	*l = (struct calib_loads){d[C_L1],   d[C_L2],	   d[C_LINES_4K],
				  d[C_WALK], d[C_DRAM_4K], s->ll_set / 64};
	return 0;
}

/* The rename sweep: calib_rename_N, N register adds after each of its two loads. */
static const struct {
	calib_loop_fn *fn;
	int adds;
} rename_sweep[] = {
#define RENAME_ENTRY(nadds) {calib_rename_##nadds, nadds},
	CALIB_RENAME_SIZES(RENAME_ENTRY)
#undef RENAME_ENTRY
};
#define RENAME_N (sizeof(rename_sweep) / sizeof(rename_sweep[0]))

/* The sweep's cycles a pair of loads, as "N c" pairs, into buf. */
static void rename_cycles(char *buf, size_t len, const double *c)
{
	size_t i, at = 0;

	for (i = 0; i < RENAME_N && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%d %.0f", i ? ", " : "", rename_sweep[i].adds,
			       c[i]);
}

/* Where c crosses 1.5x c[0], between sweep points step - 1 and step (the last: past it). */
static double rename_step(const double *c, size_t step)
{
	double lo, hi, f;

	if (step >= RENAME_N)
		return rename_sweep[RENAME_N - 1].adds;
	lo = c[step - 1], hi = c[step];
	f = hi > lo ? (1.5 * c[0] - lo) / (hi - lo) : 0;
	return rename_sweep[step - 1].adds +
	       f * (rename_sweep[step].adds - rename_sweep[step - 1].adds);
}

/*
 * The rename registers (H. Wong's method): two independent chases through
 * every line of the DRAM set at random, N register adds after each load.
 * While the adds and the second load find free registers, its miss
 * overlaps the first's (a pair takes one latency); past them it waits for
 * the first to retire (two).  The figure: where the time crosses 1.5x the
 * fewest adds', plus the load's own register.  0 or -ENOMEM.
 */
static int rename_registers(struct calib *k, const struct caches *s)
{
	void *start, *m = calib_chase_new(s->dram, true, CALIB_LINES, &start);
	struct calib_job j[RENAME_N];
	char cycles[256];
	struct calib_pair pair;
	double c[RENAME_N];
	size_t i, step;

	if (!m)
		return -ENOMEM;
	/* every line lies on the one cycle: the second chase starts far along it */
	pair = (struct calib_pair){start, (char *)m + s->dram / 2};
	for (i = 0; i < RENAME_N; i++)
		j[i] = (struct calib_job){rename_sweep[i].fn, &pair, 1L << 10, 0};
	calib_time_rr(j, RENAME_N);
	for (i = 0; i < RENAME_N; i++)
		c[i] = j[i].best / CALIB_BODIES * k->ghz;
	for (step = 1; step < RENAME_N && c[step] < 1.5 * c[0]; step++)
		;
	figure(k, MK_RENAME, rename_step(c, step) + 1);
	rename_cycles(cycles, sizeof(cycles), c);
	source(k, MG_RENAME,
	       "measured: two independent chases through every line of %zu MiB at random, N "
	       "register adds (6 registers in turn) after each load, cycles a pair (N c): %s; "
	       "where the pair's time crosses 1.5x the first's (%s), plus the second load's "
	       "register",
	       s->dram / MIB, cycles,
	       step < RENAME_N ? "between the two sizes around it, linearly" : "never: the last");
	munmap(m, s->dram);
	return 0;
}

/*
 * The mispredict penalty: a branch on random bytes (half of them
 * mispredicted) against the same on alternate ones, which the predictor
 * follows, and the branchless twin; 0 or -ENOMEM.  What a mispredict adds
 * there is the branch's resolution (its byte's load, the test, the
 * branch) and the refill after it; the timing model times the resolution
 * from the instructions themselves and adds the penalty after it, so the
 * figure is the refill: the resolution (load_to_use.l1, measured before,
 * and a cycle each for the test and the branch) taken off.
 */
static int mispredict(struct calib *k)
{
	unsigned char *bits = malloc(2 * CALIB_BITS);
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	struct calib_rep ring[3];
	struct calib_job j[3];
	double c[3], resolve;
	int i;

	if (!bits)
		return -ENOMEM;
	for (i = 0; i < CALIB_BITS; i++) {
		bits[i] = calib_rand(&seed) >> 32 & 1;
		bits[CALIB_BITS + i] = i & 1;
	}
	for (i = 0; i < 3; i++)
		ring[i] = (struct calib_rep){NULL, (char *)bits + (i == 1) * CALIB_BITS,
					     CALIB_BITS - 1, 0};
	j[0] = (struct calib_job){calib_branch, &ring[0], 1L << 14, 0};
	j[1] = (struct calib_job){calib_branch, &ring[1], 1L << 14, 0};
	j[2] = (struct calib_job){calib_branchless, &ring[2], 1L << 14, 0};
	calib_time_rr(j, 3);
	for (i = 0; i < 3; i++)
		c[i] = j[i].best / CALIB_BODIES * k->ghz;
	resolve = k->r->costs.core[MK_LTU_L1] + 2;
	figure(k, MK_MISPREDICT, (c[0] - c[1]) / 0.5 - resolve);
	source(k, MG_MISPREDICT,
	       "measured: a conditional branch on each of %d random bytes, read on round the "
	       "ring (half of them mispredicted) %.2f cycles a branch, less the same on "
	       "alternate bytes (predicted) %.2f, over 0.5 mispredicts a branch (%.2f), less "
	       "the branch's resolution, which the timing model times itself: its byte's load "
	       "(load_to_use.l1), the test and the branch, %.2f; the branchless twin (each byte "
	       "added) %.2f",
	       CALIB_BITS, c[0], c[1], (c[0] - c[1]) / 0.5, resolve, c[2]);
	free(bits);
	return 0;
}

/*
 * Whether the front end fetches one 64-byte block a cycle: a loop of five
 * instructions within one block, against the same across two (a Zen 4: 1
 * and 2 cycles an iteration; a Zen 5: 1 and 1); 0.
 */
static int fetch_blocks(struct calib *k)
{
	struct calib_job j[2] = {{calib_loop_within, NULL, 1L << 16, 0},
				 {calib_loop_across, NULL, 1L << 16, 0}};
	double c[2];
	int i;

	calib_time_rr(j, 2);
	for (i = 0; i < 2; i++)
		c[i] = j[i].best * k->ghz;
	figure(k, MK_FETCH_CROSSING, c[1] / c[0]);
	source(k, MG_FETCH_CROSSING,
	       "measured: a loop of five instructions (three independent adds, dec, jnz; 14 "
	       "bytes) at the start of a 64-byte block %.2f cycles an iteration, the same across "
	       "two (its jnz in the next) %.2f: the second over the first",
	       c[0], c[1]);
	return 0;
}

/* The largest power of two not over v. */
static size_t pow2_floor(size_t v)
{
	size_t p = 4 * KIB;

	while (p * 2 <= v)
		p *= 2;
	return p;
}

/*
 * What streams() times: a read from memory (a sum through 4 KiB pages too)
 * and from L2, the fast strings at each level, a twin.
 */
enum {
	S_STREAM,
	S_STREAM_4K,
	S_L2_STREAM,
	S_STOSB_L1,
	S_STOSB_L2,
	S_STOSB_DRAM,
	S_MOVSB_L1,
	S_MOVSB_L2,
	S_MOVSB_DRAM,
	S_NONE,
	S_N
};

/* The streams' figures from their cycles a body c: a line's 64 bytes, a page's 64 lines. */
static void stream_figures(struct calib *k, const struct caches *s, const double *c, size_t l2)
{
	static const enum model_core_key keys[] = {MK_STOSB_L1, MK_STOSB_L2, MK_STOSB_DRAM,
						   MK_MOVSB_L1, MK_MOVSB_L2, MK_MOVSB_DRAM};
	int i;

	figure(k, MK_STREAM_BPC, 64 / c[S_STREAM]);
	figure(k, MK_STREAM_CPL, c[S_STREAM]);
	source(k, MG_STREAM_BPC,
	       "measured: a sequential read through %zu MiB (4x the last level) in %s, one load a "
	       "64-byte line, the hardware prefetchers on; the whole loop's rate, no twin "
	       "subtracted",
	       s->dram / MIB, huge_pages());
	source(k, MG_STREAM_CPL, "measured: 64 bytes over stream_bytes_per_cycle");
	figure(k, MK_STREAM_4K, c[S_STREAM_4K]);
	source(k, MG_STREAM_4K,
	       "measured: a sum of each line's eight longs (two accumulators) through %zu MiB "
	       "in 4 KiB pages (MADV_NOHUGEPAGE), cycles a line; the whole loop's rate, no twin "
	       "subtracted",
	       s->dram / MIB);
	figure(k, MK_L2_STREAM, c[S_L2_STREAM]);
	source(k, MG_L2_STREAM,
	       "measured: the same read through %zu KiB (half of L2), round and round: the rate "
	       "L1 takes lines from L2, its fill path; the whole loop's rate, no twin subtracted",
	       l2 / KIB);
	for (i = 0; i < 6; i++)
		figure(k, keys[i], (c[S_STOSB_L1 + i] - c[S_NONE]) / 64);
	source(k, MG_STOSB,
	       "measured: REP STOSB of a 4 KiB page, cycles a 64-byte line, less the loop without "
	       "it (%.1f cycles a page): l1 the same page again, l2 pages round %zu KiB, dram "
	       "pages round %zu MiB",
	       c[S_NONE], l2 / KIB, s->dram / MIB);
	source(k, MG_MOVSB,
	       "measured: REP MOVSB of a 4 KiB page, cycles a 64-byte line, less the loop without "
	       "it (%.1f cycles a page): l1 the same two pages again, l2 pages from %zu KiB to "
	       "another %zu KiB, dram from %zu MiB to another %zu MiB",
	       c[S_NONE], l2 / 2 / KIB, l2 / 2 / KIB, s->dram / 2 / MIB, s->dram / 2 / MIB);
}

/* A read's cycles a line from memory (2 MiB, 4 KiB pages), L2, the fast strings'; 0 or -ENOMEM. */
static int streams(struct calib *k, const struct caches *s)
{
	size_t l2 = pow2_floor(s->l2 / 2);
	char *big = calib_region(s->dram, true), *small = calib_region(l2 + 8 * KIB, false);
	char *paged = calib_region(s->dram, false), *one = small + l2;
	struct calib_rep r[S_N] = {
		[S_STREAM] = {big, big, s->dram - 1, 0},
		[S_STREAM_4K] = {paged, paged, s->dram - 1, 0},
		[S_L2_STREAM] = {small, small, l2 - 1, 0},
		[S_STOSB_L1] = {one, one, 4 * KIB - 1, 0},
		[S_STOSB_L2] = {small, small, l2 - 1, 0},
		[S_STOSB_DRAM] = {big, big, s->dram - 1, 0},
		[S_MOVSB_L1] = {one + 4 * KIB, one, 4 * KIB - 1, 0},
		[S_MOVSB_L2] = {small + l2 / 2, small, l2 / 2 - 1, 0},
		[S_MOVSB_DRAM] = {big + s->dram / 2, big, s->dram / 2 - 1, 0},
		[S_NONE] = {one, one, 4 * KIB - 1, 0},
	};
	struct calib_job j[S_N];
	double c[S_N];
	int i, err = big && small && paged ? 0 : -ENOMEM;

	for (i = 0; !err && i < S_N; i++)
		j[i] = (struct calib_job){i == S_STREAM_4K   ? calib_stream_sum
					  : i <= S_L2_STREAM ? calib_stream
					  : i == S_NONE	     ? calib_rep_none
					  : i < S_MOVSB_L1   ? calib_rep_stosb
							     : calib_rep_movsb,
					  &r[i],
					  i <= S_STREAM_4K   ? (long)(s->dram / 1024)
					  : i == S_L2_STREAM ? (long)(l2 / 64)
							     : 1L << 10,
					  0};
	if (!err) {
		/* every page faulted in before the clock runs */
		memset(big, 1, s->dram);
		memset(paged, 1, s->dram);
		memset(small, 1, l2 + 8 * KIB);
		calib_time_rr(j, S_N);
		for (i = 0; i < S_N; i++)
			c[i] = j[i].best / CALIB_BODIES * k->ghz;
		stream_figures(k, s, c, l2);
	}
	if (paged)
		munmap(paged, s->dram);
	if (small)
		munmap(small, l2 + 8 * KIB);
	if (big)
		munmap(big, s->dram);
	return err;
}

#define GATHER_IDX (1L << 16) /* the offsets calib_gather reads in turn: 256 KiB, in L2 */

/*
 * The same loads with six operations waiting for each value: a scheduler
 * holds each from its dispatch until the value arrives, the load itself
 * until its address (the index, in L1) does, so by Little's law its
 * entries are the loads' rate times what each body holds for: six times
 * the loads' mean latency (L2's share of them at load_to_use.l2, the rest
 * at .ll) and seven times L1's.  c: cycles a load.
 */
static void scheduler(struct calib *k, double beyond, double c)
{
	const double *lu = k->r->costs.core;
	double mean = beyond * lu[MK_LTU_LL] + (1 - beyond) * lu[MK_LTU_L2];

	figure(k, MK_SCHEDULER, (6 * mean + 7 * lu[MK_LTU_L1]) / c);
	source(k, MG_SCHEDULER,
	       "measured: ll_random_cycles_per_line's loads, six LEAs of each value after it, "
	       "%.2f cycles a load; by Little's law, the operations waiting at once: six times "
	       "their mean latency (%.2f of them at load_to_use.ll, the rest at .l2) and seven "
	       "times load_to_use.l1 (the loads, for the index), over it",
	       c, beyond);
}

/*
 * Independent loads at random lines of the last level's set (ll_sweep's,
 * in 2 MiB pages), their offsets read in turn from an index in L2: no load
 * waits for another, so the rate is how many misses the last level serves
 * at once.  The figure is a line from beyond L2: the rate over the share
 * of the set L2 cannot hold (a model's L2, least recently used, holds
 * L2's size of lines taken at random).  Then scheduler()'s.  0 or -ENOMEM.
 */
static int ll_random(struct calib *k, const struct caches *s)
{
	char *m = calib_region(s->ll_set, true);
	uint32_t *idx = calib_region(GATHER_IDX * sizeof(*idx), true);
	struct calib_gather g = {idx, m, GATHER_IDX - 1, 0};
	double c, beyond = s->ll_set > s->l2 ? 1 - (double)s->l2 / s->ll_set : 1;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	long i;
	int err = m && idx ? 0 : -ENOMEM;

	if (!err) {
		memset(m, 1, s->ll_set);
		for (i = 0; i < GATHER_IDX; i++)
			idx[i] = calib_rand(&seed) % (s->ll_set / 64) * 64;
		c = calib_time(calib_gather, &g, GATHER_IDX / CALIB_BODIES) / CALIB_BODIES * k->ghz;
		figure(k, MK_LL_RANDOM, c / beyond);
		source(k, MG_LL_RANDOM,
		       "measured: independent loads at random lines of %zu KiB in %s (load_to_use.ll's "
		       "set), their offsets read in turn from an index in L2, %.2f cycles a load, over "
		       "the %.2f of them L2 cannot hold (L2 %zu KiB): a line from beyond L2, "
		       "with all of L1's miss buffers in flight (what the last level's latency "
		       "grows to with them: core latency.ll_queue)",
		       s->ll_set / KIB, huge_pages(), c, beyond, s->l2 / KIB);
		scheduler(k, beyond,
			  calib_time(calib_gather_use, &g, GATHER_IDX / CALIB_BODIES) /
				  CALIB_BODIES * k->ghz);
	}
	if (idx)
		munmap(idx, GATHER_IDX * sizeof(*idx));
	if (m)
		munmap(m, s->ll_set);
	return err;
}

/*
 * Of the last level's hits, those this tenant finds gone to DRAM (a per
 * million): calib_lost's loads through load_to_use.ll's set in rounds
 * slower than their median by half of DRAM's latency beyond LL's, over
 * the share of the set L2 cannot hold.  None where the set is within L2
 * or no cycle counter is read.  0 or -ENOMEM.
 */
static int ll_lost(struct calib *k, const struct caches *s)
{
	const double *lu = k->r->costs.core;
	double share, beyond = s->ll_set > s->l2 ? 1 - (double)s->l2 / s->ll_set : 0;
	int err;

	if (beyond <= 0)
		return 0;
	err = calib_lost(s->ll_set, k->ghz, (lu[MK_LTU_DRAM] - lu[MK_LTU_LL]) / 2, &share);
	if (err)
		return err == -EOPNOTSUPP ? 0 : err;
	figure(k, MK_LL_LOST, share / beyond * 1e6);
	source(k, MG_LL_LOST,
	       "measured: 16 random chases at once through the %zu KiB of load_to_use.ll's set in "
	       "%s, each round of them timed by the cycle counter: %.3f%% of the loads in rounds "
	       "slower than the median by half of load_to_use.dram beyond .ll, over the %.2f of "
	       "them L2 cannot hold (median of 5 runs)",
	       s->ll_set / KIB, huge_pages(), share * 100, beyond);
	return 0;
}

int calib_core(struct calib *k, struct calib_loads *l)
{
	struct caches s;
	int err;

	cache_sizes(&s);
	err = ll_sweep(k, &s) ?: chases(k, &s, l) ?: rename_registers(k, &s) ?: mispredict(k) ?:
	      fetch_blocks(k) ?: streams(k, &s) ?: ll_random(k, &s) ?: ll_lost(k, &s);
	k->r->costs.has_core = !err;
	return err;
}

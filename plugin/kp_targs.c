// SPDX-License-Identifier: GPL-2.0-only
/*
 * mode=timing's parameters: the plugin's arguments that set them, and the
 * table's lines that say them, with each PC's cycles (scaled to all its
 * executions when sampling).  The model itself is kp_timing.c.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "kp_timing.h"

/* ---- arguments ---- */

/* a numeric argument: its key, where it goes, its bounds */
struct kp_tnum {
	const char *key;
	size_t off;
	uint32_t lo, hi;
};

#define KP_T(key, field, lo, hi)                               \
	{                                                      \
		key, offsetof(struct kp_timing, field), lo, hi \
	}
static const struct kp_tnum kp_tnums[] = {
	KP_T("core.width", core_cfg.width, 1, 16),
	KP_T("core.window", core_cfg.window, 1, 4096),
	KP_T("core.mshrs", core_cfg.mshrs, 1, 256),
	KP_T("core.l2_mshrs", core_cfg.l2_mshrs, 0, 256),
	KP_T("core.walkers", core_cfg.walkers, 0, 64),
	KP_T("core.mispredict", core_cfg.mispredict, 0, 1000),
	KP_T("core.lq", core_cfg.lq, 0, 4096),
	KP_T("core.prf", core_cfg.prf, 0, 4096),
	KP_T("core.sched", core_cfg.sched, 0, 4096),
	KP_T("core.sq", core_cfg.sq, 0, 4096),
	KP_T("core.fetch_block", core_cfg.fetch_block, 0, 4096),
	KP_T("core.alus", core_cfg.alus, 0, 64),
	KP_T("lat.l1", lat.l1, 1, 100),
	KP_T("lat.l2", lat.l2, 1, 200),
	KP_T("lat.ll", lat.ll, 1, 1000),
	KP_T("lat.dram", lat.dram, 1, 10000),
	KP_T("lat.stlb", lat.stlb, 0, 1000),
	KP_T("lat.walk", lat.walk, 0, 10000),
	KP_T("lat.string_uops", lat.string_uops, 1, 4096),
	KP_T("lat.dram_line", lat.dram_line, 0, 10000),
	KP_T("lat.dram_wline", lat.dram_wline, 0, 10000),
	KP_T("lat.page_cross", lat.page_cross, 0, 10000),
	KP_T("lat.ll_lost", lat.ll_lost, 0, 1000000),
	KP_T("lat.ll_queue", core_cfg.ll_queue, 0, 100000),
	KP_T("lat.l1_fill", core_cfg.l1_fill, 0, 1000),
	KP_T("bp.cond", bp_cfg.cond_entries, 1, 1u << 24),
	KP_T("bp.hist", bp_cfg.hist_bits, 0, 64),
	KP_T("bp.btb", bp_cfg.btb_entries, 1, 1u << 24),
	KP_T("bp.btb_assoc", bp_cfg.btb_assoc, 1, 64),
	KP_T("bp.ras", bp_cfg.ras_depth, 1, 1024),
	KP_T("bp.path", bp_cfg.path_bits, 0, 16),
	KP_T("bp.loop", bp_cfg.loop_entries, 0, 1u << 16),
	KP_T("pf.next_line", pf_arg.next_line, 0, 2),
	KP_T("pf.stride_entries", pf_arg.stride_entries, 0, 4096),
	KP_T("pf.stride_distance", pf_arg.stride_distance, 0, 64),
	KP_T("pf.streams", pf_arg.streams, 0, KP_PF_MAX_STREAMS),
	KP_T("pf.stream_distance", pf_arg.stream_distance, 0, 64),
	KP_T("pf.stream_degree", pf_arg.stream_degree, 0, 16),
	KP_T("pf.next_page", pf_arg.next_page, 0, 1),
};

/* sampling's defaults: an interval of a million instructions, a tenth of a sample warming up */
#define KP_TSAMPLE_LEN	1000000
#define KP_TSAMPLE_WARM 100000
#define KP_TSAMPLE_MIN	4 /* a PC's measured executions its own mean needs */

/* sampling's, in the table's header only when it samples */
static const struct kp_tnum kp_tsamples[] = {
	KP_T("sample.period", sample.period, 0, 1000000),
	KP_T("sample.len", sample.len, 1000, 1000000000),
	KP_T("sample.warm", sample.warm, 0, 1000000000),
};

#define KP_TN(table) (sizeof(table) / sizeof((table)[0]))

/* key's entry of table (n of them), or NULL */
static const struct kp_tnum *kp_tfind(const struct kp_tnum *table, size_t n, const char *key,
				      size_t klen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(table[i].key) == klen && !strncmp(table[i].key, key, klen))
			return &table[i];
	return NULL;
}

/* " KEY=VALUE" of each of table's n entries, as t has them */
static void kp_tprint(FILE *f, const struct kp_timing *t, const struct kp_tnum *table, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, " %s=%u", table[i].key,
			*(const uint32_t *)((const char *)t + table[i].off));
}

static int kp_tnum(struct kp_timing *t, const struct kp_tnum *n, const char *v)
{
	char *end;
	unsigned long x = strtoul(v, &end, 10);

	if (!*v || *end || x < n->lo || x > n->hi) {
		fprintf(stderr, "kp_model: %s=%s: want a whole number from %u to %u\n", n->key, v,
			n->lo, n->hi);
		return -1;
	}
	*(uint32_t *)((char *)t + n->off) = x;
	return 1;
}

/* ev.NAME=CYCLES: an event's fixed cost, NAME as the table's EV column has it */
static int kp_tev(struct kp_timing *t, const char *name, size_t len, const char *v)
{
	struct kp_tnum n = {"ev", 0, 0, 1000000};
	int e;

	for (e = 1; e < KP_EV_KINDS; e++) {
		if (strlen(kp_ev_names[e]) == len && !strncmp(kp_ev_names[e], name, len)) {
			n.off = offsetof(struct kp_timing, lat.ev) + e * sizeof(uint32_t);
			return kp_tnum(t, &n, v);
		}
	}
	fprintf(stderr, "kp_model: ev.%.*s: no such event\n", (int)len, name);
	return -1;
}

void kp_timing_defaults(struct kp_timing *t)
{
	t->sample = (struct kp_tsample){.len = KP_TSAMPLE_LEN, .warm = KP_TSAMPLE_WARM};
}

int kp_timing_arg(struct kp_timing *t, const char *key, size_t klen, const char *v)
{
	const struct kp_tnum *n = kp_tfind(kp_tnums, KP_TN(kp_tnums), key, klen)
					  ?: kp_tfind(kp_tsamples, KP_TN(kp_tsamples), key, klen);

	if (n)
		return kp_tnum(t, n, v);
	if (klen > 3 && !strncmp(key, "ev.", 3))
		return kp_tev(t, key + 3, klen - 3, v);
	if (klen == 4 && !strncmp(key, "core", 4))
		t->core_name = v;
	else if (klen == 2 && !strncmp(key, "l2", 2))
		t->l2_spec = v;
	else if (klen == 4 && !strncmp(key, "stlb", 4))
		t->stlb_spec = v;
	else
		return 0;
	return 1;
}

/* ---- the table ---- */

void kp_timing_header(FILE *f, const struct kp_timing *t)
{
	int e;

	fprintf(f, "# timing core=%s", t->core_name ? t->core_name : "unnamed");
	kp_tprint(f, t, kp_tnums, KP_TN(kp_tnums));
	fprintf(f, " l2=%s stlb=%s", t->l2_spec, t->stlb_spec);
	for (e = 1; e < KP_EV_KINDS; e++)
		if (t->lat.ev[e])
			fprintf(f, " ev.%s=%u", kp_ev_names[e], t->lat.ev[e]);
	if (t->sample.period > 1)
		kp_tprint(f, t, kp_tsamples, KP_TN(kp_tsamples));
	fprintf(f,
		"\n# timing insns %" PRIu64 " unknown %" PRIu64 " prefetches %" PRIu64
		" cycles %.0f\n",
		t->insns, t->unknown, t->prefetches, kp_core_cycles(&t->core));
}

/*
 * Sampling: a PC's cycles over its measured executions, times all of
 * them (a ratio estimate, as SMARTS's); one measured fewer than
 * KP_TSAMPLE_MIN times keeps what it was charged, and its other
 * executions get the measured instructions' mean, row by row: a PC that
 * runs in a burst a sample caught the first of (a cold miss, then
 * thousands of hits) would otherwise be charged that miss every time.
 */
void kp_timing_row(FILE *f, const struct kp_timing *t, const struct kp_cyc *c, uint64_t runs)
{
	uint64_t stack[KP_ST_N], sum = 0;
	double x;
	int i;

	if (t->sample.period <= 1) {
		fprintf(f, " %.0f", c->cycles);
		for (i = 0; i < KP_ST_N; i++)
			fprintf(f, " %.0f", c->stack[i]);
		return;
	}
	for (i = 0; i < KP_ST_N; i++) {
		if (c->measured >= KP_TSAMPLE_MIN)
			x = c->stack[i] * runs / c->measured;
		else
			x = c->stack[i] + (t->measured ? t->measured_cyc[i] / t->measured : 0) *
						  (runs > c->measured ? runs - c->measured : 0);
		stack[i] = (uint64_t)(x + 0.5);
		sum += stack[i];
	}
	fprintf(f, " %" PRIu64, sum);
	for (i = 0; i < KP_ST_N; i++)
		fprintf(f, " %" PRIu64, stack[i]);
}

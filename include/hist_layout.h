/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Log-linear latency histogram: values below KP_HIST_SUB get a bucket each,
 * every power of two above is split into KP_HIST_SUB equal buckets.  A bucket
 * is at most 1/8 of its lower bound wide, so a percentile read at the bucket
 * midpoint is within ~6% of the true value.  Shared with BPF: no libc here.
 */
#ifndef KP_HIST_LAYOUT_H
#define KP_HIST_LAYOUT_H

#define KP_HIST_SUB_BITS 3
#define KP_HIST_SUB	 (1 << KP_HIST_SUB_BITS)
/* values of 2^(KP_HIST_MAX_MSB+1) ns (~36 minutes) and more share the last bucket */
#define KP_HIST_MAX_MSB 40
#define KP_HIST_BUCKETS ((KP_HIST_MAX_MSB - KP_HIST_SUB_BITS + 2) * KP_HIST_SUB)

/* Index of the most significant set bit; branch-free so the verifier sees no loop. */
static inline __attribute__((always_inline)) __u32 kp_log2(__u64 v)
{
	__u32 r, s;

	r = (v > 0xffffffffULL) << 5;
	v >>= r;
	s = (v > 0xffff) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xff) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xf) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
	v >>= s;
	r |= s;
	return r | (__u32)(v >> 1);
}

static inline __attribute__((always_inline)) __u32 kp_hist_bucket(__u64 v)
{
	__u32 msb;

	if (v < KP_HIST_SUB)
		return v;
	msb = kp_log2(v);
	if (msb > KP_HIST_MAX_MSB)
		return KP_HIST_BUCKETS - 1;
	return (msb - KP_HIST_SUB_BITS + 1) * KP_HIST_SUB +
	       ((v >> (msb - KP_HIST_SUB_BITS)) & (KP_HIST_SUB - 1));
}

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's hardware prefetchers, apart from QEMU so that they
 * can be tested on their own (issue 57).  One struct kp_pf sits beside one
 * cache level and sees that level's demand accesses, in order: for each the
 * caller says its PC, physical address and whether it missed there, and
 * gets back the lines to prefetch into that level.  Three kinds, any of
 * them on (the cfg):
 *
 *  - next-line (L1D): on a miss, the next line: on every miss
 *    (KP_PF_NEXT_MISS), or on one whose line before is among the lines
 *    accessed lately (KP_PF_NEXT_STREAM: a KP_PF_RECENT-entry table of
 *    them by line, a stream's history as AMD's L1 stream prefetcher keeps;
 *    a miss among loads at random brings nothing beside it);
 *  - IP-stride (L1D): a table keyed by the load's PC of its last address,
 *    stride and confidence; once its stride repeated KP_PF_IP_CONF times
 *    in a row, the line ip_distance strides ahead;
 *  - streamer (L2): streams of accesses within one 4 KiB page, started
 *    by a miss, whose direction (ascending or descending) came
 *    KP_PF_STREAM_CONF times in a row; it then keeps stream_distance lines
 *    ahead of the demand, stream_degree lines at most per access.
 *
 * None issues a line beyond a 4 KiB page: the next physical page is no
 * neighbour.  But with next_page on, a stream whose demand walked
 * stream_distance lines of its page and that issued the page's last line
 * is remembered by the virtual page it was going to (kp_pf_arm, the
 * caller knowing the virtual address and the time); when the demand gets
 * there (kp_pf_crossing), the stream goes on in that page's physical page
 * (kp_pf_enter), its first lines fetched from the remembered time: a
 * next-page prefetcher, which translates ahead of the demand (Intel's
 * NPP; this host's prefetchers follow a stream into the next page too,
 * docs/model.md "A stream across pages").  The plugin cannot translate
 * ahead (QEMU's plugin API 1 has no guest page walk), so the crossing is
 * made when the demand arrives, and timed as if made at the edge.
 *
 * The caller inserts each line returned into its cache (a line already
 * there, or dropped, is its business: this side does not know the cache)
 * and counts it issued; to count the useful ones, it marks the line as
 * prefetched and counts a later demand hit on a marked line, clearing the
 * mark.  That demand access is reported here as a hit: the IP-stride and
 * streamer train on hits and misses alike, or a stream running ahead of
 * its demand would lose it.
 */
#ifndef KP_PREFETCH_H
#define KP_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#define KP_PF_PAGE_BITS	  12
#define KP_PF_IP_CONF	  2 /* a stride, then twice again: from the fourth access */
#define KP_PF_STREAM_CONF 2 /* a miss, then two steps the same way */
#define KP_PF_MAX_STREAMS 64
#define KP_PF_NP	  8 /* crossings remembered */

/*
 * The parameters, from a core description.  line_bits: log2 of the cache's
 * line; next_line: that prefetcher (0 off, KP_PF_NEXT_*); ip_entries: the IP-stride table's
 * entries (a power of two; 0: off), ip_distance: strides ahead (1 or
 * more); streams: streams tracked (0: off; at most KP_PF_MAX_STREAMS),
 * stream_distance: lines ahead of the demand (1 to a page's lines),
 * stream_degree: lines issued per access at most (1 or more); next_page:
 * streams go on into the next virtual page (needs streams).
 */
#define KP_PF_NEXT_MISS	  1
#define KP_PF_NEXT_STREAM 2
#define KP_PF_RECENT	  64 /* lines remembered for KP_PF_NEXT_STREAM (a power of two) */

struct kp_pf_cfg {
	unsigned int line_bits;
	unsigned int next_line; /* 0, KP_PF_NEXT_MISS or KP_PF_NEXT_STREAM */
	bool next_page;
	unsigned int ip_entries, ip_distance;
	unsigned int streams, stream_distance, stream_degree;
};

/* an IP-stride entry: the load's PC (KP_PF_NONE: empty), its last address, the last line issued */
struct kp_pf_ip {
	uint64_t pc, last, issued;
	int64_t stride;
	unsigned int conf;
};

/*
 * A stream: the line accessed last and the next to prefetch (lines within
 * its page), its direction (+1, -1, 0 not yet known), confidence and when
 * it was last used (the victim: the least recently used).
 */
struct kp_pf_stream {
	uint64_t lru;
	int last, next, dir;
	unsigned int conf;
};

#define KP_PF_NONE UINT64_MAX

/* a stream that reached its page's edge going dir, by the virtual page beyond; when (the caller's) */
struct kp_pf_np {
	uint64_t vpage;
	double at;
	int dir;
};

/*
 * The tables: ip[] by the PC's hash; st[i] the stream of page[i]
 * (KP_PF_NONE: none), the pages apart since every access looks them all up.
 */
struct kp_pf {
	struct kp_pf_cfg cfg;
	struct kp_pf_ip *ip;
	struct kp_pf_stream *st;
	uint64_t *page;
	uint64_t clock;
	int edge; /* the last access's stream issued its page's last line going edge (+1, -1); 0 */
	uint64_t recent[KP_PF_RECENT]; /* KP_PF_NEXT_STREAM's lines accessed, by line; KP_PF_NONE */
	struct kp_pf_np np[KP_PF_NP];
	unsigned int np_next; /* the entry the next crossing replaces (the oldest) */
};

/* 0, -EINVAL (a parameter out of range, named on stderr) or -ENOMEM */
int kp_pf_init(struct kp_pf *p, const struct kp_pf_cfg *c);
void kp_pf_free(struct kp_pf *p);

/*
 * A demand access at physical address pa by the instruction at pc, a miss
 * at this level or not: up to max line addresses (pa >> line_bits) to
 * prefetch written to out, each once, none the access's own; their count
 * returned.
 */
unsigned int kp_pf_access(struct kp_pf *p, uint64_t pc, uint64_t pa, bool miss, uint64_t *out,
			  unsigned int max);

/*
 * next_page: the stream whose access set p->edge goes on beyond the virtual
 * page of va, where its last access was, from time at
 */
void kp_pf_arm(struct kp_pf *p, uint64_t va, double at);
/*
 * A demand access at va: if a stream was going into its virtual page and
 * va's line is among the first stream_distance lines it enters by, that
 * stream's direction (the entry is used up) and *at when it reached the
 * edge; else 0.
 */
int kp_pf_crossing(struct kp_pf *p, uint64_t va, double *at);
/*
 * The crossing's stream in the page of physical address pa going dir,
 * confident, on from the lines it fetches on entering: those (the first
 * stream_distance, max at most) written to out, their count returned.
 */
unsigned int kp_pf_enter(struct kp_pf *p, uint64_t pa, int dir, uint64_t *out, unsigned int max);

#endif

// SPDX-License-Identifier: GPL-2.0-only
/* kp_model: the plugin's install, its arguments, its counters (kp_model.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kp_model.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct kp_ctx kp __attribute__((aligned(64)));

/* ---- counters ---- */

/* the i-th PC of chunk c, and how many chunk c has */
struct kp_pc *kp_pc_nth(guint c, size_t i)
{
	return (struct kp_pc *)((char *)g_ptr_array_index(kp.chunks, c) + i * kp.pc_size);
}

size_t kp_chunk_len(guint c)
{
	return c + 1 == kp.chunks->len ? kp.used : KP_CHUNK;
}

/* a PC's record, with its misses beside its count */
/* mode=timing: the PC's cycles, after its misses */
struct kp_cyc *kp_pc_cyc(struct kp_pc *p)
{
	return (struct kp_cyc *)&p->miss[kp.sim.ngeom];
}

struct kp_pc *kp_pc_get(uint64_t pc)
{
	struct kp_pc *p = g_hash_table_lookup(kp.by_pc, &pc);

	if (p)
		return p;
	if (!kp.chunks->len || kp.used == KP_CHUNK) {
		void *chunk = aligned_alloc(64, KP_CHUNK * kp.pc_size);

		if (!chunk)
			g_error("kp_model: out of memory");
		memset(chunk, 0, KP_CHUNK * kp.pc_size);
		g_ptr_array_add(kp.chunks, chunk);
		kp.used = 0;
	}
	p = kp_pc_nth(kp.chunks->len - 1, kp.used++);
	p->pc = pc;
	g_hash_table_insert(kp.by_pc, &p->pc, p);
	return p;
}

/*
 * A block's counters and sites (kp.hot), or in mode=timing its
 * instructions as the core sees them (kp.tblocks): size zeroed bytes (a
 * multiple of 8), after the last block's, so that blocks translated
 * together, which often run together, share host cache lines.  Two
 * arenas: between samples a block's execution touches its counters and
 * sites alone, as dense as mode=cache's.  Never freed: QEMU's code adds
 * to them.
 */
void *kp_hot_alloc(struct kp_arena *a, size_t size)
{
	void *c;

	if (a->left < size) {
		a->left = (size + KP_HOT_CHUNK - 1) & ~(size_t)(KP_HOT_CHUNK - 1);
		a->free = aligned_alloc(KP_HOT_CHUNK, a->left);
		if (!a->free)
			g_error("kp_model: out of memory");
		/* one host TLB entry for all: the callbacks touch them all the time */
		madvise(a->free, a->left, MADV_HUGEPAGE);
		memset(a->free, 0, a->left);
	}
	c = a->free;
	a->free += size;
	a->left -= size;
	return c;
}

/* fn(counter, base, sum) over every inline counter there is */
void kp_each_counter(void (*fn)(uint64_t *cnt, uint64_t *base, uint64_t *sum))
{
	GHashTableIter it;
	gpointer key;
	uint32_t r;

	g_hash_table_iter_init(&it, kp.tbs);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		struct kp_tb *t = key;

		for (r = 0; r < t->nruns; r++)
			fn(&t->cnt[r], &t->base[r], &t->sum[r]);
	}
}

void kp_snap_base(uint64_t *cnt, uint64_t *base, uint64_t *sum)
{
	*base = *cnt;
}

void kp_close_sum(uint64_t *cnt, uint64_t *base, uint64_t *sum)
{
	*sum += *cnt - *base;
	*base = *cnt;
}

/* how often run r of block t ran in every window so far, the open one included */
uint64_t kp_run_count(const struct kp_tb *t, uint32_t r)
{
	return t->sum[r] + (kp.active ? t->cnt[r] - t->base[r] : 0);
}

/* the instructions counted so far: each run's count times its instructions */
uint64_t kp_count_all(void)
{
	GHashTableIter it;
	gpointer key;
	uint64_t n = 0;
	uint32_t i;

	g_hash_table_iter_init(&it, kp.tbs);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		const struct kp_tb *t = key;

		for (i = 0; i < t->n; i++)
			if (!t->insn[i].marker)
				n += kp_run_count(t, t->insn[i].run);
	}
	return n;
}

/* ---- arguments ---- */

static bool kp_single_geom(const char *const *one)
{
	g_autofree char *s = g_strdup_printf(
		"%s/%s/%s/%s/%s", one[0] ? one[0] : "32768:8:64", one[1] ? one[1] : "32768:8:64",
		one[2] ? one[2] : "8388608:16:64", one[3] ? one[3] : KP_ITLB_DEFAULT,
		one[4] ? one[4] : KP_DTLB_DEFAULT);

	return kp_sim_add_geom(&kp.sim, s);
}

static bool kp_parse_arg(const char *arg, const char **one)
{
	const char *v = strchr(arg, '=');
	size_t klen = v ? (size_t)(v - arg) : strlen(arg);

	if (!v) {
		fprintf(stderr, "kp_model: argument '%s': want KEY=VALUE\n", arg);
		return false;
	}
	v++;
	if (!strncmp(arg, "mode", klen) && klen == 4) {
		if (strcmp(v, "insns") && strcmp(v, "cache") && strcmp(v, "timing")) {
			fprintf(stderr, "kp_model: mode=%s: want insns, cache or timing\n", v);
			return false;
		}
		kp.mode = !strcmp(v, "cache")	 ? KP_CACHE
			  : !strcmp(v, "timing") ? KP_TIMING
						 : KP_INSNS;
	} else if (klen == 3 && !strncmp(arg, "out", 3)) {
		kp.out = g_strdup(v);
	} else if (klen == 4 && !strncmp(arg, "qemu", 4)) {
		kp.qemu_version = g_strdup(v);
	} else if (klen == 5 && !strncmp(arg, "count", 5)) {
		if (strcmp(v, "insn") && strcmp(v, "tb")) {
			fprintf(stderr, "kp_model: count=%s: want insn or tb\n", v);
			return false;
		}
		kp.count = strcmp(v, "tb") ? KP_PER_INSN : KP_PER_TB;
	} else if (klen == 6 && !strncmp(arg, "window", 6)) {
		if (strcmp(v, "markers") && strcmp(v, "boot")) {
			fprintf(stderr, "kp_model: window=%s: want markers or boot\n", v);
			return false;
		}
		kp.boot_window = !strcmp(v, "boot");
	} else if (klen == 5 && !strncmp(arg, "pages", 5)) {
		if (strcmp(v, "4k") && strcmp(v, "large")) {
			fprintf(stderr, "kp_model: pages=%s: want 4k or large\n", v);
			return false;
		}
		kp.pages = !strcmp(v, "large") ? 1 : 0;
	} else if (klen == 7 && !strncmp(arg, "vmlinux", 7)) {
		return kp_vmlinux_load(&kp.vml, v);
	} else if (klen == 4 && !strncmp(arg, "geom", 4)) {
		return kp_sim_add_geom(&kp.sim, v);
	} else if (klen == 2 &&
		   (!strncmp(arg, "i1", 2) || !strncmp(arg, "d1", 2) || !strncmp(arg, "ll", 2))) {
		one[arg[0] == 'i' ? 0 : arg[0] == 'd' ? 1 : 2] = v;
	} else if (klen == 4 && (!strncmp(arg, "itlb", 4) || !strncmp(arg, "dtlb", 4))) {
		one[arg[0] == 'i' ? 3 : 4] = v;
	} else {
		int r = kp_timing_arg(&kp.tm, arg, klen, v);

		if (!r)
			fprintf(stderr, "kp_model: unknown argument '%s'\n", arg);
		return r > 0;
	}
	return true;
}

static bool kp_parse_args(int argc, char **argv)
{
	const char *one[5] = {NULL, NULL, NULL, NULL, NULL};
	bool single;
	int i;

	kp_timing_defaults(&kp.tm);
	for (i = 0; i < argc; i++)
		if (!kp_parse_arg(argv[i], one))
			return false;
	single = one[0] || one[1] || one[2] || one[3] || one[4];
	if (!kp.out) {
		fprintf(stderr, "kp_model: no out=PATH for the table\n");
		return false;
	}
	if (single && kp.sim.ngeom) {
		fprintf(stderr, "kp_model: give geom= or i1=/d1=/ll=/itlb=/dtlb=, not both\n");
		return false;
	}
	if (kp.mode != KP_INSNS && !kp.sim.ngeom && !kp_single_geom(one))
		return false;
	if (kp.mode == KP_INSNS && (kp.sim.ngeom || single)) {
		fprintf(stderr, "kp_model: cache and TLB geometries need mode=cache or timing\n");
		return false;
	}
	/* the kernel's large pages: the timing model's, unless pages=4k */
	kp.sim.large = kp.tm.large = kp.pages < 0 ? kp.mode == KP_TIMING : kp.pages;
	return kp.mode != KP_TIMING || kp_timing_init(&kp.tm, &kp.sim.geom[0]);
}

/* the D1 sets' recent lines, when sets can be told by virtual address */
static void kp_vmru_init(void)
{
	int g;

	kp.vmru_on = true;
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_cache *c = &kp.sim.geom[g].d1;

		kp.vmru[g] = g_new0(struct kp_vmru, c->set_mask + 1);
		if (c->line_bits + __builtin_ctzll(c->set_mask + 1) > KP_PAGE_BITS)
			kp.vmru_on = false;
	}
	kp.vmru0 = kp.vmru[0];
	kp.dmru0 = kp.sim.geom[0].dtlb.mru;
	kp.dtlb_sets = kp.sim.geom[0].dtlb.set_mask;
	kp.d1_bits = kp.sim.geom[0].d1.line_bits;
	kp.d1_sets = kp.sim.geom[0].d1.set_mask;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	kp.id = id;
	kp.hint = -1;
	kp.pages = -1;
	if (!kp_parse_args(argc, argv))
		return -1;
	/* the inline counters are plain adds: one vCPU, or they race */
	if (info->system_emulation && (info->system.smp_vcpus > 1 || info->system.max_vcpus > 1)) {
		fprintf(stderr, "kp_model: %d vCPUs (at most %d): exact counts need one (-smp 1)\n",
			info->system.smp_vcpus, info->system.max_vcpus);
		return -1;
	}
	kp_sim_init(&kp.sim);
	kp.tlb_gen = 1;
	kp_tlb_match();
	kp_vmru_init();
	/* whole host cache lines, so that a PC's hot fields share one */
	kp.pc_size = (sizeof(struct kp_pc) + kp.sim.ngeom * sizeof(struct kp_miss) +
		      (kp.mode == KP_TIMING ? sizeof(struct kp_cyc) : 0) + 63) &
		     ~(size_t)63;
	kp.by_pc = g_hash_table_new(g_int64_hash, g_int64_equal);
	kp.by_mark = g_hash_table_new(kp_mark_hash, kp_mark_equal);
	kp.chunks = g_ptr_array_new();
	kp.tbs = g_hash_table_new(kp_tb_hash, kp_tb_equal);
	if (kp.boot_window) {
		/* the window is open from reset, every block instrumented */
		kp.boot = KP_BOOT_ENTRY;
		kp.active = kp.full = true;
		kp.opened = 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, kp.full ? kp_trans_full : kp_trans_markers);
	qemu_plugin_register_atexit_cb(id, kp_atexit, NULL);
	return 0;
}

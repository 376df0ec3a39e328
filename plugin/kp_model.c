// SPDX-License-Identifier: GPL-2.0-only
/*
 * kp_model: kprotperf's machine model, a QEMU TCG plugin (plugin API 1,
 * QEMU 7.2).  A dumb, fast counter: per guest PC, the instructions executed
 * and, in mode=cache, the I1, D1 and LL misses of simulated caches fed by
 * every instruction fetch and every load and store.  It writes a raw table
 * of PCs at QEMU's normal exit; kprotperf does symbols and reports.
 *
 * What is counted is bracketed by the guest with two marker instructions
 * (multi-byte nops no compiler emits):
 *	start  nopw 0x4b505201(%rax,%rax,1)  66 0f 1f 84 00 01 52 50 4b
 *	stop   nopw 0x4b505202(%rax,%rax,1)  66 0f 1f 84 00 02 52 50 4b
 * Outside a window only the markers are instrumented, so the boot runs at
 * plain TCG speed.  A start marker resets the plugin (qemu_plugin_reset:
 * QEMU flushes its translations) and everything translated from then on is
 * instrumented: counting begins with the first translation block after the
 * marker's own, so a marker followed by a call or jump starts the window
 * exactly at its target.  A stop marker closes the window at once and, in
 * mode=insns, drops the instrumentation again (mode=cache keeps it: see
 * kp_stop; its later windows start right after the marker).  Windows add up; one still open at exit
 *is written as incomplete.  The caches keep their lines from one window to the next: they start
 *cold at the first.
 *
 * Instruction fetches have no physical address in API 1, only QEMU's host
 * address of the guest RAM, which is a constant offset from the physical
 * one (guest RAM is one block).  The guest tells the offset: after the start
 * marker, in a later block, it loads from the marker's own address; that
 * load's physical address and the marker's host address give the offset.
 * Until then fetches are simulated at host addresses.
 *
 * Arguments (comma-separated after -plugin FILE): mode=insns|cache,
 * out=PATH, geom=I1/D1/LL (each SIZE:ASSOC:LINE, repeatable: one access
 * stream through several cache geometries), or i1=, d1=, ll= for a single
 * geometry, count=insn|tb, qemu=VERSION (written to the header).
 */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "kp_cache.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#ifndef KP_QEMU_HEADER_VERSION
#define KP_QEMU_HEADER_VERSION "unknown"
#endif

#define KP_MARKER_LEN 9
#define KP_PAGE_BITS  12 /* x86's smallest page */
#define KP_PAGE_MASK  ((1u << KP_PAGE_BITS) - 1)
#define KP_CHUNK      4096 /* counters per allocation: their addresses are baked into code */
#define likely(x)     __builtin_expect(!!(x), 1)
#define unlikely(x)   __builtin_expect(!!(x), 0)

static const uint8_t kp_marker[2][KP_MARKER_LEN] = {
	{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x52, 0x50, 0x4b},
	{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x02, 0x52, 0x50, 0x4b},
};

enum kp_mode { KP_INSNS, KP_CACHE };
enum kp_count { KP_PER_INSN, KP_PER_TB };

/*
 * One guest PC.  insns is bumped by inline code QEMU generates, so it is
 * never reset: a window's count is insns at its end less base at its start.
 */
struct kp_pc {
	uint64_t pc;
	uint64_t insns;
	uint64_t base;
	uint64_t sum; /* closed windows */
	/*
	 * mode=cache: where the PC's instruction was first translated from, and
	 * its size: the fetch callback of a translation from there reads them
	 * here, on the host cache line the inline add is about to touch, rather
	 * than from a record of its own (a host cache miss per fetch).
	 */
	uint64_t haddr;
	uint32_t size;
	struct kp_miss miss[]; /* mode=cache: one per geometry, none else */
};

/*
 * count=tb: one translation block's entries, given to each of its PCs at
 * the end.  Not exact: a block left early (a fault, an I/O exit under
 * icount) still counts its later instructions.
 */
struct kp_tb {
	uint64_t entries, base, sum;
	size_t n;
	struct kp_pc *pcs[];
};

/*
 * An instruction fetch that may miss, the first of its line in a block, when
 * the PC's instruction also lies elsewhere (another process's copy at the
 * same address): its callback's udata has bit 0 set.
 */
struct kp_fetch {
	struct kp_pc *pc;
	uint64_t haddr;
	uint32_t size;
};

/* a marker instruction: what it does, and where (for the calibration) */
struct kp_mark {
	int stop;
	uint64_t vaddr, haddr;
};

/* All the plugin's state: QEMU's callbacks take no context but udata. */
struct kp_ctx {
	qemu_plugin_id_t id;
	enum kp_mode mode;
	enum kp_count count;
	char *out, *qemu_version;
	struct kp_sim sim; /* mode=cache: the geometries */

	GHashTable *by_pc;   /* guest PC -> struct kp_pc */
	GPtrArray *chunks;   /* of KP_CHUNK struct kp_pc, never moved */
	size_t pc_size;	     /* a struct kp_pc with its misses */
	size_t used;	     /* in the last chunk */
	GPtrArray *tbs;	     /* count=tb: every struct kp_tb */
	GHashTable *by_mark; /* a marker's vaddr and haddr -> struct kp_mark */

	bool active; /* a window is open */
	bool full;   /* every block is instrumented, not just the markers */
	unsigned int opened, closed, restarts, stray_stops;

	bool calib_pending, calibrated;
	uint64_t calib_vaddr, calib_haddr;
	uint64_t ioff; /* host address - physical address of guest RAM */
	/* the last data access's virtual and physical page */
	uint64_t last_vpage, last_ppage;
	uint64_t io_accesses, unresolved; /* data accesses skipped */
	uint64_t fetch_no_haddr;	  /* fetch sites QEMU gave no host address */
};

static struct kp_ctx kp;

static void kp_trans_markers(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void kp_trans_full(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void kp_atexit(qemu_plugin_id_t id, void *udata);

/* ---- counters ---- */

/* the i-th counter of chunk c, and how many chunk c has */
static struct kp_pc *kp_pc_nth(guint c, size_t i)
{
	return (struct kp_pc *)((char *)g_ptr_array_index(kp.chunks, c) + i * kp.pc_size);
}

static size_t kp_chunk_len(guint c)
{
	return c + 1 == kp.chunks->len ? kp.used : KP_CHUNK;
}

/* a PC's counters, with its misses beside them (one host cache line less) */
static struct kp_pc *kp_pc_get(uint64_t pc)
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

/* fn(counter, base, sum) over every inline counter there is */
static void kp_each_counter(void (*fn)(uint64_t *cnt, uint64_t *base, uint64_t *sum))
{
	guint c, i;

	for (c = 0; c < kp.chunks->len; c++) {
		for (i = 0; i < kp_chunk_len(c); i++) {
			struct kp_pc *p = kp_pc_nth(c, i);

			fn(&p->insns, &p->base, &p->sum);
		}
	}
	for (i = 0; kp.tbs && i < kp.tbs->len; i++) {
		struct kp_tb *t = g_ptr_array_index(kp.tbs, i);

		fn(&t->entries, &t->base, &t->sum);
	}
}

static void kp_snap_base(uint64_t *cnt, uint64_t *base, uint64_t *sum)
{
	*base = *cnt;
}

static void kp_close_sum(uint64_t *cnt, uint64_t *base, uint64_t *sum)
{
	*sum += *cnt - *base;
	*base = *cnt;
}

/* ---- run-time callbacks ---- */

static void kp_fetch_cb(unsigned int vcpu, void *udata)
{
	if (unlikely(!kp.active))
		return;
	if (likely(!((uintptr_t)udata & 1))) {
		struct kp_pc *p = udata;

		kp_sim_fetch(&kp.sim, p->miss, p->haddr - kp.ioff, p->size);
	} else {
		struct kp_fetch *f = (void *)((uintptr_t)udata - 1);

		kp_sim_fetch(&kp.sim, f->pc->miss, f->haddr - kp.ioff, f->size);
	}
}

/* the guest's calibration load: see the comment at the top */
static void kp_calibrate(uint64_t pa)
{
	kp.ioff = kp.calib_haddr - pa;
	kp_sim_forget_fetch(&kp.sim);
	kp.calib_pending = false;
	kp.calibrated = true;
}

static void kp_mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct kp_pc *p = udata;
	struct qemu_plugin_hwaddr *hw;
	unsigned int size = 1u << qemu_plugin_mem_size_shift(info);
	bool store = qemu_plugin_mem_is_store(info);
	uint64_t pa;

	if (unlikely(!kp.active))
		return;
	/*
	 * Within the page of the access just before: the same physical page,
	 * found without QEMU's lookups (which took a third of the time).  A
	 * mapping cannot change between two accesses: that takes a page-table
	 * or CR3 write and kernel accesses elsewhere in between, and kernel
	 * addresses map alike in every address space.
	 */
	if ((vaddr >> KP_PAGE_BITS) == kp.last_vpage &&
	    ((vaddr + size - 1) >> KP_PAGE_BITS) == kp.last_vpage && likely(!kp.calib_pending)) {
		kp_sim_data(&kp.sim, p->miss, kp.last_ppage | (vaddr & KP_PAGE_MASK), size, store);
		return;
	}
	kp.last_vpage = KP_NO_TAG;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (unlikely(!hw)) {
		kp.unresolved++;
		return;
	}
	/* device memory is not cached */
	if (unlikely(qemu_plugin_hwaddr_is_io(hw))) {
		kp.io_accesses++;
		return;
	}
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (unlikely(kp.calib_pending) && vaddr == kp.calib_vaddr)
		kp_calibrate(pa);
	kp_sim_data(&kp.sim, p->miss, pa, size, store);
	kp.last_vpage = vaddr >> KP_PAGE_BITS;
	kp.last_ppage = pa & ~(uint64_t)KP_PAGE_MASK;
}

/*
 * QEMU has flushed its translations (and dropped every callback): from here
 * on, instrument everything while a window is open, else the markers only.
 * Decided now, not when asked: a stop may follow a start before QEMU gets
 * to the reset, which it then does once.  mode=cache never goes back to the
 * markers only (see kp_stop).
 */
static void kp_reset_done(qemu_plugin_id_t id)
{
	kp.full = kp.active || kp.mode == KP_CACHE;
	qemu_plugin_register_vcpu_tb_trans_cb(id, kp.full ? kp_trans_full : kp_trans_markers);
	qemu_plugin_register_atexit_cb(id, kp_atexit, NULL);
}

/*
 * Until QEMU's reset the inline counters do not move (a closed window's
 * blocks are gone, or going, and the marker's own is not instrumented), so
 * the snapshot is taken here.
 */
static void kp_start(const struct kp_mark *m)
{
	if (kp.active) {
		kp.restarts++;
		return;
	}
	kp_each_counter(kp_snap_base);
	kp.active = true;
	kp.opened++;
	/* the accesses since the last window were not seen: no page is "last" */
	kp.last_vpage = KP_NO_TAG;
	kp.calib_pending = kp.mode == KP_CACHE;
	kp.calib_vaddr = m->vaddr;
	kp.calib_haddr = m->haddr;
	if (!kp.full)
		qemu_plugin_reset(kp.id, kp_reset_done);
}

/*
 * In mode=cache the blocks stay instrumented (their callbacks return at
 * once outside a window): QEMU 7.2 can leave its pointer to an
 * instruction's memory callbacks set when that instruction ends a block
 * in a helper (syscall, iret, ...), and a flush frees what it points to, so
 * the next interrupt's stack pushes would read freed memory (QEMU aborts in
 * qemu_plugin_vcpu_mem_cb).  The one flush before any memory callback
 * exists, at the first start, is safe.
 */
static void kp_stop(void)
{
	if (!kp.active) {
		kp.stray_stops++;
		return;
	}
	/* exact here, while the rest of this block still runs instrumented */
	kp_each_counter(kp_close_sum);
	kp.active = false;
	kp.closed++;
	if (kp.mode != KP_CACHE)
		qemu_plugin_reset(kp.id, kp_reset_done);
}

static void kp_marker_cb(unsigned int vcpu, void *udata)
{
	const struct kp_mark *m = udata;

	if (m->stop)
		kp_stop();
	else
		kp_start(m);
}

/* ---- translation ---- */

/* a marker's location, two 64-bit words, as a hash key */
static guint kp_mark_hash(gconstpointer k)
{
	const uint64_t *w = k;

	return g_int64_hash(&w[0]) ^ g_int64_hash(&w[1]);
}

static gboolean kp_mark_equal(gconstpointer a, gconstpointer b)
{
	return !memcmp(a, b, 2 * sizeof(uint64_t));
}

/* 0 start, 1 stop, -1 no marker */
static int kp_marker_kind(struct qemu_plugin_insn *insn)
{
	const uint8_t *b;

	if (qemu_plugin_insn_size(insn) != KP_MARKER_LEN)
		return -1;
	b = qemu_plugin_insn_data(insn);
	if (!memcmp(b, kp_marker[0], KP_MARKER_LEN))
		return 0;
	if (!memcmp(b, kp_marker[1], KP_MARKER_LEN))
		return 1;
	return -1;
}

/* true when insn was a marker (it gets the marker's callback and nothing else) */
static bool kp_instrument_marker(struct qemu_plugin_insn *insn)
{
	int kind = kp_marker_kind(insn);
	uint64_t key[2];
	struct kp_mark *m;

	if (kind < 0)
		return false;
	key[0] = qemu_plugin_insn_vaddr(insn);
	key[1] = (uintptr_t)qemu_plugin_insn_haddr(insn);
	/* one record per marker location, however often it is translated */
	m = g_hash_table_lookup(kp.by_mark, key);
	if (!m) {
		uint64_t *k = g_memdup2(key, sizeof(key));

		m = g_new0(struct kp_mark, 1);
		m->stop = kind;
		m->vaddr = key[0];
		m->haddr = key[1];
		g_hash_table_insert(kp.by_mark, k, m);
	}
	qemu_plugin_register_vcpu_insn_exec_cb(insn, kp_marker_cb, QEMU_PLUGIN_CB_NO_REGS, m);
	return true;
}

static void kp_trans_markers(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++)
		kp_instrument_marker(qemu_plugin_tb_get_insn(tb, i));
}

/*
 * The I1 callback an instruction needs: none when it lies within the line
 * the previous instruction of the block ended in, which is then the most
 * recently used line of its set (I1 sees fetches only), so the access hits
 * and changes nothing, in every geometry (their lines are no smaller).
 * Virtual lines, no larger than a page: within one, physical ones agree.
 */
static void kp_instrument_fetch(struct qemu_plugin_insn *insn, struct kp_pc *p, uint64_t *last_line)
{
	unsigned int bits = kp.sim.min_i1_bits < KP_PAGE_BITS ? kp.sim.min_i1_bits : KP_PAGE_BITS;
	uint64_t va = qemu_plugin_insn_vaddr(insn);
	size_t size = qemu_plugin_insn_size(insn);
	uint64_t first = va >> bits, end = (va + size - 1) >> bits;
	uintptr_t haddr = (uintptr_t)qemu_plugin_insn_haddr(insn);
	struct kp_fetch *f;
	void *udata = p;

	if (first == *last_line && end == *last_line)
		return;
	*last_line = end;
	if (!haddr) {
		kp.fetch_no_haddr++;
		return;
	}
	if (!p->haddr) {
		p->haddr = haddr;
		p->size = size;
	} else if (p->haddr != haddr) {
		f = g_new(struct kp_fetch, 1);
		f->pc = p;
		f->haddr = haddr;
		f->size = size;
		udata = (void *)((uintptr_t)f + 1);
	}
	qemu_plugin_register_vcpu_insn_exec_cb(insn, kp_fetch_cb, QEMU_PLUGIN_CB_NO_REGS, udata);
}

static void kp_trans_full(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint64_t last_line = UINT64_MAX;
	struct kp_tb *t = NULL;

	if (kp.count == KP_PER_TB) {
		t = g_malloc0(sizeof(*t) + n * sizeof(t->pcs[0]));
		g_ptr_array_add(kp.tbs, t);
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &t->entries, 1);
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct kp_pc *p;

		if (kp_instrument_marker(insn))
			continue;
		p = kp_pc_get(qemu_plugin_insn_vaddr(insn));
		if (t)
			t->pcs[t->n++] = p;
		else
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &p->insns, 1);
		if (kp.mode != KP_CACHE)
			continue;
		kp_instrument_fetch(insn, p, &last_line);
		qemu_plugin_register_vcpu_mem_cb(insn, kp_mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, p);
	}
}

/* ---- output ---- */

/* a PC's instructions over all windows, the open one included */
static uint64_t kp_pc_insns(const struct kp_pc *p)
{
	return p->sum + (kp.active ? p->insns - p->base : 0);
}

static bool kp_pc_empty(const struct kp_pc *p)
{
	int g;

	if (kp_pc_insns(p))
		return false;
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_miss *m = &p->miss[g];

		if (m->i1_miss || m->d1_read || m->d1_write || m->ll_miss)
			return false;
	}
	return true;
}

static gint kp_by_pc(gconstpointer a, gconstpointer b)
{
	const struct kp_pc *x = *(struct kp_pc *const *)a, *y = *(struct kp_pc *const *)b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* count=tb: each block's entries become its instructions' counts */
static void kp_tb_fold(void)
{
	guint i;
	size_t j;

	for (i = 0; kp.tbs && i < kp.tbs->len; i++) {
		struct kp_tb *t = g_ptr_array_index(kp.tbs, i);
		uint64_t n = t->sum + (kp.active ? t->entries - t->base : 0);

		for (j = 0; j < t->n; j++)
			t->pcs[j]->sum += n;
	}
}

static const char *kp_window(void)
{
	if (!kp.opened)
		return "none";
	return kp.active ? "incomplete" : "complete";
}

static void kp_write_header(FILE *f)
{
	int g;

	fprintf(f, "# kp_model 1\n# mode %s\n# count %s\n", kp.mode == KP_CACHE ? "cache" : "insns",
		kp.count == KP_PER_TB ? "tb" : "insn");
	fprintf(f, "# qemu %s\n# qemu_header %s\n# plugin_api %d\n",
		kp.qemu_version ? kp.qemu_version : "unknown", KP_QEMU_HEADER_VERSION,
		QEMU_PLUGIN_VERSION);
	fprintf(f, "# window %s\n# windows opened %u closed %u restarts %u stray_stops %u\n",
		kp_window(), kp.opened, kp.closed, kp.restarts, kp.stray_stops);
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_geom *k = &kp.sim.geom[g];

		fprintf(f,
			"# geom %d i1=%" PRIu64 ":%u:%" PRIu64 " d1=%" PRIu64 ":%u:%" PRIu64
			" ll=%" PRIu64 ":%u:%" PRIu64 "\n",
			g, k->i1.size, k->i1.assoc, k->i1.line, k->d1.size, k->d1.assoc, k->d1.line,
			k->ll.size, k->ll.assoc, k->ll.line);
	}
	if (kp.mode == KP_CACHE)
		fprintf(f,
			"# iaddr %s\n# io_accesses %" PRIu64 "\n# unresolved %" PRIu64
			"\n# fetch_sites_without_address %" PRIu64 "\n",
			kp.calibrated ? "physical" : "host", kp.io_accesses, kp.unresolved,
			kp.fetch_no_haddr);
	fputs("# columns pc insns", f);
	for (g = 0; g < kp.sim.ngeom; g++)
		fprintf(f,
			" i1_miss.%d d1_read.%d d1_read_miss.%d d1_write.%d d1_write_miss.%d ll_miss.%d",
			g, g, g, g, g, g);
	fputc('\n', f);
}

static void kp_write_row(FILE *f, const struct kp_pc *p)
{
	int g;

	fprintf(f, "0x%" PRIx64 " %" PRIu64, p->pc, kp_pc_insns(p));
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_miss *m = &p->miss[g];

		fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
			m->i1_miss, m->d1_read, m->d1_read_miss, m->d1_write, m->d1_write_miss,
			m->ll_miss);
	}
	fputc('\n', f);
}

/* every PC with a count, by address */
static GPtrArray *kp_rows(void)
{
	GPtrArray *rows = g_ptr_array_new();
	guint c;
	size_t i;

	for (c = 0; c < kp.chunks->len; c++) {
		for (i = 0; i < kp_chunk_len(c); i++) {
			struct kp_pc *p = kp_pc_nth(c, i);

			if (!kp_pc_empty(p))
				g_ptr_array_add(rows, p);
		}
	}
	g_ptr_array_sort(rows, kp_by_pc);
	return rows;
}

/* written to PATH.tmp, then renamed: a reader never sees half a table */
static void kp_atexit(qemu_plugin_id_t id, void *udata)
{
	g_autofree char *tmp = g_strdup_printf("%s.tmp", kp.out);
	GPtrArray *rows;
	FILE *f = fopen(tmp, "w");
	guint i;

	if (!f) {
		fprintf(stderr, "kp_model: cannot write %s: %s\n", tmp, strerror(errno));
		return;
	}
	kp_tb_fold();
	rows = kp_rows();
	kp_write_header(f);
	for (i = 0; i < rows->len; i++)
		kp_write_row(f, g_ptr_array_index(rows, i));
	g_ptr_array_free(rows, true);
	if (fclose(f) || rename(tmp, kp.out))
		fprintf(stderr, "kp_model: cannot write %s: %s\n", kp.out, strerror(errno));
}

/* ---- arguments ---- */

/* i1=, d1=, ll=: one geometry, cachegrind's usual defaults for the rest */
static bool kp_single_geom(const char *i1, const char *d1, const char *ll)
{
	g_autofree char *s = g_strdup_printf("%s/%s/%s", i1 ? i1 : "32768:8:64",
					     d1 ? d1 : "32768:8:64", ll ? ll : "8388608:16:64");

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
		if (strcmp(v, "insns") && strcmp(v, "cache")) {
			fprintf(stderr, "kp_model: mode=%s: want insns or cache\n", v);
			return false;
		}
		kp.mode = strcmp(v, "cache") ? KP_INSNS : KP_CACHE;
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
	} else if (klen == 4 && !strncmp(arg, "geom", 4)) {
		return kp_sim_add_geom(&kp.sim, v);
	} else if (klen == 2 &&
		   (!strncmp(arg, "i1", 2) || !strncmp(arg, "d1", 2) || !strncmp(arg, "ll", 2))) {
		one[arg[0] == 'i' ? 0 : arg[0] == 'd' ? 1 : 2] = v;
	} else {
		fprintf(stderr, "kp_model: unknown argument '%s'\n", arg);
		return false;
	}
	return true;
}

static bool kp_parse_args(int argc, char **argv)
{
	const char *one[3] = {NULL, NULL, NULL};
	int i;

	for (i = 0; i < argc; i++)
		if (!kp_parse_arg(argv[i], one))
			return false;
	if (!kp.out) {
		fprintf(stderr, "kp_model: no out=PATH for the table\n");
		return false;
	}
	if ((one[0] || one[1] || one[2]) && kp.sim.ngeom) {
		fprintf(stderr, "kp_model: give geom= or i1=/d1=/ll=, not both\n");
		return false;
	}
	if (kp.mode == KP_CACHE && !kp.sim.ngeom && !kp_single_geom(one[0], one[1], one[2]))
		return false;
	if (kp.mode != KP_CACHE && (kp.sim.ngeom || one[0] || one[1] || one[2])) {
		fprintf(stderr, "kp_model: cache geometries need mode=cache\n");
		return false;
	}
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	kp.id = id;
	if (!kp_parse_args(argc, argv))
		return -1;
	/* the inline counters are plain adds: one vCPU, or they race */
	if (info->system_emulation && (info->system.smp_vcpus > 1 || info->system.max_vcpus > 1)) {
		fprintf(stderr, "kp_model: %d vCPUs (at most %d): exact counts need one (-smp 1)\n",
			info->system.smp_vcpus, info->system.max_vcpus);
		return -1;
	}
	kp_sim_init(&kp.sim);
	kp.last_vpage = KP_NO_TAG;
	/* whole host cache lines, so that a PC's hot fields share one */
	kp.pc_size =
		(sizeof(struct kp_pc) + kp.sim.ngeom * sizeof(struct kp_miss) + 63) & ~(size_t)63;
	kp.by_pc = g_hash_table_new(g_int64_hash, g_int64_equal);
	kp.by_mark = g_hash_table_new(kp_mark_hash, kp_mark_equal);
	kp.chunks = g_ptr_array_new();
	if (kp.count == KP_PER_TB)
		kp.tbs = g_ptr_array_new();
	qemu_plugin_register_vcpu_tb_trans_cb(id, kp_trans_markers);
	qemu_plugin_register_atexit_cb(id, kp_atexit, NULL);
	return 0;
}

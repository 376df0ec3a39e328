// SPDX-License-Identifier: GPL-2.0-only
/* kp_model's output: the table of PCs, written at exit (kp_model.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_model.h"

static bool kp_pc_empty(const struct kp_pc *p)
{
	int g;

	if (p->sum || p->flushes)
		return false;
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_miss *m = &p->miss[g];

		if (m->i1_miss || m->d1_read || m->d1_write || m->ll_miss || m->itlb_miss ||
		    m->dtlb_miss)
			return false;
	}
	return true;
}

static gint kp_by_pc(gconstpointer a, gconstpointer b)
{
	const struct kp_pc *x = *(struct kp_pc *const *)a, *y = *(struct kp_pc *const *)b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/*
 * Each run's count, over all windows (the open one included), becomes that
 * of every instruction in it, and each memory site's accesses its PC's.
 * Once, at the end.
 */
static void kp_tb_fold(void)
{
	GHashTableIter it;
	gpointer key;
	uint32_t i;

	g_hash_table_iter_init(&it, kp.tbs);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		struct kp_tb *t = key;

		for (i = 0; i < t->n; i++) {
			const struct kp_insn *in = &t->insn[i];

			if (in->marker)
				continue;
			in->pc->sum += kp_run_count(t, in->run);
			if (in->tlbflush)
				in->pc->flushes += kp_run_count(t, in->run);
		}
		for (i = 0; i < t->nmem; i++) {
			struct kp_miss *m = t->ms[i].pc->miss;
			int g;

			for (g = 0; g < kp.sim.ngeom; g++) {
				m[g].d1_read += t->ms[i].rw[0];
				m[g].d1_write += t->ms[i].rw[1];
			}
		}
		if (kp.mode == KP_TIMING)
			kp_timing_fold(t->tblk);
	}
}

static const char *kp_window(void)
{
	if (!kp.opened)
		return "none";
	return kp.active ? "incomplete" : "complete";
}

/*
 * With vmlinux=: the kernel instructions that ran other bytes than the
 * image's, so that the data view decodes what ran (docs/model.md, "The
 * table").  '#' lines: a reader of format 2 before them skips them.
 */
static void kp_write_patched(FILE *f)
{
	GPtrArray *all = kp_vmlinux_patched(&kp.vml);
	guint i, k;

	fprintf(f, "# patched sites %u dropped %" PRIu64 "\n", all->len, kp.vml.dropped);
	for (i = 0; i < all->len; i++) {
		const struct kp_patched *p = g_ptr_array_index(all, i);

		fprintf(f, "# running 0x%" PRIx64 " ", p->pc);
		for (k = 0; k < p->len; k++)
			fprintf(f, "%02x", p->b[k]);
		fputc('\n', f);
	}
	g_ptr_array_free(all, true);
}

static void kp_write_header(FILE *f)
{
	int g;

	fprintf(f, "# kp_model 2\n# mode %s\n# count %s\n",
		kp.mode == KP_TIMING  ? "timing"
		: kp.mode == KP_CACHE ? "cache"
				      : "insns",
		kp.count == KP_PER_TB ? "tb" : "insn");
	fprintf(f, "# qemu %s\n# qemu_header %s\n# plugin_api %d\n",
		kp.qemu_version ? kp.qemu_version : "unknown", KP_QEMU_HEADER_VERSION,
		QEMU_PLUGIN_VERSION);
	fprintf(f, "# window %s\n# windows opened %u closed %u restarts %u stray_stops %u\n",
		kp_window(), kp.opened, kp.closed, kp.restarts, kp.stray_stops);
	/* the stages the boot reached, none at all when it never entered the kernel */
	if (kp.boot_window && kp.boot != KP_BOOT_ENTRY)
		fprintf(f, "# boot entry_insns %" PRIu64 "\n", kp.boot_entry);
	if (kp.boot_window && kp.boot == KP_BOOT_OFF)
		fprintf(f, "# boot first_user_insns %" PRIu64 "\n", kp.boot_first_user);
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_geom *k = &kp.sim.geom[g];

		fprintf(f,
			"# geom %d i1=%" PRIu64 ":%u:%" PRIu64 " d1=%" PRIu64 ":%u:%" PRIu64
			" ll=%" PRIu64 ":%u:%" PRIu64 "\n",
			g, k->i1.size, k->i1.assoc, k->i1.line, k->d1.size, k->d1.assoc, k->d1.line,
			k->ll.size, k->ll.assoc, k->ll.line);
		fprintf(f, "# tlb %d itlb=%" PRIu64 ":%u dtlb=%" PRIu64 ":%u\n", g, k->itlb.entries,
			k->itlb.assoc, k->dtlb.entries, k->dtlb.assoc);
	}
	fprintf(f, "# guest pti %s pcid %s\n",
		kp.hint < 0   ? "unknown"
		: kp.hint & 1 ? "1"
			      : "0",
		kp.hint < 0   ? "unknown"
		: kp.hint & 2 ? "1"
			      : "0");
	if (kp.mode != KP_INSNS)
		fprintf(f, "# pages %s\n", kp.sim.large ? "large" : "4k");
	if (kp.mode != KP_INSNS)
		fprintf(f,
			"# iaddr %s\n# io_accesses %" PRIu64 "\n# unresolved %" PRIu64
			"\n# fetch_sites_without_address %" PRIu64 "\n",
			kp.calibrated ? "physical" : "host", kp.io_accesses, kp.unresolved,
			kp.fetch_no_haddr);
	if (kp.mode == KP_TIMING)
		kp_timing_header(f, &kp.tm);
	if (kp.vml.patched)
		kp_write_patched(f);
	/* vmlinux= names the string helpers: their accesses per call site */
	if (kp.mode != KP_INSNS && kp.vml.nstr)
		kp_strsite_write(f);
	fputs("# columns pc insns ev flushes", f);
	for (g = 0; g < kp.sim.ngeom; g++)
		fprintf(f,
			" i1_miss.%d d1_read.%d d1_read_miss.%d d1_write.%d d1_write_miss.%d ll_miss.%d"
			" itlb_miss.%d dtlb_miss.%d",
			g, g, g, g, g, g, g, g);
	if (kp.mode == KP_TIMING)
		fputs(" cycles cyc_base cyc_branch cyc_icache cyc_dcache cyc_tlb cyc_serialize", f);
	fputc('\n', f);
}

static void kp_write_row(FILE *f, const struct kp_pc *p)
{
	int g;

	fprintf(f, "0x%" PRIx64 " %" PRIu64 " %s %" PRIu64, p->pc, p->sum, kp_ev_names[p->ev],
		p->flushes);
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_miss *m = &p->miss[g];

		fprintf(f,
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64,
			m->i1_miss, m->d1_read, m->d1_read_miss, m->d1_write, m->d1_write_miss,
			m->ll_miss, m->itlb_miss, m->dtlb_miss);
	}
	if (kp.mode == KP_TIMING)
		kp_timing_row(f, &kp.tm, kp_pc_cyc((struct kp_pc *)p), p->sum);
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
void kp_atexit(qemu_plugin_id_t id, void *udata)
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

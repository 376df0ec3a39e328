// SPDX-License-Identifier: GPL-2.0-only
/* The string helpers' accesses per call site (kp_strsite.h). */
#include "kp_strsite.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kp_model.h"

/*
 * what the callbacks of one instruction need: its PC, its function (a call's: the one it calls)
 * and, for a call, the function followed that holds it
 */
struct kp_strinsn {
	uint64_t pc;
	int fn, from;
};

/* a rep string instruction's accesses for one call site */
struct kp_strcount {
	uint64_t pc, site; /* site 0: not known */
	uint64_t alloc;	   /* the slab allocator's call that made site's, 0: none */
	uint64_t rw[2];	   /* reads, writes */
};

static guint kp_pair_hash(gconstpointer k)
{
	const struct kp_strcount *c = k;

	return (guint)(c->pc ^ (c->site ^ c->alloc) * 0x9e3779b97f4a7c15ull >> 32);
}

static gboolean kp_pair_equal(gconstpointer a, gconstpointer b)
{
	const struct kp_strcount *x = a, *y = b;

	return x->pc == y->pc && x->site == y->site && x->alloc == y->alloc;
}

/* a direct call into a string function: udata its struct kp_strinsn, vaddr its push's */
static void kp_str_call_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			   void *udata)
{
	const struct kp_strinsn *in = udata;

	kp_shadow_call(&kp.strs.sh, in->pc, vaddr, in->fn, in->from);
}

/* a ret of a string function or a return thunk: vaddr its load's */
static void kp_str_ret_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			  void *udata)
{
	kp_shadow_ret(&kp.strs.sh, vaddr);
}

/* one access of a rep string instruction: udata its struct kp_strinsn */
static void kp_str_mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			  void *udata)
{
	const struct kp_strinsn *in = udata;
	struct kp_strsites *s = &kp.strs;
	struct kp_strcount key, *c = s->last;

	if (unlikely(!kp.active))
		return;
	key = (struct kp_strcount){.pc = in->pc,
				   .site = kp_shadow_site(&s->sh, in->fn),
				   .alloc = kp_shadow_alloc(&s->sh, in->fn)};
	if (!c || c->pc != key.pc || c->site != key.site || c->alloc != key.alloc) {
		c = g_hash_table_lookup(s->pairs, &key);
		if (!c && g_hash_table_size(s->pairs) >= KP_SITES_MAX) {
			s->dropped++;
			return;
		}
		if (!c) {
			c = g_memdup2(&key, sizeof(key));
			g_hash_table_add(s->pairs, c);
		}
		s->last = c;
	}
	c->rw[qemu_plugin_mem_is_store(info)]++;
}

/* the struct kp_strinsn of the instruction at pc, made once (a block translated again reuses it) */
static struct kp_strinsn *kp_strinsn_get(uint64_t pc, int fn, int from)
{
	struct kp_strsites *s = &kp.strs;
	struct kp_strinsn *in;

	if (!s->insns) {
		s->insns = g_hash_table_new(g_int64_hash, g_int64_equal);
		s->pairs = g_hash_table_new(kp_pair_hash, kp_pair_equal);
	}
	in = g_hash_table_lookup(s->insns, &pc);
	if (!in) {
		in = g_new(struct kp_strinsn, 1);
		*in = (struct kp_strinsn){pc, fn, from};
		g_hash_table_insert(s->insns, &in->pc, in);
	}
	return in;
}

void kp_strsite_instrument(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);
	uint64_t va = qemu_plugin_insn_vaddr(insn), to;
	int fn = kp_vmlinux_strfn(&kp.vml, va), tfn;
	bool call;

	if (va < KP_KERNEL_START || !kp.vml.nstr)
		return;
	to = kp_shadow_branch(b, n, va, &call);
	tfn = to ? kp_vmlinux_strfn(&kp.vml, to) : -1;
	/* an entry: the call into it is followed, a jump to it from another lets it take the call
	 */
	if (tfn >= 0 && !kp.vml.str[tfn].thunk && kp.vml.str[tfn].start == to) {
		/* set before any call into it runs, so before any call it makes */
		if (kp.vml.str[tfn].alloc && tfn < KP_SHADOW_FN)
			kp.strs.sh.allocs |= 1ull << tfn;
		if (call)
			qemu_plugin_register_vcpu_mem_cb(insn, kp_str_call_cb,
							 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W,
							 kp_strinsn_get(va, tfn, fn));
		else if (fn >= 0)
			kp_shadow_jump(&kp.strs.sh, fn, tfn);
	}
	if (fn >= 0 && kp_shadow_is_ret(b, n))
		qemu_plugin_register_vcpu_mem_cb(insn, kp_str_ret_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_R, NULL);
	if (fn >= 0 && !kp.vml.str[fn].thunk && !kp.vml.str[fn].alloc &&
	    kp_shadow_is_rep_string(b, n))
		qemu_plugin_register_vcpu_mem_cb(insn, kp_str_mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, kp_strinsn_get(va, fn, -1));
}

static gint kp_pair_cmp(gconstpointer a, gconstpointer b)
{
	const struct kp_strcount *x = *(struct kp_strcount *const *)a;
	const struct kp_strcount *y = *(struct kp_strcount *const *)b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->alloc < y->alloc ? -1 : x->alloc > y->alloc;
}

void kp_strsite_write(FILE *f)
{
	GPtrArray *all = g_ptr_array_new();
	GHashTableIter it;
	gpointer key;
	guint i;

	if (kp.strs.pairs) {
		g_hash_table_iter_init(&it, kp.strs.pairs);
		while (g_hash_table_iter_next(&it, &key, NULL))
			g_ptr_array_add(all, key);
	}
	g_ptr_array_sort(all, kp_pair_cmp);
	fprintf(f, "# callsites 2 lines %u dropped %" PRIu64 "\n", all->len, kp.strs.dropped);
	for (i = 0; i < all->len; i++) {
		const struct kp_strcount *c = g_ptr_array_index(all, i);

		fprintf(f,
			"# callsite 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %" PRIu64
			"\n",
			c->pc, c->site, c->alloc, c->rw[0], c->rw[1]);
	}
	g_ptr_array_free(all, true);
}

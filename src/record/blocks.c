// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --blocks: each --blocks function (blocks_resolve.c: a function of
 * its own, or each inline instance of one inlined into all its callers)
 * gets a kprobe at every block head whose cookie names function and block.
 * A function's calls end at a kretprobe, an inline instance's at probes
 * where control leaves it.  Block heads inside a function take one
 * perf-event kprobe each (kprobe.multi attaches at function entries only,
 * fprobe); where the kernel has kprobe.multi, the functions' entry blocks
 * and returns take one link each, as --func's do.  What the probes count is
 * written by blocks_save.c.
 */
#include "record/blocks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "blocks.skel.h"
#include "kprotperf.h"
#include "record.skel.h"

#include "analysis/cfg.h"
#include "analysis/loopbound.h"
#include "record/blocks_func.h"
#include "record/links.h"
#include "symbols/debuginfo.h"

static int reuse(struct bpf_map *dst, const struct bpf_map *src)
{
	return bpf_map__reuse_fd(dst, bpf_map__fd(src));
}

static struct blocks_bpf *open_obj(const struct blocks *b, struct record_bpf *rec, bool multi)
{
	struct blocks_bpf *o = blocks_bpf__open();
	int err;

	if (!o)
		return NULL;
	o->rodata->filter_tree = rec->rodata->filter_tree;
	o->rodata->lazy_threads = rec->rodata->lazy_threads;
	o->rodata->sys_bits = rec->rodata->sys_bits;
	o->rodata->func_stacks = b->stacks;
	bpf_program__set_autoload(o->progs.kp_block_multi, multi);
	bpf_program__set_autoload(o->progs.kp_block_ret_multi, multi);
	err = reuse(o->maps.tree, rec->maps.tree) ?: reuse(o->maps.systab, rec->maps.systab);
	err = err ?: reuse(o->maps.threads, rec->maps.threads);
	err = err ?: reuse(o->maps.counters, rec->maps.counters);
	err = err ?: reuse(o->maps.events, rec->maps.events);
	err = err ?: reuse(o->maps.stacks_sent, rec->maps.stacks_sent);
	err = err ?: blocks_bpf__load(o);
	if (err) {
		blocks_bpf__destroy(o);
		errno = -err;
		return NULL;
	}
	return o;
}

/* The programs, with the kprobe.multi pair when the kernel can load it. */
static int load(struct blocks *b, struct record_bpf *rec, bool *multi)
{
	*multi = true;
	b->obj = open_obj(b, rec, true);
	if (!b->obj) {
		*multi = false;
		b->obj = open_obj(b, rec, false);
	}
	return b->obj ? 0 : -errno;
}

/* The in-place exit at addr, if it is f's block k's head: the block's probe ends the call. */
static const struct bexit *exit_at_head(const struct bfunc *f, size_t k)
{
	size_t i;

	for (i = 0; i < f->nexits; i++) {
		if (f->exits[i].addr == f->g->b[k].start && f->exits[i].e.kind != KP_BLK_SIDE_ENTRY)
			return &f->exits[i];
	}
	return NULL;
}

/* Whether addr is a block head of f: an exit there is its block probe's. */
static bool head_at(const struct bfunc *f, __u64 addr)
{
	int k = cfg_block_at(f->g, addr);

	return k >= 0 && f->g->b[k].start == addr;
}

static struct kp_blk_info block_info(const struct bfunc *f, size_t k)
{
	const struct cfg *g = f->g;
	const struct bexit *x = exit_at_head(f, k);
	struct kp_blk_info v = {.insns = g->b[k].ninsn,
				.loop = KP_BLK_NO_LOOP,
				.bound = KP_BLK_NO_LOOP,
				.entry = (int)k == g->entry,
				.used = 1};
	size_t l;

	for (l = 0; l < g->nloops && l < KP_BLK_LOOPS; l++)
		if (g->loops[l].head == (int)k && !g->loops[l].irreducible)
			v.loop = l;
	for (l = 0; l < f->nlb; l++)
		if (f->lb[l].block == (int)k && f->lb[l].loop < KP_BLK_LOOPS)
			v.bound = f->lb[l].loop;
	if (x) {
		v.exit = x->e.kind;
		v.cc = x->e.cc;
	}
	return v;
}

static int put(struct bpf_map *m, __u32 key, const void *v)
{
	return bpf_map_update_elem(bpf_map__fd(m), &key, v, BPF_ANY) ? -errno : 0;
}

/* What each probe does: its block, exit or side entry, its function's fetch programs. */
static int fill_func(const struct blocks *b, size_t i)
{
	const struct bfunc *f = &b->f[i];
	struct kp_blk_func fn = {.cache = f->cache,
				 .nloops =
					 f->g->nloops < KP_BLK_LOOPS ? f->g->nloops : KP_BLK_LOOPS,
				 .inl = f->inl};
	struct kp_blk_info v;
	size_t k;
	int err = put(b->obj->maps.bfuncs, i, &fn);

	for (k = 0; k < f->g->nb && !err; k++) {
		v = block_info(f, k);
		err = put(b->obj->maps.binfo, i * KP_BLK_MAX + k, &v);
	}
	for (k = 0; k < f->nexits && !err; k++)
		err = put(b->obj->maps.bexits, i * KP_BLK_EXITS + k, &f->exits[k].e);
	for (k = 0; k < f->nlb && !err; k++)
		if (f->lb[k].loop < KP_BLK_LOOPS)
			err = put(b->obj->maps.bbounds, i * KP_BLK_LOOPS + f->lb[k].loop,
				  &f->lb[k].fetch);
	return err;
}

/* A kprobe at addr (a kretprobe at the function when ret) with cookie. */
static int probe(struct blocks *b, __u64 addr, __u64 cookie, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = cookie, .offset = addr, .retprobe = ret);
	struct bpf_program *p = ret ? b->obj->progs.kp_block_ret : b->obj->progs.kp_block;

	return links_add(&b->links, bpf_program__attach_kprobe_opts(p, NULL, &opts));
}

/* Note a block the kernel would not probe, in f->unprobed. */
static void unprobed(struct bfunc *f, size_t k, int err)
{
	size_t n = strlen(f->unprobed);

	if (n < sizeof(f->unprobed) - 1)
		snprintf(f->unprobed + n, sizeof(f->unprobed) - n, "%sblock %zu at 0x%llx: %s",
			 n ? "; " : "", k, (unsigned long long)f->g->b[k].start,
			 err == -EINVAL ? "refused (a BUG or WARN ud2, a jump-label or static-call "
					  "site)"
					: strerror(-err));
}

/* Block heads (the entry's unless multi has it) and an instance's exits and side entries. */
static int attach_blocks(struct blocks *b, size_t i, bool entry, char *why, size_t len)
{
	struct bfunc *f = &b->f[i];
	size_t k;
	int err;

	for (k = 0; k < f->g->nb; k++) {
		if ((int)k == f->g->entry && !entry) {
			f->probed[k] = true;
			continue;
		}
		err = probe(b, f->g->b[k].start, KP_BLK_COOKIE(i, k), false);
		if (err && (int)k == f->g->entry) {
			snprintf(why, len,
				 "--blocks %s: the kernel refuses a kprobe at its entry: %s",
				 f->name, strerror(-err));
			return err;
		}
		if (err)
			unprobed(f, k, err);
		f->probed[k] = !err;
	}
	for (k = 0; k < f->nexits; k++) {
		if (f->exits[k].e.kind != KP_BLK_SIDE_ENTRY && head_at(f, f->exits[k].addr))
			continue;
		err = probe(b, f->exits[k].addr, KP_BLK_COOKIE(i, KP_BLK_EXIT_PROBE | k), false);
		/* a jump-label site: where it leads now (a flip of its key makes it a lost exit) */
		if (err == -EINVAL && f->exits[k].alt)
			err = probe(b, f->exits[k].alt, KP_BLK_COOKIE(i, KP_BLK_EXIT_PROBE | k),
				    false);
		if (err) {
			snprintf(why, len,
				 "--blocks %s: the kernel refuses a kprobe at 0x%llx, where a call "
				 "of it %s: %s",
				 f->name, (unsigned long long)f->exits[k].addr,
				 f->exits[k].e.kind == KP_BLK_SIDE_ENTRY ? "may begin" : "ends",
				 strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The functions' entry blocks and returns, as one kprobe.multi link each. */
static int attach_multi(struct blocks *b)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	unsigned long addrs[KP_BLK_FUNCS];
	__u64 entries[KP_BLK_FUNCS], rets[KP_BLK_FUNCS];
	size_t i, n = 0;
	int err;

	for (i = 0; i < b->n; i++) {
		if (b->f[i].inl)
			continue;
		addrs[n] = b->f[i].addr;
		entries[n] = KP_BLK_COOKIE(i, b->f[i].g->entry);
		rets[n++] = i;
	}
	if (!n)
		return 0;
	opts.addrs = addrs;
	opts.cookies = entries;
	opts.cnt = n;
	err = links_add(&b->links, bpf_program__attach_kprobe_multi_opts(
					   b->obj->progs.kp_block_multi, NULL, &opts));
	if (err)
		return err;
	opts.cookies = rets;
	opts.retprobe = true;
	return links_add(&b->links, bpf_program__attach_kprobe_multi_opts(
					    b->obj->progs.kp_block_ret_multi, NULL, &opts));
}

static int attach_all(struct blocks *b, bool multi, char *why, size_t len)
{
	size_t i;
	int err = 0;

	if (multi && attach_multi(b)) {
		/* drop a half-made multi attachment: single kprobes instead */
		links_cut(&b->links, 0);
		multi = false;
	}
	b->multi = multi;
	for (i = 0; i < b->n && !err; i++) {
		err = attach_blocks(b, i, b->f[i].inl || !multi, why, len);
		if (!err && !b->f[i].inl && !multi) {
			err = probe(b, b->f[i].addr, i, true);
			if (err)
				snprintf(why, len,
					 "--blocks %s: the kernel refuses a kretprobe on it: %s",
					 b->f[i].name, strerror(-err));
		}
	}
	return err;
}

static void make_note(struct blocks *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->n && n < sizeof(b->note); i++)
		if (b->f[i].unprobed[0])
			n += snprintf(b->note + n, sizeof(b->note) - n,
				      "%s--blocks %s: blocks left unprobed, their counts derived "
				      "from their neighbours' where the flow allows: %s",
				      n ? "\n" : "note: ", b->f[i].name, b->f[i].unprobed);
	if (!b->di && n < sizeof(b->note))
		snprintf(b->note + n, sizeof(b->note) - n,
			 "%s--blocks: loop bounds are named by register: no debug info for this "
			 "kernel (install linux-image-RELEASE-dbg or pass --vmlinux)",
			 n ? "\n" : "note: ");
}

int blocks_attach(struct blocks **out, const struct blocks_opts *o, const struct ksyms *ks,
		  struct record_bpf *rec, char *why, size_t len)
{
	struct blocks *b;
	bool multi;
	size_t i;
	int err;

	if (!links_kprobes_available()) {
		snprintf(why, len,
			 "--blocks %s: this kernel has no kprobes (CONFIG_KPROBES not set), and "
			 "a probe at each basic block needs them; record --blocks on a kernel "
			 "with kprobes (sampling and --func work without)",
			 o->funcs[0]);
		return -EOPNOTSUPP;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->ks = ks;
	b->stacks = o->stacks;
	err = blocks_resolve(b, o, why, len);
	if (!err) {
		err = load(b, rec, &multi);
		for (i = 0; i < b->n && !err; i++)
			err = fill_func(b, i);
		if (err)
			snprintf(why, len, "--blocks: loading its BPF programs: %s",
				 strerror(-err));
	}
	err = err ?: attach_all(b, multi, why, len);
	if (err) {
		blocks_free(b);
		return err;
	}
	make_note(b);
	*out = b;
	return 0;
}

void blocks_detach(struct blocks *b)
{
	if (!b || !b->links.n)
		return;
	/* the kernel's misses live in the links: read them before they go */
	b->missed_err = links_kprobe_missed(&b->links, &b->missed);
	links_cut(&b->links, 0);
}

struct bpf_object *blocks_object(const struct blocks *b)
{
	return b ? b->obj->obj : NULL;
}

const char *blocks_attach_method(const struct blocks *b)
{
	return b->multi ? "kprobe.multi" : "kprobe";
}

const char *blocks_note(const struct blocks *b)
{
	return b && b->note[0] ? b->note : NULL;
}

void blocks_free(struct blocks *b)
{
	size_t i;

	if (!b)
		return;
	blocks_detach(b);
	blocks_bpf__destroy(b->obj);
	for (i = 0; i < b->n; i++)
		blocks_resolve_free(&b->f[i]);
	debuginfo_close(b->di);
	free(b->last);
	links_free(&b->links);
	free(b);
}

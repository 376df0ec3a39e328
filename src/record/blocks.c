// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --blocks: each function's running text (blocks_text.h) becomes a
 * control-flow graph (symbols/cfg.h) whose block heads each get a kprobe
 * whose cookie names function and block; a kretprobe closes each call.  At
 * the end the block counts give the edge counts by flow conservation and
 * the loops' entries and iterations, and the per-call values their
 * distributions.  kprobe.multi attaches at function entries only (fprobe),
 * so block heads inside a function take one perf-event kprobe each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "blocks.skel.h"
#include "blocks_layout.h"
#include "record.skel.h"

#include "data/blocks_tables.h"
#include "data/recording.h"
#include "record/blocks.h"
#include "record/blocks_text.h"
#include "record/collect.h"
#include "record/links.h"
#include "symbols/cfg.h"
#include "symbols/ksyms.h"
#include "util/array.h"
#include "util/funcname.h"

/* text read at most: a function this long is no function to probe block by block */
#define MAX_SIZE (64 << 10)

struct bfunc {
	char name[128];
	__u64 addr, size;
	__u8 *code;
	struct cfg *g;
	bool *probed;
	bool cache; /* first argument a struct kmem_cache * */
	char unprobed[512];
};

struct blocks {
	struct bfunc f[KP_BLK_FUNCS];
	size_t n;
	const struct ksyms *ks;
	struct blocks_bpf *obj;
	struct links links;
	char note[1024];
};

static const char *const edge_kinds[] = {
	[CFG_EDGE_ENTRY] = "entry",	    [CFG_EDGE_FALL] = "fall",
	[CFG_EDGE_JUMP] = "jump",	    [CFG_EDGE_TAKEN] = "taken",
	[CFG_EDGE_NOT_TAKEN] = "not_taken", [CFG_EDGE_RETURN] = "return",
	[CFG_EDGE_TAIL] = "tail",	    [CFG_EDGE_INDIRECT] = "indirect",
	[CFG_EDGE_NORETURN] = "noreturn",   [CFG_EDGE_TRAP] = "trap",
};

/* What a call or a jump out of the text goes to, by the kallsyms name at that address. */
static enum cfg_callee callee(void *arg, __u64 addr)
{
	const struct ksym *s = ksyms_lookup(arg, addr);

	if (!s || s->addr != addr)
		return CFG_CALLEE_FUNC;
	if (!strcmp(s->name, "__x86_return_thunk"))
		return CFG_CALLEE_RETURN;
	if (!strncmp(s->name, "__x86_indirect_thunk_", 21) ||
	    !strncmp(s->name, "__x86_indirect_jump_thunk_", 26))
		return CFG_CALLEE_INDIRECT;
	return cfg_noreturn_name(s->name) ? CFG_CALLEE_NORETURN : CFG_CALLEE_FUNC;
}

/* The vmlinux symbol named name, or its only compiler clone (name.isra.0, ...). */
static const struct ksym *find_symbol(const struct ksyms *ks, const char *name)
{
	const struct ksym *s = ksyms_by_name(ks, name), *found = NULL;
	size_t i, len = strlen(name);

	if (s && !*s->module)
		return s;
	for (i = 0; (s = ksyms_at(ks, i)); i++) {
		if (*s->module || strncmp(s->name, name, len) || s->name[len] != '.' ||
		    funcname_clone_base_len(s->name) != len)
			continue;
		if (found && found->addr != s->addr)
			return NULL;
		found = s;
	}
	return found;
}

/* Where the next symbol after addr starts: the function's end. */
static __u64 next_symbol(const struct ksyms *ks, __u64 addr)
{
	const struct ksym *s;
	size_t lo = 0, hi = 0, mid;

	while (ksyms_at(ks, hi))
		hi++;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ksyms_at(ks, mid)->addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = ksyms_at(ks, lo);
	return s ? s->addr : 0;
}

static int resolve(struct bfunc *f, const char *name, const struct ksyms *ks, char *why, size_t len)
{
	const struct ksym *s = find_symbol(ks, name);
	__u64 end;

	if (!s) {
		snprintf(why, len,
			 "--blocks %s: no function of that name in /proc/kallsyms: it is inlined "
			 "into all its callers on this kernel, or absent; pass a function it is "
			 "inlined into (record --func %s --vmlinux VMLINUX names them in its "
			 "inlines table)",
			 name, name);
		return -ENOENT;
	}
	end = next_symbol(ks, s->addr);
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->addr = s->addr;
	f->size = end > s->addr ? end - s->addr : 0;
	if (!f->size || f->size > MAX_SIZE) {
		snprintf(why, len,
			 "--blocks %s: its size is unknown or above %d KiB (no symbol after it "
			 "in /proc/kallsyms within reach); pick a smaller function",
			 name, MAX_SIZE >> 10);
		return -E2BIG;
	}
	return 0;
}

static int read_text(struct bfunc *f, const struct blocks_opts *o, const struct ksyms *ks,
		     char *why, size_t len)
{
	const struct ksym *stext = ksyms_by_name(ks, "_stext");
	int err, verr = 0;

	f->code = malloc(f->size);
	if (!f->code)
		return -ENOMEM;
	err = blocks_text_kcore("/proc/kcore", f->addr, f->code, f->size);
	if (err && o->vmlinux && stext)
		verr = blocks_text_vmlinux(o->vmlinux, stext->addr, f->addr, f->code, f->size);
	if (!err || (o->vmlinux && stext && !verr))
		return 0;
	if (o->vmlinux)
		snprintf(why, len, "--blocks %s: cannot read its text: /proc/kcore: %s; %s: %s",
			 f->name, strerror(-err), o->vmlinux,
			 verr == -ENOEXEC ? "not a vmlinux with a symbol table" : strerror(-verr));
	else
		snprintf(why, len,
			 "--blocks %s: cannot read its text from /proc/kcore: %s; pass the "
			 "kernel's file with --vmlinux PATH",
			 f->name, strerror(-err));
	return err;
}

static int build(struct bfunc *f, const struct ksyms *ks, unsigned int limit, char *why, size_t len)
{
	struct cfg_text text = {f->addr, f->code, f->size};
	struct cfg_env env = {.callee = callee, .arg = (void *)ks};
	char w[256] = "";
	int err = cfg_build(&text, 1, &env, &f->g, w, sizeof(w));

	if (err) {
		snprintf(why, len, "--blocks %s: cannot disassemble it: %s", f->name,
			 w[0] ? w : strerror(-err));
		return err;
	}
	if (f->g->nb > limit) {
		snprintf(why, len,
			 "--blocks %s: %zu basic blocks, more than the %u probes --blocks-limit "
			 "allows; raise --blocks-limit (at most %d) or pick an inline part of it",
			 f->name, f->g->nb, limit, KP_BLK_MAX);
		return -E2BIG;
	}
	/* a call begins at the entry block's probe: nothing else may reach it */
	if (f->g->b[f->g->entry].npred != 1) {
		snprintf(why, len,
			 "--blocks %s: its entry block is also reached from inside it, so its "
			 "probe cannot tell a call from a loop",
			 f->name);
		return -EINVAL;
	}
	f->probed = calloc(f->g->nb, sizeof(*f->probed));
	return f->probed ? 0 : -ENOMEM;
}

static const struct btf_type *resolved(const struct btf *btf, __u32 id)
{
	int r = btf__resolve_type(btf, id);

	return r < 0 ? NULL : btf__type_by_id(btf, r);
}

/* Whether the function's first argument is a struct kmem_cache *, from its BTF. */
static bool arg0_cache(const struct btf *btf, const char *name)
{
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
	const struct btf_type *fn, *proto, *arg;

	fn = id < 0 ? NULL : btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_vlen(proto))
		return false;
	arg = resolved(btf, btf_params(proto)[0].type);
	if (!arg || !btf_is_ptr(arg))
		return false;
	arg = resolved(btf, arg->type);
	return arg && btf_is_struct(arg) &&
	       !strcmp(btf__name_by_offset(btf, arg->name_off), "kmem_cache");
}

static int reuse(struct bpf_map *dst, const struct bpf_map *src)
{
	return bpf_map__reuse_fd(dst, bpf_map__fd(src));
}

static int load(struct blocks *b, struct record_bpf *rec)
{
	struct blocks_bpf *o = blocks_bpf__open();
	size_t i;
	int err;

	if (!o)
		return -errno;
	b->obj = o;
	o->rodata->filter_tree = rec->rodata->filter_tree;
	o->rodata->lazy_threads = rec->rodata->lazy_threads;
	o->rodata->sys_bits = rec->rodata->sys_bits;
	for (i = 0; i < b->n; i++) {
		((bool *)o->rodata->arg0_cache)[i] = b->f[i].cache;
		((__u32 *)o->rodata->nloops)[i] =
			b->f[i].g->nloops < KP_BLK_LOOPS ? b->f[i].g->nloops : KP_BLK_LOOPS;
	}
	err = reuse(o->maps.tree, rec->maps.tree) ?: reuse(o->maps.systab, rec->maps.systab);
	err = err ?: reuse(o->maps.threads, rec->maps.threads);
	err = err ?: reuse(o->maps.counters, rec->maps.counters);
	err = err ?: reuse(o->maps.events, rec->maps.events);
	err = err ?: reuse(o->maps.stacks_sent, rec->maps.stacks_sent);
	return err ?: blocks_bpf__load(o);
}

/* What each block's probe does. */
static int fill_info(const struct blocks *b)
{
	int fd = bpf_map__fd(b->obj->maps.binfo), err = 0;
	const struct cfg *g;
	size_t i, k, l;
	__u32 key;

	for (i = 0; i < b->n && !err; i++) {
		g = b->f[i].g;
		for (k = 0; k < g->nb && !err; k++) {
			struct kp_blk_info v = {.insns = g->b[k].ninsn,
						.loop = KP_BLK_NO_LOOP,
						.entry = (int)k == g->entry,
						.used = 1};

			for (l = 0; l < g->nloops && l < KP_BLK_LOOPS; l++)
				if (g->loops[l].head == (int)k && !g->loops[l].irreducible)
					v.loop = l;
			key = i * KP_BLK_MAX + k;
			err = bpf_map_update_elem(fd, &key, &v, BPF_ANY) ? -errno : 0;
		}
	}
	return err;
}

static int add_link(struct blocks *b, struct bpf_link *l)
{
	return links_add(&b->links, l);
}

/* A kprobe at addr (a kretprobe at the function when ret) with cookie. */
static int probe(struct blocks *b, __u64 addr, __u64 cookie, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = cookie, .offset = addr, .retprobe = ret);
	struct bpf_program *p = ret ? b->obj->progs.kp_block_ret : b->obj->progs.kp_block;

	return add_link(b, bpf_program__attach_kprobe_opts(p, NULL, &opts));
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

static int attach_func(struct blocks *b, size_t i, char *why, size_t len)
{
	struct bfunc *f = &b->f[i];
	size_t k;
	int err;

	for (k = 0; k < f->g->nb; k++) {
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
	err = probe(b, f->addr, i, true);
	if (err)
		snprintf(why, len, "--blocks %s: the kernel refuses a kretprobe on it: %s", f->name,
			 strerror(-err));
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
}

static int prepare(struct blocks *b, const struct blocks_opts *o, char *why, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int i, err = 0;

	for (i = 0; i < o->n && !err; i++) {
		struct bfunc *f = &b->f[b->n++];

		err = resolve(f, o->funcs[i], b->ks, why, len);
		err = err ?: read_text(f, o, b->ks, why, len);
		err = err ?: build(f, b->ks, o->limit, why, len);
		f->cache = !err && arg0_cache(btf, f->name);
	}
	btf__free(btf);
	return err;
}

int blocks_attach(struct blocks **out, const struct blocks_opts *o, const struct ksyms *ks,
		  struct record_bpf *rec, char *why, size_t len)
{
	struct blocks *b;
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
	err = prepare(b, o, why, len);
	if (!err) {
		err = load(b, rec) ?: fill_info(b);
		if (err)
			snprintf(why, len, "--blocks: loading its BPF programs: %s",
				 strerror(-err));
	}
	for (i = 0; i < b->n && !err; i++)
		err = attach_func(b, i, why, len);
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
	if (b)
		links_cut(&b->links, 0);
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
	for (i = 0; i < b->n; i++) {
		cfg_free(b->f[i].g);
		free(b->f[i].code);
		free(b->f[i].probed);
	}
	links_free(&b->links);
	free(b);
}

/* The per-CPU values of key in the array fd, summed as __u64s (nwords of them). */
static int sum_percpu(int fd, __u32 key, __u64 *sum, size_t nwords, __u64 *buf, int ncpu)
{
	size_t w;
	int c;

	memset(sum, 0, nwords * sizeof(*sum));
	if (bpf_map_lookup_elem(fd, &key, buf))
		return -errno;
	for (c = 0; c < ncpu; c++)
		for (w = 0; w < nwords; w++)
			sum[w] += buf[c * nwords + w];
	return 0;
}

/* Sum of edges ids[0..n) into *sum when all are known (edge counts, CFG_UNKNOWN not). */
static bool sum_known(const __u64 *ec, const int *ids, int n, __u64 *sum)
{
	int i;

	for (*sum = 0, i = 0; i < n; i++) {
		if (ec[ids[i]] == CFG_UNKNOWN)
			return false;
		*sum += ec[ids[i]];
	}
	return true;
}

/* Edges ids[0..n) add up to total: the one unknown among them is the rest. */
static bool solve_one(__u64 *ec, const int *ids, int n, __u64 total)
{
	int i, unknown = -1;
	__u64 sum = 0;

	for (i = 0; i < n; i++) {
		if (ec[ids[i]] != CFG_UNKNOWN)
			sum += ec[ids[i]];
		else if (unknown >= 0)
			return false;
		else
			unknown = ids[i];
	}
	if (unknown < 0 || sum > total)
		return false;
	ec[unknown] = total - sum;
	return true;
}

/*
 * The counts of blocks the kernel would not probe (a ud2 of BUG or WARN, a
 * jump-label site), from their neighbours' by flow conservation: a block's
 * count is the sum of its in-edges and of its out-edges.  A WARN's ud2, which
 * the graph takes for a BUG's, makes the counts contradict the graph when it
 * fires (cfg_edge_counts() then leaves every edge unknown).  known[] says which
 * counts are had; what stays unknown stays so.
 */
static void derive(const struct cfg *g, __u64 *counts, bool *known, __u64 calls)
{
	__u64 *ec = malloc(g->ne * sizeof(*ec)), sum;
	bool more = true;
	size_t e, k;

	if (!ec)
		return;
	for (e = 0; e < g->ne; e++)
		ec[e] = CFG_UNKNOWN;
	ec[0] = calls;
	/* a BUG's ud2 (kprobes refuse it) ran never: the recording would have ended in an oops */
	for (k = 0; k < g->nb; k++) {
		if (!known[k] && g->b[k].nsucc == 1 &&
		    g->e[g->b[k].edge[0]].kind == CFG_EDGE_TRAP) {
			counts[k] = 0;
			known[k] = true;
		}
	}
	while (more) {
		more = false;
		for (k = 0; k < g->nb; k++) {
			const struct cfg_block *b = &g->b[k];
			const int *in = &g->in[b->in_first];

			if (!known[k] && (sum_known(ec, in, b->npred, &sum) ||
					  sum_known(ec, b->edge, b->nsucc, &sum))) {
				counts[k] = sum;
				known[k] = more = true;
			}
			if (known[k]) {
				more |= solve_one(ec, in, b->npred, counts[k]);
				more |= solve_one(ec, b->edge, b->nsucc, counts[k]);
			}
		}
	}
	free(ec);
}

static int put_blocks(const struct bfunc *f, struct datafile *df, const __u64 *counts,
		      const bool *known)
{
	const struct cfg *g = f->g;
	size_t k;
	int err = 0;

	for (k = 0; k < g->nb && !err; k++) {
		struct blocks_row r = {.block = k,
				       .start = g->b[k].start,
				       .end = g->b[k].end,
				       .insns = g->b[k].ninsn,
				       .count = known[k] ? (long long)counts[k] : -1,
				       .probed = f->probed[k],
				       .loop = g->b[k].loop};

		err = blocks_tables_put_block(df, f->name, &r);
	}
	return err;
}

/* Edge counts solved from the block counts when every block was probed. */
static int put_edges(const struct bfunc *f, struct datafile *df, const __u64 *counts,
		     const bool *known, __u64 *edges, __u64 calls)
{
	const struct cfg *g = f->g;
	bool all = true;
	size_t e, k;
	int err = 0;

	for (k = 0; k < g->nb; k++)
		all &= known[k];
	for (e = 0; e < g->ne; e++)
		edges[e] = CFG_UNKNOWN;
	edges[0] = calls;
	/* contradicting counts (code entered by a way the graph lacks): none is sure */
	if (all && cfg_edge_counts(g, counts, edges) == -EDOM)
		for (e = 1; e < g->ne; e++)
			edges[e] = CFG_UNKNOWN;
	for (e = 0; e < g->ne && !err; e++) {
		struct blocks_edge_row r = {.edge = e,
					    .src = g->e[e].from,
					    .dst = g->e[e].to,
					    .kind = edge_kinds[g->e[e].kind],
					    .count = edges[e] == CFG_UNKNOWN ? -1
									     : (long long)edges[e]};

		err = blocks_tables_put_edge(df, f->name, &r);
	}
	return err;
}

static int put_loops(const struct bfunc *f, struct datafile *df, const __u64 *counts,
		     const bool *known, const __u64 *edges)
{
	const struct cfg *g = f->g;
	__u64 entries, iterations;
	size_t l;
	int err = 0;

	for (l = 0; l < g->nloops && !err; l++) {
		const struct cfg_loop *lp = &g->loops[l];
		struct blocks_loop_row r = {.loop = l,
					    .head = lp->head,
					    .parent = lp->parent,
					    .depth = lp->depth,
					    .irreducible = lp->irreducible,
					    .entries = -1,
					    .iterations = -1};

		if (!cfg_loop_trips(g, l, counts, edges, &entries, &iterations)) {
			r.entries = entries;
			r.iterations = iterations;
		} else if (!lp->irreducible && known[lp->head]) {
			r.iterations = counts[lp->head];
		}
		err = blocks_tables_put_loop(df, f->name, &r);
	}
	return err;
}

static int collect_func(struct blocks *b, size_t i, struct datafile *df, __u64 *buf, int ncpu,
			struct kp_blk_stats *total)
{
	struct bfunc *f = &b->f[i];
	__u64 *counts = calloc(f->g->nb, sizeof(*counts)),
	      *edges = calloc(f->g->ne, sizeof(*edges));
	bool *known = calloc(f->g->nb, sizeof(*known));
	struct kp_blk_stats st;
	struct blocks_func_row r;
	size_t k;
	int err = counts && edges && known ? 0 : -ENOMEM;

	for (k = 0; k < f->g->nb && !err; k++)
		err = sum_percpu(bpf_map__fd(b->obj->maps.bcount), i * KP_BLK_MAX + k, &counts[k],
				 1, buf, ncpu);
	err = err
		      ?: sum_percpu(bpf_map__fd(b->obj->maps.bstats), i, (__u64 *)&st,
				    sizeof(st) / sizeof(__u64), buf, ncpu);
	if (!err) {
		total->lost_map += st.lost_map;
		total->unmatched += st.unmatched;
		r = (struct blocks_func_row){
			.addr = f->addr,
			.size = f->size,
			.calls = st.calls,
			.complete = st.complete,
			/* still open at the end, or too deep to record */
			.lost = st.lost_depth +
				(st.calls > st.complete ? st.calls - st.complete : 0),
			.unprobed = f->unprobed};
		err = blocks_tables_put_func(df, f->name, &r);
	}
	for (k = 0; k < f->g->nb && !err; k++)
		known[k] = f->probed[k];
	if (!err)
		derive(f->g, counts, known, st.calls);
	err = err ?: put_blocks(f, df, counts, known);
	err = err ?: put_edges(f, df, counts, known, edges, st.calls);
	err = err ?: put_loops(f, df, counts, known, edges);
	free(known);
	free(edges);
	free(counts);
	return err;
}

static int put_values(const struct blocks *b, struct datafile *df)
{
	char ctx[KP_CTX_LEN + 1] = {};
	struct kp_blk_value *k;
	__u64 *v;
	size_t n, i;
	int err;

	err = collect_dump(bpf_map__fd(b->obj->maps.bvalues), sizeof(*k), sizeof(*v), (void **)&k,
			   (void **)&v, &n);
	for (i = 0; i < n && !err; i++) {
		if (k[i].func >= b->n)
			continue;
		memcpy(ctx, k[i].ctx, KP_CTX_LEN);
		err = blocks_tables_put_value(
			df, b->f[k[i].func].name, k[i].what == KP_BLK_INSNS ? "insns" : "trips",
			k[i].what == KP_BLK_INSNS ? -1 : k[i].loop, ctx, k[i].value, v[i]);
	}
	free(k);
	free(v);
	return err;
}

/* Block hits the kernel skipped because a BPF program was already running on the CPU. */
static __u64 recursion_misses(const struct blocks *b)
{
	return links_recursion_misses(b->obj->obj);
}

int blocks_collect(struct blocks *b, struct datafile *df)
{
	int ncpu = libbpf_num_possible_cpus(), err;
	struct kp_blk_stats total = {};
	__u64 *buf;
	size_t i;

	if (!b)
		return 0;
	if (ncpu < 0)
		return ncpu;
	buf = calloc(ncpu, sizeof(struct kp_blk_stats));
	if (!buf)
		return -ENOMEM;
	for (i = 0, err = 0; i < b->n && !err; i++)
		err = collect_func(b, i, df, buf, ncpu, &total);
	free(buf);
	err = err ?: put_values(b, df);
	err = err ?: recording_put_counter(df, "lost_blocks_values", total.lost_map);
	err = err ?: recording_put_counter(df, "lost_blocks_unmatched", total.unmatched);
	return err ?: recording_put_counter(df, "lost_blocks_recursion", recursion_misses(b));
}

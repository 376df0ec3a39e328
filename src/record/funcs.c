// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --func: each function is probed with fentry/fexit where its BTF and
 * the kernel allow it, else with kprobe/kretprobe (one multi-attach link when
 * the kernel has kprobe.multi).  Every probe of one function, clones included,
 * carries the same function id, so all its calls meet in one histogram.
 */
#include "record/funcs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "func_layout.h"
#include "funcs.skel.h"
#include "kprotperf.h"
#include "record.skel.h"

#include "data/recording.h"
#include "record/collect.h"
#include "record/funcmatch.h"
#include "record/funcresolve.h"
#include "record/inline_probes.h"
#include "record/links.h"
#include "record/stackstore.h"
#include "util/array.h"

enum method { M_FENTRY, M_KPROBE, M_KPROBE_MULTI, M_INLINE_KPROBE, M_SAMPLES };
static const char *const method_names[] = {"fentry", "kprobe", "kprobe.multi", "inline-kprobe",
					   "samples"};

struct funcs {
	struct func_target *t;
	size_t n;
	struct inline_probes *inl; /* inlined-only functions: ids n, n + 1, ... */
	enum method *method;	   /* per id, inline instances included */
	__u32 flags[KP_MAX_FUNCS];
	struct record_bpf *rec;
	struct funcs_bpf *owner; /* holds the func_* maps every copy shares */
	struct funcs_bpf **objs; /* fentry copies per function, then the kprobe one */
	size_t nobjs, objs_cap;
	struct links links;
	const struct ksyms *ks; /* the caller's: symbols in t[] point into it */
	bool stacks;
	const char *absent[KP_MAX_FUNCS]; /* patterns matching nothing: the caller's */
	size_t nabsent;
	char warning[4096]; /* "warning: ..." about them, "" when none */
};

int funcs_each_object(const struct funcs *f, int (*fn)(struct bpf_object *, void *), void *ctx)
{
	size_t i;
	int err = 0;

	for (i = 0; f && i < f->nobjs && !err; i++)
		err = fn(f->objs[i]->obj, ctx);
	return err;
}

size_t funcs_count(const struct funcs *f)
{
	return f ? f->n + inline_probes_count(f->inl) : 0;
}

static const struct btf_type *resolved(const struct btf *btf, __u32 id)
{
	int r = btf__resolve_type(btf, id);

	return r < 0 ? NULL : btf__type_by_id(btf, r);
}

/* Flags from the function's BTF prototype; its BTF id, or -1 without one. */
static int btf_func(const struct btf *btf, const char *name, __u32 *flags)
{
	const struct btf_type *fn, *proto, *arg;
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;

	*flags = 0;
	if (id < 0)
		return -1;
	fn = btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_vlen(proto))
		return id;
	arg = resolved(btf, btf_params(proto)[0].type);
	if (arg && btf_is_ptr(arg)) {
		arg = resolved(btf, arg->type);
		if (arg && btf_is_struct(arg) &&
		    !strcmp(btf__name_by_offset(btf, arg->name_off), "kmem_cache"))
			*flags = KP_FUNC_ARG0_KMEM_CACHE;
	}
	return id;
}

static int add_link(struct funcs *f, struct bpf_link *l)
{
	return links_add(&f->links, l);
}

static int reuse(struct bpf_map *dst, const struct bpf_map *src)
{
	return bpf_map__reuse_fd(dst, bpf_map__fd(src));
}

/* A copy of the funcs object sharing the record object's and the owner's maps. */
static int open_copy(struct funcs *f, struct funcs_bpf **out)
{
	struct funcs_bpf *o = funcs_bpf__open();
	struct bpf_program *p;
	int err;

	if (!o)
		return -errno;
	o->rodata->filter_tree = f->rec->rodata->filter_tree;
	o->rodata->lazy_threads = f->rec->rodata->lazy_threads;
	o->rodata->sys_bits = f->rec->rodata->sys_bits;
	o->rodata->count_nev = f->rec->rodata->count_nev;
	o->rodata->count_by = f->rec->rodata->count_by;
	o->rodata->func_stacks = f->stacks;
	o->rodata->first_inline = f->n;
	memcpy((void *)o->rodata->func_flags, f->flags, sizeof(f->flags));
	err = reuse(o->maps.tree, f->rec->maps.tree)
		      ?: reuse(o->maps.systab, f->rec->maps.systab)
		      ?: reuse(o->maps.threads, f->rec->maps.threads);
	err = err ?: reuse(o->maps.counters, f->rec->maps.counters);
	err = err ?: reuse(o->maps.events, f->rec->maps.events);
	err = err ?: reuse(o->maps.stacks_sent, f->rec->maps.stacks_sent);
	err = err ?: reuse(o->maps.count_pmu, f->rec->maps.count_pmu);
	err = err ?: reuse(o->maps.cnt_sys, f->rec->maps.cnt_sys);
	if (!err && !f->rec->rodata->count_nev)
		err = bpf_map__set_max_entries(o->maps.func_cnt, 1);
	if (!err && f->owner) {
		err = reuse(o->maps.func_cnt, f->owner->maps.func_cnt);
		err = err ?: reuse(o->maps.func_lat, f->owner->maps.func_lat);
		err = err ?: reuse(o->maps.func_nr, f->owner->maps.func_nr);
		err = err ?: reuse(o->maps.func_stack, f->owner->maps.func_stack);
		err = err ?: reuse(o->maps.func_ctx, f->owner->maps.func_ctx);
		err = err ?: reuse(o->maps.pc_actions, f->owner->maps.pc_actions);
	}
	bpf_object__for_each_program (p, o->obj)
		bpf_program__set_autoload(p, false);
	if (err) {
		funcs_bpf__destroy(o);
		return err;
	}
	*out = o;
	return 0;
}

static int keep_obj(struct funcs *f, struct funcs_bpf *o)
{
	if (array_reserve((void **)&f->objs, &f->objs_cap, f->nobjs + 1, sizeof(*f->objs))) {
		funcs_bpf__destroy(o);
		return -ENOMEM;
	}
	f->objs[f->nobjs++] = o;
	if (!f->owner)
		f->owner = o;
	return 0;
}

static struct bpf_program *fentry_prog(struct funcs_bpf *o, const char *kind, size_t slot)
{
	char name[32];

	snprintf(name, sizeof(name), "kp_%s%zu", kind, slot);
	return bpf_object__find_program_by_name(o->obj, name);
}

/* One copy of the object probing funcs idx[0..n) (n <= KP_FENTRY_SLOTS) with fentry/fexit. */
static int attach_fentry(struct funcs *f, const size_t *idx, size_t n)
{
	struct bpf_program *entry, *exit;
	struct funcs_bpf *o = NULL;
	size_t j;
	int err;

	err = open_copy(f, &o);
	for (j = 0; j < n && !err; j++) {
		((__u32 *)o->rodata->fentry_funcs)[j] = idx[j];
		entry = fentry_prog(o, "fentry", j);
		exit = fentry_prog(o, "fexit", j);
		bpf_program__set_autoload(entry, true);
		bpf_program__set_autoload(exit, true);
		err = bpf_program__set_attach_target(entry, 0, f->t[idx[j]].name);
		err = err ?: bpf_program__set_attach_target(exit, 0, f->t[idx[j]].name);
	}
	err = err ?: funcs_bpf__load(o);
	if (err) {
		funcs_bpf__destroy(o);
		return err;
	}
	err = keep_obj(f, o);
	for (j = 0; j < n && !err; j++) {
		err = add_link(f, bpf_program__attach(fentry_prog(o, "fentry", j)));
		err = err ?: add_link(f, bpf_program__attach(fentry_prog(o, "fexit", j)));
	}
	return err;
}

/*
 * The kprobe programs: kp_pc for inline instances; for functions (funcs) the
 * kprobe pair, with the kprobe.multi pair when the kernel can load it.
 */
static int load_kprobes(struct funcs *f, bool funcs, struct funcs_bpf **out, bool *multi)
{
	struct funcs_bpf *o;
	int err;

	for (*multi = funcs;; *multi = false) {
		err = open_copy(f, &o);
		if (err)
			return err;
		bpf_program__set_autoload(o->progs.kp_kprobe, funcs);
		bpf_program__set_autoload(o->progs.kp_kretprobe, funcs);
		bpf_program__set_autoload(o->progs.kp_pc, f->inl != NULL);
		bpf_program__set_autoload(o->progs.kp_kprobe_multi, *multi);
		bpf_program__set_autoload(o->progs.kp_kretprobe_multi, *multi);
		err = funcs_bpf__load(o);
		if (!err)
			break;
		funcs_bpf__destroy(o);
		if (!*multi)
			return err;
	}
	*out = o;
	return keep_obj(f, o);
}

static int attach_multi(struct funcs *f, struct funcs_bpf *o)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	unsigned long addrs[KP_MAX_FUNCS * 4];
	__u64 cookies[KP_MAX_FUNCS * 4];
	size_t i, j, n = 0;
	int err;

	for (i = 0; i < f->n; i++)
		for (j = 0; f->method[i] != M_FENTRY && j < f->t[i].nsyms; j++) {
			if (n == sizeof(addrs) / sizeof(addrs[0]))
				return -E2BIG;
			addrs[n] = f->t[i].syms[j].addr;
			cookies[n++] = i;
		}
	opts.addrs = addrs;
	opts.cookies = cookies;
	opts.cnt = n;
	err = add_link(
		f, bpf_program__attach_kprobe_multi_opts(o->progs.kp_kprobe_multi, NULL, &opts));
	if (err)
		return err;
	opts.retprobe = true;
	return add_link(
		f, bpf_program__attach_kprobe_multi_opts(o->progs.kp_kretprobe_multi, NULL, &opts));
}

/* Whether another symbol of the target has this one's name (statics of two files). */
static bool ambiguous(const struct func_target *t, size_t j)
{
	size_t k;

	for (k = 0; k < t->nsyms; k++)
		if (k != j && !strcmp(t->syms[k].symbol, t->syms[j].symbol))
			return true;
	return false;
}

static int attach_single(struct funcs *f, struct funcs_bpf *o, size_t i)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = i);
	const struct func_target *t = &f->t[i];
	const char *sym;
	size_t j;
	int err = 0;

	for (j = 0; j < t->nsyms && !err; j++) {
		/* the kernel resolves a name to its first symbol: an exact address for the rest */
		sym = ambiguous(t, j) ? NULL : t->syms[j].symbol;
		opts.offset = sym ? 0 : t->syms[j].addr;
		opts.retprobe = false;
		err = add_link(f, bpf_program__attach_kprobe_opts(o->progs.kp_kprobe, sym, &opts));
		opts.retprobe = true;
		err = err
			      ?: add_link(f, bpf_program__attach_kprobe_opts(o->progs.kp_kretprobe,
									     sym, &opts));
	}
	return err;
}

static int keep_link(void *f, struct bpf_link *l)
{
	return add_link(f, l);
}

/* The inline instances' entry and exit kprobes, on the kprobe object o. */
static int attach_inline(struct funcs *f, struct funcs_bpf *o, char *why, size_t len)
{
	size_t i;
	int err;

	err = inline_probes_attach(f->inl, f->n, bpf_map__fd(f->owner->maps.pc_actions),
				   o->progs.kp_pc, keep_link, f, why, len);
	for (i = 0; !err && i < inline_probes_count(f->inl); i++)
		f->method[f->n + i] = M_INLINE_KPROBE;
	return err;
}

/* The functions chosen for kprobes: one kprobe.multi pair of links, else a pair per symbol. */
static int attach_kprobe_funcs(struct funcs *f, struct funcs_bpf *o, bool multi)
{
	size_t i, nlinks = f->links.n;
	int err = 0;

	if (multi && !attach_multi(f, o)) {
		for (i = 0; i < f->n; i++)
			if (f->method[i] == M_KPROBE)
				f->method[i] = M_KPROBE_MULTI;
		return 0;
	}
	/* drop a half-made multi attachment before falling back to single kprobes */
	links_cut(&f->links, nlinks);
	for (i = 0; i < f->n && !err; i++)
		if (f->method[i] == M_KPROBE)
			err = attach_single(f, o, i);
	return err;
}

/* funcs: some function is to be probed by kprobe; f->inl: inline instances are. */
static int attach_kprobes(struct funcs *f, bool funcs, char *why, size_t len)
{
	struct funcs_bpf *o;
	bool multi;
	int err;

	err = load_kprobes(f, funcs, &o, &multi);
	err = err ?: (funcs ? attach_kprobe_funcs(f, o, multi) : 0);
	return err ?: (f->inl ? attach_inline(f, o, why, len) : 0);
}

/* fentry where the function has BTF and a symbol of its own in vmlinux, else kprobe. */
static int choose(struct funcs *f, enum probe_mode mode, char *why, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct func_target *t;
	bool fentry;
	size_t i;
	int id;

	for (i = 0; i < f->n; i++) {
		t = &f->t[i];
		id = btf_func(btf, t->name, &f->flags[i]);
		fentry = id >= 0 && !t->clone && !*t->syms[0].module;
		if (mode == PROBE_FENTRY && !fentry) {
			snprintf(why, len,
				 "%s cannot be probed with fentry: %s (try --probe kprobe)",
				 t->name,
				 t->clone ? "only compiler clones of it exist"
					  : "it has no BTF entry in vmlinux");
			btf__free(btf);
			return -EINVAL;
		}
		f->method[i] = mode != PROBE_KPROBE && fentry ? M_FENTRY : M_KPROBE;
	}
	btf__free(btf);
	return 0;
}

static void no_kprobes(struct funcs *f, int fentry_err, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < f->n && f->method[i] == M_FENTRY; i++)
		;
	snprintf(why, len,
		 "cannot probe %s: this kernel has no kprobes (CONFIG_KPROBES not set)%s%s; "
		 "per-syscall latency and CPU sampling still work without --func",
		 f->t[i].name, fentry_err ? " and fentry is denied: " : "",
		 fentry_err ? strerror(-fentry_err)
			    : (f->t[i].clone ? " and fentry cannot attach "
					       "to compiler clones"
					     : ""));
}

/* ENOTSUPP is kernel-internal: strerror() has no words for it. */
#define ENOTSUPP 524

static void fentry_error(const char *name, int err, char *why, size_t len)
{
	if (err == -ENOTSUPP)
		snprintf(why, len,
			 "fentry cannot attach to %s (the kernel says ENOTSUPP: more "
			 "arguments than its trampolines pass, or a struct passed by value); "
			 "--probe auto or kprobe uses a kprobe for it",
			 name);
	else
		snprintf(why, len, "fentry on %s: %s", name, strerror(-err));
}

/* EPERM and friends deny fentry kernel-wide: no point trying it for the others. */
static bool denied(int err)
{
	return err == -EPERM || err == -EACCES || err == -EOPNOTSUPP;
}

/* A batch that failed, one function at a time: what fails alone falls back to kprobes. */
static int attach_fentry_singly(struct funcs *f, const size_t *idx, size_t n, enum probe_mode mode,
				char *why, size_t len)
{
	size_t j;
	int err;

	for (j = 0; j < n; j++) {
		err = attach_fentry(f, &idx[j], 1);
		if (!err)
			continue;
		if (denied(err))
			return err;
		if (mode == PROBE_FENTRY) {
			fentry_error(f->t[idx[j]].name, err, why, len);
			return err;
		}
		f->method[idx[j]] = M_KPROBE;
	}
	return 0;
}

/* fentry for the functions chosen for it, KP_FENTRY_SLOTS per object; the denial, if any. */
static int attach_fentries(struct funcs *f, enum probe_mode mode, char *why, size_t len)
{
	size_t idx[KP_FENTRY_SLOTS], n = 0, i;
	int err;

	for (i = 0; i < f->n; i++) {
		if (f->method[i] == M_FENTRY)
			idx[n++] = i;
		if (n < KP_FENTRY_SLOTS && i + 1 < f->n)
			continue;
		err = n ? attach_fentry(f, idx, n) : 0;
		if (err && !denied(err))
			err = attach_fentry_singly(f, idx, n, mode, why, len);
		if (err)
			return err;
		n = 0;
	}
	return 0;
}

/*
 * Inlined functions on a kernel without kprobes: CPU samples in their ranges
 * are all there is to measure; record goes on, and *why notes it.
 */
static int by_samples(struct funcs *f, char *why, size_t len)
{
	size_t i, n = inline_probes_count(f->inl);

	for (i = 0; i < n; i++)
		f->method[f->n + i] = M_SAMPLES;
	snprintf(why, len,
		 "note: this kernel has no kprobes (CONFIG_KPROBES not set): %s "
		 "(%zu inlined instance%s) is measured by CPU samples only (see report "
		 "--inline), not timed per call",
		 inline_probes_name(f->inl, 0), n, n == 1 ? "" : "s");
	return 0;
}

static int attach_all(struct funcs *f, enum probe_mode mode, char *why, size_t len)
{
	bool need_kprobes = false, kprobes;
	int err, fentry_err;
	size_t i;

	fentry_err = attach_fentries(f, mode, why, len);
	if (fentry_err && mode == PROBE_FENTRY) {
		if (!*why)
			fentry_error(f->t[0].name, fentry_err, why, len);
		return fentry_err;
	}
	for (i = 0; i < f->n; i++) {
		if (fentry_err && f->method[i] == M_FENTRY)
			f->method[i] = M_KPROBE;
		need_kprobes |= f->method[i] != M_FENTRY;
	}
	if (!need_kprobes && !f->inl)
		return 0;
	kprobes = links_kprobes_available();
	if (!kprobes && need_kprobes) {
		no_kprobes(f, fentry_err, why, len);
		return -EOPNOTSUPP;
	}
	if (!kprobes)
		return by_samples(f, why, len);
	err = attach_kprobes(f, need_kprobes, why, len);
	if (err && !*why)
		snprintf(why, len, "attaching kprobes: %s", strerror(-err));
	if (!err && !*why)
		inline_probes_note(f->inl, why, len);
	return err;
}

/* The patterns as targets, inline instances and absent patterns (funcresolve.h). */
static int resolve(struct funcs *f, const struct func_opts *o, char *why, size_t len)
{
	struct func_resolved r;
	int err = func_resolve(&r, f->ks, o->patterns, o->n, o->vmlinux, o->strict, f->warning,
			       sizeof(f->warning), why, len);

	if (err)
		return err;
	f->t = r.t;
	f->n = r.n;
	f->inl = r.inl;
	memcpy(f->absent, r.absent, sizeof(f->absent));
	f->nabsent = r.nabsent;
	return 0;
}

int funcs_attach(struct funcs **out, const struct func_opts *o, const struct ksyms *ks,
		 struct record_bpf *rec, char *why, size_t len)
{
	struct funcs *f = calloc(1, sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	f->rec = rec;
	f->stacks = o->stacks;
	f->ks = ks;
	err = resolve(f, o, why, len);
	if (!err && funcs_count(f) > KP_MAX_FUNCS) {
		snprintf(why, len,
			 "%zu functions and inline instances match; at most %d can be "
			 "probed",
			 funcs_count(f), KP_MAX_FUNCS);
		err = -E2BIG;
	}
	f->method = err ? NULL : calloc(funcs_count(f), sizeof(*f->method));
	if (!err && !f->method)
		err = -ENOMEM;
	err = err ?: choose(f, o->mode, why, len);
	err = err ?: attach_all(f, o->mode, why, len);
	if (err)
		goto err_free;
	*out = f;
	return 0;
err_free:
	funcs_free(f);
	return err;
}

void funcs_detach(struct funcs *f)
{
	if (f)
		links_cut(&f->links, 0);
}

void funcs_free(struct funcs *f)
{
	if (!f)
		return;
	funcs_detach(f);
	while (f->nobjs)
		funcs_bpf__destroy(f->objs[--f->nobjs]);
	free(f->objs);
	links_free(&f->links);
	free(f->method);
	func_targets_free(f->t, f->n);
	inline_probes_free(f->inl);
	free(f);
}

int funcs_lat_fd(const struct funcs *f)
{
	return f && f->owner ? bpf_map__fd(f->owner->maps.func_lat) : -ENOENT;
}

int funcs_cnt_fd(const struct funcs *f)
{
	return f && f->owner ? bpf_map__fd(f->owner->maps.func_cnt) : -ENOENT;
}

static const char *func_name(__u32 id, void *ctx, char *buf, size_t len)
{
	const struct funcs *f = ctx;

	if (id < f->n)
		return f->t[id].name;
	return id < funcs_count(f) ? inline_probes_name(f->inl, id - f->n) : "?";
}

static int put_func(struct datafile *df, const struct funcs *f, size_t i)
{
	char syms[512] = "";
	size_t j, off = 0;

	for (j = 0; j < f->t[i].nsyms && off < sizeof(syms); j++)
		off += snprintf(syms + off, sizeof(syms) - off, "%s%s", j ? "," : "",
				f->t[i].syms[j].symbol);
	return recording_put_func(df, i, f->t[i].name, syms, f->t[i].syms[0].addr,
				  f->t[i].syms[0].module, method_names[f->method[i]]);
}

/* One row per (function, syscall) with calls, summed over the per-CPU slots. */
static int put_by_nr(struct datafile *df, const struct funcs *f)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(f->owner->maps.func_nr), c, err = 0;
	struct kp_func_split *v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v)), sum;
	__u32 i, slot, key;

	if (!v || ncpu < 0) {
		free(v);
		return ncpu < 0 ? ncpu : -ENOMEM;
	}
	for (i = 0; i < funcs_count(f) && !err; i++) {
		for (slot = 0; slot < KP_FUNC_NR_SLOTS && !err; slot++) {
			key = i * KP_FUNC_NR_SLOTS + slot;
			if (bpf_map_lookup_elem(fd, &key, v))
				continue;
			for (sum = (struct kp_func_split){}, c = 0; c < ncpu; c++) {
				sum.calls += v[c].calls;
				sum.total_ns += v[c].total_ns;
			}
			if (sum.calls)
				err = recording_put_func_syscall(
					df, i, slot == KP_MAX_SYSCALLS ? KP_NO_SYSCALL : slot,
					sum.calls, sum.total_ns);
		}
	}
	free(v);
	return err;
}

/* Stack hashes become the store's ids, which the samples' stacks have too. */
static int put_by_stack(struct datafile *df, const struct funcs *f, const struct stackstore *st,
			const struct ksyms *ks)
{
	struct kp_func_by_stack *k;
	struct kp_func_split *v;
	__s32 *ids = NULL;
	size_t n, i;
	int err;

	err = collect_dump(bpf_map__fd(f->owner->maps.func_stack), sizeof(*k), sizeof(*v),
			   (void **)&k, (void **)&v, &n);
	ids = err ? NULL : malloc((n + 1) * sizeof(*ids));
	if (!err && !ids)
		err = -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		ids[i] = stackstore_id(st, k[i].kstack);
		err = recording_put_func_stack(df, k[i].func, ids[i], v[i].calls, v[i].total_ns);
	}
	err = err ?: collect_kstacks(df, st, ids, n, ks);
	free(ids);
	free(k);
	free(v);
	return err;
}

static int put_by_ctx(struct datafile *df, const struct funcs *f)
{
	struct kp_func_by_ctx *k;
	struct kp_func_split *v;
	char ctx[KP_CTX_LEN + 1] = {};
	size_t n, i;
	int err;

	err = collect_dump(bpf_map__fd(f->owner->maps.func_ctx), sizeof(*k), sizeof(*v),
			   (void **)&k, (void **)&v, &n);
	for (i = 0; i < n && !err; i++) {
		memcpy(ctx, k[i].ctx, KP_CTX_LEN);
		/* names cut at KP_CTX_LEN can meet: merge them */
		err = recording_put_func_context(df, k[i].func, ctx, v[i].calls, v[i].total_ns);
	}
	free(k);
	free(v);
	return err;
}

/* Calls the kernel skipped because a BPF program was already running on the CPU. */
static __u64 recursion_misses(const struct funcs *f)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < f->nobjs; i++)
		n += links_recursion_misses(f->objs[i]->obj);
	return n;
}

int funcs_collect(struct funcs *f, struct datafile *df, const struct stackstore *st,
		  const struct ksyms *ks)
{
	size_t i;
	int err = 0;

	if (!f)
		return 0;
	for (i = 0; i < f->n && !err; i++)
		err = put_func(df, f, i);
	for (i = 0; i < f->nabsent && !err; i++)
		err = recording_put_func_absent(df, f->absent[i]);
	err = err
		      ?: inline_probes_put(f->inl, f->n, df,
					   f->inl ? method_names[f->method[f->n]] : NULL);
	if (!f->owner)
		return err;
	err = err
		      ?: collect_latency(df, bpf_map__fd(f->owner->maps.func_lat), "func",
					 funcs_count(f), func_name, f);
	err = err ?: put_by_nr(df, f);
	err = err ?: put_by_stack(df, f, st, ks);
	err = err ?: put_by_ctx(df, f);
	return err ?: recording_put_counter(df, "lost_func_recursion", recursion_misses(f));
}

const char *funcs_warning(const struct funcs *f)
{
	return f && *f->warning ? f->warning : NULL;
}

bool funcs_uses_fentry(const struct funcs *f)
{
	size_t i;

	for (i = 0; f && i < f->n; i++)
		if (f->method[i] == M_FENTRY)
			return true;
	return false;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --blocks: which code a --blocks name is, its running text and its
 * control-flow graph.  A function with a symbol of its own is its kallsyms
 * extent; a function inlined into all its callers is each of its inline
 * instances (their ranges from the kernel's DWARF), each a --blocks
 * function of its own whose calls begin at the instance's entry pc and end
 * where control leaves its ranges: a ret or a jump away in place, or the
 * parent's code it runs on in.  Parent code that enters the ranges
 * elsewhere (the compiler may start an instance's body from more than one
 * place) gets a side-entry probe, so that calls so entered are counted as
 * missed rather than mixed into others.  Then, for every --blocks
 * function, each loop's bound (analysis/loopbound.h) and, when the function
 * works on a slab cache, where the struct kmem_cache * is at the entry.
 */
#include "record/blocks_func.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <capstone/capstone.h>

#include "analysis/cfg.h"
#include "analysis/ktext.h"
#include "analysis/loopbound.h"
#include "features/sites.h"
#include "record/blocks.h"
#include "record/running_dwarf.h"
#include "symbols/debuginfo.h"
#include "symbols/dwarf_fetch.h"
#include "symbols/inlines.h"
#include "symbols/ksyms.h"
#include "util/array.h"
#include "util/funcname.h"

/* text read at most: a function this long is no function to probe block by block */
#define MAX_SIZE (64 << 10)
/* parent instructions followed to see straight code run back into an instance */
#define BRIDGE_BUDGET 8

/* What cfg_build() asks of the symbol table, for one function or instance. */
struct env_arg {
	const struct ksyms *ks;
	const struct inline_range *parent; /* an instance's parent's ranges (link-time) */
	size_t nparent;
	__s64 slide;
};

static enum cfg_callee callee(void *arg, __u64 addr)
{
	const struct env_arg *a = arg;
	const struct ksym *s;
	size_t i;

	for (i = 0; i < a->nparent; i++) {
		if (addr - a->slide >= a->parent[i].lo && addr - a->slide < a->parent[i].hi)
			return CFG_CALLEE_PARENT;
	}
	s = ksyms_lookup(a->ks, addr);
	if (!s || s->addr != addr)
		return CFG_CALLEE_FUNC;
	/* any return thunk the boot picked: __x86_return_thunk, retbleed_return_thunk, ... */
	switch (sites_target_kind(s->name, false)) {
	case SITES_RETURN_THUNK:
		return CFG_CALLEE_RETURN;
	case SITES_RETPOLINE:
		return CFG_CALLEE_INDIRECT;
	default:
		return cfg_noreturn_name(s->name) ? CFG_CALLEE_NORETURN : CFG_CALLEE_FUNC;
	}
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

/* len bytes of running text at addr: from /proc/kcore, else the vmlinux file moved by the slide. */
static int read_text(const struct blocks *b, __u64 addr, void *buf, size_t len)
{
	const struct ksym *stext = ksyms_by_name(b->ks, "_stext");
	int err = ktext_kcore("/proc/kcore", addr, buf, len);

	if (err && *b->text_path && stext)
		err = ktext_vmlinux(b->text_path, stext->addr, addr, buf, len);
	return err;
}

/* One more text part [addr, addr + len), its bytes read from the running kernel. */
static int add_part(struct bfunc *f, const struct blocks *b, __u64 addr, size_t len)
{
	__u8 *code = malloc(len ?: 1);
	int err;

	if (!code)
		return -ENOMEM;
	err = array_reserve((void **)&f->text, &f->ntext_cap, f->ntext + 1, sizeof(*f->text));
	err = err ?: read_text(b, addr, code, len);
	if (err) {
		free(code);
		return err;
	}
	f->text[f->ntext++] = (struct cfg_text){addr, code, len};
	return 0;
}

static void text_error(const struct bfunc *f, const struct blocks *b, int err, char *why,
		       size_t len)
{
	if (*b->text_path)
		snprintf(why, len, "--blocks %s: cannot read its text from /proc/kcore or %s: %s",
			 f->name, b->text_path, strerror(-err));
	else
		snprintf(why, len,
			 "--blocks %s: cannot read its text from /proc/kcore: %s; pass the "
			 "kernel's file with --vmlinux PATH",
			 f->name, strerror(-err));
}

static int resolve_symbol(struct bfunc *f, const struct ksym *s, const struct blocks *b, char *why,
			  size_t len)
{
	__u64 end = next_symbol(b->ks, s->addr);
	int err;

	f->addr = s->addr;
	f->size = end > s->addr ? end - s->addr : 0;
	if (!f->size || f->size > MAX_SIZE) {
		snprintf(why, len,
			 "--blocks %s: its size is unknown or above %d KiB (no symbol after it "
			 "in /proc/kallsyms within reach); pick a smaller function",
			 f->name, MAX_SIZE >> 10);
		return -E2BIG;
	}
	err = add_part(f, b, f->addr, f->size);
	if (err)
		text_error(f, b, err, why, len);
	return err;
}

/* One blocks_resolve() call: the disassembler the instance helpers share. */
struct rctx {
	struct blocks *b;
	const struct blocks_opts *o;
	csh cs;
	cs_insn *insn;
	__u8 *pcode; /* the parent's running text, [parent_addr, + parent_size) */
	char *why;
	size_t len;
};

static bool in_parts(const struct bfunc *f, __u64 addr)
{
	size_t i;

	for (i = 0; i < f->ntext; i++) {
		if (addr >= f->text[i].addr && addr - f->text[i].addr < f->text[i].len)
			return true;
	}
	return false;
}

/* The parent's instruction at addr into r->insn; false outside its text or undecodable. */
static bool decode(struct rctx *r, const struct bfunc *f, __u64 addr)
{
	const uint8_t *p;
	size_t left;
	uint64_t pc = addr;

	if (addr < f->parent_addr || addr - f->parent_addr >= f->parent_size)
		return false;
	p = r->pcode + (addr - f->parent_addr);
	left = f->parent_size - (addr - f->parent_addr);
	return cs_disasm_iter(r->cs, &p, &left, &pc, r->insn);
}

/* An instruction after which control may go on to the next one. */
static bool goes_on(struct rctx *r)
{
	static const int groups[] = {CS_GRP_JUMP, CS_GRP_RET, CS_GRP_INT, CS_GRP_IRET};
	size_t i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (cs_insn_group(r->cs, r->insn, groups[i]) &&
		    (groups[i] != CS_GRP_JUMP || r->insn->id == X86_INS_JMP))
			return false;
	}
	return r->insn->id != X86_INS_UD2 && r->insn->id != X86_INS_INT3;
}

/* A direct jump's target, 0 for none. */
static __u64 target(struct rctx *r)
{
	const cs_x86 *d = &r->insn->detail->x86;

	if (!cs_insn_group(r->cs, r->insn, CS_GRP_JUMP) || d->op_count != 1 ||
	    d->operands[0].type != X86_OP_IMM)
		return 0;
	return d->operands[0].imm;
}

/*
 * Straight parent code from addr that runs back into the instance (the
 * compiler scheduled a parent instruction between two of its own): where it
 * comes back, 0 when it does not within BRIDGE_BUDGET instructions.
 */
static __u64 bridge_end(struct rctx *r, const struct bfunc *f, __u64 addr)
{
	int n;

	for (n = 0; n < BRIDGE_BUDGET; n++) {
		if (in_parts(f, addr))
			return addr;
		if (!decode(r, f, addr) || target(r) || !goes_on(r) ||
		    cs_insn_group(r->cs, r->insn, CS_GRP_CALL))
			return 0;
		addr += r->insn->size;
	}
	return 0;
}

/* Build f's graph; with bridges, again as long as a way out runs back in. */
static int build_instance(struct rctx *r, struct bfunc *f, struct cfg_env *env, char *w,
			  size_t wlen)
{
	bool more = true;
	__u64 end;
	size_t e;
	int err = 0;

	while (more && !err) {
		more = false;
		cfg_free(f->g);
		f->g = NULL;
		err = cfg_build(f->text, f->ntext, env, &f->g, w, wlen);
		for (e = 0; !err && e < f->g->ne; e++) {
			const struct cfg_edge *ed = &f->g->e[e];

			if (ed->to != CFG_OUT || ed->kind != CFG_EDGE_RETURN || !ed->addr)
				continue;
			end = bridge_end(r, f, ed->addr);
			if (end && end != ed->addr) {
				err = add_part(f, r->b, ed->addr, end - ed->addr);
				more = true;
			}
		}
	}
	return err;
}

static int add_exit(struct bfunc *f, __u64 addr, __u8 kind, __u8 cc)
{
	size_t i;
	int err;

	for (i = 0; i < f->nexits; i++) {
		if (f->exits[i].addr == addr)
			return 0;
	}
	if (f->nexits == KP_BLK_EXITS)
		return -E2BIG;
	err = array_reserve((void **)&f->exits, &f->exits_cap, f->nexits + 1, sizeof(*f->exits));
	if (!err)
		f->exits[f->nexits++] = (struct bexit){addr, {.kind = kind, .cc = cc}};
	return err;
}

/*
 * Where control goes on from the parent's instruction at addr if a probe
 * cannot sit there (a jump-label site: a nop or a jmp, as patched now).
 */
static __u64 alt_of(struct rctx *r, const struct bfunc *f, __u64 addr)
{
	if (!decode(r, f, addr))
		return 0;
	if (r->insn->id == X86_INS_NOP)
		return addr + r->insn->size;
	return r->insn->id == X86_INS_JMP ? target(r) : 0;
}

/*
 * Where a call of the instance ends: each edge leaving its graph.  Into the
 * parent: at the parent's code, in the instance's frame; a ret, a jump to
 * the return thunk, another function or an unknown target: at the jump in
 * place, when a jcc's condition holds if it is one.  Doomed ways out (a
 * BUG, a call that never returns) end nothing.
 */
static int find_exits(struct rctx *r, struct bfunc *f)
{
	const struct cfg *g = f->g;
	size_t e;
	int err = 0;

	for (e = 1; e < g->ne && !err; e++) {
		const struct cfg_edge *ed = &g->e[e];
		const struct cfg_block *b = &g->b[ed->from];

		if (ed->to != CFG_OUT || ed->kind == CFG_EDGE_NORETURN || ed->kind == CFG_EDGE_TRAP)
			continue;
		if (ed->kind == CFG_EDGE_RETURN && ed->addr) {
			err = add_exit(f, ed->addr, KP_BLK_EXIT_PARENT, 0);
			if (!err)
				f->exits[f->nexits - 1].alt = alt_of(r, f, ed->addr);
		} else if (b->cond && ed->kind != CFG_EDGE_NOT_TAKEN)
			err = add_exit(f, b->branch, KP_BLK_EXIT_CC, (__u8)b->cc);
		else
			err = add_exit(f, b->branch, KP_BLK_EXIT_ALWAYS, 0);
	}
	return err;
}

/* Parent code that jumps or runs into the instance elsewhere than at its entry. */
static int find_side_entries(struct rctx *r, struct bfunc *f)
{
	__u64 addr = f->parent_addr, to, next;
	int err = 0;

	while (!err && decode(r, f, addr)) {
		next = addr + r->insn->size;
		if (!in_parts(f, addr)) {
			to = target(r);
			if (to && to != f->addr && in_parts(f, to))
				err = add_exit(f, to, KP_BLK_SIDE_ENTRY, 0);
			if (!err && goes_on(r) && next != f->addr && in_parts(f, next))
				err = add_exit(f, next, KP_BLK_SIDE_ENTRY, 0);
		}
		addr = next;
	}
	return err;
}

/* The parent's running text, for bridges and side entries. */
static int read_parent(struct rctx *r, struct bfunc *f, const struct inline_instance *in)
{
	const struct ksym *s = ksyms_lookup(r->b->ks, in->parent_lo + r->b->slide);
	__u64 end;

	if (!s || s->addr != in->parent_lo + r->b->slide)
		return -ENOENT;
	end = next_symbol(r->b->ks, s->addr);
	f->parent_addr = s->addr;
	f->parent_size = end > s->addr ? end - s->addr : 0;
	if (!f->parent_size || f->parent_size > MAX_SIZE)
		return -E2BIG;
	free(r->pcode);
	r->pcode = malloc(f->parent_size);
	if (!r->pcode)
		return -ENOMEM;
	return read_text(r->b, f->parent_addr, r->pcode, f->parent_size);
}

/*
 * The instance's ranges as text parts at running addresses: text[0] from its
 * entry to the end of that range, then what comes before the entry in it
 * (code the compiler scheduled ahead, which the entry does not reach unless a
 * loop does), then the other ranges.
 */
static int instance_parts(struct rctx *r, struct bfunc *f, const struct inline_instance *in)
{
	__u64 lo, hi, e = f->addr;
	size_t i;
	int err = 0;

	for (i = 0; i < in->nranges && !err; i++) {
		lo = in->ranges[i].lo + r->b->slide;
		hi = in->ranges[i].hi + r->b->slide;
		if (e >= lo && e < hi)
			err = add_part(f, r->b, e, hi - e);
	}
	if (!err && !f->ntext)
		return -ENODATA;
	for (i = 0; i < in->nranges && !err; i++) {
		lo = in->ranges[i].lo + r->b->slide;
		hi = in->ranges[i].hi + r->b->slide;
		if (e >= lo && e < hi)
			hi = e;
		if (hi > lo)
			err = add_part(f, r->b, lo, hi - lo);
	}
	return err;
}

/* The name of instance i of n: NAME alone, NAME@PARENT, or NAME@PARENT+0xOFF when it shares one. */
static void instance_name(struct bfunc *f, const char *name, const struct inline_instance *v,
			  size_t n, size_t i)
{
	size_t j, same = 0;

	for (j = 0; j < n; j++)
		same += !strcmp(v[j].parent, v[i].parent);
	if (n == 1)
		snprintf(f->name, sizeof(f->name), "%s", name);
	else if (same == 1)
		snprintf(f->name, sizeof(f->name), "%s@%s", name, v[i].parent);
	else
		snprintf(f->name, sizeof(f->name), "%s@%s+0x%llx", name, v[i].parent,
			 (unsigned long long)(v[i].entry - v[i].parent_lo));
}

static int resolve_instance(struct rctx *r, struct bfunc *f, const struct inline_instance *in)
{
	struct env_arg env = {r->b->ks, in->parent_ranges, in->nparent_ranges, r->b->slide};
	struct cfg_env cenv = {.callee = callee, .arg = &env};
	char w[256] = "", var[64];
	size_t i;
	int err;

	f->inl = true;
	snprintf(f->func, sizeof(f->func), "%s", in->func);
	snprintf(f->parent, sizeof(f->parent), "%s", in->parent);
	snprintf(f->call_file, sizeof(f->call_file), "%s", in->call_file ?: "");
	f->call_line = in->call_line;
	f->addr = in->entry + r->b->slide;
	err = read_parent(r, f, in);
	if (err) {
		snprintf(r->why, r->len, "--blocks %s: cannot read the text of %s, its parent: %s",
			 f->name, in->parent, strerror(-err));
		return err;
	}
	err = instance_parts(r, f, in);
	err = err ?: build_instance(r, f, &cenv, w, sizeof(w));
	if (err) {
		snprintf(r->why, r->len, "--blocks %s: cannot disassemble it in %s: %s", f->name,
			 in->parent, w[0] ? w : strerror(-err));
		return err;
	}
	/* the text probed: the instance's ranges and the parent code bridging them */
	for (f->size = 0, i = 0; i < f->ntext; i++)
		f->size += f->text[i].len;
	err = find_exits(r, f) ?: find_side_entries(r, f);
	if (err == -E2BIG)
		snprintf(r->why, r->len,
			 "--blocks %s: more than %d exits and side entries to probe; pick its "
			 "parent, --blocks %s",
			 f->name, KP_BLK_EXITS, in->parent);
	/* which slab cache a call is for: the instance's own struct kmem_cache * parameter */
	if (!err)
		dwarf_fetch_pointer_to(r->b->di, in->entry, "kmem_cache", &f->cache, var,
				       sizeof(var));
	return err;
}

static void no_dwarf(struct rctx *r, const char *name, int err, const char *path)
{
	struct utsname u;
	char how[512];

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "RELEASE");
	if (err != -ENOENT || *path)
		debuginfo_explain(err, path, u.release, how, sizeof(how));
	else
		snprintf(how, sizeof(how),
			 "none found for %s here (install linux-image-%s-dbg, or give its vmlinux "
			 "with --vmlinux)",
			 u.release, u.release);
	snprintf(r->why, r->len,
		 "--blocks %s: no function of that name in /proc/kallsyms; if it is inlined into "
		 "all its callers, kprotperf counts it at each inline instance with the kernel's "
		 "debug info: %s",
		 name, how);
}

static int resolve_instances(struct rctx *r, const char *name)
{
	struct blocks *b = r->b;
	struct inline_instance *v = NULL;
	size_t n = 0, i;
	int err;

	if (!b->di) {
		no_dwarf(r, name, b->dwarf_err, b->dwarf_path);
		return b->dwarf_err;
	}
	err = inlines_find(b->di, name, &v, &n);
	if (err || !n) {
		snprintf(r->why, r->len,
			 "--blocks %s: no function of that name in /proc/kallsyms%s; pass a "
			 "function of this kernel",
			 name,
			 err ? " or the kernel's DWARF"
			     : ", and its DWARF has no inline "
			       "instance of it");
		inlines_free(v, n);
		return err ?: -ENOENT;
	}
	if (b->n + n > KP_BLK_FUNCS) {
		snprintf(r->why, r->len,
			 "--blocks %s: %zu inline instances, more than the %zu --blocks functions "
			 "left (at most %d); pick one of its parents instead",
			 name, n, KP_BLK_FUNCS - b->n, KP_BLK_FUNCS);
		inlines_free(v, n);
		return -E2BIG;
	}
	for (i = 0; i < n && !err; i++) {
		instance_name(&b->f[b->n], name, v, n, i);
		err = resolve_instance(r, &b->f[b->n++], &v[i]);
	}
	inlines_free(v, n);
	return err;
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

static int resolve_function(struct rctx *r, struct bfunc *f, const struct ksym *s,
			    const struct btf *btf)
{
	struct env_arg env = {.ks = r->b->ks};
	struct cfg_env cenv = {.callee = callee, .arg = &env};
	char w[256] = "";
	int err;

	err = resolve_symbol(f, s, r->b, r->why, r->len);
	if (err)
		return err;
	err = cfg_build(f->text, f->ntext, &cenv, &f->g, w, sizeof(w));
	if (err) {
		snprintf(r->why, r->len, "--blocks %s: cannot disassemble it: %s", f->name,
			 w[0] ? w : strerror(-err));
		return err;
	}
	/* the first argument, in %rdi at the entry (x86_64 calling convention) */
	if (arg0_cache(btf, f->name))
		f->cache =
			(struct kp_fetch){.n = 1, .ops = {{.op = KP_FOP_REG, .arg = KP_FREG_DI}}};
	return 0;
}

/* What every --blocks function needs past its graph: the checks, probe slots, loop bounds. */
static int finish(struct rctx *r, struct bfunc *f)
{
	if (f->g->nb > r->o->limit) {
		snprintf(r->why, r->len,
			 "--blocks %s: %zu basic blocks, more than the %u probes --blocks-limit "
			 "allows; raise --blocks-limit (at most %d) or pick an inline part of it",
			 f->name, f->g->nb, r->o->limit, KP_BLK_MAX);
		return -E2BIG;
	}
	/* a call begins at the entry block's probe: nothing else may reach it */
	if (f->g->b[f->g->entry].npred != 1) {
		snprintf(r->why, r->len,
			 "--blocks %s: its entry block is also reached from inside it, so its "
			 "probe cannot tell a call from a loop",
			 f->name);
		return -EINVAL;
	}
	f->probed = calloc(f->g->nb, sizeof(*f->probed));
	if (!f->probed)
		return -ENOMEM;
	return loopbound_find(f->g, f->text, f->ntext, r->b->di, r->b->slide, &f->lb, &f->nlb);
}

static int resolve_one(struct rctx *r, const char *name, const struct btf *btf)
{
	const struct ksym *s = find_symbol(r->b->ks, name);
	size_t first = r->b->n, i;
	int err;

	if (s) {
		if (r->b->n == KP_BLK_FUNCS)
			return -E2BIG;
		snprintf(r->b->f[r->b->n].name, sizeof(r->b->f[0].name), "%s", name);
		snprintf(r->b->f[r->b->n].func, sizeof(r->b->f[0].func), "%s", name);
		err = resolve_function(r, &r->b->f[r->b->n++], s, btf);
	} else {
		err = resolve_instances(r, name);
	}
	for (i = first; i < r->b->n && !err; i++)
		err = finish(r, &r->b->f[i]);
	return err;
}

/*
 * The kernel's DWARF, which names loop bounds (without it they are named by
 * register) and finds inline instances; its file (or a --vmlinux without
 * DWARF) gives the text when /proc/kcore is missing.  Only a --vmlinux that
 * is unusable as either, or of another build, is an error.
 */
static int open_dwarf(struct blocks *b, const struct blocks_opts *o, char *why, size_t len)
{
	char how[512];
	int err = running_dwarf_open(&b->di, &b->slide, o->vmlinux, b->ks, b->dwarf_path,
				     sizeof(b->dwarf_path));

	b->dwarf_err = err;
	snprintf(b->text_path, sizeof(b->text_path), "%s",
		 o->vmlinux ?: (err ? "" : b->dwarf_path));
	if (!err || !o->vmlinux || err == -ENODATA)
		return 0;
	debuginfo_explain(err, b->dwarf_path, NULL, how, sizeof(how));
	snprintf(why, len, "--blocks: --vmlinux %s: %s", o->vmlinux, how);
	return err;
}

int blocks_resolve(struct blocks *b, const struct blocks_opts *o, char *why, size_t len)
{
	struct rctx r = {.b = b, .o = o, .why = why, .len = len};
	struct btf *btf = btf__load_vmlinux_btf();
	int i, err;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &r.cs) != CS_ERR_OK) {
		btf__free(btf);
		return -ENOTSUP;
	}
	cs_option(r.cs, CS_OPT_DETAIL, CS_OPT_ON);
	r.insn = cs_malloc(r.cs);
	err = open_dwarf(b, o, why, len);
	for (i = 0; i < o->n && r.insn && !err; i++)
		err = resolve_one(&r, o->funcs[i], btf);
	if (!r.insn)
		err = -ENOMEM;
	cs_free(r.insn, 1);
	cs_close(&r.cs);
	free(r.pcode);
	btf__free(btf);
	return err;
}

void blocks_resolve_free(struct bfunc *f)
{
	size_t i;

	cfg_free(f->g);
	for (i = 0; i < f->ntext; i++)
		free((void *)f->text[i].code);
	free(f->text);
	free(f->probed);
	free(f->lb);
	free(f->exits);
	free(f->prev);
}

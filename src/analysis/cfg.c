/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kernel function's control-flow graph, from its text.
 *
 * The text is swept linearly (x86 kernel text holds no data), then only
 * what the entry reaches becomes blocks: padding (int3 after jumps, nops
 * before the next function) and code after a BUG's ud2 that nothing jumps
 * to never do.  A block ends at a jump, a return, a jump-label site, a call
 * that never returns, a trap, or before an instruction something jumps to.
 *
 * What leaves the function is an edge to CFG_OUT, so that with the edge
 * e[0] entering it every block conserves flow: its count is the sum of its
 * in-edges and of its out-edges.  A jump-label site is a two-way branch,
 * as inline_exits.c takes it, since either way may be patched in.  Calls
 * to indirect thunks are calls; a jump to one is an indirect jump, whose
 * targets no one knows: with retpolines the kernel builds no jump tables,
 * so it is a tail call through a pointer, but without them a switch's
 * cases are code reached from nowhere (counted in unreached) and their
 * counts break conservation, which cfg_edge_counts() reports.
 *
 * Dominators, loops and flow are cfg_flow.c's.
 */
#include "analysis/cfg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>

#include "util/array.h"

enum ins_kind {
	I_PLAIN,   /* runs on into the next instruction: calls and WARN's ud2 included */
	I_JCC,	   /* conditional jump to target */
	I_SITE,	   /* jump-label site: on, or to target */
	I_JMP,	   /* direct jump to target */
	I_JMP_IND, /* indirect jump */
	I_RET,
	I_NORET, /* call that never returns */
	I_TRAP,	 /* BUG's ud2, int3 */
};

struct ins {
	__u64 addr, target;
	__u8 size;
	__u8 kind;
	__s8 cc;
	bool pad; /* int3 or nop: what the compiler pads with between and after functions */
	bool leader, reached;
};

/* One cfg_build() call. */
struct build {
	const struct cfg_text *text;
	size_t ntext;
	const struct cfg_env *env;
	struct ins *v; /* sorted by addr */
	size_t n, cap;
	__u64 *bad; /* per text part: where capstone stopped decoding, or its end */
	int *stack;
	size_t nstack, stack_cap;
	struct cfg *g;
	char *why;
	size_t wlen;
};

/* objtool's global_noreturns of 6.1 to 6.12 */
static const char *const noreturns[] = {
	"__invalid_creds",
	"__module_put_and_kthread_exit",
	"__reiserfs_panic",
	"__stack_chk_fail",
	"__ubsan_handle_builtin_unreachable",
	"__fortify_panic",
	"fortify_panic",
	"cpu_bringup_and_idle",
	"cpu_startup_entry",
	"do_exit",
	"do_group_exit",
	"do_task_dead",
	"ex_handler_msr_mce",
	"hlt_play_dead",
	"hv_ghcb_terminate",
	"kthread_complete_and_exit",
	"kthread_exit",
	"kunit_try_catch_throw",
	"lbug_with_loc",
	"machine_real_restart",
	"make_task_dead",
	"mpt_halt_firmware",
	"nmi_panic_self_stop",
	"panic",
	"panic_smp_self_stop",
	"rest_init",
	"rewind_stack_and_make_dead",
	"rust_begin_unwind",
	"sev_es_terminate",
	"snp_abort",
	"start_kernel",
	"stop_this_cpu",
	"usercopy_abort",
	"x86_64_start_kernel",
	"x86_64_start_reservations",
	"xen_cpu_bringup_again",
	"xen_start_kernel",
};

bool cfg_noreturn_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(noreturns) / sizeof(noreturns[0]); i++) {
		if (!strcmp(name, noreturns[i]))
			return true;
	}
	return false;
}

bool cfg_cc_taken(int cc, __u64 flags)
{
	bool cf = flags & 1, pf = flags & (1 << 2), zf = flags & (1 << 6), sf = flags & (1 << 7),
	     of = flags & (1 << 11), t;

	switch (cc >> 1) {
	case 0:
		t = of;
		break;
	case 1:
		t = cf;
		break;
	case 2:
		t = zf;
		break;
	case 3:
		t = cf || zf;
		break;
	case 4:
		t = sf;
		break;
	case 5:
		t = pf;
		break;
	case 6:
		t = sf != of;
		break;
	default:
		t = zf || sf != of;
		break;
	}
	/* odd codes are the negations */
	return (cc & 1) ? !t : t;
}

/* The x86 condition code of a jcc, -1 for other instructions. */
static int jcc_cc(unsigned int id)
{
	static const unsigned int ids[16] = {
		X86_INS_JO,  X86_INS_JNO, X86_INS_JB,  X86_INS_JAE, X86_INS_JE, X86_INS_JNE,
		X86_INS_JBE, X86_INS_JA,  X86_INS_JS,  X86_INS_JNS, X86_INS_JP, X86_INS_JNP,
		X86_INS_JL,  X86_INS_JGE, X86_INS_JLE, X86_INS_JG,
	};
	int i;

	for (i = 0; i < 16; i++) {
		if (ids[i] == id)
			return i;
	}
	return -1;
}

static int fail(struct build *b, int err, const char *fmt, unsigned long long a)
{
	snprintf(b->why, b->wlen, fmt, a);
	return err;
}

static int oom(struct build *b)
{
	snprintf(b->why, b->wlen, "out of memory");
	return -ENOMEM;
}

static enum cfg_callee callee(const struct build *b, __u64 addr)
{
	return b->env && b->env->callee ? b->env->callee(b->env->arg, addr) : CFG_CALLEE_FUNC;
}

/* The text part holding addr, or -1. */
static int part_of(const struct build *b, __u64 addr)
{
	size_t i;

	for (i = 0; i < b->ntext; i++) {
		if (addr >= b->text[i].addr && addr - b->text[i].addr < b->text[i].len)
			return (int)i;
	}
	return -1;
}

static void classify(const struct build *b, csh cs, const cs_insn *ci, struct ins *in)
{
	const cs_x86 *d = &ci->detail->x86;
	bool direct = d->op_count == 1 && d->operands[0].type == X86_OP_IMM;
	__u64 target = direct ? (__u64)d->operands[0].imm : 0;
	const struct cfg_env *env = b->env;
	__u64 on;

	*in = (struct ins){.addr = ci->address, .size = ci->size, .target = target, .cc = -1};
	in->pad = ci->id == X86_INS_INT3 || ci->id == X86_INS_NOP;
	if (env && env->site && env->site(env->arg, ci->address, &on))
		in->kind = I_SITE, in->target = on;
	else if (cs_insn_group(cs, ci, CS_GRP_RET) || cs_insn_group(cs, ci, CS_GRP_IRET))
		in->kind = I_RET;
	else if (ci->id == X86_INS_UD2 || ci->id == X86_INS_UD2B)
		in->kind = env && env->warn && env->warn(env->arg, ci->address) ? I_PLAIN : I_TRAP;
	else if (ci->id == X86_INS_INT3)
		in->kind = I_TRAP;
	else if (cs_insn_group(cs, ci, CS_GRP_JUMP) && ci->id != X86_INS_JMP)
		in->kind = I_JCC, in->cc = (__s8)jcc_cc(ci->id);
	else if (cs_insn_group(cs, ci, CS_GRP_JUMP))
		in->kind = direct ? I_JMP : I_JMP_IND;
	else if (cs_insn_group(cs, ci, CS_GRP_CALL) && direct && part_of(b, target) < 0 &&
		 callee(b, target) == CFG_CALLEE_NORETURN)
		in->kind = I_NORET;
	else
		in->kind = I_PLAIN;
}

static int cmp_ins(const void *x, const void *y)
{
	const struct ins *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Sweep every part, stopping where capstone cannot go on: only reaching there is an error. */
static int decode(struct build *b)
{
	cs_insn *ci;
	size_t i, len;
	const uint8_t *p;
	uint64_t pc;
	csh cs;
	int err = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		snprintf(b->why, b->wlen, "capstone cannot disassemble x86_64");
		return -ENOTSUP;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(cs);
	for (i = 0; ci && !err && i < b->ntext; i++) {
		p = b->text[i].code;
		len = b->text[i].len;
		pc = b->text[i].addr;
		while (!err && cs_disasm_iter(cs, &p, &len, &pc, ci)) {
			err = array_reserve((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v));
			if (!err)
				classify(b, cs, ci, &b->v[b->n++]);
		}
		b->bad[i] = pc;
	}
	if (ci)
		cs_free(ci, 1);
	cs_close(&cs);
	if (!ci || err)
		return oom(b);
	if (b->n)
		qsort(b->v, b->n, sizeof(*b->v), cmp_ins);
	return 0;
}

/* The instruction at addr: its index, -1 when addr is outside the text, else -errno and why. */
static int ins_at(struct build *b, __u64 addr, int *idx)
{
	size_t l = 0, h = b->n, m;
	int part = part_of(b, addr);

	if (part < 0)
		return *idx = -1, 0;
	while (l < h) {
		m = l + (h - l) / 2;
		if (b->v[m].addr < addr)
			l = m + 1;
		else
			h = m;
	}
	*idx = (int)l;
	if (l < b->n && b->v[l].addr == addr)
		return 0;
	if (addr >= b->bad[part])
		return fail(b, -EILSEQ, "capstone cannot decode at %#llx", addr);
	return fail(b, -EINVAL, "a jump into the middle of the instruction before %#llx",
		    b->v[l].addr);
}

/* The instruction after v[i] if it is in the text: its index, -1 when v[i] ends the text. */
static int next_ins(struct build *b, size_t i, int *idx)
{
	return ins_at(b, b->v[i].addr + b->v[i].size, idx);
}

static bool goes_on(const struct ins *in)
{
	return in->kind == I_PLAIN || in->kind == I_JCC || in->kind == I_SITE;
}

static bool has_target(const struct ins *in)
{
	return in->kind == I_JCC || in->kind == I_SITE || in->kind == I_JMP;
}

static int push(struct build *b, int i)
{
	int err = array_reserve((void **)&b->stack, &b->stack_cap, b->nstack + 1, sizeof(int));

	if (err)
		return oom(b);
	b->stack[b->nstack++] = i;
	return 0;
}

/* Mark what the entry reaches, and the leaders: jump targets and what follows a two-way branch. */
static int reach(struct build *b)
{
	struct ins *in;
	int i, t, err;

	err = ins_at(b, b->text[0].addr, &i) ?: push(b, i);
	if (!err)
		b->v[i].leader = true;
	while (!err && b->nstack) {
		for (i = b->stack[--b->nstack]; !err && i >= 0 && !b->v[i].reached;) {
			in = &b->v[i];
			in->reached = true;
			if (has_target(in)) {
				err = ins_at(b, in->target, &t);
				if (!err && t >= 0) {
					b->v[t].leader = true;
					err = push(b, t);
				}
			}
			if (err || !goes_on(in))
				break;
			err = next_ins(b, i, &t);
			if (!err && t >= 0 && in->kind != I_PLAIN)
				b->v[t].leader = true;
			i = t;
		}
	}
	return err;
}

static int add_block(struct build *b, size_t *cap, const struct ins *first)
{
	struct cfg *g = b->g;
	int err = array_reserve((void **)&g->b, cap, g->nb + 1, sizeof(*g->b));

	if (err)
		return oom(b);
	g->b[g->nb++] = (struct cfg_block){
		.start = first->addr,
		.succ = {-1, -1},
		.edge = {-1, -1},
		.cc = -1,
		.idom = -1,
		.loop = -1,
	};
	return 0;
}

/* Runs of reached instructions, cut at leaders and after anything that does not go straight on. */
static int make_blocks(struct build *b)
{
	struct cfg_block *blk = NULL;
	size_t i, cap = 0;
	int err = 0;

	for (i = 0; !err && i < b->n; i++) {
		if (!b->v[i].reached) {
			b->g->unreached += !b->v[i].pad;
			blk = NULL;
			continue;
		}
		if (!blk || b->v[i].leader || b->v[i].addr != blk->end) {
			err = add_block(b, &cap, &b->v[i]);
			blk = err ? NULL : &b->g->b[b->g->nb - 1];
		}
		if (!blk)
			continue;
		blk->end = b->v[i].addr + b->v[i].size;
		blk->branch = b->v[i].addr;
		blk->ninsn++;
		if (b->v[i].kind != I_PLAIN)
			blk = NULL;
	}
	return err;
}

static int add_edge(struct build *b, size_t *cap, int from, int to, enum cfg_edge_kind kind)
{
	struct cfg *g = b->g;
	struct cfg_block *blk = from >= 0 ? &g->b[from] : NULL;
	int err = array_reserve((void **)&g->e, cap, g->ne + 1, sizeof(*g->e));

	if (err)
		return oom(b);
	g->e[g->ne] = (struct cfg_edge){.from = from, .to = to, .kind = kind};
	if (blk) {
		blk->succ[blk->nsucc] = to;
		blk->edge[blk->nsucc++] = (int)g->ne;
		blk->exit |= to == CFG_OUT;
		blk->indirect |= kind == CFG_EDGE_INDIRECT;
	}
	g->ne++;
	return 0;
}

/* An edge leaving the text for addr. */
static int edge_out(struct build *b, size_t *cap, int from, __u64 addr, enum cfg_edge_kind kind)
{
	int err = add_edge(b, cap, from, CFG_OUT, kind);

	if (!err)
		b->g->e[b->g->ne - 1].addr = addr;
	return err;
}

/* An edge from block from to addr: a block, or out of the function the way a jump there leaves. */
static int edge_to(struct build *b, size_t *cap, int from, __u64 addr, enum cfg_edge_kind kind)
{
	int to = part_of(b, addr) >= 0 ? cfg_block_at(b->g, addr) : -1;

	if (to >= 0)
		return add_edge(b, cap, from, to, kind);
	switch (callee(b, addr)) {
	case CFG_CALLEE_RETURN:
		return add_edge(b, cap, from, CFG_OUT, CFG_EDGE_RETURN);
	case CFG_CALLEE_INDIRECT:
		return add_edge(b, cap, from, CFG_OUT, CFG_EDGE_INDIRECT);
	case CFG_CALLEE_PARENT:
		return edge_out(b, cap, from, addr, CFG_EDGE_RETURN);
	default:
		return edge_out(b, cap, from, addr, CFG_EDGE_TAIL);
	}
}

/*
 * Going on past the block's last instruction, in: into the next block, or
 * off the text, which only an inline instance's text does on purpose.
 */
static int edge_on(struct build *b, size_t *cap, int from, const struct ins *in,
		   enum cfg_edge_kind kind)
{
	__u64 next = in->addr + in->size;

	if (part_of(b, next) >= 0)
		return add_edge(b, cap, from, cfg_block_at(b->g, next), kind);
	return edge_out(b, cap, from, next,
			callee(b, next) == CFG_CALLEE_PARENT ? CFG_EDGE_RETURN : CFG_EDGE_NORETURN);
}

static int block_edges(struct build *b, size_t *cap, int bi)
{
	struct cfg_block *blk = &b->g->b[bi];
	const struct ins *in;
	int i, err;

	err = ins_at(b, blk->branch, &i);
	if (err)
		return err;
	in = &b->v[i];
	switch (in->kind) {
	case I_PLAIN:
		return edge_on(b, cap, bi, in, CFG_EDGE_FALL);
	case I_JMP:
		return edge_to(b, cap, bi, in->target, CFG_EDGE_JUMP);
	case I_JMP_IND:
		return add_edge(b, cap, bi, CFG_OUT, CFG_EDGE_INDIRECT);
	case I_RET:
		return add_edge(b, cap, bi, CFG_OUT, CFG_EDGE_RETURN);
	case I_NORET:
		return add_edge(b, cap, bi, CFG_OUT, CFG_EDGE_NORETURN);
	case I_TRAP:
		return add_edge(b, cap, bi, CFG_OUT, CFG_EDGE_TRAP);
	default:
		break;
	}
	blk->cond = true;
	blk->site = in->kind == I_SITE;
	blk->cc = in->cc;
	return edge_on(b, cap, bi, in, CFG_EDGE_NOT_TAKEN)
		       ?: edge_to(b, cap, bi, in->target, CFG_EDGE_TAKEN);
}

/* e[0] enters; then each block's out-edges; then every block's in-edges listed in g->in. */
static int make_edges(struct build *b)
{
	struct cfg *g = b->g;
	size_t cap = 0, i;
	int err, *fill, k, to;

	g->entry = cfg_block_at(g, b->text[0].addr);
	err = add_edge(b, &cap, -1, g->entry, CFG_EDGE_ENTRY);
	for (i = 0; !err && i < g->nb; i++)
		err = block_edges(b, &cap, (int)i);
	if (err)
		return err;
	for (i = 0; i < g->ne; i++)
		g->nindirect += g->e[i].kind == CFG_EDGE_INDIRECT;
	g->in = calloc(g->ne, sizeof(*g->in));
	fill = calloc(g->nb, sizeof(*fill));
	if (!g->in || !fill) {
		free(fill);
		return oom(b);
	}
	for (i = 0; i < g->ne; i++) {
		if (g->e[i].to >= 0)
			g->b[g->e[i].to].npred++;
	}
	for (i = 0, k = 0; i < g->nb; i++) {
		g->b[i].in_first = k;
		k += g->b[i].npred;
	}
	for (i = 0; i < g->ne; i++) {
		to = g->e[i].to;
		if (to >= 0)
			g->in[g->b[to].in_first + fill[to]++] = (int)i;
	}
	free(fill);
	return 0;
}

int cfg_block_at(const struct cfg *g, __u64 addr)
{
	size_t l = 0, h = g->nb, m;

	while (l < h) {
		m = l + (h - l) / 2;
		if (g->b[m].end <= addr)
			l = m + 1;
		else
			h = m;
	}
	return l < g->nb && g->b[l].start <= addr ? (int)l : -1;
}

__u64 cfg_insns(const struct cfg *g, const __u64 *counts)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < g->nb; i++)
		sum += counts[i] * g->b[i].ninsn;
	return sum;
}

void cfg_free(struct cfg *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->nloops; i++) {
		free(g->loops[i].body);
		free(g->loops[i].latches);
		free(g->loops[i].exits);
	}
	free(g->loops);
	free(g->in);
	free(g->e);
	free(g->b);
	free(g);
}

int cfg_build(const struct cfg_text *text, size_t ntext, const struct cfg_env *env,
	      struct cfg **out, char *why, size_t wlen)
{
	struct build b = {.text = text, .ntext = ntext, .env = env, .why = why, .wlen = wlen};
	int err;

	*out = NULL;
	if (!ntext || !text[0].len) {
		snprintf(why, wlen, "no text to disassemble");
		return -EINVAL;
	}
	b.bad = calloc(ntext, sizeof(*b.bad));
	b.g = calloc(1, sizeof(*b.g));
	if (!b.bad || !b.g)
		err = oom(&b);
	else
		err = decode(&b) ?: reach(&b) ?: make_blocks(&b) ?: make_edges(&b) ?:
			      cfg_analyse(b.g, why, wlen);
	free(b.stack);
	free(b.v);
	free(b.bad);
	if (err) {
		cfg_free(b.g);
		return err;
	}
	b.g->addr = text[0].addr;
	*out = b.g;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exits of an inlined instance: the addresses record --func probes to
 * end the timing of an inlined-only function.
 *
 * Timing one invocation with kprobes: a probe at the instance's entry pc
 * starts it, a probe at any exit ends it.  The exits are found by
 * disassembling the instance's ranges: the end of a range the code can run
 * past, the target of a direct jump out of the ranges into the rest of the
 * parent, and in place a ret, a jump to __x86_return_thunk (how Debian's
 * kernels return) or a direct jump to another function (a tail call).
 * Calls are not exits: they come back into the instance.  A way out into
 * parent code that runs straight back in (a parent instruction scheduled
 * between two of the instance's) is no exit.  Kprobes refuse jump-label
 * sites, so an exit on one moves to both places the site may lead.
 *
 * Limits, which make some invocations time too short or go unmeasured:
 * - The compiler schedules the instance's code among its parent's: the entry
 *   pc is the first instruction of the inline body, but some of the body may
 *   run before it, and an invocation entered elsewhere is not seen.
 * - Parent code interleaved with the instance that branches before coming
 *   back ends the measurement where control left.
 * - A conditional jump to another function ends it even when not taken
 *   (counted in cond_exits).
 * - The targets of indirect jumps (jmp *reg, jmp __x86_indirect_thunk_*)
 *   are unknown, as are instructions capstone cannot decode: counted in
 *   unresolved, a way out that may be missed.
 * - The text is the file's, not the running kernel's.  Alternatives may swap
 *   instructions at boot; return thunks become ret in place, which is the
 *   same exit.  Jump-label sites (a nop or a jmp, patched at run time) are
 *   read from the vmlinux's __jump_table, so both of their ways count;
 *   static calls and modules' tables are not read, and a kprobe may still be
 *   refused on an exit that is an alternatives or static-call site.
 * - A ud2 is taken to fall through, as WARN's does; after a BUG's the exit
 *   is never reached.
 * - Relocatable objects (modules) are read without relocating their text:
 *   their calls and jumps to other sections resolve wrong.
 */
#include "analysis/inline_exits.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <capstone/capstone.h>

#include "analysis/inline_ctx.h"
#include "symbols/inlines.h"
#include "util/array.h"

/* instructions followed to see a way out come back in: a few scheduled in between */
#define REJOIN_BUDGET 8

/* One inlines_exits() call. */
struct exit_ctx {
	struct inlines_ctx *c;
	struct inline_instance *in;
	struct inline_exit *v;
	size_t n, cap;
};

static bool in_ranges(const struct inline_range *r, size_t n, __u64 addr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (addr >= r[i].lo && addr < r[i].hi)
			return true;
	}
	return false;
}

static bool is_jmp(const cs_insn *insn)
{
	return insn->id == X86_INS_JMP || insn->id == X86_INS_LJMP;
}

/* The target of a direct jump; false for an indirect one. */
static bool direct_target(const cs_insn *insn, __u64 *to)
{
	const cs_x86 *d = &insn->detail->x86;

	if (d->op_count != 1 || d->operands[0].type != X86_OP_IMM)
		return false;
	*to = d->operands[0].imm;
	return true;
}

static bool is_control(const struct inlines_ctx *c, const cs_insn *insn)
{
	static const int groups[] = {CS_GRP_JUMP, CS_GRP_CALL, CS_GRP_RET, CS_GRP_INT, CS_GRP_IRET};
	size_t i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (cs_insn_group(c->cs, insn, groups[i]))
			return true;
	}
	return insn->id == X86_INS_UD2;
}

/* The jump-label site at addr, which only counts in the parent. */
static const struct jump_site *site_at(const struct exit_ctx *x, __u64 addr)
{
	const struct inlines_ctx *c = x->c;
	size_t i = inlines_ctx_first_site(c, addr);

	if (i == c->nsites || c->sites[i].code != addr ||
	    !in_ranges(x->in->parent_ranges, x->in->nparent_ranges, addr))
		return NULL;
	return &c->sites[i];
}

/*
 * Whether the parent's code at addr cannot but come back into the instance,
 * as when the compiler scheduled a parent instruction between two of the
 * instance's: leaving for it is no exit.  Only straight code and direct jmps
 * are followed, a jump-label site both ways, for at most budget instructions.
 */
static bool rejoins(struct exit_ctx *x, __u64 addr, int budget)
{
	const struct inline_instance *in = x->in;
	cs_insn *ahead = x->c->ahead;
	const struct jump_site *site;
	__u64 next;

	for (; budget > 0; budget--) {
		if (in_ranges(in->ranges, in->nranges, addr))
			return true;
		if (!in_ranges(in->parent_ranges, in->nparent_ranges, addr) ||
		    !inlines_ctx_decode(x->c, addr, ahead))
			return false;
		next = addr + ahead->size;
		site = site_at(x, addr);
		if (site)
			return rejoins(x, next, budget - 1) && rejoins(x, site->target, budget - 1);
		if (is_jmp(ahead) && !direct_target(ahead, &next))
			return false;
		if (!is_jmp(ahead) && is_control(x->c, ahead))
			return false;
		addr = next;
	}
	return false;
}

static int add_exit(struct exit_ctx *x, __u64 addr, enum inline_exit_kind kind)
{
	int err = array_reserve((void **)&x->v, &x->cap, x->n + 1, sizeof(*x->v));

	if (err)
		return err;
	x->v[x->n++] = (struct inline_exit){.addr = addr, .kind = kind};
	return 0;
}

/* Control may go from the instance to addr outside it, in the parent. */
static int leave_to(struct exit_ctx *x, __u64 addr, enum inline_exit_kind kind, int depth)
{
	const struct jump_site *site = site_at(x, addr);

	if (rejoins(x, addr, REJOIN_BUDGET))
		return 0;
	/* kprobes refuse a jump-label site: probe where it may lead instead */
	if (site && depth < REJOIN_BUDGET && inlines_ctx_decode(x->c, addr, x->c->ahead))
		return leave_to(x, addr + x->c->ahead->size, kind, depth + 1)
			       ?: leave_to(x, site->target, kind, depth + 1);
	return add_exit(x, addr, kind);
}

/* A direct jump at from to to, conditional or not. */
static int jump_to(struct exit_ctx *x, __u64 from, __u64 to, bool cond)
{
	struct inline_instance *in = x->in;
	const struct thunk *t;

	if (in_ranges(in->ranges, in->nranges, to))
		return 0;
	if (in_ranges(in->parent_ranges, in->nparent_ranges, to))
		return leave_to(x, to, INLINE_EXIT_BRANCH, 0);
	t = inlines_ctx_thunk(x->c, to);
	if (t && !t->ret) {
		in->unresolved++;
		return 0;
	}
	/* the probe cannot tell whether the jump will be taken */
	if (cond)
		in->cond_exits++;
	return add_exit(x, from, t ? INLINE_EXIT_RETURN : INLINE_EXIT_TAIL_CALL);
}

/* Note the exits of one instruction; *next says whether control may go on to the next one. */
static int on_insn(struct exit_ctx *x, const cs_insn *insn, bool *next)
{
	csh cs = x->c->cs;
	__u64 to;

	*next = true;
	if (cs_insn_group(cs, insn, CS_GRP_RET) || cs_insn_group(cs, insn, CS_GRP_IRET)) {
		*next = false;
		return add_exit(x, insn->address, INLINE_EXIT_RETURN);
	}
	/* int3 pads after jumps and returns against straight-line speculation */
	if (insn->id == X86_INS_INT3) {
		*next = false;
		return 0;
	}
	if (!cs_insn_group(cs, insn, CS_GRP_JUMP))
		return 0;
	/* a jump-label site compiled as jmp may be patched into a nop */
	*next = !is_jmp(insn) || site_at(x, insn->address);
	if (!direct_target(insn, &to)) {
		x->in->unresolved++;
		return 0;
	}
	return jump_to(x, insn->address, to, *next);
}

static int scan_range(struct exit_ctx *x, const struct inline_range *r)
{
	struct inline_instance *in = x->in;
	size_t size = r->hi - r->lo, avail;
	cs_insn *insn = x->c->insn;
	const uint8_t *code;
	uint64_t pc = r->lo;
	bool next = true;
	int err;

	err = inlines_ctx_bytes(x->c, r->lo, &code, &avail);
	if (err)
		return err;
	if (avail < size)
		return -ERANGE;
	while (cs_disasm_iter(x->c->cs, &code, &size, &pc, insn)) {
		err = on_insn(x, insn, &next);
		if (err)
			return err;
	}
	/* what follows cannot be decoded: assume the worst of it */
	if (size) {
		in->unresolved++;
		next = true;
	}
	/* past the parent's end lies another function: only a noreturn call gets there */
	if (!next || !in_ranges(in->parent_ranges, in->nparent_ranges, r->hi))
		return 0;
	return leave_to(x, r->hi, INLINE_EXIT_FALLTHROUGH, 0);
}

/* Each jump-label site in the instance may jump, whichever way the file has it. */
static int site_jumps(struct exit_ctx *x)
{
	const struct inline_instance *in = x->in;
	const struct jump_site *site;
	size_t i, k;
	int err;

	for (k = 0; k < in->nranges; k++) {
		for (i = inlines_ctx_first_site(x->c, in->ranges[k].lo);
		     i < x->c->nsites && x->c->sites[i].code < in->ranges[k].hi; i++) {
			site = &x->c->sites[i];
			if (!in_ranges(in->parent_ranges, in->nparent_ranges, site->code))
				continue;
			err = jump_to(x, site->code, site->target, true);
			if (err)
				return err;
		}
	}
	return 0;
}

static int cmp_exit(const void *a, const void *b)
{
	const struct inline_exit *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static void finish_exits(struct exit_ctx *x)
{
	size_t i, out = 0;

	qsort(x->v, x->n, sizeof(*x->v), cmp_exit);
	for (i = 0; i < x->n; i++) {
		if (!out || x->v[out - 1].addr != x->v[i].addr)
			x->v[out++] = x->v[i];
	}
	free(x->in->exits);
	x->in->exits = x->v;
	x->in->nexits = out;
	x->v = NULL;
}

int inlines_exits(struct inlines_ctx *c, struct inline_instance *in)
{
	struct exit_ctx x = {.c = c, .in = in};
	size_t i;
	int err;

	in->unresolved = 0;
	in->cond_exits = 0;
	err = site_jumps(&x);
	for (i = 0; !err && i < in->nranges; i++)
		err = scan_range(&x, &in->ranges[i]);
	if (!err)
		finish_exits(&x);
	free(x.v);
	return err;
}

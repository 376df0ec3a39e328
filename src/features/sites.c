// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compiler-inserted protections by instruction pattern (sites.h).  One
 * linear pass: a kernel function's text holds no data, and a byte no
 * instruction decodes from is skipped and counted.
 */
#include "features/sites.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>

/* The fixed offset of the canary in the per-CPU area (x86_64, before 6.15). */
#define CANARY_GS_OFFSET 0x28

struct sites_scanner {
	csh cs;
	cs_insn *insn;
};

static const char *const kind_names[SITES_KINDS] = {
	[SITES_IBT] = "ibt",
	[SITES_CANARY] = "stack_canary",
	[SITES_RETURN_THUNK] = "return_thunk",
	[SITES_RETPOLINE] = "retpoline",
	[SITES_ZERO_REGS] = "zero_call_used_regs",
	[SITES_FORTIFY] = "fortify",
	[SITES_UBSAN] = "ubsan",
	[SITES_KCFI] = "kcfi",
	[SITES_UNCLASSIFIED] = "unclassified",
};

const char *sites_kind_name(enum sites_kind k)
{
	return k < SITES_KINDS ? kind_names[k] : "?";
}

int sites_scanner_new(struct sites_scanner **out)
{
	struct sites_scanner *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return -ENOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &sc->cs) != CS_ERR_OK) {
		free(sc);
		return -EINVAL;
	}
	cs_option(sc->cs, CS_OPT_DETAIL, CS_OPT_ON);
	sc->insn = cs_malloc(sc->cs);
	if (!sc->insn) {
		cs_close(&sc->cs);
		free(sc);
		return -ENOMEM;
	}
	*out = sc;
	return 0;
}

void sites_scanner_free(struct sites_scanner *sc)
{
	if (!sc)
		return;
	cs_free(sc->insn, 1);
	cs_close(&sc->cs);
	free(sc);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * Return thunks are all named *return_thunk (__x86_, srso_, srso_alias_,
 * retbleed_, call_depth_, its_) but Skylake's __x86_return_skl.
 */
enum sites_kind sites_target_kind(const char *name, bool call)
{
	if (ends(name, "return_thunk") || !strcmp(name, "__x86_return_skl"))
		return call ? SITES_UNCLASSIFIED : SITES_RETURN_THUNK;
	if (starts(name, "__x86_indirect_thunk_") || starts(name, "__x86_indirect_call_thunk_") ||
	    starts(name, "__x86_indirect_jump_thunk_") || starts(name, "__x86_indirect_its_thunk_"))
		return SITES_RETPOLINE;
	if (!strcmp(name, "fortify_panic") || !strcmp(name, "__fortify_panic") ||
	    !strcmp(name, "__fortify_report"))
		return SITES_FORTIFY;
	if (starts(name, "__ubsan_handle_"))
		return SITES_UBSAN;
	/* the kernel's own thunks are __x86_*: others (preempt_schedule_thunk) protect nothing */
	return starts(name, "__x86_") && strstr(name, "thunk") ? SITES_UNCLASSIFIED : SITES_KINDS;
}

/* What a direct branch to to protects: the first of its names a pattern knows. */
static enum sites_kind branch_kind(const struct sites_env *env, __u64 to, bool call)
{
	enum sites_kind k, found = SITES_KINDS;
	const char *name;
	unsigned int i;

	for (i = 0; env->name && (name = env->name(env->arg, to, i)); i++) {
		k = sites_target_kind(name, call);
		if (k < SITES_UNCLASSIFIED)
			return k;
		if (k == SITES_UNCLASSIFIED)
			found = k;
	}
	return found;
}

/* The direct target of a call, jmp or jcc; false for an indirect one. */
static bool direct_target(const cs_insn *in, __u64 *to)
{
	const cs_x86 *x = &in->detail->x86;

	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*to = x->operands[0].imm;
	return true;
}

static bool is_branch(csh cs, const cs_insn *in, bool *call)
{
	*call = cs_insn_group(cs, in, CS_GRP_CALL);
	return *call || cs_insn_group(cs, in, CS_GRP_JUMP);
}

/* A memory operand reading the canary: %gs:0x28, or %gs:__stack_chk_guard(%rip). */
static bool reads_canary(const struct sites_env *env, const cs_insn *in, const cs_x86_op *op)
{
	const x86_op_mem *m = &op->mem;
	const char *name;
	unsigned int i;

	if (op->type != X86_OP_MEM || m->segment != X86_REG_GS || m->index != X86_REG_INVALID)
		return false;
	if (m->base == X86_REG_INVALID)
		return m->disp == CANARY_GS_OFFSET;
	if (m->base != X86_REG_RIP || !env->name)
		return false;
	for (i = 0; (name = env->name(env->arg, in->address + in->size + m->disp, i)); i++) {
		if (!strcmp(name, "__stack_chk_guard"))
			return true;
	}
	return false;
}

/* The canary read by in, if any: SITES_CANARY (*check when it compares), or unclassified. */
static enum sites_kind canary_kind(const struct sites_env *env, const cs_insn *in, bool *check)
{
	const cs_x86 *x = &in->detail->x86;
	int i;

	for (i = 0; i < x->op_count; i++) {
		if (!reads_canary(env, in, &x->operands[i]))
			continue;
		*check = in->id == X86_INS_SUB || in->id == X86_INS_CMP || in->id == X86_INS_XOR;
		return *check || (in->id == X86_INS_MOV && i == 1) ? SITES_CANARY
								   : SITES_UNCLASSIFIED;
	}
	return SITES_KINDS;
}

/* xor r,r of a call-used register: 1 for %rax (a return value's zero too), 2 for another. */
static int zeroes_call_used(const cs_insn *in)
{
	static const x86_reg regs[] = {X86_REG_ECX, X86_REG_EDX, X86_REG_ESI,  X86_REG_EDI,
				       X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
				       X86_REG_RCX, X86_REG_RDX, X86_REG_RSI,  X86_REG_RDI,
				       X86_REG_R8,  X86_REG_R9,	 X86_REG_R10,  X86_REG_R11};
	const cs_x86 *x = &in->detail->x86;
	size_t i;

	if (in->id != X86_INS_XOR || x->op_count != 2 || x->operands[0].type != X86_OP_REG ||
	    x->operands[1].type != X86_OP_REG || x->operands[0].reg != x->operands[1].reg)
		return 0;
	if (x->operands[0].reg == X86_REG_EAX || x->operands[0].reg == X86_REG_RAX)
		return 1;
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (x->operands[0].reg == regs[i])
			return 2;
	}
	return 0;
}

/* mov $hash,%r10d: the first half of clang's kCFI check before an indirect call. */
static bool kcfi_mov(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	return in->id == X86_INS_MOV && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
	       x->operands[0].reg == X86_REG_R10D && x->operands[1].type == X86_OP_IMM;
}

/* add or cmp of [reg - n] (the target's hash, before its entry) into %r10d: the second half. */
static bool kcfi_add(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	return (in->id == X86_INS_ADD || in->id == X86_INS_CMP) && x->op_count == 2 &&
	       x->operands[0].type == X86_OP_REG && x->operands[0].reg == X86_REG_R10D &&
	       x->operands[1].type == X86_OP_MEM && x->operands[1].mem.base != X86_REG_INVALID &&
	       x->operands[1].mem.disp < 0;
}

struct pass {
	struct sites_scanner *sc;
	const struct sites_env *env;
	sites_cb *cb;
	void *arg;
	struct sites_found *found;
	int zeroed;	   /* the xors of call-used registers just before: 2 once one is not %rax */
	__u64 zero_from;   /* where those xors start */
	__u64 kcfi_mov_at; /* the instruction before was kcfi_mov(), here; 0: it was not */
};

static void found(struct pass *p, __u64 addr, __u64 end, enum sites_kind k)
{
	p->found->n[k]++;
	if (p->cb)
		p->cb(p->arg, addr, end - addr, k);
}

/* A return: ret, or a jmp to a return thunk; the xors before it decide zero_call_used_regs. */
static void at_return(struct pass *p, const cs_insn *in)
{
	if (p->zeroed != 2)
		return;
	found(p, p->zero_from, in->address + in->size, SITES_ZERO_REGS);
	p->found->zeroing += in->address - p->zero_from;
}

static void one(struct pass *p, const cs_insn *in, bool first)
{
	enum sites_kind k = SITES_KINDS;
	bool call, check = false;
	int z = zeroes_call_used(in);
	__u64 to;

	if (first && in->id == X86_INS_ENDBR64)
		k = SITES_IBT;
	else if (in->id == X86_INS_RET)
		at_return(p, in);
	else if (is_branch(p->sc->cs, in, &call) && direct_target(in, &to))
		k = branch_kind(p->env, to, call);
	else if (p->kcfi_mov_at && kcfi_add(in))
		found(p, p->kcfi_mov_at, in->address + in->size, SITES_KCFI);
	else
		k = canary_kind(p->env, in, &check);
	if (k == SITES_RETURN_THUNK)
		at_return(p, in);
	if (k != SITES_KINDS)
		found(p, in->address, in->address + in->size, k);
	p->found->canary_checks += check;
	if (z && !p->zeroed)
		p->zero_from = in->address;
	p->zeroed = z ? (z > p->zeroed ? z : p->zeroed) : 0;
	p->kcfi_mov_at = kcfi_mov(in) ? in->address : 0;
}

/*
 * What pads between functions: gas's alignment in code is nops, the
 * kernel's linker script fills between sections with int3 (0xcc).
 */
static bool is_fill(const cs_insn *in)
{
	return in->id == X86_INS_NOP || in->id == X86_INS_INT3;
}

void sites_scan(struct sites_scanner *sc, const struct sites_env *env, __u64 addr, const __u8 *code,
		size_t len, sites_cb *cb, void *arg, struct sites_found *out)
{
	struct pass p = {.sc = sc, .env = env, .cb = cb, .arg = arg, .found = out};
	const __u8 *c = code;
	size_t left = len, end = 0; /* where the last instruction that is no fill ends */
	uint64_t pc = addr;

	while (left) {
		if (!cs_disasm_iter(sc->cs, &c, &left, &pc, sc->insn)) {
			/* an undecodable byte: on at the next one */
			out->bad++;
			c++;
			left--;
			pc++;
			p.zeroed = 0;
			p.kcfi_mov_at = 0;
			/* no fill either */
			end = c - code;
			continue;
		}
		one(&p, sc->insn, c - code == sc->insn->size);
		out->insns++;
		if (!is_fill(sc->insn))
			end = c - code;
	}
	out->code += end;
}

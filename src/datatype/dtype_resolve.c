// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data-type resolver's entry (dtype.h): a file's variables indexed
 * once, a function's locations and graph the first time one of its PCs is
 * asked for, and every PC's answer kept, so that a report resolving the
 * tens of thousands of PCs of a kernel run pays for each function once.
 */
#include "datatype/dtype.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/dtype_int.h"
#include "analysis/cfg.h"
#include "analysis/file_cfg.h"
#include "symbols/debuginfo.h"

#define INIT_AHEAD 16 /* instructions looked ahead for a variable's location */

/* One PC's answer, as cached. */
struct dt_pc {
	unsigned int n;
	struct dtype_access a[DTYPE_MAX_ACCESS];
};

static void func_free(void *p)
{
	struct dt_func *fn = p;

	if (!fn)
		return;
	cfg_free(fn->g);
	free(fn->in);
	free(fn->reached);
	free(fn->locs);
	free(fn->rets);
	free(fn);
}

static void open_cfi(struct dtype_file *f)
{
	Dwfl_Module *mod = debuginfo_module(f->di);
	Dwarf_Addr dw_bias, cfi_bias = 0;

	debuginfo_dwarf(f->di, &dw_bias);
	f->cfi = dwfl_module_dwarf_cfi(mod, &cfi_bias);
	if (!f->cfi)
		f->cfi = dwfl_module_eh_cfi(mod, &cfi_bias);
	f->cfi_bias = dw_bias - cfi_bias;
}

int dtype_open(struct dtype_file **out, struct debuginfo *di)
{
	struct dtype_file *f = calloc(1, sizeof(*f));
	int err;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->di = di;
	f->dw = debuginfo_dwarf(di, NULL);
	err = f->dw ? file_cfg_open(&f->fc, di, NULL) : -ENODATA;
	if (!err && cs_open(CS_ARCH_X86, CS_MODE_64, &f->cs) != CS_ERR_OK)
		err = -ENOTSUP;
	if (!err && (cs_option(f->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
		     !(f->insn = f->own = cs_malloc(f->cs))))
		err = -ENOMEM;
	if (!err) {
		f->env = file_cfg_env(f->fc);
		open_cfi(f);
		err = dt_vars_load(f) ?: dt_randstruct_open(f);
	}
	if (err) {
		dtype_close(f);
		return err;
	}
	*out = f;
	return 0;
}

void dtype_close(struct dtype_file *f)
{
	if (!f)
		return;
	dt_cache_free(&f->pcs, free);
	dt_cache_free(&f->funcs, func_free);
	dt_cache_free(&f->callees, NULL);
	dt_cache_free(&f->aligns, NULL);
	dt_cache_free(&f->slabs, free); /* struct dt_slab, its strings interned */
	dt_cache_free(&f->objsyms, NULL);
	dt_cache_free(&f->kinds, NULL);
	dt_cache_free(&f->subs, dt_subs_free);
	dt_memo_free(&f->members, free); /* struct dt_res, its strings interned */
	dt_memo_free(&f->holds, NULL);
	dt_randstruct_close(f);
	dt_patch_free(f);
	dt_vars_free(f);
	dt_strs_free(&f->strs);
	dt_decoded_free(f);
	if (f->own)
		cs_free(f->own, 1);
	if (f->cs)
		cs_close(&f->cs);
	file_cfg_close(f->fc);
	free(f);
}

/*
 * What a call or a jump to addr is, as file_cfg's callee says (thunks by their names, the
 * functions that never return), from the sorted symbols rather than libdwfl's table walk.
 */
static enum cfg_callee callee(void *arg, __u64 addr)
{
	struct dtype_file *f = arg;
	const struct dt_sym *s = dt_sym_at(f, addr);
	enum cfg_callee k;
	bool found;
	void *v;

	if (!s || s->addr != addr) { /* no function symbol: a thunk's (not STT_FUNC), or none */
		/* file_cfg's answer asks libdwfl: once per target, not once per call of it */
		v = dt_cache_get(&f->kinds, addr, &found);
		if (found)
			return (enum cfg_callee)(uintptr_t)v;
		k = f->env.callee(f->env.arg, addr);
		dt_cache_put(&f->kinds, addr, (void *)(uintptr_t)k); /* else asked again */
		return k;
	}
	if (!strcmp(s->name, "__x86_return_thunk"))
		return CFG_CALLEE_RETURN;
	if (!strncmp(s->name, "__x86_indirect_thunk_", 21))
		return CFG_CALLEE_INDIRECT;
	return cfg_noreturn_name(s->name) ? CFG_CALLEE_NORETURN : CFG_CALLEE_FUNC;
}

static bool site(void *arg, __u64 addr, __u64 *target)
{
	const struct dtype_file *f = arg;

	return f->env.site(f->env.arg, addr, target);
}

static bool warn(void *arg, __u64 addr)
{
	const struct dtype_file *f = arg;

	return f->env.warn(f->env.arg, addr);
}

#define MAX_AUX 64 /* out-of-line alternative snippets a function's graph takes in */
#define AUX_LEN 64 /* bytes of one: a test and the jumps back */

static int by_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The jumps of g out to no function (static_cpu_has's jmp into .altinstr_aux, whose snippet
 * jumps back in) added to the targets tg[*n], kept sorted; whether any was new.
 */
static bool aux_targets(const struct dtype_file *f, const struct cfg *g, __u64 *tg, size_t *n)
{
	size_t i, j, had = *n;

	for (i = 0; i < g->ne && *n < MAX_AUX; i++) {
		if (g->e[i].kind != CFG_EDGE_TAIL || dt_sym_at(f, g->e[i].addr) ||
		    f->env.callee(f->env.arg, g->e[i].addr) != CFG_CALLEE_FUNC)
			continue; /* a tail call, or a thunk */
		for (j = 0; j < *n && tg[j] != g->e[i].addr; j++)
			;
		if (j == *n)
			tg[(*n)++] = g->e[i].addr;
	}
	qsort(tg, *n, sizeof(*tg), by_u64);
	return *n > had;
}

/* The bytes of the snippet at addr up to its jump back (within len); 0 when it has none. */
static size_t snippet(struct dtype_file *f, __u64 addr, size_t len)
{
	__u64 at = addr;

	while (at - addr < len && dt_decode(f, at)) {
		at += f->insn->size;
		if (f->insn->id == X86_INS_JMP || f->insn->id == X86_INS_RET)
			return at - addr <= len ? at - addr : 0;
	}
	return 0;
}

/* The function t and the snippets at tg[n] as the parts of one text, into parts; how many. */
static size_t with_snippets(struct dtype_file *f, const struct cfg_text *t, const __u64 *tg,
			    size_t n, struct cfg_text *parts)
{
	size_t i, k = 1, avail, len;

	parts[0] = *t;
	for (i = 0; i < n; i++) {
		len = i + 1 < n && tg[i + 1] - tg[i] < AUX_LEN ? tg[i + 1] - tg[i] : AUX_LEN;
		parts[k] = (struct cfg_text){.addr = tg[i]};
		if (file_cfg_bytes(f->fc, tg[i], &parts[k].code, &avail) || !avail)
			continue;
		parts[k].len = snippet(f, tg[i], len < avail ? len : avail);
		if (parts[k].len)
			k++;
	}
	return k;
}

/*
 * The graph of the function t, with the out-of-line snippets it jumps to as parts of it (and
 * those the code they lead back to jumps to, a few rounds), so that the code they jump back
 * to is reached; the plain graph when that fails.
 */
static struct cfg *graph(struct dtype_file *f, const struct cfg_text *t, const struct cfg_env *env)
{
	struct cfg_text parts[1 + MAX_AUX];
	struct cfg *g = NULL, *g2;
	__u64 tg[MAX_AUX];
	size_t n = 0, k;
	char why[128];
	int round;

	if (cfg_build(t, 1, env, &g, why, sizeof(why)))
		return NULL;
	for (round = 0; round < 8 && aux_targets(f, g, tg, &n); round++) {
		k = with_snippets(f, t, tg, n, parts);
		if (k == 1 || cfg_build(parts, k, env, &g2, why, sizeof(why)))
			break;
		cfg_free(g);
		g = g2;
	}
	return g;
}

/* The function holding pc, indexed the first time; NULL when no symbol holds it. */
struct dt_func *dt_func_of(struct dtype_file *f, __u64 pc)
{
	const struct dt_sym *sym = dt_sym_at(f, pc);
	struct cfg_env env = {callee, site, warn, f};
	struct cfg_text t;
	struct dt_func *fn;
	size_t avail;
	bool found;

	if (!sym || !sym->size)
		return NULL;
	t = (struct cfg_text){.addr = sym->addr, .len = sym->size};
	if (file_cfg_bytes(f->fc, t.addr, &t.code, &avail) || avail < t.len)
		return NULL;
	fn = dt_cache_get(&f->funcs, t.addr, &found);
	if (found)
		return fn;
	fn = calloc(1, sizeof(*fn));
	if (fn) {
		fn->addr = t.addr;
		fn->len = t.len;
		dt_stack_canary(f, fn);
		fn->g = dt_func_index(f, fn) ? NULL : graph(f, &t, &env);
		if (dt_flow_prepare(f, fn)) {
			func_free(fn);
			return NULL;
		}
	}
	if (dt_cache_put(&f->funcs, t.addr, fn)) {
		func_free(fn);
		return NULL;
	}
	return fn;
}

/* Whether in ends a straight run of code. */
static bool transfer(const struct dtype_file *f, const cs_insn *in)
{
	return cs_insn_group(f->cs, in, CS_GRP_JUMP) || cs_insn_group(f->cs, in, CS_GRP_CALL) ||
	       cs_insn_group(f->cs, in, CS_GRP_RET);
}

/*
 * A register with no type at pc whose variable's location starts a little further on in the
 * same straight run, nothing writing the register before: it holds that value already.
 */
static void ahead(struct dtype_file *f, const struct dt_func *fn, __u64 pc, int reg,
		  struct dt_reg *st)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr, i;
	struct dt_reg v;
	__u64 at = pc;
	int n;

	for (n = 0; n < INIT_AHEAD; n++) {
		if (!dt_decode(f, at) || transfer(f, f->insn) ||
		    cs_regs_access(f->cs, f->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
			return;
		for (i = 0; i < nwr; i++)
			if (dt_dwreg(wr[i]) == reg)
				return;
		at += f->insn->size;
		if (dt_loc_reg(f, fn, at, reg, &v) && v.type) {
			*st = v;
			st->how = DT_FLOW;
			return;
		}
	}
}

/* The registers at pc that the memory operands m[n] use as base. */
static void regs_at(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		    const struct dt_mem *m, unsigned int n, struct dt_regs *regs)
{
	struct dt_reg st;
	unsigned int i;
	int b;

	memset(regs, 0, sizeof(*regs));
	if (fn)
		dt_flow(f, fn, pc, regs);
	for (i = 0; fn && i < n; i++) {
		b = m[i].base;
		if (b < 0 || b >= DT_NREGS - 1 || !dt_loc_reg(f, fn, pc, b, &st))
			continue;
		/* a pointer to what flow's object holds there: the object, the variable a hint */
		if (st.type && regs->r[b].type &&
		    dt_holds(f, regs->r[b].type, regs->r[b].off - st.off, st.type) &&
		    regs->r[b].off != st.off) {
			regs->r[b].hint = st.type;
			continue;
		}
		if (st.type || !regs->r[b].type)
			regs->r[b] = st; /* the variable there, over what flow found */
	}
	for (i = 0; fn && i < n; i++) {
		b = m[i].base;
		if (b >= 0 && b < DT_NREGS - 1 && b != 7 && !regs->r[b].type &&
		    !regs->r[b].in_frame)
			ahead(f, fn, pc, b, &regs->r[b]);
	}
}

/*
 * A store into a frame slot no variable holds yet: when a variable's location there starts
 * further on in the same straight run of code (no jump, call or return before), the store is
 * what sets it.  The stack pointer moves only by the instructions passed (push, pop).
 */
static void initialized(struct dtype_file *f, const struct dt_func *fn, const struct dt_regs *regs,
			const struct dt_mem *m, struct dt_res *r)
{
	struct dt_res next;
	__u64 at = m->next;
	int n;

	for (n = 0; n < INIT_AHEAD; n++) {
		dt_stack(f, fn, at, m->base, m->disp, regs, &next);
		if (next.a.how == DT_STACK) {
			*r = next;
			return;
		}
		if (!dt_decode(f, at) || f->insn->id == X86_INS_PUSH ||
		    f->insn->id == X86_INS_POP || cs_insn_group(f->cs, f->insn, CS_GRP_JUMP) ||
		    cs_insn_group(f->cs, f->insn, CS_GRP_CALL) ||
		    cs_insn_group(f->cs, f->insn, CS_GRP_RET))
			return;
		at += f->insn->size;
	}
}

/* lock add $0 or lock or $0 to the stack: mb()'s access, to no data. */
static bool barrier(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	return x->prefix[0] == X86_PREFIX_LOCK && (in->id == X86_INS_ADD || in->id == X86_INS_OR) &&
	       x->op_count == 2 && x->operands[0].type == X86_OP_MEM &&
	       x->operands[0].mem.base == X86_REG_RSP && x->operands[1].type == X86_OP_IMM &&
	       !x->operands[1].imm;
}

/*
 * A rep-prefixed string instruction: the model counts each iteration at its
 * PC, and they walk the object from where the registers start; which
 * member each touches no static operand says.  SSE's movsd and cmpsd share
 * ids with the string forms and carry F2/F3 as part of their opcode: they
 * have an XMM operand, or memory off another base.
 */
static bool rep_string(const cs_insn *in)
{
	static const unsigned int ids[] = {
		X86_INS_STOSB, X86_INS_STOSW, X86_INS_STOSD, X86_INS_STOSQ, X86_INS_MOVSB,
		X86_INS_MOVSW, X86_INS_MOVSD, X86_INS_MOVSQ, X86_INS_LODSB, X86_INS_LODSW,
		X86_INS_LODSD, X86_INS_LODSQ, X86_INS_SCASB, X86_INS_SCASW, X86_INS_SCASD,
		X86_INS_SCASQ, X86_INS_CMPSB, X86_INS_CMPSW, X86_INS_CMPSD, X86_INS_CMPSQ,
	};
	const cs_x86 *x = &in->detail->x86;
	bool string = false;
	unsigned int i;

	if (x->prefix[0] != X86_PREFIX_REP && x->prefix[0] != X86_PREFIX_REPNE)
		return false;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		string |= in->id == ids[i];
	for (i = 0; string && i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type == X86_OP_MEM)
			string = (o->mem.base == X86_REG_RDI || o->mem.base == X86_REG_RSI) &&
				 !o->mem.disp && o->mem.index == X86_REG_INVALID;
		else if (o->type == X86_OP_REG)
			string = o->reg < X86_REG_XMM0 || o->reg > X86_REG_XMM31;
	}
	return string;
}

/* The whole object of a typed access: its members are not known. */
static void whole_object(struct dtype_access *a)
{
	if (a->how == DT_UNTYPED || a->how == DT_STACK_OP || a->how == DT_CANARY)
		return;
	a->member = "";
	a->offset = a->moffset = 0;
	a->msize = a->type_size;
}

static void resolve_pc(struct dtype_file *f, __u64 pc, struct dt_pc *e)
{
	struct dt_mem m[DTYPE_MAX_ACCESS];
	struct dt_regs regs;
	struct dt_func *fn;
	struct dt_res r;
	unsigned int nm, i;
	bool stack_op, rep;
	const char *why;

	why = dt_patch_unknown(f, pc) ? "patched at boot; the running instruction is unknown"
	      : dt_decode(f, pc)      ? NULL
				      : "no instruction there";
	if (why) {
		dt_untyped(f, &r, why);
		e->a[e->n++] = r.a;
		return;
	}
	nm = dt_mems(f->insn, m);
	stack_op = dt_stack_op(f->insn);
	rep = rep_string(f->insn);
	if (barrier(f->insn)) {
		dt_untyped(f, &r, "a memory barrier's access to the stack");
		e->a[e->n++] = r.a;
		return;
	}
	if (stack_op) {
		e->a[e->n++] = (struct dtype_access){
			.how = DT_STACK_OP, .type = "(stack operation)", .member = ""};
		if (nm == DTYPE_MAX_ACCESS)
			nm--;
	}
	if (!nm)
		return;
	fn = dt_func_of(f, pc);
	regs_at(f, fn, pc, m, nm, &regs);
	if (dt_decode(f, pc))
		dt_flow_store(f, f->insn, &regs); /* a spill's slot holds what it stores */
	for (i = 0; i < nm; i++) {
		dt_operand(f, fn, pc, &regs, &m[i], &r);
		if (r.a.how == DT_UNTYPED && m[i].write && (m[i].base == 6 || m[i].base == 7))
			initialized(f, fn, &regs, &m[i], &r);
		if (r.a.how == DT_UNTYPED && fn && !fn->dwarf &&
		    !strncmp(r.a.why, "no type for", 11))
			r.a.why = "assembly or no DWARF"; /* what its registers hold, none says */
		if (rep)
			whole_object(&r.a);
		e->a[e->n++] = r.a;
	}
}

int dtype_resolve(struct dtype_file *f, __u64 pc, struct dtype_access out[DTYPE_MAX_ACCESS],
		  unsigned int *n)
{
	struct dt_pc *e;
	bool found;

	e = dt_cache_get(&f->pcs, pc, &found);
	if (!found) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		resolve_pc(f, pc, e);
		if (dt_cache_put(&f->pcs, pc, e)) {
			free(e);
			return -ENOMEM;
		}
	}
	memcpy(out, e->a, e->n * sizeof(*out));
	*n = e->n;
	return 0;
}

int dtype_resolve_reg(struct dtype_file *f, __u64 pc, int reg, struct dtype_access *out,
		      const char **func, __u64 *func_off)
{
	struct dt_mem m = {.base = reg, .index = -1, .scale = 1};
	const struct dt_sym *sym = dt_sym_at(f, pc);
	struct dt_regs regs;
	struct dt_func *fn;
	struct dt_res r;

	*func = sym ? sym->name : "";
	*func_off = sym ? pc - sym->addr : 0;
	if (reg < 0 || reg >= DT_NREGS - 1 || !dt_decode(f, pc)) {
		dt_untyped(f, &r, "no instruction there");
		*out = r.a;
		return 0;
	}
	m.next = pc + f->insn->size;
	fn = dt_func_of(f, pc);
	/* the registers before the call: what it passes, as an access through reg would see it */
	regs_at(f, fn, pc, &m, 1, &regs);
	dt_operand(f, fn, pc, &regs, &m, &r);
	whole_object(&r.a);
	*out = r.a;
	return 0;
}

const char *dtype_page_var(struct dtype_file *f, __u64 pc)
{
	struct dt_func *fn = dt_func_of(f, pc);

	return fn ? dt_page_var(f, fn, pc) : NULL;
}

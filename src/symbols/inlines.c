/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inlined instances of a function and where control enters and leaves them.
 *
 * Finding them: a vmlinux has ~170 MB of .debug_info, and walking every DIE
 * takes seconds, so only the units defining the function at top level
 * (found from each unit's top-level DIEs alone) are walked into (an LTO build may expand it in
 * other units; those instances are not seen).  The parent of an instance is the outermost concrete
 * DW_TAG_subprogram, however deep the chain of inline expansions between them; its DWARF ranges
 * include its .cold part.
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
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <gelf.h>
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "util/array.h"
#include "symbols/debuginfo.h"
#include "symbols/inlines.h"

#define RETURN_THUNK	"__x86_return_thunk"
#define INDIRECT_THUNK	"__x86_indirect_thunk_"
#define JUMP_ENTRY_SIZE 16 /* struct jump_entry: s32 code, s32 target, long key */
#define MAX_ORIGIN_HOPS 8
/* instructions followed to see a way out come back in: a few scheduled in between */
#define REJOIN_BUDGET 8

/* One inlines_find() call. */
struct find_ctx {
	const char *name;
	bool defined;
	Dwarf_Off *origins; /* abstract instance roots of name in the unit being read */
	size_t norigins, ocap;
	struct inline_instance *v;
	size_t n, cap;
};

/* The outermost function being walked, shared by the instances found in it. */
struct parent {
	Dwarf_Die die;
	const char *name;
	struct inline_range *ranges; /* filled when its first instance is found */
	size_t nranges;
	__u64 lo;
};

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* The abstract subprogram die stands for; nested DIEs may point at an abstract tree's DIE first. */
static bool origin_offset(Dwarf_Die *die, Dwarf_Off *off)
{
	Dwarf_Attribute attr;
	Dwarf_Die o = *die;
	int hops;

	/* bounded, since a corrupt file could make the chain a loop */
	for (hops = 0; hops < MAX_ORIGIN_HOPS; hops++) {
		if (!dwarf_attr(&o, DW_AT_abstract_origin, &attr) || !dwarf_formref_die(&attr, &o))
			return false;
		if (dwarf_tag(&o) == DW_TAG_subprogram) {
			*off = dwarf_dieoffset(&o);
			return true;
		}
	}
	return false;
}

static bool is_instance(const struct find_ctx *c, Dwarf_Die *die)
{
	Dwarf_Off off;
	size_t i;

	if (dwarf_tag(die) != DW_TAG_inlined_subroutine || !origin_offset(die, &off))
		return false;
	for (i = 0; i < c->norigins; i++) {
		if (c->origins[i] == off)
			return true;
	}
	return false;
}

/* The unit's top-level definitions of c->name that instances refer to. */
static int scan_definitions(struct find_ctx *c, Dwarf_Die *cu)
{
	const char *name;
	Dwarf_Die die;
	int err;

	c->norigins = 0;
	if (dwarf_child(cu, &die))
		return 0;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram)
			continue;
		name = dwarf_diename(&die);
		if (!name || strcmp(name, c->name) || dwarf_hasattr(&die, DW_AT_declaration))
			continue;
		c->defined = true;
		if (!dwarf_hasattr(&die, DW_AT_inline))
			continue;
		err = array_reserve((void **)&c->origins, &c->ocap, c->norigins + 1,
				    sizeof(*c->origins));
		if (err)
			return err;
		c->origins[c->norigins++] = dwarf_dieoffset(&die);
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct inline_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort, and merge what touches or overlaps: exits are where the merged ranges end. */
static size_t merge_ranges(struct inline_range *r, size_t n)
{
	size_t i, out = 0;

	if (!n)
		return 0;
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1; i < n; i++) {
		if (r[i].lo <= r[out].hi) {
			if (r[i].hi > r[out].hi)
				r[out].hi = r[i].hi;
		} else {
			r[++out] = r[i];
		}
	}
	return out + 1;
}

/* die's non-empty address ranges, merged; *first is the start listed first. */
static int die_ranges(Dwarf_Die *die, struct inline_range **out, size_t *n, __u64 *first)
{
	Dwarf_Addr base, lo, hi;
	struct inline_range *r = NULL;
	size_t cnt = 0, cap = 0;
	ptrdiff_t off = 0;
	int err;

	*first = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		err = array_reserve((void **)&r, &cap, cnt + 1, sizeof(*r));
		if (err) {
			free(r);
			return err;
		}
		if (!cnt)
			*first = lo;
		r[cnt++] = (struct inline_range){lo, hi};
	}
	if (!cnt) {
		free(r);
		return off < 0 ? -EINVAL : -ENODATA;
	}
	*out = r;
	*n = merge_ranges(r, cnt);
	return 0;
}

static bool in_ranges(const struct inline_range *r, size_t n, __u64 addr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (addr >= r[i].lo && addr < r[i].hi)
			return true;
	}
	return false;
}

/*
 * DW_AT_entry_pc, which DWARF 5 lets be an offset from the base address
 * (a libdw as old as 0.188 reads only the address form), else DW_AT_low_pc,
 * else the range listed first.  GCC may put it in an empty range, on a parent
 * instruction just before the body: then the body's next range, which the
 * merged ranges give in address order.
 */
static __u64 entry_pc(Dwarf_Die *die, const struct inline_range *r, size_t n, __u64 first)
{
	Dwarf_Attribute attr;
	Dwarf_Addr addr;
	Dwarf_Word off;
	__u64 pc = first;
	size_t i;

	if (!dwarf_lowpc(die, &addr))
		pc = addr;
	if (dwarf_attr(die, DW_AT_entry_pc, &attr)) {
		if (!dwarf_formaddr(&attr, &addr))
			pc = addr;
		else if (!dwarf_formudata(&attr, &off))
			pc += off;
	}
	for (i = 0; i < n; i++) {
		if (pc < r[i].hi)
			return pc < r[i].lo ? r[i].lo : pc;
	}
	return r[0].lo;
}

static int parent_ranges(struct parent *p)
{
	__u64 first;
	int err;

	if (p->ranges)
		return 0;
	err = die_ranges(&p->die, &p->ranges, &p->nranges, &first);
	if (err)
		return err;
	p->lo = entry_pc(&p->die, p->ranges, p->nranges, first);
	return 0;
}

static int add_instance(struct find_ctx *c, struct parent *p, Dwarf_Die *die)
{
	struct inline_instance *in;
	__u64 first;
	size_t i;
	int err;

	err = parent_ranges(p) ?: array_reserve((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v));
	if (err)
		return err;
	in = memset(&c->v[c->n], 0, sizeof(*in));
	err = die_ranges(die, &in->ranges, &in->nranges, &first);
	/* an instance the compiler optimised away entirely has no code to time */
	if (err == -ENODATA)
		return 0;
	if (err)
		return err;
	in->parent_ranges = malloc(p->nranges * sizeof(*p->ranges));
	if (!in->parent_ranges) {
		free(in->ranges);
		return -ENOMEM;
	}
	memcpy(in->parent_ranges, p->ranges, p->nranges * sizeof(*p->ranges));
	in->nparent_ranges = p->nranges;
	in->func = debuginfo_die_name(die) ?: c->name;
	in->parent = p->name;
	in->parent_lo = p->lo;
	in->die = dwarf_dieoffset(die);
	in->entry = entry_pc(die, in->ranges, in->nranges, first);
	for (i = 0; i < in->nranges; i++)
		in->bytes += in->ranges[i].hi - in->ranges[i].lo;
	debuginfo_call_site(die, NULL, 0, &in->call_file, &in->call_line);
	c->n++;
	return 0;
}

/* Instances below scope; only DIEs that can hold code are entered. */
static int walk_scope(struct find_ctx *c, struct parent *p, Dwarf_Die *scope)
{
	Dwarf_Die die;
	int tag, err;

	if (dwarf_child(scope, &die))
		return 0;
	do {
		tag = dwarf_tag(&die);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
			continue;
		if (is_instance(c, &die)) {
			err = add_instance(c, p, &die);
			if (err)
				return err;
		}
		err = walk_scope(c, p, &die);
		if (err)
			return err;
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

static void init_parent(struct parent *p, Dwarf_Die *die)
{
	memset(p, 0, sizeof(*p));
	p->die = *die;
	p->name = debuginfo_die_name(die);
}

static int scan_parents(struct find_ctx *c, Dwarf_Die *cu)
{
	struct parent p;
	Dwarf_Die die;
	int err = 0;

	if (dwarf_child(cu, &die))
		return 0;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram || !has_code(&die))
			continue;
		init_parent(&p, &die);
		err = walk_scope(c, &p, &die);
		free(p.ranges);
	} while (!err && !dwarf_siblingof(&die, &die));
	return err;
}

int inlines_find(struct debuginfo *di, const char *name, struct inline_instance **out, size_t *n)
{
	struct find_ctx c = {.name = name};
	Dwarf *dw = debuginfo_dwarf(di, NULL);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	int err = 0;

	while (!err && !dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL)) {
		/* type units hold no functions */
		if (unit_type == DW_UT_type || unit_type == DW_UT_split_type)
			continue;
		err = scan_definitions(&c, &cudie);
		if (!err && c.norigins)
			err = scan_parents(&c, &cudie);
	}
	free(c.origins);
	if (!err && !c.defined)
		err = -ENOENT;
	if (err) {
		inlines_free(c.v, c.n);
		return err;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

/* A jump-label site: a nop or a jmp to target, patched into the other at run time. */
struct jump_site {
	__u64 code, target;
};

/* A symbol a jump to is no tail call: where a return goes, or an indirect jump. */
struct thunk {
	__u64 addr;
	bool ret; /* RETURN_THUNK, else an INDIRECT_THUNK */
};

/* What disassembling any instance needs, read once per file. */
struct inlines_ctx {
	Elf *elf;
	__u64 to_elf; /* DWARF address + to_elf = the ELF's address */
	csh cs;
	cs_insn *insn;		 /* the instruction of the range being scanned */
	cs_insn *ahead;		 /* one of the parent's, looked at to follow a way out */
	struct jump_site *sites; /* all of the file's, sorted by code */
	size_t nsites;
	struct thunk *thunks; /* sorted by addr */
	size_t nthunks;
};

/* One inlines_exits() call. */
struct exit_ctx {
	struct inlines_ctx *c;
	struct inline_instance *in;
	struct inline_exit *v;
	size_t n, cap;
};

/* The file's bytes from DWARF address addr to the end of the section holding them. */
static int file_bytes(const struct inlines_ctx *c, __u64 addr, const uint8_t **out, size_t *len)
{
	__u64 a = addr + c->to_elf;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || a < sh.sh_addr || a - sh.sh_addr >= sh.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != sh.sh_size)
			return -EIO;
		*out = (const uint8_t *)data->d_buf + (a - sh.sh_addr);
		*len = sh.sh_size - (a - sh.sh_addr);
		return 0;
	}
	return -ENOENT;
}

static bool decode_at(const struct inlines_ctx *c, __u64 addr, cs_insn *insn)
{
	const uint8_t *code;
	uint64_t pc = addr;
	size_t len;

	return !file_bytes(c, addr, &code, &len) && cs_disasm_iter(c->cs, &code, &len, &pc, insn);
}

/* The index of the first jump-label site at or after addr. */
static size_t first_site(const struct inlines_ctx *c, __u64 addr)
{
	size_t l = 0, h = c->nsites, m;

	while (l < h) {
		m = l + (h - l) / 2;
		if (c->sites[m].code < addr)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* The jump-label site at addr, which only counts in the parent. */
static const struct jump_site *site_at(const struct exit_ctx *x, __u64 addr)
{
	const struct inlines_ctx *c = x->c;
	size_t i = first_site(c, addr);

	if (i == c->nsites || c->sites[i].code != addr ||
	    !in_ranges(x->in->parent_ranges, x->in->nparent_ranges, addr))
		return NULL;
	return &c->sites[i];
}

static const struct thunk *thunk_at(const struct inlines_ctx *c, __u64 addr)
{
	size_t l = 0, h = c->nthunks, m;

	while (l < h) {
		m = l + (h - l) / 2;
		if (c->thunks[m].addr < addr)
			l = m + 1;
		else
			h = m;
	}
	return l < c->nthunks && c->thunks[l].addr == addr ? &c->thunks[l] : NULL;
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
		    !decode_at(x->c, addr, ahead))
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
	if (site && depth < REJOIN_BUDGET && decode_at(x->c, addr, x->c->ahead))
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
	t = thunk_at(x->c, to);
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

	err = file_bytes(x->c, r->lo, &code, &avail);
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
		for (i = first_site(x->c, in->ranges[k].lo);
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

static int open_text(struct inlines_ctx *c, struct debuginfo *di)
{
	Dwarf_Addr dw_bias, elf_bias;

	debuginfo_dwarf(di, &dw_bias);
	c->elf = dwfl_module_getelf(debuginfo_module(di), &elf_bias);
	if (!c->elf)
		return -ENODATA;
	c->to_elf = dw_bias - elf_bias;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &c->cs) != CS_ERR_OK) {
		c->cs = 0;
		return -ENOTSUP;
	}
	/* before cs_malloc(), which sizes instructions for the detail they will hold */
	if (cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK)
		return -ENOMEM;
	c->insn = cs_malloc(c->cs);
	c->ahead = cs_malloc(c->cs);
	return c->insn && c->ahead ? 0 : -ENOMEM;
}

static int cmp_thunk(const void *a, const void *b)
{
	const struct thunk *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_thunk(struct inlines_ctx *c, size_t *cap, __u64 addr, bool ret)
{
	int err = array_reserve((void **)&c->thunks, cap, c->nthunks + 1, sizeof(*c->thunks));

	if (err)
		return err;
	c->thunks[c->nthunks++] = (struct thunk){addr, ret};
	return 0;
}

/* One pass over the symbol table: the thunks, and where __jump_table lies (0 when not). */
static int scan_symbols(struct inlines_ctx *c, struct debuginfo *di, __u64 *start, __u64 *stop)
{
	Dwfl_Module *mod = debuginfo_module(di);
	int i, n = dwfl_module_getsymtab(mod), err = 0;
	Dwarf_Addr bias;
	size_t cap = 0;
	const char *s;
	GElf_Addr a;
	GElf_Sym sym;

	debuginfo_dwarf(di, &bias);
	*start = *stop = 0;
	for (i = 1; i < n && !err; i++) {
		s = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);
		if (!s)
			continue;
		if (!*start && !strcmp(s, "__start___jump_table"))
			*start = a - bias;
		else if (!*stop && !strcmp(s, "__stop___jump_table"))
			*stop = a - bias;
		else if (!strcmp(s, RETURN_THUNK))
			err = add_thunk(c, &cap, a - bias, true);
		else if (!strncmp(s, INDIRECT_THUNK, strlen(INDIRECT_THUNK)))
			err = add_thunk(c, &cap, a - bias, false);
	}
	qsort(c->thunks, c->nthunks, sizeof(*c->thunks), cmp_thunk);
	return err;
}

static int cmp_site(const void *a, const void *b)
{
	const struct jump_site *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

/* The vmlinux's jump-label sites, from __jump_table, whose entries are relative to their own
 * fields. */
static int load_sites(struct inlines_ctx *c, __u64 start, __u64 stop)
{
	const uint8_t *p;
	size_t avail, n, i;
	__s32 rel[2];
	__u64 e;
	int err;

	if (stop <= start)
		return 0;
	err = file_bytes(c, start, &p, &avail);
	if (err || avail < stop - start)
		return err ?: -ERANGE;
	n = (stop - start) / JUMP_ENTRY_SIZE;
	c->sites = calloc(n ? n : 1, sizeof(*c->sites));
	if (!c->sites)
		return -ENOMEM;
	for (i = 0; i < n; i++, p += JUMP_ENTRY_SIZE) {
		e = start + i * JUMP_ENTRY_SIZE;
		memcpy(rel, p, sizeof(rel));
		c->sites[i] = (struct jump_site){e + rel[0], e + 4 + rel[1]};
	}
	c->nsites = n;
	qsort(c->sites, n, sizeof(*c->sites), cmp_site);
	return 0;
}

int inlines_ctx_open(struct inlines_ctx **out, struct debuginfo *di)
{
	struct inlines_ctx *c = calloc(1, sizeof(*c));
	__u64 start, stop;
	int err;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	err = open_text(c, di) ?: scan_symbols(c, di, &start, &stop) ?: load_sites(c, start, stop);
	if (err) {
		inlines_ctx_close(c);
		return err;
	}
	*out = c;
	return 0;
}

void inlines_ctx_close(struct inlines_ctx *c)
{
	if (!c)
		return;
	free(c->sites);
	free(c->thunks);
	if (c->ahead)
		cs_free(c->ahead, 1);
	if (c->insn)
		cs_free(c->insn, 1);
	if (c->cs)
		cs_close(&c->cs);
	free(c);
}

/* The outermost function holding die, the scope just inside its unit: the slow way. */
static int outermost(Dwarf_Die *die, struct parent *p)
{
	Dwarf_Die *scopes = NULL;
	int n, i;

	n = dwarf_getscopes_die(die, &scopes);
	/* scopes[0] is die itself, the unit is last */
	for (i = n - 2; i > 0; i--) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && has_code(&scopes[i]))
			break;
	}
	if (i > 0)
		init_parent(p, &scopes[i]);
	free(scopes);
	return i > 0 ? 0 : -ENOENT;
}

/* The function at DWARF offset func_die when it is one with code, else found from die. */
static int parent_of(Dwarf *dw, Dwarf_Die *die, __u64 func_die, struct parent *p)
{
	Dwarf_Die f;

	if (func_die && dwarf_offdie(dw, func_die, &f) && dwarf_tag(&f) == DW_TAG_subprogram &&
	    has_code(&f)) {
		init_parent(p, &f);
		return 0;
	}
	return outermost(die, p);
}

int inlines_at(struct debuginfo *di, __u64 die, __u64 func_die, struct inline_instance *out)
{
	Dwarf *dw = debuginfo_dwarf(di, NULL);
	struct find_ctx c = {.name = "?"};
	struct parent p;
	Dwarf_Die d;
	int err;

	memset(out, 0, sizeof(*out));
	if (!dwarf_offdie(dw, die, &d) || dwarf_tag(&d) != DW_TAG_inlined_subroutine)
		return -ENOENT;
	err = parent_of(dw, &d, func_die, &p);
	if (err)
		return err;
	err = add_instance(&c, &p, &d);
	if (!err && !c.n)
		err = -ENODATA;
	if (!err)
		*out = c.v[0];
	free(c.v);
	free(p.ranges);
	return err;
}

void inlines_free_one(struct inline_instance *in)
{
	free(in->ranges);
	free(in->parent_ranges);
	free(in->exits);
	in->ranges = NULL;
	in->parent_ranges = NULL;
	in->exits = NULL;
	in->nranges = in->nparent_ranges = in->nexits = 0;
}

void inlines_free(struct inline_instance *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		inlines_free_one(&v[i]);
	free(v);
}

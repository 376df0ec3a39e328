/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The insides of the data-type resolver (dtype.h), shared by its files:
 * dtype_names.c (strings and type names), dtype_member.c (the member at an
 * offset), dtype_vars.c (variables by address), dtype_scope.c (a function's
 * variables by location), dtype_insn.c (operands), dtype_operand.c (one
 * memory operand typed), dtype_flow.c (register data flow) and dtype_resolve.c
 * (the entry and its caches).  Types are carried as DIE offsets (0: none).
 */
#ifndef KP_DTYPE_INT_H
#define KP_DTYPE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <linux/types.h>

#include "analysis/cfg.h"
#include "datatype/dtype.h"

struct file_cfg;

/* A variable with a static address: a global or static, a per-CPU or a TLS one. */
struct dt_var {
	__u64 addr; /* link-time address; per-CPU: its offset in .data..percpu; TLS: in the block */
	__u64 size;
	Dwarf_Off type;
	Dwarf_Off cu; /* its unit's DIE (globals: where its slab cache is looked for) */
};

/* The variables of one address space, sorted by addr. */
struct dt_vars {
	struct dt_var *v;
	size_t n, cap;
};

/* A pointer's target held in a register: &T + off. */
struct dt_reg {
	Dwarf_Off type; /* the pointee type; 0 when unknown */
	__s64 off;
	bool cpu_off; /* holds this CPU's per-CPU offset (this_cpu_off's value) */
	enum dtype_how how;
	const char *name; /* the variable when from a location ("%rbx holds x (int)") */
	Dwarf_Off vtype;  /* the value's own type (a pointer type, a scalar's), 0 when unknown */
	bool in_frame;	  /* an address in the frame, CFA + off (type 0) */
	__u64 id;	  /* where the pointer came from (one object), 0 unknown */
	bool konst;	  /* holds the number k: a difference of two pointers into one object */
	__s64 k;
	bool arr; /* into an array member at an element not known: off is in its first */
	/*
	 * the value as read from the 8-byte global at this link-time address
	 * (a slab cache's pointer, dtype_slab.c), 0 when not
	 */
	__u64 global;
	/*
	 * what a variable located in the register says is where it points (a
	 * pointer to the object's member): of a union's members covering an
	 * access, the one holding a hint is taken (dt_member_hint); 0 none
	 */
	Dwarf_Off hint;
};

#define DT_NREGS 17 /* DWARF x86_64 registers 0-16 (16: the return address) */

#define DT_NSLOTS 8 /* spill slots of the frame followed */

/* A register spilled into the frame: what the 8 bytes at CFA + at hold. */
struct dt_slot {
	__s64 at;
	struct dt_reg v;
};

/* The state of the general-purpose registers (and the spill slots) before an instruction. */
struct dt_regs {
	struct dt_reg r[DT_NREGS];
	struct dt_slot slot[DT_NSLOTS];
	unsigned int nslots;
	bool sp_known, fp_known; /* %rsp = CFA + sp, %rbp = CFA + fp */
	__s64 sp, fp;
};

enum dt_loc_kind {
	DT_LOC_REG,	/* the value is in register reg */
	DT_LOC_REGVAL,	/* the value is reg + off (DW_OP_bregN, DW_OP_stack_value) */
	DT_LOC_FBREG,	/* in memory at the frame base (the CFA) + off */
	DT_LOC_BREG,	/* in memory at reg + off */
	DT_LOC_FBVAL,	/* a pointer whose value is the frame base + off: what it points to is there
			 */
	DT_LOC_BREGVAL, /* a pointer whose value is %rsp or %rbp + off */
};

/* Where one of a function's variables is over [lo, hi). */
struct dt_loc {
	__u64 lo, hi;
	Dwarf_Off scope; /* a single location: the scope it holds in (checked by pc); else 0 */
	Dwarf_Off type;	 /* the variable's type */
	const char *name;
	enum dt_loc_kind kind;
	int reg; /* DWARF register number */
	__s64 off;
};

/* One function (symbol) of the file, indexed the first time a PC in it is resolved. */
struct dt_func {
	__u64 addr, len; /* the symbol's */
	struct dt_loc *locs;
	size_t nlocs, cap;
	struct cfg *g;	    /* NULL when its graph could not be built */
	struct dt_regs *in; /* the registers on entry to each block of g (dtype_flow.c) */
	bool *reached;	    /* whether in[b] is known */
	bool dwarf;	    /* the DWARF describes its variables (not so assembly's) */
	bool cfa_frame;	    /* its frame base is the CFA (DW_OP_call_frame_cfa) */
	bool has_canary;    /* it keeps a copy of the canary in its frame, at canary */
	__s64 canary;	    /* CFA-relative, or relative to register canary_rel when >= 0 */
	int canary_rel;
	struct dt_ret *rets; /* the inlined helpers that return a pointer to a record */
	size_t nrets, rcap;
};

/* An inlined helper's range and the pointer type it returns (mte_to_node: maple_node *). */
struct dt_ret {
	__u64 lo, hi;
	Dwarf_Off type;
};

/* A function symbol. */
struct dt_sym {
	__u64 addr, size;
	const char *name; /* the symbol table's */
};

/* A memory operand decoded. */
struct dt_mem {
	int seg;   /* X86_REG_FS, X86_REG_GS or 0 */
	int base;  /* DWARF register, -1 none, -2 rip */
	int index; /* DWARF register, -1 none */
	int scale;
	__s64 disp;
	__u64 next; /* the next instruction's address, for rip-relative */
	bool write; /* the instruction writes it */
};

/* One access resolved, with the DIE of the type accessed (for a load's destination). */
struct dt_res {
	struct dtype_access a;
	Dwarf_Off leaf; /* the accessed member's type; 0 when untyped or a pseudo type */
};

/* An interned string table. */
struct dt_strs {
	char **s;
	size_t n, cap; /* open addressing: cap a power of two */
};

struct dt_cache {
	__u64 *keys; /* key + 1, 0 empty */
	void **vals;
	size_t n, cap;
};

/* An address range [lo, hi). */
struct dt_span {
	__u64 lo, hi;
};

struct dtype_file {
	struct debuginfo *di;
	Dwarf *dw;
	Dwarf_CFI *cfi; /* .debug_frame or .eh_frame; NULL when neither */
	__u64 cfi_bias; /* a DWARF address + cfi_bias: the CFI's */
	struct file_cfg *fc;
	struct cfg_env env; /* file_cfg's, whose callee dtype_resolve.c answers faster */
	csh cs;
	cs_insn *insn;		    /* the last one dt_decode decoded: one of decoded, or own */
	cs_insn *own;		    /* capstone's, when decoded could not be had */
	struct dt_decoded *decoded; /* dtype_insn.c: the instructions decoded, by pc's low bits */
	struct dt_sym *syms;	    /* the function symbols, sorted by addr */
	size_t nsyms;
	struct dt_vars globals,
		tls;	    /* globals: the kernel's per-CPU ones too, at small addresses */
	__u64 tls_size;	    /* the TLS block, aligned: fs:disp is at disp + tls_size */
	__u64 this_cpu_off; /* the per-CPU variable's offset, ~0 when absent */
	__u64 stack_guard;  /* __stack_chk_guard's address, 0 when absent */
	__u64 fentry;	    /* __fentry__'s address, 0 when absent */
	bool kernel;
	struct dt_strs strs;
	struct dt_cache pcs, funcs, callees, aligns;
	struct dt_cache slabs;	 /* dtype_slab.c: a cache's global -> its struct dt_slab */
	struct dt_cache objsyms; /* dtype_operand.c: an address -> its object symbol, interned */
	struct dt_cache kinds; /* dtype_resolve.c: a call's target -> file_cfg's enum cfg_callee */
	struct dt_cache subs;  /* dtype_scope.c: a unit's DIE -> its functions' ranges */
	struct dt_cache members, holds; /* dtype_member.c's answers, memos by their arguments */
	/*
	 * A build by GCC's randstruct plugin with kernel-build.sh's
	 * randstruct.offsets beside it: the file's path, whose layouts
	 * (layout.h, by type DIE in the cache) name members by the offsets
	 * the code uses, which the plugin's DWARF does not have.  NULL: the
	 * DWARF's offsets are the code's.
	 */
	char *rs_file;
	struct dt_cache layouts;
	char **rs_shuffled; /* the other structures marked for it ("STRUCT * *"), sorted */
	size_t rs_nshuffled;
	char why[128]; /* a scratch buffer for reasons before interning */
	/* dtype_patch.c: the running bytes of patched sites, by pc, and the originals */
	struct dtype_running *run;
	size_t nrun;
	bool run_complete;
	struct dt_span *alt; /* .altinstructions' originals, by lo; may overlap */
	size_t nalt;
};

/* dtype_cache.c: key to value (a pointer or a number), open addressing */
void *dt_cache_get(const struct dt_cache *c, __u64 key, bool *found);
int dt_cache_put(struct dt_cache *c, __u64 key, void *val);
void dt_cache_free(struct dt_cache *c, void (*free_val)(void *val));
/* three keys to a value, in a dt_cache of their own */
void *dt_memo_get(const struct dt_cache *c, __u64 a, __u64 b, __u64 d, bool *found);
int dt_memo_put(struct dt_cache *c, __u64 a, __u64 b, __u64 d, void *val);
void dt_memo_free(struct dt_cache *c, void (*free_val)(void *val));

/* dtype_names.c */
const char *dt_intern(struct dtype_file *f, const char *s);
const char *dt_internf(struct dtype_file *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dt_strs_free(struct dt_strs *t);
/* typedefs and qualifiers looked through; false when die has no such type */
bool dt_peel(Dwarf *dw, Dwarf_Off type, Dwarf_Die *out);
/* the pointee of a pointer type (typedefs looked through), 0 when none or void */
Dwarf_Off dt_pointee(Dwarf *dw, Dwarf_Off type);
const char *dt_type_name(struct dtype_file *f, Dwarf_Off type);
__u64 dt_type_size(Dwarf *dw, Dwarf_Off type);
const char *dt_reg_name(int dwreg);
/* r untyped for the reason why (interned or static) */
void dt_untyped(struct dtype_file *f, struct dt_res *r, const char *why);

/* dtype_member.c */
/* f->rs_file set when its file has randstruct.offsets beside it: 0 or -ENOMEM. */
int dt_randstruct_open(struct dtype_file *f);
void dt_randstruct_close(struct dtype_file *f);
/*
 * r->a filled for an access at off bytes into type (arrays peeled to their
 * element, off taken modulo its size): type, member, offsets, sizes, leaf.
 */
void dt_member(struct dtype_file *f, Dwarf_Off type, __s64 off, struct dt_res *r);
/* the same, of a union's members covering off the first that holds a hint (0: none) */
void dt_member_hint(struct dtype_file *f, Dwarf_Off type, __s64 off, Dwarf_Off hint,
		    struct dt_res *r);
/*
 * The array member of scalars (or pointers) of type covering byte off: its element's size, its
 * offset in *moffset; 0 when off is in none.
 */
__u64 dt_array_at(struct dtype_file *f, Dwarf_Off type, __s64 off, __u64 *moffset);
/* The element size of type when it is an array (*etype its element's type), else 0. */
__u64 dt_array_elem(struct dtype_file *f, Dwarf_Off type, Dwarf_Off *etype);
/*
 * Whether an object of type holds a t at byte off: it is one, or a member covering off (any of
 * a union's) or an element does.
 */
bool dt_holds(struct dtype_file *f, Dwarf_Off type, __s64 off, Dwarf_Off t);
/*
 * The alignment the ABI gives an object of type: DW_AT_alignment, else its members' largest
 * (a scalar's is its size); 1 when some member is not at a multiple of its own (packed)
 */
__u64 dt_type_align(struct dtype_file *f, Dwarf_Off type);

/* dtype_vars.c */
int dt_vars_load(struct dtype_file *f);
void dt_vars_free(struct dtype_file *f);
const struct dt_var *dt_var_at(const struct dt_vars *vs, __u64 addr);
/* the function symbol holding addr, NULL when none */
const struct dt_sym *dt_sym_at(const struct dtype_file *f, __u64 addr);

/* dtype_scope.c */
int dt_func_index(struct dtype_file *f, struct dt_func *fn);
/* the pointer held in DWARF register reg at pc by a variable's location, false when none */
bool dt_loc_reg(struct dtype_file *f, const struct dt_func *fn, __u64 pc, int reg,
		struct dt_reg *out);
/* the registers of regs no flow typed, from the pointers located in them over pc */
void dt_loc_fill(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs);
/* "struct page *NAME" (or folio) of the one such pointer variable live at pc; NULL: none, or two */
const char *dt_page_var(struct dtype_file *f, const struct dt_func *fn, __u64 pc);
/* free a unit's functions' ranges (f->subs' values) */
void dt_subs_free(void *subs);
/* the pointer type the innermost inlined helper holding pc returns, 0 when none */
Dwarf_Off dt_inline_ret(const struct dt_func *fn, __u64 pc);
/* the return type of the function at addr, 0 when unknown */
Dwarf_Off dt_callee_type(struct dtype_file *f, __u64 addr);

/* dtype_insn.c */
int dt_dwreg(int csreg);
bool dt_is_reg64(int csreg);
/* the memory operands of insn that access memory, at most DTYPE_MAX_ACCESS */
unsigned int dt_mems(const cs_insn *insn, struct dt_mem *m);
bool dt_stack_op(const cs_insn *insn);
/* decode the instruction at pc into f->insn; false when it cannot be read or decoded */
bool dt_decode(struct dtype_file *f, __u64 pc);
void dt_decoded_free(struct dtype_file *f);

/* dtype_patch.c */
void dt_patch_free(struct dtype_file *f);
/* the bytes the instruction at pc ran, when the recording says they were not the file's */
bool dt_running(const struct dtype_file *f, __u64 pc, const __u8 **code, size_t *len);
/* pc is in an original .altinstructions names and its running bytes are not known */
bool dt_patch_unknown(const struct dtype_file *f, __u64 pc);

/* dtype_stack.c: an access at CFA + c, through a register holding an address in the frame */
void dt_stack_cfa(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		  const struct dt_regs *regs, __s64 c, struct dt_res *r);
/* dtype_stack.c: where fn keeps its copy of the canary (it stores it after loading it) */
void dt_stack_canary(struct dtype_file *f, struct dt_func *fn);
/* dtype_stack.c: an access at base register (rsp or rbp) + disp, to a local at pc */
void dt_stack(struct dtype_file *f, const struct dt_func *fn, __u64 pc, int base, __s64 disp,
	      const struct dt_regs *regs, struct dt_res *r);
/*
 * dtype_stack.c: base + disp at pc as CFA + *at, from the CFI or the stack and frame pointers
 * regs followed (NULL: the CFI alone); false when neither knows base
 */
bool dt_frame_off(struct dtype_file *f, __u64 pc, const struct dt_regs *regs, int base, __s64 disp,
		  __s64 *at);
/* dtype_stack.c: the spill slot of regs at CFA + at, NULL when none */
struct dt_slot *dt_slot_at(struct dt_regs *regs, __s64 at);

/* dtype_resolve.c: the function holding pc, indexed and its flow prepared; NULL when none */
struct dt_func *dt_func_of(struct dtype_file *f, __u64 pc);

/* dtype_operand.c */
void dt_operand(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		const struct dt_regs *regs, const struct dt_mem *m, struct dt_res *r);

/* dtype_flow.c */
/* the registers on entry to each block of fn's graph, once */
int dt_flow_prepare(struct dtype_file *f, struct dt_func *fn);
/* the registers' state before pc */
void dt_flow(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs);

/* dtype_join.c: the register flow's joins */
/* whether a points into an object at a t */
bool dt_within(struct dtype_file *f, const struct dt_reg *a, Dwarf_Off t);
/* r as a pointer to some element of the array member (of esize) at moffset */
void dt_into_array(struct dt_reg *r, __u64 esize, __u64 moffset);
/* a and b hold the same, field by field (the fixed point's test) */
bool dt_same_reg(const struct dt_reg *a, const struct dt_reg *b);
/* whether the types a and b are one, as two units may describe it */
bool dt_one_type(struct dtype_file *f, Dwarf_Off a, Dwarf_Off b);
/* what a register holds when it may hold a or b */
struct dt_reg dt_either(struct dtype_file *f, const struct dt_reg *a, const struct dt_reg *b);

/* dtype_frame.c */
/* the spill slots of regs after in, a store into the frame */
void dt_flow_store(struct dtype_file *f, const cs_insn *in, struct dt_regs *regs);
/* %rsp and %rbp after in, followed relative to the CFA (frames the CFI gives from %rbp alone) */
void dt_frame_ptrs(const cs_insn *in, struct dt_regs *regs);

#endif

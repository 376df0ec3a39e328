// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instructions as the resolver reads them (capstone, detail on, Intel
 * operand order): the registers in DWARF's numbering, the memory operands
 * that access memory (lea and nops only compute or pad), and the
 * instructions whose access is the stack's own (push, pop, call, ret).
 */
#include "datatype/dtype_int.h"

#include "analysis/file_cfg.h"

/* capstone's register (any width) to its 64-bit register's DWARF number; -1 other */
int dt_dwreg(int csreg)
{
	static const int map[][5] = {
		{0, X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL},
		{1, X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL},
		{2, X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL},
		{3, X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL},
		{4, X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL},
		{5, X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL},
		{6, X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL},
		{7, X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL},
		{8, X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},
		{9, X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},
		{10, X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B},
		{11, X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B},
		{12, X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B},
		{13, X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B},
		{14, X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B},
		{15, X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B},
		{16, X86_REG_RIP, X86_REG_EIP, X86_REG_IP, X86_REG_INVALID},
	};
	size_t i, j;

	if (csreg == X86_REG_INVALID)
		return -1;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		for (j = 1; j < 5; j++)
			if (map[i][j] == csreg)
				return map[i][0];
	if (csreg == X86_REG_AH || csreg == X86_REG_BH || csreg == X86_REG_CH ||
	    csreg == X86_REG_DH)
		return csreg == X86_REG_AH   ? 0
		       : csreg == X86_REG_BH ? 3
		       : csreg == X86_REG_CH ? 2
					     : 1;
	return -1;
}

bool dt_is_reg64(int csreg)
{
	return csreg == X86_REG_RAX || csreg == X86_REG_RBX || csreg == X86_REG_RCX ||
	       csreg == X86_REG_RDX || csreg == X86_REG_RSI || csreg == X86_REG_RDI ||
	       csreg == X86_REG_RBP || csreg == X86_REG_RSP ||
	       (csreg >= X86_REG_R8 && csreg <= X86_REG_R15);
}

/* Instructions whose memory operand is an address computed or a hint, no access. */
static bool no_access(unsigned int id)
{
	return id == X86_INS_LEA || id == X86_INS_NOP || id == X86_INS_PREFETCH ||
	       id == X86_INS_PREFETCHW || id == X86_INS_PREFETCHT0 || id == X86_INS_PREFETCHT1 ||
	       id == X86_INS_PREFETCHT2 || id == X86_INS_PREFETCHNTA || id == X86_INS_CLFLUSH ||
	       id == X86_INS_INVLPG;
}

unsigned int dt_mems(const cs_insn *insn, struct dt_mem *m)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *op;
	unsigned int n = 0;
	int i;

	if (no_access(insn->id))
		return 0;
	for (i = 0; i < x->op_count && n < DTYPE_MAX_ACCESS; i++) {
		op = &x->operands[i];
		if (op->type != X86_OP_MEM)
			continue;
		m[n] = (struct dt_mem){
			.seg = op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS
				       ? op->mem.segment
				       : 0,
			.base = op->mem.base == X86_REG_RIP ? -2 : dt_dwreg(op->mem.base),
			.index = dt_dwreg(op->mem.index),
			.scale = op->mem.scale,
			.disp = op->mem.disp,
			.next = insn->address + insn->size,
			.write = op->access & CS_AC_WRITE,
		};
		n++;
	}
	return n;
}

bool dt_stack_op(const cs_insn *insn)
{
	switch (insn->id) {
	case X86_INS_PUSH:
	case X86_INS_POP:
	case X86_INS_PUSHFQ:
	case X86_INS_POPFQ:
	case X86_INS_CALL:
	case X86_INS_RET:
	case X86_INS_ENTER:
	case X86_INS_LEAVE:
	case X86_INS_IRETQ: /* the interrupt frame: ip, cs, flags, sp, ss */
	case X86_INS_IRET:
		return true;
	}
	return false;
}

/*
 * A function's flow decodes each of its instructions once a pass and again for each pc
 * resolved in it: the decoded ones are kept, direct-mapped by the pc's low bits, so that
 * a function of up to DT_DECODED bytes never evicts its own.
 */
#define DT_DECODED 4096

struct dt_decoded {
	__u64 pc; /* 0: empty */
	cs_insn insn;
	cs_detail detail;
};

/* Into in, whose detail capstone fills. */
static bool decode(struct dtype_file *f, __u64 pc, cs_insn *in)
{
	const __u8 *code;
	uint64_t addr = pc;
	size_t len;

	/* what ran there, when the kernel rewrote it at boot (dtype_patch.c) */
	if (!dt_running(f, pc, &code, &len) && file_cfg_bytes(f->fc, pc, &code, &len))
		return false;
	return cs_disasm_iter(f->cs, &code, &len, &addr, in);
}

bool dt_decode(struct dtype_file *f, __u64 pc)
{
	struct dt_decoded *d;

	if (!f->decoded && !(f->decoded = calloc(DT_DECODED, sizeof(*f->decoded)))) {
		f->insn = f->own;
		return decode(f, pc, f->own);
	}
	d = &f->decoded[pc % DT_DECODED];
	f->insn = &d->insn;
	if (d->pc == pc && pc)
		return true;
	d->pc = 0;
	d->insn.detail = &d->detail;
	if (!decode(f, pc, &d->insn))
		return false;
	d->pc = pc;
	return true;
}

void dt_decoded_free(struct dtype_file *f)
{
	free(f->decoded);
	f->decoded = NULL;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timing model's register dependences (plugin/kp_x86_deps.c) against
 * a decoder we did not write: every instruction of the executable sections
 * of the ELF files named, found and taken apart by capstone, is decoded by
 * kp_x86_deps too, and the general registers and flags each reads and
 * writes are compared (al, ah, ax, eax: rax).  Printed per file: how many
 * kp_x86_deps knows, how many of those agree exactly, the mnemonics most
 * often in disagreement or unknown, with an example each and, where
 * capstone 4 is wrong, why.
 *
 * Two differences are by design, and capstone's sets are brought to ours
 * (counted apart): a nop reads nothing (capstone: its address registers),
 * and the flags bit is the arithmetic flags only (capstone: the direction
 * flag the string instructions read and cld, std write; AC of clac, stac;
 * IF of cli, sti, int).  A zero idiom reads no register (capstone: its
 * operand, as written).
 *
 * usage: model_x86_agree [-k KNOWN% -a AGREE% -m MEM%] ELF...: exit 1 when
 * a file's share known, agreeing or of memory operands agreeing is below
 * those.
 */
#include <capstone/capstone.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kp_x86_deps.h"

#define CMP_MASK  (KP_R_GPRS | KP_R_BIT(KP_R_FLAGS))
#define TALLY_MAX 2048
#define TOP	  15

/* a mnemonic's count, and its first instruction */
struct tally {
	char name[40];
	unsigned int id;
	unsigned long n;
	uint8_t bytes[16];
	uint16_t len;
	uint64_t ours_src, ours_dst, cs_src, cs_dst;
};

/* capstone 4's sets that are wrong, as its reference manual's text is not */
static const struct {
	unsigned int id;
	const char *why;
} cs_wrong[] = {
	{X86_INS_SYSCALL, "capstone: rcx, r11 written, flags read missing"},
	{X86_INS_SYSRET, "capstone: rcx, r11 read, flags written missing"},
	{X86_INS_TEST, "capstone: test al/ax/eax/rax, imm writes no rax"},
	{X86_INS_CMPXCHG, "capstone: the flags and rax written missing"},
	{X86_INS_XADD, "capstone: the flags written missing"},
	{X86_INS_CDQ, "capstone: cdq writes no eax"},
	{X86_INS_CQO, "capstone: cqo writes no rax"},
	{X86_INS_CWD, "capstone: cwd writes no ax"},
	{X86_INS_LEAVE, "capstone: leave sets rsp from rbp before it pops: no rsp read"},
	{X86_INS_ENTER, "capstone: rsp, rbp missing"},
	{X86_INS_RETF, "capstone: rsp missing"},
	{X86_INS_IRETQ, "capstone: rsp, flags missing"},
	{X86_INS_CMC, "capstone: cmc reads the carry"},
	{X86_INS_XLATB, "capstone: al, rbx read and al written missing"},
	{X86_INS_RCL, "capstone: rcl reads the carry"},
	{X86_INS_RCR, "capstone: rcr reads the carry"},
	{X86_INS_ADCX, "capstone: adcx reads its destination"},
	{X86_INS_ADOX, "capstone: adox reads its destination"},
	{X86_INS_LAR, "capstone: lar writes ZF"},
	{X86_INS_LSL, "capstone: lsl writes ZF"},
	{X86_INS_LCALL, "capstone: rsp written missing"},
	{X86_INS_RETFQ, "capstone: rsp missing"},
	{X86_INS_IRET, "capstone: rsp, flags missing"},
	{X86_INS_IRETD, "capstone: rsp, flags missing"},
	{X86_INS_VERW, "capstone: verw writes ZF"},
	{X86_INS_FCMOVB, "capstone: fcmov reads the flags"},
	{X86_INS_FCMOVNB, "capstone: fcmov reads the flags"},
	{X86_INS_FCMOVE, "capstone: fcmov reads the flags"},
	{X86_INS_FCMOVNE, "capstone: fcmov reads the flags"},
	{X86_INS_FCMOVBE, "capstone: fcmov reads the flags"},
	{X86_INS_FCMOVNBE, "capstone: fcmov reads the flags"},
	{X86_INS_FCMOVU, "capstone: fcmov reads the flags"},
	{X86_INS_FCMOVNU, "capstone: fcmov reads the flags"},
};

/* the instructions that change only flags outside the arithmetic ones */
static const unsigned int sys_flags[] = {X86_INS_CLD,  X86_INS_STD,  X86_INS_CLAC,
					 X86_INS_STAC, X86_INS_CLI,  X86_INS_STI,
					 X86_INS_INT1, X86_INS_INT3, X86_INS_INT};

enum { BY_NOP, BY_DF, BY_ZI, BY_N };

struct stats {
	unsigned long total, known, agree, vec_agree, mem, mem_agree, int3, by_design[BY_N];
	struct tally bad[TALLY_MAX], unknown[TALLY_MAX];
	size_t nbad, nunknown;
};

/* capstone's registers as ours: a register id's bit, or 0 */
static uint64_t reg_bit[X86_REG_ENDING];

static void map_regs(csh h)
{
	static const char *const gpr[16][5] = {
		{"rax", "eax", "ax", "al", "ah"}, {"rcx", "ecx", "cx", "cl", "ch"},
		{"rdx", "edx", "dx", "dl", "dh"}, {"rbx", "ebx", "bx", "bl", "bh"},
		{"rsp", "esp", "sp", "spl"},	  {"rbp", "ebp", "bp", "bpl"},
		{"rsi", "esi", "si", "sil"},	  {"rdi", "edi", "di", "dil"},
	};
	char n[8];
	int id, r, k;

	for (id = 1; id < X86_REG_ENDING; id++) {
		const char *s = cs_reg_name(h, id);

		if (!s)
			continue;
		if (!strcmp(s, "rflags") || !strcmp(s, "eflags") || !strcmp(s, "flags"))
			reg_bit[id] = KP_R_BIT(KP_R_FLAGS);
		for (r = 0; r < 16; r++) {
			for (k = 0; k < 5 && r < 8 && gpr[r][k]; k++)
				if (!strcmp(s, gpr[r][k]))
					reg_bit[id] = KP_R_BIT(r);
			for (k = 0; k < 4 && r >= 8; k++) {
				snprintf(n, sizeof(n), "r%d%s", r,
					 (const char *[]){"", "d", "w", "b"}[k]);
				if (!strcmp(s, n))
					reg_bit[id] = KP_R_BIT(r);
			}
			for (k = 0; k < 3; k++) {
				snprintf(n, sizeof(n), "%cmm%d", "xyz"[k], r);
				if (!strcmp(s, n))
					reg_bit[id] = KP_R_BIT(KP_R_XMM0 + r);
			}
		}
	}
}

static void tally(struct tally *t, size_t *n, const cs_insn *in, const uint64_t v[4])
{
	char name[40];
	size_t i;

	snprintf(name, sizeof(name), "%s", in->mnemonic);
	for (i = 0; i < *n && strcmp(t[i].name, name); i++)
		;
	if (i == *n) {
		if (*n == TALLY_MAX)
			return;
		(*n)++;
		memset(&t[i], 0, sizeof(t[i]));
		snprintf(t[i].name, sizeof(t[i].name), "%s", name);
		t[i].id = in->id;
		memcpy(t[i].bytes, in->bytes, in->size);
		t[i].len = in->size;
		t[i].ours_src = v[0], t[i].ours_dst = v[1], t[i].cs_src = v[2], t[i].cs_dst = v[3];
	}
	t[i].n++;
}

static void regs_str(char *buf, size_t size, uint64_t m)
{
	static const char *const names[] = {"rax", "rcx", "rdx", "rbx", "rsp",	"rbp",
					    "rsi", "rdi", "r8",	 "r9",	"r10",	"r11",
					    "r12", "r13", "r14", "r15", "flags"};
	size_t o = 0;
	int r;

	buf[0] = 0;
	for (r = 0; r <= KP_R_FLAGS; r++)
		if (m & KP_R_BIT(r) && o < size)
			o += snprintf(buf + o, size - o, "%s%s", o ? "," : "", names[r]);
}

/* capstone's sets brought to ours where they differ by design: which way, or -1 */
static int by_design(const cs_insn *in, uint64_t *cs_src, uint64_t *cs_dst)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t op = x->opcode[0];
	size_t i;

	if (in->id == X86_INS_NOP && *cs_src) {
		*cs_src = 0;
		return BY_NOP;
	}
	/* movs, cmps, stos, lods, scas, ins, outs: one-byte opcodes */
	if (!x->opcode[1] &&
	    ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
	     (op >= 0x6c && op <= 0x6f)) &&
	    *cs_src & KP_R_BIT(KP_R_FLAGS)) {
		*cs_src &= ~KP_R_BIT(KP_R_FLAGS);
		return BY_DF;
	}
	for (i = 0; i < sizeof(sys_flags) / sizeof(sys_flags[0]); i++)
		if (in->id == sys_flags[i] && *cs_dst & KP_R_BIT(KP_R_FLAGS)) {
			*cs_dst &= ~KP_R_BIT(KP_R_FLAGS);
			return BY_DF;
		}
	return -1;
}

/* its last two operands, its sources, are one register: a zero idiom's */
static int same_sources(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	int n = x->op_count;

	return n >= 2 && x->operands[n - 1].type == X86_OP_REG &&
	       x->operands[n - 2].type == X86_OP_REG &&
	       x->operands[n - 1].reg == x->operands[n - 2].reg;
}

/*
 * An explicit memory operand: its base and index among our address
 * registers, and accessed where capstone says so (lea, nops, prefetches,
 * cache line flushes and invlpg access nothing).
 * Whether it is loaded or stored is not compared: capstone 4 has vector
 * stores read their operand, cmpxchg not write it.
 */
static void compare_mem(const cs_insn *in, const struct kp_x86_deps *d, struct stats *st)
{
	const cs_x86 *x = &in->detail->x86;
	uint64_t regs = 0;
	int i, load = 0, store = 0, found = 0;

	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type != X86_OP_MEM)
			continue;
		found = 1;
		regs |= reg_bit[o->mem.base] | reg_bit[o->mem.index];
		load |= !!(o->access & CS_AC_READ);
		store |= !!(o->access & CS_AC_WRITE);
	}
	if (!found || in->id == X86_INS_LEA || in->id == X86_INS_NOP ||
	    !strncmp(in->mnemonic, "prefetch", 8) || !strncmp(in->mnemonic, "clflush", 7) ||
	    in->id == X86_INS_CLWB || in->id == X86_INS_INVLPG)
		return;
	st->mem++;
	/* capstone 4 gives the string instructions' operands no access */
	if ((regs & ~d->addr & KP_R_GPRS) == 0 && (!(load || store) || d->load || d->store))
		st->mem_agree++;
}

/* one instruction: ours against capstone's */
static void compare(csh h, cs_insn *in, struct stats *st)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;
	uint64_t cs_src = 0, cs_dst = 0, src, dst;
	struct kp_x86_deps d;
	int why;

	st->total++;
	if (!kp_x86_deps(in->bytes, in->size, &d)) {
		tally(st->unknown, &st->nunknown, in, (uint64_t[4]){0});
		return;
	}
	st->known++;
	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return;
	for (i = 0; i < nrd; i++)
		cs_src |= reg_bit[rd[i]];
	for (i = 0; i < nwr; i++)
		cs_dst |= reg_bit[wr[i]];
	why = by_design(in, &cs_src, &cs_dst);
	/* capstone lists a zero idiom's register as read, as the operand it is */
	if (d.zero_idiom && same_sources(in)) {
		d.src |= d.dst & (KP_R_GPRS | KP_R_XMMS);
		why = BY_ZI;
	}
	compare_mem(in, &d, st);
	src = d.src & CMP_MASK;
	dst = d.dst & CMP_MASK;
	if ((d.src & KP_R_XMMS) == (cs_src & KP_R_XMMS) &&
	    (d.dst & KP_R_XMMS) == (cs_dst & KP_R_XMMS))
		st->vec_agree++;
	if (src == (cs_src & CMP_MASK) && dst == (cs_dst & CMP_MASK)) {
		st->agree++;
		if (why >= 0)
			st->by_design[why]++;
	} else
		tally(st->bad, &st->nbad, in,
		      (uint64_t[4]){src, dst, cs_src & CMP_MASK, cs_dst & CMP_MASK});
}

static int by_count(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

static void print_top(const char *what, struct tally *t, size_t n, int full)
{
	char s[4][160];
	size_t i, j;

	qsort(t, n, sizeof(*t), by_count);
	printf("  %s (%zu mnemonics):\n", what, n);
	for (i = 0; i < n && i < TOP; i++) {
		printf("    %7lu %-12s", t[i].n, t[i].name);
		for (j = 0; j < t[i].len; j++)
			printf(" %02x", t[i].bytes[j]);
		if (full) {
			regs_str(s[0], sizeof(s[0]), t[i].ours_src);
			regs_str(s[1], sizeof(s[1]), t[i].ours_dst);
			regs_str(s[2], sizeof(s[2]), t[i].cs_src);
			regs_str(s[3], sizeof(s[3]), t[i].cs_dst);
			printf("  ours r{%s} w{%s} capstone r{%s} w{%s}", s[0], s[1], s[2], s[3]);
			for (j = 0; j < sizeof(cs_wrong) / sizeof(cs_wrong[0]); j++)
				if (cs_wrong[j].id == t[i].id)
					printf(" (%s)", cs_wrong[j].why);
		}
		printf("\n");
	}
}

/* every executable section of an ELF64 file, through capstone */
static int scan(csh h, const char *path, struct stats *st)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	struct stat sb;
	uint8_t *map;
	cs_insn *in = cs_malloc(h);
	int fd = open(path, O_RDONLY), i;

	if (fd < 0 || fstat(fd, &sb) || !in)
		return -1;
	map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	eh = (const Elf64_Ehdr *)map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	sh = (const Elf64_Shdr *)(map + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const uint8_t *code = map + sh[i].sh_offset;
		size_t size = sh[i].sh_size;
		uint64_t addr = sh[i].sh_addr;

		if (sh[i].sh_type != SHT_PROGBITS || !(sh[i].sh_flags & SHF_EXECINSTR))
			continue;
		while (size) {
			if (!cs_disasm_iter(h, &code, &size, &addr, in))
				code++, size--, addr++;	 /* not an instruction: data */
			else if (in->id == X86_INS_INT3) /* padding, in a kernel most of it */
				st->int3++;
			else
				compare(h, in, st);
		}
	}
	cs_free(in, 1);
	munmap(map, sb.st_size);
	return 0;
}

int main(int argc, char **argv)
{
	double known_min = 0, agree_min = 0, mem_min = 0;
	int opt, bad = 0;
	csh h;

	while ((opt = getopt(argc, argv, "k:a:m:")) != -1)
		if (opt == 'k')
			known_min = atof(optarg);
		else if (opt == 'a')
			agree_min = atof(optarg);
		else if (opt == 'm')
			mem_min = atof(optarg);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK ||
	    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		fprintf(stderr, "capstone will not open\n");
		return 2;
	}
	map_regs(h);
	for (; optind < argc; optind++) {
		static struct stats st;
		double known, agree, mem;

		memset(&st, 0, sizeof(st));
		if (scan(h, argv[optind], &st) || !st.total) {
			printf("%s: not an x86-64 ELF file with code\n", argv[optind]);
			bad = 1;
			continue;
		}
		known = 100.0 * st.known / st.total;
		agree = st.known ? 100.0 * st.agree / st.known : 0;
		mem = st.mem ? 100.0 * st.mem_agree / st.mem : 0;
		printf("%s: %lu instructions (int3 padding not counted: %lu), %lu known (%.2f%%), "
		       "%lu of those agree on general registers and flags (%.2f%%), %.2f%% on "
		       "xmm/ymm 0-15\n",
		       argv[optind], st.total, st.int3, st.known, known, st.agree, agree,
		       st.known ? 100.0 * st.vec_agree / st.known : 0);
		printf("  agreeing by design: %lu nops (no address read), %lu direction or "
		       "system flag uses (no arithmetic flag), %lu zero idioms (no source)\n",
		       st.by_design[BY_NOP], st.by_design[BY_DF], st.by_design[BY_ZI]);
		printf("  explicit memory operands: %lu, %.2f%% accessed through the same address "
		       "registers\n",
		       st.mem, mem);
		print_top("disagreeing", st.bad, st.nbad, 1);
		print_top("unknown", st.unknown, st.nunknown, 0);
		if (known < known_min || agree < agree_min || mem < mem_min) {
			printf("%s: below %.2f%% known, %.2f%% agreeing or %.2f%% of memory "
			       "operands agreeing\n",
			       argv[optind], known_min, agree_min, mem_min);
			bad = 1;
		}
	}
	cs_close(&h);
	return bad;
}

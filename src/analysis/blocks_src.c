// SPDX-License-Identifier: GPL-2.0-only
/*
 * A --blocks function's blocks decoded from the vmlinux and set on their
 * source lines (blocks_src.h).  The vmlinux's text is read at the recorded
 * addresses less the KASLR slide: the text before alternatives, so that a
 * block may decode to another number of instructions than the running
 * kernel's, which the callers then say.
 */
#include "analysis/blocks_src.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "data/blocks_read.h"
#include "symbols/debuginfo.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/symbolize.h"
#include "util/array.h"

/* The vmlinux's bytes at link-time address addr, to the end of its section. */
static int text_at(Elf *elf, __u64 addr, const uint8_t **out, size_t *len)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr - sh.sh_addr >= sh.sh_size)
			continue;
		/* a separate debug file keeps the section headers, not the bytes */
		if (sh.sh_type != SHT_PROGBITS)
			return -ENODATA;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != sh.sh_size)
			return -EIO;
		*out = (const uint8_t *)data->d_buf + (addr - sh.sh_addr);
		*len = sh.sh_size - (addr - sh.sh_addr);
		return 0;
	}
	return -ENOENT;
}

const struct sym_result *blocks_src_at(const struct blocks_src *s, __u64 addr, const char **file,
				       int *line)
{
	const struct sym_result *r = NULL;

	*file = NULL;
	*line = 0;
	if (s->kd && !kernel_dwarf_symbolize(s->kd, addr, &r) && r) {
		*file = r->frames[0].file;
		*line = r->frames[0].line;
	}
	return r;
}

/* Block bi's instructions; false when the vmlinux has no text there. */
static int decode(struct blocks_src *s, csh cs, Elf *elf, size_t bi, bool *ok)
{
	const struct blocks_block *b = &s->f->b[bi];
	struct blocks_src_insn *out;
	const uint8_t *code;
	cs_insn *in = NULL;
	size_t n, k, avail;

	*ok = !text_at(elf, b->start - s->slide, &code, &avail) && avail >= b->end - b->start;
	if (!*ok)
		return 0;
	/* at the running addresses, which jump targets are then shown as */
	n = cs_disasm(cs, code, b->end - b->start, b->start, 0, &in);
	out = calloc(n ?: 1, sizeof(*out));
	if (!out) {
		if (n)
			cs_free(in, n);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++) {
		out[k].addr = in[k].address;
		snprintf(out[k].text, sizeof(out[k].text), "%s%s%s", in[k].mnemonic,
			 in[k].op_str[0] ? " " : "", in[k].op_str);
		blocks_src_at(s, in[k].address, &out[k].file, &out[k].line);
		out[k].file = out[k].file ?: "??";
	}
	if (n)
		cs_free(in, n);
	s->insn[bi] = out;
	s->ninsn[bi] = n;
	return 0;
}

/* Every block decoded, until one the vmlinux has no text for. */
static int decode_all(struct blocks_src *s, Elf *elf)
{
	bool ok = true;
	size_t i;
	csh cs;
	int err = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 0;
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	for (i = 0; i < s->f->nb && ok && !err; i++)
		err = decode(s, cs, elf, i, &ok);
	s->text = ok && !err;
	cs_close(&cs);
	return err;
}

static struct blocks_src_line *line_of(struct blocks_src *s, const char *file, int line,
				       size_t *cap)
{
	size_t i;

	for (i = 0; i < s->nlines; i++)
		if (s->lines[i].line == line && !strcmp(s->lines[i].file, file))
			return &s->lines[i];
	if (array_reserve((void **)&s->lines, cap, s->nlines + 1, sizeof(*s->lines)))
		return NULL;
	s->lines[s->nlines] = (struct blocks_src_line){file, line};
	return &s->lines[s->nlines++];
}

/* Instruction k of block bi counted on its line. */
static int add_insn(struct blocks_src *s, size_t bi, size_t k, size_t *cap)
{
	const struct blocks_src_insn *in = &s->insn[bi][k];
	struct blocks_src_line *l = line_of(s, in->file, in->line, cap);
	struct blocks_src_part *p;

	if (!l)
		return -ENOMEM;
	p = l->nparts ? &l->parts[l->nparts - 1] : NULL;
	if (!p || p->block != bi) {
		p = realloc(l->parts, (l->nparts + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->parts = p;
		p = &p[l->nparts++];
		*p = (struct blocks_src_part){bi, 0};
	}
	p->insns++;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct blocks_src_line *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ?: (x->line > y->line) - (x->line < y->line);
}

static int make_lines(struct blocks_src *s)
{
	size_t bi, k, cap = 0;
	int err = 0;

	for (bi = 0; bi < s->f->nb && !err; bi++)
		for (k = 0; k < s->ninsn[bi] && !err; k++)
			err = add_insn(s, bi, k, &cap);
	if (!err && s->nlines)
		qsort(s->lines, s->nlines, sizeof(*s->lines), cmp_line);
	return err;
}

int blocks_src_open(struct blocks_src *s, const struct blocks_func *f, struct kernel_dwarf *kd)
{
	const uint8_t *code;
	Dwarf_Addr bias;
	size_t len;
	Elf *elf;
	int err;

	*s = (struct blocks_src){.f = f, .kd = kd};
	s->insn = calloc(f->nb ?: 1, sizeof(*s->insn));
	s->ninsn = calloc(f->nb ?: 1, sizeof(*s->ninsn));
	if (!s->insn || !s->ninsn)
		return -ENOMEM;
	if (!kd)
		return 0;
	s->slide = kernel_dwarf_runtime(kd, 0);
	elf = dwfl_module_getelf(debuginfo_module(kernel_dwarf_debuginfo(kd)), &bias);
	s->text_at_addr = elf && !text_at(elf, f->addr - s->slide, &code, &len);
	if (!s->text_at_addr)
		return 0;
	err = decode_all(s, elf);
	/* the lines of a function decoded in part would not be its lines */
	return err ?: s->text ? make_lines(s) : 0;
}

void blocks_src_close(struct blocks_src *s)
{
	size_t i;

	for (i = 0; i < s->nlines; i++)
		free(s->lines[i].parts);
	free(s->lines);
	for (i = 0; s->insn && i < s->f->nb; i++)
		free(s->insn[i]);
	free(s->insn);
	free(s->ninsn);
	memset(s, 0, sizeof(*s));
}

bool blocks_src_line_counts(const struct blocks_src_line *l, const long long *count,
			    long long *execs, long long *insns)
{
	long long c, n;
	bool known = false;
	size_t i;

	*execs = *insns = 0;
	for (i = 0; i < l->nparts; i++) {
		c = count[l->parts[i].block];
		if (c < 0)
			continue;
		known = true;
		/* the vmlinux may decode more instructions than were counted: saturate */
		if (__builtin_mul_overflow(c, l->parts[i].insns, &n) ||
		    __builtin_add_overflow(*insns, n, insns))
			*insns = LLONG_MAX;
		if (__builtin_add_overflow(*execs, c, execs))
			*execs = LLONG_MAX;
	}
	return known;
}

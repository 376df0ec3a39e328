// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --blocks: each --blocks function of a recording (data/blocks_read.h)
 * block by block, each block's instructions disassembled from the recorded
 * kernel's vmlinux (found by build-id, KASLR undone by the recorded _stext)
 * with their source lines and inline chains, then its loops with their trip
 * counts per call, then the instructions executed per source line.  Without
 * the vmlinux the blocks are listed by address only, and the output says
 * what is missing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "data/blocks_read.h"
#include "report/report_blocks.h"
#include "symbols/debuginfo.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/symbolize.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

/* distinct values a distribution's text line shows; JSON has them all */
#define SHOWN_VALUES 8

/* Executions and instructions executed on one source line. */
struct line_row {
	const char *file;
	int line;
	long long execs, insns;
	size_t block; /* the last block counted in execs, plus 1 */
};

/* A per-call distribution: its calls, mean and percentiles. */
struct dist {
	long long calls, p50, p90, max;
	double mean;
};

/* What printing one function needs. */
struct view {
	const struct blocks_func *f;
	struct kernel_dwarf *kd; /* NULL: no disassembly, no lines */
	Elf *elf;		 /* the vmlinux, for its text */
	__u64 slide;		 /* running address - link-time address */
	csh cs;
	bool cs_open;
	bool text;	 /* every block disassembled: the per-line table is whole */
	long long total; /* instructions executed, over the blocks whose count is known */
	struct line_row *lines;
	size_t nlines, cap;
	FILE *out;
	struct json *j; /* NULL: text */
};

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

/* The innermost file:line of running address addr; file NULL when unknown. */
static void line_of(const struct view *v, __u64 addr, const char **file, int *line,
		    const struct sym_result **sym)
{
	const struct sym_result *r = NULL;

	*file = NULL;
	*line = 0;
	if (v->kd && !kernel_dwarf_symbolize(v->kd, addr, &r) && r) {
		*file = r->frames[0].file;
		*line = r->frames[0].line;
	}
	if (sym)
		*sym = r;
}

/* The inlined frames at a position, outermost first: "a > b", "" when none. */
static void chain_of(const struct sym_result *r, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	*buf = '\0';
	for (i = r ? (int)r->n - 1 : -1; i >= 0 && n < len; i--) {
		if (!r->frames[i].inlined)
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? " > " : "", r->frames[i].func ?: "?");
	}
}

static int add_line(struct view *v, const char *file, int line, size_t block, long long count)
{
	struct line_row *l;
	size_t i;

	for (i = 0; i < v->nlines; i++)
		if (v->lines[i].line == line && !strcmp(v->lines[i].file, file))
			break;
	if (i == v->nlines) {
		if (array_reserve((void **)&v->lines, &v->cap, i + 1, sizeof(*v->lines)))
			return -ENOMEM;
		v->lines[v->nlines++] = (struct line_row){file, line};
	}
	l = &v->lines[i];
	l->insns += count;
	if (l->block != block + 1) {
		l->execs += count;
		l->block = block + 1;
	}
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ?: (x->line > y->line) - (x->line < y->line);
}

static void print_insn(struct view *v, const cs_insn *in, const char *file, int line)
{
	__u64 addr = in->address;
	char text[192];

	snprintf(text, sizeof(text), "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "", in->op_str);
	if (!v->j) {
		fprintf(v->out, "      %llx:  %s\n", (unsigned long long)addr, text);
		return;
	}
	json_open(v->j, NULL, '{');
	json_u64(v->j, "addr", addr);
	json_str(v->j, "text", text);
	json_str(v->j, "file", file);
	json_u64(v->j, "line", line);
	json_close(v->j, '}');
}

/* A count, or null / "?" when unknown. */
static void json_count(struct json *j, const char *key, long long v)
{
	if (v < 0)
		json_str(j, key, NULL);
	else
		json_u64(j, key, v);
}

static const char *count_text(char *buf, size_t len, long long v)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%lld", v);
	return buf;
}

/* Block bi's instructions from the vmlinux, each with its line when it changes; lines counted. */
static int disasm_block(struct view *v, size_t bi)
{
	const struct blocks_block *b = &v->f->b[bi];
	const char *file, *prev = NULL;
	int line, prev_line = 0, err = 0;
	const uint8_t *code;
	cs_insn *in = NULL;
	size_t n, k, avail;

	if (!v->text || text_at(v->elf, b->start - v->slide, &code, &avail) ||
	    avail < b->end - b->start) {
		v->text = false;
		return 0;
	}
	/* at the running addresses, which jump targets are then shown as */
	n = cs_disasm(v->cs, code, b->end - b->start, b->start, 0, &in);
	if (v->j)
		json_open(v->j, "instructions", '[');
	for (k = 0; k < n && !err; k++) {
		line_of(v, in[k].address, &file, &line, NULL);
		if (!v->j && k &&
		    (line != prev_line || !file != !prev || (file && strcmp(file, prev))))
			esc_printf(v->out, "    %s:%d\n", file ?: "??", line);
		prev = file;
		prev_line = line;
		print_insn(v, &in[k], file ?: "??", line);
		if (b->count >= 0)
			err = add_line(v, file ?: "??", line, bi, b->count);
	}
	if (v->j) {
		json_close(v->j, ']');
		json_u64(v->j, "decoded_insns", n);
	} else if ((long long)n != b->insns) {
		fprintf(v->out,
			"    (the vmlinux decodes %zu instructions here, the recording %lld:"
			" the running text differs)\n",
			n, b->insns);
	}
	if (n)
		cs_free(in, n);
	return err;
}

/* The counts of block bi's taken and not-taken edges; false when it has no conditional branch. */
static bool branch_of(const struct blocks_func *f, size_t bi, long long *taken, long long * not )
{
	bool found = false;
	size_t i;

	*taken = *not = BLOCKS_UNKNOWN;
	for (i = 0; i < f->ne; i++) {
		if (f->e[i].src != (int)bi)
			continue;
		if (f->e[i].kind == BLOCKS_EDGE_TAKEN)
			*taken = f->e[i].count;
		else if (f->e[i].kind == BLOCKS_EDGE_NOT_TAKEN)
			*not = f->e[i].count;
		else
			continue;
		found = true;
	}
	return found;
}

static void print_branch(struct view *v, size_t bi)
{
	long long t, nt;
	char a[24], b[24];

	if (!branch_of(v->f, bi, &t, &nt))
		return;
	if (v->j) {
		json_open(v->j, "branch", '{');
		json_count(v->j, "taken", t);
		json_count(v->j, "not_taken", nt);
		if (t >= 0 && nt >= 0 && t + nt > 0)
			json_double(v->j, "taken_ratio", (double)t / (t + nt));
		else
			json_str(v->j, "taken_ratio", NULL);
		json_close(v->j, '}');
		return;
	}
	if (t < 0 || nt < 0)
		fprintf(v->out, "    branch: taken %s, not taken %s: ratio unknown\n",
			count_text(a, sizeof(a), t), count_text(b, sizeof(b), nt));
	else if (t + nt == 0)
		fprintf(v->out, "    branch: never reached\n");
	else
		fprintf(v->out, "    branch: taken %lld (%.1f%%), not taken %lld (%.1f%%)\n", t,
			100.0 * t / (t + nt), nt, 100.0 * nt / (t + nt));
}

/* The block's share of the function's instructions executed, -1 when unknown. */
static double share_of(const struct view *v, const struct blocks_block *b)
{
	if (b->count < 0 || !v->total)
		return -1;
	return 100.0 * b->count * b->insns / v->total;
}

static void block_head_json(struct view *v, size_t bi, const struct sym_result *r,
			    const char *chain)
{
	const struct blocks_block *b = &v->f->b[bi];
	double share = share_of(v, b);

	json_u64(v->j, "block", bi);
	json_u64(v->j, "start", b->start);
	json_u64(v->j, "end", b->end);
	json_u64(v->j, "insns", b->insns);
	json_count(v->j, "executions", b->count);
	if (share >= 0)
		json_double(v->j, "share_pct", share);
	else
		json_str(v->j, "share_pct", NULL);
	json_bool(v->j, "probed", b->probed);
	json_count(v->j, "loop", b->loop);
	json_bool(v->j, "loop_head", b->loop >= 0 && v->f->loops[b->loop].head == (int)bi);
	json_str(v->j, "file", r ? r->frames[0].file : NULL);
	json_u64(v->j, "line", r ? r->frames[0].line : 0);
	json_str(v->j, "inlined", chain);
}

static void block_head_text(struct view *v, size_t bi, const struct sym_result *r,
			    const char *chain)
{
	const struct blocks_block *b = &v->f->b[bi];
	double share = share_of(v, b);
	char c[24], s[24] = "?", l[32] = "no loop";

	if (share >= 0)
		snprintf(s, sizeof(s), "%.1f%%", share);
	if (b->loop >= 0)
		snprintf(l, sizeof(l), "loop %d%s", b->loop,
			 v->f->loops[b->loop].head == (int)bi ? " head" : "");
	fprintf(v->out,
		"\nblock %zu  %llx-%llx  %lld insns  executions %s  %s of the instructions"
		"  %s%s\n",
		bi, (unsigned long long)b->start, (unsigned long long)b->end, b->insns,
		count_text(c, sizeof(c), b->count), s, l, b->probed ? "" : "  (not probed)");
	if (r && r->frames[0].file)
		esc_printf(v->out, "    at %s:%d%s%s\n", r->frames[0].file, r->frames[0].line,
			   *chain ? ", inlined: " : "", chain);
}

static int print_block(struct view *v, size_t bi)
{
	const struct sym_result *r = NULL;
	const char *file;
	char chain[512];
	int line, err;

	line_of(v, v->f->b[bi].start, &file, &line, &r);
	chain_of(r, chain, sizeof(chain));
	if (v->j) {
		json_open(v->j, NULL, '{');
		block_head_json(v, bi, r, chain);
	} else {
		block_head_text(v, bi, r, chain);
	}
	err = disasm_block(v, bi);
	print_branch(v, bi);
	if (v->j)
		json_close(v->j, '}');
	return err;
}

static int cmp_value(const void *a, const void *b)
{
	const struct blocks_value *x = *(const struct blocks_value *const *)a;
	const struct blocks_value *y = *(const struct blocks_value *const *)b;

	return (x->value > y->value) - (x->value < y->value);
}

/* The distribution of v[n], sorted by value. */
static void dist_of(const struct blocks_value *const *v, size_t n, struct dist *d)
{
	double sum = 0, cum = 0;
	size_t i;

	*d = (struct dist){.p50 = -1, .p90 = -1};
	for (i = 0; i < n; i++) {
		d->calls += v[i]->count;
		sum += (double)v[i]->value * v[i]->count;
	}
	for (i = 0; i < n && d->calls; i++) {
		cum += v[i]->count;
		if (d->p50 < 0 && cum * 2 >= d->calls)
			d->p50 = v[i]->value;
		if (d->p90 < 0 && cum * 10 >= 9.0 * d->calls)
			d->p90 = v[i]->value;
		if (v[i]->count)
			d->max = v[i]->value;
	}
	d->mean = d->calls ? sum / d->calls : 0;
}

/* The distribution as "N calls, mean M, p50 A, p90 B, max C: v xn, ..." or a JSON object. */
static void print_dist(struct view *v, const char *key, const char *ctx,
		       const struct blocks_value *const *vals, size_t n)
{
	struct dist d;
	size_t i;

	dist_of(vals, n, &d);
	if (v->j) {
		json_open(v->j, key, '{');
		if (ctx)
			json_str(v->j, "ctx", ctx);
		json_u64(v->j, "calls", d.calls);
		json_double(v->j, "mean", d.mean);
		json_count(v->j, "p50", d.p50);
		json_count(v->j, "p90", d.p90);
		json_u64(v->j, "max", d.max);
		json_open(v->j, "values", '[');
		for (i = 0; i < n; i++) {
			json_open(v->j, NULL, '{');
			json_u64(v->j, "value", vals[i]->value);
			json_u64(v->j, "calls", vals[i]->count);
			json_close(v->j, '}');
		}
		json_close(v->j, ']');
		json_close(v->j, '}');
		return;
	}
	if (!d.calls) {
		fputs("no complete call\n", v->out);
		return;
	}
	fprintf(v->out, "%lld calls, mean %.2f, p50 %lld, p90 %lld, max %lld:", d.calls, d.mean,
		d.p50, d.p90, d.max);
	for (i = 0; i < n && i < SHOWN_VALUES; i++)
		fprintf(v->out, "%s %lld x%lld", i ? "," : "", vals[i]->value, vals[i]->count);
	if (n > SHOWN_VALUES)
		fprintf(v->out, ", ... (%zu values more)", n - SHOWN_VALUES);
	fputc('\n', v->out);
}

/* The values of what (trips of loop, or insns when loop < 0) into *out, sorted by value. */
static int values_of(const struct blocks_func *f, int loop, const char *ctx,
		     const struct blocks_value ***out, size_t *n)
{
	const struct blocks_value **p = calloc(f->nv ?: 1, sizeof(*p));
	size_t i;

	if (!p)
		return -ENOMEM;
	*n = 0;
	for (i = 0; i < f->nv; i++)
		if (f->v[i].trips == (loop >= 0) && f->v[i].loop == loop &&
		    (!ctx || !strcmp(ctx, f->v[i].ctx)))
			p[(*n)++] = &f->v[i];
	qsort(p, *n, sizeof(*p), cmp_value);
	*out = p;
	return 0;
}

/* Instructions per call, over all contexts. */
static int print_insns_per_call(struct view *v)
{
	const struct blocks_value **p;
	size_t n;
	int err = values_of(v->f, -1, NULL, &p, &n);

	if (err)
		return err;
	if (!v->j)
		fputs("# instructions per call: ", v->out);
	if (n || v->j)
		print_dist(v, "insns_per_call", NULL, p, n);
	else
		fputs("not recorded\n", v->out);
	free(p);
	return 0;
}

/* Loop l's trips per call: one distribution per context (slab cache), in the file's order. */
static int print_trips(struct view *v, int l)
{
	const struct blocks_func *f = v->f;
	const struct blocks_value **p;
	const char *ctx = NULL;
	size_t i, n;
	int err = 0;

	if (v->j)
		json_open(v->j, "trips_per_call", '[');
	for (i = 0; i < f->nv && !err; i++) {
		if (!f->v[i].trips || f->v[i].loop != l || (ctx && !strcmp(ctx, f->v[i].ctx)))
			continue;
		ctx = f->v[i].ctx;
		err = values_of(f, l, ctx, &p, &n);
		if (err)
			break;
		if (!v->j)
			esc_printf(v->out, "    trips per call%s%s: ", *ctx ? ", " : "", ctx);
		print_dist(v, NULL, ctx, p, n);
		free(p);
	}
	if (v->j)
		json_close(v->j, ']');
	else if (!ctx)
		fputs("    trips per call: not recorded\n", v->out);
	return err;
}

static int print_loop(struct view *v, int l)
{
	const struct blocks_loop *lp = &v->f->loops[l];
	const char *file;
	char e[24], it[24], where[256] = "";
	int line, err;

	line_of(v, v->f->b[lp->head].start, &file, &line, NULL);
	if (file)
		snprintf(where, sizeof(where), " at %s:%d", file, line);
	if (v->j) {
		json_open(v->j, NULL, '{');
		json_u64(v->j, "loop", l);
		json_u64(v->j, "head", lp->head);
		json_str(v->j, "file", file);
		json_u64(v->j, "line", line);
		json_count(v->j, "parent", lp->parent);
		json_u64(v->j, "depth", lp->depth);
		json_bool(v->j, "irreducible", lp->irreducible);
		json_count(v->j, "entries", lp->entries);
		json_count(v->j, "iterations", lp->iterations);
		if (lp->entries > 0 && lp->iterations >= 0)
			json_double(v->j, "trips_per_entry", (double)lp->iterations / lp->entries);
		else
			json_str(v->j, "trips_per_entry", NULL);
	} else {
		esc_printf(v->out,
			   "\nloop %d: head block %d%s, depth %d%s: entries %s, iterations %s", l,
			   lp->head, where, lp->depth, lp->irreducible ? ", irreducible" : "",
			   count_text(e, sizeof(e), lp->entries),
			   count_text(it, sizeof(it), lp->iterations));
		if (lp->entries > 0 && lp->iterations >= 0)
			fprintf(v->out, ", %.2f trips per entry",
				(double)lp->iterations / lp->entries);
		fputc('\n', v->out);
	}
	err = print_trips(v, l);
	if (v->j)
		json_close(v->j, '}');
	return err;
}

static void print_lines(struct view *v)
{
	size_t i;

	if (v->nlines)
		qsort(v->lines, v->nlines, sizeof(*v->lines), cmp_line);
	if (v->j) {
		json_open(v->j, "lines", '[');
		for (i = 0; v->text && i < v->nlines; i++) {
			json_open(v->j, NULL, '{');
			json_str(v->j, "file", v->lines[i].file);
			json_u64(v->j, "line", v->lines[i].line);
			json_u64(v->j, "executions", v->lines[i].execs);
			json_u64(v->j, "instructions", v->lines[i].insns);
			json_close(v->j, '}');
		}
		json_close(v->j, ']');
		return;
	}
	if (!v->text) {
		fputs("\nPer source line: needs the vmlinux's text (see above)\n", v->out);
		return;
	}
	fputs("\nPer source line (EXECUTIONS: of the blocks with code on the line; INSNS:\n"
	      "instructions executed on it; blocks of unknown executions left out)\n",
	      v->out);
	fprintf(v->out, "%12s %14s %7s  %s\n", "EXECUTIONS", "INSNS", "SHARE", "LINE");
	for (i = 0; i < v->nlines; i++)
		esc_printf(v->out, "%12lld %14lld %6.1f%%  %s:%d\n", v->lines[i].execs,
			   v->lines[i].insns, v->total ? 100.0 * v->lines[i].insns / v->total : 0.0,
			   v->lines[i].file, v->lines[i].line);
}

static void print_head(struct view *v, const char *note)
{
	const struct blocks_func *f = v->f;

	bool partial = false;
	size_t i;

	for (i = 0; i < f->nb; i++)
		partial |= f->b[i].count < 0;
	if (v->j) {
		json_str(v->j, "function", f->name);
		json_u64(v->j, "addr", f->addr);
		json_u64(v->j, "size", f->size);
		json_u64(v->j, "calls", f->calls);
		json_u64(v->j, "complete", f->complete);
		json_u64(v->j, "lost", f->lost);
		json_str(v->j, "unprobed", f->unprobed);
		json_u64(v->j, "instructions", v->total);
		json_bool(v->j, "instructions_partial", partial);
		return;
	}
	esc_printf(v->out, "# blocks of %s: %llx, %llu bytes, %zu blocks, %zu loops\n", f->name,
		   (unsigned long long)f->addr, (unsigned long long)f->size, f->nb, f->nloops);
	fprintf(v->out, "# calls %lld, complete %lld, lost %lld; %lld instructions executed%s\n",
		f->calls, f->complete, f->lost, v->total,
		partial ? " in the blocks of known executions (shares are of these)" : "");
	if (*f->unprobed)
		esc_printf(v->out, "# not probed: %s\n", f->unprobed);
	if (!v->kd)
		esc_printf(v->out, "# no disassembly and no source lines: %s\n", note);
	else if (!v->text)
		esc_printf(v->out, "# no disassembly: %s holds no text at %llx\n",
			   kernel_dwarf_path(v->kd), (unsigned long long)(f->addr - v->slide));
}

static int print_func(struct view *v, const char *note)
{
	const struct blocks_func *f = v->f;
	size_t i;
	int err;

	print_head(v, note);
	err = print_insns_per_call(v);
	if (v->j)
		json_open(v->j, "blocks", '[');
	for (i = 0; i < f->nb && !err; i++)
		err = print_block(v, i);
	if (v->j) {
		json_close(v->j, ']');
		json_open(v->j, "loops", '[');
	}
	for (i = 0; i < f->nloops && !err; i++)
		err = print_loop(v, i);
	if (v->j)
		json_close(v->j, ']');
	if (!err)
		print_lines(v);
	return err;
}

/* The view of f: its instructions executed, and the vmlinux's text when it holds it. */
static void view_open(struct view *v, const struct blocks_func *f, struct kernel_dwarf *kd)
{
	Dwarf_Addr bias;
	const uint8_t *code;
	size_t i, len;

	*v = (struct view){.f = f, .kd = kd, .out = stdout};
	for (i = 0; i < f->nb; i++)
		if (f->b[i].count > 0)
			v->total += f->b[i].count * f->b[i].insns;
	if (!kd)
		return;
	v->slide = kernel_dwarf_runtime(kd, 0);
	v->elf = dwfl_module_getelf(debuginfo_module(kernel_dwarf_debuginfo(kd)), &bias);
	v->text = v->elf && !text_at(v->elf, f->addr - v->slide, &code, &len);
	if (v->text && cs_open(CS_ARCH_X86, CS_MODE_64, &v->cs) == CS_ERR_OK) {
		v->cs_open = true;
		cs_option(v->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	} else {
		v->text = false;
	}
}

static void view_close(struct view *v)
{
	if (v->cs_open)
		cs_close(&v->cs);
	free(v->lines);
}

/* The functions a report shows, loaded whole before anything is printed. */
struct funcs {
	struct datafile *df;
	struct blocks_func *f;
	size_t n, cap;
};

static int load_one(const char *name, void *ctx)
{
	struct funcs *s = ctx;
	int err;

	if (array_reserve((void **)&s->f, &s->cap, s->n + 1, sizeof(*s->f)))
		return -ENOMEM;
	err = blocks_load(s->df, name, &s->f[s->n]);
	s->n++;
	return err;
}

static int load_funcs(struct funcs *s, const char *func)
{
	bool present;
	int err = blocks_present(s->df, &present);

	if (err || !present)
		return err ?: -ENODATA;
	if (func)
		return load_one(func, s);
	err = blocks_names(s->df, load_one, s);
	return err ?: (s->n ? 0 : -ENODATA);
}

static int print_all(const struct funcs *s, struct kernel_dwarf *kd, const char *note,
		     struct json *j)
{
	struct view v;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && !err; i++) {
		view_open(&v, &s->f[i], kd);
		v.j = j;
		if (j)
			json_open(j, NULL, '{');
		else if (i)
			fputc('\n', stdout);
		err = print_func(&v, note);
		if (j)
			json_close(j, '}');
		view_close(&v);
	}
	return err;
}

int report_blocks(struct datafile *df, struct kernel_dwarf *kd, const char *note, const char *func,
		  bool json)
{
	struct funcs s = {.df = df};
	struct json j;
	size_t i;
	int err = load_funcs(&s, func);

	if (!err && json) {
		json_begin(&j, stdout);
		json_open(&j, NULL, '{');
		if (kd)
			json_str(&j, "vmlinux", kernel_dwarf_path(kd));
		else
			json_str(&j, "missing", note);
		json_open(&j, "functions", '[');
		err = print_all(&s, kd, note, &j);
		json_close(&j, ']');
		json_close(&j, '}');
		json_end(&j);
	} else if (!err) {
		err = print_all(&s, kd, note, NULL);
	}
	for (i = 0; i < s.n; i++)
		blocks_func_free(&s.f[i]);
	free(s.f);
	return err;
}

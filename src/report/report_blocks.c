// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --blocks: each --blocks function of a recording (data/blocks_read.h)
 * block by block, each block's instructions disassembled from the recorded
 * kernel's vmlinux (analysis/blocks_src.h) with their source lines and inline
 * chains, then its loops with their trip counts per call and bounds
 * (report_blocks_loops.c), the instructions executed per source line, and
 * its calls by syscall and kernel stack (report_blocks_ctx.c).  Without the
 * vmlinux the blocks are listed by address only, and the output says what
 * is missing.
 */
#include "report/report_blocks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read.h"
#include "data/samples.h"
#include "report/report_blocks_view.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"
#include "symbols/symbolize.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

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

static void print_insn(struct view *v, const struct blocks_src_insn *in)
{
	if (!v->j) {
		fprintf(v->out, "      %llx:  %s\n", (unsigned long long)in->addr, in->text);
		return;
	}
	json_open(v->j, NULL, '{');
	json_u64(v->j, "addr", in->addr);
	json_str(v->j, "text", in->text);
	json_str(v->j, "file", in->file);
	json_u64(v->j, "line", in->line);
	json_close(v->j, '}');
}

/* Block bi's instructions, each with its line when it changes. */
static void disasm_block(struct view *v, size_t bi)
{
	const struct blocks_src_insn *in = v->src.insn[bi];
	size_t k, n = v->src.ninsn[bi];

	if (!in)
		return;
	if (v->j)
		json_open(v->j, "instructions", '[');
	for (k = 0; k < n; k++) {
		if (!v->j && k &&
		    (in[k].line != in[k - 1].line || strcmp(in[k].file, in[k - 1].file)))
			esc_printf(v->out, "    %s:%d\n", in[k].file, in[k].line);
		print_insn(v, &in[k]);
	}
	if (v->j) {
		json_close(v->j, ']');
		json_u64(v->j, "decoded_insns", n);
	} else if ((long long)n != v->f->b[bi].insns) {
		fprintf(v->out,
			"    (the vmlinux decodes %zu instructions here, the recording %lld:"
			" the running text differs)\n",
			n, v->f->b[bi].insns);
	}
}

static void print_branch(struct view *v, size_t bi)
{
	const struct blocks_func *f = v->f;
	long long t, nt;
	char a[24], b[24];
	int et, en;

	if (!blocks_branch(f, bi, &et, &en))
		return;
	t = et < 0 ? BLOCKS_UNKNOWN : f->e[et].count;
	nt = en < 0 ? BLOCKS_UNKNOWN : f->e[en].count;
	if (v->j) {
		json_open(v->j, "branch", '{');
		report_blocks_json_count(v->j, "taken", t);
		report_blocks_json_count(v->j, "not_taken", nt);
		if (t >= 0 && nt >= 0 && t + nt > 0)
			json_double(v->j, "taken_ratio", (double)t / (t + nt));
		else
			json_str(v->j, "taken_ratio", NULL);
		json_close(v->j, '}');
		return;
	}
	if (t < 0 || nt < 0)
		fprintf(v->out, "    branch: taken %s, not taken %s: ratio unknown\n",
			report_blocks_count_text(a, sizeof(a), t),
			report_blocks_count_text(b, sizeof(b), nt));
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
	report_blocks_json_count(v->j, "executions", b->count);
	if (share >= 0)
		json_double(v->j, "share_pct", share);
	else
		json_str(v->j, "share_pct", NULL);
	json_bool(v->j, "probed", b->probed);
	report_blocks_json_count(v->j, "loop", b->loop);
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
		report_blocks_count_text(c, sizeof(c), b->count), s, l,
		b->probed ? "" : "  (not probed)");
	if (r && r->frames[0].file)
		esc_printf(v->out, "    at %s:%d%s%s\n", r->frames[0].file, r->frames[0].line,
			   *chain ? ", inlined: " : "", chain);
}

static void print_block(struct view *v, size_t bi)
{
	const struct sym_result *r;
	const char *file;
	char chain[512];
	int line;

	r = blocks_src_at(&v->src, v->f->b[bi].start, &file, &line);
	chain_of(r, chain, sizeof(chain));
	if (v->j) {
		json_open(v->j, NULL, '{');
		block_head_json(v, bi, r, chain);
	} else {
		block_head_text(v, bi, r, chain);
	}
	disasm_block(v, bi);
	print_branch(v, bi);
	if (v->j)
		json_close(v->j, '}');
}

/* Each line of the function with a block of known executions: its executions and instructions. */
static int print_lines(struct view *v)
{
	const struct blocks_src_line *l;
	long long *count = calloc(v->f->nb ?: 1, sizeof(*count)), execs, insns;
	size_t i;

	if (!count)
		return -ENOMEM;
	for (i = 0; i < v->f->nb; i++)
		count[i] = v->f->b[i].count;
	if (v->j)
		json_open(v->j, "lines", '[');
	else if (!v->src.text)
		fputs("\nPer source line: needs the vmlinux's text (see above)\n", v->out);
	else
		fprintf(v->out,
			"\nPer source line (EXECUTIONS: of the blocks with code on the line; INSNS:\n"
			"instructions executed on it; blocks of unknown executions left out)\n"
			"%12s %14s %7s  %s\n",
			"EXECUTIONS", "INSNS", "SHARE", "LINE");
	for (i = 0; i < v->src.nlines; i++) {
		l = &v->src.lines[i];
		if (!blocks_src_line_counts(l, count, &execs, &insns))
			continue;
		if (!v->j) {
			esc_printf(v->out, "%12lld %14lld %6.1f%%  %s:%d\n", execs, insns,
				   v->total ? 100.0 * insns / v->total : 0.0, l->file, l->line);
			continue;
		}
		json_open(v->j, NULL, '{');
		json_str(v->j, "file", l->file);
		json_u64(v->j, "line", l->line);
		json_u64(v->j, "executions", execs);
		json_u64(v->j, "instructions", insns);
		json_close(v->j, '}');
	}
	if (v->j)
		json_close(v->j, ']');
	free(count);
	return 0;
}

/* An inline instance: what was inlined where, and its ranges. */
static void print_inline(struct view *v)
{
	const struct blocks_inline *in = v->f->inl;

	if (v->j) {
		if (!in) {
			json_str(v->j, "inline", NULL);
			return;
		}
		json_open(v->j, "inline", '{');
		json_str(v->j, "name", in->name);
		json_str(v->j, "parent", in->parent);
		json_str(v->j, "call_file", *in->call_file ? in->call_file : NULL);
		json_u64(v->j, "call_line", in->call_line);
		json_u64(v->j, "entry", in->entry);
		json_str(v->j, "ranges", in->ranges);
		json_close(v->j, '}');
		return;
	}
	if (!in)
		return;
	esc_printf(v->out, "# inline instance: %s inlined into %s", in->name, in->parent);
	if (*in->call_file)
		esc_printf(v->out, ", called at %s:%d", in->call_file, in->call_line);
	else
		fputs(", its call site unknown", v->out);
	esc_printf(v->out, "; ranges %s\n", in->ranges);
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
		print_inline(v);
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
	print_inline(v);
	fprintf(v->out, "# calls %lld, complete %lld, lost %lld; %lld instructions executed%s\n",
		f->calls, f->complete, f->lost, v->total,
		partial ? " in the blocks of known executions (shares are of these)" : "");
	if (*f->unprobed)
		esc_printf(v->out, "# not probed: %s\n", f->unprobed);
	if (!v->src.kd)
		esc_printf(v->out, "# no disassembly and no source lines: %s\n", note);
	else if (!v->src.text_at_addr)
		esc_printf(v->out, "# no disassembly: %s holds no text at %llx\n",
			   kernel_dwarf_path(v->src.kd),
			   (unsigned long long)(f->addr - v->src.slide));
}

static int print_func(struct view *v, const char *note)
{
	size_t i;
	int err;

	print_head(v, note);
	err = report_blocks_insns_per_call(v);
	if (v->j)
		json_open(v->j, "blocks", '[');
	for (i = 0; i < v->f->nb && !err; i++)
		print_block(v, i);
	if (v->j)
		json_close(v->j, ']');
	return err ?: report_blocks_loops(v) ?: print_lines(v) ?: report_blocks_contexts(v);
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

/* Instructions executed, over the blocks whose count is known. */
static long long total_of(const struct blocks_func *f)
{
	long long total = 0;
	size_t i;

	for (i = 0; i < f->nb; i++)
		if (f->b[i].count > 0)
			total += f->b[i].count * f->b[i].insns;
	return total;
}

/* Whether a function has a kernel stack to show: the frames are named then, once. */
static bool any_stack(const struct funcs *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++)
		for (k = 0; k < s->f[i].ncx; k++)
			if (s->f[i].cx[k].kstack >= 0)
				return true;
	return false;
}

/* Every function, the views sharing df's named stacks. */
static int print_all(const struct funcs *s, struct view *proto, struct kernel_dwarf *kd,
		     const char *note)
{
	struct view v;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && !err; i++) {
		v = *proto;
		v.f = &s->f[i];
		v.total = total_of(v.f);
		err = blocks_src_open(&v.src, v.f, kd);
		if (v.j)
			json_open(v.j, NULL, '{');
		else if (i)
			fputc('\n', v.out);
		err = err ?: print_func(&v, note);
		if (v.j)
			json_close(v.j, '}');
		blocks_src_close(&v.src);
	}
	return err;
}

static int print_report(const struct funcs *s, struct view *proto, struct kernel_dwarf *kd,
			const char *note)
{
	int err;

	if (!proto->j)
		return print_all(s, proto, kd, note);
	json_open(proto->j, NULL, '{');
	if (kd)
		json_str(proto->j, "vmlinux", kernel_dwarf_path(kd));
	else
		json_str(proto->j, "missing", note);
	json_open(proto->j, "functions", '[');
	err = print_all(s, proto, kd, note);
	json_close(proto->j, ']');
	json_close(proto->j, '}');
	json_end(proto->j);
	return err;
}

int report_blocks(struct datafile *df, struct kernel_dwarf *kd, const char *note, const char *func,
		  bool json, size_t top)
{
	struct funcs s = {.df = df};
	struct view proto = {.df = df, .top = top, .out = stdout};
	struct json j;
	size_t i;
	int err = load_funcs(&s, func);

	if (!err && any_stack(&s))
		err = stacks_name_frames(df, kd, NULL) ?: samples_frames_open(df, &proto.frames);
	if (!err && json) {
		json_begin(&j, stdout);
		proto.j = &j;
	}
	err = err ?: print_report(&s, &proto, kd, note);
	if (proto.frames)
		samples_frames_close(proto.frames);
	for (i = 0; i < s.n; i++)
		blocks_func_free(&s.f[i]);
	free(s.f);
	return err;
}

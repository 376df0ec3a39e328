// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming the frames of a recording (stacks.h): kernel frames by the recorded
 * kallsyms and, when there is DWARF, with the functions inlined there.
 */
#include "symbols/stacks.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/samples.h"
#include "symbols/inline_rows.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/ksyms.h"
#include "symbols/symbolize.h"
#include "symbols/user_frames.h"
#include "util/array.h"

static int add_ksym(__u64 addr, const char *name, const char *module, void *ks)
{
	return ksyms_add(ks, addr, name, module);
}

struct namer {
	struct datafile *df;
	const struct ksyms *ks;
	struct kernel_dwarf *kd;
};

/* One frame's place: what every row of its depth shares. */
struct kframe {
	long long stack;
	int depth;
	__u64 pc;
	__u64 func_die; /* 0 when unknown */
};

static int put_frame(struct namer *n, const struct kframe *k, int sub, bool leaf, const char *name,
		     const struct sym_frame *f)
{
	struct samples_frame row = {
		.stack = k->stack,
		.depth = k->depth,
		.sub = sub,
		.name = name,
		.file = f ? f->file : NULL,
		.line = f ? f->line : 0,
		.die = f && f->inlined ? f->die : 0,
		.leaf = leaf,
		.pc = k->pc,
		.func_die = k->func_die,
	};

	return samples_add_frame(n->df, &row);
}

/* The function at a kernel frame, then what was inlined there, outermost first. */
static int name_kernel_frame(struct namer *n, struct kframe k, const struct ksym *sym)
{
	const struct sym_result *r = NULL;
	const struct sym_frame *fn;
	struct samples_frame at;
	char hex[24];
	int err;

	/* named by the address recorded, not the one looked up */
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)(k.depth ? k.pc + 1 : k.pc));
	if (n->kd) {
		err = kernel_dwarf_symbolize(n->kd, k.pc, &r);
		if (err)
			return err;
	}
	if (!r || !r->n)
		return put_frame(n, &k, 0, true, sym ? sym->name : hex, NULL);
	fn = &r->frames[r->n - 1];
	k.func_die = fn->inlined ? 0 : fn->die;
	err = put_frame(n, &k, 0, r->n == 1, sym ? sym->name : fn->func ?: hex, fn);
	at = (struct samples_frame){
		.stack = k.stack, .depth = k.depth, .pc = k.pc, .func_die = k.func_die};
	return err ?: inline_rows_put(n->df, &at, r);
}

/*
 * What follows prefix and its digits (ndigits hex digits, or any number of
 * decimal ones when 0) in a JIT image's name, NULL when name is not one.
 */
static const char *jit_name(const char *name, const char *prefix, int ndigits)
{
	size_t n = strlen(prefix);
	int i;

	if (strncmp(name, prefix, n))
		return NULL;
	name += n;
	for (i = 0;
	     isxdigit((unsigned char)name[i]) && (ndigits || isdigit((unsigned char)name[i])); i++)
		;
	if (!i || (ndigits && i != ndigits))
		return NULL;
	return name + i;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/* the kernel's entries into BPF programs: nothing else runs through them */
static const char *const glue[] = {"trace_call_bpf",
				   "bpf_overflow_handler",
				   "kprobe_multi_link_handler",
				   "kprobe_multi_link_exit_handler",
				   "kprobe_multi_link_prog_run",
				   NULL};
/* kprobes, fprobes and ftrace, which also run what is not BPF */
static const char *const kprobes[] = {"kprobe_dispatcher",
				      "kretprobe_dispatcher",
				      "kprobe_perf_func",
				      "kretprobe_perf_func",
				      "kprobe_ftrace_handler",
				      "kprobe_int3_handler",
				      "kprobe_handler",
				      "opt_pre_handler",
				      "optimized_callback",
				      "kprobe_optinsn_page",
				      "kprobe_insn_page",
				      "do_int3",
				      "exc_int3",
				      "asm_exc_int3",
				      "kretprobe_rethook_handler",
				      "rethook_trampoline_handler",
				      "arch_rethook_trampoline",
				      "arch_rethook_trampoline_callback",
				      "__kretprobe_trampoline_handler",
				      "kretprobe_trampoline_handler",
				      "fprobe_handler",
				      "fprobe_exit_handler",
				      "fprobe_entry",
				      "fprobe_return",
				      "fprobe_ftrace_entry",
				      "ftrace_regs_caller",
				      "ftrace_regs_call",
				      "ftrace_caller",
				      "ftrace_call",
				      "ftrace_trampoline",
				      NULL};

enum stacks_probe stacks_probe_frame(const char *name)
{
	const char *rest;

	if (!name)
		return PROBE_NONE;
	rest = jit_name(name, "bpf_prog_", 16);
	if (rest)
		return starts(rest, "_kp_") ? PROBE_OURS : PROBE_FOREIGN;
	rest = jit_name(name, "bpf_trace_run", 0);
	if ((rest && !*rest) || starts(name, "__bpf_trace_") || starts(name, "__bpf_prog_enter") ||
	    starts(name, "__bpf_prog_exit") || in_list(name, glue))
		return PROBE_OURS;
	/* the images (bpf_trampoline_<key>), not the functions that manage them */
	rest = jit_name(name, "bpf_trampoline_", 0);
	if (rest && !*rest)
		return PROBE_TRAMPOLINE;
	return in_list(name, kprobes) ? PROBE_IF_BPF : PROBE_NONE;
}

int stacks_probe_cut(const char *const *names, int n)
{
	enum stacks_probe p;
	int d, cut = -1;

	for (d = 0; d < n && cut < 0; d++) {
		p = stacks_probe_frame(names[d]);
		if (p == PROBE_FOREIGN)
			return -1;
		if (p == PROBE_OURS || (p == PROBE_TRAMPOLINE && !d))
			cut = d;
	}
	for (d = cut + 1; cut >= 0 && d < n; d++) {
		p = stacks_probe_frame(names[d]);
		if (p != PROBE_OURS && p != PROBE_TRAMPOLINE && p != PROBE_IF_BPF)
			break;
		cut = d;
	}
	return cut;
}

/* One kernel stack's recorded frames, leaf first, while it is read. */
struct kstack {
	struct namer *n;
	long long id; /* -1: none yet */
	__u64 *pc;    /* looked up: a return address less one, above the leaf */
	const char **names;
	size_t len, cap_pc, cap_names;
};

/* The stack read, named: kprotperf's probe cut out first. */
static int name_kstack(struct kstack *s)
{
	int cut = stacks_probe_cut(s->names, (int)s->len), d, err = 0;
	struct kframe k = {.stack = s->id};

	if (cut >= 0) {
		k.pc = s->pc[cut];
		err = put_frame(s->n, &k, 0, true, STACKS_PROBE_FRAME, NULL);
	}
	for (d = cut + 1; d < (int)s->len && !err; d++) {
		k = (struct kframe){s->id, cut < 0 ? d : d - cut, s->pc[d]};
		err = name_kernel_frame(s->n, k, ksyms_lookup(s->n->ks, s->pc[d]));
	}
	s->len = 0;
	return err;
}

/* Frames come by stack, then depth (samples_kframes). */
static int read_kframe(long long stack, int depth, __u64 addr, void *ctx)
{
	struct kstack *s = ctx;
	const struct ksym *sym;
	int err = 0;

	if (stack != s->id && s->len)
		err = name_kstack(s);
	s->id = stack;
	if (err || array_reserve((void **)&s->pc, &s->cap_pc, s->len + 1, sizeof(*s->pc)) ||
	    array_reserve((void **)&s->names, &s->cap_names, s->len + 1, sizeof(*s->names)))
		return err ?: -ENOMEM;
	/* return addresses above the leaf are looked up one byte back, in the call */
	s->pc[s->len] = depth ? addr - 1 : addr;
	sym = ksyms_lookup(s->n->ks, s->pc[s->len]);
	s->names[s->len++] = sym ? sym->name : NULL;
	return 0;
}

int stacks_name_frames(struct datafile *df, struct kernel_dwarf *kd, struct user_files *uf)
{
	struct ksyms *ks;
	int err;

	err = samples_frames_create(df) ?: user_frames_name(df, uf);
	if (err)
		return err;
	err = ksyms_new(&ks);
	if (err)
		return err;
	err = samples_ksyms(df, add_ksym, ks);
	ksyms_sort(ks);
	if (!err) {
		struct namer n = {df, ks, kd};
		struct kstack st = {.n = &n, .id = -1};

		err = samples_kframes(df, read_kframe, &st);
		if (!err && st.len)
			err = name_kstack(&st);
		free(st.pc);
		free(st.names);
	}
	ksyms_free(ks);
	return err;
}

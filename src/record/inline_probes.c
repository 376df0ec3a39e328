// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --func on inlined-only functions.  Each instance is probed as a
 * function of its own (its own histogram), with one kprobe per address:
 * addresses where one instance ends and another begins share a probe whose
 * action closes the first before opening the second.
 */
#include "record/inline_probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "analysis/inline_ctx.h"
#include "analysis/inline_exits.h"
#include "data/recording.h"
#include "func_layout.h"
#include "record/running_dwarf.h"
#include "symbols/debuginfo.h"
#include "symbols/inlines.h"
#include "symbols/ksyms.h"
#include "util/array.h"

struct inline_probes {
	struct debuginfo *di;
	struct inlines_ctx *ctx; /* for the exits of every instance added */
	__s64 slide;		 /* running kernel's addresses minus the vmlinux's */
	struct inline_instance *inst;
	size_t n, cap;
};

struct pc_action {
	__u64 addr;
	struct kp_pc_action a;
};

static int open_set(struct inline_probes **out, const char *vmlinux, const struct ksyms *ks,
		    char *path, size_t plen)
{
	struct inline_probes *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	err = running_dwarf_open(&s->di, &s->slide, vmlinux, ks, path, plen);
	err = err ?: inlines_ctx_open(&s->ctx, s->di);
	if (err) {
		inline_probes_free(s);
		return err;
	}
	*out = s;
	return 0;
}

static int append(struct inline_probes *s, struct inline_instance *v, size_t n)
{
	if (array_reserve((void **)&s->inst, &s->cap, s->n + n, sizeof(*s->inst)))
		return -ENOMEM;
	memcpy(s->inst + s->n, v, n * sizeof(*v));
	s->n += n;
	free(v);
	return 0;
}

static bool has(const struct inline_probes *s, const char *name)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->inst[i].func, name))
			return true;
	return false;
}

int inline_probes_add(struct inline_probes **set, const char *name, const char *vmlinux,
		      const struct ksyms *ks, char *path, size_t plen)
{
	struct inline_instance *v;
	size_t n, i;
	int err;

	/* --func foo --func foo: its instances once, or the copies would take slots */
	if (has(*set, name))
		return 0;
	if (!*set) {
		err = open_set(set, vmlinux, ks, path, plen);
		if (err)
			return err;
	}
	err = inlines_find((*set)->di, name, &v, &n);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++)
		err = inlines_exits((*set)->ctx, &v[i]);
	if (!err && !n)
		err = -ENOENT;
	err = err ?: append(*set, v, n);
	if (err)
		inlines_free(v, n);
	return err;
}

size_t inline_probes_count(const struct inline_probes *s)
{
	return s ? s->n : 0;
}

const char *inline_probes_name(const struct inline_probes *s, size_t i)
{
	return s->inst[i].func;
}

static int cmp_action(const void *a, const void *b)
{
	const struct pc_action *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The action at addr, merged with an earlier one at the same address. */
static struct pc_action *action_at(struct pc_action *v, size_t *n, __u64 addr)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (v[i].addr == addr)
			return &v[i];
	v[*n] = (struct pc_action){.addr = addr, .a = {.entry = KP_NO_FUNC}};
	return &v[(*n)++];
}

static int build_actions(const struct inline_probes *s, __u32 base, struct pc_action **out,
			 size_t *nout)
{
	struct pc_action *v;
	size_t i, j, cap = 0, n = 0;

	/* funcs_attach() keeps base + s->n within KP_MAX_FUNCS */
	for (i = 0; i < s->n; i++)
		cap += 1 + s->inst[i].nexits;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		action_at(v, &n, s->inst[i].entry + s->slide)->a.entry = base + i;
		for (j = 0; j < s->inst[i].nexits; j++)
			action_at(v, &n, s->inst[i].exits[j].addr + s->slide)->a.exits |=
				1ULL << (base + i);
	}
	/* shared addresses take one probe: only the merged count must fit */
	if (n > KP_MAX_PC_PROBES) {
		free(v);
		return -E2BIG;
	}
	qsort(v, n, sizeof(*v), cmp_action);
	*out = v;
	*nout = n;
	return 0;
}

/* The instance probed at addr, for naming it in an error. */
static const struct inline_instance *probed_at(const struct inline_probes *s, __u64 addr)
{
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		if (s->inst[i].entry + s->slide == addr)
			return &s->inst[i];
		for (j = 0; j < s->inst[i].nexits; j++)
			if (s->inst[i].exits[j].addr + s->slide == addr)
				return &s->inst[i];
	}
	return NULL;
}

static void refused(const struct inline_probes *s, const struct pc_action *p, int err, char *why,
		    size_t len)
{
	const struct inline_instance *in = probed_at(s, p->addr);

	snprintf(why, len,
		 "the kernel refused a kprobe at 0x%llx (%s+0x%llx, in the inlined %s): "
		 "%s",
		 (unsigned long long)p->addr, in ? in->parent : "?",
		 in ? (unsigned long long)(p->addr - in->parent_lo - s->slide) : 0ULL,
		 in ? in->func : "function", strerror(-err));
}

int inline_probes_attach(const struct inline_probes *s, __u32 base, int actions_fd,
			 struct bpf_program *prog, int (*keep)(void *ctx, struct bpf_link *l),
			 void *ctx, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts);
	struct pc_action *v = NULL;
	struct bpf_link *l;
	size_t n = 0;
	__u32 i;
	int err;

	err = build_actions(s, base, &v, &n);
	if (err == -E2BIG)
		snprintf(why, len,
			 "%zu inline instances need kprobes at more addresses than "
			 "kprotperf has (%d)",
			 s->n, KP_MAX_PC_PROBES);
	for (i = 0; i < n && !err; i++) {
		opts.offset = v[i].addr;
		opts.bpf_cookie = i;
		if (bpf_map_update_elem(actions_fd, &i, &v[i].a, BPF_ANY)) {
			err = -errno;
			snprintf(why, len,
				 "storing inline probe action %u in the pc_actions map: %s", i,
				 strerror(-err));
		} else if (!(l = bpf_program__attach_kprobe_opts(prog, NULL, &opts))) {
			err = -errno;
			refused(s, &v[i], err, why, len);
		} else {
			err = keep(ctx, l);
		}
	}
	free(v);
	return err;
}

/* Ranges or exits as text, "lo-hi ..." or "addr:kind ...", in running-kernel addresses. */
static char *ranges_text(const struct inline_probes *s, const struct inline_instance *in)
{
	static const char *const kinds[] = {"fallthrough", "branch", "return", "tail-call"};
	size_t i, cap = 48 * (in->nranges + in->nexits) + 2, off = 0;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	t[0] = '\0';
	for (i = 0; i < in->nranges; i++)
		off += snprintf(t + off, cap - off, "%s0x%llx-0x%llx", i ? " " : "",
				(unsigned long long)(in->ranges[i].lo + s->slide),
				(unsigned long long)(in->ranges[i].hi + s->slide));
	off++;
	t[off - 1] = '\0';
	for (i = 0; i < in->nexits; i++)
		off += snprintf(t + off, cap - off, "%s0x%llx:%s", i ? " " : "",
				(unsigned long long)(in->exits[i].addr + s->slide),
				kinds[in->exits[i].kind]);
	return t;
}

int inline_probes_put(const struct inline_probes *s, __u32 base, struct datafile *df,
		      const char *method)
{
	const struct inline_instance *in;
	struct recording_inline row;
	size_t i;
	char *t;
	int err = 0;

	for (i = 0; s && i < s->n && !err; i++) {
		in = &s->inst[i];
		t = ranges_text(s, in);
		if (!t)
			return -ENOMEM;
		row = (struct recording_inline){.func = base + i,
						.name = in->func,
						.parent = in->parent,
						.call_file = in->call_file,
						.call_line = in->call_line,
						.entry = in->entry + s->slide,
						.ranges = t,
						.exits = t + strlen(t) + 1,
						.bytes = in->bytes};
		err = recording_put_func(df, row.func, in->func, in->parent, row.entry, "", method);
		err = err ?: recording_put_inline(df, &row);
		free(t);
	}
	return err;
}

static const char *plural(unsigned int n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

void inline_probes_note(const struct inline_probes *s, char *why, size_t len)
{
	const struct inline_instance *in = NULL;
	unsigned int unresolved = 0, cond = 0, others = 0;
	size_t i;
	int off;

	for (i = 0; s && i < s->n; i++) {
		if (!s->inst[i].unresolved && !s->inst[i].cond_exits)
			continue;
		others += in != NULL;
		in = in ?: &s->inst[i];
		unresolved += s->inst[i].unresolved;
		cond += s->inst[i].cond_exits;
	}
	if (!in)
		return;
	/* names cut short so that the note fits record's why[512] */
	off = snprintf(why, len, "note: %.60s in %.60s", in->func, in->parent);
	if (others && off < (int)len)
		off += snprintf(why + off, len - off, " (and %u other instance%s)", others,
				plural(others, "", "s"));
	if (unresolved && off < (int)len)
		off += snprintf(why + off, len - off,
				" has %u indirect jump%s whose targets are unknown: an invocation"
				" leaving through %s is not timed",
				unresolved, plural(unresolved, "", "s"),
				plural(unresolved, "it", "them"));
	if (cond && off < (int)len)
		snprintf(why + off, len - off,
			 "%s %u conditional jump%s to another function: %s probe ends an"
			 " invocation even when not taken",
			 unresolved ? "; and" : " has", cond, plural(cond, "", "s"),
			 plural(cond, "its", "their"));
}

void inline_probes_free(struct inline_probes *s)
{
	if (!s)
		return;
	inlines_ctx_close(s->ctx);
	inlines_free(s->inst, s->n);
	debuginfo_close(s->di);
	free(s);
}

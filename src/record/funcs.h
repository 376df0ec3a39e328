/* SPDX-License-Identifier: GPL-2.0-only */
/* record --func: choose how to probe each function, attach, and collect. */
#ifndef KP_FUNCS_H
#define KP_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "func_layout.h"

struct bpf_object;
struct datafile;
struct ksyms;
struct stackstore;
struct record_bpf;
struct funcs;

enum probe_mode { PROBE_AUTO, PROBE_FENTRY, PROBE_KPROBE };

struct func_opts {
	char *patterns[KP_MAX_FUNCS]; /* --func */
	int n;
	enum probe_mode mode; /* --probe */
	const char *vmlinux;  /* --vmlinux: DWARF to explain names without a symbol */
	bool stacks;	      /* --func-stacks: a kernel stack per call */
	bool strict;	      /* --strict: a pattern matching nothing is an error */
};

/*
 * Resolve the patterns against the kernel's symbols ks (which must outlive
 * the funcs) and attach probes for the traced tree (the whole system when rec
 * filters nothing).  On failure *why says what the user can do.
 */
int funcs_attach(struct funcs **out, const struct func_opts *o, const struct ksyms *ks,
		 struct record_bpf *rec, char *why, size_t len);
/* Stop the probes; what they counted stays readable. */
void funcs_detach(struct funcs *f);
int funcs_collect(struct funcs *f, struct datafile *df, const struct stackstore *st,
		  const struct ksyms *ks);
void funcs_free(struct funcs *f);
/* The func_lat map (struct kp_lat per function id), or -ENOENT when nothing is timed. */
int funcs_lat_fd(const struct funcs *f);
/* record --count: the func_cnt map (struct kp_cnt_lat per function id), or -ENOENT. */
int funcs_cnt_fd(const struct funcs *f);
/* How many functions are probed (a pattern may stand for several). */
/* fn on each BPF object --func loaded (NULL f: none) */
int funcs_each_object(const struct funcs *f, int (*fn)(struct bpf_object *, void *), void *ctx);
size_t funcs_count(const struct funcs *f);
/* "warning: ..." naming the patterns absent on this kernel; NULL when every one matched. */
const char *funcs_warning(const struct funcs *f);
/* Whether a function is probed by fentry: its BPF trampoline has a kallsyms symbol. */
bool funcs_uses_fentry(const struct funcs *f);

#endif

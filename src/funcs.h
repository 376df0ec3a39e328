/* SPDX-License-Identifier: GPL-2.0-only */
/* record --func: choose how to probe each function, attach, and collect. */
#ifndef KP_FUNCS_H
#define KP_FUNCS_H

#include <stdbool.h>
#include <stddef.h>

struct df;
struct ksyms;
struct record_bpf;
struct funcs;

enum probe_mode { PROBE_AUTO, PROBE_FENTRY, PROBE_KPROBE };

/*
 * Resolve the patterns and attach probes for the traced tree (filter_tree
 * false: the whole system).  vmlinux (may be NULL) is the kernel's DWARF, to
 * explain a name without a symbol.  On failure *why says what the user can do.
 */
int funcs_attach(struct funcs **out, char *const *patterns, int n, enum probe_mode mode,
		 const char *vmlinux, struct record_bpf *rec, char *why, size_t len);
/* Stop the probes; what they counted stays readable. */
void funcs_detach(struct funcs *f);
int funcs_collect(struct funcs *f, struct df *df, const struct ksyms *ks);
void funcs_free(struct funcs *f);
/* How many functions are probed (a pattern may stand for several). */
size_t funcs_count(const struct funcs *f);

#endif

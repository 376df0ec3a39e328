/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --func on a function the compiler inlined into every caller: its
 * instances from the kernel's DWARF, each timed as a function of its own by
 * kprobes at the instance's entry and exit addresses (see inlines.h).
 */
#ifndef KP_FUNCS_INLINE_H
#define KP_FUNCS_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_link;
struct bpf_program;
struct datafile;
struct ksyms;
struct inline_probes;

/*
 * Add the instances of the inline-only function name to *set (created on
 * first use; a name already in it adds nothing), with addresses as the
 * running kernel lays them out.  vmlinux: --vmlinux, else found by build-id
 * and release.  -ENOENT when name has an out-of-line copy or no instance;
 * -ENODATA, -ENOEXEC, -ESTALE as debuginfo_find() says of the vmlinux, whose
 * path is then in path.
 */
int inline_probes_add(struct inline_probes **set, const char *name, const char *vmlinux,
		      const struct ksyms *ks, char *path, size_t plen);
size_t inline_probes_count(const struct inline_probes *s);
const char *inline_probes_name(const struct inline_probes *s, size_t i);
/*
 * Fill the pc_actions map (fd) with instance i timed as function base + i,
 * and attach prog at every address; each link is handed to keep(), which
 * owns it from then on.  On failure *why names the address refused.
 */
int inline_probes_attach(const struct inline_probes *s, __u32 base, int actions_fd,
			 struct bpf_program *prog, int (*keep)(void *ctx, struct bpf_link *l),
			 void *ctx, char *why, size_t len);
/*
 * The instances as rows of the funcs (probed by method) and inlines tables,
 * instance i being function base + i.
 */
int inline_probes_put(const struct inline_probes *s, __u32 base, struct datafile *df,
		      const char *method);
/*
 * When some instance has ways out its exit probes do not time right
 * (inlines.h: unresolved, cond_exits), one "note: ..." line saying so into
 * why; else why is left alone.
 */
void inline_probes_note(const struct inline_probes *s, char *why, size_t len);
void inline_probes_free(struct inline_probes *s);

#endif

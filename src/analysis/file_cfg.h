/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kernel function's control-flow graph from its vmlinux file, as linked
 * (no alternative, static call or jump label patched): its text from the
 * symbol table, and what cfg_build() asks of the symbol table (thunks,
 * functions that never return, jump-label sites, WARNs).  What annotate
 * --model builds blocks from offline, where record --blocks reads the
 * running text; the jump-label sites stay two-way, as the counts decide.
 */
#ifndef KP_FILE_CFG_H
#define KP_FILE_CFG_H

#include <stddef.h>
#include <linux/types.h>

#include "analysis/cfg.h"

struct debuginfo;
struct file_cfg;

/*
 * What the graphs of di's functions need, read once; di stays open until
 * file_cfg_close().  by_name (NULL: only cfg_noreturn_name()) says what a
 * call or jump to the function symbol name is, past the thunks the file's
 * own symbols show (__x86_return_thunk, __x86_indirect_thunk_*).
 */
int file_cfg_open(struct file_cfg **out, struct debuginfo *di,
		  enum cfg_callee (*by_name)(const char *name));
void file_cfg_close(struct file_cfg *f);
/*
 * The text of the function symbol name, at its DWARF (link-time) address,
 * valid while f is open: -ENOENT when no function symbol has that name,
 * -ERANGE when the file holds not all of its bytes.
 */
int file_cfg_text(const struct file_cfg *f, const char *name, struct cfg_text *t);
/* The file's bytes from DWARF address addr to the end of the section holding them. */
int file_cfg_bytes(const struct file_cfg *f, __u64 addr, const __u8 **out, size_t *len);
/* cfg_build()'s view of the symbol table, for graphs at DWARF addresses. */
struct cfg_env file_cfg_env(struct file_cfg *f);

#endif

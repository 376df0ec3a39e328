/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report --blocks: what record --blocks counted in a function, block by
 * block over its disassembly, with its loops' trip counts per call, its
 * branches' directions and its instructions per source line.
 */
#ifndef KP_REPORT_BLOCKS_H
#define KP_REPORT_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

struct datafile;
struct kernel_dwarf;

/*
 * Print func's blocks (every --blocks function of df when func is NULL) as
 * text or one JSON object; the text's lists of values and stacks have top
 * rows at most.  kd (NULL when no vmlinux was found, note then saying what
 * is missing and how to get it) gives the disassembly and the source lines.
 * -ENODATA: df holds no --blocks data; -ENOENT: not for func; -EBADMSG: a
 * bad value (datafile_why says which); nothing printed then.
 */
int report_blocks(struct datafile *df, struct kernel_dwarf *kd, const char *note, const char *func,
		  bool json, size_t top);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for the frames of a recording: a TEMP table
 *   frames(space TEXT 'k'|'u', stack INTEGER, depth INTEGER, sub INTEGER,
 *          name TEXT, inl INTEGER, file TEXT, line INTEGER, die INTEGER,
 *          leaf INTEGER, pc INTEGER, func_die INTEGER)
 * that report, folded and annotate query (through data/samples.h and
 * data/inline_tables.h).  depth 0 is the leaf.  With the kernel's DWARF a
 * kernel frame is its function (sub 0, named as kallsyms
 * names it) followed by the functions inlined there, outermost first (sub 1,
 * 2, ...; inl 1); file:line is where each one's code is or calls the next,
 * die identifies an inline instance, and leaf marks the innermost row of a
 * depth, where the address itself is.  Without DWARF, sub 0 only.  Every
 * kernel row of a depth has its pc, the address looked up (a return
 * address less one: the call), and func_die, the DWARF offset of the
 * out-of-line function there (0 when unknown); user rows have pc NULL.
 * Also kstack_samples(stack INTEGER PRIMARY KEY, n INTEGER): the samples
 * taken with each kernel stack.
 */
#ifndef KP_STACKS_H
#define KP_STACKS_H

struct datafile;
struct kernel_dwarf;

/* kd: NULL without the kernel's DWARF. */
int stacks_name_frames(struct datafile *df, struct kernel_dwarf *kd);

#endif

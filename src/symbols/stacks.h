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
 * depth, where the address itself is.  Without DWARF, sub 0 only.  User
 * frames are named the same way from the DWARF of their mapped file (or of
 * its debug file; sub 0 by the recorded symbol).  Every
 * kernel row of a depth has its pc, the address looked up (a return
 * address less one: the call), and func_die, the DWARF offset of the
 * out-of-line function there (0 when unknown); user rows have pc NULL.
 * Also kstack_samples(stack INTEGER PRIMARY KEY, n INTEGER): the samples
 * taken with each kernel stack.
 *
 * kprotperf's own probes are cut out of the kernel stacks: from where the
 * probe begins (stacks_probe_cut: its BPF programs and the kernel code that
 * runs them) to the leaf, the frames are one leaf named STACKS_PROBE_FRAME,
 * and the frames below it move up to depth 1, 2, ...
 */
#ifndef KP_STACKS_H
#define KP_STACKS_H

#include <stdbool.h>

struct datafile;
struct kernel_dwarf;

#define STACKS_PROBE_FRAME "[kprotperf probe]"

/* What a kernel frame is to kprotperf's own probes, by its kallsyms name. */
enum stacks_probe {
	PROBE_NONE,	  /* the kernel's or the workload's code */
	PROBE_OURS,	  /* a kprotperf BPF program (kp_*), or code that only runs BPF programs */
	PROBE_TRAMPOLINE, /* a BPF trampoline image: runs fentry/fexit and the traced function */
	PROBE_IF_BPF,	  /* kprobe and ftrace machinery: also runs what is not BPF */
	PROBE_FOREIGN,	  /* another tool's BPF program */
};

enum stacks_probe stacks_probe_frame(const char *name);
/*
 * The depth (0: the leaf) where kprotperf's probe begins in names[0..n),
 * leaf first, or -1.  The probe is the leafmost PROBE_OURS frame (or a
 * trampoline at the leaf) and the frames running it: PROBE_OURS,
 * PROBE_TRAMPOLINE and PROBE_IF_BPF frames next to each other rootward of
 * it.  A trampoline with a function that is not the probe's above it is
 * where the traced function itself runs (fexit): the probe is not there.
 * Another tool's program, and the frames running it, are never the probe.
 * NULL names (no symbol) are PROBE_NONE.
 */
int stacks_probe_cut(const char *const *names, int n);

/*
 * kd: NULL without the kernel's DWARF.  User frames get what was inlined
 * at them from their file's DWARF (symbols/user_frames.h).
 */
int stacks_name_frames(struct datafile *df, struct kernel_dwarf *kd);

#endif

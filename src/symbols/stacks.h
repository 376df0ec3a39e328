/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for the frames of a recording: the TEMP table frames (data/samples.h
 * says what each column holds) that report, folded and annotate query
 * (through data/samples.h and data/inline_tables.h), and kstack_samples.
 * With the kernel's DWARF a kernel frame is its function (sub 0, named as
 * kallsyms names it) followed by the functions inlined there; without it,
 * sub 0 only.  User frames are named the same way from the DWARF of their
 * mapped file (or of its debug file; sub 0 by the recorded symbol).
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
struct user_files;

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
 * at them from their file's DWARF (symbols/user_frames.h) when uf is not
 * NULL: a view that shows no user inline frame or source line passes NULL,
 * and no user file is read.
 */
int stacks_name_frames(struct datafile *df, struct kernel_dwarf *kd, struct user_files *uf);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DWARF of a recording's kernel, for report, folded and annotate: found
 * by the build-id and release the data file holds (or --vmlinux), refused
 * when it is another build, with the recorded _stext (or another recorded
 * kernel symbol) undoing KASLR.  Works on any machine that has the debug
 * file, not only the recording one.
 */
#ifndef KP_KERNEL_DWARF_H
#define KP_KERNEL_DWARF_H

#include <stddef.h>
#include <linux/types.h>

struct datafile;
struct kernel_dwarf;
struct sym_result;

/*
 * 0 with *out set; 0 with *out NULL when no debug file was found (note then
 * says what is missing and how to get it); -errno with note set when the
 * file given or found cannot be used (another build, no DWARF, unreadable)
 * or the recording has no symbol to place it by (KASLR).
 */
int kernel_dwarf_open(struct kernel_dwarf **out, struct datafile *df, const char *vmlinux,
		      char *note, size_t len);
/* addr as recorded (runtime, KASLR included). */
int kernel_dwarf_symbolize(struct kernel_dwarf *k, __u64 addr, const struct sym_result **out);
struct debuginfo *kernel_dwarf_debuginfo(struct kernel_dwarf *k);
/* Recorded (runtime) address of a link-time one. */
__u64 kernel_dwarf_runtime(const struct kernel_dwarf *k, __u64 link_addr);
const char *kernel_dwarf_path(const struct kernel_dwarf *k);
void kernel_dwarf_close(struct kernel_dwarf *k);

#endif

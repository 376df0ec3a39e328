/* SPDX-License-Identifier: GPL-2.0-only */
/* One boot under scripts/vm-run.sh --boot, its raw folder left in a folder of ours. */
#ifndef KP_BOOT_VMRUN_H
#define KP_BOOT_VMRUN_H

#include <stddef.h>

struct boot_opts;

/*
 * vm-run.sh into path: $KP_VM_RUN, else scripts/vm-run.sh beside the
 * kprotperf binary (the source tree's).  -ENOENT after saying to set KP_VM_RUN.
 */
int boot_vmrun_find(char *path, size_t len);
/*
 * vm-run.sh --boot --out dir with o's options, its output into log (a new
 * file): its exit status 0..255, 128+N when signal N killed it, or -errno
 * after saying why it could not be started.
 */
int boot_vmrun(const char *vmrun, const struct boot_opts *o, const char *dir, const char *log);
/* The last max lines of path, escaped, each after indent, on stderr; a file not there: none. */
void boot_print_tail(const char *path, unsigned int max, const char *indent);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf's scripts run as programs (fork and execv, no shell), their
 * output into a log: one boot under scripts/vm-run.sh --boot, its raw folder
 * left in a folder of ours; kernel-build.sh and vm-run.sh for kprotperf sweep.
 */
#ifndef KP_BOOT_VMRUN_H
#define KP_BOOT_VMRUN_H

#include <stdbool.h>
#include <stddef.h>

struct boot_opts;

/*
 * vmrun_find()'s path into path, saying nothing: whether it is there and
 * can be run.
 */
bool vmrun_path(const char *env, const char *rel, char *path, size_t len);
/*
 * A script of kprotperf's source tree (rel: "scripts/vm-run.sh") into path:
 * $env, else rel beside the kprotperf binary (the source tree's).  -ENOENT
 * after saying, as who ("kprotperf boot"), to set env.
 */
int vmrun_find(const char *who, const char *env, const char *rel, char *path, size_t len);
/*
 * argv[0] run with argv, env ("NAME=VALUE", NULL-ended; may be NULL) added
 * to its environment, stdin from /dev/null and its output into log (a new
 * file): its exit status 0..255, 128+N when signal N killed it, 126 when it
 * could not be run (said in log), or -errno after saying why it could not
 * be started.
 */
int vmrun_spawn(const char *who, const char *const *argv, const char *const *env, const char *log);
/*
 * sig sent to the script vmrun_spawn() is waiting for, if any; safe in a
 * signal handler (a job stopped by its engine stops its script too).
 */
void vmrun_forward(int sig);
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

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The raw folders of a kernel's boots (scripts/vm-run.sh --boot --out DIR:
 * dmesg.txt, kallsyms.txt, cmdline, release, build-id, config, model.txt;
 * all untrusted) into one new recording (data/boot_schema.h), written whole or
 * not at all.
 */
#ifndef KP_BOOT_COLLECT_H
#define KP_BOOT_COLLECT_H

#include <stddef.h>

struct boot_opts;

/*
 * dirs[0..n), run 0..n-1, into o->output: 0, or -errno with why (one line
 * naming the run's file and the problem; "" when the error says it all).
 * What a run lacks but the recording can do without (initcalls, the clock
 * offset) is said on stderr, one line each.
 */
int boot_collect(const struct boot_opts *o, const char *const *dirs, unsigned int n, char *why,
		 size_t len);

#endif

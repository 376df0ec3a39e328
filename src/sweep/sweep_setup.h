/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a variant of a sweep's plan is (base's options with its own on top),
 * and the arguments kernel-build.sh and vm-run.sh get for it.
 */
#ifndef KP_SWEEP_SETUP_H
#define KP_SWEEP_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sweep/sweep_plan.h"

/*
 * What v is: base's options with v's on top.  A variant's --kernel replaces
 * base's kernel, its build options (--version, --src, --set) included; its
 * build options replace base's --kernel.  Its --set NAME replaces base's
 * NAME, its command-line word KEY=... base's KEY, its --version, --src,
 * --timeout and --cpu base's.
 */
void sweep_setup_of(const struct sweep_plan *p, const struct sweep_variant *v,
		    struct sweep_setup *s);
/* Whether s is built by kernel-build.sh (no --kernel). */
bool sweep_setup_builds(const struct sweep_setup *s);
/*
 * kernel-build.sh's arguments of s into argv[n..], NULL-ended (argv has
 * room for n + SWEEP_SETUP_ARGS); returns the new n.
 */
#define SWEEP_SETUP_ARGS (2 * SWEEP_WORDS_MAX + 8)
size_t sweep_setup_build_args(const struct sweep_setup *s, const char **argv, size_t n);
/* s's command-line words joined by spaces into buf ("" when none); false when it does not fit. */
bool sweep_setup_cmdline(const struct sweep_setup *s, char *buf, size_t len);
/*
 * s as one line: "kernel-build.sh ARGS" or "kernel DIR|PACKAGE", then
 * "; append 'CMDLINE'", "; timeout S" and "; cpu MODEL" when given, each word
 * shell-quoted where needed.
 */
void sweep_setup_print(const struct sweep_setup *s, FILE *f);
/* sweep_setup_print()'s line into buf, cut to fit. */
void sweep_setup_line(const struct sweep_setup *s, char *buf, size_t len);
/* w to f, in single quotes when a shell would read it otherwise. */
void sweep_shell_word(const char *w, FILE *f);

#endif

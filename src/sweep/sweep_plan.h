/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sweep's plan: a text file of kernel variants, one a line, "NAME:
 * OPTIONS", the options those of scripts/kernel-build.sh (--version, --src,
 * --set) and scripts/vm-run.sh (--kernel, --append, --timeout, --cpu).  The line
 * named base is what every other variant is compared with, and each
 * variant is base's options with its own on top.  Blank lines and lines
 * whose first character is '#' are skipped.  Each line is checked whole:
 * its name, every option and value, an option given twice with two values;
 * a refusal names the file and the line.
 */
#ifndef KP_SWEEP_PLAN_H
#define KP_SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* a name is a folder's: letters, digits, '_', '-', '+' */
#define SWEEP_NAME_MAX	   48
#define SWEEP_VARIANTS_MAX 64
/* --set options and command-line words of a line, and of a variant with base's */
#define SWEEP_WORDS_MAX 64

/* What a line asks for, or what a variant is (base's options, then its own). */
struct sweep_setup {
	const char *version, *src, *kernel, *timeout; /* NULL: not given */
	const char *cpu;			      /* vm-run.sh --cpu; NULL: not given */
	const char *sets[SWEEP_WORDS_MAX];	      /* "NAME=VALUE", NAME without CONFIG_ */
	size_t nsets;
	const char *params[SWEEP_WORDS_MAX]; /* kernel command-line words */
	size_t nparams;
};

struct sweep_variant {
	char name[SWEEP_NAME_MAX];
	unsigned int line;
	char *options; /* as written after "NAME:", trimmed */
	char *words;   /* the line's words, which own points into */
	struct sweep_setup own;
};

struct sweep_plan {
	struct sweep_variant v[SWEEP_VARIANTS_MAX]; /* in the plan's order */
	size_t n, base;				    /* base: v[base] */
	char *text;				    /* the plan as read */
	size_t size;
};

/* text (size bytes), read from path, into p: 0, or -EINVAL/-ENOMEM with why ("PATH:LINE: ..."). */
int sweep_plan_parse(const char *path, const char *text, size_t size, struct sweep_plan *p,
		     char *why, size_t len);
/* The plan at path (a regular file of at most SAFEIO_TEXT_MAX bytes) into p; -errno with why. */
int sweep_plan_load(const char *path, struct sweep_plan *p, char *why, size_t len);
void sweep_plan_free(struct sweep_plan *p);
/* The variant named so; NULL: none. */
const struct sweep_variant *sweep_plan_find(const struct sweep_plan *p, const char *name);

#endif

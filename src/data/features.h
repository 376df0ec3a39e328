/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which hardening feature a kernel function belongs to, for diff's roll-up:
 * an editable mapping (share/features.conf, built in; --features FILE
 * replaces it) from function and inlined-function name globs to features,
 * and from the Kconfig options that build them.
 */
#ifndef KP_FEATURES_H
#define KP_FEATURES_H

#include <stddef.h>

struct features;

/* path NULL: the built-in mapping.  On a bad file, why names the line. */
int features_load(struct features **out, const char *path, char *why, size_t len);
/* The feature of function (or inlined function) name, clone suffixes ignored; NULL: unmapped. */
const char *features_match(const struct features *f, const char *name);
size_t features_count(const struct features *f);
/* Feature i, in the file's order, and its one-line description. */
const char *features_name(const struct features *f, size_t i);
const char *features_about(const struct features *f, size_t i);
/* The Kconfig options (without CONFIG_) that build feature i, from its 'config =' lines. */
size_t features_nconfig(const struct features *f, size_t i);
const char *features_config(const struct features *f, size_t i, size_t k);
/* The feature a Kconfig option (CONFIG_ optional) builds; NULL: none. */
const char *features_of_config(const struct features *f, const char *option);
void features_free(struct features *f);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The naming rules of kernel function symbols: compiler clone suffixes
 * (.isra.N, .constprop.N, .part.N, ...) name parts of the function they were
 * cloned from; .cold parts, __pfx_ padding and __cfi_ stubs are no entry points.
 */
#ifndef KP_FUNCNAME_H
#define KP_FUNCNAME_H

#include <stddef.h>

/* Length of sym's function name without clone suffix; 0 for non-entry parts. */
size_t funcname_base_len(const char *sym);
/*
 * Length of sym before its first '.', where clone suffixes start; 0 when it
 * has none there (no '.', or one first).  .cold parts count as the function.
 */
size_t funcname_clone_base_len(const char *sym);

#endif

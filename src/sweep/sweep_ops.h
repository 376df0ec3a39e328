/* SPDX-License-Identifier: GPL-2.0-only */
/* The core operations a sweep records, by the names core-ops knows (include/core_ops.h). */
#ifndef KP_SWEEP_OPS_H
#define KP_SWEEP_OPS_H

#include <stddef.h>

/* Every operation's name, in core-ops's order, into ops (room for SWEEP_OPS_MAX); their number. */
size_t sweep_ops_all(const char **ops);
/*
 * A comma-separated list of operations into ops (each once, in the list's
 * order; names point into list): their number, or -EINVAL with why.
 */
int sweep_ops_parse(const char *list, const char **ops, size_t max, char *why, size_t len);
/* Whether name is an operation of core-ops. */
int sweep_ops_known(const char *name);

#endif

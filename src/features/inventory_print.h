/* SPDX-License-Identifier: GPL-2.0-only */
/* What kprotperf features prints of an inventory: text or JSON. */
#ifndef KP_INVENTORY_PRINT_H
#define KP_INVENTORY_PRINT_H

#include <stdbool.h>
#include <stdio.h>

struct inventory;

/*
 * The table of features (func NULL), or func's sites; -ENOENT when the
 * inventory has no function func.
 */
int inventory_print(FILE *f, struct inventory *inv, const char *func, bool json);
/* Two inventories' features side by side: base, hardened and the change. */
void inventory_print_diff(FILE *f, struct inventory *const inv[2], bool json);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef KP_FOLDED_H
#define KP_FOLDED_H

int cmd_folded(int argc, char **argv);

#endif

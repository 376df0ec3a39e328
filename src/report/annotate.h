/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef KP_ANNOTATE_H
#define KP_ANNOTATE_H

int cmd_annotate(int argc, char **argv);

#endif

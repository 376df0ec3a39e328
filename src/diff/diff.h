/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf diff BASE HARDENED: what a protection costs, where, and how sure
 * we are: the provenance of both recordings, then per-syscall, per-function,
 * per-inline-instance and per-feature changes with 95% intervals.
 */
#ifndef KP_DIFF_H
#define KP_DIFF_H

int cmd_diff(int argc, char **argv);

#endif

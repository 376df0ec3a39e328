/* SPDX-License-Identifier: GPL-2.0-only */
/* The machine's CPUs. */
#ifndef KP_CPUS_H
#define KP_CPUS_H

/* Online CPUs as a bitmap in *mask (bit i: CPU i), highest CPU + 1 returned, or -errno. */
int cpus_online(unsigned char *mask, int max);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/* The machine's CPUs: the one reader of which are online. */
#ifndef KP_CPUS_H
#define KP_CPUS_H

#include <stdbool.h>

/* CPUs a bitmap of cpus_online() has room for, at most. */
#define CPUS_MAX 4096

/* Online CPUs as a bitmap in *mask (bit i: CPU i), highest CPU + 1 returned, or -errno. */
int cpus_online(unsigned char *mask, int max);
/* Whether CPU cpu is in the bitmap mask. */
bool cpus_has(const unsigned char *mask, int cpu);

#endif

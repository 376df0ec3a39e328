/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf boot: a kernel booted N times under scripts/vm-run.sh --boot
 * (QEMU, icount), each boot's raw folder parsed into one recording of
 * schema 10 (data/boot_schema.h).
 */
#ifndef KP_BOOT_BOOT_H
#define KP_BOOT_BOOT_H

#include "boot/opts.h"

/* Boot o->repeat times and write the recording: kprotperf's exit status (125: a boot failed). */
int boot_run(const struct boot_opts *o);

#endif

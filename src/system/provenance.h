/* SPDX-License-Identifier: GPL-2.0-only */
/* What kernel and machine a recording was made on, saved with the data. */
#ifndef KP_PROVENANCE_H
#define KP_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/kv.h"

/* kernel.release, kernel.version, kernel.build_id, kernel.cmdline, cpu.model, cpu.count, arch,
 * hostname */
int provenance_kernel(struct kv_list *meta);
/* Hardening-relevant CONFIG_ options of the running kernel (path NULL: /proc/config.gz, then
 * /boot/config-RELEASE). */
int provenance_config(struct kv_list *config, const char *path);
/* One entry per file of the vulnerabilities directory (NULL:
 * /sys/devices/system/cpu/vulnerabilities). */
int provenance_vulns(struct kv_list *vulns, const char *dir);
bool provenance_config_relevant(const char *option);
/* GNU build-id of an ELF note blob (as in /sys/kernel/notes) into hex; -ENOENT when absent. */
int provenance_parse_build_id(const void *notes, size_t len, char *hex, size_t hexlen);
/* Whether a kernel cmdline token ("init_on_alloc=1", "nopti") switches a protection. */
bool provenance_is_knob(const char *tok);

#endif

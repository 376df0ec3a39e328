/* SPDX-License-Identifier: GPL-2.0-only */
/* What kernel and machine a recording was made on, saved with the data. */
#ifndef KP_PROVENANCE_H
#define KP_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

struct kv {
	char *key;
	char *value;
};

struct kv_list {
	struct kv *v;
	size_t n, cap;
};

int kv_add(struct kv_list *l, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *kv_get(const struct kv_list *l, const char *key);
void kv_list_free(struct kv_list *l);

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

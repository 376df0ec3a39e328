/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest kernel's log of one boot (a raw folder's dmesg.txt, busybox
 * dmesg's "[    1.234567] text" lines), read as untrusted input: the
 * initcalls initcall_debug printed, paired, up to the first user process,
 * and the times of the boot's phases (data/boot_schema.h).
 */
#ifndef KP_BOOT_DMESG_H
#define KP_BOOT_DMESG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* an initcall's name (its function, without "+0x0/0x40") fits, or the line is skipped */
#define BOOT_NAME_MAX 128

struct boot_initcall {
	char name[BOOT_NAME_MAX];
	__u64 start_ns, ns; /* its "calling" line's time; "after U usecs" x 1000 */
	int ret;
};

struct boot_dmesg {
	struct boot_initcall *ic; /* paired, in the order they ran */
	size_t n, cap;
	unsigned long unpaired; /* calling or returned lines without their other half */
	bool has_initcalls_end, has_first_user, has_clock_offset;
	__u64 initcalls_end_ns, first_user_ns, clock_offset_ns;
	char why_no_offset[160]; /* why clock_offset is not derivable */
};

/*
 * dmesg.txt at path into *d (boot_dmesg_free it, also on failure): 0, or
 * -errno with why ("" when the error says it all).  Lines it does not know
 * are skipped; what is missing is left unset (has_ false).
 */
int boot_dmesg_read(const char *path, struct boot_dmesg *d, char *why, size_t len);
void boot_dmesg_free(struct boot_dmesg *d);

#endif

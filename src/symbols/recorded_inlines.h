/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inline instances of a recording: those its samples fell into (known
 * from the kernel's DWARF, by their DIE) and those record --func probed
 * (known from the data file, even without DWARF), with their samples.
 */
#ifndef KP_RECORDED_INLINES_H
#define KP_RECORDED_INLINES_H

#include <stddef.h>
#include <linux/types.h>

struct datafile;
struct kernel_dwarf;
struct inline_range;

struct recorded_inline {
	char func[96], parent[96], site[192];
	__u64 die;		/* 0: known from the data file only */
	struct inline_range *r; /* running-kernel addresses */
	size_t nr;
	__u64 bytes;
	long long self, total, parent_total;
	long long id; /* funcs.id when record --func probed it, else -1 */
	char method[16];
	unsigned long long calls, avg, p99;
	double est_ns; /* per parent call, < 0 when the parent's calls are unknown */
};

struct recorded_inlines {
	struct datafile *df;
	struct kernel_dwarf *kd;
	struct recorded_inline *v;
	size_t n;
};

/*
 * The instances samples fell into (from the DWARF; kd NULL: none) and those
 * record --func probed, with their self and total samples; and the TEMP
 * table inline_stacks(inst INTEGER, stack INTEGER, self INTEGER): the kernel
 * stacks through v[inst] (self: at the leaf), as loaded, before any sorting
 * (see data/inline_tables.h).  Needs the frames table (stacks_name_frames).
 */
int recorded_inlines_load(struct recorded_inlines *s, struct datafile *df, struct kernel_dwarf *kd);
void recorded_inlines_free(struct recorded_inlines *s);

#endif

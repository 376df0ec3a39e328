/* SPDX-License-Identifier: GPL-2.0-only */
/* report --inline: one row per inline instance with samples or probes. */
#ifndef KP_REPORT_INLINE_H
#define KP_REPORT_INLINE_H

#include <stdio.h>
#include <linux/types.h>

struct df;
struct json;
struct kernel_dwarf;
struct inline_range;

struct inl_inst {
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

struct inl_insts {
	struct df *df;
	struct kernel_dwarf *kd;
	struct inl_inst *v;
	size_t n;
};

/*
 * The instances samples fell into (from the DWARF; kd NULL: none) and those
 * record --func probed, with their self and total samples; and the TEMP
 * table inline_stacks(inst INTEGER, stack INTEGER, self INTEGER): the kernel
 * stacks through v[inst] (self: at the leaf), as loaded, before any sorting
 * (with inline_dies and inline_ranges, what it is made from).  Needs the
 * frames table (stacks_name_frames).
 */
int inl_insts_load(struct inl_insts *s, struct df *df, struct kernel_dwarf *kd);
void inl_insts_free(struct inl_insts *s);

/* kd may be NULL: then only the instances record --func probed are known. */
int report_inline(struct df *df, struct kernel_dwarf *kd, int top, FILE *f, struct json *j);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inventory of compiler-inserted protections of a whole kernel: every
 * function of its text scanned for sites (sites.h), from the running
 * kernel's text (/proc/kcore and /proc/kallsyms: as the boot patched it:
 * alternatives, return and indirect thunks rewritten for the CPU and the
 * command line) or from a vmlinux file (its symbol table and text, as
 * linked: before any patching).
 */
#ifndef KP_INVENTORY_H
#define KP_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "features/sites.h"

struct ksyms;

struct inventory_func {
	const char *name;
	__u64 addr;
	__u64 size;
	struct sites_found found;
};

struct inventory {
	bool from_file;	   /* a vmlinux as linked, not the running text */
	char source[4096]; /* /proc/kcore, or the vmlinux's path */
	char note[1024];   /* why a vmlinux stands in for /proc/kcore; "" when none does */
	struct inventory_func *f;
	size_t n;
	/*
	 * the functions' code: each function's bytes up to the end of its last
	 * instruction that is no fill (struct sites_found's code), summed
	 */
	__u64 text_bytes;
	unsigned int sites[SITES_KINDS];
	unsigned int funcs[SITES_KINDS]; /* functions with at least one site of the kind */
	unsigned int canary_checks;
	__u64 zeroing_bytes; /* the xors of the zero_call_used_regs sites */
	size_t bad;	     /* bytes no instruction decodes from */
	struct ksyms *ks;    /* names of the text's symbols, for branch targets */
	bool ks_borrowed;    /* ks is inventory_open's caller's */
	struct sites_scanner *sc;
	__u8 *text; /* _stext to _etext, the fill between functions too */
	__u64 stext;
	__u64 text_len; /* of text */
};

/*
 * The inventory of the running kernel (vmlinux NULL) or of the vmlinux at
 * that path; -errno with why set to one line naming the problem and the
 * way out.  When /proc/kcore cannot give the running text (none, locked
 * down: zeros), the running kernel's vmlinux found by build id stands in,
 * as linked, and note says why.
 */
int inventory_build(const char *vmlinux, struct inventory **out, char *why, size_t len);
/*
 * The same without scanning: for inventory_sites() on the functions wanted.
 * ks: the running kernel's symbols when the caller has read them already
 * (borrowed: kept until inventory_free), else NULL to read /proc/kallsyms.
 */
int inventory_open(const char *vmlinux, struct ksyms *ks, struct inventory **out, char *why,
		   size_t len);
/* The function whose text holds addr; NULL: none does. */
const struct inventory_func *inventory_func_at(const struct inventory *inv, __u64 addr);
/* The sites of f, each told to cb, in address order. */
void inventory_sites(struct inventory *inv, const struct inventory_func *f, sites_cb *cb,
		     void *arg);
void inventory_free(struct inventory *inv);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compiler-inserted protections of the code a recording ran
 * (data/protect.h), found in the running kernel's text.
 */
#ifndef KP_SITES_SAVE_H
#define KP_SITES_SAVE_H

struct datafile;
struct ksyms;
struct kv_list;

/*
 * Scans each kernel function holding a recorded pc (sampled frames,
 * --blocks entries) once and saves it and its sites; meta gets
 * protect.source: "/proc/kcore", or "none: WHY" when the text cannot be
 * read (the recording is still whole: only the sites are missing).  ks:
 * the running kernel's symbols if read already, else NULL.
 */
int sites_save(struct datafile *df, struct kv_list *meta, struct ksyms *ks);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vmlinux=PATH: the booted kernel's image, for kp_model.c's runs (see the
 * top of kp_model.h): its .text as linked and the instructions its
 * exception table fixes faults of.  A plain access of the kernel's own
 * text at no such site cannot fault, so it cannot end its block's run.
 */
#ifndef KP_VMLINUX_H
#define KP_VMLINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* at most this many patched sites are kept; the rest only counted */
#define KP_PATCHED_MAX (1U << 18)

/* An instruction whose bytes when translated were not the image's. */
struct kp_patched {
	uint64_t pc;
	uint8_t len;
	uint8_t b[15];
};

/* the string functions of the image the plugin knows by name, at most */
#define KP_STRFN_MAX 64 /* kp_shadow.h's KP_SHADOW_FN */

/*
 * A function of the image that zeroes or copies with a rep string
 * instruction (memset, clear_page_erms...; docs/model.md, "The buffers
 * string instructions fill"), a return thunk that rets for the kernel, or
 * a slab allocator, whose calls are followed so that the memset zeroing
 * the object it returns knows the call that passed the cache.
 */
struct kp_strfn {
	uint64_t start, end;
	bool thunk; /* a return thunk: its ret is the kernel's, no string */
	bool alloc; /* a slab allocator: its calls are followed, its strings not counted */
};

struct kp_vmlinux {
	uint64_t text, text_end; /* .text's addresses */
	uint8_t *text_bytes;	 /* its bytes */
	uint64_t *faults;	 /* __ex_table's instructions, sorted */
	size_t nfaults;
	GHashTable *patched;		   /* pc -> struct kp_patched, at most KP_PATCHED_MAX */
	uint64_t dropped;		   /* patched sites seen beyond those */
	struct kp_strfn str[KP_STRFN_MAX]; /* by start, apart */
	unsigned int nstr;
};

/* false, said on stderr, when path is no x86-64 Linux image with .text and __ex_table */
bool kp_vmlinux_load(struct kp_vmlinux *v, const char *path);
/* the index in v->str of the string function or thunk holding va, or -1 */
int kp_vmlinux_strfn(const struct kp_vmlinux *v, uint64_t va);
/*
 * the size bytes b of an instruction at va are the image's own, unpatched
 * (so not moved by KASLR either), and at no fault site
 */
bool kp_vmlinux_no_fault(const struct kp_vmlinux *v, uint64_t va, const uint8_t *b, uint32_t size);
/*
 * At translation: the size bytes b of an instruction at va in .text are
 * kept when they are not the image's (alternatives, static calls, jump
 * labels the kernel rewrote at boot); va is the link address (nokaslr).
 */
void kp_vmlinux_note(struct kp_vmlinux *v, uint64_t va, const uint8_t *b, uint32_t size);
/* The sites kept, by address: the array is the caller's, the sites v's. */
GPtrArray *kp_vmlinux_patched(const struct kp_vmlinux *v);

#endif

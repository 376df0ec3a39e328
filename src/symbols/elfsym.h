/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ELF files: their GNU build ids and their function symbols, for turning a
 * file offset of mapped code into "function+offset".
 */
#ifndef KP_ELFSYM_H
#define KP_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Room for a build id in hex: the kernel's are at most 20 bytes, a linker's may be longer. */
#define ELFSYM_BID_HEX (2 * 64 + 1)

struct elfsym;

typedef struct Elf Elf;
/* The GNU build id note of the open ELF file e as hex, "" when it has none. */
void elfsym_elf_build_id(Elf *e, char *hex, size_t hexlen);
/* The GNU build id of the ELF file at path into hex, "" when it has none; -errno unreadable. */
int elfsym_build_id(const char *path, char *hex, size_t hexlen);
/*
 * The function symbols of the ELF file at path: those of its debug file under
 * ROOT/usr/lib/debug/.build-id when installed (root NULL: /), else .symtab,
 * else .dynsym.  bid, unless NULL or "", is the build id the caller knows the
 * file by: a file rebuilt since is refused with -ESTALE rather than giving
 * wrong names.
 */
int elfsym_open(const char *path, const char *bid, const char *root, struct elfsym **out);
/*
 * elfsym_open() of the file's segments and build id alone, no symbols (for
 * turning offsets into addresses); its descriptor kept open in *fd, the
 * caller's to close, so that its DWARF is read without opening it again.
 */
int elfsym_open_segs(const char *path, const char *bid, int *fd, struct elfsym **out);
void elfsym_free(struct elfsym *f);
/* The build id of the file as read, "" when it has none. */
const char *elfsym_bid(const struct elfsym *f);
/* The link-time address of file offset off; false when no loaded segment holds it. */
bool elfsym_vaddr(const struct elfsym *f, __u64 off, __u64 *vaddr);
/* The name of the function containing link-time address vaddr, and *off into it; NULL: none. */
const char *elfsym_find(const struct elfsym *f, __u64 vaddr, __u64 *off);
/* The file offset of link-time address vaddr; false when no loaded segment holds it. */
bool elfsym_offset(const struct elfsym *f, __u64 vaddr, __u64 *off);
/* fn(name, link-time address, size) for every function symbol, by address; stops at non-zero. */
typedef int (*elfsym_fn)(const char *name, __u64 vaddr, __u64 size, void *ctx);
int elfsym_each(const struct elfsym *f, elfsym_fn fn, void *ctx);

#endif

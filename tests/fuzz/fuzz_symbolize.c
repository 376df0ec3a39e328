// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's DWARF, from anyone's vmlinux (--vmlinux, a debug package):
 * the input is an ELF file (seeds: small programs built with cc -g, DWARF 4
 * and 5, inlined functions), opened by symbols/debuginfo.c and asked, by
 * symbols/symbolize.c, about addresses of its symbols and around them.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "symbols/debuginfo.h"
#include "symbols/symbolize.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	return 0;
}

static size_t ask(struct symbolizer *s, __u64 addr)
{
	const struct sym_result *r;
	size_t n = 0;
	unsigned int i;

	if (symbolize(s, addr, &r))
		return 0;
	for (i = 0; i < r->n && i < SYM_MAX_FRAMES; i++)
		n += (r->frames[i].func ? strlen(r->frames[i].func) : 0) +
		     (r->frames[i].file ? strlen(r->frames[i].file) : 0);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"main", "_stext", "leaf", "middle", "_start"};
	struct debuginfo *di;
	struct symbolizer *s;
	__u64 addr;
	size_t i, n = 0;
	int d;

	if (debuginfo_open(&di, fuzz_file(data, size, ".elf")))
		return 0;
	if (!symbolizer_new(&s, di)) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (debuginfo_symbol(di, names[i], &addr))
				continue;
			for (d = 0; d < 64; d += 7)
				n += ask(s, addr + d);
			/* the same address again: the cached answer */
			n += ask(s, addr);
		}
		n += ask(s, 0) + ask(s, ~0ULL);
		symbolizer_free(s);
	}
	debuginfo_close(di);
	return n == (size_t)-1;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --func PATTERN: the input is up to 8 patterns, one a line, matched
 * by record/funcmatch.c over a small kallsyms-like table with compiler
 * clones, module symbols and near-duplicates; a pattern matching nothing
 * gets its suggestions, as record prints them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "record/funcmatch.h"
#include "symbols/ksyms.h"

static struct ksyms *ks;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const syms[][2] = {
		{"allocate_slab", ""},
		{"new_slab", ""},
		{"shuffle_freelist", ""},
		{"__task_pid_nr_ns", ""},
		{"__x64_sys_getppid", ""},
		{"do_sys_open.isra.0", ""},
		{"do_sys_open.part.0", ""},
		{"kmem_cache_alloc", ""},
		{"memcg_alloc.constprop.2", ""},
		{"only_clone.cold", ""},
		{"ext4_map_blocks", "ext4"},
		{"ext4_map_blocks.isra.3", "ext4"},
		{"_stext", ""},
		{"a", ""},
		{"a.llvm.123", ""},
		{"[[*", ""},
	};
	size_t i;

	fuzz_init();
	if (ksyms_new(&ks))
		abort();
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (ksyms_add(ks, 0xffffffff81000000ULL + 0x100 * i, syms[i][0], syms[i][1]))
			abort();
	ksyms_sort(ks);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), *pat[8], *save = NULL, *p, best[4][64];
	struct func_target *t = NULL;
	const char *bad = NULL;
	size_t nt = 0;
	int n = 0, err;

	for (p = strtok_r(text, "\n", &save); p && n < 8; p = strtok_r(NULL, "\n", &save))
		pat[n++] = p;
	if (n) {
		err = func_match(ks, pat, n, &t, &nt, &bad);
		if (err == -ENOENT && bad)
			func_closest(ks, bad, best, 4);
		if (!err)
			func_targets_free(t, nt);
	}
	free(text);
	return 0;
}

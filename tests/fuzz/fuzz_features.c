// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --features FILE: the input is the file (seeds: share/features.conf),
 * loaded by features/features.c, then matched against function names with and
 * without clone suffixes and listed as diff's roll-up lists it.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "features/features.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"kernel_init_pages",
		"slab_post_alloc_hook",
		"memset",
		"clear_page_erms",
		"__x64_sys_getppid",
		"allocate_slab.isra.0",
		"x.constprop.3.cold",
		"",
		"*",
	};
	struct features *f;
	char why[512];
	size_t i, n = 0;

	if (features_load(&f, fuzz_file(data, size, ".conf"), why, sizeof(why)))
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *m = features_match(f, names[i]);

		n += m ? strlen(m) : 0;
	}
	for (i = 0; i < features_count(f); i++)
		n += strlen(features_name(f, i)) + strlen(features_about(f, i) ?: "");
	features_free(f);
	return n == (size_t)-1;
}

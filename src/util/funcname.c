// SPDX-License-Identifier: GPL-2.0-only
/* The naming rules of kernel function symbols: which part of a name is the function. */
#include "util/funcname.h"

#include <string.h>

size_t funcname_clone_base_len(const char *sym)
{
	const char *dot = strchr(sym, '.');

	return dot ? dot - sym : 0;
}

size_t funcname_base_len(const char *sym)
{
	/* padding and CFI stubs share the function's name but are not it */
	if (!strncmp(sym, "__pfx_", 6) || !strncmp(sym, "__cfi_", 6))
		return 0;
	if (!strchr(sym, '.'))
		return strlen(sym);
	if (strstr(sym, ".cold"))
		return 0;
	return funcname_clone_base_len(sym);
}

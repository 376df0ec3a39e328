// SPDX-License-Identifier: GPL-2.0-only
/* Private scratch folders (scratch.h). */
#include "util/scratch.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

int scratch_make(char *dir, size_t len, const char *parent, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!parent)
		parent = tmp && *tmp ? tmp : "/tmp";
	n = snprintf(dir, len, "%s/kprotperf-%s.XXXXXX", parent, name);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* mkdtemp makes it with mode 0700 */
	return mkdtemp(dir) ? 0 : -errno;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	return remove(path) ? errno : 0;
}

int scratch_remove(const char *dir)
{
	int err = nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);

	return err > 0 ? -err : err ? -errno : 0;
}

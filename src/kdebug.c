// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "debuginfo.h"
#include "kdebug.h"
#include "symbolize.h"

struct kdebug {
	struct debuginfo *di;
	struct symbolizer *sym;
	__s64 slide; /* recorded addresses minus link-time ones */
	char path[PATH_MAX];
};

static void explain(int err, const char *path, const char *release, char *why, size_t len)
{
	switch (err) {
	case -ESTALE:
		snprintf(why, len,
			 "%.200s is the vmlinux of another kernel build: its build-id "
			 "differs from the recorded kernel's (%s); give the one of the "
			 "recorded kernel with --vmlinux",
			 path, release);
		break;
	case -ENODATA:
		snprintf(why, len,
			 "%.200s has no DWARF debug info (install linux-image-%s-dbg, or "
			 "give its vmlinux with --vmlinux)",
			 path, release);
		break;
	case -ENOEXEC:
		snprintf(why, len, "%.200s is not an ELF file", path);
		break;
	default:
		snprintf(why, len, "%.200s: %s", path, strerror(-err));
	}
}

static int slide_of(struct kdebug *k, struct df *df)
{
	const char *stext = df_meta(df, "kernel.stext");
	__u64 link;
	int err;

	/* recorded without kallsyms: only an unrandomized kernel would line up */
	if (!stext)
		return 0;
	err = debuginfo_symbol(k->di, "_stext", &link);
	if (err)
		return err;
	k->slide = (__s64)(strtoull(stext, NULL, 0) - link);
	return 0;
}

int kdebug_open(struct kdebug **out, struct df *df, const char *vmlinux, char *note, size_t len)
{
	const char *release = df_meta(df, "kernel.release") ?: "RELEASE";
	struct kdebug *k = calloc(1, sizeof(*k));
	int err;

	*out = NULL;
	if (!k)
		return -ENOMEM;
	err = debuginfo_find(release, df_meta(df, "kernel.build_id"), vmlinux, k->path,
			     sizeof(k->path));
	if (err == -ENOENT && !vmlinux) {
		snprintf(note, len,
			 "no debug info for kernel %s (build-id %s) here; install "
			 "linux-image-%s-dbg or give its vmlinux with --vmlinux",
			 release, df_meta(df, "kernel.build_id") ?: "unknown", release);
		free(k);
		return 0;
	}
	err = err ?: debuginfo_open(&k->di, k->path);
	err = err ?: slide_of(k, df);
	err = err ?: symbolizer_new(&k->sym, k->di);
	if (err) {
		explain(err, vmlinux ?: k->path, release, note, len);
		kdebug_close(k);
		return err;
	}
	*out = k;
	return 0;
}

int kdebug_symbolize(struct kdebug *k, __u64 addr, const struct sym_result **out)
{
	return symbolize(k->sym, addr - k->slide, out);
}

struct debuginfo *kdebug_debuginfo(struct kdebug *k)
{
	return k->di;
}

__u64 kdebug_runtime(const struct kdebug *k, __u64 link_addr)
{
	return link_addr + k->slide;
}

const char *kdebug_path(const struct kdebug *k)
{
	return k->path;
}

void kdebug_close(struct kdebug *k)
{
	if (!k)
		return;
	symbolizer_free(k->sym);
	debuginfo_close(k->di);
	free(k);
}

// SPDX-License-Identifier: GPL-2.0-only
/* The DWARF of a recording's kernel, placed where it ran (kernel_dwarf.h). */
#include "symbols/kernel_dwarf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/samples.h"
#include "symbols/debuginfo.h"
#include "symbols/symbolize.h"

struct kernel_dwarf {
	struct debuginfo *di;
	struct symbolizer *sym;
	__s64 slide; /* recorded addresses minus link-time ones */
	char path[PATH_MAX];
};

/* 1 (stopping the walk) once a recorded symbol the vmlinux also has gives the slide. */
static int slide_by(__u64 addr, const char *name, const char *module, void *ctx)
{
	struct kernel_dwarf *k = ctx;
	__u64 link;

	if (debuginfo_symbol(k->di, name, &link))
		return 0;
	k->slide = (__s64)(addr - link);
	return 1;
}

/*
 * The KASLR slide: the recorded _stext against the vmlinux's, else (files
 * recorded before kernel.stext was kept) any recorded kernel symbol the
 * vmlinux also has.
 */
static int slide_of(struct kernel_dwarf *k, struct datafile *df, char *note, size_t len)
{
	const char *stext = datafile_meta(df, "kernel.stext");
	__u64 link;
	int ret;

	if (stext && !debuginfo_symbol(k->di, "_stext", &link)) {
		k->slide = (__s64)(strtoull(stext, NULL, 0) - link);
		return 0;
	}
	ret = samples_kernel_anchors(df, slide_by, k);
	if (ret > 0)
		return 0;
	snprintf(note, len,
		 "cannot tell where the recorded kernel was loaded (KASLR): the recording "
		 "has no kernel.stext, and none of its kernel symbols is in %.200s",
		 k->path);
	return ret ?: -ENOENT;
}

int kernel_dwarf_open(struct kernel_dwarf **out, struct datafile *df, const char *vmlinux,
		      char *note, size_t len)
{
	/* NULL when unknown: no /boot/vmlinux-RELEASE is searched for then */
	const char *release = datafile_meta(df, "kernel.release");
	struct kernel_dwarf *k = calloc(1, sizeof(*k));
	int err;

	*out = NULL;
	if (!k)
		return -ENOMEM;
	/* found and read on one descriptor: the vmlinux is opened once */
	err = debuginfo_find_open(&k->di, NULL, release, datafile_meta(df, "kernel.build_id"),
				  vmlinux, k->path, sizeof(k->path), NULL);
	if (err == -ENOENT && !vmlinux) {
		snprintf(note, len,
			 "no debug info for kernel %s (build-id %s) here; install "
			 "linux-image-%s-dbg or give its vmlinux with --vmlinux",
			 release ?: "RELEASE", datafile_meta(df, "kernel.build_id") ?: "unknown",
			 release ?: "RELEASE");
		free(k);
		return 0;
	}
	err = err ?: symbolizer_new(&k->sym, k->di);
	if (err)
		debuginfo_explain(err, vmlinux ?: k->path, release, note, len);
	else
		err = slide_of(k, df, note, len);
	if (err) {
		kernel_dwarf_close(k);
		return err;
	}
	*out = k;
	return 0;
}

int kernel_dwarf_symbolize(struct kernel_dwarf *k, __u64 addr, const struct sym_result **out)
{
	return symbolize(k->sym, addr - k->slide, out);
}

struct debuginfo *kernel_dwarf_debuginfo(struct kernel_dwarf *k)
{
	return k->di;
}

__u64 kernel_dwarf_runtime(const struct kernel_dwarf *k, __u64 link_addr)
{
	return link_addr + k->slide;
}

const char *kernel_dwarf_path(const struct kernel_dwarf *k)
{
	return k->path;
}

void kernel_dwarf_close(struct kernel_dwarf *k)
{
	if (!k)
		return;
	symbolizer_free(k->sym);
	debuginfo_close(k->di);
	free(k);
}

// SPDX-License-Identifier: GPL-2.0-only
/* The running kernel's DWARF and KASLR slide (running_dwarf.h). */
#include "record/running_dwarf.h"

#include "symbols/debuginfo.h"
#include "symbols/ksyms.h"
#include "system/provenance.h"
#include "util/kv.h"

int running_dwarf_open(struct debuginfo **di, __s64 *slide, const char *vmlinux,
		       const struct ksyms *ks, char *path, size_t plen)
{
	const struct ksym *stext = ksyms_by_name(ks, "_stext");
	struct kv_list k = {};
	__u64 link_stext;
	int err;

	err = provenance_kernel(&k);
	err = err
		      ?: debuginfo_find(kv_get(&k, "kernel.release"), kv_get(&k, "kernel.build_id"),
					vmlinux, path, plen);
	kv_list_free(&k);
	err = err ?: debuginfo_open(di, path);
	if (err)
		return err;
	err = debuginfo_symbol(*di, "_stext", &link_stext);
	if (err) {
		debuginfo_close(*di);
		*di = NULL;
		return err;
	}
	/* without _stext in kallsyms, addresses are hidden and nothing could attach anyway */
	*slide = stext ? (__s64)(stext->addr - link_stext) : 0;
	return 0;
}

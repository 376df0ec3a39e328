// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inventory of a kernel's compiler-inserted protections (inventory.h):
 * its text read whole, once, then cut into functions at its symbols (a
 * function ends where the next symbol starts, as kallsyms has no sizes).
 */
#include "features/inventory.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ktext.h"
#include "symbols/debuginfo.h"
#include "symbols/ksyms.h"
#include "system/provenance.h"
#include "util/array.h"
#include "util/kv.h"
#include "util/safeio.h"

/* more kernel text than any kernel has: a symbol table this wide is not one */
#define MAX_TEXT (512ULL << 20)

static const char *target_name(void *arg, __u64 addr, unsigned int i)
{
	const struct inventory *inv = arg;
	long first = ksyms_index(inv->ks, addr);
	const struct ksym *k = first < 0 ? NULL : ksyms_at(inv->ks, first + i);

	return k && k->addr == addr ? k->name : NULL;
}

/* The ELF symbols of the vmlinux at path into *ks: text ones, and the canary's. */
static int file_symbols(const char *path, struct ksyms *ks)
{
	struct stat st;
	/* --vmlinux names anything: a FIFO must not block the open, a device be read */
	int fd = safeio_open_regular(path, &st, NULL, 0), err = -ENOEXEC;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return fd == -EINVAL ? -ENOEXEC : fd;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;
		GElf_Sym sym;
		size_t i;

		/* the header first: elf_getdata() reads the section, and a -dbg
		 * vmlinux has 600 MB of DWARF beside its symbols */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		err = 0;
		for (i = 0; !err && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(d, i, &sym))
				break;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(sym.st_info) > STT_FUNC &&
			     strcmp(name, "__stack_chk_guard")))
				continue;
			err = ksyms_add(ks, sym.st_value, name, "");
		}
	}
	elf_end(e);
	close(fd);
	return err;
}

static int load_symbols(struct inventory *inv, const char *vmlinux, struct ksyms *ks, char *why,
			size_t len)
{
	int err;

	/* the running kernel's, read once: /proc/kallsyms is most of a TCG guest's record */
	if (!vmlinux && ks) {
		inv->ks = ks;
		inv->ks_borrowed = true;
		return 0;
	}
	if (!vmlinux) {
		err = ksyms_load(&inv->ks, NULL);
		if (err)
			snprintf(why, len, "reading /proc/kallsyms: %s%s", strerror(-err),
				 err == -EPERM
					 ? ": its addresses are hidden from this process: run "
					   "as root, or with CAP_SYSLOG"
					 : "");
		return err;
	}
	err = ksyms_new(&inv->ks);
	err = err ?: file_symbols(vmlinux, inv->ks);
	if (err) {
		snprintf(why, len, "--vmlinux %s: %s", vmlinux,
			 err == -ENOEXEC ? "not an ELF file with a symbol table" : strerror(-err));
		return err;
	}
	ksyms_sort(inv->ks);
	return 0;
}

static bool zeros(const __u8 *p, size_t n)
{
	while (n && !*p) {
		p++;
		n--;
	}
	return !n;
}

static int read_text(struct inventory *inv, const char *vmlinux, char *why, size_t len)
{
	const struct ksym *s = ksyms_by_name(inv->ks, "_stext");
	const struct ksym *e = ksyms_by_name(inv->ks, "_etext");
	int err;

	if (!s || !e || e->addr <= s->addr || e->addr - s->addr > MAX_TEXT) {
		snprintf(why, len, "%s: no kernel text between _stext and _etext",
			 vmlinux ? vmlinux : "/proc/kallsyms");
		return -ENOEXEC;
	}
	inv->stext = s->addr;
	inv->text_len = e->addr - s->addr;
	inv->text = malloc(inv->text_len);
	if (!inv->text)
		return -ENOMEM;
	if (vmlinux)
		err = ktext_vmlinux(vmlinux, s->addr, s->addr, inv->text, inv->text_len);
	else
		err = ktext_kcore(inv->source, s->addr, inv->text, inv->text_len);
	if (err && vmlinux)
		snprintf(why, len, "--vmlinux %s: cannot read its text: %s", vmlinux,
			 strerror(-err));
	else if (err)
		snprintf(why, len,
			 "cannot read the running kernel's text from /proc/kcore: %s (a kernel "
			 "without CONFIG_PROC_KCORE, or locked down): give its vmlinux with "
			 "--vmlinux, inventoried as linked, before the boot's patching",
			 strerror(-err));
	if (!err && !vmlinux && zeros(inv->text, inv->text_len < 4096 ? inv->text_len : 4096)) {
		snprintf(why, len,
			 "/proc/kcore gives zeros for the kernel's text at _stext, not"
			 " its code (a locked-down kernel?)");
		err = -EIO;
	}
	return err;
}

/* The functions: each symbol in the text up to the next one, aliases once. */
static int cut_functions(struct inventory *inv)
{
	__u64 end = inv->stext + inv->text_len;
	const struct ksym *k, *next;
	size_t i, cap = 0;

	for (i = 0; (k = ksyms_at(inv->ks, i)); i++) {
		if (*k->module || k->addr < inv->stext || k->addr >= end)
			continue;
		next = ksyms_at(inv->ks, i + 1);
		while (next && next->addr == k->addr)
			next = ksyms_at(inv->ks, ++i + 1);
		if (array_reserve((void **)&inv->f, &cap, inv->n + 1, sizeof(*inv->f)))
			return -ENOMEM;
		inv->f[inv->n++] = (struct inventory_func){
			.name = k->name,
			.addr = k->addr,
			.size = (next && next->addr < end ? next->addr : end) - k->addr};
	}
	return 0;
}

void inventory_sites(struct inventory *inv, const struct inventory_func *f, sites_cb *cb, void *arg)
{
	struct sites_env env = {target_name, inv};
	struct sites_found found = {0};

	sites_scan(inv->sc, &env, f->addr, inv->text + (f->addr - inv->stext), f->size, cb, arg,
		   &found);
}

static void scan_all(struct inventory *inv)
{
	struct sites_env env = {target_name, inv};
	size_t i;
	int k;

	for (i = 0; i < inv->n; i++) {
		struct inventory_func *f = &inv->f[i];

		sites_scan(inv->sc, &env, f->addr, inv->text + (f->addr - inv->stext), f->size,
			   NULL, NULL, &f->found);
		for (k = 0; k < SITES_KINDS; k++) {
			inv->sites[k] += f->found.n[k];
			inv->funcs[k] += f->found.n[k] > 0;
		}
		inv->canary_checks += f->found.canary_checks;
		inv->zeroing_bytes += f->found.zeroing;
		inv->bad += f->found.bad;
		inv->text_bytes += f->found.code;
	}
}

int inventory_open(const char *vmlinux, struct ksyms *ks, struct inventory **out, char *why,
		   size_t len)
{
	struct inventory *inv = calloc(1, sizeof(*inv));
	int err;

	if (!inv)
		return -ENOMEM;
	inv->from_file = vmlinux;
	snprintf(inv->source, sizeof(inv->source), "%s", vmlinux ? vmlinux : "/proc/kcore");
	err = load_symbols(inv, vmlinux, ks, why, len);
	err = err ?: read_text(inv, vmlinux, why, len);
	err = err ?: cut_functions(inv);
	if (!err && sites_scanner_new(&inv->sc)) {
		snprintf(why, len, "cannot open capstone's x86-64 disassembler");
		err = -EINVAL;
	}
	if (err) {
		if (err == -ENOMEM)
			snprintf(why, len, "%s", strerror(ENOMEM));
		inventory_free(inv);
		return err;
	}
	*out = inv;
	return 0;
}

/*
 * The running kernel's own vmlinux (by build id, as report finds its DWARF)
 * in place of a text /proc/kcore does not give; why gets one line either way.
 */
static int fallback(int kcore_err, struct inventory **out, char *why, size_t len)
{
	struct kv_list k = {};
	char path[4096], kcore[1024];
	int err = provenance_kernel(&k);

	snprintf(kcore, sizeof(kcore), "%s", why);
	err = err
		      ?: debuginfo_find(kv_get(&k, "kernel.release"), kv_get(&k, "kernel.build_id"),
					NULL, path, sizeof(path));
	if (err) {
		snprintf(why, len,
			 "%s; no vmlinux of kernel %s found either (install its -dbg"
			 " package)",
			 kcore, kv_get(&k, "kernel.release") ?: "?");
		kv_list_free(&k);
		return err;
	}
	kv_list_free(&k);
	err = inventory_open(path, NULL, out, why, len);
	if (!err)
		snprintf((*out)->note, sizeof((*out)->note),
			 "/proc/kcore %s: the running kernel's vmlinux instead, as linked (before"
			 " the boot's patching)",
			 kcore_err == -EIO ? "gives zeros for the kernel's text"
					   : strerror(-kcore_err));
	return err;
}

int inventory_build(const char *vmlinux, struct inventory **out, char *why, size_t len)
{
	int err = inventory_open(vmlinux, NULL, out, why, len);

	if (err && err != -ENOMEM && !vmlinux)
		err = fallback(err, out, why, len);
	if (!err)
		scan_all(*out);
	return err;
}

static int cmp_func_addr(const void *key, const void *elt)
{
	__u64 addr = *(const __u64 *)key;
	const struct inventory_func *f = elt;

	return addr < f->addr ? -1 : addr >= f->addr + f->size ? 1 : 0;
}

const struct inventory_func *inventory_func_at(const struct inventory *inv, __u64 addr)
{
	return bsearch(&addr, inv->f, inv->n, sizeof(*inv->f), cmp_func_addr);
}

void inventory_free(struct inventory *inv)
{
	if (!inv)
		return;
	sites_scanner_free(inv->sc);
	if (!inv->ks_borrowed)
		ksyms_free(inv->ks);
	free(inv->text);
	free(inv->f);
	free(inv);
}

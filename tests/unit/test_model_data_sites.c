// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --model --data of the string helpers' accesses per call site
 * (docs/model.md, "The buffers string instructions fill"): a small program
 * linked as a vmlinux, built at test time, whose assembly helpers have no
 * DWARF (memset jumping to memset_erms's rep stosb, clear_page_erms,
 * memcpy_erms) and whose C callers pass them a struct pointer and a page's
 * address computed from a struct page.  The recording holds model_sites as
 * inject leaves them: memset_erms's stores split between kp_clear's call
 * (typed by its %rdi: struct item, through the wrapper), kmem_cache_alloc's
 * call for kp_new's call of it (the object of the cache kp_cache_init
 * created as "item" of sizeof(struct item): struct item; model_alloc_sites),
 * kmem_cache_alloc's call for no allocator call known (untyped: its %rdi
 * is a void *) and no known site,
 * clear_page_erms's all for kp_zero's call ((page data)), most of
 * memcpy_erms's for _start's call (its reads typed by %rsi, its writes by
 * %rdi, both global items), the rest with no site; without model_sites all
 * untyped for their reason as before.  Text and JSON compared whole with
 * goldens (tests/unit/golden/model-data-sites*).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/model.h"
#include "data/recording.h"
#include "symbols/elfsym.h"
#include "testutil.h"
#include "util/kv.h"

static const char src[] =
	"struct item { long hot, pad[8], cold; };\n"
	"struct page { unsigned long flags; void *lru[2]; };\n"
	"void *memset(void *s, int c, unsigned long n);\n"
	"void clear_page_erms(void *page);\n"
	"void *memcpy_erms(void *d, const void *s, unsigned long n);\n"
	"asm(\".text\\n.globl memset\\n.type memset,@function\\nmemset:\\n"
	"	jmp memset_erms\\n.size memset, .-memset\\n"
	".globl memset_erms\\n.type memset_erms,@function\\nmemset_erms:\\n"
	"	movq %rdi,%r9\\n	movb %sil,%al\\n	movq %rdx,%rcx\\n	rep stosb\\n"
	"	movq %r9,%rax\\n	ret\\n.size memset_erms, .-memset_erms\\n"
	".globl clear_page_erms\\n.type clear_page_erms,@function\\nclear_page_erms:\\n"
	"	movl $4096,%ecx\\n	xorl %eax,%eax\\n	rep stosb\\n	ret\\n"
	".size clear_page_erms, .-clear_page_erms\\n"
	".globl memcpy_erms\\n.type memcpy_erms,@function\\nmemcpy_erms:\\n"
	"	movq %rdi,%rax\\n	movq %rdx,%rcx\\n	rep movsb\\n	ret\\n"
	".size memcpy_erms, .-memcpy_erms\\n\");\n"
	"__attribute__((noinline)) void kp_clear(struct item *it)\n"
	"{\n"
	"	memset(it, 0, sizeof(*it));\n"
	"	it->hot = 1;\n"
	"}\n"
	"__attribute__((noinline)) void kp_zero(struct page *pg)\n"
	"{\n"
	"	clear_page_erms((void *)((unsigned long)pg * 64));\n"
	"	pg->flags = 0;\n"
	"}\n"
	"struct item items[2];\n"
	"struct page pages[2];\n"
	"struct kmem_cache;\n"
	"static struct kmem_cache *item_cachep;\n"
	"__attribute__((noipa)) struct kmem_cache *\n"
	"kmem_cache_create(const char *name, unsigned int size, unsigned int align,\n"
	"		  unsigned long flags, void (*ctor)(void *))\n"
	"{\n"
	"	return name && size ? (struct kmem_cache *)&pages[0] : 0;\n"
	"}\n"
	"__attribute__((noipa)) void *kmem_cache_alloc(struct kmem_cache *s, unsigned int flags)\n"
	"{\n"
	"	void *o = (char *)s + 64;\n"
	"	memset(o, 0, sizeof(struct item));\n"
	"	return o;\n"
	"}\n"
	"__attribute__((noinline)) void kp_cache_init(void)\n"
	"{\n"
	"	item_cachep = kmem_cache_create(\"item\", sizeof(struct item), 0, 0, 0);\n"
	"}\n"
	"__attribute__((noinline)) struct item *kp_new(void)\n"
	"{\n"
	"	return kmem_cache_alloc(item_cachep, 0xcc0);\n"
	"}\n"
	"void _start(void)\n"
	"{\n"
	"	kp_cache_init();\n"
	"	kp_new();\n"
	"	kp_clear(&items[1]);\n"
	"	kp_zero(&pages[1]);\n"
	"	memcpy_erms(&items[0], &items[1], sizeof(items[0]));\n"
	"	for (;;)\n"
	"		;\n"
	"}\n";

#define SLIDE 0x2a000000ULL /* the kernel's KASLR slide */

/* what objdump shows of the program: functions, the rep PCs, the call sites */
static struct {
	char dir[64], path[PATH_MAX], data[PATH_MAX], bid[ELFSYM_BID_HEX];
	struct {
		char name[32];
		__u64 addr;
	} fn[12];
	size_t nfn;
	__u64 rep[3]; /* memset_erms's, clear_page_erms's, memcpy_erms's */
	/*
	 * kp_clear's call of memset, kp_zero's of clear_page_erms, _start's of memcpy_erms,
	 * kmem_cache_alloc's of memset, kp_new's of kmem_cache_alloc
	 */
	__u64 call[5];
	const char *in; /* the function objdump is in */
} p;

static void objdump_line(const char *line, void *arg)
{
	unsigned long long a;
	char name[32];

	if (sscanf(line, "%llx <%31[^>]>:", &a, name) == 2 && p.nfn < 12) {
		snprintf(p.fn[p.nfn].name, sizeof(p.fn[0].name), "%s", name);
		p.fn[p.nfn].addr = a;
		p.in = p.fn[p.nfn++].name;
		return;
	}
	if (!p.in || sscanf(line, " %llx:", &a) != 1)
		return;
	if (strstr(line, "rep stos") && !strcmp(p.in, "memset_erms"))
		p.rep[0] = a;
	else if (strstr(line, "rep stos") && !strcmp(p.in, "clear_page_erms"))
		p.rep[1] = a;
	else if (strstr(line, "rep movs") && !strcmp(p.in, "memcpy_erms"))
		p.rep[2] = a;
	else if (strstr(line, "call") && strstr(line, "<memset>") && !strcmp(p.in, "kp_clear"))
		p.call[0] = a;
	else if (strstr(line, "call") && strstr(line, "<clear_page_erms>") &&
		 !strcmp(p.in, "kp_zero"))
		p.call[1] = a;
	else if (strstr(line, "call") && strstr(line, "<memcpy_erms>") && !strcmp(p.in, "_start"))
		p.call[2] = a;
	else if (strstr(line, "call") && strstr(line, "<memset>") &&
		 !strcmp(p.in, "kmem_cache_alloc"))
		p.call[3] = a;
	else if (strstr(line, "<kmem_cache_alloc>") && !strcmp(p.in, "kp_new"))
		p.call[4] = a; /* a call, or the tail call's jmp */
}

static int build(void)
{
	char c[PATH_MAX];

	snprintf(p.dir, sizeof(p.dir), "/tmp/kp-dsites-XXXXXX");
	if (!mkdtemp(p.dir))
		return -1;
	snprintf(c, sizeof(c), "%s/k.c", p.dir);
	snprintf(p.path, sizeof(p.path), "%s/vmlinux", p.dir);
	snprintf(p.data, sizeof(p.data), "%s/k.data", p.dir);
	if (tu_write_file(c, src) ||
	    tu_run("cd '%s' && cc -O2 -g -fno-pie -no-pie -static -nostdlib -fno-builtin"
		   " -fno-stack-protector -fcf-protection=none -fdebug-prefix-map='%s'=."
		   " -mcmodel=kernel -Wl,-Ttext=0xffffffff81000000 -Wl,--build-id k.c -o vmlinux"
		   " 2>/dev/null",
		   p.dir, p.dir) ||
	    tu_each_line(objdump_line, NULL, "objdump -d --no-show-raw-insn '%s'", p.path) ||
	    elfsym_build_id(p.path, p.bid, sizeof(p.bid)) || !*p.bid)
		return -1;
	return p.rep[0] && p.rep[1] && p.rep[2] && p.call[0] && p.call[1] && p.call[2] &&
			       p.call[3] && p.call[4]
		       ? 0
		       : -1;
}

static void put_meta(struct datafile *df)
{
	struct kv_list meta = {};

	assert_int_equal(kv_add(&meta, "kernel.build_id", "%s", p.bid), 0);
	assert_int_equal(kv_add(&meta, "kernel.release", "6.1.0-kp-sites-test"), 0);
	assert_int_equal(kv_add(&meta, "model.windows", "1"), 0);
	assert_int_equal(kv_add(&meta, "model.state", "counted"), 0);
	assert_int_equal(kv_add(&meta, "model.mode", "cache"), 0);
	assert_int_equal(kv_add(&meta, "model.window", "complete"), 0);
	assert_int_equal(kv_add(&meta, "model.qemu", "1:7.2"), 0);
	assert_int_equal(recording_put_meta(df, &meta), 0);
	kv_list_free(&meta);
}

/* a PC run n times that read r and wrote w times, missing the D1 on a tenth of them */
static void put_pc(struct datafile *df, __u64 pc, __u64 n, __u64 r, __u64 w)
{
	__u64 v[MODEL_STATS] = {[MODEL_D1_READS] = r,
				[MODEL_D1_READ_MISSES] = r / 10,
				[MODEL_D1_WRITES] = w,
				[MODEL_D1_WRITE_MISSES] = w / 10};

	assert_int_equal(model_put_pc(df, pc + SLIDE, n), 0);
	assert_int_equal(model_put_misses(df, pc + SLIDE, 0, v), 0);
}

static void recording(bool sites)
{
	struct model_geom g = {{{32768, 8, 64}, {32768, 8, 64}, {8388608, 16, 64}}};
	struct datafile *df;
	char why[256];
	size_t i;

	unlink(p.data);
	assert_int_equal(datafile_create(&df, p.data, (uid_t)-1, why, sizeof(why)), 0);
	put_meta(df);
	assert_int_equal(model_put_geom(df, 0, &g), 0);
	for (i = 0; i < p.nfn; i++)
		assert_int_equal(recording_put_ksym(df, p.fn[i].addr + SLIDE, p.fn[i].name, ""), 0);
	put_pc(df, p.call[0], 1, 0, 1);
	put_pc(df, p.call[1], 1, 0, 1);
	put_pc(df, p.call[2], 1, 0, 1);
	put_pc(df, p.rep[0], 1300, 0, 1300);
	put_pc(df, p.rep[1], 4096, 0, 4096);
	put_pc(df, p.rep[2], 100, 100, 100);
	if (sites) {
		assert_int_equal(model_put_site(df, p.rep[0] + SLIDE, p.call[0] + SLIDE, 0, 0, 600),
				 0);
		assert_int_equal(model_put_site(df, p.rep[0] + SLIDE, 0, 0, 0, 400), 0);
		/* the allocator's memset: for kp_new's call, and for a call not followed */
		assert_int_equal(model_put_site(df, p.rep[0] + SLIDE, p.call[3] + SLIDE,
						p.call[4] + SLIDE, 0, 200),
				 0);
		assert_int_equal(model_put_site(df, p.rep[0] + SLIDE, p.call[3] + SLIDE, 0, 0, 100),
				 0);
		assert_int_equal(
			model_put_site(df, p.rep[1] + SLIDE, p.call[1] + SLIDE, 0, 0, 4096), 0);
		assert_int_equal(model_put_site(df, p.rep[2] + SLIDE, p.call[2] + SLIDE, 0, 80, 80),
				 0);
	}
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
}

static void golden(const char *name, bool json)
{
	char *argv[] = {"report", "--model", "--data", "--vmlinux", p.path, p.data, NULL, NULL};
	int ret;
	char *out;

	if (json) {
		argv[6] = p.data;
		argv[5] = "--json";
	}
	out = tu_run_fd(cmd_report, argv, 1, &ret);
	assert_int_equal(ret, 0);
	tu_golden_mask(name, out, (const char *const[]){p.dir, "DIR", NULL});
	free(out);
}

/* memset through its wrapper typed by kp_clear's pointer, clear_page_erms's as (page data) */
static void test_sites_typed(void **state)
{
	recording(true);
	golden("model-data-sites", false);
	golden("model-data-sites-json", true);
}

/* without model_sites (the plugin without vmlinux=, a recording before schema 16): untyped */
static void test_sites_none(void **state)
{
	recording(false);
	golden("model-data-sites-none", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_typed),
		cmocka_unit_test(test_sites_none),
	};
	int rc;

	if (build()) {
		fprintf(stderr, "cannot build the test's vmlinux in %s\n", p.dir);
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_run("rm -rf '%s'", p.dir);
	return rc;
}

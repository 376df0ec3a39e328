// SPDX-License-Identifier: GPL-2.0-only
/*
 * The raw table's call-site section (model/table.c, docs/model.md "The
 * table"): the string helpers' accesses per kernel call site, read as
 * untrusted input, every line of it bounded and a bad one refused naming it,
 * and merged by inject into model_sites (schema 17); version 2's lines of
 * a slab allocator's calls into model_alloc_sites too (schema 18).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/datafile.h"
#include "data/model.h"
#include "data/recording.h"
#include "model/model_inject.h"
#include "model/table.h"
#include "testutil.h"

#define TOP                                                                                 \
	"# kp_model 2\n# kernel_build_id abcd\n# mode cache\n# qemu 7\n# window complete\n" \
	"# windows opened 1 closed 1 restarts 0 stray_stops 0\n"                            \
	"# geom 0 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64\n"                           \
	"# tlb 0 itlb=128:8 dtlb=64:4\n# guest pti 0 pcid 1\n"
#define COLS                                                                          \
	"# columns pc insns ev flushes i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0" \
	" d1_write_miss.0 ll_miss.0 itlb_miss.0 dtlb_miss.0\n"
/* clear_page_erms's rep stos, called from two sites and once from none known */
#define SITES                                                       \
	"# callsites 1 lines 3 dropped 5\n"                         \
	"# callsite 0xffffffff81a00010 0x0 0 7\n"                   \
	"# callsite 0xffffffff81a00010 0xffffffff81200040 0 4096\n" \
	"# callsite 0xffffffff81a00010 0xffffffff81300abc 0 8192\n"
/* version 2: memset_erms's for one call, a share of it for two calls of a slab allocator */
#define SITES2                                                                        \
	"# callsites 2 lines 4 dropped 0\n"                                           \
	"# callsite 0xffffffff81a00010 0x0 0x0 0 7\n"                                 \
	"# callsite 0xffffffff81a00010 0xffffffff81200040 0x0 0 4096\n"               \
	"# callsite 0xffffffff81a00010 0xffffffff81200040 0xffffffff81500010 0 100\n" \
	"# callsite 0xffffffff81a00010 0xffffffff81200040 0xffffffff81500020 3 50\n"
#define ROW "0xffffffff81a00010 3 - 0 0 0 0 12295 200 10 0 3\n"

static char dir[64];

static const char *file(const char *text)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/t", dir);
	assert_int_equal(tu_write_file(path, text), 0);
	return path;
}

/* each site line as "PC SITE ALLOC R W;" */
static int site_out(const struct model_table_site *s, void *ctx)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 512 - n, "%llx %llx %llx %llu %llu;", (unsigned long long)s->pc,
		 (unsigned long long)s->site, (unsigned long long)s->alloc,
		 (unsigned long long)s->reads, (unsigned long long)s->writes);
	return 0;
}

static int no_row(const struct model_table_row *r, void *ctx)
{
	return 0;
}

/* rows ignored, each call site written to out */
static const struct model_table_fns fns = {.row = no_row, .site = site_out};

static void test_sites_read(void **state)
{
	struct model_table t;
	char why[256], out[512] = "";

	assert_int_equal(
		model_table_read_fns(file(TOP SITES COLS ROW), &t, &fns, out, why, sizeof(why)), 0);
	assert_string_equal(out, "ffffffff81a00010 0 0 0 7;"
				 "ffffffff81a00010 ffffffff81200040 0 0 4096;"
				 "ffffffff81a00010 ffffffff81300abc 0 0 8192;");
	assert_true(t.has_sites);
	assert_int_equal(t.nsites, 3);
	assert_int_equal(t.sites_dropped, 5);
	/* a reader that takes no sites checks them all the same */
	assert_int_equal(
		model_table_read(file(TOP SITES COLS ROW), &t, no_row, NULL, why, sizeof(why)), 0);
	/* none: a table of a plugin without vmlinux= */
	assert_int_equal(model_table_read(file(TOP COLS ROW), &t, no_row, NULL, why, sizeof(why)),
			 0);
	assert_false(t.has_sites);
	/* version 2, with the allocators' calls */
	out[0] = '\0';
	assert_int_equal(
		model_table_read_fns(file(TOP SITES2 COLS ROW), &t, &fns, out, why, sizeof(why)),
		0);
	assert_string_equal(out, "ffffffff81a00010 0 0 0 7;"
				 "ffffffff81a00010 ffffffff81200040 0 0 4096;"
				 "ffffffff81a00010 ffffffff81200040 ffffffff81500010 0 100;"
				 "ffffffff81a00010 ffffffff81200040 ffffffff81500020 3 50;");
	assert_int_equal(t.sites_version, 2);
}

struct bad {
	const char *text, *why;
};

static void test_sites_refused(void **state)
{
	static const struct bad bad[] = {
		{TOP "# callsites 3 lines 0 dropped 0\n",
		 "line 10: call-site section version 3, this reader knows 1 and 2"},
		/* version 2: an allocator's call without the call it made, a user one, out of
		 * order, and a version 1 line in it */
		{TOP "# callsites 2 lines 1 dropped 0\n"
		     "# callsite 0xffffffff81a00010 0x0 0xffffffff81500010 1 0\n",
		 "line 11 is not what the model writes there"},
		{TOP "# callsites 2 lines 1 dropped 0\n"
		     "# callsite 0xffffffff81a00010 0xffffffff81200040 0x401000 1 0\n",
		 "line 11 is not what the model writes there"},
		{TOP "# callsites 2 lines 2 dropped 0\n"
		     "# callsite 0xffffffff81a00010 0xffffffff81200040 0xffffffff81500020 1 0\n"
		     "# callsite 0xffffffff81a00010 0xffffffff81200040 0xffffffff81500010 1 0\n",
		 "line 12 is not what the model writes there"},
		{TOP "# callsites 2 lines 1 dropped 0\n# callsite 0xffffffff81a00010 0x0 1 0\n",
		 "line 11 is not what the model writes there"},
		{TOP "# callsite 0xffffffff81a00010 0x0 0 7\n",
		 "line 10 is not what the model writes there"},
		{TOP "# callsites 1 lines 65537 dropped 0\n",
		 "line 10 is not what the model writes there"},
		{TOP "# callsites 1 lines 1 dropped 0\n# callsites 1 lines 1 dropped 0\n",
		 "line 11 is not what the model writes there"},
		/* a user PC, a user site, a count beyond 2^40, no access at all */
		{TOP "# callsites 1 lines 1 dropped 0\n# callsite 0x401000 0x0 1 0\n",
		 "line 11 is not what the model writes there"},
		{TOP
		 "# callsites 1 lines 1 dropped 0\n# callsite 0xffffffff81a00010 0x401000 1 0\n",
		 "line 11 is not what the model writes there"},
		{TOP "# callsites 1 lines 1 dropped 0\n"
		     "# callsite 0xffffffff81a00010 0x0 1099511627777 0\n",
		 "line 11 is not what the model writes there"},
		{TOP "# callsites 1 lines 1 dropped 0\n# callsite 0xffffffff81a00010 0x0 0 0\n",
		 "line 11 is not what the model writes there"},
		/* a second 0x, out of order, more lines than said, fewer */
		{TOP "# callsites 1 lines 1 dropped 0\n# callsite 0x0xffffffff81a00010 0x0 1 0\n",
		 "line 11 is not what the model writes there"},
		{TOP "# callsites 1 lines 2 dropped 0\n# callsite 0xffffffff81a00010 0x0 1 0\n"
		     "# callsite 0xffffffff81a00010 0x0 1 0\n",
		 "line 12 is not what the model writes there"},
		{TOP "# callsites 1 lines 1 dropped 0\n# callsite 0xffffffff81a00010 0x0 1 0\n"
		     "# callsite 0xffffffff81a00020 0x0 1 0\n",
		 "line 12 is not what the model writes there"},
		{TOP "# callsites 1 lines 2 dropped 0\n# callsite 0xffffffff81a00010 0x0 1 0\n" COLS
			 ROW,
		 "the header lists 1 call sites, its '# callsites' line 2"},
		/* after the rows, and in a table of mode insns */
		{TOP COLS ROW "# callsites 1 lines 0 dropped 0\n",
		 "line 12 is not what the model writes there"},
		{"# kp_model 2\n# mode insns\n# qemu 7\n# window complete\n"
		 "# callsites 1 lines 0 dropped 0\n# columns pc insns ev flushes\n0x1 1 - 0\n",
		 "mode insns with call sites: they split the caches' accesses"},
	};
	struct model_table t;
	char why[256], out[512] = "";
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
			model_table_read_fns(file(bad[i].text), &t, &fns, out, why, sizeof(why)),
			-EBADMSG);
		assert_string_equal(why, bad[i].why);
	}
}

/* a recording as record --model leaves it, awaiting the counts */
static const char *recording(void)
{
	static char path[128];
	struct datafile *df;
	char why[256];

	snprintf(path, sizeof(path), "%s/k.data", dir);
	unlink(path);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), 0);
	tu_model_awaiting(df);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81a00000ULL, "clear_page_erms", ""), 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	return path;
}

static int site_row(__u64 pc, __u64 site, __u64 reads, __u64 writes, void *ctx)
{
	struct model_table_site x = {pc, site, 0, reads, writes};

	return site_out(&x, ctx);
}

static int alloc_row(__u64 pc, __u64 site, __u64 alloc, __u64 reads, __u64 writes, void *ctx)
{
	struct model_table_site x = {pc, site, alloc, reads, writes};

	return site_out(&x, ctx);
}

/* inject keeps the sites and the dropped count; a bad section leaves the file as it was */
static void test_sites_inject(void **state)
{
	const char *data = recording();
	char why[256], out[512] = "", table[160];
	struct datafile *df;

	snprintf(table, sizeof(table), "%s/m.txt", dir);
	assert_int_equal(tu_write_file(table, TOP "# callsites 1 lines 1 dropped 0\n" COLS ROW), 0);
	assert_int_equal(model_inject(table, data, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "the header lists 0 call sites, its '# callsites' line 1");
	assert_int_equal(tu_write_file(table, TOP SITES COLS ROW), 0);
	assert_int_equal(model_inject(table, data, why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, data, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "model.callsites_dropped"), "5");
	assert_int_equal(model_sites_each(df, site_row, out), 0);
	datafile_close(df);
	/* SQL orders kernel sites (negative) before 0 */
	assert_string_equal(out, "ffffffff81a00010 ffffffff81200040 0 0 4096;"
				 "ffffffff81a00010 ffffffff81300abc 0 0 8192;"
				 "ffffffff81a00010 0 0 0 7;");
}

/* version 2: model_sites holds each call's sum, model_alloc_sites the allocators' shares */
static void test_sites_inject_allocs(void **state)
{
	const char *data = recording();
	char why[256], out[512] = "", table[160];
	struct datafile *df;

	snprintf(table, sizeof(table), "%s/m.txt", dir);
	assert_int_equal(tu_write_file(table, TOP SITES2 COLS ROW), 0);
	assert_int_equal(model_inject(table, data, why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, data, why, sizeof(why)), 0);
	assert_int_equal(model_sites_each(df, site_row, out), 0);
	assert_string_equal(out, "ffffffff81a00010 ffffffff81200040 0 3 4246;"
				 "ffffffff81a00010 0 0 0 7;");
	out[0] = '\0';
	assert_int_equal(model_alloc_sites_each(df, alloc_row, out), 0);
	datafile_close(df);
	assert_string_equal(out, "ffffffff81a00010 ffffffff81200040 ffffffff81500010 0 100;"
				 "ffffffff81a00010 ffffffff81200040 ffffffff81500020 3 50;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_read),
		cmocka_unit_test(test_sites_refused),
		cmocka_unit_test(test_sites_inject),
		cmocka_unit_test(test_sites_inject_allocs),
	};
	int rc;

	strcpy(dir, "/tmp/kp-sites-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_run("rm -rf %s", dir);
	return rc;
}

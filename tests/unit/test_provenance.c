/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "system/provenance.h"
#include "testutil.h"

static const unsigned char build_id[20] = {
	0x48, 0xdc, 0x54, 0x0c, 0x8b, 0x76, 0x39, 0x38, 0x04, 0xca,
	0x80, 0x88, 0xdb, 0xfa, 0x7d, 0x42, 0x91, 0x1a, 0x94, 0x44,
};
#define BUILD_ID_HEX "48dc540c8b76393804ca8088dbfa7d42911a9444"

/* Lines of a kernel config: relevant ones set, unset and with values, irrelevant ones, noise. */
static const char config_text[] = "#\n"
				  "# Automatically generated file; DO NOT EDIT.\n"
				  "#\n"
				  "CONFIG_CC_HAS_SLS=y\n"
				  "CONFIG_SLAB_FREELIST_RANDOM=y\n"
				  "CONFIG_SLAB_FREELIST_HARDENED=y\n"
				  "# CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set\n"
				  "CONFIG_RANDOMIZE_MEMORY_PHYSICAL_PADDING=0xa\n"
				  "CONFIG_MITIGATION_RETPOLINE=y\n"
				  "# CONFIG_KASAN is not set\n"
				  "CONFIG_HAVE_ARCH_KASAN=y\n"
				  "CONFIG_KASAN_GENERIC=y\n"
				  "CONFIG_NET=y\n"
				  "# CONFIG_SECURITY_SELINUX is not set\n"
				  "CONFIG_MODULE_SIG=y\n"
				  "CONFIG_ARCH_HAS_STRICT_KERNEL_RWX=y\n"
				  "CONFIG_STRICT_KERNEL_RWX=y\n"
				  "CONFIG_KFENCE_SAMPLE_INTERVAL=100\n"
				  "CONFIG_STACKPROTECTOR_STRONG=m\n"
				  "# CONFIG_SCHED_CORE is not set, really\n"
				  "CONFIG_CFI_CLANG\n"
				  "# CONFIG_UBSAN_BOUNDS is not set\n";

static const struct kv expected_config[] = {
	{"CONFIG_SLAB_FREELIST_RANDOM", "y"},
	{"CONFIG_SLAB_FREELIST_HARDENED", "y"},
	{"CONFIG_INIT_ON_ALLOC_DEFAULT_ON", "n"},
	{"CONFIG_RANDOMIZE_MEMORY_PHYSICAL_PADDING", "0xa"},
	{"CONFIG_MITIGATION_RETPOLINE", "y"},
	{"CONFIG_KASAN", "n"},
	{"CONFIG_STRICT_KERNEL_RWX", "y"},
	{"CONFIG_KFENCE_SAMPLE_INTERVAL", "100"},
	{"CONFIG_STACKPROTECTOR_STRONG", "m"},
	{"CONFIG_UBSAN_BOUNDS", "n"},
};

struct tmpdir {
	char path[64];
};

static int setup_tmpdir(void **state)
{
	struct tmpdir *t = malloc(sizeof(*t));

	if (!t)
		return -1;
	strcpy(t->path, "/tmp/kp-test-prov-XXXXXX");
	if (!mkdtemp(t->path)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int teardown_tmpdir(void **state)
{
	struct tmpdir *t = *state;
	int ret = tu_run("rm -rf '%s'", t->path);

	free(t);
	return ret ? -1 : 0;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Appends one ELF note with its name and descriptor each padded to 4 bytes. */
static size_t put_note(unsigned char *buf, size_t off, const char *name, uint32_t type,
		       const void *desc, uint32_t descsz)
{
	uint32_t hdr[3] = {strlen(name) + 1, descsz, type};

	memcpy(buf + off, hdr, sizeof(hdr));
	off += sizeof(hdr);
	memset(buf + off, 0, (hdr[0] + 3) & ~3u);
	memcpy(buf + off, name, hdr[0]);
	off += (hdr[0] + 3) & ~3u;
	memset(buf + off, 0, (descsz + 3) & ~3u);
	memcpy(buf + off, desc, descsz);
	return off + ((descsz + 3) & ~3u);
}

static void test_build_id_first_note(void **state)
{
	unsigned char buf[128];
	char hex[64];
	size_t len;

	len = put_note(buf, 0, "GNU", 3, build_id, sizeof(build_id));
	len = put_note(buf, len, "Linux", 0x101, "\x01\x00\x00\x00", 4);
	assert_int_equal(provenance_parse_build_id(buf, len, hex, sizeof(hex)), 0);
	assert_string_equal(hex, BUILD_ID_HEX);
}

static void test_build_id_after_other_notes(void **state)
{
	unsigned char buf[160];
	char hex[41];
	size_t len;

	/* a Xen note with a 5-byte name and a GNU note of another type come first */
	len = put_note(buf, 0, "Xen", 0x12, "\x00\xfe\x78\x03\x00\x00\x00\x00", 8);
	len = put_note(buf, len, "Linux", 3, "abc", 3);
	len = put_note(buf, len, "GNU", 1, "\x00\x00\x00\x00", 4);
	len = put_note(buf, len, "GNU", 3, build_id, sizeof(build_id));
	assert_int_equal(provenance_parse_build_id(buf, len, hex, sizeof(hex)), 0);
	assert_string_equal(hex, BUILD_ID_HEX);
}

static void test_build_id_absent(void **state)
{
	unsigned char buf[64];
	char hex[64];
	size_t len;

	len = put_note(buf, 0, "Linux", 0x101, "\x01\x00\x00\x00", 4);
	assert_int_equal(provenance_parse_build_id(buf, len, hex, sizeof(hex)), -ENOENT);
	assert_int_equal(provenance_parse_build_id(buf, 0, hex, sizeof(hex)), -ENOENT);
}

static void test_build_id_truncated(void **state)
{
	unsigned char buf[64];
	char hex[64];
	size_t len, cut;

	len = put_note(buf, 0, "GNU", 3, build_id, sizeof(build_id));
	for (cut = 1; cut < len; cut++)
		assert_int_equal(provenance_parse_build_id(buf, cut, hex, sizeof(hex)), -EINVAL);
}

static void test_build_id_huge_sizes(void **state)
{
	uint32_t hdr[3] = {0xfffffffd, 0xffffffff, 3};
	unsigned char buf[32] = {0};
	char hex[64];

	memcpy(buf, hdr, sizeof(hdr));
	assert_int_equal(provenance_parse_build_id(buf, sizeof(buf), hex, sizeof(hex)), -EINVAL);
}

static void test_build_id_hex_too_small(void **state)
{
	unsigned char buf[64];
	char hex[41];
	size_t len;

	len = put_note(buf, 0, "GNU", 3, build_id, sizeof(build_id));
	assert_int_equal(provenance_parse_build_id(buf, len, hex, 40), -ENOSPC);
	assert_int_equal(provenance_parse_build_id(buf, len, hex, 41), 0);
	assert_string_equal(hex, BUILD_ID_HEX);
}

static void assert_config(const struct kv_list *config)
{
	size_t i;

	assert_int_equal(config->n, sizeof(expected_config) / sizeof(expected_config[0]));
	for (i = 0; i < config->n; i++) {
		assert_string_equal(config->v[i].key, expected_config[i].key);
		assert_string_equal(config->v[i].value, expected_config[i].value);
	}
	assert_null(kv_get(config, "CONFIG_CC_HAS_SLS"));
	assert_null(kv_get(config, "CONFIG_HAVE_ARCH_KASAN"));
	assert_null(kv_get(config, "CONFIG_KASAN_GENERIC"));
	assert_null(kv_get(config, "CONFIG_NET"));
	assert_null(kv_get(config, "CONFIG_SECURITY_SELINUX"));
	assert_null(kv_get(config, "CONFIG_MODULE_SIG"));
	assert_null(kv_get(config, "CONFIG_SCHED_CORE"));
	assert_null(kv_get(config, "CONFIG_CFI_CLANG"));
}

static void test_config_gzip(void **state)
{
	struct tmpdir *t = *state;
	struct kv_list config = {0};
	char path[128];
	gzFile gz;

	snprintf(path, sizeof(path), "%s/config.gz", t->path);
	gz = gzopen(path, "wb");
	assert_non_null(gz);
	assert_int_equal(gzputs(gz, config_text), (int)strlen(config_text));
	assert_int_equal(gzclose(gz), Z_OK);

	assert_int_equal(provenance_config(&config, path), 0);
	assert_config(&config);
	kv_list_free(&config);
}

static void test_config_plain(void **state)
{
	struct tmpdir *t = *state;
	struct kv_list config = {0};
	char path[128];

	write_file(t->path, "config-6.18.0", config_text);
	snprintf(path, sizeof(path), "%s/config-6.18.0", t->path);
	assert_int_equal(provenance_config(&config, path), 0);
	assert_config(&config);
	kv_list_free(&config);
}

/* A line longer than the read buffer is dropped whole: its tail must not pass for an option. */
static void test_config_long_line(void **state)
{
	struct tmpdir *t = *state;
	struct kv_list config = {0};
	char path[128], text[9100];

	/* 4095 and 8190 are where a 4096-byte gzgets buffer cuts the line */
	memset(text, 'x', 9000);
	memcpy(text, "CONFIG_CMDLINE=\"", 16);
	memcpy(text + 4095, "CONFIG_KFENCE=y ", 16);
	memcpy(text + 8190, "CONFIG_KFENCE=y ", 16);
	strcpy(text + 9000, "\"\nCONFIG_VMAP_STACK=y\n");
	write_file(t->path, "config-long", text);

	snprintf(path, sizeof(path), "%s/config-long", t->path);
	assert_int_equal(provenance_config(&config, path), 0);
	assert_int_equal(config.n, 1);
	assert_string_equal(kv_get(&config, "CONFIG_VMAP_STACK"), "y");
	kv_list_free(&config);
}

static void test_config_missing(void **state)
{
	struct tmpdir *t = *state;
	struct kv_list config = {0};
	char path[128];

	snprintf(path, sizeof(path), "%s/no-such-config", t->path);
	assert_int_equal(provenance_config(&config, path), -ENOENT);
	assert_int_equal(config.n, 0);
}

static void test_config_relevant(void **state)
{
	assert_true(provenance_config_relevant("CONFIG_SLAB_FREELIST_RANDOM"));
	assert_true(provenance_config_relevant("CONFIG_HARDENED_USERCOPY"));
	assert_true(provenance_config_relevant("CONFIG_HARDENED_USERCOPY_DEFAULT_ON"));
	assert_true(provenance_config_relevant("CONFIG_CPU_MITIGATIONS"));
	assert_true(provenance_config_relevant("CONFIG_PAGE_TABLE_ISOLATION"));
	assert_true(provenance_config_relevant("CONFIG_GCC_PLUGIN_STACKLEAK"));
	assert_true(provenance_config_relevant("CONFIG_KSTACK_ERASE"));
	assert_true(provenance_config_relevant("CONFIG_KASAN"));
	assert_true(provenance_config_relevant("CONFIG_RANDSTRUCT_FULL"));
	assert_true(provenance_config_relevant("CONFIG_BUILD_SALT"));
	assert_false(provenance_config_relevant("CONFIG_KASAN_GENERIC"));
	assert_false(provenance_config_relevant("CONFIG_SECURITY_YAMA"));
	assert_false(provenance_config_relevant("CONFIG_MODULE_SIG_FORCE"));
	assert_false(provenance_config_relevant("CONFIG_RETPOLINE_X"));
	assert_false(provenance_config_relevant("SLAB_FREELIST_RANDOM"));
}

static void test_vulns(void **state)
{
	struct tmpdir *t = *state;
	struct kv_list vulns = {0};
	char sub[128];

	write_file(t->path, "spectre_v2", "Mitigation: Retpolines; IBPB: conditional\n");
	write_file(t->path, "meltdown", "Not affected\n");
	write_file(t->path, "l1tf", "Mitigation: PTE Inversion\nsecond line\n");
	write_file(t->path, "empty", "");
	snprintf(sub, sizeof(sub), "%s/subdir", t->path);
	assert_int_equal(mkdir(sub, 0755), 0);

	assert_int_equal(provenance_vulns(&vulns, t->path), 0);
	assert_int_equal(vulns.n, 4);
	assert_string_equal(vulns.v[0].key, "empty");
	assert_string_equal(vulns.v[0].value, "");
	assert_string_equal(vulns.v[1].key, "l1tf");
	assert_string_equal(vulns.v[1].value, "Mitigation: PTE Inversion");
	assert_string_equal(vulns.v[2].key, "meltdown");
	assert_string_equal(vulns.v[2].value, "Not affected");
	assert_string_equal(vulns.v[3].key, "spectre_v2");
	assert_string_equal(vulns.v[3].value, "Mitigation: Retpolines; IBPB: conditional");
	kv_list_free(&vulns);
}

static void test_vulns_missing(void **state)
{
	struct tmpdir *t = *state;
	struct kv_list vulns = {0};
	char path[128];

	snprintf(path, sizeof(path), "%s/absent", t->path);
	assert_int_equal(provenance_vulns(&vulns, path), -ENOENT);
	assert_int_equal(vulns.n, 0);
}

static void test_kv_replace(void **state)
{
	struct kv_list l = {0};
	char key[16];
	int i;

	assert_null(kv_get(&l, "a"));
	assert_int_equal(kv_add(&l, "a", "%d", 1), 0);
	assert_int_equal(kv_add(&l, "b", "%s-%x", "two", 255), 0);
	assert_int_equal(kv_add(&l, "a", "%s", "replaced"), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(kv_get(&l, "a"), "replaced");
	assert_string_equal(kv_get(&l, "b"), "two-ff");
	assert_string_equal(l.v[0].key, "a");

	/* past the first growth, earlier entries must survive the realloc */
	for (i = 0; i < 100; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(kv_add(&l, key, "%d", i * 3), 0);
	}
	assert_int_equal(l.n, 102);
	assert_string_equal(kv_get(&l, "k57"), "171");
	assert_string_equal(kv_get(&l, "a"), "replaced");
	kv_list_free(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	assert_null(kv_get(&l, "a"));
}

static void test_kernel(void **state)
{
	struct kv_list meta = {0};
	struct utsname u;
	char ncpu[32];

	assert_int_equal(uname(&u), 0);
	snprintf(ncpu, sizeof(ncpu), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(provenance_kernel(&meta), 0);
	assert_string_equal(kv_get(&meta, "kernel.release"), u.release);
	assert_string_equal(kv_get(&meta, "kernel.version"), u.version);
	assert_string_equal(kv_get(&meta, "arch"), u.machine);
	assert_string_equal(kv_get(&meta, "hostname"), u.nodename);
	assert_string_equal(kv_get(&meta, "cpu.count"), ncpu);
	assert_non_null(kv_get(&meta, "kernel.cmdline"));
	assert_null(strchr(kv_get(&meta, "kernel.cmdline"), '\n'));
	if (kv_get(&meta, "kernel.build_id"))
		assert_true(strspn(kv_get(&meta, "kernel.build_id"), "0123456789abcdef") ==
			    strlen(kv_get(&meta, "kernel.build_id")));
	kv_list_free(&meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id_first_note),
		cmocka_unit_test(test_build_id_after_other_notes),
		cmocka_unit_test(test_build_id_absent),
		cmocka_unit_test(test_build_id_truncated),
		cmocka_unit_test(test_build_id_huge_sizes),
		cmocka_unit_test(test_build_id_hex_too_small),
		cmocka_unit_test_setup_teardown(test_config_gzip, setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test_setup_teardown(test_config_plain, setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test_setup_teardown(test_config_long_line, setup_tmpdir,
						teardown_tmpdir),
		cmocka_unit_test_setup_teardown(test_config_missing, setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test(test_config_relevant),
		cmocka_unit_test_setup_teardown(test_vulns, setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test_setup_teardown(test_vulns_missing, setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test(test_kv_replace),
		cmocka_unit_test(test_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

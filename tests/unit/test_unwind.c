/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elfsym.h"
#include "record/unwind.h"
#include "testutil.h"

/*
 * A PIE executable and a shared library built without frame pointers, whose
 * functions call each other in a known chain; the innermost saves its
 * registers and the stack above them as record --call-graph dwarf gets them,
 * and the program writes them and its /proc/self/maps to a file before it
 * exits, so the unwinding happens, as while recording, after the process is
 * gone.  The capture's rip is the label its asm begins at.
 */
static const char lib_src[] =
	"#include <stdint.h>\n"
	"#include <string.h>\n"
	"uint64_t fx_regs[17], fx_len, fx_stack_end;\n"
	"unsigned char fx_stack[8192];\n"
	"volatile int fx_sink;\n"
	"__attribute__((noinline)) void fx_capture(void)\n"
	"{\n"
	"	uint64_t *r = fx_regs, sp, n;\n"
	"	__asm__ volatile(\"1:\\n\\t\"\n"
	"		\"movq %%rax, 0(%0)\\n\\t\" \"movq %%rdx, 8(%0)\\n\\t\"\n"
	"		\"movq %%rcx, 16(%0)\\n\\t\" \"movq %%rbx, 24(%0)\\n\\t\"\n"
	"		\"movq %%rsi, 32(%0)\\n\\t\" \"movq %%rdi, 40(%0)\\n\\t\"\n"
	"		\"movq %%rbp, 48(%0)\\n\\t\" \"movq %%rsp, 56(%0)\\n\\t\"\n"
	"		\"movq %%r8, 64(%0)\\n\\t\" \"movq %%r9, 72(%0)\\n\\t\"\n"
	"		\"movq %%r10, 80(%0)\\n\\t\" \"movq %%r11, 88(%0)\\n\\t\"\n"
	"		\"movq %%r12, 96(%0)\\n\\t\" \"movq %%r13, 104(%0)\\n\\t\"\n"
	"		\"movq %%r14, 112(%0)\\n\\t\" \"movq %%r15, 120(%0)\\n\\t\"\n"
	"		\"leaq 1b(%%rip), %%rax\\n\\t\" \"movq %%rax, 128(%0)\\n\\t\"\n"
	"		: : \"r\"(r) : \"rax\", \"memory\");\n"
	"	sp = fx_regs[7];\n"
	"	n = fx_stack_end - sp;\n"
	"	fx_len = n < sizeof(fx_stack) ? n : sizeof(fx_stack);\n"
	"	memcpy(fx_stack, (void *)sp, fx_len);\n"
	"}\n"
	"__attribute__((noinline)) int fx_lib_d(int x)\n"
	"{\n"
	"	volatile char pad[64];\n"
	"	pad[x & 63] = x;\n"
	"	fx_capture();\n"
	"	return pad[(x + 1) & 63] + fx_sink;\n"
	"}\n"
	"__attribute__((noinline)) int fx_lib_b(int d, int (*next)(int))\n"
	"{\n"
	"	int r = next(d);\n"
	"	return r * 3 + d;\n"
	"}\n";

static const char exe_src[] =
	"#include <stdint.h>\n"
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"extern uint64_t fx_regs[17], fx_len, fx_stack_end;\n"
	"extern unsigned char fx_stack[];\n"
	"int fx_lib_b(int d, int (*next)(int));\n"
	"int fx_lib_d(int x);\n"
	"#ifdef __clang__\n"
	"#define NOINL __attribute__((noinline))\n"
	"#else\n"
	"#define NOINL __attribute__((noinline, noclone))\n"
	"#endif\n"
	"NOINL int fx_main_c(int d)\n"
	"{\n"
	"	int r = d > 0 ? fx_lib_b(d - 1, fx_main_c) : fx_lib_d(d);\n"
	"	return r + d * 5;\n"
	"}\n"
	"NOINL int fx_main_a(int d)\n"
	"{\n"
	"	int r = fx_lib_b(d, fx_main_c);\n"
	"	return r ^ d;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	char line[4096];\n"
	"	unsigned long lo, hi;\n"
	"	FILE *maps = fopen(\"/proc/self/maps\", \"r\"), *out;\n"
	"	int r;\n"
	"	while (maps && fgets(line, sizeof(line), maps))\n"
	"		if (strstr(line, \"[stack]\") && sscanf(line, \"%lx-%lx\", &lo, &hi) == 2)\n"
	"			fx_stack_end = hi;\n"
	"	r = fx_main_a(atoi(argv[2]));\n"
	"	out = fopen(argv[1], \"w\");\n"
	"	if (!maps || !out || !fx_stack_end)\n"
	"		return 1;\n"
	"	fwrite(fx_regs, 8, 17, out);\n"
	"	fwrite(&fx_len, 8, 1, out);\n"
	"	fwrite(fx_stack, 1, fx_len, out);\n"
	"	rewind(maps);\n"
	"	while (fgets(line, sizeof(line), maps))\n"
	"		fputs(line, out);\n"
	"	return fclose(out) != 0 || r == 12345;\n"
	"}\n";

#define FX_FLAGS   "-O2 -g -fomit-frame-pointer"
#define MAX_FRAMES 64

/* A sample as the fixture wrote it, with its process's mappings. */
struct sample {
	__u64 regs[UNW_REGS];
	unsigned char *stack;
	size_t len;
	struct unw_map *maps;
	int nmaps;
};

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	bool lld;	      /* the lld variant linked */
};

/*
 * dir/variant/{libfx.so,fx}, built with flags: "bfd" and "lld" have
 * .eh_frame and are linked by each, "debug_frame" has no unwind tables, only
 * the .debug_frame of -g.
 */
static int build_variant(const char *dir, const char *variant, const char *flags)
{
	return tu_run("mkdir -p '%s/%s' && cd '%s/%s' && "
		      "cc " FX_FLAGS " %s -fPIC -shared ../fx_lib.c -o libfx.so && "
		      "cc " FX_FLAGS " %s -fPIE -pie ../fx_main.c -o fx -L. -lfx",
		      dir, variant, dir, variant, flags, flags);
}

static int build(void *arg)
{
	struct fixture *f = arg;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/fx_lib.c", f->tu.dir);
	if (tu_write_file(path, lib_src))
		return -1;
	snprintf(path, sizeof(path), "%s/fx_main.c", f->tu.dir);
	if (tu_write_file(path, exe_src) ||
	    build_variant(f->tu.dir, "bfd", "-fasynchronous-unwind-tables -fuse-ld=bfd") ||
	    build_variant(f->tu.dir, "debug_frame",
			  "-fno-asynchronous-unwind-tables -fno-unwind-tables"))
		return -1;
	f->lld = !build_variant(f->tu.dir, "lld", "-fasynchronous-unwind-tables -fuse-ld=lld");
	return 0;
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-unwind", "cc", build);
}

/* The rest of in, lines of a /proc/PID/maps, into s->maps. */
static void read_maps(struct sample *s, FILE *in)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	unsigned long lo, hi, off;
	struct unw_map *m;

	while (fgets(line, sizeof(line), in)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095[^\n]", &lo, &hi, &off, path) < 3)
			continue;
		s->maps = realloc(s->maps, (s->nmaps + 1) * sizeof(*s->maps));
		assert_non_null(s->maps);
		m = &s->maps[s->nmaps++];
		*m = (struct unw_map){lo, hi, off, strdup(path)};
		assert_non_null(m->path);
	}
	assert_true(s->nmaps > 0);
}

/* Runs the fixture variant (under the command wrap) at chain depth d and reads what it wrote. */
static void sample_take(struct fixture *f, const char *wrap, const char *variant, int d,
			struct sample *s)
{
	char out[PATH_MAX];
	size_t size;
	FILE *in;

	memset(s, 0, sizeof(*s));
	snprintf(out, sizeof(out), "%s/%s/sample-%d", f->tu.dir, variant, d);
	assert_int_equal(tu_run("cd '%s/%s' && LD_LIBRARY_PATH=. %s ./fx '%s' %d", f->tu.dir,
				variant, wrap, out, d),
			 0);
	in = fopen(out, "r");
	assert_non_null(in);
	assert_int_equal(fread(s->regs, 8, UNW_REGS, in), UNW_REGS);
	assert_int_equal(fread(&size, 8, 1, in), 1);
	assert_true(size > 0 && size <= 8192);
	s->stack = malloc(size);
	assert_non_null(s->stack);
	s->len = fread(s->stack, 1, size, in);
	assert_int_equal(s->len, size);
	read_maps(s, in);
	fclose(in);
}

static void sample_free(struct sample *s)
{
	int i;

	for (i = 0; i < s->nmaps; i++)
		free((char *)s->maps[i].path);
	free(s->maps);
	free(s->stack);
}

static const struct unw_map *map_at(const struct sample *s, __u64 ip)
{
	int i;

	for (i = 0; i < s->nmaps; i++)
		if (ip >= s->maps[i].start && ip < s->maps[i].end)
			return &s->maps[i];
	return NULL;
}

static int find_map(void *ctx, __u64 ip, struct unw_map *out)
{
	const struct unw_map *m = map_at(ctx, ip);

	if (!m)
		return -ENOENT;
	*out = *m;
	return 0;
}

static int find_none(void *ctx, __u64 ip, struct unw_map *out)
{
	return -ENOENT;
}

/*
 * The frames as "file function" lines, from the ELF symbols (a return
 * address names its call, one byte before it).  glibc's frames between main
 * and _start differ between its versions and debug packages: a run of them
 * is one "libc.so.6" line.
 */
static void frame_names(const struct sample *s, const __u64 *ips, int n, char *out, size_t len)
{
	const struct unw_map *m;
	struct elfsym *syms;
	const char *file, *sym;
	__u64 ip, vaddr, off;
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		ip = i ? ips[i] - 1 : ips[i];
		m = map_at(s, ip);
		file = m ? strrchr(m->path, '/') : NULL;
		file = file ? file + 1 : "?";
		if (!strcmp(file, "libc.so.6")) {
			if (used < 10 || strcmp(out + used - 10, "libc.so.6\n"))
				used += snprintf(out + used, len - used, "libc.so.6\n");
			continue;
		}
		sym = NULL;
		syms = NULL;
		if (m && m->path[0] == '/' && !elfsym_open(m->path, NULL, NULL, &syms) &&
		    elfsym_vaddr(syms, ip - m->start + m->pgoff, &vaddr))
			sym = elfsym_find(syms, vaddr, &off);
		used += snprintf(out + used, len - used, "%s %s\n", file, sym ?: "?");
		elfsym_free(syms);
		assert_true(used < len);
	}
}

/* The chain the fixture calls at depth d, innermost first. */
static void expected(int d, char *out, size_t len)
{
	size_t used = snprintf(out, len, "libfx.so fx_capture\nlibfx.so fx_lib_d\n");

	for (; d >= 0; d--)
		used += snprintf(out + used, len - used, "fx fx_main_c\nlibfx.so fx_lib_b\n");
	snprintf(out + used, len - used, "fx fx_main_a\nfx main\nlibc.so.6\nfx _start\n");
}

static int unwind(struct unwinder *u, __u64 space, const struct sample *s, __u64 *ips, int max,
		  bool *truncated)
{
	return unwind_user(u, space, find_map, (void *)s, s->regs, s->stack, s->len, ips, max,
			   truncated);
}

/* The whole chain of a variant, to _start, whose CFI ends the stack. */
static void check_chain(struct fixture *f, const char *variant)
{
	char got[4096], want[4096];
	__u64 ips[MAX_FRAMES];
	struct unwinder *u;
	struct sample s;
	bool truncated;
	int n;

	sample_take(f, "", variant, 1, &s);
	assert_int_equal(unwinder_new(&u), 0);
	n = unwind(u, 1, &s, ips, MAX_FRAMES, &truncated);
	frame_names(&s, ips, n, got, sizeof(got));
	expected(1, want, sizeof(want));
	assert_string_equal(got, want);
	assert_false(truncated);
	assert_int_equal(ips[0], s.regs[UNW_REG_IP]);
	unwinder_free(u);
	sample_free(&s);
}

static void test_chain_bfd(void **state)
{
	check_chain(tu_fixture(state), "bfd");
}

/* CFI from the .debug_frame of the files themselves. */
static void test_chain_debug_frame(void **state)
{
	check_chain(tu_fixture(state), "debug_frame");
}

/* lld lays .text a page above its file offset: the module base is not map start - pgoff. */
static void test_chain_lld(void **state)
{
	struct fixture *f = tu_fixture(state);

	if (!f->lld) {
		print_message("skipped: cannot link with -fuse-ld=lld\n");
		skip();
	}
	check_chain(f, "lld");
}

/* A sample of the bfd variant at depth d and its full unwind, for the tests that vary it. */
struct ref {
	struct sample s;
	__u64 ips[MAX_FRAMES];
	int n;
};

static void ref_take(struct fixture *f, int d, struct ref *r)
{
	struct unwinder *u;
	bool truncated;

	sample_take(f, "", "bfd", d, &r->s);
	assert_int_equal(unwinder_new(&u), 0);
	r->n = unwind(u, 1, &r->s, r->ips, MAX_FRAMES, &truncated);
	assert_false(truncated);
	unwinder_free(u);
}

/*
 * Round i of the corruptions: random bytes (i < 100), else the real stack
 * with a few words overwritten by return addresses of its own frames (a
 * walk that goes on, somewhere) or junk; from round 200 also rip anywhere
 * in a file its frames are in.
 */
static void corrupt(const struct ref *r, int i, unsigned char *bad, __u64 *regs)
{
	const struct unw_map *m;
	__u64 word;
	int j;

	memcpy(regs, r->s.regs, UNW_REGS * sizeof(*regs));
	if (i < 100) {
		for (j = 0; j < (int)r->s.len; j++)
			bad[j] = rand();
		return;
	}
	memcpy(bad, r->s.stack, r->s.len);
	for (j = 0; j < 1 + i % 8; j++) {
		word = i % 3 ? r->ips[rand() % r->n] + rand() % 64 : (__u64)rand() << 16;
		memcpy(bad + 8 * (rand() % (r->s.len / 8)), &word, 8);
	}
	if (i >= 200) {
		m = map_at(&r->s, r->ips[rand() % r->n]);
		regs[UNW_REG_IP] = m->start + rand() % (m->end - m->start);
	}
}

/* Corrupt stacks and registers: never a crash, rip first, truncated for garbage. */
static void test_corrupt_stack(void **state)
{
	__u64 ips[MAX_FRAMES], regs[UNW_REGS];
	unsigned char *bad;
	struct unwinder *u;
	struct ref r;
	bool truncated;
	int i, n;

	ref_take(tu_fixture(state), 1, &r);
	bad = calloc(1, r.s.len);
	assert_non_null(bad);
	assert_int_equal(unwinder_new(&u), 0);
	n = unwind_user(u, 1, find_map, &r.s, r.s.regs, bad, r.s.len, ips, MAX_FRAMES, &truncated);
	assert_int_equal(n, 1);
	assert_true(truncated);
	srand(14);
	for (i = 0; i < 400; i++) {
		corrupt(&r, i, bad, regs);
		n = unwind_user(u, 1, find_map, &r.s, regs, bad, r.s.len, ips, MAX_FRAMES,
				&truncated);
		assert_true(n >= 1 && n <= MAX_FRAMES);
		assert_int_equal(ips[0], regs[UNW_REG_IP]);
		if (i < 100)
			assert_true(truncated);
	}
	unwinder_free(u);
	free(bad);
	sample_free(&r.s);
}

/* No stack copy, max frames, no rip, no mapping: what is known, and truncated. */
static void test_limits(void **state)
{
	__u64 ips[MAX_FRAMES], regs[UNW_REGS];
	struct unwinder *u;
	struct ref r;
	bool truncated;

	ref_take(tu_fixture(state), 1, &r);
	assert_int_equal(unwinder_new(&u), 0);
	assert_int_equal(
		unwind_user(u, 1, find_map, &r.s, r.s.regs, r.s.stack, 0, ips, 8, &truncated), 1);
	assert_true(truncated);
	assert_int_equal(
		unwind_user(u, 1, find_map, &r.s, r.s.regs, NULL, r.s.len, ips, 8, &truncated), 1);
	assert_int_equal(ips[0], r.s.regs[UNW_REG_IP]);
	assert_int_equal(unwind(u, 1, &r.s, ips, 3, &truncated), 3);
	assert_true(truncated);
	assert_memory_equal(ips, r.ips, 3 * sizeof(ips[0]));
	assert_int_equal(unwind(u, 1, &r.s, ips, r.n, &truncated), r.n);
	assert_true(truncated);
	assert_int_equal(unwind(u, 1, &r.s, ips, 0, &truncated), -EINVAL);
	assert_int_equal(unwind_user(u, 2, find_none, NULL, r.s.regs, r.s.stack, r.s.len, ips,
				     MAX_FRAMES, &truncated),
			 1);
	assert_true(truncated);
	memcpy(regs, r.s.regs, sizeof(regs));
	regs[UNW_REG_IP] = 0;
	assert_int_equal(unwind_user(u, 1, find_map, &r.s, regs, r.s.stack, r.s.len, ips,
				     MAX_FRAMES, &truncated),
			 0);
	assert_true(truncated);
	unwinder_free(u);
	sample_free(&r.s);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * More address spaces than are kept, each walked twice: the same frames
 * every time, and every file the unwinder opened closed again once freed.
 */
static void test_spaces(void **state)
{
	__u64 ips[MAX_FRAMES];
	struct unwinder *u;
	struct ref r;
	bool truncated;
	int fds, i, n;

	ref_take(tu_fixture(state), 1, &r);
	fds = open_fds();
	assert_int_equal(unwinder_new(&u), 0);
	for (i = 0; i < 2 * 100; i++) {
		memset(ips, 0, sizeof(ips));
		n = unwind(u, 100 + i % 100, &r.s, ips, MAX_FRAMES, &truncated);
		assert_int_equal(n, r.n);
		assert_false(truncated);
		assert_memory_equal(ips, r.ips, n * sizeof(ips[0]));
		if (i % 7 == 0)
			unwinder_forget(u, 100 + i % 100);
	}
	unwinder_free(u);
	assert_int_equal(open_fds(), fds);
	sample_free(&r.s);
}

/*
 * A space unwound into by another process without being forgotten, both
 * laid out alike (setarch -R): the other's files where the first's were.
 * The sample that finds them is cut short, the next one starts afresh.
 */
static void test_space_reused(void **state)
{
	struct fixture *f = tu_fixture(state);
	char got[4096], want[4096];
	struct sample first, other;
	__u64 ips[MAX_FRAMES];
	struct unwinder *u;
	bool truncated;
	int n;

	if (!f->lld || tu_run("setarch -R true 2>/dev/null")) {
		print_message("skipped: needs the lld variant and setarch -R\n");
		skip();
	}
	sample_take(f, "setarch -R", "bfd", 1, &first);
	sample_take(f, "setarch -R", "lld", 1, &other);
	assert_int_equal(unwinder_new(&u), 0);
	unwind(u, 5, &first, ips, MAX_FRAMES, &truncated);
	assert_false(truncated);
	assert_int_equal(unwind(u, 5, &other, ips, MAX_FRAMES, &truncated), 1);
	assert_true(truncated);
	n = unwind(u, 5, &other, ips, MAX_FRAMES, &truncated);
	frame_names(&other, ips, n, got, sizeof(got));
	expected(1, want, sizeof(want));
	assert_string_equal(got, want);
	assert_false(truncated);
	unwinder_free(u);
	sample_free(&other);
	sample_free(&first);
}

/*
 * A sample in the vDSO, which is no file: the unwinder reads the CFI of its
 * own copy (the same kernel's).  rbp 0: no frame-pointer guess gets past it.
 */
static void test_vdso(void **state)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	void *fn = vdso ? dlsym(vdso, "__vdso_clock_gettime") : NULL;
	__u64 ips[MAX_FRAMES], stack[8] = {0};
	struct unwinder *u;
	struct sample s;
	bool truncated;
	FILE *in;
	int n;

	if (!fn) {
		print_message("skipped: no vDSO with __vdso_clock_gettime\n");
		skip();
	}
	memset(&s, 0, sizeof(s));
	in = fopen("/proc/self/maps", "r");
	assert_non_null(in);
	read_maps(&s, in);
	fclose(in);
	/* at its entry the return address is at rsp: one into this program */
	stack[0] = (__u64)(uintptr_t)find_none + 1;
	s.regs[UNW_REG_IP] = (uintptr_t)fn;
	s.regs[UNW_REG_SP] = (uintptr_t)stack;
	assert_int_equal(unwinder_new(&u), 0);
	n = unwind_user(u, 9, find_map, &s, s.regs, stack, sizeof(stack), ips, MAX_FRAMES,
			&truncated);
	assert_int_equal(n, 2);
	assert_int_equal(ips[0], s.regs[UNW_REG_IP]);
	assert_int_equal(ips[1], stack[0]);
	unwinder_free(u);
	sample_free(&s);
	dlclose(vdso);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Unwinds per second of a ~20-frame stack: printed, for the docs' numbers (docs/record.md). */
static void test_speed(void **state)
{
	__u64 ips[MAX_FRAMES];
	struct unwinder *u;
	struct ref r;
	bool truncated;
	double t0, warm, cold;
	int i, n = 0;

	ref_take(tu_fixture(state), 6, &r);
	assert_true(r.n >= 20);
	t0 = now();
	for (i = 0; i < 20; i++) {
		assert_int_equal(unwinder_new(&u), 0);
		unwind(u, 1, &r.s, ips, MAX_FRAMES, &truncated);
		unwinder_free(u);
	}
	cold = (now() - t0) / 20;
	assert_int_equal(unwinder_new(&u), 0);
	t0 = now();
	for (i = 0; now() - t0 < 0.5; i++)
		n += unwind(u, 1, &r.s, ips, MAX_FRAMES, &truncated);
	warm = now() - t0;
	assert_int_equal(n, i * r.n);
	print_message("unwind speed: %d frames, %.0f unwinds/s (%.1f us each) in a space "
		      "already unwound into, %.2f ms for the first one\n",
		      r.n, i / warm, warm / i * 1e6, cold * 1e3);
	unwinder_free(u);
	sample_free(&r.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_bfd),    cmocka_unit_test(test_chain_debug_frame),
		cmocka_unit_test(test_chain_lld),    cmocka_unit_test(test_corrupt_stack),
		cmocka_unit_test(test_limits),	     cmocka_unit_test(test_spaces),
		cmocka_unit_test(test_space_reused), cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_speed),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}

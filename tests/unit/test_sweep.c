// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf sweep without a VM: the plan's refusals (each the whole line it
 * says, with the plan's line number), what each variant is (base's options
 * with its own on top), the job list of --dry-run, and the matrix --merge
 * makes of what jobs left in a folder, here synthetic recordings whose
 * answer is known: "slow" takes 10% longer on every operation and spends
 * twice the samples in clear_page_erms, "null" has base's runs in another
 * order (no change at all), "failed" left a job file saying its boot
 * failed, "missing" left nothing, "oprc" recorded fork with an error and
 * lost null's sampled recording, and "garbage" left a job file that is
 * none; slow's fork lost a run's line of core-ops.  Each operation has
 * core-ops' lines (the operation 90% of the run), a timed recording and a
 * sampled one, whose runs are a tenth longer: the cells' times are the
 * lines', the runs' the timed recording's.  A second folder is of a sweep
 * under --model timing, its timed recordings with the model's fixture
 * tables merged (tests/unit/model).  Outputs are compared whole with
 * golden files (tests/unit/golden/sweep-*), the folder masked.
 *
 * test_sweep --fixture DIR makes the folder of the merge tests in DIR and
 * exits (tests/unit/t_sweep_svg.sh draws its heat map in Chromium).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/query.h"
#include "model/model_inject.h"
#include "sweep/sweep_jobfile.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_setup.h"
#include "testutil.h"

#define K(off)	 ((long long)(0xffffffff81000000ULL + (off)))
#define OK(expr) assert_int_equal((expr), 0)
#define RUNS	 5
#define FIX	 "tests/unit/model/"

static char dir[256];

static const char fixture_plan[] = "# a plan of the merge tests\n"
				   "base: --set SLAB_FREELIST_RANDOM=n\n"
				   "slow: --set SLAB_FREELIST_RANDOM=y\n"
				   "null:\n"
				   "failed: --append init_on_free=1\n"
				   "missing: --append init_on_alloc=1\n"
				   "oprc: --append page_alloc.shuffle=1\n"
				   "garbage: --append slab_nomerge\n";

static const char *const fixture_ops[] = {"null", "fork"};

/* What one synthetic recording is: its kernel, its runs' wall times and samples. */
struct spec {
	const char *build_id, *cmdline, *freelist;
	double scale; /* of base's wall times */
	int shift;    /* base's runs in another order */
	long long clear[RUNS];
	const char *cpu, *meltdown; /* cpu.model and a vulnerability's status; NULL: none */
	const char *table; /* the model's raw table merged into the timed recording; NULL: none */
};

static void meta(struct datafile *df, const char *key, const char *value)
{
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", key, value));
}

static void provenance(struct datafile *df, const struct spec *s, const char *op)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "core-ops %s", op);
	meta(df, "kernel.release", "6.1.192");
	meta(df, "kernel.build_id", s->build_id);
	meta(df, "kernel.cmdline", s->cmdline);
	meta(df, "arch", "x86_64");
	meta(df, "record.command", cmd);
	meta(df, "sampling.freq_hz", "1000");
	OK(query_insert(df, "INSERT INTO config VALUES('CONFIG_SLAB_FREELIST_RANDOM', ?)", "t",
			s->freelist));
	if (s->cpu)
		meta(df, "cpu.model", s->cpu);
	if (s->meltdown)
		OK(query_insert(df, "INSERT INTO vulnerabilities VALUES('meltdown', ?)", "t",
				s->meltdown));
}

/* Stack 1: copy_process under kernel_clone; 2: clear_page_erms called from it. */
static void stacks(struct datafile *df)
{
	static const char kf[] = "INSERT INTO kstack_frames VALUES(?,?,?)";
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";

	OK(query_insert(df, ksym, "it", K(0x2000), "kernel_clone"));
	OK(query_insert(df, ksym, "it", K(0x3000), "copy_process"));
	OK(query_insert(df, ksym, "it", K(0x5000), "clear_page_erms"));
	OK(query_insert(df, kf, "iii", 1LL, 0LL, K(0x3020)));
	OK(query_insert(df, kf, "iii", 1LL, 1LL, K(0x2010)));
	OK(query_insert(df, kf, "iii", 2LL, 0LL, K(0x5020)));
	OK(query_insert(df, kf, "iii", 2LL, 1LL, K(0x3030)));
	OK(query_insert(df, kf, "iii", 2LL, 2LL, K(0x2010)));
}

/* The kernel functions of the model's fixtures (tests/unit/model/README), as record leaves them. */
static void model_ksyms(struct datafile *df)
{
	static const struct {
		long long off;
		const char *name;
	} ks[] = {
		{0x100, "entry_SYSCALL_64"},	     {0x200, "kfunc"},
		{0x300, "__x86_indirect_thunk_rax"}, {0x320, "__x86_indirect_thunk_rcx"},
		{0x340, "__x86_return_thunk"},	     {0x400, "flush_tlb_one"},
	};
	size_t i;

	meta(df, "model.windows", "1");
	meta(df, "model.state", "awaiting");
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		OK(query_insert(df, "INSERT INTO ksyms VALUES(?,?,'')", "it", K(ks[i].off),
				ks[i].name));
}

/*
 * An operation's recording: timed with nothing attached, or sampled, whose
 * runs the samples make a tenth longer (the cells' times must not be those).
 * The operation is 90% of a run, its start and end the rest, which no
 * variant changes.
 */
static void recording(const char *path, const struct spec *s, const char *op, double op_ns,
		      bool sampled)
{
	static const long long wall[RUNS] = {0, 30000, -20000, 10000, -10000};
	const long long copy[RUNS] = {3, 3, 3, 3, 3};
	struct datafile *df;
	char why[256];
	int r;

	OK(datafile_create(&df, path, (uid_t)-1, NULL, 0));
	provenance(df, s, op);
	stacks(df);
	for (r = 0; r < RUNS; r++)
		OK(query_insert(df, "INSERT INTO runs VALUES(?,?,0,'exited')", "ii",
				(long long)r + 1,
				(long long)((op_ns + wall[(r + s->shift) % RUNS]) *
					    (0.9 * s->scale + 0.1) * (sampled ? 1.1 : 1))));
	if (sampled) {
		tu_run_samples(df, 1, copy, RUNS, "core-ops");
		tu_run_samples(df, 2, s->clear, RUNS, "core-ops");
	}
	if (s->table && !sampled)
		model_ksyms(df);
	OK(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0));
	if (s->table && !sampled)
		OK(model_inject(s->table, path, why, sizeof(why)));
}

/* core-ops' lines of an operation's timed runs: 1000 operations, 90% of each run. */
static void out_lines(const char *variant, const struct spec *s, const char *op, double op_ns,
		      int runs)
{
	static const long long wall[RUNS] = {0, 30000, -20000, 10000, -10000};
	char path[PATH_MAX];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/%s/%s.out", dir, variant, op);
	f = fopen(path, "w");
	assert_non_null(f);
	for (r = 0; r < runs; r++)
		fprintf(f,
			"core-ops %s: 1000 operations in 50 batches: mean %.1f ns, kbest(5, 5%%) 1.0"
			" ns (spread 0.0%%, within tolerance)\n",
			op, 0.9 * (op_ns + wall[(r + s->shift) % RUNS]) * s->scale / 1000);
	OK(fclose(f));
}

static void file(const char *variant, const char *name, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%s", dir, variant, name);
	OK(tu_write_file(path, text));
}

/* DIR/NAME/job as NAME's job under model (--core core) writes it, with status and reason. */
static void job_model(const struct sweep_plan *p, const char *name, const char *reason,
		      const char *model, const char *core)
{
	struct sweep_jobfile j = {.repeat = RUNS, .build_s = 60, .boot_s = 20};
	const struct sweep_variant *v = sweep_plan_find(p, name);
	char path[PATH_MAX];
	struct sweep_setup s;
	int fd;

	assert_non_null(v);
	sweep_setup_of(p, v, &s);
	sweep_setup_line(&s, j.setup, sizeof(j.setup));
	snprintf(j.variant, sizeof(j.variant), "%s", name);
	snprintf(j.ops, sizeof(j.ops), "null fork");
	snprintf(j.model, sizeof(j.model), "%s", model);
	snprintf(j.core, sizeof(j.core), "%s", core);
	snprintf(j.kernel, sizeof(j.kernel), "/cache/kbuild/out/%s", name);
	snprintf(j.status, sizeof(j.status), "%s", reason ? "failed" : "ok");
	snprintf(j.reason, sizeof(j.reason), "%s", reason ?: "");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	OK(mkdir(path, 0755));
	fd = open(path, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	OK(sweep_jobfile_write(fd, &j));
	close(fd);
}

/* DIR/NAME/job of a sweep without the model. */
static void job(const struct sweep_plan *p, const char *name, const char *reason)
{
	job_model(p, name, reason, "none", "");
}

/* A variant's recordings of both operations, each with its status. */
static void recorded(const char *name, const struct spec *s)
{
	static const double op_ns[] = {20e6, 30e6};
	char path[PATH_MAX], f[32];
	size_t k;

	for (k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/%s/%s.data", dir, name, fixture_ops[k]);
		recording(path, s, fixture_ops[k], op_ns[k], false);
		snprintf(path, sizeof(path), "%s/%s/%s.samples.data", dir, name, fixture_ops[k]);
		recording(path, s, fixture_ops[k], op_ns[k], true);
		out_lines(name, s, fixture_ops[k], op_ns[k], RUNS);
		snprintf(f, sizeof(f), "%s.rc", fixture_ops[k]);
		file(name, f, "0\n");
	}
}

/* The variants of fixture_plan, each as its job left it; whole: the first three alone. */
static void fixture(bool whole)
{
	const struct spec base = {"aaaa", "console=ttyS0 quiet", "n", 1, 0, {5, 6, 4, 5, 5}};
	const struct spec slow = {"bbbb", "console=ttyS0 quiet", "y", 1.1, 0, {10, 11, 9, 10, 10}};
	const struct spec null = {"aaaa", "console=ttyS0 quiet", "n", 1, 2, {5, 5, 6, 4, 5}};
	const struct spec oprc = {
		"aaaa", "console=ttyS0 quiet page_alloc.shuffle=1", "n", 1.02, 1, {5, 6, 4, 5, 5}};
	char why[256], path[PATH_MAX];
	struct sweep_plan p;

	/* the whole plan: its first four lines */
	size_t len = whole ? (size_t)(strstr(fixture_plan, "failed:") - fixture_plan)
			   : strlen(fixture_plan);
	char text[sizeof(fixture_plan)];

	memcpy(text, fixture_plan, len);
	text[len] = '\0';
	OK(sweep_plan_parse("plan", text, len, &p, why, sizeof(why)));
	snprintf(path, sizeof(path), "%s/sweep.plan", dir);
	OK(tu_write_file(path, text));
	job(&p, "base", NULL);
	recorded("base", &base);
	job(&p, "slow", NULL);
	recorded("slow", &slow);
	job(&p, "null", NULL);
	recorded("null", &null);
	if (whole) {
		sweep_plan_free(&p);
		return;
	}
	job(&p, "failed", "boot: vm-run: kernel 6.1.192: Kernel panic - not syncing: \x1b[31mVFS");
	job(&p, "oprc", NULL);
	recorded("oprc", &oprc);
	file("oprc", "fork.rc", "1\n");
	/* slow's fork: a run's line lost */
	out_lines("slow", &slow, "fork", 30e6, RUNS - 1);
	/* its null operation timed, but its sampled recording lost */
	snprintf(path, sizeof(path), "%s/oprc/null.samples.data", dir);
	OK(unlink(path));
	file("oprc", "fork.err", "core-ops fork: fork: Cannot allocate memory\n");
	job(&p, "garbage", NULL);
	file("garbage", "job", "variant=garbage\nthis is no job file\n");
	sweep_plan_free(&p);
}

/* Each plan is refused with exactly that line; NULL: accepted. */
static void test_plan_refusals(void **unused)
{
	static const char known[] =
		"a variant takes --version, --src, --set, --kernel, --append, --timeout and --cpu";
	static const struct {
		const char *plan, *why;
	} cases[] = {
		{"base: --version 6.1\nx: --set A=y\n", NULL},
		{"base: --set A=y --set CONFIG_A=y\nx:", NULL},
		{": --set A=y\n",
		 "plan:1: no variant name: a line is NAME: OPTIONS (e.g. base: --version 6.1)"},
		{"base:\n--set A=y\n",
		 "plan:2: no variant name: a line is NAME: OPTIONS (e.g. base: --version 6.1)"},
		{"base:\n# c\n\nhard: --set A=y\nhard: --set B=y\n",
		 "plan:5: a second variant named 'hard' (the first is on line 4): give each variant its"
		 " own name"},
		{"base: --set A=y --set A=n\nx:",
		 "plan:1: --set A given twice, A=y and A=n: give it once"},
		{"base: --version 6.1 --version=6.12\nx:",
		 "plan:1: --version given twice, 6.1 and 6.12: give it once"},
		{"base:\nx: --append 'a=1 b' --append a=2",
		 "plan:2: --append a given twice, a=1 and a=2: give it once"},
		{"base:\nx: --kernel a --kernel b",
		 "plan:2: --kernel given twice, a and b: give it once"},
		{"base: --foo 1\nx:", NULL},
		{"base: 6.1\nx:", NULL},
		{"base: --set\nx:", "plan:1: --set needs a value"},
		{"base: --set A\nx:",
		 "plan:1: --set A: want OPT=VALUE, e.g. --set SLAB_FREELIST_RANDOM=n"},
		{"base: --set A-B=y\nx:", "plan:1: --set A-B=y: 'A-B' is not a config option name"},
		{"base: --set A=yes\nx:",
		 "plan:1: --set A=yes: value 'yes' is not y, n, m, a number or a \"string\""},
		{"base: --set 'A=\"x\"' --set B=0x1f --set C=-3\nx:", NULL},
		{"base: --version 6\nx:",
		 "plan:1: --version 6: want a version such as 6.1 or 6.12"},
		{"base: --timeout 0\nx:", "plan:1: --timeout 0: want whole seconds, 1..99999"},
		{"base: --kernel linux-image-amd64 --set A=y\nx:",
		 "plan:1: --kernel boots a kernel as it is, --version, --src and --set build one: give"
		 " one or the other"},
		{"base: --append \"a=1\nx:", "plan:1: a double quote that does not end"},
		{"x: --set A=y\n",
		 "plan: no base line: a plan compares its variants with the one named base (base:"
		 " OPTIONS)"},
		{"base: --set A=y\n", "plan: no variant besides base: add a line NAME: OPTIONS"},
		{"",
		 "plan: no base line: a plan compares its variants with the one named base (base:"
		 " OPTIONS)"},
		{"base:\nbad name: --set A=y",
		 "plan:2: variant name 'bad name': letters, digits, '_', '-' and '+' only, at most 47"
		 " of them (it names a folder)"},
		{"base:\nx.y:",
		 "plan:2: variant name 'x.y': letters, digits, '_', '-' and '+' only,"
		 " at most 47 of them (it names a folder)"},
		{"base:\x01\nx:", "plan:1: a control character in the line"},
		{"base: --cpu max,family=21\nx: --cpu Skylake-Client-v1", NULL},
		{"base:\nx: --cpu 'Skylake Client'",
		 "plan:2: --cpu Skylake Client: want a QEMU CPU model such as Skylake-Client-v1"
		 " (qemu-system-x86_64 -cpu help)"},
		{"base:\nx: --cpu=-x",
		 "plan:2: --cpu -x: want a QEMU CPU model such as Skylake-Client-v1"
		 " (qemu-system-x86_64 -cpu help)"},
		{"base:\nx: --cpu ''", "plan:2: --cpu : want a QEMU CPU model such as"
				       " Skylake-Client-v1 (qemu-system-x86_64 -cpu help)"},
		{"base:\nx: --cpu EPYC-Rome-v1 --cpu=Skylake-Client-v1",
		 "plan:2: --cpu given twice, EPYC-Rome-v1 and Skylake-Client-v1: give it once"},
		{"base:\nx: --cpu", "plan:2: --cpu needs a value"},
	};
	char why[512], want[512];
	struct sweep_plan p;
	size_t i;
	int err;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		*why = '\0';
		err = sweep_plan_parse("plan", cases[i].plan, strlen(cases[i].plan), &p, why,
				       sizeof(why));
		snprintf(want, sizeof(want), "%s", cases[i].why ?: "");
		if (i == 9)
			snprintf(want, sizeof(want), "plan:1: unknown option '--foo': %s", known);
		if (i == 10)
			snprintf(want, sizeof(want), "plan:1: '6.1' is no option: %s", known);
		if (*want)
			assert_int_equal(err, -EINVAL);
		else
			assert_int_equal(err, 0);
		assert_string_equal(why, want);
		sweep_plan_free(&p);
	}
}

/* What each variant is: base's options with its own on top. */
static void test_setups(void **unused)
{
	static const char plan[] = "base: --version 6.1 --set A=n --append 'a=1 b'\n"
				   "x: --set A=y --set B=m --append a=2 --append c\n"
				   "k: --kernel linux-image-amd64 --append d --timeout 900\n"
				   "v: --version 6.12\n"
				   "null:\n";
	static const char *const want[] = {
		"kernel-build.sh --version 6.1 --set A=n; append 'a=1 b'",
		"kernel-build.sh --version 6.1 --set A=y --set B=m; append 'a=2 b c'",
		"kernel linux-image-amd64; append 'a=1 b d'; timeout 900",
		"kernel-build.sh --version 6.12 --set A=n; append 'a=1 b'",
		"kernel-build.sh --version 6.1 --set A=n; append 'a=1 b'",
	};
	char why[256], *out = NULL;
	struct sweep_setup s;
	struct sweep_plan p;
	size_t i, n;
	FILE *f;

	OK(sweep_plan_parse("plan", plan, strlen(plan), &p, why, sizeof(why)));
	assert_int_equal(p.n, 5);
	for (i = 0; i < p.n; i++) {
		f = open_memstream(&out, &n);
		sweep_setup_of(&p, &p.v[i], &s);
		sweep_setup_print(&s, f);
		fclose(f);
		assert_string_equal(out, want[i]);
		assert_int_equal(sweep_setup_builds(&s), i != 2);
		free(out);
	}
	sweep_plan_free(&p);
}

/* --cpu: a variant's replaces base's, one without keeps base's, with --kernel too. */
static void test_setup_cpu(void **unused)
{
	static const char plan[] = "base: --version 6.1 --cpu EPYC-Rome-v1\n"
				   "sky: --cpu Skylake-Client-v1 --append pti=off\n"
				   "k: --kernel linux-image-amd64\n"
				   "null:\n";
	static const char *const want[] = {
		"kernel-build.sh --version 6.1; cpu EPYC-Rome-v1",
		"kernel-build.sh --version 6.1; append pti=off; cpu Skylake-Client-v1",
		"kernel linux-image-amd64; cpu EPYC-Rome-v1",
		"kernel-build.sh --version 6.1; cpu EPYC-Rome-v1",
	};
	char why[256], line[256];
	struct sweep_setup s;
	struct sweep_plan p;
	size_t i;

	OK(sweep_plan_parse("plan", plan, strlen(plan), &p, why, sizeof(why)));
	for (i = 0; i < p.n; i++) {
		sweep_setup_of(&p, &p.v[i], &s);
		sweep_setup_line(&s, line, sizeof(line));
		assert_string_equal(line, want[i]);
	}
	sweep_plan_free(&p);
}

static char *self(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	assert_true(n > 0);
	path[n] = '\0';
	return path;
}

/*
 * --dry-run: every variant checked (kernel folders here: no build to
 * check), then one job a line; a folder without vmlinux refused by line.
 */
static void test_dry_run(void **unused)
{
	char plan[PATH_MAX], out[PATH_MAX], *want, *text;
	char *argv[] = {"sweep",   "--dry-run", "-r", "3", "--ops", "null,fork",
			"--model", "insns",	"-o", out, plan,    NULL};
	const char *const mask[] = {self(), "KP", dir, "DIR", NULL};
	int ret;

	snprintf(plan, sizeof(plan), "%s/dry.plan", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	OK(tu_run(
		"mkdir -p '%s/k1' '%s/k2' && touch '%s/k1/bzImage' '%s/k1/vmlinux' '%s/k2/bzImage'",
		dir, dir, dir, dir, dir));
	assert_true(asprintf(&text,
			     "base: --kernel %s/k1\npkg: --kernel linux-image-amd64 --append x=1\n",
			     dir) > 0);
	OK(tu_write_file(plan, text));
	free(text);
	text = tu_run_fd(cmd_sweep, argv, 1, &ret);
	assert_int_equal(ret, 0);
	tu_golden_mask("sweep-dry-run", text, mask);
	free(text);
	/* a folder that is no kernel-build.sh result: refused, nothing printed */
	OK(tu_run("printf 'k2v: --kernel %s/k2\\n' >> '%s'", dir, plan));
	assert_true(asprintf(&want,
			     "kprotperf sweep: %s:3: k2v: --kernel %s/k2 has no vmlinux: give a"
			     " folder of scripts/kernel-build.sh\nkprotperf sweep: %s: 3 variants"
			     " checked (kernel-build.sh --check run 0 times): refused\n",
			     plan, dir, plan) > 0);
	tu_expect(cmd_sweep, argv, 2, 1, want);
	tu_expect(cmd_sweep, argv, 1, 1, "");
	free(want);
	assert_int_equal(access(out, F_OK), -1);
}

/*
 * --dry-run tries each CPU model of the plan once with vm-run.sh --check
 * --cpu (a stand-in, KP_VM_RUN, that knows no NoSuchModel and logs each
 * call): a model it refuses is said with its line, nothing printed.
 */
static void test_dry_run_cpu(void **unused)
{
	char plan[PATH_MAX], out[PATH_MAX], fake[PATH_MAX], *text, *want;
	char *argv[] = {"sweep", "--dry-run", "--ops", "null", "-o", out, plan, NULL};

	snprintf(plan, sizeof(plan), "%s/cpu-dry.plan", dir);
	snprintf(out, sizeof(out), "%s/cpu-dry", dir);
	snprintf(fake, sizeof(fake), "%s/fake-check.sh", dir);
	OK(tu_write_file(plan, "base: --kernel linux-image-amd64 --cpu EPYC-Rome-v1\n"
			       "sky: --cpu Skylake-Client-v1\n"
			       "bad: --cpu NoSuchModel\n"
			       "sky2: --cpu Skylake-Client-v1 --append pti=off\n"));
	assert_true(asprintf(&text,
			     "#!/bin/sh\necho \"$*\" >>'%s/checks'\n"
			     "[ \"$3\" != NoSuchModel ] && exit 0\n"
			     "echo \"vm-run: --cpu $3: QEMU cannot run it under TCG: unable to find"
			     " CPU model '$3'\" >&2\nexit 125\n",
			     dir) > 0);
	OK(tu_write_file(fake, text));
	free(text);
	OK(chmod(fake, 0700));
	setenv("KP_VM_RUN", fake, 1);
	assert_true(
		asprintf(&want,
			 "kprotperf sweep: %s:3: bad: vm-run: --cpu NoSuchModel: QEMU cannot run"
			 " it under TCG: unable to find CPU model 'NoSuchModel'\n"
			 "kprotperf sweep: %s: 4 variants checked (kernel-build.sh --check run 0"
			 " times): refused\n",
			 plan, plan) > 0);
	tu_expect(cmd_sweep, argv, 2, 1, want);
	free(want);
	unsetenv("KP_VM_RUN");
	snprintf(fake, sizeof(fake), "%s/checks", dir);
	text = tu_read_file(fake);
	assert_non_null(text);
	assert_string_equal(text, "--check --cpu EPYC-Rome-v1\n--check --cpu Skylake-Client-v1\n"
				  "--check --cpu NoSuchModel\n");
	free(text);
	assert_int_equal(access(out, F_OK), -1);
}

/* The file at dir/m.NAME, golden as sweep-NAME with dir masked. */
static void golden_file(const char *name)
{
	const char *const mask[] = {dir, "DIR", NULL};
	char path[PATH_MAX], gname[64], *text;

	snprintf(path, sizeof(path), "%s/m.%s", dir, name);
	text = tu_read_file(path);
	assert_non_null(text);
	snprintf(gname, sizeof(gname), "sweep-%s", name);
	tu_golden_mask(gname, text, mask);
	free(text);
}

/* cmd_sweep on argv exits want; its stdout (JSON) into dir/m.json. */
static void json_of(char **argv, int want)
{
	char path[PATH_MAX], *out;
	int ret;

	out = tu_run_fd(cmd_sweep, argv, 1, &ret);
	assert_int_equal(ret, want);
	snprintf(path, sizeof(path), "%s/m.json", dir);
	OK(tu_write_file(path, out));
	free(out);
}

/*
 * sweep --merge of dir, which exits 1 (not whole): its text, CSV, SVG and
 * JSON (pretty-printed) each golden, as sweep-PREtext, sweep-PREcsv,
 * sweep-PREsvg and sweep-PREpretty.
 */
static void merge_golden(const char *pre)
{
	char csv[PATH_MAX], svg[PATH_MAX], name[64], *out;
	char *argv[] = {"sweep", "--merge", dir, "--csv", csv, "--svg", svg, NULL};
	char *json[] = {"sweep", "--merge", dir, "--json", NULL};
	const char *const mask[] = {dir, "DIR", NULL};
	int ret;

	snprintf(csv, sizeof(csv), "%s/m.%scsv", dir, pre);
	snprintf(svg, sizeof(svg), "%s/m.%ssvg", dir, pre);
	out = tu_run_fd(cmd_sweep, argv, 1, &ret);
	assert_int_equal(ret, 1);
	snprintf(name, sizeof(name), "sweep-%stext", pre);
	tu_golden_mask(name, out, mask);
	free(out);
	snprintf(name, sizeof(name), "%scsv", pre);
	golden_file(name);
	snprintf(name, sizeof(name), "%ssvg", pre);
	golden_file(name);
	json_of(json, 1);
	OK(tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
		  " print(json.dumps(d, indent=1))' '%s/m.json' > '%s/m.%spretty'",
		  dir, dir, pre));
	snprintf(name, sizeof(name), "%spretty", pre);
	golden_file(name);
}

/*
 * Every row: slow's cells significant, null's not, failed's and missing's
 * reasons, oprc's fork cell saying how core-ops failed, garbage's job file
 * refused by line.  Not whole: exit 1.
 */
static void test_merge(void **unused)
{
	merge_golden("");
}

static const char timing_plan[] = "# a plan under --model timing\n"
				  "base: --set SLAB_FREELIST_RANDOM=n\n"
				  "hard: --set SLAB_FREELIST_RANDOM=y\n"
				  "mixed: --append init_on_free=1\n"
				  "cached: --append init_on_alloc=1\n"
				  "othercore: --append page_alloc.shuffle=1\n"
				  "filecore: --append slab_nomerge\n";

/*
 * The folder of a sweep under --model timing: base and hard recorded by the
 * timing model (the fixtures of tests/unit/model: hard's CR3 writes cost
 * twice the cycles, kfunc 1000 dcache cycles less), hard 10% slower;
 * mixed's job says timing but its recordings are of mode cache; cached's
 * job is of --model cache; othercore's recordings ran another core;
 * filecore's job gave --core a file and base none.
 */
static void timing_fixture(void)
{
	const struct spec base = {.build_id = "abcd",
				  .cmdline = "console=ttyS0 quiet",
				  .freelist = "n",
				  .scale = 1,
				  .table = FIX "table3-timing.txt"};
	const struct spec hard = {.build_id = "abcd",
				  .cmdline = "console=ttyS0 quiet",
				  .freelist = "y",
				  .scale = 1.1,
				  .table = FIX "table3-timing-hard.txt"};
	const struct spec mixed = {.build_id = "abcd",
				   .cmdline = "console=ttyS0 quiet init_on_free=1",
				   .freelist = "n",
				   .scale = 1,
				   .shift = 2,
				   .table = FIX "table2-hard.txt"};
	char why[256], path[PATH_MAX], table[PATH_MAX];
	struct spec other = base;
	struct sweep_plan p;

	snprintf(table, sizeof(table), "%s/other.txt", dir);
	OK(tu_run("sed 's/core=skylake-ish/core=zen-ish/' %s > '%s'", hard.table, table));
	other.table = table;
	other.cmdline = "console=ttyS0 quiet page_alloc.shuffle=1";
	OK(sweep_plan_parse("plan", timing_plan, strlen(timing_plan), &p, why, sizeof(why)));
	snprintf(path, sizeof(path), "%s/sweep.plan", dir);
	OK(tu_write_file(path, timing_plan));
	job_model(&p, "base", NULL, "timing", "");
	recorded("base", &base);
	job_model(&p, "hard", NULL, "timing", "");
	recorded("hard", &hard);
	job_model(&p, "mixed", NULL, "timing", "");
	recorded("mixed", &mixed);
	job_model(&p, "cached", NULL, "cache", "");
	job_model(&p, "othercore", NULL, "timing", "");
	recorded("othercore", &other);
	job_model(&p, "filecore", NULL, "timing", "/home/me/cores/mine.json");
	sweep_plan_free(&p);
}

/*
 * --model timing: est_cycles the timing model's cycles, labelled with its
 * core in the text, the CSV's est columns, the JSON (core, costs null) and
 * the SVG; hard's functions ranked by their change in cycles; a cell of a
 * cache recording against a timing one, a row of --model cache, one of
 * another --core and a cell of another core each refused in one line.
 */
static void test_merge_timing(void **unused)
{
	char saved[sizeof(dir)];

	memcpy(saved, dir, sizeof(dir));
	OK(tu_mkdtemp(dir, sizeof(dir), "kp-sweep-timing"));
	timing_fixture();
	merge_golden("timing-");
	if (!getenv("KEEP"))
		OK(tu_run("rm -rf '%s'", dir));
	memcpy(dir, saved, sizeof(dir));
}

/*
 * --core goes with --model timing alone; each job gets it, a file made
 * absolute (a job may run in another folder), a name as it is.
 */
static void test_dry_run_core(void **unused)
{
	char plan[PATH_MAX], out[PATH_MAX], cwd[PATH_MAX], want[3 * PATH_MAX], *text;
	char *argv[] = {"sweep",  "--dry-run",	  "--ops", "null", "--model", "timing",
			"--core", "my/core.json", "-o",	   out,	   plan,      NULL};
	char *bad[] = {"sweep",	  "--dry-run", "--model", "cache", "--core",
		       "skylake", "-o",	       out,	  plan,	   NULL};
	int ret;

	snprintf(plan, sizeof(plan), "%s/core.plan", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	OK(tu_run("mkdir -p '%s/k1' && touch '%s/k1/bzImage' '%s/k1/vmlinux' && printf 'base:"
		  " --kernel %s/k1\\nnull:\\n' > '%s'",
		  dir, dir, dir, dir, plan));
	text = tu_run_fd(cmd_sweep, argv, 1, &ret);
	assert_int_equal(ret, 0);
	snprintf(want, sizeof(want), " --ops null --model timing --core %s/my/core.json %s\n", cwd,
		 plan);
	assert_true(tu_ends_with(text, want));
	free(text);
	argv[7] = "skylake";
	text = tu_run_fd(cmd_sweep, argv, 1, &ret);
	snprintf(want, sizeof(want), " --model timing --core skylake %s\n", plan);
	assert_true(tu_ends_with(text, want));
	free(text);
	tu_expect(cmd_sweep, bad, 2, 2,
		  "kprotperf sweep: --core describes the timing model's core: it needs --model"
		  " timing (see kprotperf sweep --help)\n");
}

/*
 * A job without a job file whose scratch folder DIR/kprotperf-NAME.XXXXXX
 * is left (running, or killed by its engine) is "not finished", naming the
 * folder; folders of other names or lengths leave it "not run".
 */
static void test_merge_stopped(void **unused)
{
	char *json[] = {"sweep", "--merge", dir, "--json", NULL};
	static const char *const others[] = {"kprotperf-missingx.AbC123",
					     "kprotperf-missing.AbC1234", "kprotperf-null.AbC123"};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, others[i]);
		OK(mkdir(path, 0700));
	}
	json_of(json, 1);
	OK(tu_run(
		"python3 - '%s/m.json' '%s' <<'EOF'\n"
		"import json, sys\n"
		"r = next(r for r in json.load(open(sys.argv[1]))['rows'] if r['variant'] == 'missing')\n"
		"assert r['why'] == 'not run: no %%s/missing/job (kprotperf sweep --job missing ...)'"
		" %% sys.argv[2], r['why']\n"
		"EOF",
		dir, dir));
	snprintf(path, sizeof(path), "%s/kprotperf-missing.AbC123", dir);
	OK(mkdir(path, 0700));
	json_of(json, 1);
	OK(tu_run(
		"python3 - '%s/m.json' '%s' <<'EOF'\n"
		"import json, sys\n"
		"r = next(r for r in json.load(open(sys.argv[1]))['rows'] if r['variant'] == 'missing')\n"
		"assert r['why'] == ('not finished: no %%s/missing/job, and %%s/kprotperf-missing.AbC123 is"
		" its job\\'s scratch folder: a job running, or one stopped before its end (killed: a"
		" time limit, a cancel); remove it and run the job again (kprotperf sweep --job missing"
		" ...)' %% (sys.argv[2], sys.argv[2])), r['why']\n"
		"EOF",
		dir, dir));
	OK(tu_run("cd '%s' && rmdir kprotperf-missing.AbC123 kprotperf-missingx.AbC123"
		  " kprotperf-missing.AbC1234 kprotperf-null.AbC123 && rm m.json",
		  dir));
}

/*
 * A matrix of every cell: exit 0, and what the recordings make certain:
 * slow +10.00% on both operations, significant over the 4 cells; null no
 * change, not significant; both with a diff of the kernel that says so.
 */
static void test_merge_whole(void **unused)
{
	char saved[sizeof(dir)];
	char *argv[] = {"sweep", "--merge", dir, "--json", NULL};

	memcpy(saved, dir, sizeof(dir));
	OK(tu_mkdtemp(dir, sizeof(dir), "kp-sweep-whole"));
	fixture(true);
	json_of(argv, 0);
	OK(tu_run("python3 - '%s/m.json' <<'EOF'\n"
		  "import json, sys\n"
		  "d = json.load(open(sys.argv[1]))\n"
		  "rows = {r['variant']: r for r in d['rows']}\n"
		  "assert d['tests'] == 4 and d['operations'] == ['null', 'fork'], d\n"
		  "for c in rows['slow']['cells']:\n"
		  "    assert abs(c['change_pct'] - 10) < 1e-9 and c['significant'], c\n"
		  "    assert c['functions'][0]['name'] == 'clear_page_erms', c\n"
		  "for c in rows['null']['cells']:\n"
		  "    assert abs(c['change_pct']) < 1e-9 and not c['significant'], c\n"
		  "assert rows['slow']['differs'] == ['config SLAB_FREELIST_RANDOM: n -> y"
		  " (freelist_random)'], rows['slow']['differs']\n"
		  "assert rows['null']['differs'][0].startswith('nothing'), rows['null']\n"
		  "EOF",
		  dir));
	OK(tu_run("rm -rf '%s'", dir));
	memcpy(dir, saved, sizeof(dir));
}

/*
 * What differs on another CPU model: sky's recordings have another
 * cpu.model and meltdown status (each named), and the plan's --cpu;
 * csl2's recordings are base's (QEMU names Cascadelake-Server-v2 as v1),
 * so the plan's --cpu alone says it, not "nothing".
 */
static void test_merge_cpu(void **unused)
{
	static const char plan[] = "base: --set SLAB_FREELIST_RANDOM=n\n"
				   "sky: --cpu Skylake-Client-v1\n"
				   "csl2: --cpu Cascadelake-Server-v2\n";
	const struct spec base = {"aaaa",	   "console=ttyS0 quiet",	"n",	       1, 0,
				  {5, 6, 4, 5, 5}, "QEMU TCG CPU version 2.5+", "Not affected"};
	const struct spec sky = {"aaaa",
				 "console=ttyS0 quiet",
				 "n",
				 1.05,
				 0,
				 {5, 6, 4, 5, 5},
				 "Intel Core Processor (Skylake)",
				 "Mitigation: PTI"};
	char saved[sizeof(dir)], why[256], path[PATH_MAX];
	char *argv[] = {"sweep", "--merge", dir, "--json", NULL};
	struct sweep_plan p;

	memcpy(saved, dir, sizeof(dir));
	OK(tu_mkdtemp(dir, sizeof(dir), "kp-sweep-cpu"));
	OK(sweep_plan_parse("plan", plan, strlen(plan), &p, why, sizeof(why)));
	snprintf(path, sizeof(path), "%s/sweep.plan", dir);
	OK(tu_write_file(path, plan));
	job(&p, "base", NULL);
	recorded("base", &base);
	job(&p, "sky", NULL);
	recorded("sky", &sky);
	job(&p, "csl2", NULL);
	recorded("csl2", &base);
	sweep_plan_free(&p);
	json_of(argv, 0);
	OK(tu_run(
		"python3 - '%s/m.json' <<'EOF'\n"
		"import json, sys\n"
		"d = json.load(open(sys.argv[1]))\n"
		"rows = {r['variant']: r for r in d['rows']}\n"
		"assert rows['sky']['setup'] == 'kernel-build.sh --set SLAB_FREELIST_RANDOM=n;"
		" cpu Skylake-Client-v1', rows['sky']\n"
		"assert rows['sky']['differs'] == ['cpu model: QEMU TCG CPU version 2.5+ -> Intel"
		" Core Processor (Skylake)', 'vulnerability meltdown: Not affected -> Mitigation:"
		" PTI', \"cpu --cpu: (not set) -> Skylake-Client-v1 (the plan's)\"],"
		" rows['sky']['differs']\n"
		"assert rows['csl2']['differs'] == [\"cpu --cpu: (not set) -> Cascadelake-Server-v2"
		" (the plan's)\"], rows['csl2']['differs']\n"
		"EOF",
		dir));
	OK(tu_run("rm -rf '%s'", dir));
	memcpy(dir, saved, sizeof(dir));
}

/*
 * A job's vm-run.sh command carries the variant's --cpu (base's when it
 * gives none), and its job file's setup line says it: a stand-in for
 * vm-run.sh (KP_VM_RUN) logs its options up to "--", --out's scratch
 * folder left out, and succeeds.
 */
static void test_job_cpu(void **unused)
{
	static const char plan[] = "base: --kernel linux-image-amd64 --cpu EPYC-Rome-v1\n"
				   "sky: --cpu Skylake-Client-v1\n";
	char planf[PATH_MAX], out[PATH_MAX], fake[PATH_MAX], path[PATH_MAX], *text;
	char *argv[] = {"sweep", "--job", "sky", "-r",	"2", "--ops",
			"null",	 "-o",	  out,	 planf, NULL};
	char *base[] = {"sweep", "--job", "base", "-r",	 "2", "--ops",
			"null",	 "-o",	  out,	  planf, NULL};

	snprintf(planf, sizeof(planf), "%s/cpu.plan", dir);
	snprintf(out, sizeof(out), "%s/cpu-out", dir);
	snprintf(fake, sizeof(fake), "%s/fake-vm-run.sh", dir);
	OK(tu_write_file(planf, plan));
	assert_true(
		asprintf(
			&text,
			"#!/bin/sh\nwhile [ $# -gt 0 ] && [ \"$1\" != -- ]; do\n"
			"\t[ \"$1\" = --out ] && shift 2 && continue\n"
			"\tprintf '%%s ' \"$1\"; shift\ndone >>'%s/vm-args'\necho >>'%s/vm-args'\n",
			dir, dir) > 0);
	OK(tu_write_file(fake, text));
	free(text);
	OK(chmod(fake, 0700));
	setenv("KP_VM_RUN", fake, 1);
	tu_expect(cmd_sweep, argv, 1, 0, "");
	tu_expect(cmd_sweep, base, 1, 0, "");
	unsetenv("KP_VM_RUN");
	snprintf(path, sizeof(path), "%s/vm-args", dir);
	text = tu_read_file(path);
	assert_non_null(text);
	assert_string_equal(text,
			    "--check-host \n"
			    "--kernel linux-image-amd64 --timeout 360 --cpu Skylake-Client-v1 \n"
			    "--check-host \n"
			    "--kernel linux-image-amd64 --timeout 360 --cpu EPYC-Rome-v1 \n");
	free(text);
	OK(tu_run("grep -qx 'setup=kernel linux-image-amd64; cpu Skylake-Client-v1' '%s/sky/job'",
		  out));
}

/*
 * A job its engine stops (SIGTERM in its boot) stops its script and leaves
 * its folder, a job file saying so, no scratch folder, one line on stderr:
 * a stand-in vm-run.sh signals the job, then sleeps until stopped in turn.
 */
static void test_job_stopped(void **unused)
{
	static const char plan[] = "base: --kernel linux-image-amd64\nnull:\n";
	static const char want[] =
		"killed: SIGTERM in its boot (its engine stopped it: a time limit,"
		" a cancel, Ctrl-C): run its job again";
	char planf[PATH_MAX], out[PATH_MAX], fake[PATH_MAX], err[PATH_MAX], *text;
	char *argv[] = {"sweep", "--job", "null", "-r",	 "2", "--ops",
			"null",	 "-o",	  out,	  planf, NULL};
	time_t t0 = time(NULL);
	int status, fd;
	pid_t pid;

	snprintf(planf, sizeof(planf), "%s/stop.plan", dir);
	snprintf(out, sizeof(out), "%s/stop-out", dir);
	snprintf(fake, sizeof(fake), "%s/stop-vm-run.sh", dir);
	snprintf(err, sizeof(err), "%s/stop.err", dir);
	OK(tu_write_file(planf, plan));
	OK(tu_write_file(fake, "#!/bin/sh\n[ \"$1\" = --check-host ] && exit 0\n"
			       "kill -TERM $PPID\nexec sleep 10\n"));
	OK(chmod(fake, 0700));
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		setenv("KP_VM_RUN", fake, 1);
		_exit(cmd_sweep(10, argv));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	assert_true(time(NULL) - t0 < 8);
	OK(tu_run("grep -qxF 'reason=%s' '%s/null/job' && grep -qx status=failed '%s/null/job'",
		  want, out, out));
	OK(tu_run("! ls '%s' | grep -q '^kprotperf-'", out));
	text = tu_read_file(err);
	assert_non_null(text);
	assert_non_null(strstr(text, want));
	assert_null(strstr(text, "the guest's script"));
	free(text);
}

static int setup(void **state)
{
	if (tu_mkdtemp(dir, sizeof(dir), "kp-sweep"))
		return -1;
	fixture(false);
	return 0;
}

static int teardown(void **state)
{
	if (!getenv("KEEP"))
		tu_run("rm -rf '%s'", dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_refusals), cmocka_unit_test(test_setups),
		cmocka_unit_test(test_setup_cpu),     cmocka_unit_test(test_dry_run),
		cmocka_unit_test(test_dry_run_cpu),   cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_whole),   cmocka_unit_test(test_merge_cpu),
		cmocka_unit_test(test_merge_stopped), cmocka_unit_test(test_job_stopped),
		cmocka_unit_test(test_job_cpu),	      cmocka_unit_test(test_merge_timing),
		cmocka_unit_test(test_dry_run_core),
	};

	if (argc == 3 && !strcmp(argv[1], "--fixture")) {
		snprintf(dir, sizeof(dir), "%s", argv[2]);
		if (mkdir(dir, 0700)) {
			fprintf(stderr, "test_sweep --fixture: cannot make %s: %s\n", dir,
				strerror(errno));
			return 1;
		}
		fixture(false);
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --count and -e's event names (record/pmu_events.h): every family
 * (generic hardware, cache, software, aliases, a PMU's terms placed by its
 * format files, its events/ folder, a bare cpu event), the closest name of
 * an unknown one, and the refusals, on a sysfs folder made here
 * (KP_SYSFS_EVENT_SOURCE), compared whole against goldens.
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
#include <linux/perf_event.h>

#include "record/pmu_events.h"
#include "testutil.h"

struct fixture {
	char dir[64];
};

/* A machine's PMUs: cpu as an Intel core's (a subset), msr, and a folder without cpu. */
static const char *const files[][2] = {
	{"with/cpu/type", "4\n"},
	{"with/cpu/format/event", "config:0-7\n"},
	{"with/cpu/format/umask", "config:8-15\n"},
	{"with/cpu/format/edge", "config:18\n"},
	{"with/cpu/format/inv", "config:23\n"},
	{"with/cpu/format/cmask", "config:24-31\n"},
	{"with/cpu/format/ldlat", "config1:0-15\n"},
	{"with/cpu/format/split", "config2:0-3,8-11\n"},
	{"with/cpu/format/broken", "config3:0-7\n"},
	{"with/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n"},
	{"with/cpu/events/topdown-slots", "event=0x00,umask=0x4\n"},
	{"with/cpu/events/nested", "topdown-slots\n"},
	{"with/msr/type", "9\n"},
	{"with/msr/format/event", "config:0-63\n"},
	{"with/msr/events/tsc", "event=0x00\n"},
	{"without/msr/type", "9\n"},
	{"without/msr/format/event", "config:0-63\n"},
	{"without/msr/events/tsc", "event=0x00\n"},
	{"without/software/type", "1\n"},
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char path[256];
	size_t i;

	assert_int_equal(tu_mkdtemp(fx->dir, sizeof(fx->dir), "pmu"), 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fx->dir, files[i][0]);
		assert_int_equal(tu_run("mkdir -p $(dirname %s)", path), 0);
		assert_int_equal(tu_write_file(path, files[i][1]), 0);
	}
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(tu_run("rm -rf %s", fx->dir), 0);
	free(fx);
	return 0;
}

static void use(const struct fixture *fx, const char *which)
{
	char root[128];

	snprintf(root, sizeof(root), "%s/%s", fx->dir, which);
	setenv("KP_SYSFS_EVENT_SOURCE", root, 1);
}

/* s with the fixture's folder written ROOT */
static void mask_root(const struct fixture *fx, char *s)
{
	size_t n = strlen(fx->dir);
	char *at;

	while ((at = strstr(s, fx->dir))) {
		memcpy(at, "ROOT", 4);
		memmove(at + 4, at + n, strlen(at + n) + 1);
	}
}

/* Each name parsed: its event, or its one line; the fixture's folder as ROOT. */
static void parse_all(const struct fixture *fx, const char *const *names, FILE *out)
{
	char why[1024];
	struct pmu_event ev;
	int err;

	for (; *names; names++) {
		err = pmu_event_parse(*names, "--count", &ev, why, sizeof(why));
		if (err) {
			mask_root(fx, why);
			fprintf(out, "%-28s %d %s\n", *names, err, why);
			continue;
		}
		fprintf(out, "%-28s %s type %u config 0x%llx config1 0x%llx config2 0x%llx%s\n",
			*names, ev.name, ev.type, (unsigned long long)ev.config,
			(unsigned long long)ev.config1, (unsigned long long)ev.config2,
			ev.needs_cpu_pmu ? " cpu-pmu" : "");
	}
}

static const char *const names[] = {
	/* generic hardware, aliases normalised */
	"cycles", "cpu-cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-instructions", "branch-misses", "bus-cycles", "ref-cycles",
	"stalled-cycles-frontend", "stalled-cycles-backend",
	/* cache */
	"L1-dcache-loads", "L1-dcache-load-misses", "L1-dcache-stores", "L1-icache-load-misses",
	"LLC-loads", "LLC-load-misses", "LLC-stores", "LLC-store-misses", "dTLB-loads",
	"dTLB-load-misses", "dTLB-stores", "dTLB-store-misses", "iTLB-loads", "iTLB-load-misses",
	"branch-loads", "branch-load-misses", "node-prefetch-misses",
	/* software */
	"cpu-clock", "task-clock", "page-faults", "faults", "context-switches", "cs",
	"cpu-migrations", "migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults",
	/* sysfs */
	"cpu/event=0x3c,umask=0x0/", "cpu/event=0xc0,umask=1,inv,cmask=2/", "cpu/edge,event=9/",
	"cpu/mem-loads/", "cpu/mem-loads,umask=2/", "mem-loads", "topdown-slots", "cpu/split=0xab/",
	"cpu/config=0x1234,config1=5,config2=6/", "msr/tsc/", "msr/event=4/",
	/* unknown and bad */
	"cyles", "L1-dcache-lods", "contextswitches", "mem-lods", "", "cpu/event=0x100/",
	"cpu/evnt=1/", "cpu/event=zz/", "cpu/event=-1/", "cpu/event=1", "cpu//", "cpu/broken=1/",
	"cpu/nested/", "cpu/../", "nopmu/event=1/", "../cpu/event=1/", "cpu/./", NULL};

/* With a cpu PMU: every family, and every bad name's line. */
static void test_parse_with_pmu(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	use(*state, "with");
	parse_all(*state, names, out);
	fclose(out);
	tu_golden("pmu-events-with", buf);
	free(buf);
}

/* Without one: the built-in names parse all the same; cpu/.../ is refused at once. */
static void test_parse_without_pmu(void **state)
{
	static const char *const some[] = {"cycles",	   "LLC-load-misses", "cs",
					   "mem-loads",	   "cpu/event=1/",    "msr/tsc/",
					   "msr/event=1/", "cyles",	      NULL};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	use(*state, "without");
	parse_all(*state, some, out);
	fclose(out);
	tu_golden("pmu-events-without", buf);
	free(buf);
}

/* Lists: commas inside PMU/.../ stay the PMU's; at most max events. */
static void test_lists(void **state)
{
	struct pmu_event evs[8];
	unsigned int n = 0;
	char why[512];

	use(*state, "with");
	assert_int_equal(pmu_event_list("cs,cpu/event=1,umask=2/,task-clock", "--count", evs, &n, 8,
					why, sizeof(why)),
			 0);
	assert_int_equal(n, 3);
	assert_string_equal(evs[0].name, "context-switches");
	assert_string_equal(evs[1].name, "cpu/event=1,umask=2/");
	assert_int_equal(evs[1].config, 0x201);
	assert_string_equal(evs[2].name, "task-clock");
	assert_int_equal(
		pmu_event_list("cycles,instructions", "--count", evs, &n, 4, why, sizeof(why)),
		-EINVAL);
	assert_string_equal(why, "--count cycles,instructions: more than 4 events in all");
	n = 0;
	assert_int_equal(pmu_event_list("cs,,task-clock", "--count", evs, &n, 8, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "--count '': an event's name has 1 to 256 characters");
}

/* The refusals, each one line: no PMU, not supported, paranoid, other errors. */
static void test_refusals(void **state)
{
	struct fixture *fx = *state;
	struct pmu_event ev;
	char why[1024], want[1024];

	use(fx, "without");
	assert_int_equal(pmu_event_parse("cycles", "--count", &ev, why, sizeof(why)), 0);
	assert_int_equal(pmu_event_probe(&ev, "--count", why, sizeof(why)), -ENODEV);
	snprintf(want, sizeof(want),
		 "--count cycles: no hardware PMU here (%s/without/cpu is missing: a VM without a"
		 " virtual PMU?); software events work: cpu-clock, task-clock, page-faults,"
		 " context-switches, cpu-migrations",
		 fx->dir);
	assert_string_equal(why, want);
	assert_int_equal(pmu_event_parse("cs", "-e", &ev, why, sizeof(why)), 0);
	assert_false(pmu_event_no_pmu(&ev, "-e", why, sizeof(why)));
	use(fx, "with");
	assert_int_equal(pmu_event_parse("LLC-load-misses", "-e", &ev, why, sizeof(why)), 0);
	assert_false(pmu_event_no_pmu(&ev, "-e", why, sizeof(why)));
	pmu_event_refusal(&ev, "-e", -ENOENT, 2, why, sizeof(why));
	assert_string_equal(why, "-e LLC-load-misses: not supported by this CPU (perf_event_open:"
				 " No such file or directory)");
	pmu_event_refusal(&ev, "-e", -EOPNOTSUPP, 2, why, sizeof(why));
	assert_string_equal(why, "-e LLC-load-misses: not supported by this CPU (perf_event_open:"
				 " Operation not supported)");
	pmu_event_refusal(&ev, "-e", -EACCES, 3, why, sizeof(why));
	assert_string_equal(why, "-e LLC-load-misses: not permitted (perf_event_open: Permission"
				 " denied): perf_event_paranoid is 3");
	pmu_event_refusal(&ev, "-e", -EPERM, -2, why, sizeof(why));
	assert_string_equal(why, "-e LLC-load-misses: perf_event_open: Operation not permitted");
	pmu_event_refusal(&ev, "-e", -EMFILE, 2, why, sizeof(why));
	assert_string_equal(why, "-e LLC-load-misses: perf_event_open: Too many open files");
}

/* The attr a counter is opened with: its type and configs, with enabled and running times. */
static void test_attr(void **state)
{
	struct perf_event_attr attr;
	struct pmu_event ev;
	char why[512];

	use(*state, "with");
	assert_int_equal(pmu_event_parse("cpu/mem-loads/", "--count", &ev, why, sizeof(why)), 0);
	pmu_event_attr(&ev, &attr);
	assert_int_equal(attr.type, 4);
	assert_int_equal(attr.config, 0x1cd);
	assert_int_equal(attr.config1, 3);
	assert_int_equal(attr.size, sizeof(attr));
	assert_int_equal(attr.read_format,
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parse_with_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_without_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attr, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

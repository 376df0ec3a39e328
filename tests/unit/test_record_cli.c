// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "record/record.h"

/* static: o->argv points into a_, after the statement expression ends too */
#define PARSE(o, ...)                                              \
	({                                                         \
		static char *a_[] = {"record", __VA_ARGS__, NULL}; \
		int n_ = 0;                                        \
		while (a_[n_])                                     \
			n_++;                                      \
		record_parse(n_, a_, o);                           \
	})

static void test_defaults_and_command(void **state)
{
	struct record_opts o;

	assert_int_equal(PARSE(&o, "--", "./big-fork", "-x", "7"), 0);
	assert_string_equal(o.output, "kprotperf.data");
	assert_int_equal(o.freq, 99);
	assert_int_equal(o.max_stacks, 16384);
	assert_int_equal(o.max_tasks, 8192);
	assert_false(o.system_wide);
	assert_false(o.quiet);
	assert_int_equal(o.pid, 0);
	assert_string_equal(o.argv[0], "./big-fork");
	assert_string_equal(o.argv[1], "-x");
	assert_string_equal(o.argv[2], "7");
	assert_null(o.argv[3]);
}

static void test_options_stop_at_command(void **state)
{
	struct record_opts o;

	/* options after CMD belong to CMD, as with perf record and env */
	assert_int_equal(PARSE(&o, "-q", "-F", "999", "./cmd", "-o", "x"), 0);
	assert_true(o.quiet);
	assert_int_equal(o.freq, 999);
	assert_string_equal(o.output, "kprotperf.data");
	assert_string_equal(o.argv[1], "-o");
}

static void test_modes(void **state)
{
	struct record_opts o;

	assert_int_equal(PARSE(&o, "-p", "1234", "-o", "p.data"), 0);
	assert_int_equal(o.pid, 1234);
	assert_null(o.argv);
	assert_string_equal(o.output, "p.data");
	assert_int_equal(PARSE(&o, "--all-cpus", "--duration", "2.5", "--max-stacks", "100000"), 0);
	assert_true(o.system_wide);
	assert_true(o.duration > 2.49 && o.duration < 2.51);
	assert_int_equal(o.max_stacks, 100000);
	assert_int_equal(PARSE(&o, "-a", "--", "sleep", "1"), 0);
	assert_true(o.system_wide);
	assert_string_equal(o.argv[0], "sleep");
	assert_int_equal(PARSE(&o, "--help"), 1);
}

/* --count appends (aliases normalised), -e and -c set the sampling; the defaults without */
static void test_events(void **state)
{
	struct record_opts o;

	assert_int_equal(PARSE(&o, "true"), 0);
	assert_string_equal(o.sample_event.name, "cpu-clock");
	assert_int_equal(o.period, 0);
	assert_int_equal(o.ncount, 0);
	assert_int_equal(PARSE(&o, "--count", "cs,task-clock", "--count", "faults", "-e",
			       "page-faults", "-c", "1", "--", "true"),
			 0);
	assert_int_equal(o.ncount, 3);
	assert_string_equal(o.count[0].name, "context-switches");
	assert_string_equal(o.count[1].name, "task-clock");
	assert_string_equal(o.count[2].name, "page-faults");
	assert_string_equal(o.sample_event.name, "page-faults");
	assert_int_equal(o.period, 1);
	assert_false(o.freq_set);
	assert_int_equal(PARSE(&o, "-e", "cs", "-F", "49", "true"), 0);
	assert_int_equal(o.period, 0);
	assert_int_equal(o.freq, 49);
	assert_int_equal(PARSE(&o, "-c", "5", "-F", "49", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-c", "1099511627777", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--count", "nosuch", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-e", "cs,cs", "true"), -EINVAL);
}

static void test_rejects(void **state)
{
	struct record_opts o;

	assert_int_equal(PARSE(&o, "-F", "0", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-F", "abc", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-F", "100001", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-d", "-1", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-d", "0", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-p", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, "-p", "12x"), -EINVAL);
	assert_int_equal(PARSE(&o, "-p", "1", "--", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-p", "1", "-a"), -EINVAL);
	assert_int_equal(PARSE(&o, "-q"), -EINVAL);
	assert_int_equal(PARSE(&o, "--bogus", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-o"), -EINVAL);
	assert_int_equal(PARSE(&o, "--max-tasks", "10", "true"), -EINVAL);
}

/* the options with no short letter come from the table's keys past OPTIONS_LONG_ONLY */
static void test_long_only(void **state)
{
	struct record_opts o;

	assert_int_equal(PARSE(&o, "--func", "vfs_*", "--func=do_sys_open", "--probe", "kprobe",
			       "--func-stacks", "--vmlinux", "/v", "--max-tasks", "64", "true"),
			 0);
	assert_int_equal(o.func.n, 2);
	assert_string_equal(o.func.patterns[0], "vfs_*");
	assert_string_equal(o.func.patterns[1], "do_sys_open");
	assert_int_equal(o.func.mode, PROBE_KPROBE);
	assert_true(o.func.stacks);
	assert_string_equal(o.func.vmlinux, "/v");
	assert_int_equal(o.max_tasks, 64);
	assert_int_equal(PARSE(&o, "--probe", "nosuch", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--func"), -EINVAL);
}

/* --call-graph as perf spells it; the ring's default follows it */
static void test_call_graph_and_ring(void **state)
{
	struct record_opts o;

	assert_int_equal(PARSE(&o, "true"), 0);
	assert_int_equal(o.dwarf_size, 0);
	assert_int_equal(o.ring_mib, 8);
	assert_int_equal(PARSE(&o, "--call-graph", "dwarf", "true"), 0);
	assert_int_equal(o.dwarf_size, 8192);
	assert_int_equal(o.ring_mib, 64);
	assert_int_equal(PARSE(&o, "--call-graph=dwarf,16384", "--ring-size", "256", "true"), 0);
	assert_int_equal(o.dwarf_size, 16384);
	assert_int_equal(o.ring_mib, 256);
	assert_int_equal(PARSE(&o, "--call-graph", "dwarf", "--call-graph", "fp", "true"), 0);
	assert_int_equal(o.dwarf_size, 0);
	assert_int_equal(o.ring_mib, 8);
	assert_int_equal(PARSE(&o, "--call-graph", "lbr", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--call-graph", "dwarf,", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--call-graph", "dwarf,12", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--call-graph", "dwarf,65536", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--call-graph", "dwarfx", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--ring-size", "3", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--ring-size", "4096", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "--ring-size", "0", "true"), -EINVAL);
}

static void test_repeat(void **state)
{
	struct record_opts o;

	assert_int_equal(PARSE(&o, "--", "true"), 0);
	assert_int_equal(o.repeat, 1);
	assert_int_equal(PARSE(&o, "-r", "3", "--", "./syscall-loop", "1000"), 0);
	assert_int_equal(o.repeat, 3);
	assert_string_equal(o.argv[0], "./syscall-loop");
	assert_int_equal(PARSE(&o, "--repeat=5", "-a", "true"), 0);
	assert_int_equal(o.repeat, 5);
	assert_int_equal(PARSE(&o, "-r", "1", "-d", "2", "true"), 0);
	assert_int_equal(PARSE(&o, "-r", "0", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-r", "x", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-r", "2.5", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-r", "100001", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "-r"), -EINVAL);
	/* a running process or the system cannot be started again */
	assert_int_equal(PARSE(&o, "-r", "3", "-p", "1234"), -EINVAL);
	assert_int_equal(PARSE(&o, "-r", "1", "-p", "1234"), -EINVAL);
	assert_int_equal(PARSE(&o, "-r", "3", "-a"), -EINVAL);
	assert_int_equal(PARSE(&o, "-r", "3", "-d", "2", "true"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_command),
		cmocka_unit_test(test_options_stop_at_command),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_long_only),
		cmocka_unit_test(test_call_graph_and_ring),
		cmocka_unit_test(test_repeat),
	};

	/* the rejected cases print their one-line errors: keep them off the test log */
	freopen("/dev/null", "w", stderr);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

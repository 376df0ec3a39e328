// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorded command's launcher, and how one that never reached its exec
 * is told.  Killed while it waits to be let go, kprotperf sees only the go
 * pipe closed (EPIPE), which says that it died, not of what: its wait status
 * says that.  record once told such a death without the signal, and the
 * asan tier's t_exec_counts.sh failed when its kill landed that early.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "record/workload.h"

static void test_end_how(void **state)
{
	char how[64];

	workload_end_how(W_EXITCODE(0, SIGKILL), how, sizeof(how));
	assert_string_equal(how, "was killed by signal 9");
	workload_end_how(W_EXITCODE(0, SIGTERM), how, sizeof(how));
	assert_string_equal(how, "was killed by signal 15");
	/* the launcher's own exit, when it cannot go on to exec */
	workload_end_how(W_EXITCODE(127, 0), how, sizeof(how));
	assert_string_equal(how, "exited with status 127");
}

static void start(struct workload *w, const char *cmd)
{
	char *const argv[] = {(char *)cmd, NULL};
	sigset_t none;

	*w = (struct workload){.pid = -1, .go_fd = -1, .err_fd = -1};
	sigemptyset(&none);
	assert_int_equal(workload_start(w, argv, &none), 0);
	assert_true(w->pid > 0);
	assert_false(workload_released(w));
}

/* How the child ended, reaped. */
static int reap(struct workload *w)
{
	int status;

	assert_int_equal(waitpid(w->pid, &status, 0), w->pid);
	w->pid = -1;
	return status;
}

/*
 * Killed before its release, deterministically: dead (not reaped) before the
 * go byte is written, so the write meets its closed end.  EPIPE, and the
 * signal is in the status it is reaped with.
 */
static void test_killed_before_release(void **state)
{
	struct workload w;
	siginfo_t info;
	char how[64];

	start(&w, "true");
	assert_int_equal(kill(w.pid, SIGKILL), 0);
	assert_int_equal(waitid(P_PID, w.pid, &info, WEXITED | WNOWAIT), 0);
	assert_int_equal(workload_go(&w), -EPIPE);
	assert_false(workload_released(&w));
	workload_end_how(reap(&w), how, sizeof(how));
	assert_string_equal(how, "was killed by signal 9");
	workload_close(&w);
}

/* Let go, it execs: workload_go says nothing, and the command's own status follows. */
static void test_released(void **state)
{
	struct workload w;
	int status;

	start(&w, "true");
	assert_int_equal(workload_go(&w), 0);
	assert_true(workload_released(&w));
	status = reap(&w);
	assert_true(WIFEXITED(status));
	assert_int_equal(workload_exit_code(status), 0);
	workload_close(&w);
}

/* Its exec failed: the errno, the launcher reaped already. */
static void test_exec_failed(void **state)
{
	struct workload w;

	start(&w, "/nonexistent/kprotperf-test");
	assert_int_equal(workload_go(&w), -ENOENT);
	assert_int_equal(w.pid, -1);
	workload_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_how),
		cmocka_unit_test(test_killed_before_release),
		cmocka_unit_test(test_released),
		cmocka_unit_test(test_exec_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf help: a command's man page, like perf help; and, for the build,
 * shell completion and the documentation's check, the man pages' source, the
 * lists of commands and options and a command line parsed without running
 * it, all from the same tables as --help.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/manpage.h"
#include "cmd/options.h"
#include "util/safeio.h"

extern char **environ;

/* where make writes the man pages, relative to the folder of the binary it builds */
#define BUILD_MAN_DIR "build/man"

enum { O_LIST_CMDS = OPTIONS_LONG_ONLY, O_LIST_OPTS, O_SCDOC, O_PARSE };

enum help_mode { H_MAN, H_LIST_CMDS, H_LIST_OPTS, H_SCDOC };

static const struct options_entry entries[] = {
	{O_SCDOC, "scdoc", NULL,
	 "print COMMAND's man page (none: kprotperf(1)) in scdoc's\n"
	 "source format, which make turns into roff with scdoc(1)"},
	{O_LIST_CMDS, "list-cmds", NULL, "print the commands' names, one a line"},
	{O_LIST_OPTS, "list-opts", NULL,
	 "print COMMAND's options, one a line: its spellings, then\n"
	 "the name of its argument if it takes one (for completion)"},
	{O_PARSE, "parse", NULL,
	 "as the first argument, COMMAND and its arguments after it:\n"
	 "parse them with COMMAND's options and run nothing (how\n"
	 "tests/unit/t_docs.sh checks the documentation's commands)"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf help record", "record's man page, kprotperf-record(1)"},
	{"kprotperf help --list-opts diff", "diff's options, for a completion script"},
	{"kprotperf help --parse record -F 999 -- ./big-fork 100",
	 "whether record takes these options, without recording"},
	{},
};

const struct options_cmd help_options = {
	.name = "help",
	.head = "Usage: kprotperf help [COMMAND]\n"
		"       kprotperf help --scdoc|--list-opts [COMMAND]\n"
		"       kprotperf help --list-cmds\n"
		"       kprotperf help --parse COMMAND [ARGS...]\n"
		"Open COMMAND's man page, kprotperf-COMMAND(1), with man(1) (no COMMAND:\n"
		"kprotperf(1)). An installed kprotperf, PREFIX/bin/kprotperf, looks in the\n"
		"man pages installed with it first: PREFIX/share/man. With none installed,\n"
		"it shows the page make built beside the binary, build/man/PAGE.1 (man -l;\n"
		"said on stderr), read through no symbolic link and only if no user but\n"
		"root and the binary's owner could have changed it.\n",
	.status = "man's: 0 when it showed the page, 16 when there is no such page,\n"
		  "installed or built (said in one line), 1 when man cannot run; 2 for a\n"
		  "usage error, with --parse also COMMAND's (said as COMMAND says it),\n"
		  "else 0.\n",
	.column = 19,
	.examples = examples,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	enum help_mode *mode = ctx;

	if (key == O_PARSE) {
		fputs("kprotperf help: --parse comes first: kprotperf help --parse COMMAND "
		      "[ARGS...]\n",
		      stderr);
		return -EINVAL;
	}
	*mode = key == O_SCDOC ? H_SCDOC : key == O_LIST_CMDS ? H_LIST_CMDS : H_LIST_OPTS;
	return 0;
}

/* Each option of c: "-o --output FILE", "--quiet". */
static void list_opts(const struct command *c)
{
	const struct options_entry *e = NULL;

	while ((e = options_next(c->opts, e))) {
		if (e->key < OPTIONS_LONG_ONLY)
			printf("-%c ", e->key);
		printf("--%s%s%s\n", e->name, e->arg ? " " : "", e->arg ?: "");
	}
}

/* MANPATH with the man pages installed beside this binary first, when there are some. */
static int prefix_manpath(void)
{
	char dir[4096], *path;
	const char *old = getenv("MANPATH");
	int err;

	if (!cli_prefix_path("share/man", dir, sizeof(dir)))
		return 0;
	/* a trailing colon: man adds its configured path there */
	if (asprintf(&path, "%s:%s", dir, old ?: "") < 0)
		return -ENOMEM;
	err = setenv("MANPATH", path, 1) ? -errno : 0;
	free(path);
	return err;
}

/*
 * man's exit status (ARGS after "man"), with in (>= 0) as its input, its
 * output to /dev/null when quiet; -errno when it cannot run.
 */
static int man(char *const args[], int in, bool quiet)
{
	char *argv[4] = {"man"};
	posix_spawn_file_actions_t fa;
	int err, status, i;
	pid_t pid;

	for (i = 0; args[i] && i < 2; i++)
		argv[i + 1] = args[i];
	err = posix_spawn_file_actions_init(&fa);
	if (!err && in >= 0)
		err = posix_spawn_file_actions_adddup2(&fa, in, 0);
	if (!err && quiet)
		err = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0)
			      ?: posix_spawn_file_actions_adddup2(&fa, 1, 2);
	err = err ?: posix_spawnp(&pid, "man", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return -err;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * The man page called page that make built beside this binary, in
 * BUILD_MAN_DIR, opened: fd (its path into path), or -errno, and why when
 * it is there but refused.  The current folder plays no part: kprotperf
 * runs as root, often from folders others can write.
 */
static int build_tree_page(const char *page, char *path, size_t plen, char *why, size_t wlen)
{
	char exe[PATH_MAX], rel[128];
	const char *dir;
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd;

	*why = '\0';
	snprintf(rel, sizeof(rel), "%s/%s.1", BUILD_MAN_DIR, page);
	snprintf(path, plen, "%s", rel);
	if (n <= 0 || stat("/proc/self/exe", &st))
		return -ENOENT;
	exe[n] = '\0';
	dir = dirname(exe);
	snprintf(path, plen, "%s/%s", dir, rel);
	/* the binary's owner, who could change what runs, may own its build tree too */
	fd = safeio_open_beneath(dir, rel, st.st_uid, why, wlen);
	if (fd < 0 && fd != -ENOENT && !*why)
		snprintf(why, wlen, "%s: %s", path, strerror(-fd));
	return fd;
}

/*
 * No page installed: the build tree's, said on stderr, then shown by man -l
 * from the file opened (on its input: no name is looked up again); man's
 * exit status.  None: 16 after one line naming the way out.
 */
static int build_tree_man(const char *page, const char *cmd)
{
	char path[PATH_MAX + 160], why[PATH_MAX + 320];
	int fd = build_tree_page(page, path, sizeof(path), why, sizeof(why)), ret;

	if (fd == -ENOENT) {
		fprintf(stderr,
			"kprotperf help: no man page %s installed, nor %s: make man builds it there "
			"(make install installs the pages); %s --help has the same options\n",
			page, path, cmd);
		return 16;
	}
	if (fd < 0) {
		fprintf(stderr,
			"kprotperf help: no man page %s installed, and the build tree's is not "
			"read: %s: make install installs the pages; %s --help has the same "
			"options\n",
			page, why, cmd);
		return 16;
	}
	fprintf(stderr, "kprotperf help: showing the build tree's page %s (not installed)\n", path);
	ret = man((char *[]){"-l", "-", NULL}, fd, false);
	close(fd);
	return ret;
}

/*
 * man PAGE: man's exit status.  Whether there is such a page is asked
 * first (man -w, silenced): an installed one is shown, else the build
 * tree's.
 */
static int open_page(char *page, const char *cmd)
{
	int ret = prefix_manpath();

	ret = ret ?: man((char *[]){"-w", page, NULL}, -1, true);
	if (ret == 16)
		ret = build_tree_man(page, cmd);
	else
		ret = ret ?: man((char *[]){page, NULL}, -1, false);
	if (ret < 0) {
		fprintf(stderr,
			"kprotperf help: cannot run man: %s: install man-db, or see %s --help\n",
			strerror(-ret), cmd);
		return 1;
	}
	return ret;
}

/* The command of cmds called name, or NULL after saying there is none. */
static const struct command *find_command(const char *name, const struct command *cmds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	fprintf(stderr, "kprotperf help: no command '%s' (commands:", name);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", cmds[i].name);
	fputs(")\n", stderr);
	return NULL;
}

/* The command of cmds named by the operand, if any, into *c; -EINVAL (said) for an unknown one. */
static int operand(int argc, char **argv, const struct command *cmds, size_t n,
		   const struct command **c)
{
	*c = NULL;
	if (optind == argc)
		return 0;
	if (optind + 1 < argc) {
		fprintf(stderr,
			"kprotperf help: unexpected argument '%s' (see kprotperf help --help)\n",
			argv[optind + 1]);
		return -EINVAL;
	}
	*c = find_command(argv[optind], cmds, n);
	return *c ? 0 : -EINVAL;
}

static int ignore_opt(void *ctx, int key, const char *arg)
{
	return 0;
}

/*
 * help --parse COMMAND [ARGS...]: ARGS through COMMAND's option table
 * alone, as the command would parse them (record's stop at CMD), none
 * acted on: an unknown option or one missing its argument is the usage
 * error the command prints, exit status 2; --help prints its text, 0.
 */
static int parse_only(int argc, char **argv, const struct command *cmds, size_t n)
{
	const struct command *c;

	if (argc < 3) {
		fputs("kprotperf help: --parse needs a COMMAND (see kprotperf help --help)\n",
		      stderr);
		return 2;
	}
	c = find_command(argv[2], cmds, n);
	if (!c)
		return 2;
	return options_parse(c->opts, argc - 2, argv + 2, ignore_opt, NULL) < 0 ? 2 : 0;
}

int cmd_help(int argc, char **argv, const struct command *cmds, size_t n)
{
	enum help_mode mode = H_MAN;
	const struct command *c;
	char page[64], hint[64];
	size_t i;
	int err;

	/* before help's own options: COMMAND's follow it, which help's getopt would take */
	if (argc > 1 && !strcmp(argv[1], "--parse"))
		return parse_only(argc, argv, cmds, n);
	err = options_parse(&help_options, argc, argv, set_opt, &mode);
	if (err)
		return err > 0 ? 0 : 2;
	if (operand(argc, argv, cmds, n, &c))
		return 2;
	if ((mode == H_LIST_OPTS && !c) || (mode == H_LIST_CMDS && c)) {
		fprintf(stderr, "kprotperf help: --list-%s (see kprotperf help --help)\n",
			c ? "cmds takes no COMMAND" : "opts needs a COMMAND");
		return 2;
	}
	switch (mode) {
	case H_LIST_CMDS:
		for (i = 0; i < n; i++)
			puts(cmds[i].name);
		return 0;
	case H_LIST_OPTS:
		list_opts(c);
		return 0;
	case H_SCDOC:
		manpage_write(stdout, c, cmds, n);
		return 0;
	case H_MAN:
		break;
	}
	snprintf(page, sizeof(page), "kprotperf%s%s", c ? "-" : "", c ? c->name : "");
	snprintf(hint, sizeof(hint), "kprotperf%s%s", c ? " " : "", c ? c->name : "");
	return open_page(page, hint);
}

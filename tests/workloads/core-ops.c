/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core-ops: the core operations of a kernel, LEBench-like, each a named
 * operation repeated COUNT times (a fixed amount of work) and timed like
 * big-fork: the mean and the K-best latency of one operation.
 *
 *   core-ops list            the operations, their default counts, what one is
 *   core-ops NAME [COUNT]    COUNT operations NAME (default: its count)
 *   core-ops all             every operation with its default count
 *
 * The operations and their counts are include/core_ops.h's, the table
 * kprotperf sweep checks its --ops against.  Files go into the working
 * folder (a tmpfs in kprotperf's VM) and are removed before the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../include/core_ops.h"
#include "kbest.h"
#include "many_vmas.h"

#define SMALL	  4096
#define LARGE	  (256 * 1024)
#define MSG	  64
#define NPIPES	  64
#define COUNT_MAX 100000000LL
#define BATCHES	  50

/* What an operation works on; -1 (or NULL) where it has nothing. */
struct ctx {
	const char *name;
	int fd;	       /* a tmpfs file of LARGE bytes, unlinked */
	char path[32]; /* a named file: open-close, stat */
	char *buf;     /* LARGE bytes */
	int ping[2], pong[2];
	pid_t child; /* ctxsw's echoing child */
	int sock[2]; /* unix, tcp */
	int pipes[NPIPES][2];
	int ep;
};

struct op {
	const char *name;
	long long count;
	const char *about;
	int (*run)(struct ctx *c);
	int (*setup)(struct ctx *c);
};

static int fail(const struct ctx *c, const char *what)
{
	fprintf(stderr, "core-ops %s: %s: %s\n", c->name, what, strerror(errno));
	return -1;
}

static int op_null(struct ctx *c)
{
	syscall(SYS_getppid);
	return 0;
}

static int op_ctxsw(struct ctx *c)
{
	char b = 'x';

	if (write(c->ping[1], &b, 1) != 1 || read(c->pong[0], &b, 1) != 1)
		return fail(c, "the ping-pong with the child");
	return 0;
}

static int io(struct ctx *c, bool wr, size_t n)
{
	ssize_t got = wr ? pwrite(c->fd, c->buf, n, 0) : pread(c->fd, c->buf, n, 0);

	if (got != (ssize_t)n)
		return fail(c, wr ? "pwrite" : "pread");
	return 0;
}

static int op_read_small(struct ctx *c)
{
	return io(c, false, SMALL);
}

static int op_read_large(struct ctx *c)
{
	return io(c, false, LARGE);
}

static int op_write_small(struct ctx *c)
{
	return io(c, true, SMALL);
}

static int op_write_large(struct ctx *c)
{
	return io(c, true, LARGE);
}

/* mmap() of LARGE bytes, each page written when touch, and munmap() */
static int map(struct ctx *c, bool touch)
{
	char *p = mmap(NULL, LARGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		return fail(c, "mmap");
	for (i = 0; touch && i < LARGE; i += SMALL)
		p[i] = 1;
	if (munmap(p, LARGE))
		return fail(c, "munmap");
	return 0;
}

static int op_mmap(struct ctx *c)
{
	return map(c, false);
}

static int op_page_fault(struct ctx *c)
{
	return map(c, true);
}

static int op_fork(struct ctx *c)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return fail(c, "fork");
	if (waitpid(pid, &status, 0) != pid)
		return fail(c, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "core-ops %s: a child ended with status 0x%x\n", c->name, status);
		return -1;
	}
	return 0;
}

static int op_big_fork(struct ctx *c)
{
	return op_fork(c);
}

static void *thread_main(void *arg)
{
	return arg;
}

static int op_thread(struct ctx *c)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, thread_main, NULL);

	if (!err)
		err = pthread_join(t, NULL);
	errno = err;
	return err ? fail(c, "pthread_create and pthread_join") : 0;
}

/* MSG bytes sent on one end of the pair and received on the other */
static int op_af_unix(struct ctx *c)
{
	char *b = c->buf;
	ssize_t got = 0, n;

	if (send(c->sock[0], b, MSG, 0) != MSG)
		return fail(c, "send");
	while (got < MSG) {
		n = recv(c->sock[1], b + got, MSG - got, 0);
		if (n <= 0)
			return n ? fail(c, "recv")
				 : (fprintf(stderr, "core-ops %s: EOF\n", c->name), -1);
		got += n;
	}
	return 0;
}

static int op_tcp(struct ctx *c)
{
	return op_af_unix(c);
}

static int op_select(struct ctx *c)
{
	struct timeval zero = {0, 0};
	fd_set r;
	int i, max = 0;

	FD_ZERO(&r);
	for (i = 0; i < NPIPES; i++) {
		FD_SET(c->pipes[i][0], &r);
		if (c->pipes[i][0] > max)
			max = c->pipes[i][0];
	}
	if (select(max + 1, &r, NULL, NULL, &zero) != 0)
		return fail(c, "select on idle pipes");
	return 0;
}

static int op_poll(struct ctx *c)
{
	struct pollfd p[NPIPES];
	int i;

	for (i = 0; i < NPIPES; i++)
		p[i] = (struct pollfd){.fd = c->pipes[i][0], .events = POLLIN};
	if (poll(p, NPIPES, 0) != 0)
		return fail(c, "poll on idle pipes");
	return 0;
}

static int op_epoll(struct ctx *c)
{
	struct epoll_event ev[NPIPES];

	if (epoll_wait(c->ep, ev, NPIPES, 0) != 0)
		return fail(c, "epoll_wait on idle pipes");
	return 0;
}

static int op_open_close(struct ctx *c)
{
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || close(fd))
		return fail(c, "open and close");
	return 0;
}

static int op_stat(struct ctx *c)
{
	struct stat st;

	if (stat(c->path, &st))
		return fail(c, "stat");
	return 0;
}

static void ctx_init(struct ctx *c, const char *name)
{
	int i;

	*c = (struct ctx){.name = name, .fd = -1, .child = -1, .ep = -1};
	c->ping[0] = c->ping[1] = c->pong[0] = c->pong[1] = -1;
	c->sock[0] = c->sock[1] = -1;
	for (i = 0; i < NPIPES; i++)
		c->pipes[i][0] = c->pipes[i][1] = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Everything setup made, in reverse: the child first sees its pipe's end. */
static void ctx_free(struct ctx *c)
{
	int i;

	close_fd(&c->ep);
	for (i = NPIPES - 1; i >= 0; i--) {
		close_fd(&c->pipes[i][1]);
		close_fd(&c->pipes[i][0]);
	}
	close_fd(&c->sock[1]);
	close_fd(&c->sock[0]);
	close_fd(&c->ping[1]);
	if (c->child > 0)
		waitpid(c->child, NULL, 0);
	close_fd(&c->pong[0]);
	close_fd(&c->ping[0]);
	close_fd(&c->pong[1]);
	if (c->path[0])
		unlink(c->path);
	free(c->buf);
	close_fd(&c->fd);
}

static int setup_none(struct ctx *c)
{
	return 0;
}

#define setup_null	 setup_none
#define setup_mmap	 setup_none
#define setup_page_fault setup_none
#define setup_fork	 setup_none
#define setup_thread	 setup_none

/* The child echoes every byte of ping on pong until ping's EOF. */
static int setup_ctxsw(struct ctx *c)
{
	char b;

	if (pipe2(c->ping, O_CLOEXEC) || pipe2(c->pong, O_CLOEXEC))
		return fail(c, "pipe");
	fflush(NULL);
	c->child = fork();
	if (c->child < 0)
		return fail(c, "fork");
	if (c->child == 0) {
		close(c->ping[1]);
		while (read(c->ping[0], &b, 1) == 1)
			if (write(c->pong[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close_fd(&c->pong[1]);
	return 0;
}

/* A LARGE-byte file in the working folder, unlinked at once, and the buffer. */
static int setup_file(struct ctx *c)
{
	char path[] = "core-ops.XXXXXX";

	c->buf = calloc(1, LARGE);
	if (!c->buf)
		return fail(c, "a buffer");
	c->fd = mkstemp(path);
	if (c->fd < 0)
		return fail(c, "a file in the working folder");
	unlink(path);
	if (pwrite(c->fd, c->buf, LARGE, 0) != LARGE)
		return fail(c, "writing the file");
	return 0;
}

#define setup_read_small  setup_file
#define setup_read_large  setup_file
#define setup_write_small setup_file
#define setup_write_large setup_file

static int setup_big_fork(struct ctx *c)
{
	return map_pages("core-ops big-fork");
}

static int setup_af_unix(struct ctx *c)
{
	c->buf = calloc(1, MSG);
	if (!c->buf)
		return fail(c, "a buffer");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->sock))
		return fail(c, "socketpair");
	return 0;
}

/* A connection to ourselves on 127.0.0.1, Nagle off: each send goes at once. */
static int setup_tcp(struct ctx *c)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, err = 0;

	c->buf = calloc(1, MSG);
	if (!c->buf || l < 0)
		err = fail(c, c->buf ? "socket" : "a buffer");
	if (!err && (bind(l, (struct sockaddr *)&a, len) || listen(l, 1) ||
		     getsockname(l, (struct sockaddr *)&a, &len)))
		err = fail(c, "listening on 127.0.0.1 (is the loopback interface up? ip link set "
			      "lo up)");
	if (!err) {
		c->sock[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->sock[0] < 0 || connect(c->sock[0], (struct sockaddr *)&a, len))
			err = fail(c, "connecting to 127.0.0.1 (is the loopback interface up? ip "
				      "link set lo up)");
	}
	if (!err && (c->sock[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
		err = fail(c, "accept");
	if (!err && (setsockopt(c->sock[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
		     setsockopt(c->sock[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))))
		err = fail(c, "TCP_NODELAY");
	if (l >= 0)
		close(l);
	return err;
}

static int setup_pipes(struct ctx *c)
{
	int i;

	for (i = 0; i < NPIPES; i++)
		if (pipe2(c->pipes[i], O_CLOEXEC))
			return fail(c, "pipe");
	return 0;
}

#define setup_select setup_pipes
#define setup_poll   setup_pipes

static int setup_epoll(struct ctx *c)
{
	struct epoll_event ev = {.events = EPOLLIN};
	int i;

	if (setup_pipes(c))
		return -1;
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (c->ep < 0)
		return fail(c, "epoll_create1");
	for (i = 0; i < NPIPES; i++) {
		ev.data.fd = c->pipes[i][0];
		if (epoll_ctl(c->ep, EPOLL_CTL_ADD, c->pipes[i][0], &ev))
			return fail(c, "epoll_ctl");
	}
	return 0;
}

/* A named file in the working folder, removed at the end. */
static int setup_named(struct ctx *c)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "core-ops.XXXXXX");
	fd = mkstemp(c->path);
	if (fd < 0) {
		c->path[0] = '\0';
		return fail(c, "a file in the working folder");
	}
	close(fd);
	return 0;
}

#define setup_open_close setup_named
#define setup_stat	 setup_named

#define OP(id, name, count, about) {name, count, about, op_##id, setup_##id},
static const struct op ops[] = {CORE_OPS(OP)};
#undef OP
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: core-ops list | core-ops all | core-ops NAME [COUNT]\n"
		"  time COUNT operations NAME in batches (default: its count; list shows\n"
		"  them) and print their mean and K-best (the mean of the %d fastest batches)\n",
		KBEST_K);
}

static const struct op *find(const char *name)
{
	size_t i;

	for (i = 0; i < NOPS; i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

/*
 * The operation's COUNT runs, timed in batches (at most BATCHES, as equal as
 * can be): a clock read per operation would cost as much as the cheapest
 * ones.  Each batch gives a latency per operation, their K-best the
 * estimate.  0, or 1 after saying why.
 */
static int measure(const struct op *op, long long n)
{
	long long nb = n < BATCHES ? n : BATCHES, *lat = calloc(nb, sizeof(*lat));
	long long total = 0, t0, size, b, i;
	double best, spread;
	struct ctx c;
	int err = !lat;

	ctx_init(&c, op->name);
	if (!lat)
		fprintf(stderr, "core-ops %s: no memory for %lld latencies\n", op->name, nb);
	err = err ?: op->setup(&c);
	/* the children must not inherit and flush our buffered output */
	fflush(NULL);
	for (b = 0; b < nb && !err; b++) {
		size = n / nb + (b < n % nb);
		t0 = now_ns();
		for (i = 0; i < size && !err; i++)
			err = op->run(&c);
		t0 = now_ns() - t0;
		lat[b] = t0 / size;
		total += t0;
	}
	ctx_free(&c);
	if (!err) {
		best = kbest(lat, nb, &spread);
		printf("core-ops %s: %lld operations in %lld batches: mean %.1f ns, kbest(%d, %d%%)"
		       " %.1f ns (spread %.1f%%, %s)\n",
		       op->name, n, nb, (double)total / n, KBEST_K, (int)(KBEST_TOL * 100), best,
		       spread * 100,
		       spread <= KBEST_TOL ? "within tolerance" : "NOT within tolerance");
	}
	free(lat);
	return err ? 1 : 0;
}

static long long count_of(const char *prog, const char *s)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > COUNT_MAX) {
		fprintf(stderr, "%s: bad COUNT '%s': want 1..%lld operations\n", prog, s,
			COUNT_MAX);
		return -1;
	}
	return n;
}

int main(int argc, char **argv)
{
	const struct op *op;
	long long n;
	size_t i;
	int err = 0;

	if (argc < 2 || argc > 3 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 || argc > 3 ? stderr : stdout);
		return argc < 2 || argc > 3 ? 2 : 0;
	}
	if (!strcmp(argv[1], "list") || !strcmp(argv[1], "all")) {
		/* the suite goes on after an operation that failed, and says so at the end */
		for (i = 0; i < NOPS && argc == 2; i++)
			err |= argv[1][0] == 'l'
				       ? printf("%-*s %8lld  %s\n", CORE_OPS_NAME_MAX, ops[i].name,
						ops[i].count, ops[i].about) < 0
				       : measure(&ops[i], ops[i].count);
		if (argc == 3)
			fprintf(stderr, "core-ops: %s takes no COUNT\n", argv[1]);
		return argc == 3 ? 2 : err;
	}
	op = find(argv[1]);
	if (!op) {
		fprintf(stderr, "core-ops: no operation '%s' (core-ops list shows them)\n",
			argv[1]);
		return 2;
	}
	n = argc == 3 ? count_of("core-ops", argv[2]) : op->count;
	return n < 0 ? 2 : measure(op, n);
}

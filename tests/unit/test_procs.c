/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/procs.h"
#include "testutil.h"

/* argv[1] that turns this binary into a helper process for the tests */
#define HELPER "--procs-helper"
/* mappings made by the ring wrap-around helper, and how many between drains */
#define WRAP_MAPS  1024
#define WRAP_BATCH 64

struct env {
	char self[PATH_MAX]; /* this binary, as the kernel names its mapping */
	char comm[16];	     /* what exec of self makes the comm */
	char bid[41];	     /* this binary's build id, from its loaded note */
};

/* A child that waits on its stdin before it execs argv. */
struct child {
	pid_t pid;
	int gate; /* its stdin */
	int out;  /* its stdout */
};

__attribute__((noinline, used)) static int some_noinline_function(int n)
{
	volatile int acc = n;
	int i;

	for (i = 0; i < n; i++)
		acc = acc * 3 + i;
	return acc;
}

static int note_cb(struct dl_phdr_info *info, size_t size, void *hex)
{
	const ElfW(Nhdr) * nh;
	const char *p, *end;
	int i, j;

	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		end = p + info->dlpi_phdr[i].p_memsz;
		for (; p + sizeof(*nh) <= end;
		     p += sizeof(*nh) + ((nh->n_namesz + 3) & ~3) + ((nh->n_descsz + 3) & ~3)) {
			nh = (const void *)p;
			if (nh->n_type != NT_GNU_BUILD_ID || nh->n_namesz != 4)
				continue;
			for (j = 0; j < (int)nh->n_descsz; j++)
				sprintf((char *)hex + 2 * j, "%02x",
					(unsigned char)p[sizeof(*nh) + 4 + j]);
			return 1;
		}
	}
	return 1; /* the main program comes first: stop there */
}

static int bias_cb(struct dl_phdr_info *info, size_t size, void *bias)
{
	*(uintptr_t *)bias = info->dlpi_addr;
	return 1;
}

static uintptr_t load_bias(void)
{
	uintptr_t bias = 0;

	dl_iterate_phdr(bias_cb, &bias);
	return bias;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	const char *base;
	ssize_t n;

	if (!e)
		return -1;
	n = readlink("/proc/self/exe", e->self, sizeof(e->self) - 1);
	if (n <= 0)
		return -1;
	base = strrchr(e->self, '/') + 1;
	snprintf(e->comm, sizeof(e->comm), "%.15s", base);
	dl_iterate_phdr(note_cb, e->bid);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void start_child(struct child *c, char *const argv[])
{
	int gate[2], out[2];
	char go;

	assert_int_equal(pipe2(gate, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		dup2(gate[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		if (read(STDIN_FILENO, &go, 1) == 1)
			execv(argv[0], argv);
		_exit(127);
	}
	close(gate[0]);
	close(out[1]);
	c->gate = gate[1];
	c->out = out[0];
}

static void end_child(struct child *c, int *status)
{
	close(c->gate);
	close(c->out);
	assert_int_equal(waitpid(c->pid, status, 0), c->pid);
}

/* Follow c, or end it and skip the test when perf events are not allowed here. */
static void follow_or_skip(struct procs *p, struct child *c)
{
	int err = procs_follow(p, c->pid), status;

	if (err == -EACCES || err == -EPERM) {
		end_child(c, &status);
		procs_free(p);
		fprintf(stderr, "skipped: perf_event_open not permitted: %s\n", strerror(-err));
		skip();
	}
	assert_int_equal(err, 0);
}

static void release(struct child *c)
{
	assert_int_equal(write(c->gate, "g", 1), 1);
}

static int find_task_cb(const struct proc_task *t, void *ctx)
{
	struct proc_task *want = ctx;

	if (t->pid != want->pid)
		return 0;
	*want = *t;
	return 1;
}

static bool find_task(struct procs *p, pid_t pid, struct proc_task *t)
{
	t->pid = pid;
	return procs_for_each_task(p, find_task_cb, t) == 1;
}

struct map_query {
	pid_t pid;
	const char *path; /* NULL: any */
	int count;
	struct proc_map last;
};

static int count_maps_cb(const struct proc_map *m, void *ctx)
{
	struct map_query *q = ctx;

	if (m->pid == q->pid && (!q->path || !strcmp(m->path, q->path))) {
		q->count++;
		q->last = *m;
	}
	return 0;
}

static int count_maps(struct procs *p, pid_t pid, const char *path, struct proc_map *last)
{
	struct map_query q = {.pid = pid, .path = path};

	assert_int_equal(procs_for_each_map(p, count_maps_cb, &q), 0);
	if (last)
		*last = q.last;
	return q.count;
}

static void test_resolve_self(void **state)
{
	struct env *e = *state;
	struct proc_task t;
	struct procs *p;
	struct ufrm f;
	char comm[64];
	FILE *cf;

	assert_int_equal(procs_new(&p), 0);
	assert_int_equal(procs_snapshot(p, getpid()), 0);
	assert_int_equal(procs_resolve(p, getpid(), (uintptr_t)some_noinline_function + 4, &f), 0);
	assert_non_null(f.sym);
	assert_string_equal(f.sym, "some_noinline_function");
	assert_int_equal(f.off, 4);
	assert_string_equal(f.module, e->self);
	assert_true(tu_ends_with(f.module, program_invocation_short_name));
	assert_int_equal(strlen(e->bid), 40);
	assert_string_equal(f.build_id, e->bid);

	assert_true(find_task(p, getpid(), &t));
	assert_int_equal(t.ppid, getppid());
	assert_false(t.exited);
	cf = fopen("/proc/self/comm", "r");
	assert_non_null(cf);
	assert_non_null(fgets(comm, sizeof(comm), cf));
	fclose(cf);
	comm[strcspn(comm, "\n")] = '\0';
	assert_string_equal(t.comm, comm);
	procs_free(p);
}

static void test_resolve_unmapped(void **state)
{
	struct procs *p;
	struct ufrm f;

	assert_int_equal(procs_new(&p), 0);
	assert_int_equal(procs_snapshot(p, getpid()), 0);
	assert_int_equal(procs_resolve(p, getpid(), 0x1000, &f), -ENOENT);
	/* the stack is mapped but not executable, so it was not kept */
	assert_int_equal(procs_resolve(p, getpid(), (uintptr_t)&f, &f), -ENOENT);
	assert_int_equal(
		procs_resolve(p, getpid() + 1000000, (uintptr_t)some_noinline_function, &f),
		-ENOENT);
	assert_int_equal(procs_snapshot(p, -5), -ENOENT);
	procs_free(p);
}

static void test_vdso(void **state)
{
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);
	struct procs *p;
	struct ufrm f;

	if (!vdso) {
		fprintf(stderr, "skipped: no vDSO (under valgrind?)\n");
		skip();
	}
	assert_int_equal(procs_new(&p), 0);
	assert_int_equal(procs_snapshot(p, getpid()), 0);
	assert_int_equal(procs_resolve(p, getpid(), vdso + 0x10, &f), 0);
	assert_string_equal(f.module, "[vdso]");
	assert_null(f.sym);
	assert_int_equal(f.off, 0x10);
	procs_free(p);
}

/* A function of libc: through its debug file when installed, else .dynsym. */
static void test_resolve_libc(void **state)
{
	struct procs *p;
	struct ufrm f;

	assert_int_equal(procs_new(&p), 0);
	assert_int_equal(procs_snapshot(p, getpid()), 0);
	assert_int_equal(procs_resolve(p, getpid(), (uintptr_t)getppid, &f), 0);
	assert_non_null(f.sym);
	assert_non_null(strstr(f.sym, "getppid"));
	assert_int_equal(f.off, 0);
	assert_non_null(strstr(f.module, "libc"));
	assert_int_equal(strlen(f.build_id), 40);
	procs_free(p);
}

/* Where this binary's .plt (or .plt.sec) lies: code without symbols. */
static bool find_plt(const char *path, GElf_Shdr *plt)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;
	const char *name;
	Elf *elf;
	int fd;

	assert_true(elf_version(EV_CURRENT) != EV_NONE);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		assert_non_null(gelf_getshdr(scn, plt));
		name = elf_strptr(elf, shstrndx, plt->sh_name);
		found = name && (!strcmp(name, ".plt.sec") || !strcmp(name, ".plt")) &&
			plt->sh_size > 8;
	}
	elf_end(elf);
	close(fd);
	return found;
}

static void test_plt_has_no_symbol(void **state)
{
	struct env *e = *state;
	struct procs *p;
	GElf_Shdr plt;
	struct ufrm f;

	if (!find_plt(e->self, &plt)) {
		fprintf(stderr, "skipped: this binary has no .plt\n");
		skip();
	}
	assert_int_equal(procs_new(&p), 0);
	assert_int_equal(procs_snapshot(p, getpid()), 0);
	assert_int_equal(procs_resolve(p, getpid(), load_bias() + plt.sh_addr + 4, &f), 0);
	assert_string_equal(f.module, e->self);
	assert_null(f.sym);
	assert_int_equal(f.off, plt.sh_offset + 4);
	procs_free(p);
}

/* A child that execs /bin/true and exits: still listed, with its program's mapping. */
static void test_follow_exited_child(void **state)
{
	char *argv[] = {"/bin/true", NULL};
	char truepath[PATH_MAX];
	struct proc_map m;
	struct proc_task t;
	struct pollfd pfd;
	struct child c;
	struct procs *p;
	int status;

	assert_non_null(realpath(argv[0], truepath));
	assert_int_equal(procs_new(&p), 0);
	start_child(&c, argv);
	follow_or_skip(p, &c);
	release(&c);
	end_child(&c, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(procs_drain(p) > 0);

	assert_true(find_task(p, c.pid, &t));
	assert_string_equal(t.comm, "true");
	assert_true(t.exited);
	assert_int_equal(t.ppid, getpid());
	assert_int_equal(count_maps(p, c.pid, truepath, &m), 1);
	assert_true(m.end > m.start);
	assert_int_equal(strlen(m.build_id), 40);
	assert_true(count_maps(p, c.pid, NULL, NULL) >= 3); /* true, ld.so, libc, [vdso] */
	assert_int_equal(procs_lost(p), 0);

	/* the tree is gone: its rings no longer make the fd readable */
	pfd = (struct pollfd){.fd = procs_fd(p), .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(procs_drain(p), 0);
	procs_free(p);
}

struct forked {
	pid_t helper, plain, execed;
	unsigned long fn;
};

/* Runs a helper under procs to its successful end; buf gets what it printed. */
static struct procs *record_helper(char *const argv[], pid_t *pid, char *buf, size_t size)
{
	struct procs *p;
	struct child c;
	ssize_t n;
	int status;

	assert_int_equal(procs_new(&p), 0);
	start_child(&c, argv);
	follow_or_skip(p, &c);
	release(&c);
	n = read(c.out, buf, size - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	end_child(&c, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	*pid = c.pid;
	assert_true(procs_drain(p) > 0);
	return p;
}

/* Runs the fork helper under procs and reads what it reports. */
static struct procs *record_forks(struct env *e, struct forked *r)
{
	char *argv[] = {e->self, HELPER, "fork", NULL};
	struct procs *p;
	char buf[128];

	p = record_helper(argv, &r->helper, buf, sizeof(buf));
	assert_int_equal(sscanf(buf, "%d %d %lx", &r->plain, &r->execed, &r->fn), 3);
	return p;
}

static void test_fork_inherits_maps(void **state)
{
	struct env *e = *state;
	struct proc_task t;
	struct forked r;
	struct procs *p;
	struct ufrm f;

	p = record_forks(e, &r);
	assert_true(find_task(p, r.helper, &t));
	assert_string_equal(t.comm, e->comm);
	assert_true(count_maps(p, r.helper, e->self, NULL) >= 1);

	/* the plain child mapped nothing itself: it resolves through its parent */
	assert_true(find_task(p, r.plain, &t));
	assert_int_equal(t.ppid, r.helper);
	assert_string_equal(t.comm, e->comm);
	assert_true(t.exited);
	assert_int_equal(count_maps(p, r.plain, NULL, NULL), 0);
	assert_int_equal(procs_resolve(p, r.plain, r.fn + 2, &f), 0);
	assert_string_equal(f.module, e->self);
	assert_non_null(f.sym);
	assert_string_equal(f.sym, "some_noinline_function");
	assert_int_equal(f.off, 2);
	assert_string_equal(f.build_id, e->bid);

	/* exec dropped the inherited address space */
	assert_true(find_task(p, r.execed, &t));
	assert_string_equal(t.comm, "true");
	assert_true(t.exited);
	assert_int_equal(t.ppid, r.helper);
	if (!procs_resolve(p, r.execed, r.fn, &f))
		assert_string_not_equal(f.module, e->self);
	procs_free(p);
}

static int stop_at_second(const struct proc_task *t, void *ctx)
{
	return ++*(int *)ctx == 2 ? -42 : 0;
}

static void test_for_each_stops(void **state)
{
	struct forked r;
	struct procs *p;
	int calls = 0;

	p = record_forks(*state, &r);
	assert_int_equal(procs_for_each_task(p, stop_at_second, &calls), -42);
	assert_int_equal(calls, 2);
	procs_free(p);
}

/* /bin/true run to its end by this process, outside any tree followed: its pid */
static pid_t run_outsider(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

/* One tree followed by procs_follow_tree, run to its end; buf gets what it printed. */
static pid_t follow_tree(struct procs *p, char *const argv[], char *buf, size_t size,
			 pid_t *outsider)
{
	struct child c;
	ssize_t n;
	int status;

	start_child(&c, argv);
	assert_int_equal(procs_follow_tree(p, c.pid), 0);
	*outsider = run_outsider();
	release(&c);
	n = read(c.out, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	end_child(&c, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(procs_drain(p) > 0);
	return c.pid;
}

/*
 * record --model's trees: every exec of the tree with its own mappings and
 * name, nothing of a process outside it (one of the test's own, run while
 * the tree runs), and a second tree on the same system-wide event, its
 * records taken once.
 */
static void test_follow_tree(void **state)
{
	struct env *e = *state;
	char *fork_argv[] = {e->self, HELPER, "fork", NULL}, *true_argv[] = {"/bin/true", NULL};
	char buf[128], truepath[PATH_MAX];
	pid_t helper, outsider, second;
	struct proc_task t;
	struct forked r;
	struct procs *p;

	assert_non_null(realpath(true_argv[0], truepath));
	assert_int_equal(procs_new(&p), 0);
	helper = follow_tree(p, fork_argv, buf, sizeof(buf), &outsider);
	assert_int_equal(sscanf(buf, "%d %d %lx", &r.plain, &r.execed, &r.fn), 3);
	assert_true(find_task(p, helper, &t));
	assert_string_equal(t.comm, e->comm);
	assert_true(count_maps(p, helper, e->self, NULL) >= 1);
	assert_true(find_task(p, r.plain, &t));
	assert_int_equal(t.ppid, helper);
	assert_true(find_task(p, r.execed, &t));
	assert_string_equal(t.comm, "true");
	assert_int_equal(t.ppid, helper);
	assert_int_equal(count_maps(p, r.execed, truepath, NULL), 1);
	assert_false(find_task(p, outsider, &t));
	assert_int_equal(count_maps(p, outsider, NULL, NULL), 0);

	second = follow_tree(p, true_argv, buf, sizeof(buf), &outsider);
	assert_true(find_task(p, second, &t));
	assert_string_equal(t.comm, "true");
	assert_true(t.exited);
	assert_int_equal(count_maps(p, second, truepath, NULL), 1);
	assert_false(find_task(p, outsider, &t));
	assert_true(find_task(p, helper, &t));
	assert_int_equal(procs_lost(p), 0);
	procs_free(p);
}

/* An executable mapping of a copy of this binary; returns the ip of some_noinline_function. */
static uintptr_t map_copy(const char *self, const char *copy, void **base, size_t *len,
			  __u64 *fileoff)
{
	uintptr_t vaddr = (uintptr_t)some_noinline_function - load_bias();
	GElf_Phdr ph;
	Elf *elf;
	size_t i, n;
	int fd;

	assert_int_equal(tu_run("cp '%s' '%s'", self, copy), 0);
	fd = open(copy, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (i = 0; i < n; i++) {
		assert_non_null(gelf_getphdr(elf, i, &ph));
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
			break;
	}
	assert_true(i < n);
	elf_end(elf);
	*fileoff = vaddr - ph.p_vaddr + ph.p_offset;
	*len = ph.p_filesz + (ph.p_offset & 4095);
	*base = mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, ph.p_offset & ~4095UL);
	close(fd);
	assert_true(*base != MAP_FAILED);
	return (uintptr_t)*base + (*fileoff - (ph.p_offset & ~4095UL));
}

/* Rewrites the build id note of path, so the file on disk is another build. */
static void rebuild(const char *path, const char *bid_hex)
{
	unsigned char bid[20], buf[8192];
	ssize_t n;
	int fd, i;
	off_t at;

	for (i = 0; i < 20; i++)
		sscanf(bid_hex + 2 * i, "%2hhx", &bid[i]);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	n = pread(fd, buf, sizeof(buf), 0);
	assert_true(n > 20);
	for (at = 0; at + 20 <= n && memcmp(buf + at, bid, 20); at++)
		;
	assert_true(at + 20 <= n);
	buf[at] ^= 0xff;
	assert_int_equal(pwrite(fd, buf + at, 1, at), 1);
	close(fd);
}

/* A file rebuilt after it was mapped is not trusted for symbols. */
static void test_rebuilt_file(void **state)
{
	struct env *e = *state;
	char dir[] = "/tmp/procs_rebuilt_XXXXXX", copy[64];
	struct procs *before, *after;
	struct ufrm f;
	__u64 fileoff;
	uintptr_t ip;
	void *base;
	size_t len;

	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	ip = map_copy(e->self, copy, &base, &len, &fileoff);
	assert_int_equal(procs_new(&before), 0);
	assert_int_equal(procs_new(&after), 0);
	assert_int_equal(procs_snapshot(before, getpid()), 0);
	assert_int_equal(procs_snapshot(after, getpid()), 0);
	assert_int_equal(procs_resolve(before, getpid(), ip + 1, &f), 0);
	assert_string_equal(f.module, copy);
	assert_non_null(f.sym);
	assert_string_equal(f.sym, "some_noinline_function");
	assert_int_equal(f.off, 1);

	rebuild(copy, e->bid);
	assert_int_equal(procs_resolve(after, getpid(), ip + 1, &f), 0);
	assert_string_equal(f.module, copy);
	assert_null(f.sym);
	assert_int_equal(f.off, fileoff + 1);
	assert_string_equal(f.build_id, e->bid);

	procs_free(after);
	procs_free(before);
	munmap(base, len);
	unlink(copy);
	rmdir(dir);
}

/* A file whose path is near PATH_MAX: its mmap2 records are ~4 KiB each. */
static void make_long_path(char *path, char dirs[][PATH_MAX], int *ndirs)
{
	char seg[241];
	int fd, i;

	memset(seg, 'd', sizeof(seg) - 1);
	seg[sizeof(seg) - 1] = '\0';
	strcpy(path, "/tmp/procs_wrap_XXXXXX");
	assert_non_null(mkdtemp(path));
	strcpy(dirs[0], path);
	for (i = 1; strlen(path) + sizeof(seg) + 16 < PATH_MAX; i++) {
		strcat(path, "/");
		strcat(path, seg);
		assert_int_equal(mkdir(path, 0700), 0);
		strcpy(dirs[i], path);
	}
	*ndirs = i;
	strcat(path, "/file");
	fd = open(path, O_CREAT | O_WRONLY, 0700);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	close(fd);
}

/* Several ring sizes of big records, drained in batches: every one arrives intact. */
static void test_ring_wraps(void **state)
{
	char(*dirs)[PATH_MAX] = calloc(32, PATH_MAX);
	char path[PATH_MAX], n[16], batch[16], b;
	char *argv[] = {((struct env *)*state)->self, HELPER, "maps", path, n, batch, NULL};
	struct procs *p;
	struct child c;
	int i, status, ndirs;

	assert_non_null(dirs);
	make_long_path(path, dirs, &ndirs);
	snprintf(n, sizeof(n), "%d", WRAP_MAPS);
	snprintf(batch, sizeof(batch), "%d", WRAP_BATCH);
	assert_int_equal(procs_new(&p), 0);
	start_child(&c, argv);
	follow_or_skip(p, &c);
	release(&c);
	for (i = 0; i < WRAP_MAPS / WRAP_BATCH; i++) {
		assert_int_equal(read(c.out, &b, 1), 1);
		assert_true(procs_drain(p) > 0);
		release(&c);
	}
	end_child(&c, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(procs_drain(p) >= 0);
	assert_int_equal(procs_lost(p), 0);
	assert_int_equal(count_maps(p, c.pid, path, NULL), WRAP_MAPS);
	procs_free(p);
	unlink(path);
	while (ndirs--)
		rmdir(dirs[ndirs]);
	free(dirs);
}

/*
 * Forks on one CPU whose child execs and exits on the other, both ways round:
 * the fork record lands in one ring and the child's records in another.
 */
static void test_cross_cpu_order(void **state)
{
	char *argv[] = {((struct env *)*state)->self, HELPER, "pinned", NULL};
	char buf[64], truepath[PATH_MAX];
	pid_t helper, kids[2];
	struct proc_task t;
	struct procs *p;
	int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "skipped: needs two CPUs\n");
		skip();
	}
	assert_non_null(realpath("/bin/true", truepath));
	p = record_helper(argv, &helper, buf, sizeof(buf));
	assert_int_equal(sscanf(buf, "%d %d", &kids[0], &kids[1]), 2);
	for (i = 0; i < 2; i++) {
		assert_true(find_task(p, kids[i], &t));
		assert_string_equal(t.comm, "true");
		assert_true(t.exited);
		assert_int_equal(t.ppid, helper);
		assert_int_equal(count_maps(p, kids[i], truepath, NULL), 1);
	}
	procs_free(p);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* In the helper: fork on CPU from, the child execs /bin/true on CPU to. */
static pid_t fork_across(int from, int to)
{
	pid_t pid;

	if (pin(from))
		return -1;
	pid = fork();
	if (!pid) {
		if (!pin(to))
			execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return -1;
	return pid;
}

static int helper_pinned(void)
{
	pid_t a = fork_across(0, 1), b = fork_across(1, 0);

	if (a < 0 || b < 0)
		return 1;
	printf("%d %d\n", a, b);
	return fflush(stdout) ? 1 : 0;
}

/* In the helper: a plain fork child and one that execs /bin/true; prints their pids. */
static int helper_fork(void)
{
	pid_t plain, execed;

	plain = fork();
	if (!plain)
		_exit(some_noinline_function(3) == 0);
	execed = fork();
	if (!execed) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (plain < 0 || execed < 0 || waitpid(plain, NULL, 0) != plain ||
	    waitpid(execed, NULL, 0) != execed)
		return 1;
	printf("%d %d %lx\n", plain, execed, (unsigned long)some_noinline_function);
	return fflush(stdout) ? 1 : 0;
}

/* In the helper: n executable mappings of path, stopping every batch for a drain. */
static int helper_maps(const char *path, int n, int batch)
{
	int fd = open(path, O_RDONLY), i;
	char go;

	if (fd < 0)
		return 1;
	for (i = 1; i <= n; i++) {
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		if (i % batch)
			continue;
		if (write(STDOUT_FILENO, "b", 1) != 1 || read(STDIN_FILENO, &go, 1) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_self),
		cmocka_unit_test(test_resolve_unmapped),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_resolve_libc),
		cmocka_unit_test(test_plt_has_no_symbol),
		cmocka_unit_test(test_follow_exited_child),
		cmocka_unit_test(test_fork_inherits_maps),
		cmocka_unit_test(test_for_each_stops),
		cmocka_unit_test(test_follow_tree),
		cmocka_unit_test(test_rebuilt_file),
		cmocka_unit_test(test_ring_wraps),
		cmocka_unit_test(test_cross_cpu_order),
	};

	if (argc > 2 && !strcmp(argv[1], HELPER) && !strcmp(argv[2], "fork"))
		return helper_fork();
	if (argc > 2 && !strcmp(argv[1], HELPER) && !strcmp(argv[2], "pinned"))
		return helper_pinned();
	if (argc > 5 && !strcmp(argv[1], HELPER) && !strcmp(argv[2], "maps"))
		return helper_maps(argv[3], atoi(argv[4]), atoi(argv[5]));
	return cmocka_run_group_tests(tests, setup, teardown);
}

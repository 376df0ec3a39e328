// SPDX-License-Identifier: GPL-2.0-only
/*
 * What recording needs of the kernel's privileges, checked before anything
 * is loaded, so that a missing one is named with the line that grants it
 * instead of surfacing as EPERM from a later step (or, for kallsyms, as
 * kernel functions silently left unnamed).
 */
#include "record/privileges.h"

#include <ctype.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Not in older uapi headers; their numbers are fixed. */
#define KP_CAP_PERFMON 38
#define KP_CAP_BPF     39

struct caps {
	__u64 eff;
	bool split;   /* the kernel has CAP_BPF and CAP_PERFMON (5.8 on) */
	bool memlock; /* BPF memory counts against RLIMIT_MEMLOCK (before 5.11) */
};

static bool has(const struct caps *c, int cap)
{
	return c->eff & (1ULL << cap);
}

static int kernel_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major * 256 + minor;
}

static int read_caps(struct caps *c)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {};
	struct rlimit rl;
	int v = kernel_version();

	if (syscall(SYS_capget, &h, d))
		return -errno;
	c->eff = d[0].effective | (__u64)d[1].effective << 32;
	c->split = v >= (5 << 8) + 8;
	c->memlock = v < (5 << 8) + 11 && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
		     rl.rlim_max != RLIM_INFINITY;
	return 0;
}

bool privileges_kallsyms_hidden(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned long long addr;
	bool hidden = false;
	char type;

	if (!f)
		return false;
	while (fscanf(f, "%llx %c %*[^\n]", &addr, &type) == 2)
		if (type == 't' || type == 'T') {
			hidden = !addr;
			break;
		}
	fclose(f);
	return hidden;
}

/* The capabilities recording needs: all of them for setcap's line, those lacking by name. */
struct needs {
	char lacking[128]; /* "CAP_PERFMON, CAP_SYSLOG" */
	char set[128];	   /* "cap_bpf,cap_perfmon,cap_syslog": setcap replaces the whole set */
};

static void append(char *list, size_t len, const char *sep, const char *s)
{
	size_t n = strlen(list);

	snprintf(list + n, len - n, "%s%s", n ? sep : "", s);
}

static void require(struct needs *n, const char *cap, bool have)
{
	char lower[32];
	size_t i;

	for (i = 0; cap[i] && i < sizeof(lower) - 1; i++)
		lower[i] = tolower((unsigned char)cap[i]);
	lower[i] = '\0';
	append(n->set, sizeof(n->set), ",", lower);
	if (!have)
		append(n->lacking, sizeof(n->lacking), ", ", cap);
}

static void needs_of(const struct caps *c, bool hidden, struct needs *n)
{
	bool admin = has(c, CAP_SYS_ADMIN);

	if (!c->split) {
		require(n, "CAP_SYS_ADMIN", admin);
	} else {
		require(n, "CAP_BPF", admin || has(c, KP_CAP_BPF));
		require(n, "CAP_PERFMON", admin || has(c, KP_CAP_PERFMON));
	}
	/* kallsyms shows one who has CAP_SYSLOG its addresses: then it may be what does */
	if (hidden || has(c, CAP_SYSLOG))
		require(n, "CAP_SYSLOG", has(c, CAP_SYSLOG));
	if (c->memlock)
		require(n, "CAP_SYS_RESOURCE", has(c, CAP_SYS_RESOURCE));
}

int privileges_check(char *why, size_t len)
{
	bool hidden = privileges_kallsyms_hidden("/proc/kallsyms");
	struct needs n = {};
	char exe[4096], *path;
	struct caps c = {};

	if (read_caps(&c))
		return 0; /* no way to tell: the steps themselves will say */
	needs_of(&c, hidden, &n);
	if (!n.lacking[0] && hidden) {
		snprintf(why, len,
			 "/proc/kallsyms hides kernel addresses even with CAP_SYSLOG "
			 "(kernel.kptr_restrict=2): sysctl kernel.kptr_restrict=1");
		return -EPERM;
	}
	if (!n.lacking[0])
		return 0;
	path = realpath("/proc/self/exe", exe);
	snprintf(why, len,
		 "recording needs %s, which this process lacks: run as root, or give the "
		 "binary its capabilities: sudo setcap %s+ep %s",
		 n.lacking, n.set, path ?: "kprotperf");
	return -EPERM;
}

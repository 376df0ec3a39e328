/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Provenance of a recording: the kernel, its hardening configuration and the
 * CPU's vulnerability state, kept as key/value lists so that a report or diff
 * made later on another machine can tell what was actually measured.
 */
#include "system/provenance.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#define NT_GNU_BUILD_ID	 3
#define NOTE_HDR_SIZE	 12
#define SYS_NOTES	 "/sys/kernel/notes"
#define VULNS_DIR	 "/sys/devices/system/cpu/vulnerabilities"
#define CONFIG_LINE_SIZE 4096
/* the files read whole are a few hundred bytes; bigger means something is wrong */
#define SMALL_FILE_MAX 65536

/*
 * Options that change what kernel code runs or how memory is laid out, i.e.
 * that can explain a difference between two recordings. A trailing '*'
 * matches any option starting with what precedes it.
 */
static const char *const relevant_options[] = {
	"CONFIG_SLAB_FREELIST_*",
	"CONFIG_SLAB_MERGE_DEFAULT",
	"CONFIG_SLAB_BUCKETS",
	"CONFIG_SLUB_DEBUG*",
	"CONFIG_RANDOM_KMALLOC_CACHES",
	"CONFIG_SHUFFLE_PAGE_ALLOCATOR",
	"CONFIG_INIT_ON_*",
	"CONFIG_INIT_STACK_*",
	"CONFIG_KSTACK_ERASE*",
	"CONFIG_ZERO_CALL_USED_REGS",
	"CONFIG_HARDENED_USERCOPY*",
	"CONFIG_FORTIFY_SOURCE",
	"CONFIG_LIST_HARDENED",
	"CONFIG_DEBUG_LIST",
	"CONFIG_BUG_ON_DATA_CORRUPTION",
	"CONFIG_RANDOMIZE_*",
	"CONFIG_RANDSTRUCT*",
	/* kernel-build.sh keeps RANDSTRUCT's seed here: the layouts follow from it */
	"CONFIG_BUILD_SALT",
	"CONFIG_GCC_PLUGIN_*",
	"CONFIG_STACKPROTECTOR*",
	"CONFIG_VMAP_STACK",
	"CONFIG_STRICT_KERNEL_RWX",
	"CONFIG_STRICT_MODULE_RWX",
	"CONFIG_CPU_MITIGATIONS",
	"CONFIG_SPECULATION_MITIGATIONS",
	"CONFIG_MITIGATION_*",
	"CONFIG_PAGE_TABLE_ISOLATION",
	"CONFIG_RETPOLINE",
	"CONFIG_RETHUNK",
	"CONFIG_CPU_UNRET_ENTRY",
	"CONFIG_CPU_IBPB_ENTRY",
	"CONFIG_CPU_IBRS_ENTRY",
	"CONFIG_CPU_SRSO",
	"CONFIG_CALL_DEPTH_TRACKING",
	"CONFIG_SLS",
	"CONFIG_X86_KERNEL_IBT",
	"CONFIG_CFI*",
	"CONFIG_SCHED_CORE",
	"CONFIG_KFENCE*",
	"CONFIG_KASAN",
	"CONFIG_UBSAN",
	"CONFIG_UBSAN_BOUNDS",
	"CONFIG_PAGE_POISONING",
	"CONFIG_DEBUG_PAGEALLOC",
};

static uint32_t note_word(const unsigned char *p)
{
	uint32_t w;

	/* the blob may come from any buffer, so it need not be 4-aligned */
	memcpy(&w, p, sizeof(w));
	return w;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static int hex_encode(const unsigned char *src, size_t n, char *hex, size_t hexlen)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (hexlen < 2 * n + 1)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[src[i] >> 4];
		hex[2 * i + 1] = digits[src[i] & 0xf];
	}
	hex[2 * n] = '\0';
	return 0;
}

int provenance_parse_build_id(const void *notes, size_t len, char *hex, size_t hexlen)
{
	const unsigned char *p = notes;
	size_t off = 0;

	while (off < len) {
		size_t namesz, descsz, name_off, desc_off;
		uint32_t type;

		if (len - off < NOTE_HDR_SIZE)
			return -EINVAL;
		namesz = note_word(p + off);
		descsz = note_word(p + off + 4);
		type = note_word(p + off + 8);
		name_off = off + NOTE_HDR_SIZE;
		/* compare against what is left so that huge sizes cannot wrap */
		if (align4(namesz) > len - name_off)
			return -EINVAL;
		desc_off = name_off + align4(namesz);
		if (align4(descsz) > len - desc_off)
			return -EINVAL;

		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_off, "GNU", 4)) {
			if (!descsz)
				return -EINVAL;
			return hex_encode(p + desc_off, descsz, hex, hexlen);
		}
		off = desc_off + align4(descsz);
	}
	return -ENOENT;
}

static int grow_small(char **buf, size_t *cap)
{
	char *bigger;

	if (*cap >= SMALL_FILE_MAX)
		return -EFBIG;
	bigger = realloc(*buf, 2 * *cap);
	if (!bigger)
		return -ENOMEM;
	*buf = bigger;
	*cap *= 2;
	return 0;
}

/* Reads a small file whole; *len excludes the terminating NUL appended for parsers. */
static int read_small_file(const char *path, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	ssize_t r;
	char *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto err_fd;
	}
	for (;;) {
		if (n + 1 == cap) {
			ret = grow_small(&buf, &cap);
			if (ret)
				goto err_buf;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto err_buf;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;

err_buf:
	free(buf);
err_fd:
	close(fd);
	return ret;
}

/* Optional facts are left out when unreadable; only running out of memory is fatal. */
static int add_build_id(struct kv_list *meta)
{
	char hex[2 * 64 + 1];
	size_t len;
	char *buf;
	int ret;

	if (read_small_file(SYS_NOTES, &buf, &len))
		return 0;
	ret = provenance_parse_build_id(buf, len, hex, sizeof(hex));
	free(buf);
	if (ret)
		return 0;
	return kv_add(meta, "kernel.build_id", "%s", hex);
}

static int add_cmdline(struct kv_list *meta)
{
	size_t len;
	char *buf;
	int ret;

	if (read_small_file("/proc/cmdline", &buf, &len))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	ret = kv_add(meta, "kernel.cmdline", "%s", buf);
	free(buf);
	return ret;
}

static int add_cpu_model(struct kv_list *meta)
{
	char *line = NULL, *colon;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "model name", 10))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		ret = kv_add(meta, "cpu.model", "%s", colon);
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

int provenance_kernel(struct kv_list *meta)
{
	struct utsname u;
	long ncpu;
	int ret;

	if (uname(&u))
		return -errno;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	ret = kv_add(meta, "kernel.release", "%s", u.release);
	if (!ret)
		ret = kv_add(meta, "kernel.version", "%s", u.version);
	if (!ret)
		ret = add_build_id(meta);
	if (!ret)
		ret = add_cmdline(meta);
	if (!ret)
		ret = add_cpu_model(meta);
	if (!ret && ncpu > 0)
		ret = kv_add(meta, "cpu.count", "%ld", ncpu);
	if (!ret)
		ret = kv_add(meta, "arch", "%s", u.machine);
	if (!ret)
		ret = kv_add(meta, "hostname", "%s", u.nodename);
	return ret;
}

bool provenance_config_relevant(const char *option)
{
	size_t i, n;

	for (i = 0; i < sizeof(relevant_options) / sizeof(relevant_options[0]); i++) {
		const char *pat = relevant_options[i];

		n = strlen(pat);
		if (pat[n - 1] == '*') {
			if (!strncmp(option, pat, n - 1))
				return true;
		} else if (!strcmp(option, pat)) {
			return true;
		}
	}
	return false;
}

/*
 * One config line into the list when relevant: "CONFIG_X=v" gives v and
 * "# CONFIG_X is not set" gives "n", the way Kconfig itself reads them.
 */
static int config_line(struct kv_list *config, char *line)
{
	char *name, *value, *end;

	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(line, "CONFIG_", 7)) {
		value = strchr(line, '=');
		if (!value)
			return 0;
		*value++ = '\0';
		name = line;
	} else if (!strncmp(line, "# CONFIG_", 9)) {
		name = line + 2;
		end = strstr(name, " is not set");
		if (!end || strcmp(end, " is not set"))
			return 0;
		*end = '\0';
		value = "n";
	} else {
		return 0;
	}
	if (!provenance_config_relevant(name))
		return 0;
	return kv_add(config, name, "%s", value);
}

/* Longer lines (long CONFIG_CMDLINE strings) are skipped whole, never split into two. */
static int config_read(struct kv_list *config, gzFile gz)
{
	char line[CONFIG_LINE_SIZE];
	bool skipping = false, whole;
	int errnum, ret;

	while (gzgets(gz, line, sizeof(line))) {
		whole = line[strlen(line) - 1] == '\n' || gzeof(gz);
		if (whole && !skipping) {
			ret = config_line(config, line);
			if (ret)
				return ret;
		}
		skipping = !whole;
	}
	gzerror(gz, &errnum);
	if (errnum == Z_MEM_ERROR)
		return -ENOMEM;
	if (errnum != Z_OK && errnum != Z_STREAM_END)
		return -EIO;
	return 0;
}

static int gz_open(const char *path, gzFile *gz)
{
	errno = 0;
	*gz = gzopen(path, "rb");
	if (*gz)
		return 0;
	/* gzopen leaves errno at 0 when it failed for lack of memory */
	return errno ? -errno : -ENOMEM;
}

/* gzopen reads a plain-text file transparently, so /boot/config-* needs no other reader. */
static int config_open(const char *path, gzFile *gz)
{
	char boot[sizeof("/boot/config-") + sizeof(((struct utsname *)0)->release)];
	struct utsname u;

	if (path)
		return gz_open(path, gz);
	if (!gz_open("/proc/config.gz", gz))
		return 0;
	if (uname(&u))
		return -errno;
	snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
	return gz_open(boot, gz);
}

int provenance_config(struct kv_list *config, const char *path)
{
	gzFile gz;
	int ret;

	ret = config_open(path, &gz);
	if (ret)
		return ret;
	ret = config_read(config, gz);
	gzclose(gz);
	return ret;
}

static int vuln_file(struct kv_list *vulns, int dfd, const char *name)
{
	char buf[512];
	int fd, err;
	ssize_t n;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return kv_add(vulns, name, "%s", buf);
}

static bool is_regular(int dfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_REG;
	return !fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

int provenance_vulns(struct kv_list *vulns, const char *dir)
{
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(dir ? dir : VULNS_DIR);
	if (!d)
		return -errno;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			ret = -errno;
			break;
		}
		if (!is_regular(dirfd(d), de))
			continue;
		ret = vuln_file(vulns, dirfd(d), de->d_name);
		if (ret)
			break;
	}
	closedir(d);
	if (!ret && vulns->n > 1)
		qsort(vulns->v, vulns->n, sizeof(*vulns->v), kv_cmp);
	return ret;
}

/* Cmdline parameters that switch a protection on or off. */
static const char *const knobs[] = {
	"init_on_alloc",
	"init_on_free",
	"mitigations",
	"pti",
	"nopti",
	"spectre_v2",
	"spectre_v1",
	"nospectre_v1",
	"nospectre_v2",
	"retbleed",
	"spec_store_bypass_disable",
	"mds",
	"tsx",
	"l1tf",
	"srbds",
	"gather_data_sampling",
	"spec_rstack_overflow",
	"slab_nomerge",
	"page_alloc.shuffle",
	"randomize_kstack_offset",
	"slub_debug",
	"hardened_usercopy",
	"page_poison",
	"kfence.sample_interval",
	"nokaslr",
	"kpti",
	"ibt",
	"lockdown",
};

bool provenance_is_knob(const char *tok)
{
	size_t i, n;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		n = strlen(knobs[i]);
		if (!strncmp(tok, knobs[i], n) && (tok[n] == '=' || !tok[n]))
			return true;
	}
	return false;
}

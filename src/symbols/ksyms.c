/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel symbol table. /proc/kallsyms has well over 100k symbols, so names
 * live in a chunked arena (chunks never move, so the name pointers handed
 * out stay valid while more symbols are added) and module names are interned.
 * A loaded file becomes one chunk itself, its names terminated in place.
 */
#include "symbols/ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARENA_CHUNK   (256 * 1024)
#define KALLSYMS_PATH "/proc/kallsyms"
/* /proc/kallsyms hands out a page per read() */
#define READ_MIN 4096

/* Rank bits of symbols sharing an address: the lowest rank names the address. */
#define RANK_STUB  (1u << 16) /* __pfx_ padding or __cfi_ preamble */
#define RANK_LOCAL (1u << 8)  /* local t/w loses to global T/W */
#define RANK_UNDER 0xffu      /* leading underscores: _text loses to the function there */

struct ksym_ent {
	struct ksym sym; /* first, so that lookups can hand out &ent->sym */
	__u32 rank;
	__u32 seq; /* insertion order, for a deterministic sort */
};

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct ksyms {
	struct ksym_ent *e;
	size_t n, cap;
	struct chunk *chunks;
	const char **mods; /* distinct module names, interned */
	size_t nmods, capmods;
	const char *last_mod;
};

/* A parsed "ADDR TYPE NAME [MODULE]" line; name is NUL-terminated and lives in the arena. */
struct kline {
	__u64 addr;
	char type;
	const char *name, *mod;
	size_t mod_len;
};

int ksyms_new(struct ksyms **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void ksyms_free(struct ksyms *ks)
{
	struct chunk *c, *next;

	if (!ks)
		return;
	for (c = ks->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(ks->mods);
	free(ks->e);
	free(ks);
}

static const char *arena_dup(struct ksyms *ks, const char *s, size_t len)
{
	struct chunk *c = ks->chunks;
	char *p;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = ks->chunks;
		ks->chunks = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

static bool str_eq(const char *a, const char *b, size_t b_len)
{
	return !strncmp(a, b, b_len) && a[b_len] == '\0';
}

/* Symbols of a module come in runs, so the previous module is checked first. */
static const char *intern_mod(struct ksyms *ks, const char *mod, size_t len)
{
	const char *m;
	size_t i;

	if (!len)
		return "";
	if (ks->last_mod && str_eq(ks->last_mod, mod, len))
		return ks->last_mod;
	for (i = 0; i < ks->nmods; i++) {
		if (str_eq(ks->mods[i], mod, len))
			return ks->last_mod = ks->mods[i];
	}
	if (ks->nmods == ks->capmods) {
		size_t cap = ks->capmods ? 2 * ks->capmods : 64;
		const char **mods = reallocarray(ks->mods, cap, sizeof(*mods));

		if (!mods)
			return NULL;
		ks->mods = mods;
		ks->capmods = cap;
	}
	m = arena_dup(ks, mod, len);
	if (!m)
		return NULL;
	ks->mods[ks->nmods++] = m;
	return ks->last_mod = m;
}

static __u32 sym_rank(const char *name, bool local)
{
	__u32 rank = local ? RANK_LOCAL : 0;
	size_t under = strspn(name, "_");

	if (!strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6))
		rank |= RANK_STUB;
	return rank | (under < RANK_UNDER ? under : RANK_UNDER);
}

static int add_sym(struct ksyms *ks, const struct kline *kl, bool local)
{
	struct ksym_ent *e;

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? 2 * ks->cap : 4096;

		e = reallocarray(ks->e, cap, sizeof(*e));
		if (!e)
			return -ENOMEM;
		ks->e = e;
		ks->cap = cap;
	}
	e = &ks->e[ks->n];
	e->sym.addr = kl->addr;
	e->sym.name = kl->name;
	e->sym.module = intern_mod(ks, kl->mod, kl->mod_len);
	if (!e->sym.module)
		return -ENOMEM;
	e->rank = sym_rank(e->sym.name, local);
	e->seq = ks->n++;
	return 0;
}

int ksyms_add(struct ksyms *ks, __u64 addr, const char *name, const char *module)
{
	struct kline kl = {
		.addr = addr,
		.mod = module ? module : "",
		.mod_len = module ? strlen(module) : 0,
	};

	/* names come from a data file, where a NULL column is possible */
	if (!name)
		return -EINVAL;
	kl.name = arena_dup(ks, name, strlen(name));
	if (!kl.name)
		return -ENOMEM;
	/* the data file keeps no symbol types, so every symbol ranks as global */
	return add_sym(ks, &kl, false);
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct ksym_ent *a = pa, *b = pb;

	if (a->sym.addr != b->sym.addr)
		return a->sym.addr < b->sym.addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Length of the leading run already in address order, putting symbols that
 * share an address in rank order on the way (such groups are a handful long).
 */
static size_t sorted_prefix(struct ksyms *ks)
{
	struct ksym_ent tmp;
	size_t i, j;

	for (i = 1; i < ks->n; i++) {
		if (ks->e[i].sym.addr < ks->e[i - 1].sym.addr)
			return i;
		for (j = i; j > 0 && ent_cmp(&ks->e[j - 1], &ks->e[j]) > 0; j--) {
			tmp = ks->e[j];
			ks->e[j] = ks->e[j - 1];
			ks->e[j - 1] = tmp;
		}
	}
	return ks->n;
}

/*
 * kallsyms lists vmlinux in address order, then modules, trampolines and BPF
 * programs, which interleave only among themselves at the top of the address
 * space; so only what follows the smallest of those needs sorting.
 */
void ksyms_sort(struct ksyms *ks)
{
	size_t k = sorted_prefix(ks), lo = 0, hi = k, mid, i;
	const struct ksym_ent *min;

	if (k == ks->n)
		return;
	min = &ks->e[k];
	for (i = k + 1; i < ks->n; i++) {
		if (ent_cmp(&ks->e[i], min) < 0)
			min = &ks->e[i];
	}
	/* the prefix below the first entry that sorts after min is already final */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ent_cmp(&ks->e[mid], min) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	qsort(ks->e + lo, ks->n - lo, sizeof(*ks->e), ent_cmp);
}

/* Index of the first symbol with address > addr. */
static size_t upper_bound(const struct ksyms *ks, __u64 addr)
{
	size_t lo = 0, hi = ks->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->e[mid].sym.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A recording goes on without kallsyms (kptr_restrict), so a NULL table finds nothing. */
const struct ksym *ksyms_lookup(const struct ksyms *ks, __u64 addr)
{
	size_t i = ks ? upper_bound(ks, addr) : 0;

	if (!i)
		return NULL;
	/* several symbols may start there: the best ranked sorts first */
	addr = ks->e[i - 1].sym.addr;
	while (i > 1 && ks->e[i - 2].sym.addr == addr)
		i--;
	return &ks->e[i - 1].sym;
}

long ksyms_index(const struct ksyms *ks, __u64 addr)
{
	size_t i = ks ? upper_bound(ks, addr) : 0;

	if (!i || ks->e[i - 1].sym.addr != addr)
		return -1;
	while (i > 1 && ks->e[i - 2].sym.addr == addr)
		i--;
	return (long)i - 1;
}

const struct ksym *ksyms_at(const struct ksyms *ks, size_t i)
{
	return ks && i < ks->n ? &ks->e[i].sym : NULL;
}

const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name)
{
	size_t i;

	for (i = 0; ks && i < ks->n; i++) {
		if (!strcmp(ks->e[i].sym.name, name))
			return &ks->e[i].sym;
	}
	return NULL;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Splits one NUL-terminated line in place; strtoull alone took a sixth of the load time. */
static int parse_line(char *line, struct kline *kl)
{
	char *p = line, *name, *close;
	int digits = 0, d;

	kl->addr = 0;
	while ((d = hex_digit(*p)) >= 0) {
		if (++digits > 16)
			return -EINVAL;
		kl->addr = kl->addr << 4 | d;
		p++;
	}
	if (!digits || p[0] != ' ' || !p[1] || p[2] != ' ')
		return -EINVAL;
	kl->type = p[1];
	name = p + 3;
	p = name + strcspn(name, " \t");
	if (p == name)
		return -EINVAL;
	kl->name = name;
	kl->mod = "";
	kl->mod_len = 0;
	if (!*p)
		return 0;
	*p++ = '\0';
	p += strspn(p, " \t");
	if (*p != '[')
		return 0;
	close = strchr(++p, ']');
	if (!close)
		return -EINVAL;
	kl->mod = p;
	kl->mod_len = close - p;
	return 0;
}

/* Only code symbols: an ip never falls in data, and per-cpu data would start below all code. */
static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Reads the whole file into a chunk, NUL-terminated, before any name points into it. */
static int read_chunk(int fd, struct chunk **out)
{
	size_t cap = 1 << 20, len = 0;
	struct chunk *c, *bigger;
	ssize_t r;
	int ret;

	*out = NULL;
	c = malloc(sizeof(*c) + cap);
	if (!c)
		return -ENOMEM;
	for (;;) {
		if (cap - len <= READ_MIN) {
			ret = -ENOMEM;
			bigger = realloc(c, sizeof(*c) + 2 * cap);
			if (!bigger)
				goto err;
			c = bigger;
			cap *= 2;
		}
		r = read(fd, c->data + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += r;
	}
	if (r < 0) {
		ret = -errno;
		goto err;
	}
	c->data[len] = '\0';
	c->size = c->used = len + 1;
	*out = c;
	return 0;

err:
	free(c);
	return ret;
}

static int load_text(struct ksyms *ks, char *p)
{
	bool any_line = false, any_addr = false;
	struct kline kl;
	char *line;
	int ret;

	while (*p) {
		line = p;
		p = strchrnul(p, '\n');
		if (*p)
			*p++ = '\0';
		if (!*line)
			continue;
		ret = parse_line(line, &kl);
		if (ret)
			return ret;
		any_line = true;
		if (!kl.addr)
			continue;
		any_addr = true;
		if (!is_text(kl.type))
			continue;
		ret = add_sym(ks, &kl, kl.type == 't' || kl.type == 'w');
		if (ret)
			return ret;
	}
	/* kptr_restrict shows every address as 0; an empty file has nothing at all */
	if (!any_addr)
		return any_line ? -EPERM : -ENODATA;
	return 0;
}

int ksyms_load_fd(struct ksyms **out, int fd)
{
	struct ksyms *ks;
	struct chunk *c;
	int ret;

	ret = ksyms_new(&ks);
	if (ret)
		return ret;
	ret = read_chunk(fd, &c);
	if (ret)
		goto err;
	c->next = NULL;
	ks->chunks = c;
	ret = load_text(ks, c->data);
	if (ret)
		goto err;
	ksyms_sort(ks);
	*out = ks;
	return 0;

err:
	ksyms_free(ks);
	return ret;
}

int ksyms_load(struct ksyms **out, const char *path)
{
	int fd, ret;

	fd = open(path ? path : KALLSYMS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ksyms_load_fd(out, fd);
	close(fd);
	return ret;
}

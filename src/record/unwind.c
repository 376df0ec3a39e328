// SPDX-License-Identifier: GPL-2.0-only
/*
 * User stacks unwound with libdw (dwfl_attach_state with callbacks of our
 * own, dwfl_getthread_frames).  One Dwfl per address space, kept across
 * samples, so that a file's CFI is parsed once per space: its modules are
 * reported as frames land in them, from the caller's map table.  Memory is
 * the sample's stack copy and nothing else.
 */
#include "record/unwind.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <elfutils/libdwfl.h>

/* Dwfls kept: the address spaces unwound into last */
#define UNW_SPACES 64
/* Each reported file holds a descriptor: past this many, spaces used least lately are dropped. */
#define UNW_FILES 512
/* libdwfl asks for a thread id; there is one thread per walk, any id does */
#define UNW_TID 1

/* One sample being unwound. */
struct walk {
	const __u64 *regs;
	const unsigned char *stack;
	size_t len;
	unw_find_map find;
	void *ctx;
	__u64 *ips;
	int max, n;
	/* a read outside the copy or an address outside every mapping: not the real end */
	bool lost;
};

struct space {
	struct unwinder *u;
	__u64 id;
	Dwfl *dwfl; /* NULL: slot free */
	struct walk *w;
	__u64 used; /* unwinder.tick when last unwound into */
	int files;
	/* the map table moved under reported files: start again at the next sample */
	bool stale;
};

struct unwinder {
	struct space spaces[UNW_SPACES];
	/* an x86_64 ELF header: dwfl_attach_state takes the architecture from it */
	Elf64_Ehdr ehdr;
	Elf *arch;
	__u64 tick;
	int files;
	int vdso_fd; /* this process's vDSO image: the same kernel's; -1 not made, -2 none */
	long page;
};

static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	return -1;
}

/*
 * Modules are reported with their files open; .debug_frame may come from a
 * build-id debug file, never from debuginfod in the middle of a recording.
 */
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = no_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	return 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct walk *w = ((struct space *)arg)->w;
	__u64 sp = w->regs[UNW_REG_SP];

	if (addr < sp || w->len < sizeof(*result) || addr - sp > w->len - sizeof(*result)) {
		w->lost = true;
		return false;
	}
	memcpy(result, w->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct walk *w = ((struct space *)arg)->w;
	Dwarf_Word regs[UNW_REGS];
	int i;

	for (i = 0; i < UNW_REGS; i++)
		regs[i] = w->regs[i];
	return dwfl_thread_state_registers(thread, 0, UNW_REGS, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* A copy of the vDSO in a memfd, for libdwfl, which reads modules from files. */
static int vdso_copy(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	int fd;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return -2;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	fd = memfd_create("kprotperf-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -2;
	if (write(fd, eh, size) != (ssize_t)size) {
		close(fd);
		return -2;
	}
	return fd;
}

/* Whether m maps a file the unwinder can read CFI from. */
static bool is_file(const struct unw_map *m)
{
	return m->path[0] == '/' || !strcmp(m->path, "[vdso]");
}

/* A descriptor of the file is_file() found mapped at m, or of the vDSO copy. */
static int open_map(struct unwinder *u, const struct unw_map *m)
{
	if (m->path[0] == '/')
		return open(m->path, O_RDONLY | O_CLOEXEC);
	if (u->vdso_fd == -1)
		u->vdso_fd = vdso_copy();
	return u->vdso_fd < 0 ? -1 : fcntl(u->vdso_fd, F_DUPFD_CLOEXEC, 0);
}

struct span {
	GElf_Addr bias, lo, hi;
};

/*
 * Where the file mapped at m is laid out, ip being in that mapping: the
 * PT_LOAD segment holding ip and file offset m->pgoff is at m->start.  Not
 * simply start - pgoff: a segment's address and offset may differ by more
 * than a page (lld puts .text a page above its file offset).
 */
static int file_span(Elf *e, const struct unw_map *m, __u64 ip, long page, struct span *out)
{
	GElf_Phdr ph;
	GElf_Ehdr eh;
	GElf_Addr bias;
	size_t n, i;
	bool found = false;

	if (!gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 || elf_getphdrnum(e, &n))
		return -ENOEXEC;
	out->lo = ~0ULL;
	out->hi = 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		bias = eh.e_type == ET_EXEC ? 0 : m->start - ph.p_vaddr + ph.p_offset - m->pgoff;
		if (!found && m->pgoff >= (ph.p_offset & ~(GElf_Off)(page - 1)) &&
		    m->pgoff < ph.p_offset + ph.p_filesz && ip >= bias + ph.p_vaddr &&
		    ip < bias + ph.p_vaddr + ph.p_memsz) {
			out->bias = bias;
			found = true;
		}
		if (ph.p_vaddr < out->lo)
			out->lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > out->hi)
			out->hi = ph.p_vaddr + ph.p_memsz;
	}
	if (!found)
		return -ENOENT;
	out->lo += out->bias;
	out->hi += out->bias;
	return 0;
}

static int overlaps(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		    void *arg)
{
	const struct span *sp = arg;
	Dwarf_Addr lo, hi;

	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	return lo < sp->hi && sp->lo < hi ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Report the file mapped at m, whose descriptor is fd (consumed), into s's Dwfl. */
static void report_file(struct space *s, const struct unw_map *m, __u64 ip, int fd)
{
	const char *slash = strrchr(m->path, '/');
	struct span sp;
	Elf *e;
	int err;

	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = e ? file_span(e, m, ip, s->u->page, &sp) : -ENOEXEC;
	elf_end(e);
	if (!err && dwfl_getmodules(s->dwfl, overlaps, &sp, 0)) {
		/* a file that is no longer there: the next sample starts afresh */
		s->stale = true;
		err = -EEXIST;
	}
	if (err ||
	    !dwfl_report_elf(s->dwfl, slash ? slash + 1 : m->path, m->path, fd, sp.bias, true)) {
		close(fd);
		return;
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	s->files++;
	s->u->files++;
}

/*
 * Make sure the module holding ip is the file mapped there, reported when
 * it was not yet.  -ENOENT: nothing is mapped at ip, no code can be there;
 * -ESTALE: the module there is another file, the map table changed under it.
 */
static int report(struct space *s, __u64 ip)
{
	struct walk *w = s->w;
	const char *file = NULL;
	Dwfl_Module *mod;
	struct unw_map m;
	int fd;

	if (w->find(w->ctx, ip, &m))
		return -ENOENT;
	if (!m.path || ip < m.start || ip >= m.end)
		return 0;
	mod = dwfl_addrmodule(s->dwfl, ip);
	if (mod) {
		/* a module's span holds its .bss and gaps too: only another file is news */
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
		if (!file || !is_file(&m) || !strcmp(file, m.path))
			return 0;
		s->stale = true;
		return -ESTALE;
	}
	if (s->stale || !is_file(&m))
		return 0;
	fd = open_map(s->u, &m);
	if (fd >= 0)
		report_file(s, &m, ip, fd);
	return 0;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct space *s = arg;
	struct walk *w = s->w;
	Dwarf_Addr pc;
	int err;

	/* not asking whether it is an activation: that unwinds before the module is there */
	if (!dwfl_frame_pc(state, &pc, NULL)) {
		w->lost = true;
		return DWARF_CB_ABORT;
	}
	/* a return address is looked up at its call, before it */
	err = report(s, w->n ? pc - 1 : pc);
	/* a first frame is where the sample is, whatever is mapped there */
	if (err == -ENOENT && w->n) {
		w->lost = true;
		return DWARF_CB_ABORT;
	}
	w->ips[w->n++] = pc;
	if (w->n < w->max && err != -ESTALE)
		return DWARF_CB_OK;
	w->lost = true;
	return DWARF_CB_ABORT;
}

/*
 * libdwfl ends a walk as at the outermost frame when a return address reads
 * as 0 or cannot be read: whether the last frame's CFI really leaves the
 * return address undefined, as _start's does.
 */
static bool cfi_outermost(struct space *s, Dwarf_Addr pc, bool initial)
{
	Dwarf_Addr look = initial ? pc : pc - 1, bias;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, look);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op mem[3], *ops;
	Dwarf_CFI *cfi;
	size_t nops;
	bool end;

	if (!mod)
		return false;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, look - bias, &frame)) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, look - bias, &frame))
			return false;
	}
	end = !dwarf_frame_register(frame, dwarf_frame_info(frame, NULL, NULL, NULL), mem, &ops,
				    &nops) &&
	      nops == 0 && ops == mem;
	free(frame);
	return end;
}

static void space_drop(struct unwinder *u, struct space *s)
{
	dwfl_end(s->dwfl);
	u->files -= s->files;
	s->dwfl = NULL;
	s->files = 0;
	s->stale = false;
}

static int space_open(struct unwinder *u, struct space *s, __u64 id)
{
	s->dwfl = dwfl_begin(&dwfl_cbs);
	if (!s->dwfl)
		return -ENOMEM;
	if (!dwfl_attach_state(s->dwfl, u->arch, UNW_TID, &thread_cbs, s)) {
		dwfl_end(s->dwfl);
		s->dwfl = NULL;
		return -EOPNOTSUPP;
	}
	s->id = id;
	return 0;
}

/* The space used least lately but keep, NULL when none other is open. */
static struct space *space_lru(struct unwinder *u, const struct space *keep)
{
	struct space *s, *lru = NULL;

	for (s = u->spaces; s < u->spaces + UNW_SPACES; s++)
		if (s->dwfl && s != keep && (!lru || s->used < lru->used))
			lru = s;
	return lru;
}

/* The Dwfl of space id, opened (and others dropped) as needed; NULL without memory. */
static struct space *space_get(struct unwinder *u, __u64 id)
{
	struct space *s, *found = NULL, *spare = NULL;

	for (s = u->spaces; s < u->spaces + UNW_SPACES && !found; s++) {
		if (s->dwfl && s->id == id)
			found = s;
		else if (!s->dwfl && !spare)
			spare = s;
	}
	if (found && found->stale)
		space_drop(u, found);
	if (!found) {
		found = spare ?: space_lru(u, NULL);
		if (found->dwfl)
			space_drop(u, found);
	}
	while (u->files > UNW_FILES && (s = space_lru(u, found)))
		space_drop(u, s);
	if (!found->dwfl && space_open(u, found, id))
		return NULL;
	found->used = ++u->tick;
	return found;
}

int unwinder_new(struct unwinder **out)
{
	struct unwinder *u;
	int i;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	memcpy(u->ehdr.e_ident, ELFMAG, SELFMAG);
	u->ehdr.e_ident[EI_CLASS] = ELFCLASS64;
	u->ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
	u->ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	u->ehdr.e_type = ET_DYN;
	u->ehdr.e_machine = EM_X86_64;
	u->ehdr.e_version = EV_CURRENT;
	u->ehdr.e_ehsize = sizeof(u->ehdr);
	u->arch = elf_memory((char *)&u->ehdr, sizeof(u->ehdr));
	if (!u->arch) {
		free(u);
		return -ENOMEM;
	}
	for (i = 0; i < UNW_SPACES; i++)
		u->spaces[i].u = u;
	u->vdso_fd = -1;
	u->page = sysconf(_SC_PAGESIZE);
	*out = u;
	return 0;
}

void unwinder_free(struct unwinder *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < UNW_SPACES; i++)
		if (u->spaces[i].dwfl)
			space_drop(u, &u->spaces[i]);
	if (u->vdso_fd >= 0)
		close(u->vdso_fd);
	elf_end(u->arch);
	free(u);
}

void unwinder_forget(struct unwinder *u, __u64 space)
{
	struct space *s;

	for (s = u->spaces; s < u->spaces + UNW_SPACES; s++) {
		if (!s->dwfl || s->id != space)
			continue;
		/* asked during the walk (find_map draining side-band records): after it */
		if (s->w)
			s->stale = true;
		else
			space_drop(u, s);
	}
}

int unwind_user(struct unwinder *u, __u64 space, unw_find_map find, void *ctx,
		const __u64 regs[UNW_REGS], const void *stack, size_t len, __u64 *ips, int max,
		bool *truncated)
{
	struct walk w = {
		.regs = regs,
		.stack = stack,
		.len = stack ? len : 0,
		.find = find,
		.ctx = ctx,
		.ips = ips,
		.max = max,
	};
	struct space *s;

	*truncated = true;
	if (max < 1)
		return -EINVAL;
	if (!regs[UNW_REG_IP])
		return 0;
	s = space_get(u, space);
	if (s) {
		s->w = &w;
		if (!dwfl_getthread_frames(s->dwfl, UNW_TID, frame_cb, s) && !w.lost && w.n)
			*truncated = !cfi_outermost(s, ips[w.n - 1], w.n == 1);
		s->w = NULL;
	}
	if (!w.n)
		ips[w.n++] = regs[UNW_REG_IP];
	return w.n;
}

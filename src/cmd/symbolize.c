// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf symbolize: kernel addresses to functions, inline chains and
 * source lines, printed the way eu-addr2line -f -i prints them (less the
 * columns), so that the two can be compared line by line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/cli.h"
#include "symbols/debuginfo.h"
#include "symbols/elfsym.h"
#include "symbols/symbolize.h"
#include "cmd/cmds.h"

static const char usage[] =
	"Usage: kprotperf symbolize --vmlinux PATH [OPTIONS] [ADDR...]\n"
	"Print the function and source line of each kernel address (hex, 0x optional;\n"
	"from stdin, one a line, unless given as arguments), from the DWARF of PATH,\n"
	"in eu-addr2line's format without columns: with -f a function line before\n"
	"each FILE:LINE line; with -i also the functions the code was inlined into,\n"
	"innermost first, each with its call site. ?? and ??:0 mark what is unknown.\n"
	"  -e, --vmlinux PATH   vmlinux with DWARF (e.g. from linux-image-RELEASE-dbg)\n"
	"  -a, --addresses      print each address (as 0x%016x) before its lines\n"
	"  -f, --functions      print function names\n"
	"  -i, --inlines        print the inline chain\n"
	"  -s, --basenames      file names without their directories\n"
	"      --slide HEX      subtracted from every address (runtime minus link-time\n"
	"                       address, e.g. from a KASLR kernel's /proc/kallsyms)\n"
	"  -h, --help           this text\n";

struct sym_opts {
	const char *vmlinux;
	bool addresses, functions, inlines, basenames;
	__u64 slide;
};

/* The file, for what symbolize() does not answer: ELF symbols. */
struct vmlinux {
	/* function symbols: dwfl_module_addrname() scans every symbol for each address */
	struct elfsym *syms;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
};

static int parse_hex(const char *s, __u64 *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 16);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return errno || end == s || *end ? -EINVAL : 0;
}

static int parse(int argc, char **argv, struct sym_opts *o)
{
	static const struct option longopts[] = {
		{"vmlinux", required_argument, NULL, 'e'}, {"addresses", no_argument, NULL, 'a'},
		{"functions", no_argument, NULL, 'f'},	   {"inlines", no_argument, NULL, 'i'},
		{"basenames", no_argument, NULL, 's'},	   {"slide", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},	   {},
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, ":e:afish", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->vmlinux = optarg;
			break;
		case 'a':
			o->addresses = true;
			break;
		case 'f':
			o->functions = true;
			break;
		case 'i':
			o->inlines = true;
			break;
		case 's':
			o->basenames = true;
			break;
		case 'S':
			if (parse_hex(optarg, &o->slide)) {
				fprintf(stderr,
					"kprotperf symbolize: --slide wants hex, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			return cli_bad_option("symbolize", c, argv[optind - 1]);
		}
	}
	if (!o->vmlinux) {
		fputs("kprotperf symbolize: --vmlinux PATH is required (see kprotperf symbolize "
		      "--help)\n",
		      stderr);
		return -EINVAL;
	}
	return 0;
}

static const char *shown(const struct sym_opts *o, const char *file)
{
	const char *slash = o->basenames ? strrchr(file, '/') : NULL;

	return slash ? slash + 1 : file;
}

static void print_src(const struct sym_opts *o, const char *file, int line)
{
	if (file)
		printf("%s:%d\n", shown(o, file), line);
	else
		fputs("??:0\n", stdout);
}

/*
 * eu-addr2line names an inlined instance by where it was inlined and the
 * symbol holding it, which tells compiler clones (.constprop.0) apart.
 */
static void print_func(const struct sym_opts *o, const struct vmlinux *vm, __u64 addr,
		       const struct sym_result *r)
{
	const struct sym_frame *call = &r->frames[1];
	const char *sym;
	__u64 off;

	fputs(r->frames[0].func ?: "??", stdout);
	if (r->frames[0].inlined && r->n > 1) {
		fputs(" inlined", stdout);
		if (call->file)
			printf(call->line ? " at %s:%d" : " from %s", shown(o, call->file),
			       call->line);
		sym = elfsym_find(vm->syms, addr, &off);
		printf(" in %s", sym ?: r->frames[r->n - 1].func ?: "??");
	}
	putchar('\n');
}

/* An address in code the DWARF has no function for, such as assembly: ELF symbol and line. */
static void print_fallback(const struct sym_opts *o, const struct vmlinux *vm, __u64 addr,
			   const struct sym_result *r)
{
	const char *name;
	__u64 off;

	if (o->functions) {
		name = elfsym_find(vm->syms, addr, &off);
		/* assembly's symbols are rarely typed as functions: ask about all, slowly */
		if (!name)
			name = dwfl_module_addrname(vm->mod, addr + vm->bias);
		puts(name ?: "??");
	}
	print_src(o, r->frames[0].file, r->frames[0].line);
}

static void print_result(const struct sym_opts *o, const struct vmlinux *vm, __u64 addr,
			 const struct sym_result *r)
{
	unsigned int k;

	if (!r->n) {
		print_fallback(o, vm, addr, r);
		return;
	}
	if (o->functions)
		print_func(o, vm, addr, r);
	print_src(o, r->frames[0].file, r->frames[0].line);
	for (k = 1; o->inlines && k < r->n; k++) {
		if (o->functions)
			puts(r->frames[k].func ?: "??");
		print_src(o, r->frames[k].file, r->frames[k].line);
	}
}

/* One address as text; one that does not parse is unknown, so output stays in step with input. */
static int symbolize_one(const struct sym_opts *o, struct symbolizer *s, const struct vmlinux *vm,
			 const char *text)
{
	const struct sym_result *r;
	__u64 addr;
	int err;

	if (parse_hex(text, &addr)) {
		if (o->addresses)
			printf("%.*s\n", (int)strcspn(text, "\r\n"), text);
		if (o->functions)
			puts("??");
		puts("??:0");
		return 0;
	}
	if (o->addresses)
		printf("0x%016llx\n", (unsigned long long)addr);
	addr -= o->slide;
	err = symbolize(s, addr, &r);
	if (err)
		return err;
	print_result(o, vm, addr, r);
	return 0;
}

static int symbolize_all(const struct sym_opts *o, struct symbolizer *s, const struct vmlinux *vm,
			 int argc, char **argv)
{
	size_t cap = 0;
	char *line = NULL;
	int err = 0;

	if (optind < argc) {
		for (; optind < argc && !err; optind++)
			err = symbolize_one(o, s, vm, argv[optind]);
		return err;
	}
	while (!err && getline(&line, &cap, stdin) > 0) {
		if (line[strspn(line, " \t\r\n")])
			err = symbolize_one(o, s, vm, line);
	}
	free(line);
	return err;
}

/* The release the -dbg package is named after: vmlinux-RELEASE's, else the running kernel's. */
static const char *guess_release(const char *path, struct utsname *u)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (!strncmp(base, "vmlinux-", 8) && base[8])
		return base + 8;
	return uname(u) ? NULL : u->release;
}

static void open_error(const char *path, int err)
{
	struct utsname u;
	char why[512];

	debuginfo_explain(err, path, guess_release(path, &u), why, sizeof(why));
	fprintf(stderr, "kprotperf symbolize: %s\n", why);
}

int cmd_symbolize(int argc, char **argv)
{
	struct vmlinux vm = {};
	struct symbolizer *s = NULL;
	struct debuginfo *di;
	struct sym_opts o;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	err = debuginfo_open(&di, o.vmlinux);
	if (err) {
		open_error(o.vmlinux, err);
		return 1;
	}
	vm.mod = debuginfo_module(di);
	debuginfo_dwarf(di, &vm.bias);
	err = elfsym_open(o.vmlinux, NULL, &vm.syms);
	if (err)
		goto out;
	err = symbolizer_new(&s, di);
	if (err)
		goto out;
	err = symbolize_all(&o, s, &vm, argc, argv);
	if (!err && fflush(stdout))
		err = -errno;
out:
	if (err)
		fprintf(stderr, "kprotperf symbolize: %s\n", strerror(-err));
	symbolizer_free(s);
	elfsym_free(vm.syms);
	debuginfo_close(di);
	return err ? 1 : 0;
}

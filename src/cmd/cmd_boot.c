// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf boot: its options, checked before anything runs, then the boots. */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "cmd/options.h"
#include "util/esc.h"

enum {
	OPT_KERNEL = OPTIONS_LONG_ONLY,
	OPT_APPEND,
	OPT_CPU,
	OPT_MODEL,
	OPT_I1,
	OPT_D1,
	OPT_LL,
	OPT_TIMEOUT,
	OPT_CORE,
};

static const struct options_entry entries[] = {
	{'o', "output", "FILE",
	 "the recording to write (required; replaced atomically,\n"
	 "only when every boot went well): absent or a regular file"},
	{OPT_KERNEL, "kernel", "DIR|PACKAGE",
	 "the kernel to boot, as scripts/vm-run.sh --kernel\n"
	 "takes it: a folder of scripts/kernel-build.sh or a\n"
	 "Debian kernel package (default: Debian 12's 6.1)"},
	{OPT_APPEND, "append", "CMDLINE",
	 "added to the kernel command line (after vm-run.sh's\n"
	 "own and initcall_debug log_buf_len=4M)"},
	{OPT_CPU, "cpu", "MODEL",
	 "the CPU QEMU emulates, as scripts/vm-run.sh --cpu takes\n"
	 "it: a named model (Skylake-Client-v1, EPYC-Rome-v1, ...;\n"
	 "default max), whose vulnerabilities the kernel mitigates"},
	{'r', "repeat", "N",
	 "boot N times, each a run of the recording (default 1, at\n"
	 "most 100)"},
	{OPT_MODEL, "model", "MODE",
	 "insns, cache or timing: also count, with kprotperf's\n"
	 "machine model, the instructions (cache: and simulated\n"
	 "cache misses; timing: and the timing model's cycles,\n"
	 "est_cycles) per kernel function from reset to the first\n"
	 "user-mode instruction"},
	{OPT_CORE, "core", "CORE",
	 "with --model timing, the core description as vm-run.sh\n"
	 "--core takes it: a FILE, a NAME of share/cores, or\n"
	 "native (default: vm-run.sh's, by --cpu)"},
	{OPT_I1, "I1", "SIZE,ASSOC,LINE",
	 "with --model cache: the L1 instruction cache (bytes,\n"
	 "ways, bytes; repeat for a sweep), as vm-run.sh takes it"},
	{OPT_D1, "D1", "SIZE,ASSOC,LINE", "the same for the L1 data cache"},
	{OPT_LL, "LL", "SIZE,ASSOC,LINE", "the same for the last-level cache"},
	{OPT_TIMEOUT, "timeout", "S",
	 "give up on a boot after S seconds (default: vm-run.sh's,\n"
	 "180; 600 with --model cache or timing)"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf boot --model insns -r 2 -o base.data",
	 "two boots of Debian's 6.1 with the instructions per function"},
	{"kprotperf boot --model insns -r 2 --append page_alloc.shuffle=1 -o s.data",
	 "the same with the page allocator's shuffling on, for kprotperf\n"
	 "diff base.data s.data"},
	{"kprotperf boot --cpu Skylake-Client-v1 -o sky.data",
	 "a boot on an emulated Skylake: the kernel turns PTI on"},
	{},
};

const struct options_cmd boot_options = {
	.name = "boot",
	.head = "Usage: kprotperf boot [OPTIONS] -o FILE\n"
		"Boot a kernel N times in QEMU (scripts/vm-run.sh --boot: TCG with icount, one\n"
		"vCPU, the guest's clock counting instructions) and record each boot: its\n"
		"phases (reset to the kernel's entry with --model, to the initcalls' end and to\n"
		"the first user process), every initcall's time and return value, and with\n"
		"--model the instructions per kernel function. kprotperf report, folded, diff\n"
		"and features read the recording.\n",
	.foot = "vm-run.sh is $KP_VM_RUN, else scripts/vm-run.sh beside the kprotperf binary.\n"
		"Each boot's raw folder goes to a private scratch folder, removed at the end.\n",
	.status = "0 when the recording was written, 125 when a boot failed (the\n"
		  "console's last lines and vm-run.sh's reason on stderr; nothing written),\n"
		  "1 when anything else failed (one line on stderr says why), 2 for a usage\n"
		  "error.\n",
	.examples = examples,
	.column = 23,
	.opts = entries,
};

static const struct options_number num_repeat = {"--repeat", 1, 100, true,
						 "expected a number of boots, 1..100"};
static const struct options_number num_timeout = {"--timeout", 1, 86400, true,
						  "expected whole seconds, 1..86400"};

static int bad_arg(const char *opt, const char *arg, const char *want)
{
	esc_printf(stderr, "kprotperf boot: invalid %s '%s': %s\n", opt, arg, want);
	return -EINVAL;
}

/* --cpu: vm-run.sh asks QEMU whether it runs the model; here its form, QEMU's -cpu words. */
static int set_cpu(struct boot_opts *o, const char *arg)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789-_.,=+";

	o->cpu = arg;
	if (!*arg || *arg == '-' || *arg == ',' || strspn(arg, chars) != strlen(arg))
		return bad_arg("--cpu", arg,
			       "expected a QEMU CPU model such as Skylake-Client-v1"
			       " (qemu-system-x86_64 -cpu help)");
	return 0;
}

/* --I1, --D1, --LL: passed on to vm-run.sh, which checks the geometry; here its form. */
static int add_cache(struct boot_opts *o, const char *opt, const char *arg)
{
	unsigned long long v[3];
	int n = 0;

	if (sscanf(arg, "%llu,%llu,%llu%n", &v[0], &v[1], &v[2], &n) != 3 || arg[n] ||
	    strspn(arg, "0123456789,") != strlen(arg) || !v[0] || !v[1] || !v[2])
		return bad_arg(opt, arg, "expected SIZE,ASSOC,LINE (bytes, ways, bytes)");
	if (o->ncaches == BOOT_CACHE_ARGS_MAX)
		return bad_arg(opt, arg, "too many cache geometries");
	snprintf(o->caches[o->ncaches++], sizeof(o->caches[0]), "%s=%s", opt, arg);
	return 0;
}

static int set_opt(void *ctx, int c, const char *arg)
{
	struct boot_opts *o = ctx;
	double v = 0;
	int err;

	switch (c) {
	case 'o':
		o->output = arg;
		return 0;
	case OPT_KERNEL:
		o->kernel = arg;
		return 0;
	case OPT_APPEND:
		o->append = arg;
		return 0;
	case OPT_CPU:
		return set_cpu(o, arg);
	case 'r':
		err = options_num(&boot_options, &num_repeat, arg, &v);
		o->repeat = v;
		return err;
	case OPT_TIMEOUT:
		err = options_num(&boot_options, &num_timeout, arg, &v);
		o->timeout = v;
		return err;
	case OPT_MODEL:
		o->model = arg;
		return strcmp(arg, "insns") && strcmp(arg, "cache") && strcmp(arg, "timing")
			       ? bad_arg("--model", arg, "expected insns, cache or timing")
			       : 0;
	case OPT_CORE:
		o->core = arg;
		return 0;
	case OPT_I1:
		return add_cache(o, "--I1", arg);
	case OPT_D1:
		return add_cache(o, "--D1", arg);
	case OPT_LL:
		return add_cache(o, "--LL", arg);
	}
	return -EINVAL;
}

static int check(const struct boot_opts *o, int argc, char **argv)
{
	if (optind < argc) {
		esc_printf(stderr,
			   "kprotperf boot: no operand is taken, not '%s' (the recording "
			   "is -o FILE)\n",
			   argv[optind]);
		return -EINVAL;
	}
	if (!o->output) {
		fprintf(stderr, "kprotperf boot: give -o FILE, the recording to write\n");
		return -EINVAL;
	}
	if (o->ncaches && (!o->model || strcmp(o->model, "cache"))) {
		fprintf(stderr, "kprotperf boot: --I1, --D1 and --LL are cache geometries: they "
				"need --model cache\n");
		return -EINVAL;
	}
	if (o->core && (!o->model || strcmp(o->model, "timing"))) {
		fprintf(stderr, "kprotperf boot: --core describes the timing model's core: it needs"
				" --model timing\n");
		return -EINVAL;
	}
	return 0;
}

int cmd_boot(int argc, char **argv)
{
	struct boot_opts o = {.repeat = 1};
	int err;

	err = options_parse(&boot_options, argc, argv, set_opt, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (check(&o, argc, argv))
		return 2;
	return boot_run(&o);
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernels the vm tier builds (scripts/kernel-build.sh), each named once
# here so that two tests asking for the same kernel ask for the same .config
# and nothing is built twice.  A test names those it uses on a line
# "# kernels: NAME..." and gets each one's folder from vm_kbuild (vm.sh);
# tests/run.sh builds the union first, in this file's order — the order
# that keeps the one build tree per source rebuilding least (the builds
# that share compiler flags next to each other; a compiler-flag option such
# as ZERO_CALL_USED_REGS recompiles everything, so it comes last).
#
#   tests/vm/kernels.sh build NAME...   build those (cached), one line each
#   tests/vm/kernels.sh args NAME       kernel-build.sh's arguments of NAME

# What zbase and zcur leave out of kprotperf.config: kernels only
# inventoried (features --vmlinux reads code and symbols), never booted,
# whose compiler flag recompiles every file, so they keep only what shapes
# the code (64-bit, -O2, SLUB) and leave out the rest: what the VM and a
# userland need (ACPI, PCI, virtio, the network and 9p, the console,
# procfs, sysfs, SMP, printk, ELF binaries), BPF, probes, ftrace and
# modules, kallsyms, DWARF and BTF (-g does not change the code gcc emits):
# 489 files, 202 CPU s for zbase, then 152 for zcur, where base's config
# took 1,405.
ONLY_CODE="--set SLAB_FREELIST_RANDOM=n --set ACPI=n
		--set DEBUG_INFO_NONE=y --set DEBUG_INFO_DWARF5=n --set DEBUG_INFO_BTF=n
		--set PCI=n --set VIRTIO_MENU=n --set VIRTIO=n --set VIRTIO_PCI=n
		--set NET=n --set INET=n --set NET_9P=n --set NET_9P_VIRTIO=n
		--set NETWORK_FILESYSTEMS=n --set 9P_FS=n
		--set BPF_SYSCALL=n --set BPF_JIT=n --set BPF_JIT_ALWAYS_ON=n --set BPF_EVENTS=n
		--set KPROBES=n --set KRETPROBES=n --set KPROBE_EVENTS=n --set FTRACE=n
		--set FUNCTION_TRACER=n --set DYNAMIC_FTRACE=n --set FTRACE_SYSCALLS=n
		--set FPROBE=n --set DEBUG_FS=n --set MODULES=n --set IKCONFIG=n
		--set IKCONFIG_PROC=n --set KALLSYMS=n --set KALLSYMS_ALL=n --set PROC_KCORE=n
		--set TTY=n --set SERIAL_8250=n --set SERIAL_8250_CONSOLE=n --set PRINTK=n
		--set PROC_FS=n --set SYSFS=n --set DEVTMPFS=n --set TMPFS=n --set SHMEM=n
		--set MULTIUSER=n --set FUTEX=n --set EPOLL=n --set SIGNALFD=n --set TIMERFD=n
		--set EVENTFD=n --set POSIX_TIMERS=n --set HIGH_RES_TIMERS=n --set FILE_LOCKING=n
		--set BLK_DEV_INITRD=n --set BINFMT_ELF=n --set BINFMT_SCRIPT=n --set SMP=n
		--set NR_CPUS=1"

# shellcheck disable=SC2034 # read through the name
KERNELS=(
	# the hardened side of the FREELIST_RANDOM pair: kprotperf.config as is
	"hard:"
	# its baseline, differing in that option alone
	"base: --set SLAB_FREELIST_RANDOM=n"
	# struct layout randomization beside base (t_randstruct): the GCC plugin
	# with kernel-build.sh's fixed seed; the plugin's flags recompile
	# every file, as the zero-call-used-regs pair's does
	"rand: --set SLAB_FREELIST_RANDOM=n --set RANDSTRUCT_FULL=y"
	# the compiler-inserted pair, differing in zeroed call-used registers
	# alone, so that their text differs by the code the flag adds
	"zbase: $ONLY_CODE"
	"zcur: $ONLY_CODE --set ZERO_CALL_USED_REGS=y"
)

# kernels_args NAME: prints kernel-build.sh's arguments of NAME, one per line;
# fails for a name this file does not have.
kernels_args() {
	local k
	for k in "${KERNELS[@]}"; do
		[ "${k%%:*}" = "$1" ] || continue
		# shellcheck disable=SC2086 # the arguments are words without spaces
		set -- ${k#*:}
		# no arguments print nothing (printf would print one empty line)
		[ $# -eq 0 ] || printf '%s\n' "$@"
		return 0
	done
	echo "tests/vm/kernels.sh: no kernel named '$1' (known: $(kernels_names))" >&2
	return 1
}

kernels_names() {
	local k names=()
	for k in "${KERNELS[@]}"; do names+=("${k%%:*}"); done
	echo "${names[*]}"
}

# NAME...: builds each (in KERNELS' order), one line each with its seconds
# and CPU seconds (what a cold run pays for it)
kernels_build() {
	local k name args want=" $* " start n=0 t0=$SECONDS TIMEFORMAT='%0U %0S'
	for name in "$@"; do kernels_args "$name" >/dev/null || return 1; done
	for k in "${KERNELS[@]}"; do
		name=${k%%:*}
		[[ $want == *" $name "* ]] || continue
		mapfile -t args < <(kernels_args "$name")
		start=$SECONDS
		{ time "$ROOT/scripts/kernel-build.sh" -q "${args[@]}" >"$TMP_KB/out" 2>"$TMP_KB/err"; } \
			2>"$TMP_KB/time" || {
			echo "kernel $name (kernel-build.sh ${args[*]}) failed: $(tail -1 "$TMP_KB/err")"
			return 1
		}
		echo "kernel $name: $(tail -1 "$TMP_KB/out") ($((SECONDS - start)) s," \
			"$(awk '{ print $1 + $2 }' "$TMP_KB/time") CPU s)"
		n=$((n + 1))
	done
	echo "$n kernels ready in $((SECONDS - t0)) s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	ROOT=$(cd "$(dirname "$0")/../.." && pwd)
	case ${1:-} in
	build)
		shift
		[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (the vm tier's kernels)"; exit 77; }
		TMP_KB=$(mktemp -d /tmp/kp-kernels.XXXXXX)
		trap 'rm -rf "$TMP_KB"' EXIT
		kernels_build "$@"
		;;
	args) kernels_args "$2" ;;
	*) echo "usage: tests/vm/kernels.sh build NAME... | args NAME" >&2; exit 2 ;;
	esac
fi

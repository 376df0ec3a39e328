#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs one command in a VM booted with a given kernel, with kprotperf and
# the workloads on PATH, and copies its files back: see usage below and
# README.md, "Running in a VM".  The harness is scripts/lib/vm.sh, which the
# vm test tier uses too.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/vm-run.sh [--kernel DIR|PACKAGE] [--append CMDLINE] [--out DIR]
                         [--ro DIR] [--timeout SECONDS] -- CMD [ARG...]

Boots a kernel in QEMU (KVM when the CPU has VMX/SVM, else TCG), runs CMD as
root in the guest, prints its output, copies the files it left back and
exits with CMD's exit status.

  --kernel DIR|PACKAGE  a folder made by scripts/kernel-build.sh (bzImage,
                        vmlinux, .config), or a Debian kernel package:
                        linux-image-amd64 (default: Debian 12's 6.1),
                        linux-image-6.12-amd64, linux-image-6.1.0-56-amd64,
                        ... (downloaded once, cached in ~/.cache/kprotperf)
  --append CMDLINE      added to the kernel command line (e.g. "nokaslr
                        init_on_alloc=1")
  --out DIR             where the guest's files are copied (default ./vm-out)
  --ro DIR              a host folder the guest sees read-only at /mnt/ro
  --timeout SECONDS     give up on a boot after this long (default 180, or
                        KP_VM_TIMEOUT)
  -h, --help            this text

In the guest CMD runs in a scratch folder (tmpfs); afterwards the files there
and in /mnt/host (the share) are copied to --out.  On PATH: kprotperf,
big-fork, syscall-loop, cpu-burn, alloc-free and busybox.  A kernel folder is
at /mnt/kernel; its vmlinux, at /boot/vmlinux-RELEASE, gives kprotperf the
kernel's DWARF.  The static binaries come from `make static` (OUTPUT/static,
OUTPUT defaulting to build).

Environment: KP_VM_ACCEL=kvm|tcg|icount (default kvm when the CPU has
VMX/SVM, else tcg; icount: TCG whose clock counts executed instructions,
1 ns each, one vCPU, so latencies are instruction counts the host's load
cannot move), KP_VM_KEEP=1 keeps the work folder.

Exit status: CMD's, or 125 when the VM could not run it (one line on stderr
says why: QEMU missing, a bad kernel, a kernel that did not boot, ...).

Example:
  scripts/vm-run.sh --kernel linux-image-6.12-amd64 --out k612 -- \
      kprotperf record -r 3 --func vfs_read -o k.data -- syscall-loop 10000
EOF
}

die() {
	echo "vm-run: $*" >&2
	exit 125
}
vm_skip() { die "$@"; }
vm_fail() {
	# a boot that failed: its console log is kept in --out, and named only
	# when there is one (QEMU may fail before the kernel writes a line)
	if [ -s "${VM_SERIAL_LOG:-}" ] && cp "$VM_SERIAL_LOG" "$out/console.log" 2>/dev/null; then
		die "$* (console log: $out/console.log)"
	fi
	die "$@"
}

kernel='' append='' out=vm-out ro='' timeout=${KP_VM_TIMEOUT:-180}
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--kernel | --append | --out | --ro | --timeout)
		[ $# -ge 2 ] || die "$1 needs a value (--help)"
		case $1 in
		--kernel) kernel=$2 ;;
		--append) append=$2 ;;
		--out) out=$2 ;;
		--ro) ro=$2 ;;
		--timeout) timeout=$2 ;;
		esac
		shift 2 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (the command goes after --; see --help)" ;;
	esac
done
[ $# -gt 0 ] || die "no command: scripts/vm-run.sh [options] -- CMD [ARG...] (--help)"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout '$timeout': want whole seconds"
[ -z "$ro" ] || [ -d "$ro" ] || die "--ro $ro: no such folder"
[ ! -e "$out" ] || [ -d "$out" ] || die "--out $out: exists and is not a folder"

VM_PREFIX=vm-run
VM_VERBOSE=0
VM_RO_SHARE=$ro
export KP_VM_TIMEOUT=$timeout
# shellcheck source=scripts/lib/vm.sh
. "$(dirname "$0")/lib/vm.sh"

# 'it'\''s': each argument single-quoted for the guest's busybox sh
quote() {
	local a
	for a in "$@"; do
		printf "'%s' " "${a//\'/\'\\\'\'}"
	done
}

vm_need_host
vm_accel
vm_kernel "$kernel"
vm_initramfs
mkdir -p "$out" || die "cannot create --out $out"
echo "vm-run: booting $VM_KV ($VM_ACCEL)" >&2
rc=0
vm_run "$append" <<GUEST || rc=$?
export HOME=/tmp/work
mkdir -p /tmp/work
cd /tmp/work
set +e
$(quote "$@")
rc=\$?
cp -R /tmp/work/. /mnt/host/
exit \$rc
GUEST
# everything in the share but the harness's own files (with +, find fails
# when cp does)
find "$VM_SHARE" -mindepth 1 -maxdepth 1 ! -name .vm -exec cp -a -t "$out/" {} + ||
	die "cannot copy the guest's files to --out $out (disk full?)"
exit "$rc"

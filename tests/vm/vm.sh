# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Harness of the vm test tier, sourced by tests/vm/t_*.sh: scripts/lib/vm.sh
# (shared with scripts/vm-run.sh) with the tier's semantics — a machine that
# cannot run the VM skips the test (exit 77), anything broken fails it.  It
# boots Debian's stock kernel (what linux-image-amd64 depends on), another
# package or a scripts/kernel-build.sh folder in QEMU with the statically
# linked kprotperf and workloads (`make static`) in a busybox initramfs, runs
# a guest script there, and hands its files back over a 9p share.
#
#   . "$(dirname "$0")/vm.sh"
#   vm_prepare [KERNEL]               # skips the test (exit 77) if it cannot run here
#   vm_run nokaslr <<'EOF' || fail "guest script exited $?"
#   kprotperf record -q -o /mnt/host/k.data -- syscall-loop 100
#   EOF
#   q "$VM_SHARE/k.data" 'SELECT ...'
#   vm_use_kernel linux-image-6.12-amd64  # another kernel for the next vm_run
#
# KERNEL is a folder of scripts/kernel-build.sh or a linux-image-* package
# (a meta package names the current one); without it $KP_VM_KERNEL_DIR, then
# $KP_VM_KERNEL_PKG, then linux-image-amd64's (6.1).
# vm_run's arguments are appended to the kernel command line; its standard
# input is the guest script, run by busybox `sh -e` as root in / with
# kprotperf, big-fork, syscall-loop, cpu-burn, alloc-free, model-window, core-ops,
# count-loop, data-walk and data-walk-b on PATH, the host share at
# /mnt/host, proc, sysfs, devtmpfs, tracefs, debugfs and a tmpfs /tmp
# mounted. vm_run prints the script's output and returns its exit status;
# the files it left in /mnt/host are in $VM_SHARE (until the next vm_run).
# A guest that never reports (panic, hang, timeout) fails the test with the
# serial console's tail.  A kernel folder is also at /mnt/kernel (read-only),
# its vmlinux at /boot/vmlinux-RELEASE.
#
# Set before vm_prepare: VM_HOST_BINS, host programs (e.g. /usr/sbin/funclatency)
# put on the guest's PATH with the shared libraries they need. Set before
# vm_run: VM_RO_SHARE, a host directory the guest sees read-only at /mnt/ro
# (vm_dbg_vmlinux puts the kernel's DWARF there without copying 600 MB).
#
# Environment: KP (the host's kprotperf, default ./kprotperf), OUTPUT (the
# build folder: static binaries in OUTPUT/static, default build),
# KP_VM_ACCEL=kvm|tcg|icount (default: kvm only with VMX/SVM and a usable
# /dev/kvm), KP_VM_TIMEOUT seconds per boot (default 180), KP_VM_KERNEL_DIR,
# KP_VM_KERNEL_PKG, KP_VM_KEEP=1 keeps the work directory. Downloads are
# cached in ${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf.

set -euo pipefail
skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
vm_skip() { skip "$@"; }
vm_fail() { fail "$@"; }
VM_INSTALL_MISSING=1
# shellcheck source=scripts/lib/vm.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/vm.sh"
# shellcheck disable=SC2034 # for the tests
{
	ROOT=$VM_ROOT
	KP=${KP:-$ROOT/kprotperf}
	TMP=$VM_TMP
}

# vm_expect STATUS LINE -- ARGS...: scripts/vm-run.sh ARGS exits STATUS with
# LINE the whole last line of its stderr
vm_expect() {
	local want_rc=$1 want=$2 rc=0 got
	shift 3
	"$ROOT/scripts/vm-run.sh" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	got=$(tail -1 "$TMP/err")
	[ "$rc" -eq "$want_rc" ] || fail "vm-run.sh $*: exit $rc, want $want_rc ($got)"
	[ "$got" = "$want" ] || fail "vm-run.sh $*:"$'\n'"  got:  $got"$'\n'"  want: $want"
}

# q FILE SQL: one value from a data file
q() { sqlite3 -batch -noheader "$1" "$2"; }

vm_need_host_test() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (apt, and files the guest's root writes)"
	vm_need_tools sqlite3
	vm_need_host
	[ -x "$KP" ] || fail "$KP missing: run make"
}

# vm_need_plugin: the model's plugin (make plugin), or the test skipped with why
vm_need_plugin() {
	local why
	[ -f "$VM_OUTPUT/plugin/kp_model.so" ] && return
	why=$(make -s -C "$ROOT" OUTPUT="$VM_OUTPUT" plugin 2>&1 | tail -1) || true
	[ -f "$VM_OUTPUT/plugin/kp_model.so" ] || skip "no model plugin: ${why:-make plugin built nothing}"
}

# vm_need_est: what the timing model's VM tests need (the plugin, a C
# compiler for the suite's program, python3 for vm-run's core
# descriptions), or the test skipped with why
vm_need_est() {
	vm_need_model
	command -v cc >/dev/null || skip "no C compiler"
	command -v python3 >/dev/null || skip "no python3 (vm-run reads core descriptions with it)"
}

# vm_est_programs DIR: the validation suite's program (tests/bench/model_est.c)
# twice in DIR, est-a and est-b, linked at different addresses, so that one
# boot's table (per PC) tells the two copies' loops apart
vm_est_programs() {
	local b
	mkdir -p "$1"
	for b in a b; do
		# shellcheck disable=SC2046 # the option or nothing
		cc -O2 -g -static -fno-tree-loop-distribute-patterns \
			$([ $b = a ] || echo -Wl,-Ttext-segment=0x10000000) \
			"$ROOT/tests/bench/model_est.c" -o "$1/est-$b" || fail "cc exited $?"
	done
}

# vm_need_model: what a test of the model under scripts/vm-run.sh needs, root
# (the kernel cache is root's here), the host's set-up and the plugin, or
# the test skipped with why
vm_need_model() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (the kernel cache is root's here)"
	vm_need_host_test
	vm_need_plugin
}

# vm_kbuild NAME [-o DIR]: prints the folder of tests/vm/kernels.sh's kernel
# NAME (the tier's fixture built it; a test run alone builds it here), -o
# as kernel-build.sh's.  A build that fails fails the test.
vm_kbuild() {
	local name=$1 args out
	shift
	# shellcheck source=tests/vm/kernels.sh
	. "$ROOT/tests/vm/kernels.sh"
	mapfile -t args < <(kernels_args "$name")
	[ ${#args[@]} -gt 0 ] || kernels_args "$name" >/dev/null || fail "no kernel $name in tests/vm/kernels.sh"
	out=$("$ROOT/scripts/kernel-build.sh" -q "${args[@]}" "$@" 2>"$TMP/kb-$name.err") ||
		fail "scripts/kernel-build.sh ${args[*]} $* failed: $(tail -1 "$TMP/kb-$name.err")"
	echo "${out##*$'\n'}"
}

# vm_model_pair_run NAME LABEL KFOLDER AFTER [GEOMETRY...]: one boot of
# scripts/vm-run.sh --model cache of KFOLDER into $TMP/LABEL: big-fork $FORKS
# outside the window (slab caches grown, code translated), then in it as
# m.data, then AFTER (may be empty); fails unless the counts were merged into
# m.data over a complete window.  NAME prefixes its line of progress.
vm_model_pair_run() {
	local name=$1 label=$2 kdir=$3 after=$4 start=$SECONDS rc=0
	shift 4
	KP="$KP" "$ROOT/scripts/vm-run.sh" --kernel "$kdir" --model cache "$@" --out "$TMP/$label" \
		--timeout 900 -- sh -c \
		"big-fork $FORKS >/dev/null; kprotperf record --model -q -o m.data -- big-fork $FORKS${after:+; $after}" \
		>"$TMP/$label.out" 2>"$TMP/$label.err" </dev/null || rc=$?
	[ "$rc" -eq 0 ] || fail "$label: vm-run exited $rc: $(tail -3 "$TMP/$label.err")"
	[ "$(q "$TMP/$label/m.data" "SELECT value FROM meta WHERE key = 'model.state'")" = counted ] ||
		fail "$label: the counts were not merged: $(tail -3 "$TMP/$label.err")"
	[ "$(q "$TMP/$label/m.data" "SELECT value FROM meta WHERE key = 'model.window'")" = complete ] ||
		fail "$label: the window is not complete"
	echo "$name: $label booted, ran and merged in $((SECONDS - start)) s"
}

# vm_use_kernel KERNEL: the kernel (and its initramfs) of the next vm_run
vm_use_kernel() {
	vm_kernel "$@"
	vm_initramfs
}

# shellcheck disable=SC2120 # the kernel is optional
vm_prepare() {
	vm_need_host_test
	vm_accel
	vm_use_kernel "$@"
}

# vm_dbg_vmlinux: the guest kernel's vmlinux with DWARF: VM_VMLINUX on the
# host, VM_GUEST_VMLINUX in the guest.  A kernel folder has its own (at
# /mnt/kernel/vmlinux); for a package it is that of its -dbg package (~860 MB,
# fetched once; only the 630 MB vmlinux is kept), put in VM_RO_SHARE: the
# guest sees it as /mnt/ro/vmlinux-$VM_KV.  Skips the test when it cannot be
# had.
vm_dbg_vmlinux() {
	local ver
	if [ -n "$VM_KFOLDER" ]; then
		VM_VMLINUX=$VM_KFOLDER/vmlinux
		VM_GUEST_VMLINUX=/mnt/kernel/vmlinux
		return
	fi
	VM_RO_SHARE=$VM_CACHE/dbg
	# shellcheck disable=SC2034 # for the tests
	{
		VM_VMLINUX=$VM_RO_SHARE/vmlinux-$VM_KV
		VM_GUEST_VMLINUX=/mnt/ro/vmlinux-$VM_KV
	}
	[ -s "$VM_VMLINUX" ] && return
	# the -dbg build must be the exact one of the cached kernel
	ver=$(dpkg-deb -f "$VM_CACHE"/debs/linux-image-"$VM_KV"_*.deb Version)
	vm_dbg_extract "$VM_KV" "$ver" "$VM_RO_SHARE" || skip "cannot download linux-image-$VM_KV-dbg=$ver"
}

# vm_dbg_recorded DATA: VM_VMLINUX, the -dbg vmlinux of the Debian kernel the
# recording DATA was made on (its kernel.release and the package version in
# its kernel.version), so that kept recordings read alike when Debian serves
# a newer kernel.  It lies in the cache's recorded/ (one per series), linked
# from dbg/ when the vm tier has the same release.  Fails naming the way out
# when the package is gone or its build-id is not the recording's.
vm_dbg_recorded() {
	local data=$1 rel ver id dir=$VM_CACHE/recorded
	rel=$(q "$data" "SELECT value FROM meta WHERE key = 'kernel.release'")
	ver=$(q "$data" "SELECT value FROM meta WHERE key = 'kernel.version'")
	id=$(q "$data" "SELECT value FROM meta WHERE key = 'kernel.build_id'")
	[[ $rel =~ ^[0-9][0-9a-z.+-]*$ && $ver =~ \ Debian\ ([0-9][0-9a-z.+~-]*)\  ]] ||
		fail "$data: not a recording of a Debian kernel (release '$rel', version '$ver')"
	ver=${BASH_REMATCH[1]}
	VM_VMLINUX=$dir/vmlinux-$rel
	if [ ! -s "$VM_VMLINUX" ] && [ -s "$VM_CACHE/dbg/vmlinux-$rel" ]; then
		mkdir -p "$dir"
		ln -f "$VM_CACHE/dbg/vmlinux-$rel" "$VM_VMLINUX.tmp" && mv "$VM_VMLINUX.tmp" "$VM_VMLINUX"
		vm_dbg_prune "$dir" "$rel"
	fi
	[ -s "$VM_VMLINUX" ] || vm_dbg_extract "$rel" "$ver" "$dir" ||
		fail "cannot download linux-image-$rel-dbg=$ver for the recordings in ${data%/*}: make them anew (tests/golden/vm/record.sh)"
	[ "$(vm_build_id "$VM_VMLINUX")" = "$id" ] ||
		fail "$VM_VMLINUX is not the build $id of $data: make the recordings anew (tests/golden/vm/record.sh)"
}

# vm_build_id ELF: its GNU build-id in hex
vm_build_id() {
	readelf -n "$1" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | head -1
}

# vm_dbg_prune DIR RELEASE: DIR keeps one vmlinux of RELEASE's series, its own
vm_dbg_prune() {
	local f
	for f in "$1"/vmlinux-*; do
		[ ! -e "$f" ] || [ "${f##*/vmlinux-}" = "$2" ] ||
			[ "$(vm_series "${f##*/vmlinux-}")" != "$(vm_series "$2")" ] || rm -f "$f"
	done
}

# vm_dbg_extract RELEASE VERSION DIR: DIR/vmlinux-RELEASE from the package
# linux-image-RELEASE-dbg=VERSION, fetched under the cache's lock; it replaces
# DIR's vmlinux of an earlier point release of the series.  1 when the package
# cannot be downloaded.
vm_dbg_extract() {
	local rel=$1 ver=$2 dir=$3 pkg=linux-image-$1-dbg dl lock rc=0
	mkdir -p "$dir"
	exec {lock}>"$VM_CACHE/.lock"
	flock "$lock"
	if [ ! -s "$dir/vmlinux-$rel" ]; then
		dl=$(mktemp -d "$dir/.dl.XXXXXX")
		if (cd "$dl" && apt-get download -q "$pkg=$ver" >"$dl/log" 2>&1); then
			# --occurrence stops tar after the one member instead of the whole archive
			dpkg-deb --fsys-tarfile "$dl"/*.deb 2>/dev/null |
				tar -x -C "$dl" --occurrence=1 "./usr/lib/debug/boot/vmlinux-$rel" || true
			[ -s "$dl/usr/lib/debug/boot/vmlinux-$rel" ] || { rm -rf "$dl"; fail "$pkg has no vmlinux-$rel"; }
			mv "$dl/usr/lib/debug/boot/vmlinux-$rel" "$dir/"
			vm_dbg_prune "$dir" "$rel"
		else
			rc=1
		fi
		rm -rf "$dl"
	fi
	exec {lock}>&-
	return $rc
}

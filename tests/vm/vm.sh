# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Harness of the vm test tier, sourced by tests/vm/t_*.sh: boots Debian's
# stock kernel (what linux-image-amd64 depends on) in QEMU with the statically
# linked kprotperf and workloads (`make static`) in a busybox initramfs, runs a
# guest script there, and hands its files back over a 9p share.
#
#   . "$(dirname "$0")/vm.sh"
#   vm_prepare                        # skips the test (exit 77) if it cannot run here
#   vm_run nokaslr <<'EOF' || fail "guest script exited $?"
#   kprotperf record -q -o /mnt/host/k.data -- syscall-loop 100
#   EOF
#   q "$VM_SHARE/k.data" 'SELECT ...'
#
# vm_run's arguments are appended to the kernel command line; its standard
# input is the guest script, run by busybox `sh -e` as root in / with
# kprotperf, big-fork, syscall-loop, cpu-burn and alloc-free on PATH, the host share at
# /mnt/host, proc, sysfs, devtmpfs, tracefs, debugfs and a tmpfs /tmp
# mounted. vm_run prints the script's output and returns its exit status;
# the files it left in /mnt/host are in $VM_SHARE. A guest that never reports
# (panic, hang, timeout) fails the test with the serial console's tail.
#
# Set before vm_prepare: VM_HOST_BINS, host programs (e.g. /usr/sbin/funclatency)
# put on the guest's PATH with the shared libraries they need. Set before
# vm_run: VM_RO_SHARE, a host directory the guest sees read-only at /mnt/ro
# (vm_dbg_vmlinux puts the kernel's DWARF there without copying 600 MB).
#
# Environment: KP_VM_ACCEL=kvm|tcg (default: kvm only with VMX/SVM and a
# usable /dev/kvm), KP_VM_TIMEOUT seconds per boot (default 180),
# KP_VM_KERNEL_PKG a linux-image-* package other than linux-image-amd64's,
# KP_VM_KEEP=1 keeps the work directory. Downloads are cached in
# ${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf.

set -euo pipefail
# depmod is in sbin, which a non-login root shell may not have on PATH
PATH=$PATH:/usr/sbin:/sbin
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KP=$ROOT/kprotperf
STATIC=$ROOT/build/static
VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf
TMP=$(mktemp -d /tmp/kp-vm.XXXXXX)
if [ "${KP_VM_KEEP:-0}" = 1 ]; then
	trap 'echo "vm: kept $TMP" >&2' EXIT
else
	trap 'rm -rf "$TMP"' EXIT
fi
VM_SHARE=$TMP/share
VM_RUNS=0

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# q FILE SQL: one value from a data file
q() { sqlite3 -batch -noheader "$1" "$2"; }

# The modules the 9p share needs; their dependencies come from modules.dep.
VM_MOD_ROOTS=(virtio_pci 9pnet_virtio 9p)
VM_WORKLOADS=(big-fork syscall-loop cpu-burn alloc-free)
VM_HOST_BINS=()

vm_need_host() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (apt, and files the guest's root writes)"
	local t
	for t in qemu-system-x86_64 busybox cpio depmod apt-get dpkg-deb sqlite3; do
		command -v "$t" >/dev/null && continue
		# a developer's machine may predate the tier's packages
		"$ROOT/scripts/install-deps.sh" --if-missing >&2 ||
			skip "$t is missing and scripts/install-deps.sh could not install it"
		command -v "$t" >/dev/null || skip "$t is missing"
	done
	# Debian's dynamic busybox needs a libc the initramfs does not have
	! readelf -l "$(command -v busybox)" | grep -q 'program interpreter' ||
		skip "busybox is not statically linked (install busybox-static)"
	local f
	for f in kprotperf "${VM_WORKLOADS[@]}"; do
		[ -x "$STATIC/$f" ] || fail "$STATIC/$f missing: run 'make static' (make test-vm does)"
	done
	[ -x "$KP" ] || fail "$KP missing: run make"
}

# The kernel package to boot: the one linux-image-amd64 depends on.
vm_kernel_pkg() {
	if [ -n "${KP_VM_KERNEL_PKG:-}" ]; then
		echo "$KP_VM_KERNEL_PKG"
		return
	fi
	local pkg
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$pkg" ]; then
		# a fresh machine has no package lists yet
		apt-get update -q >/dev/null 2>&1 || true
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	echo "$pkg"
}

# vm_fetch PKG: download and unpack PKG into the cache (at most once).
vm_fetch() {
	local pkg=$1 dir=$VM_CACHE/kernels/$1 dl
	[ -f "$dir/.complete" ] && return
	mkdir -p "$VM_CACHE/debs"
	if ! compgen -G "$VM_CACHE/debs/${pkg}_*.deb" >/dev/null; then
		dl=$(mktemp -d "$VM_CACHE/debs/.dl.XXXXXX")
		# stale package lists name a version the mirror no longer has
		if ! (cd "$dl" && apt-get download -q "$pkg" >"$dl/log" 2>&1) &&
			! { apt-get update -q >/dev/null 2>&1 && (cd "$dl" && apt-get download -q "$pkg" >"$dl/log" 2>&1); }; then
			tail -3 "$dl/log" >&2
			rm -rf "$dl"
			return 1
		fi
		mv "$dl"/*.deb "$VM_CACHE/debs/"
		rm -rf "$dl"
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$VM_CACHE"/debs/"${pkg}"_*.deb "$dir"
	# the package leaves modules.dep to its postinst
	depmod -b "$dir" "${pkg#linux-image-}"
	touch "$dir/.complete"
	vm_prune "$pkg"
}

# A new kernel point release replaces the cached one: each is ~500 MB.
vm_prune() {
	local keep=$1 d
	for d in "$VM_CACHE"/kernels/*/; do
		d=${d%/}
		[ "${d##*/}" = "$keep" ] || rm -rf "$d" "$VM_CACHE"/debs/"${d##*/}"_*.deb
	done
}

# Sets VM_KDIR (unpacked package), VM_KV (uname -r) and VM_KERNEL (bzImage).
vm_kernel() {
	local want pkg lock
	mkdir -p "$VM_CACHE/kernels"
	exec {lock}>"$VM_CACHE/.lock"
	flock "$lock"
	want=$(vm_kernel_pkg)
	pkg=$want
	if [ -z "$want" ] || ! vm_fetch "$want"; then
		# offline: any kernel fetched before still serves
		pkg=$(find "$VM_CACHE/kernels" -mindepth 2 -maxdepth 2 -name .complete -printf '%h\n' |
			sort -V | tail -1)
		pkg=${pkg##*/}
		want=${want:-the kernel package (apt-cache knows no linux-image-amd64)}
		[ -n "$pkg" ] || skip "cannot fetch $want, and no kernel is cached in $VM_CACHE"
		echo "vm: cannot fetch $want, using the cached $pkg" >&2
	fi
	exec {lock}>&-
	VM_KDIR=$VM_CACHE/kernels/$pkg
	VM_KV=${pkg#linux-image-}
	VM_KERNEL=$VM_KDIR/boot/vmlinuz-$VM_KV
	[ -f "$VM_KERNEL" ] || fail "$pkg has no boot/vmlinuz-$VM_KV"
}

# vm_mod_order MODULE...: the modules' .ko paths (relative to the modules
# directory), dependencies first, from modules.dep; built-in ones print nothing.
vm_mod_order() {
	local dep=$VM_KDIR/lib/modules/$VM_KV/modules.dep m
	local -A seen=()
	visit() {
		local path=$1 d deps
		[ -z "${seen[$path]:-}" ] || return 0
		seen[$path]=1
		mapfile -t deps < <(awk -v p="$path:" '$1 == p { for (i = 2; i <= NF; i++) print $i }' "$dep")
		for d in "${deps[@]}"; do
			visit "$d"
		done
		echo "$path"
	}
	for m in "$@"; do
		m=$(awk -F: -v n="/$m.ko" 'substr($1, length($1) - length(n) + 1) == n { print $1; exit }' "$dep")
		[ -z "$m" ] || visit "$m"
	done
}

vm_initramfs() {
	local ird=$TMP/initramfs f m
	mkdir -p "$ird"/{bin,boot,dev,proc,sys,tmp,mnt/host,mnt/ro,lib/modules}
	cp "$(command -v busybox)" "$ird/bin/busybox"
	# --strip-debug keeps .symtab: the workloads' user stacks are symbolized from it
	for f in kprotperf "${VM_WORKLOADS[@]}"; do
		strip --strip-debug -o "$ird/bin/$f" "$STATIC/$f"
	done
	for f in "${VM_HOST_BINS[@]}"; do
		vm_host_bin "$ird" "$f"
	done
	# kprotperf records the hardening config from /boot/config-$(uname -r)
	cp "$VM_KDIR/boot/config-$VM_KV" "$ird/boot/"
	vm_mod_order "${VM_MOD_ROOTS[@]}" >"$ird/lib/modules/load-order"
	while read -r m; do
		# busybox insmod cannot read compressed modules
		[[ $m == *.ko ]] || fail "$m: only uncompressed modules are supported"
		cp "$VM_KDIR/lib/modules/$VM_KV/$m" "$ird/lib/modules/"
	done <"$ird/lib/modules/load-order"
	vm_guest_init >"$ird/init"
	chmod +x "$ird/init"
	# uncompressed: gzip would save little and TCG pays for inflating it
	(cd "$ird" && find . | cpio -o -H newc --quiet) >"$TMP/initramfs.cpio"
}

# vm_host_bin DIR PROGRAM: a dynamically linked host program and the libraries
# ldd names, at the same paths, so the guest's loader finds them.
vm_host_bin() {
	local ird=$1 prog=$2 lib
	cp "$prog" "$ird/bin/"
	for lib in $(ldd "$prog" | grep -o '/[^ ]*'); do
		mkdir -p "$ird${lib%/*}"
		cp -L "$lib" "$ird$lib"
	done
}

# vm_dbg_vmlinux: the guest kernel's vmlinux with DWARF, from its -dbg
# package (~860 MB, fetched once; only the 630 MB vmlinux is kept), into
# VM_RO_SHARE so the guest sees it as /mnt/ro/vmlinux-$VM_KV.  Skips the test
# when it cannot be had.
vm_dbg_vmlinux() {
	local pkg=linux-image-$VM_KV-dbg dir=$VM_CACHE/dbg dl ver lock
	VM_RO_SHARE=$dir
	[ -s "$dir/vmlinux-$VM_KV" ] && return
	mkdir -p "$dir"
	exec {lock}>"$VM_CACHE/.lock"
	flock "$lock"
	if [ ! -s "$dir/vmlinux-$VM_KV" ]; then
		# the -dbg build must be the exact one of the cached kernel
		ver=$(dpkg-deb -f "$VM_CACHE"/debs/linux-image-"$VM_KV"_*.deb Version)
		dl=$(mktemp -d "$dir/.dl.XXXXXX")
		(cd "$dl" && apt-get download -q "$pkg=$ver" >"$dl/log" 2>&1) ||
			{ rm -rf "$dl"; skip "cannot download $pkg=$ver"; }
		# --occurrence stops tar after the one member instead of the whole archive
		dpkg-deb --fsys-tarfile "$dl"/*.deb 2>/dev/null |
			tar -x -C "$dl" --occurrence=1 "./usr/lib/debug/boot/vmlinux-$VM_KV" || true
		[ -s "$dl/usr/lib/debug/boot/vmlinux-$VM_KV" ] || fail "$pkg has no vmlinux-$VM_KV"
		rm -f "$dir"/vmlinux-*
		mv "$dl/usr/lib/debug/boot/vmlinux-$VM_KV" "$dir/"
		rm -rf "$dl"
	fi
	exec {lock}>&-
}

# /init: the guest script comes over the share, so one initramfs serves every boot.
vm_guest_init() {
	cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
while read -r m; do
	insmod "/lib/modules/${m##*/}" || echo "vm-init: insmod $m failed"
done </lib/modules/load-order
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose ro /mnt/ro 2>/dev/null || true
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 host /mnt/host; then
	cd /
	sh -e /mnt/host/guest.sh >/mnt/host/guest.log 2>&1
	echo $? >/mnt/host/status.tmp
	mv /mnt/host/status.tmp /mnt/host/status
	sync
	umount /mnt/host
else
	echo "vm-init: cannot mount the 9p share"
fi
poweroff -f
EOF
}

# Sets VM_ACCEL. KVM runs a stock kernel only on real VMX/SVM: a /dev/kvm
# without them (PVM, nested virtualization without VMX) hangs it, so TCG.
vm_accel() {
	VM_ACCEL=${KP_VM_ACCEL:-}
	if [ -z "$VM_ACCEL" ]; then
		VM_ACCEL=tcg
		if grep -qwE 'vmx|svm' /proc/cpuinfo && { : <>/dev/kvm; } 2>/dev/null; then
			VM_ACCEL=kvm
		fi
	fi
	case $VM_ACCEL in
	kvm) VM_ACCEL_ARGS=(-accel kvm -cpu host) ;;
	tcg) VM_ACCEL_ARGS=(-accel "tcg,thread=multi" -cpu max) ;;
	*) fail "KP_VM_ACCEL=$VM_ACCEL: want kvm or tcg" ;;
	esac
}

vm_prepare() {
	vm_need_host
	vm_accel
	vm_kernel
	vm_initramfs
}

# vm_report: why the guest said nothing, from what it left behind.
vm_report() {	# $1: qemu's exit status
	local rc=$1 log=$TMP/run$VM_RUNS
	if [ "$rc" -eq 124 ]; then
		echo "vm: no result after ${KP_VM_TIMEOUT:-180} s (KP_VM_TIMEOUT)" >&2
	else
		echo "vm: qemu exited $rc without a result from the guest" >&2
	fi
	[ ! -s "$log/qemu.log" ] || { echo "--- qemu:"; tail -5 "$log/qemu.log"; } >&2
	[ ! -s "$VM_SHARE/guest.log" ] || { echo "--- guest script:"; tail -20 "$VM_SHARE/guest.log"; } >&2
	# a panic's cause scrolls out of the tail behind its backtrace
	grep -m1 -E 'Kernel panic|BUG:|Oops:|general protection' "$log/serial.log" >&2 || true
	{ echo "--- serial console:"; tail -30 "$log/serial.log" 2>/dev/null; } >&2
}

# shellcheck disable=SC2120 # the arguments are optional kernel parameters
vm_run() {
	local log rc=0 start ms ro=()
	[ -z "${VM_RO_SHARE:-}" ] ||
		ro=(-virtfs "local,path=$VM_RO_SHARE,mount_tag=ro,security_model=none,readonly=on")
	VM_RUNS=$((VM_RUNS + 1))
	log=$TMP/run$VM_RUNS
	mkdir -p "$log"
	rm -rf "$VM_SHARE"
	mkdir -p "$VM_SHARE"
	cat >"$VM_SHARE/guest.sh"
	start=$(date +%s%N)
	timeout -k 5 "${KP_VM_TIMEOUT:-180}" qemu-system-x86_64 "${VM_ACCEL_ARGS[@]}" -smp 2 -m 2G \
		-nographic -nodefaults -no-reboot -monitor none -serial "file:$log/serial.log" \
		-kernel "$VM_KERNEL" -initrd "$TMP/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 quiet $*" \
		-virtfs "local,path=$VM_SHARE,mount_tag=host,security_model=none" \
		"${ro[@]}" \
		</dev/null >"$log/qemu.log" 2>&1 || rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	printf 'vm: %s, %s, "%s": %d.%d s\n' "$VM_KV" "$VM_ACCEL" "$*" $((ms / 1000)) $((ms % 1000 / 100)) >&2
	if [ ! -f "$VM_SHARE/status" ]; then
		vm_report "$rc"
		fail "the guest never reported"
	fi
	cat "$VM_SHARE/guest.log"
	return "$(cat "$VM_SHARE/status")"
}

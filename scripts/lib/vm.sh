# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Running a command in QEMU with kprotperf: the code scripts/vm-run.sh (for
# users) and the vm test tier (tests/vm/vm.sh) share.  It boots either a
# Debian kernel package (downloaded once, cached) or a folder made by
# scripts/kernel-build.sh, with the statically linked kprotperf and workloads
# (`make static`) in a busybox initramfs, runs a guest script there as root,
# and hands its files back over a 9p share.
#
# The sourcing script defines two functions that do not return:
#   vm_skip MSG   this machine cannot run the VM (no QEMU, offline, ...)
#   vm_fail MSG   something is broken (a bad kernel folder, a guest that
#                 never reported, binaries not built)
#
#   vm_need_host                  QEMU, busybox and the static binaries
#   vm_accel                      KVM or TCG: VM_ACCEL, VM_ACCEL_ARGS
#   vm_cpu_check WHAT             TCG's CPU model tried before the boot
#   vm_kernel [KERNEL]            a folder or package: VM_KERNEL, VM_KV, ...
#   vm_initramfs                  the initramfs for that kernel
#   vm_run [CMDLINE...] <script   one boot; returns the script's status
#   vm_vmlinux_elf                the kernel's ELF image (the model's vmlinux=)
#
# A kernel is a folder holding bzImage, vmlinux and .config (its release
# from the folder's manifest, `release=...`, else from bzImage's header;
# virtio and 9p built in: no modules), or a linux-image-* package: a meta
# package (linux-image-amd64, linux-image-6.12-amd64) names the current one.
# Without KERNEL: $KP_VM_KERNEL_DIR, else $KP_VM_KERNEL_PKG, else what
# linux-image-amd64 depends on (Debian 12: 6.1).  A folder is also shared
# read-only with the guest at /mnt/kernel, its vmlinux linked from
# /boot/vmlinux-RELEASE, where kprotperf looks for the kernel's DWARF.
#
# Environment: OUTPUT (build folder, static binaries in OUTPUT/static;
# default build), KP_VM_ACCEL=kvm|tcg|icount, KP_VM_TIMEOUT seconds per boot
# (default 180), KP_VM_CPU the TCG CPU model (default max; VM_CPU, which
# scripts/vm-run.sh --cpu sets, before it), KP_VM_KEEP=1
# keeps the work directory (made in TMPDIR, default /tmp).  Packages are cached
# in ${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf: one point release per series
# and flavour (6.1 and 6.12 are both kept).

# depmod is in sbin, which a non-login root shell may not have on PATH
PATH=$PATH:/usr/sbin:/sbin
VM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_OUTPUT=${OUTPUT:-$VM_ROOT/build}
[[ $VM_OUTPUT == /* ]] || VM_OUTPUT=$PWD/$VM_OUTPUT
VM_STATIC=$VM_OUTPUT/static
VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf
# The modules the 9p share needs; their dependencies come from modules.dep.
VM_MOD_ROOTS=(virtio_pci 9pnet_virtio 9p)
VM_WORKLOADS=(big-fork syscall-loop cpu-burn alloc-free model-window boot-clock core-ops count-loop data-walk data-walk-b)
# host programs put on the guest's PATH with the shared libraries they need
VM_HOST_BINS=()
# a host directory the guest sees read-only at /mnt/ro
VM_RO_SHARE=${VM_RO_SHARE:-}
# more arguments for qemu-system-x86_64 (scripts/vm-run.sh --model: -plugin)
VM_QEMU_ARGS=("${VM_QEMU_ARGS[@]}")
# 1: a missing host tool is installed by scripts/install-deps.sh
VM_INSTALL_MISSING=${VM_INSTALL_MISSING:-0}
VM_PREFIX=${VM_PREFIX:-vm}
VM_RUNS=0

# the work folder: initramfs, logs, the 9p share (TMPDIR, as mktemp has it)
VM_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kp-vm.XXXXXX")
VM_SHARE=$VM_TMP/share

# The EXIT trap: the work folder goes (KP_VM_KEEP=1 keeps it) and the exit
# status stays the script's.  A trap runs under the script's set -e, so a
# command failing in it would end the script with its own status (1, not
# vm-run's 125) and skip the rest: nothing in it may fail.
vm_cleanup() {
	local rc=$?
	if [ "${KP_VM_KEEP:-0}" = 1 ]; then
		echo "$VM_PREFIX: kept $VM_TMP" >&2
	else
		rm -rf "$VM_TMP" || true
	fi
	exit "$rc"
}
trap vm_cleanup EXIT
# shellcheck source=scripts/lib/stop.sh
. "$(dirname "${BASH_SOURCE[0]}")/stop.sh"

# The package that has the tool, for the error that names it.
vm_tool_pkg() {
	case $1 in
	qemu-system-x86_64) echo qemu-system-x86 ;;
	busybox) echo busybox-static ;;
	depmod) echo kmod ;;
	apt-get | apt-cache) echo apt ;;
	dpkg-deb) echo dpkg ;;
	xz) echo xz-utils ;;
	munged) echo munge ;;
	sbatch | squeue | scancel | sinfo) echo slurm-client ;;
	sshd) echo openssh-server ;;
	ssh | ssh-keygen) echo openssh-client ;;
	*) echo "$1" ;;
	esac
}

# vm_need_tools TOOL...: each on PATH, else vm_skip naming its package.
vm_need_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null && continue
		# a developer's machine may predate the tier's packages
		if [ "$VM_INSTALL_MISSING" = 1 ]; then
			"$VM_ROOT/scripts/install-deps.sh" --if-missing >&2 || true
			command -v "$t" >/dev/null && continue
		fi
		vm_skip "$t not found: install the $(vm_tool_pkg "$t") package (scripts/install-deps.sh installs all kprotperf needs)"
	done
}

vm_need_host() {
	local f
	vm_need_tools qemu-system-x86_64 busybox cpio
	# Debian's dynamic busybox needs a libc the initramfs does not have (the
	# headers read whole: `readelf | grep -q` under pipefail fails when grep
	# exits before readelf has written everything)
	[[ $(readelf -l "$(command -v busybox)" 2>/dev/null) != *'program interpreter'* ]] ||
		vm_skip "busybox is not statically linked: install the busybox-static package"
	for f in kprotperf "${VM_WORKLOADS[@]}"; do
		[ -x "$VM_STATIC/$f" ] || vm_fail "$VM_STATIC/$f missing: run 'make${OUTPUT:+ OUTPUT=$OUTPUT} static'"
	done
}

# Sets VM_ACCEL and VM_ACCEL_ARGS. KVM runs a stock kernel only on real
# VMX/SVM: a /dev/kvm without them (PVM, nested virtualization without VMX)
# hangs it, so TCG.
vm_accel() {
	VM_ACCEL=${KP_VM_ACCEL:-}
	if [ -z "$VM_ACCEL" ]; then
		VM_ACCEL=tcg
		if grep -qwE 'vmx|svm' /proc/cpuinfo && { : <>/dev/kvm; } 2>/dev/null; then
			VM_ACCEL=kvm
		fi
	fi
	VM_SMP=2
	# KP_VM_CPU=max,family=21 (AMD family 15h): retbleed applies, so the
	# boot keeps the return thunks QEMU's own family 15 would let it drop
	local cpu=${VM_CPU:-${KP_VM_CPU:-max}}
	case $VM_ACCEL in
	kvm) VM_ACCEL_ARGS=(-accel kvm -cpu host) ;;
	# Both vCPUs in one host thread, in turn.  Multi-threaded TCG hung
	# guests, or ran code the kernel had already patched back, while
	# kprobes, trampolines and static keys were patched in or out (CI:
	# t_func_probes twice in a row); one thread runs a vCPU only between
	# another's blocks, after the patch's blocks were invalidated.  A
	# guest keeps about one CPU busy in either mode, and this one less
	# (t_func_probes alone: 49-52 CPU s, against 54-59 multi-threaded).
	tcg) VM_ACCEL_ARGS=(-accel "tcg,thread=single" -cpu "$cpu") ;;
	# The guest's clock counts executed instructions (1 ns each), not host
	# time: latencies become instruction counts, deaf to the host's load and
	# to TCG's own translation work.  One vCPU: icount cannot run multi-threaded.
	icount)
		VM_ACCEL_ARGS=(-accel tcg -icount shift=0,sleep=off -cpu "$cpu")
		VM_SMP=1
		;;
	*) vm_fail "KP_VM_ACCEL=$VM_ACCEL: want kvm, tcg or icount" ;;
	esac
}

# vm_cpu_check WHAT: the TCG CPU model (VM_CPU, else KP_VM_CPU, else max;
# WHAT names where it came from, "--cpu NAME") tried before the boot: QEMU
# started paused with it, asked over QMP whether it has long mode, and quit
# (30 ms).  A model QEMU refuses under TCG (a name not in `-cpu help`,
# "host", which needs KVM, a property it does not have) is vm_fail'ed with
# QEMU's reason, one without long mode (486, pentium, ...) too: an x86-64
# kernel cannot boot on it.  The features TCG cannot emulate, which QEMU
# drops with a warning each (Skylake-Client-v1: pcid, invpcid, ...), are
# named in one line on stderr: the guest does not see them.
vm_cpu_check() {
	local what=$1 cpu=${VM_CPU:-${KP_VM_CPU:-max}} out err lm why dropped
	vm_need_tools qemu-system-x86_64
	err=$VM_TMP/cpu-check.log
	out=$(printf '%s\n' '{"execute":"qmp_capabilities"}' \
		'{"execute":"qom-get","arguments":{"path":"/machine/unattached/device[0]","property":"lm"}}' \
		'{"execute":"quit"}' |
		timeout 30 qemu-system-x86_64 -accel tcg -cpu "$cpu" -S -nodefaults -display none \
			-qmp stdio 2>"$err") || true
	lm=$(sed -n 's/^{"return": \(true\|false\)}.*/\1/p' <<<"$out")
	if [ -z "$lm" ]; then
		why=$(grep -v 'warning:' "$err" | grep -m1 . | sed 's/^qemu-system-x86_64: //' || true)
		vm_fail "$what: QEMU cannot run it under TCG: ${why:-no answer within 30 s} (qemu-system-x86_64 -cpu help lists the models)"
	fi
	[ "$lm" = true ] ||
		vm_fail "$what: a CPU without long mode (lm): an x86-64 kernel cannot boot on it"
	dropped=$(sed -n "s/.*TCG doesn't support requested feature: CPUID\.[^:]*:[A-Z]*\.\(.*\) \[bit .*/\1/p" "$err" | tr '\n' ' ')
	[ -z "$dropped" ] ||
		echo "$VM_PREFIX: $what: TCG cannot emulate ${dropped% }: QEMU drops them, the guest does not see them" >&2
}

# vm_kernel [KERNEL]: sets VM_KERNEL (the image to boot), VM_KV (its
# release), VM_KCONFIG (its .config), VM_KFOLDER (a kernel-build.sh folder,
# or empty) and VM_KDIR (an unpacked package, or empty).
vm_kernel() {
	local k=${1:-${KP_VM_KERNEL_DIR:-${KP_VM_KERNEL_PKG:-}}}
	VM_KERNEL='' VM_KV='' VM_KCONFIG='' VM_KFOLDER='' VM_KDIR=''
	if [ -d "$k" ] || [[ $k == */* ]]; then
		vm_kernel_folder "$k"
	else
		vm_kernel_package "$k"
	fi
}

vm_kernel_folder() {
	local d=$1 f
	[ -d "$d" ] || vm_fail "kernel folder $d does not exist"
	d=$(cd "$d" && pwd)
	for f in bzImage vmlinux; do
		[ -s "$d/$f" ] ||
			vm_fail "kernel folder $d has no $f: not an output folder of scripts/kernel-build.sh, or its build did not finish"
	done
	[ ! -f "$d/manifest" ] || VM_KV=$(sed -n '/^release=/{s///p;q}' "$d/manifest")
	[ -n "$VM_KV" ] || VM_KV=$(vm_bzimage_release "$d/bzImage" 2>/dev/null)
	[ -n "$VM_KV" ] || vm_fail "$d/bzImage: no Linux boot header, so no kernel release in it"
	VM_KFOLDER=$d
	VM_KERNEL=$d/bzImage
	VM_KCONFIG=$d/.config
	[ -f "$VM_KCONFIG" ] || VM_KCONFIG=''
}

# The release an x86 bzImage states: its setup header ("HdrS" at 0x202)
# points at the version string (0x20e, relative to the 512-byte boot sector).
vm_bzimage_release() {
	local off
	[ "$(dd if="$1" bs=1 skip=514 count=4 status=none 2>/dev/null)" = HdrS ] || return 0
	off=$(od -An -tu2 -j 526 -N 2 "$1" | tr -d ' ')
	dd if="$1" bs=1 skip=$((off + 512)) count=256 status=none | tr '\0' '\n' | awk 'NR == 1 {print $1}'
}

# vm_vmlinux_elf: the kernel's ELF image, for the machine model's vmlinux=
# (plugin/kp_model.c) and the direct boot (vm_direct_image): a folder's
# vmlinux, or the one compressed in a package's bzImage (xz, zstd or gzip:
# the first stream that decompresses to an ELF file), decompressed once
# into the package's folder in the cache (0.6 s; else the work folder).
# Prints its path, or nothing when there is none.
vm_vmlinux_elf() {
	local elf=${VM_KDIR:+$VM_KDIR/vmlinux.elf} tmp off tool
	[ -z "$VM_KFOLDER" ] || { echo "$VM_KFOLDER/vmlinux"; return 0; }
	[ -s "$elf" ] && { echo "$elf"; return 0; }
	{ [ -n "$VM_KDIR" ] && tmp=$(mktemp "$VM_KDIR/.vmlinux.XXXXXX" 2>/dev/null); } ||
		{ elf=$VM_TMP/vmlinux tmp=$VM_TMP/vmlinux.part; }
	[ -s "$elf" ] || for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ|\x28\xb5\x2f\xfd|\x1f\x8b\x08' "$VM_KERNEL" | cut -d: -f1); do
		case $(od -An -tx1 -j "$off" -N 2 "$VM_KERNEL" | tr -d ' ') in
		fd37) tool=xz ;;
		1f8b) tool=gzip ;;
		*) tool=zstd ;;
		esac
		{ tail -c +$((off + 1)) "$VM_KERNEL" | "$tool" -dc >"$tmp"; } 2>/dev/null || true
		# renamed whole: a boot beside this one never reads half of it
		[ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && mv -f "$tmp" "$elf" && break
	done
	rm -f "$tmp"
	[ ! -s "$elf" ] || echo "$elf"
}

# vm_direct_image: the ELF image QEMU boots at its PVH entry (-kernel with
# an ELF file, a kernel built with CONFIG_PVH=y: Debian's), skipping what a
# bzImage costs under TCG before the kernel's first line (the firmware's
# load and the decompressor: 2.5-3 s of a 7-10 s boot); nothing where the
# guest needs the decompressor: KASLR (KP_VM_KASLR=1; without it the
# kernel runs where it was linked, as nokaslr says) or a boot measured from
# the firmware on (VM_BZIMAGE=1, vm-run.sh --boot).
vm_direct_image() {
	[ "${KP_VM_KASLR:-0}" != 1 ] && [ "${VM_BZIMAGE:-0}" != 1 ] || return 0
	[ -n "$VM_KCONFIG" ] && grep -qx 'CONFIG_PVH=y' "$VM_KCONFIG" || return 0
	vm_vmlinux_elf
}

vm_depends() {
	{ apt-cache depends "$1" 2>/dev/null || true; } |
		awk '/^ *Depends: linux-image-[0-9]/ && !found { print $2; found = 1 }'
}

# The kernel package a name stands for: a meta package (linux-image-amd64,
# linux-image-6.12-amd64) depends on the current image package.  apt-cache
# takes ~0.9 s where apt keeps no binary cache (Debian's images), a boot
# long as a direct boot's firmware: the answer is kept in the cache (under
# vm_kernel_package's lock) until apt's lists change.
vm_resolve_pkg() {
	local name=$1 pkg memo=$VM_CACHE/kernels/.resolved-$1
	if [ -s "$memo" ] && [ "$memo" -nt /var/lib/apt/lists ]; then
		cat "$memo"
		return 0
	fi
	pkg=$(vm_depends "$name")
	if [ -z "$pkg" ] && ! apt-cache show "$name" >/dev/null 2>&1; then
		# a fresh machine has no package lists yet, an old one stale lists
		apt-get update -q >/dev/null 2>&1 || true
		pkg=$(vm_depends "$name")
	fi
	[ -z "$pkg" ] || { echo "$pkg" >"$memo.part" && mv -f "$memo.part" "$memo"; } 2>/dev/null || true
	echo "${pkg:-$name}"
}

# A series and flavour: 6.1.0-56-amd64 -> 6.1:amd64, 6.12.117+deb12-amd64
# and the meta package 6.12-amd64 -> 6.12:amd64, amd64 -> *:amd64.  A cached
# kernel is replaced only by another point release of its series.
vm_series() {
	local r=${1#linux-image-}
	if [[ $r =~ ^([0-9]+\.[0-9]+)[.0-9]*[-+][^-]+-(.+)$ ]] || [[ $r =~ ^([0-9]+\.[0-9]+)-(.+)$ ]]; then
		echo "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}"
	else
		echo "*:$r"
	fi
}

# vm_cached PKG: the cached kernel that serves for PKG offline: the newest of
# its series (for linux-image-amd64, which names none: of the oldest series
# of its flavour, Debian 12's own).
vm_cached() {
	local want d s series='' best=''
	want=$(vm_series "$1")
	while read -r d; do
		s=$(vm_series "$d")
		[ "$s" = "$want" ] || [ "*:${s#*:}" = "$want" ] || continue
		series=${series:-$s}
		[ "$s" != "$series" ] || best=$d
	done < <(find "$VM_CACHE/kernels" -mindepth 2 -maxdepth 2 -name .complete -printf '%h\n' |
		sed 's|.*/||' | sort -V)
	echo "$best"
}

vm_kernel_package() {
	local name=${1:-linux-image-amd64} want pkg lock
	vm_need_tools apt-get apt-cache dpkg-deb depmod xz
	mkdir -p "$VM_CACHE/kernels"
	exec {lock}>"$VM_CACHE/.lock"
	flock "$lock"
	want=$(vm_resolve_pkg "$name")
	pkg=$want
	vm_fetch "$want"
	if [ -n "$VM_FETCH_ERR" ]; then
		# with package lists, a name apt does not know is a mistake
		if [ -n "$(apt-cache pkgnames linux-image- 2>/dev/null)" ] &&
			! apt-cache show "$want" >/dev/null 2>&1; then
			vm_fail "unknown kernel package $name: apt has no such package, and there is no folder of that name (packages: e.g. linux-image-amd64, linux-image-6.12-amd64, linux-image-6.1.0-56-amd64)"
		fi
		# offline: a kernel of the same series fetched before still serves
		pkg=$(vm_cached "$want")
		[ -n "$pkg" ] ||
			vm_skip "cannot download $want ($VM_FETCH_ERR), and no kernel of its series is cached in $VM_CACHE"
		echo "$VM_PREFIX: cannot download $want, using the cached $pkg" >&2
	fi
	exec {lock}>&-
	VM_KDIR=$VM_CACHE/kernels/$pkg
	VM_KV=${pkg#linux-image-}
	VM_KERNEL=$VM_KDIR/boot/vmlinuz-$VM_KV
	VM_KCONFIG=$VM_KDIR/boot/config-$VM_KV
	[ -f "$VM_KERNEL" ] || vm_fail "$pkg has no boot/vmlinuz-$VM_KV: not a kernel image package"
}

# vm_fetch PKG: download and unpack PKG into the cache (at most once).  When
# apt cannot download it (offline, an unknown name) VM_FETCH_ERR is apt's
# last line, and nothing else changes.  A package that is not the one apt's
# index describes (a truncated download), or that does not unpack, fails
# (vm_fail) and is removed: only a whole kernel is marked .complete, the mark
# that has it trusted from then on.  Each step checks its own status, for a
# line that says what failed (and vm_kernel_package calls it outside `if`,
# where bash would ignore set -e in the whole function).
vm_fetch() {
	local pkg=$1 dir=$VM_CACHE/kernels/$1 dl deb err
	VM_FETCH_ERR=
	[ -f "$dir/.complete" ] && return
	mkdir -p "$VM_CACHE/debs" || vm_fail "cannot create $VM_CACHE/debs"
	deb=$(compgen -G "$VM_CACHE/debs/${pkg}_*.deb" | head -1 || true)
	if [ -z "$deb" ]; then
		dl=$(mktemp -d "$VM_CACHE/debs/.dl.XXXXXX") || vm_fail "cannot write in $VM_CACHE/debs"
		# stale package lists name a version the mirror no longer has
		if ! (cd "$dl" && apt-get download -q "$pkg" >"$dl/log" 2>&1) &&
			! { apt-get update -q >/dev/null 2>&1 && (cd "$dl" && apt-get download -q "$pkg" >"$dl/log" 2>&1); }; then
			VM_FETCH_ERR=$(grep -v '^W:' "$dl/log" | tail -1 || true)
			VM_FETCH_ERR=${VM_FETCH_ERR:-apt-get download $pkg failed}
			rm -rf "$dl"
			return 0
		fi
		deb=$(compgen -G "$dl/${pkg}_*.deb" | head -1 || true)
		if [ -z "$deb" ] || ! mv "$deb" "$VM_CACHE/debs/"; then
			rm -rf "$dl"
			vm_fail "apt-get download $pkg left no ${pkg}_*.deb in $VM_CACHE/debs"
		fi
		rm -rf "$dl"
		deb=$VM_CACHE/debs/${deb##*/}
	fi
	err=$(vm_deb_check "$deb" "$pkg") || vm_fetch_fail "$deb" "$dir" "$err"
	rm -rf "$dir"
	err=$({ mkdir -p "$dir" && dpkg-deb -x "$deb" "$dir"; } 2>&1) ||
		vm_fetch_fail "$deb" "$dir" "cannot unpack it: $(tail -1 <<<"$err")"
	# the package leaves modules.dep to its postinst
	err=$(depmod -b "$dir" "${pkg#linux-image-}" 2>&1) ||
		vm_fetch_fail "$deb" "$dir" "depmod failed: $(tail -1 <<<"$err")"
	touch "$dir/.complete" || vm_fetch_fail "$deb" "$dir" "cannot write $dir/.complete"
	vm_prune "$pkg"
}

# vm_deb_check DEB PKG: prints why DEB is not the package apt's index
# describes (its size and SHA256 there), and fails; passes when the index no
# longer has DEB's version (unpacking it is the check left).
vm_deb_check() {
	local deb=$1 ver index size sum got
	# apt-get download names it PKG_VERSION_ARCH.deb, an epoch's colon as %3a
	ver=${deb##*/}
	ver=${ver#"$2"_}
	ver=${ver%_*}
	index=$(apt-cache show --no-all-versions "$2=${ver//%3a/:}" 2>/dev/null) || return 0
	size=$(sed -n '/^Size: /{s///p;q}' <<<"$index")
	sum=$(sed -n '/^SHA256: /{s///p;q}' <<<"$index")
	got=$(stat -c %s "$deb")
	if [ -n "$size" ] && [ "$got" != "$size" ]; then
		echo "$got bytes where apt's index says $size: a damaged download"
		return 1
	fi
	if [ -n "$sum" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" != "$sum" ]; then
		echo "its SHA256 is not the one apt's index gives: a damaged download"
		return 1
	fi
}

# vm_fetch_fail DEB DIR WHY: a package that cannot serve leaves nothing
# behind (neither it nor its half-unpacked folder), so that the next run
# downloads it again rather than trust it.
vm_fetch_fail() {
	rm -rf "$1" "$2"
	vm_fail "$1: $3 (removed: the next run downloads it again)"
}

# A new point release replaces the cached one of its series (each ~500 MB);
# other series (6.1 and 6.12) stay.
vm_prune() {
	local keep=$1 series d
	series=$(vm_series "$keep")
	for d in "$VM_CACHE"/kernels/*/; do
		d=${d%/}
		if [ "${d##*/}" != "$keep" ] && [ "$(vm_series "${d##*/}")" = "$series" ]; then
			rm -rf "$d" "$VM_CACHE"/debs/"${d##*/}"_*.deb
		fi
	done
}

# vm_mod_order MODULE...: the modules' .ko paths (relative to the modules
# directory), dependencies first, from modules.dep; built-in ones, and all
# of a kernel folder's (it has no modules), print nothing.
vm_mod_order() {
	local dep=$VM_KDIR/lib/modules/$VM_KV/modules.dep m
	local -A seen=()
	[ -n "$VM_KDIR" ] && [ -f "$dep" ] || return 0
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
		m=$(awk -F: -v n="/$m.ko" '{ p = $1; sub(/\.(xz|zst|gz)$/, "", p) }
			substr(p, length(p) - length(n) + 1) == n { print $1; exit }' "$dep")
		[ -z "$m" ] || visit "$m"
	done
}

# vm_module_copy PATH DIR: a module into DIR as NAME.ko; busybox insmod
# cannot read compressed ones (6.12's are .ko.xz).
vm_module_copy() {
	local src=$VM_KDIR/lib/modules/$VM_KV/$1 base=${1##*/}
	case $base in
	*.ko) cp "$src" "$2/" ;;
	*.ko.xz) xz -dc "$src" >"$2/${base%.xz}" ;;
	*.ko.zst) zstd -qdc "$src" >"$2/${base%.zst}" ;;
	*.ko.gz) gzip -dc "$src" >"$2/${base%.gz}" ;;
	*) vm_fail "$1: a module format busybox insmod cannot load" ;;
	esac
}

vm_initramfs() {
	local ird=$VM_TMP/initramfs f m
	rm -rf "$ird"
	mkdir -p "$ird"/{bin,boot,dev,proc,sys,tmp,mnt/host,mnt/ro,mnt/kernel,lib/modules}
	cp "$(command -v busybox)" "$ird/bin/busybox"
	# --strip-debug keeps .symtab: the workloads' user stacks are symbolized from it
	for f in kprotperf "${VM_WORKLOADS[@]}"; do
		strip --strip-debug -o "$ird/bin/$f" "$VM_STATIC/$f"
	done
	for f in "${VM_HOST_BINS[@]}"; do
		vm_host_bin "$ird" "$f"
	done
	# kprotperf records the hardening config from /proc/config.gz, else
	# /boot/config-$(uname -r), and the DWARF from /boot/vmlinux-$(uname -r)
	[ -z "$VM_KCONFIG" ] || cp "$VM_KCONFIG" "$ird/boot/config-$VM_KV"
	[ -z "$VM_KFOLDER" ] || ln -s /mnt/kernel/vmlinux "$ird/boot/vmlinux-$VM_KV"
	: >"$ird/lib/modules/load-order"
	while read -r m; do
		vm_module_copy "$m" "$ird/lib/modules"
		echo "${m##*/}" | sed -E 's/\.(xz|zst|gz)$//' >>"$ird/lib/modules/load-order"
	done < <(vm_mod_order "${VM_MOD_ROOTS[@]}")
	vm_guest_init >"$ird/init"
	chmod +x "$ird/init"
	# uncompressed: gzip would save little and TCG pays for inflating it
	(cd "$ird" && find . | cpio -o -H newc --quiet) >"$VM_TMP/initramfs.cpio"
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

# /init: the guest script comes over the share, so one initramfs serves every
# boot.  The harness's own files are in the share's .vm folder.
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
	insmod "/lib/modules/$m" || echo "vm-init: insmod $m failed"
done </lib/modules/load-order
o=ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose
mount -t 9p -o $o ro /mnt/ro 2>/dev/null || true
mount -t 9p -o $o kernel /mnt/kernel 2>/dev/null || true
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 host /mnt/host; then
	cd /
	sh -e /mnt/host/.vm/guest.sh >/mnt/host/.vm/guest.log 2>&1
	echo $? >/mnt/host/.vm/status.tmp
	mv /mnt/host/.vm/status.tmp /mnt/host/.vm/status
	sync
	umount /mnt/host
else
	echo "vm-init: cannot mount the 9p share (virtio-pci, 9pnet_virtio and 9p must be built in or modules)"
fi
poweroff -f
EOF
}

# The serial console's last line with text, terminal escapes removed.
vm_console_tail() {
	sed -E 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1b[^[]//g' "$1" 2>/dev/null | tr -cd '[:print:]\n' |
		grep -a '[^ ]' | tail -1 || true
}

# vm_why: one line saying why the guest never reported.
vm_why() {	# $1: qemu's exit status
	local rc=$1 log=$VM_TMP/run$VM_RUNS line t=${KP_VM_TIMEOUT:-180}
	line=$(grep -m1 -aoE '(Kernel panic|BUG:|Oops:|general protection|vm-init:).*' "$log/serial.log" 2>/dev/null |
		tr -d '\r' || true)
	if [ -n "$line" ]; then
		echo "$line"
	elif [ "$rc" -eq 124 ]; then
		line=$(vm_console_tail "$log/serial.log")
		if [ -n "$line" ]; then
			echo "no result within $t s (--timeout, KP_VM_TIMEOUT); the console's last line: $line"
		else
			echo "no result within $t s and nothing on the serial console: the kernel did not boot or hangs (a longer --timeout, or --append loglevel=7 shows more)"
		fi
	elif [ -s "$log/qemu.log" ]; then
		echo "qemu exited $rc: $(grep -v '^$' "$log/qemu.log" | tail -1)"
	else
		echo "qemu exited $rc without a result from the guest; console's last line: '$(vm_console_tail "$log/serial.log")'"
	fi
}

# vm_report: the tails of what the guest left behind, for a test's log.
vm_report() {
	local log=$VM_TMP/run$VM_RUNS
	[ ! -s "$log/qemu.log" ] || { echo "--- qemu:"; tail -5 "$log/qemu.log"; } >&2
	[ ! -s "$VM_SHARE/.vm/guest.log" ] || { echo "--- guest script:"; tail -20 "$VM_SHARE/.vm/guest.log"; } >&2
	{ echo "--- serial console:"; tail -30 "$log/serial.log" 2>/dev/null; } >&2
}

# vm_boot CMDLINE...: one boot of VM_SHARE/.vm/guest.sh into VM_TMP/run$VM_RUNS;
# sets VM_RC (qemu's status, 124 after the timeout) and VM_LOCKUP (the
# console's soft-lockup line when it showed one: the boot is cut short then).
# A path in -virtfs's option list has its commas doubled: QEMU reads ",," as a
# comma and a single one as the start of the next option.
vm_boot() {
	local log=$VM_TMP/run$VM_RUNS pid tick n=0 shares=() image=$VM_KERNEL direct
	direct=$(vm_direct_image)
	[ -z "$direct" ] || { image=$direct; set -- "$@" nokaslr; }
	# the crypto self-tests: 0.9 G of a 2.2 G-instruction boot under
	# icount, 0.3 s of its time; a measured boot (--boot) keeps them
	[ "${VM_BZIMAGE:-0}" = 1 ] || set -- "$@" cryptomgr.notests
	[ -z "$VM_RO_SHARE" ] ||
		shares+=(-virtfs "local,path=${VM_RO_SHARE//,/,,},mount_tag=ro,security_model=none,readonly=on")
	[ -z "$VM_KFOLDER" ] ||
		shares+=(-virtfs "local,path=${VM_KFOLDER//,/,,},mount_tag=kernel,security_model=none,readonly=on")
	VM_RC=0 VM_LOCKUP=
	timeout -k 5 "${KP_VM_TIMEOUT:-180}" qemu-system-x86_64 "${VM_ACCEL_ARGS[@]}" -smp "$VM_SMP" -m 2G \
		-nographic -nodefaults -no-reboot -monitor none -serial "file:$log/serial.log" \
		-kernel "$image" -initrd "$VM_TMP/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 quiet $*" \
		-virtfs "local,path=${VM_SHARE//,/,,},mount_tag=host,security_model=none" \
		"${shares[@]}" "${VM_QEMU_ARGS[@]}" \
		</dev/null >"$log/qemu.log" 2>&1 &
	pid=$! STOP_PID=$!
	# QEMU's end looked for every tenth of a second (a second was half a
	# second late on average, a tenth of a direct boot), the console every
	# fifth second: a fork costs milliseconds of CPU on a loaded host,
	# beside the guest's, so the wait is read -t on a pipe whose writer we
	# hold, so that it never ends (sleep would be a fork too), and kill -0
	# a builtin
	exec {tick}<> <(:)
	while kill -0 "$pid" 2>/dev/null; do
		if [ $((++n % 50)) -eq 0 ]; then
			VM_LOCKUP=$(grep -m1 -ao 'BUG: soft lockup.*' "$log/serial.log" 2>/dev/null | tr -d '\r' || true)
			[ -z "$VM_LOCKUP" ] || { kill "$pid"; break; }
		fi
		read -rt 0.1 -u "$tick" || true
	done
	exec {tick}<&-
	wait "$pid" || VM_RC=$?
	STOP_PID=
	# an int3 no kprobe claims: a vCPU ran code the kernel had already
	# patched back (seen under multi-threaded TCG; the guest goes on)
	[ -n "$VM_LOCKUP" ] || [ "$VM_ACCEL" = kvm ] ||
		VM_LOCKUP=$(grep -m1 -aoE '(Oops: )?int3: [0-9a-f]{4} \[#[0-9]+\].*' "$log/serial.log" 2>/dev/null | tr -d '\r' || true)
}

# vm_run [CMDLINE...]: boots, runs the guest script read from stdin, prints
# its output and returns its status; a guest that never reports is
# vm_fail'ed with vm_why's line (after vm_report's tails when VM_VERBOSE=1).
# A guest that hangs under TCG (a soft lockup on the console, or no result
# within the timeout), or oopses on an int3 no kprobe claims (a vCPU ran
# code already patched back), is booted once more, and says so; a second
# time fails.  Both were seen under multi-threaded TCG while kprobes were
# patched in or out, which vm_accel no longer uses; on a host loaded enough
# a guest can still starve, and one boot cannot tell that from a bug.
# shellcheck disable=SC2120 # the arguments are optional kernel parameters
vm_run() {
	local start ms try guest=$VM_TMP/guest.sh nospace="cannot write the guest script in $VM_TMP (disk full?)"
	# Callers run it as `vm_run || fail`, where bash ignores set -e in the
	# whole function: a step that fails must say so itself, or an empty
	# guest script would run and report success.
	cat >"$guest" || vm_fail "$nospace"
	for try in 1 2; do
		VM_RUNS=$((VM_RUNS + 1))
		{ mkdir -p "$VM_TMP/run$VM_RUNS" && rm -rf "$VM_SHARE" && mkdir -p "$VM_SHARE/.vm" &&
			cp "$guest" "$VM_SHARE/.vm/guest.sh"; } || vm_fail "$nospace"
		start=$(date +%s%N)
		vm_boot "$@"
		ms=$((($(date +%s%N) - start) / 1000000))
		printf '%s: %s, %s, "%s": %d.%d s\n' "$VM_PREFIX" "$VM_KV" "$VM_ACCEL" "$*" \
			$((ms / 1000)) $((ms % 1000 / 100)) >&2
		{ [ -n "$VM_LOCKUP" ] || { [ "$VM_RC" = 124 ] && [ ! -f "$VM_SHARE/.vm/status" ]; }; } &&
			[ "$VM_ACCEL" != kvm ] && [ "$try" = 1 ] || break
		echo "$VM_PREFIX: the guest hung under TCG (${VM_LOCKUP:-no result within ${KP_VM_TIMEOUT:-180} s}): booting it again, once" >&2
	done
	# shellcheck disable=SC2034 # scripts/vm-run.sh keeps it after a failed boot
	VM_SERIAL_LOG=$VM_TMP/run$VM_RUNS/serial.log
	if [ ! -f "$VM_SHARE/.vm/status" ]; then
		[ "${VM_VERBOSE:-1}" != 1 ] || vm_report
		vm_fail "kernel $VM_KV: $(vm_why "$VM_RC")"
	fi
	cat "$VM_SHARE/.vm/guest.log"
	return "$(cat "$VM_SHARE/.vm/status")"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages kprotperf needs to build and test, and the
# header of QEMU's plugin API (for plugin/kp_model.c) from Debian's qemu source
# package, which no binary package ships (see qemu_plugin_header below).
# --if-missing: touch apt only for what is missing (packages, the header).
set -euo pipefail

pkgs=(clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev libsqlite3-dev sqlite3
	libzstd-dev liblzma-dev libbz2-dev qemu-system-x86 busybox-static cpio kmod
	libcmocka-dev pkg-config make gcc libbpf-tools linux-perf python3 util-linux
	elfutils libcapstone-dev time strace libclang-rt-14-dev
	linux-source-6.1 linux-source-6.12 flex bison bc dwarves libssl-dev xz-utils bpftrace lld
	gcc-12-plugin-dev
	chromium libxml2-utils scdoc man-db bash-completion libcap2-bin sudo
	libglib2.0-dev dpkg-dev valgrind
	slurm-wlm munge parallel openssh-server openssh-client rsync)

usage() {
	echo "usage: $0 [--if-missing]" >&2
	exit 2
}

if_missing=false
case $# in
0) ;;
1) [ "$1" = --if-missing ] || usage; if_missing=true ;;
*) usage ;;
esac

# Packages not fully installed; dpkg-query fails for names it has never seen,
# which only means they are missing too.
missing_pkgs() {
	local p status
	status=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${pkgs[@]}" 2>/dev/null || true)
	for p in "${pkgs[@]}"; do
		grep -qx "$p installed" <<<"$status" || echo "$p"
	done
}

# as_root CMD...: CMD as root, through sudo when not root (checked only when
# something must change, so that --if-missing works unprivileged)
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		echo "install-deps: must run as root (no sudo found)" >&2
		exit 1
	fi
}

# apt's chatter goes to a log that is shown only when something fails
log=$(mktemp)
trap 'rm -f "$log"' EXIT

install_pkgs() {
	local missing
	mapfile -t missing < <(missing_pkgs)
	if [ ${#missing[@]} -eq 0 ] && $if_missing; then
		echo "install-deps: all ${#pkgs[@]} packages already present"
		return 0
	fi
	if ! {
		if [ ${#missing[@]} -gt 0 ]; then
			as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
		fi
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}"
	} >"$log" 2>&1; then
		cat "$log" >&2
		echo "install-deps: apt-get failed" >&2
		exit 1
	fi
	if [ ${#missing[@]} -eq 0 ]; then
		echo "install-deps: all ${#pkgs[@]} packages already present"
	else
		echo "install-deps: installed ${missing[*]}"
	fi
}

# QEMU's plugin header, include/qemu/qemu-plugin.h, is in Debian's qemu
# source package only, and the plugin ABI changes between QEMU versions: the
# header must be that of the installed qemu-system-x86.  The source package of
# that version is fetched once (~24 MB, `apt-get source`, which needs a
# deb-src entry) and unpacked in the cache; its VERSION file is what the
# Makefile compares with the installed QEMU before it builds the plugin.  A
# source version apt does not have is one line, not a failure: everything
# but the plugin builds without it.
QEMU_SRC=${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf/qemu-src

# The deb-src twin of Debian's own sources (its URIs and suites), once.
enable_deb_src() {
	local src=/etc/apt/sources.list.d/debian.sources dst=/etc/apt/sources.list.d/debian-src.sources
	grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 1
	[ -f "$src" ] || { echo "install-deps: no $src to copy a deb-src entry from: add one by hand" >&2; return 2; }
	sed -E 's/^Types:.*/Types: deb-src/' "$src" | as_root tee "$dst" >/dev/null
}

# The source package's upstream tree of version $1 unpacked into $QEMU_SRC,
# patches applied; fails with apt's last line in $log.
fetch_qemu_src() {
	local ver=$1 dl
	mkdir -p "$QEMU_SRC"
	dl=$(mktemp -d "$QEMU_SRC/.dl.XXXXXX")
	# apt downloads as its _apt user when run by root: it must enter the folder
	chmod 755 "$dl"
	# as the invoking user: the files are theirs, and apt-get source needs no root
	if ! (cd "$dl" && apt-get source -q --download-only "qemu=$ver") >"$log" 2>&1; then
		rm -rf "$dl"
		return 1
	fi
	(cd "$dl" && dpkg-source -q -x ./*.dsc tree) >"$log" 2>&1 || { rm -rf "$dl"; return 1; }
	# of its ~320 MB unpacked, the headers, the contrib plugins (to measure
	# beside ours) and the licence: ~2 MB; the downloaded package stays
	(cd "$dl/tree" &&
		find . -mindepth 1 -maxdepth 1 ! -name include ! -name contrib ! -name COPYING \
			-exec rm -rf {} + &&
		find contrib -mindepth 1 -maxdepth 1 ! -name plugins -exec rm -rf {} +)
	rm -rf "$QEMU_SRC/tree" "$QEMU_SRC"/qemu_*
	mv "$dl"/qemu_* "$QEMU_SRC/" && mv "$dl/tree" "$QEMU_SRC/tree" && rm -rf "$dl"
	echo "$ver" >"$QEMU_SRC/VERSION"
}

qemu_plugin_header() {
	local want bin have avail rc=0
	want=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) || {
		echo "install-deps: qemu-system-x86 is not installed: no QEMU plugin header"
		return 0
	}
	bin=$(dpkg-query -W -f='${Version}' qemu-system-x86)
	have=$(cat "$QEMU_SRC/VERSION" 2>/dev/null || true)
	if [ "$have" = "$want" ] && [ -s "$QEMU_SRC/tree/include/qemu/qemu-plugin.h" ]; then
		echo "install-deps: QEMU plugin header of qemu $want already in $QEMU_SRC"
		return 0
	fi
	enable_deb_src || rc=$?
	[ "$rc" -ne 2 ] || return 0
	# new deb-src entry, or lists that do not know the wanted version yet (the
	# records read whole: `apt-cache | grep -q` under pipefail fails when grep
	# exits at its match before apt-cache has written everything)
	if [ "$rc" -eq 0 ] || ! grep -qxF "Version: $want" <<<"$(apt-cache showsrc qemu 2>/dev/null)"; then
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$log" 2>&1 ||
			{ cat "$log" >&2; echo "install-deps: apt-get update failed" >&2; exit 1; }
	fi
	if ! fetch_qemu_src "$want"; then
		avail=$(apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p' | sort -uV | paste -sd " ")
		echo "install-deps: qemu-system-x86 $bin is built from qemu $want, but apt's sources have qemu ${avail:-(none)}" \
			"($(grep -v '^W:' "$log" | tail -1)): install the qemu-system-x86 of one of those, or a deb-src entry that has $want; the model plugin is not built" >&2
		return 0
	fi
	echo "install-deps: QEMU plugin header of qemu $want in $QEMU_SRC"
}

install_pkgs
qemu_plugin_header

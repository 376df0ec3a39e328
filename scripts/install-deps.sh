#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages kprotperf needs to build and test.
# --if-missing: return at once, without touching apt, when all are installed.
set -euo pipefail

pkgs=(clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev libsqlite3-dev sqlite3
	libzstd-dev liblzma-dev libbz2-dev qemu-system-x86 busybox-static cpio kmod
	libcmocka-dev pkg-config make gcc libbpf-tools linux-perf python3 util-linux
	elfutils libcapstone-dev time strace libclang-rt-14-dev
	linux-source-6.1 linux-source-6.12 flex bison bc dwarves libssl-dev xz-utils bpftrace lld
	chromium libxml2-utils scdoc man-db bash-completion libcap2-bin sudo)

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

mapfile -t missing < <(missing_pkgs)
if [ ${#missing[@]} -eq 0 ] && $if_missing; then
	echo "install-deps: all ${#pkgs[@]} packages already present"
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: must run as root (no sudo found)" >&2; exit 1; }
	sudo=(sudo)
fi

# apt's chatter goes to a log that is shown only when something fails
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! {
	if [ ${#missing[@]} -gt 0 ]; then
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	fi
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}"
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make install / make uninstall: kprotperf, its data files, man pages,
# bash completion and workloads under DESTDIR/PREFIX, as distributions
# package tools (DESTDIR stages, PREFIX is where it will run from).
#   install.sh install|uninstall    (PREFIX, DESTDIR, BIN, OUTPUT, WORKLOADS
#                                    from the Makefile's environment)
# Every target folder is checked before anything is copied, and the files
# are copied under temporary names then renamed: a failed install leaves
# the previous one whole.
set -u
mode=${1:-}
PREFIX=${PREFIX-/usr/local}
DESTDIR=${DESTDIR-}
BIN=${BIN:-kprotperf}
OUTPUT=${OUTPUT:-build}
WORKLOADS=${WORKLOADS:-}

die() {
	echo "kprotperf $mode: $*" >&2
	exit 1
}

case $mode in install|uninstall) ;; *) die "usage: install.sh install|uninstall" ;; esac
[ -n "$PREFIX" ] || die "PREFIX is empty: give the folder kprotperf is to run from, e.g. make $mode PREFIX=/usr/local"
[[ $PREFIX == /* ]] || die "PREFIX '$PREFIX' is not an absolute path: e.g. make $mode PREFIX=/usr/local"
[ -z "$DESTDIR" ] || [[ $DESTDIR == /* ]] || die "DESTDIR '$DESTDIR' is not an absolute path"

root=$DESTDIR$PREFIX
# what is installed where: "SOURCE TARGET MODE", TARGET under $root
manifest() {
	local f
	echo "$BIN bin/kprotperf 755"
	echo "share/features.conf share/kprotperf/features.conf 644"
	echo "share/explore.conf share/kprotperf/explore.conf 644"
	echo "share/completion/kprotperf.bash share/bash-completion/completions/kprotperf 644"
	for f in "$OUTPUT"/man/*.1; do
		[ -e "$f" ] && echo "$f share/man/man1/${f##*/} 644"
	done
	for f in $WORKLOADS; do
		echo "$f libexec/kprotperf/$f 755"
	done
}

# The closest existing folder at or above $1.
existing() {
	local d=$1
	while [ ! -e "$d" ]; do d=$(dirname "$d"); done
	printf '%s\n' "$d"
}

# Each folder to write in must be one this user may write: said before anything changes.
check_writable() {
	local dir d probe err
	for dir in "$@"; do
		d=$(existing "$dir")
		[ -d "$d" ] || die "cannot install into $dir: $d is not a folder; choose another PREFIX or DESTDIR"
		probe=$(mktemp -p "$d" .kprotperf-install.XXXXXX 2>&1) || {
			err=${probe##*: }
			die "cannot write to $d ($err): choose a writable PREFIX or DESTDIR, or run make $mode as root"
		}
		rm -f "$probe"
	done
}

do_install() {
	local src dst m dirs=() tmps=() i
	while read -r src dst m; do
		[ -f "$src" ] || die "$src is missing: run make first"
		dirs+=("$(dirname "$root/$dst")")
	done < <(manifest)
	check_writable "${dirs[@]}"
	trap 'rm -f "${tmps[@]}"' EXIT
	while read -r src dst m; do
		mkdir -p "$(dirname "$root/$dst")" || die "cannot create $(dirname "$root/$dst")"
		tmps+=("$root/$dst.tmp$$")
		install -m "$m" "$src" "$root/$dst.tmp$$" ||
			die "cannot copy $src to $root/$dst: nothing was installed"
	done < <(manifest)
	i=0
	while read -r src dst m; do
		mv -f "${tmps[i]}" "$root/$dst" || die "cannot rename ${tmps[i]} to $root/$dst"
		i=$((i + 1))
	done < <(manifest)
	trap - EXIT
	echo "installed kprotperf in $root: bin/kprotperf, share/kprotperf/, share/man/man1/kprotperf*.1, share/bash-completion/completions/kprotperf, libexec/kprotperf/"
}

do_uninstall() {
	local src dst m n=0
	[ -d "$root" ] || { echo "nothing of kprotperf in $root: it does not exist"; return 0; }
	check_writable "$root"
	while read -r src dst m; do
		[ -e "$root/$dst" ] || continue
		rm -f "$root/$dst" || die "cannot remove $root/$dst"
		n=$((n + 1))
	done < <(manifest)
	# man pages of commands this build no longer has
	for src in "$root"/share/man/man1/kprotperf.1 "$root"/share/man/man1/kprotperf-*.1; do
		[ -e "$src" ] && rm -f "$src" && n=$((n + 1))
	done
	rmdir "$root/share/kprotperf" "$root/libexec/kprotperf" 2> /dev/null
	echo "removed $n files of kprotperf from $root"
}

"do_$mode"

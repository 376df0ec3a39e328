#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make install / make uninstall: kprotperf, its data files, man pages,
# bash completion and workloads under DESTDIR/PREFIX, as distributions
# package tools (DESTDIR stages, PREFIX is where it will run from).
#   install.sh install|uninstall    (PREFIX, DESTDIR, BIN, OUTPUT, WORKLOADS
#                                    from the Makefile's environment)
# Every target is checked before anything is copied (its folder writable,
# the target itself absent or a plain file: never a folder, and never a
# link, which would have the install write elsewhere), and the files are
# copied under temporary names then renamed: a failed install leaves the
# previous one whole.  The files written are listed in MANIFEST, and
# uninstall removes those and nothing else.
set -euo pipefail
mode=${1:-}
PREFIX=${PREFIX-/usr/local}
DESTDIR=${DESTDIR-}
BIN=${BIN:-kprotperf}
OUTPUT=${OUTPUT:-build}
WORKLOADS=${WORKLOADS:-}
MANIFEST=share/kprotperf/install-manifest

die() {
	echo "kprotperf $mode: $*" >&2
	exit 1
}

case $mode in install|uninstall) ;; *) die "usage: install.sh install|uninstall" ;; esac
[ -n "$PREFIX" ] || die "PREFIX is empty: give the folder kprotperf is to run from, e.g. make $mode PREFIX=/usr/local"
[[ $PREFIX == /* ]] || die "PREFIX '$PREFIX' is not an absolute path: e.g. make $mode PREFIX=/usr/local"
[ -z "$DESTDIR" ] || [[ $DESTDIR == /* ]] || die "DESTDIR '$DESTDIR' is not an absolute path"

root=$DESTDIR$PREFIX
# what this build installs where: "SOURCE TARGET MODE", TARGET under $root
files() {
	local f
	echo "$BIN bin/kprotperf 755"
	echo "share/features.conf share/kprotperf/features.conf 644"
	echo "share/explore.conf share/kprotperf/explore.conf 644"
	for f in share/costs/*.json; do
		echo "$f share/kprotperf/costs/${f##*/} 644"
	done
	echo "share/completion/kprotperf.bash share/bash-completion/completions/kprotperf 644"
	for f in "$OUTPUT"/man/*.1; do
		[ ! -e "$f" ] || echo "$f share/man/man1/${f##*/} 644"
	done
	for f in $WORKLOADS; do
		echo "$f libexec/kprotperf/$f 755"
	done
}

# The targets an earlier install listed in its manifest (none without one).
recorded() {
	[ -f "$root/$MANIFEST" ] && [ ! -L "$root/$MANIFEST" ] || return 0
	grep -v '^$' "$root/$MANIFEST" || true
}

# not_a_file PATH: what PATH is when it is there but no plain file that
# install may replace or uninstall remove (prints nothing otherwise).
not_a_file() {
	if [ -L "$1" ]; then
		echo "a symbolic link (to $(readlink "$1"))"
	elif [ -d "$1" ]; then
		echo "a folder"
	elif [ -e "$1" ] && [ ! -f "$1" ]; then
		echo "not a regular file"
	fi
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
	local src dst m what dir tmp i last list srcs=() dsts=() modes=() dirs=() tmps=()
	while read -r src dst m; do
		[ -f "$src" ] || die "$src is missing: run make first"
		srcs+=("$src") dsts+=("$dst") modes+=("$m")
	done < <(files)
	# the manifest, with an earlier install's files (man pages of commands
	# this build no longer has) still listed
	list=$(mktemp)
	# || true: a failing command in an EXIT trap would replace the exit status
	trap 'rm -f "$list" "${tmps[@]}" || true' EXIT
	{ recorded; printf '%s\n' "${dsts[@]}"; } | sort -u > "$list"
	srcs+=("$list") dsts+=("$MANIFEST") modes+=(644)
	for dst in "${dsts[@]}"; do
		what=$(not_a_file "$root/$dst")
		[ -z "$what" ] ||
			die "$root/$dst is $what: move it away, or choose another PREFIX or DESTDIR (nothing was installed)"
		dirs+=("$(dirname "$root/$dst")")
	done
	check_writable "${dirs[@]}"
	for i in "${!dsts[@]}"; do
		dir=$(dirname "$root/${dsts[i]}")
		mkdir -p "$dir" || die "cannot create $dir"
		# a fresh file of mktemp's, not a guessable name a link could be waiting at
		tmp=$(mktemp -p "$dir" .kprotperf-install.XXXXXX) || die "cannot write in $dir"
		tmps+=("$tmp")
		{ cp "${srcs[i]}" "${tmps[i]}" && chmod "${modes[i]}" "${tmps[i]}"; } ||
			die "cannot copy ${srcs[i]} to $root/${dsts[i]}: nothing was installed"
	done
	# The manifest is renamed first, so that it lists every file that reaches
	# its place even when a later rename fails.  -T: a folder that appeared at
	# a target since the check is an error, not a place to move into; a
	# rename replaces a link, never writes through it.
	last=$((${#dsts[@]} - 1))
	for i in "$last" $(seq 0 $((last - 1))); do
		mv -fT "${tmps[i]}" "$root/${dsts[i]}" || die "cannot rename ${tmps[i]} to $root/${dsts[i]}"
	done
	rm -f "$list"
	trap - EXIT
	echo "installed kprotperf in $root: bin/kprotperf, share/kprotperf/, share/man/man1/kprotperf*.1, share/bash-completion/completions/kprotperf, libexec/kprotperf/"
}

# Removes what the manifest lists and nothing else; a file it cannot
# remove is named, stays listed (a later uninstall tries again) and fails.
do_uninstall() {
	local path f what err tmp='' n=0 left=()
	[ -d "$root" ] || { echo "nothing of kprotperf in $root: it does not exist"; return 0; }
	what=$(not_a_file "$root/$MANIFEST")
	[ -z "$what" ] || die "$root/$MANIFEST is $what, not the list install writes: remove kprotperf's files by hand"
	check_writable "$root"
	# an install made before the manifest: the files this build installs
	[ -f "$root/$MANIFEST" ] ||
		echo "no $root/$MANIFEST (an install older than it, or none): removing the files this build installs"
	while read -r path; do
		f=$root/$path
		# only a path inside $root: the list is a file anyone with write access may edit
		if [[ $path == /* || /$path/ == */../* ]]; then
			what="not a path inside $root"
		else
			what=$(not_a_file "$f")
		fi
		if [ -n "$what" ]; then
			echo "kprotperf uninstall: cannot remove $f: it is $what, not the file install wrote" >&2
			left+=("$path")
		elif [ -e "$f" ]; then
			if err=$(rm -f -- "$f" 2>&1); then
				n=$((n + 1))
			else
				echo "kprotperf uninstall: cannot remove $f: ${err##*: }" >&2
				left+=("$path")
			fi
		fi
	done < <(if [ -f "$root/$MANIFEST" ]; then recorded; else files | cut -d' ' -f2; fi)
	if [ ${#left[@]} -gt 0 ]; then
		what="removed $n files of kprotperf from $root; ${#left[@]} could not be removed (above)"
		[ -f "$root/$MANIFEST" ] || die "$what"
		{ tmp=$(mktemp -p "$root/${MANIFEST%/*}" .kprotperf-install.XXXXXX) &&
			printf '%s\n' "${left[@]}" > "$tmp" && mv -fT "$tmp" "$root/$MANIFEST"; } ||
			{ rm -f "${tmp:-}"; die "$what, and $root/$MANIFEST could not be updated"; }
		die "$what, still listed in $root/$MANIFEST"
	fi
	if [ -f "$root/$MANIFEST" ]; then
		rm -f "$root/$MANIFEST" || die "cannot remove $root/$MANIFEST"
		n=$((n + 1))
	fi
	rmdir "$root/share/kprotperf/costs" "$root/share/kprotperf" "$root/libexec/kprotperf" 2> /dev/null || true
	echo "removed $n files of kprotperf from $root"
}

"do_$mode"

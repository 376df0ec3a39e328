#!/bin/bash
# make install into a temporary DESTDIR, as a distribution packages it: the
# whole list of files and their modes, the manifest listing them, the
# installed binary run from there (its version, `help record` opening its
# own installed page, bash-completion loading its completion, its data
# files found relative to PREFIX: an edit of the installed features.conf
# shows, the checkout's binary keeps its built-in copy), make uninstall
# removing every file it installed and no other (a foreign kprotperf-zz.1
# stays); and the bad installs refused in one line with nothing written: an
# empty or relative PREFIX, a read-only DESTDIR, a file where a folder must
# be, a folder, a link to a folder and a link to a file at bin/kprotperf.
# An uninstall that cannot remove a file names it and fails, the manifest
# keeping it.
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
KP=${KP:-$ROOT/kprotperf}
OUTPUT=${OUTPUT:-build}
command -v man > /dev/null || { echo "skipped: man (man-db) is not installed"; exit 77; }
TMP=$(mktemp -d /tmp/kp-install.XXXXXX)
trap 'chmod -R u+w "$TMP"; rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# the make of this tree, not the one running the tests (its flags, jobserver, overrides)
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" OUTPUT="$OUTPUT" BIN="$KP" "$@"; }

dest=$TMP/stage
mk install DESTDIR="$dest" PREFIX=/usr/local > "$TMP/out" 2>&1 || fail "make install: $(cat "$TMP/out")"
p=$dest/usr/local
{
	echo "755 bin/kprotperf"
	echo "644 share/bash-completion/completions/kprotperf"
	echo "644 share/kprotperf/explore.conf"
	for f in cascadelake epyc-rome skylake; do echo "644 share/kprotperf/costs/$f.json"; done
	echo "644 share/kprotperf/features.conf"
	for c in '' $("$KP" help --list-cmds); do echo "644 share/man/man1/kprotperf${c:+-$c}.1"; done
	for w in alloc-free big-fork boot-clock core-ops count-loop cpu-burn data-walk data-walk-b model-window syscall-loop; do echo "755 libexec/kprotperf/$w"; done
} | sort -k2 > "$TMP/want"
# the manifest: every file but itself
cut -d' ' -f2 "$TMP/want" | sort > "$TMP/want-manifest"
diff -u "$TMP/want-manifest" "$p/share/kprotperf/install-manifest" || fail "the install manifest"
echo "644 share/kprotperf/install-manifest" >> "$TMP/want"
sort -k2 -o "$TMP/want" "$TMP/want"
(cd "$p" && find . -type f -printf '%m %P\n' | sort -k2) > "$TMP/got"
diff -u "$TMP/want" "$TMP/got" || fail "installed files differ"
[ -z "$(find "$dest" -type f ! -path "$p/*")" ] || fail "files outside PREFIX"

[ "$("$p/bin/kprotperf" --version)" = "$("$KP" --version)" ] || fail "installed --version"
export MANWIDTH=100 MANPAGER=cat PAGER=cat LC_ALL=C.UTF-8
unset MANPATH
for c in record ''; do
	page=$p/share/man/man1/kprotperf${c:+-$c}.1
	"$p/bin/kprotperf" help $c > "$TMP/help" 2>&1 || fail "installed kprotperf help $c: $(cat "$TMP/help")"
	man -l "$page" > "$TMP/page" 2>&1
	cmp -s "$TMP/help" "$TMP/page" || fail "installed 'kprotperf help $c' is not $page: $(head -5 "$TMP/help")"
done

# bash-completion loads completions from each XDG_DATA_DIRS folder (unset:
# /usr/local/share:/usr/share): PREFIX/share for this one
bashcomp=/usr/share/bash-completion/bash_completion
if [ -r "$bashcomp" ]; then
	got=$(env -u BASH_COMPLETION_USER_DIR -u XDG_DATA_HOME XDG_DATA_DIRS="$p/share" bash -c \
		". $bashcomp; __load_completion kprotperf; complete -p kprotperf" 2>&1)
	[ "$got" = "complete -F _kprotperf kprotperf" ] || fail "bash-completion did not load the installed completion: $got"
else
	echo "(bash-completion not installed: its loading of the installed script not checked)"
fi

printf '\n[kp_install_probe]\nabout = installed data file\nfunctions = kp_install_probe_fn\n' >> "$p/share/kprotperf/features.conf"
has_probe() { "$1" features --json tests/golden/data/bf-a.data |
	python3 -c 'import json,sys; print(any(f["name"] == "kp_install_probe" for f in json.load(sys.stdin)["features"]))'; }
[ "$(has_probe "$p/bin/kprotperf")" = True ] || fail "the installed binary ignores PREFIX/share/kprotperf/features.conf"
[ "$(has_probe "$KP")" = False ] || fail "the checkout's binary read an installed features.conf"

# a page of another package's that install did not write: uninstall keeps it
echo '.TH foreign' > "$p/share/man/man1/kprotperf-zz.1"
mk uninstall DESTDIR="$dest" PREFIX=/usr/local > "$TMP/out" 2>&1 || fail "make uninstall: $(cat "$TMP/out")"
[ "$(cat "$TMP/out")" = "removed $(wc -l < "$TMP/want") files of kprotperf from $p" ] || fail "make uninstall said: $(cat "$TMP/out")"
[ "$(find "$dest" -type f)" = "$p/share/man/man1/kprotperf-zz.1" ] || fail "left after uninstall: $(find "$dest" -type f)"
# no manifest (an install older than it): the files this build installs, no others
mk uninstall DESTDIR="$dest" PREFIX=/usr/local > "$TMP/out" 2>&1 || fail "make uninstall without a manifest: $(cat "$TMP/out")"
printf '%s\n' "no $p/share/kprotperf/install-manifest (an install older than it, or none): removing the files this build installs" \
	"removed 0 files of kprotperf from $p" | diff -u - "$TMP/out" || fail "make uninstall without a manifest: its output"
[ "$(find "$dest" -type f)" = "$p/share/man/man1/kprotperf-zz.1" ] || fail "an uninstall without a manifest removed a foreign file"

# only: the output of a failed make TARGET ARGS... is LINE..., besides make's own error line
only() {	# TARGET "ARGS..." LINE...
	local target=$1 args=$2
	shift 2
	printf '%s\n' "$@" > "$TMP/want-out"
	grep -v '^make\(\[[0-9]*\]\)\?: \*\*\* ' "$TMP/out" | diff -u "$TMP/want-out" - || fail "make $target $args: its output"
}
# bad installs: exit non-zero, the reason in kprotperf's one line, nothing written
bad() {	# WANT_LINE MAKE_ARGS...
	local want=$1
	shift
	mk install "$@" > "$TMP/out" 2>&1 && fail "make install $* succeeded"
	only install "$*" "$want"
}
bad "kprotperf install: PREFIX is empty: give the folder kprotperf is to run from, e.g. make install PREFIX=/usr/local" \
	PREFIX= DESTDIR="$TMP/x"
bad "kprotperf install: PREFIX 'usr/local' is not an absolute path: e.g. make install PREFIX=/usr/local" \
	PREFIX=usr/local DESTDIR="$TMP/x"
touch "$TMP/file"
bad "kprotperf install: cannot install into $TMP/file/usr/local/bin: $TMP/file is not a folder; choose another PREFIX or DESTDIR" \
	DESTDIR="$TMP/file"
mkdir "$TMP/ro"
if [ "$(id -u)" = 0 ]; then
	# root writes through permissions: a read-only mount of its own
	unshare -m bash -c "$(declare -f mk); mount -t tmpfs -o ro none '$TMP/ro' && \
		ROOT='$ROOT' OUTPUT='$OUTPUT' KP='$KP' mk install DESTDIR='$TMP/ro'" > "$TMP/out" 2>&1 &&
		fail "install into a read-only file system succeeded"
	why="Read-only file system"
else
	chmod 555 "$TMP/ro"
	mk install DESTDIR="$TMP/ro" > "$TMP/out" 2>&1 && fail "install into a read-only folder succeeded"
	why="Permission denied"
fi
grep -qxF "kprotperf install: cannot write to $TMP/ro ($why): choose a writable PREFIX or DESTDIR, or run make install as root" "$TMP/out" ||
	fail "read-only DESTDIR: $(cat "$TMP/out")"
[ -z "$(find "$TMP/x" "$TMP/ro" -mindepth 1 2> /dev/null)" ] || fail "a refused install wrote files"

# something else at bin/kprotperf: refused, nothing written, nothing through a link
for what in folder link-folder link-file; do
	d=$TMP/$what
	b=$d/usr/local/bin
	mkdir -p "$b" "$TMP/$what-target"
	echo mine > "$TMP/$what-target/file"
	case $what in
	folder) mkdir "$b/kprotperf"; is="a folder" ;;
	link-folder) ln -s "$TMP/$what-target" "$b/kprotperf"; is="a symbolic link (to $TMP/$what-target)" ;;
	link-file) ln -s "$TMP/$what-target/file" "$b/kprotperf"; is="a symbolic link (to $TMP/$what-target/file)" ;;
	esac
	before=$(cd "$TMP" && find "$what" "$what-target" -printf '%y %p\n' | sort)
	bad "kprotperf install: $b/kprotperf is $is: move it away, or choose another PREFIX or DESTDIR (nothing was installed)" \
		DESTDIR="$d"
	[ "$(cd "$TMP" && find "$what" "$what-target" -printf '%y %p\n' | sort)" = "$before" ] ||
		fail "a refused install over $is changed files: $(cd "$TMP" && find "$what" "$what-target" -newer "$TMP/want")"
	[ "$(cat "$TMP/$what-target/file")" = mine ] || fail "an install wrote through $is"
done

# a file uninstall cannot remove (a folder now): named, the rest removed, the manifest keeps it
d=$TMP/stuck
mk install DESTDIR="$d" > "$TMP/out" 2>&1 || fail "make install: $(cat "$TMP/out")"
p=$d/usr/local
rm "$p/share/kprotperf/explore.conf"
mkdir "$p/share/kprotperf/explore.conf"
mk uninstall DESTDIR="$d" > "$TMP/out" 2>&1 && fail "an uninstall that left a file succeeded"
only uninstall "DESTDIR=$d" \
	"kprotperf uninstall: cannot remove $p/share/kprotperf/explore.conf: it is a folder, not the file install wrote" \
	"kprotperf uninstall: removed $(($(wc -l < "$TMP/want") - 2)) files of kprotperf from $p; 1 could not be removed (above), still listed in $p/share/kprotperf/install-manifest"
[ "$(cat "$p/share/kprotperf/install-manifest")" = share/kprotperf/explore.conf ] ||
	fail "the manifest after a partial uninstall: $(cat "$p/share/kprotperf/install-manifest")"
[ "$(cd "$p" && find . -mindepth 1 ! -type d)" = ./share/kprotperf/install-manifest ] ||
	fail "left after a partial uninstall: $(cd "$p" && find . -mindepth 1 ! -type d)"
echo "installed $(wc -l < "$TMP/want") files into a DESTDIR, ran them, uninstalled them and no other; bad prefixes and targets refused"

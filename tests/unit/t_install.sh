#!/bin/bash
# make install into a temporary DESTDIR, as a distribution packages it: the
# whole list of files and their modes, the installed binary run from there
# (its version, `help record` opening its own installed page, bash-completion
# loading its completion, its data
# files found relative to PREFIX: an edit of the installed features.conf
# shows, the checkout's binary keeps its built-in copy), make uninstall
# removing every file; and the bad installs refused in one line with
# nothing written: an empty or relative PREFIX, a read-only DESTDIR, a file
# where a folder must be.
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
	echo "644 share/kprotperf/features.conf"
	for c in '' $("$KP" help --list-cmds); do echo "644 share/man/man1/kprotperf${c:+-$c}.1"; done
	for w in alloc-free big-fork cpu-burn syscall-loop; do echo "755 libexec/kprotperf/$w"; done
} | sort -k2 > "$TMP/want"
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
MANPATH=$TMP/none "$KP" help record > "$TMP/out" 2> "$TMP/err"
rc=$?
[ $rc = 16 ] || fail "help with no page installed: exit $rc"
[ "$(cat "$TMP/err")" = "kprotperf help: no man page kprotperf-record here: make install puts them in PREFIX/share/man; kprotperf record --help has the same options" ] ||
	fail "no-page stderr: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "no-page stdout: $(cat "$TMP/out")"

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

mk uninstall DESTDIR="$dest" PREFIX=/usr/local > "$TMP/out" 2>&1 || fail "make uninstall: $(cat "$TMP/out")"
[ -z "$(find "$dest" -type f)" ] || fail "left after uninstall: $(find "$dest" -type f)"

# bad installs: exit non-zero, the reason in kprotperf's line, nothing written
bad() {	# WANT_LINE MAKE_ARGS...
	local want=$1
	shift
	mk install "$@" > "$TMP/out" 2>&1 && fail "make install $* succeeded"
	grep -qxF "$want" "$TMP/out" || fail "make install $*: $(cat "$TMP/out"), want: $want"
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
echo "installed $(wc -l < "$TMP/want") files into a DESTDIR, ran them, uninstalled; bad prefixes refused"

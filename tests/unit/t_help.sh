#!/bin/bash
# kprotperf help COMMAND before make install: with no page installed (MANPATH
# a folder without pages), a copy of the binary in a build tree of its own
# shows build/man/PAGE.1 beside it, its whole output man -l's of that file
# and its one stderr line compared whole; an installed page still wins; a
# page in the current folder is not shown; no page at all, or one refused
# (a link to a page, build/man a link, a FIFO, a folder others can write,
# as root a page of another user's) is one whole line and exit 16, at once.
set -u
# a relative KP is relative to where the test was started
if [[ ${KP-} == */* && $KP != /* ]]; then KP=$PWD/$KP; fi
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
[ -x "$KP" ] || { echo "FAIL: no $KP (make)"; exit 1; }
for tool in man scdoc; do
	command -v $tool > /dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
TMP=$(mktemp -d /tmp/kp-help.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
TMP=$(realpath "$TMP") # as /proc/self/exe names the copy's folder
fail() { echo "FAIL: $*"; exit 1; }
export MANPAGER=cat PAGER=cat MANWIDTH=100 LC_ALL=C.UTF-8 MANPATH=$TMP/none

# the build tree: the binary, build/man/ with two pages made as make man makes them
tree=$TMP/tree
man=$tree/build/man
mkdir -p "$man"
cp "$KP" "$tree/kprotperf"
for c in record ''; do
	"$KP" help --scdoc $c | scdoc > "$man/kprotperf${c:+-$c}.1" || fail "scdoc of $c's page"
done

# expect RC STDERR-LINE [PAGE] -- HELP-ARGS...: the exit status, stderr
# whole, and stdout man -l's of PAGE (none: empty)
expect() {
	local rc=$1 err=$2 page=$3 got
	shift 4
	timeout 10 "$tree/kprotperf" help "$@" > "$TMP/out" 2> "$TMP/err"
	got=$?
	[ $got = "$rc" ] || fail "help $*: exit $got, not $rc: $(cat "$TMP/err")"
	[ "$(cat "$TMP/err")" = "$err" ] || fail "help $*: stderr: $(cat "$TMP/err")"
	if [ -n "$page" ]; then
		man -l "$page" > "$TMP/want" || fail "man -l $page"
		cmp -s "$TMP/want" "$TMP/out" || fail "help $*: not $page: $(head -3 "$TMP/out")"
	else
		[ ! -s "$TMP/out" ] || fail "help $*: stdout: $(head -3 "$TMP/out")"
	fi
}
shown() { echo "kprotperf help: showing the build tree's page $man/$1.1 (not installed)"; }
absent() {
	echo "kprotperf help: no man page kprotperf-$1 installed, nor $man/kprotperf-$1.1: make man" \
		"builds it there (make install installs the pages); kprotperf $1 --help has the same options"
}
refused() {
	echo "kprotperf help: no man page kprotperf-$1 installed, and the build tree's is not read:" \
		"$2: make install installs the pages; kprotperf $1 --help has the same options"
}

expect 0 "$(shown kprotperf-record)" "$man/kprotperf-record.1" -- record
expect 0 "$(shown kprotperf)" "$man/kprotperf.1" --
# the current folder is no build tree of the binary's
mkdir -p "$TMP/cwd/build/man"
cp "$man/kprotperf-record.1" "$TMP/cwd/build/man/kprotperf-diff.1"
(cd "$TMP/cwd" && expect 16 "$(absent diff)" "" -- diff) || exit 1

# an installed page wins, and nothing is said
mkdir -p "$TMP/inst/man1"
printf '.TH KPROTPERF-RECORD 1\n.SH NAME\nkprotperf-record \\- the installed page\n' \
	> "$TMP/inst/man1/kprotperf-record.1"
MANPATH=$TMP/inst expect 0 "" "$TMP/inst/man1/kprotperf-record.1" -- record

# refused: links (to a page, and build/man itself), a FIFO (at once), a folder others can write
ln -s kprotperf-record.1 "$man/kprotperf-diff.1"
expect 16 "$(refused diff "'$man/kprotperf-diff.1' is a symbolic link")" "" -- diff
mkfifo "$man/kprotperf-report.1"
expect 16 "$(refused report "'$man/kprotperf-report.1' is not a regular file")" "" -- report
chmod 0777 "$man"
expect 16 "$(refused record "'$man' can be written by other users (mode 0777)")" "" -- record
chmod 1777 "$man" # sticky: no one else can replace what the owner put there
expect 0 "$(shown kprotperf-record)" "$man/kprotperf-record.1" -- record
chmod 0755 "$man"
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$man/kprotperf-record.1"
	expect 16 "$(refused record "'$man/kprotperf-record.1' belongs to another user (uid 65534)")" "" \
		-- record
	# the binary's owner could change what runs: its build tree is trusted (sudo ./kprotperf)
	chown -R 65534 "$tree"
	expect 0 "$(shown kprotperf-record)" "$man/kprotperf-record.1" -- record
	chown -R 0 "$tree"
else
	echo "(not root: a page of another user's not checked)"
fi
mv "$man" "$TMP/pages"
ln -s "$TMP/pages" "$man"
expect 16 "$(refused record "'$man' is a symbolic link")" "" -- record

# no page at all: none built for the command, no build tree
rm "$man"
mv "$TMP/pages" "$man"
expect 16 "$(absent boot)" "" -- boot
rm -r "$tree/build"
expect 16 "$(absent record)" "" -- record
echo "help shows the build tree's pages when none is installed, an installed one first, refuses planted ones"

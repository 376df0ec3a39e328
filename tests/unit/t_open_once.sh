#!/bin/bash
# Each file opened once per command: the reading commands (report, report
# --json, folded, annotate of a user function, diff, diff --folded) on the
# golden recordings, traced by strace, must open no path twice.  Before,
# libc's and ld.so's debug files were opened five times by one report (its
# symbols, the build-id check twice, the DWARF check, libdwfl).  The whole
# list of paths opened more than once is compared with the empty one.
#
# One exception, the recordings named on the command line: the data file
# is opened once by kprotperf to check it is a regular file it may read
# (util/safeio.c, against a FIFO or a planted link) and once by SQLite,
# which takes a path, not a descriptor.  Failed opens (a debug folder
# without the file) are no open, nor the dynamic loader's of kprotperf's own
# libraries (libc among them, which a recording's frames read again).
set -u
if [[ ${KP-} == */* && $KP != /* ]]; then KP=$PWD/$KP; fi
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
[ -x "$KP" ] || { echo "skipped: no $KP to run: run make"; exit 77; }
command -v strace > /dev/null || { echo "skipped: no strace (Debian package strace)"; exit 77; }
TMP=$(mktemp -d /tmp/kp-open-once.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
D=tests/golden/data

# the paths opened more than once by "$@", less the recordings among its words
twice() {
	local w skip=()
	# LeakSanitizer cannot run under ptrace: the asan tier's leaks are its other tests'
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=open,openat -o "$TMP/trace" "$KP" "$@" > /dev/null 2>&1
	for w in "$@"; do
		[ -f "$w" ] && skip+=("$(realpath "$w")")
	done
	# the dynamic loader's opens, before any other, load kprotperf's own libraries
	awk '!/\) = [0-9]+$/ { next }
		ld && /"\/etc\/ld\.so\.cache"|\.so(\.[0-9]+)*", O_RDONLY\|O_CLOEXEC\)/ { next }
		{ ld = 0; print }' ld=1 "$TMP/trace" |
		sed -n 's/.*open[at]*(\(AT_FDCWD, \)\{0,1\}"\([^"]*\)".*/\2/p' |
		while read -r p; do realpath -m "$p"; done | sort | uniq -c |
		awk -v skip="$(printf '%s\n' "${skip[@]}")" '
			BEGIN { n = split(skip, s, "\n"); for (i = 1; i <= n; i++) k[s[i]] = 1 }
			$1 > 1 && !($2 in k) { print "  " $2 " opened " $1 " times" }'
}

got=$TMP/got
for cmd in "report --top 1 $D/sl.data" "report $D/burn.data" "report --json $D/sl.data" \
	"folded $D/sl.data" "annotate --func __libc_start_call_main $D/sl.data" \
	"diff $D/bf-a.data $D/bf-b.data" "diff --folded $D/bf-a.data $D/bf-b.data" \
	"report $D/old/v4-sl.data"; do
	# shellcheck disable=SC2086  # the words of the command
	out=$(twice $cmd)
	[ -n "$out" ] && printf '%s:\n%s\n' "$cmd" "$out"
done > "$got"
if [ -s "$got" ]; then
	echo "FAIL: files opened more than once in one command:"
	cat "$got"
	exit 1
fi
echo "ok: 8 commands, each file opened once"

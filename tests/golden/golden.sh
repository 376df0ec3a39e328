#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the golden cases: each line of a cases file is NAME ARGS...; kprotperf
# ARGS runs in the cases file's data/ folder and its stdout, stderr and exit
# status, written as one text, must equal expected/NAME byte for byte; the
# word @EMPTY@ in ARGS is an empty folder (--symfs @EMPTY@: the outputs must
# not depend on the host's files with symbols, e.g. libc6-dbg).  kprotperf's
# cache folder (${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf, where the vm
# cases' kernel DWARF lies) is written @CACHE@ in the outputs, so that they do
# not depend on where the cache is.  The
# JSON of a successful --json run must also parse.  Exit 0 when all match, 1 otherwise.
#   golden.sh [--update] [--kp BIN] [--cases FILE] [-- EXTRA ARGS...]
# --update rewrites expected/ from BIN's output (review the git diff);
# EXTRA ARGS go after each case's own (e.g. --vmlinux PATH).
set -u
here=$(cd "$(dirname "$0")" && pwd)
kp=${KP:-$here/../../kprotperf}
cases=$here/cases
update=false
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=true ;;
	--kp) kp=$2; shift ;;
	--cases) cases=$2; shift ;;
	--) shift; break ;;
	*) echo "golden.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf
dir=$(cd "$(dirname "$cases")" && pwd)
expected=$dir/expected
out=$(mktemp)
empty=$(mktemp -d)
trap 'rm -f "$out"; rmdir "$empty"' EXIT

# One case's whole result: stdout, then stderr and the exit status.
run_case() {
	local err rc
	err=$(mktemp)
	(cd "$dir/data" && "$kp" "$@" >"$out.stdout" 2>"$err"); rc=$?
	{ cat "$out.stdout"; echo "--- stderr"; cat "$err"; echo "--- exit $rc"; } |
		CACHE=$cache perl -pe 's/\Q$ENV{CACHE}\E/\@CACHE\@/g' >"$out"
	rm -f "$err"
}

json_ok() {	# ARGS...: the --json output of a run that succeeded must parse
	case " $* " in *" --json "*) ;; *) return 0 ;; esac
	[ "$(tail -n 1 "$out")" = "--- exit 0" ] || return 0
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out.stdout" 2>/dev/null
}

ok=0 bad=0
while read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	args=${args//@EMPTY@/$empty}
	# shellcheck disable=SC2086  # args are words by design
	run_case $args "$@"
	if $update; then
		cp "$out" "$expected/$name"
		continue
	fi
	if [ ! -f "$expected/$name" ]; then
		echo "golden $name: no expected/$name (run golden.sh --update)"; bad=$((bad + 1))
	elif ! diff -u "$expected/$name" "$out" >"$out.diff"; then
		echo "golden $name: output differs:"; head -40 "$out.diff"; bad=$((bad + 1))
	elif ! json_ok $args; then
		echo "golden $name: --json output does not parse"; bad=$((bad + 1))
	else
		ok=$((ok + 1))
	fi
done <"$cases"
rm -f "$out.stdout" "$out.diff"
$update && { echo "golden: expected/ rewritten from $kp"; exit 0; }
echo "golden: $ok matched, $bad differ"
[ "$bad" -eq 0 ]

#!/bin/bash
# The command's fate is kprotperf's exit status, and its data is saved whole
# even when it crashes or is killed.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
run() {	# run WANT_CODE CMD...
	local want=$1 rc
	shift
	"$KP" record -q -o k.data -- "$@" > /dev/null 2> err && rc=0 || rc=$?
	[ "$rc" = "$want" ] || fail "record -- $* exited $rc, want $want: $(cat err)"
	[ "$(q k.data "SELECT value FROM meta WHERE key = 'record.exit_code'")" = "$want" ] ||
		fail "record.exit_code is not $want"
	"$KP" report k.data > /dev/null || fail "report of a '$*' recording failed"
	rm -f k.data
}
run 3 sh -c 'exit 3'
run 139 sh -c 'kill -SEGV $$'
run 137 sh -c 'kill -KILL $$'
run 0 true
echo "exit codes 3, 139 (SIGSEGV), 137 (SIGKILL), 0 propagated"

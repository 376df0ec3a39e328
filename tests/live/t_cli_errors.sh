#!/bin/bash
# Bad command lines and bad data files: one line naming the problem, a
# non-zero exit, and no data file left behind.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
# expect CODE PATTERN CMD...: exit code and a single stderr line matching PATTERN
expect() {
	local code=$1 pat=$2 rc
	shift 2
	"$@" > out 2> err && rc=0 || rc=$?
	[ "$rc" = "$code" ] || fail "'$*' exited $rc, want $code: $(cat err)"
	[ "$(wc -l < err)" = 1 ] || fail "'$*' printed $(wc -l < err) error lines: $(cat err)"
	grep -qE "$pat" err || fail "'$*' said '$(cat err)', want /$pat/"
}
expect 2 "unknown command 'frobnicate'" "$KP" frobnicate
expect 2 "unknown option '--bogus'" "$KP" record --bogus -- true
expect 2 "missing argument to '-o'" "$KP" record -o
expect 2 "nothing to record" "$KP" record -q
expect 2 "invalid frequency '0'" "$KP" record -F 0 -- true
expect 2 "cannot be combined" "$KP" record -p 1 -- true
expect 2 "unknown sort key 'bogus'" "$KP" report --sort bogus
expect 2 "exclude each other" "$KP" folded -K -U
expect 1 "no such file .*kprotperf record" "$KP" report missing.data
: > empty.data
expect 1 "empty file" "$KP" report empty.data
echo "just some text, definitely not a database of any kind" > text.data
expect 1 "not a kprotperf data file \(not an SQLite" "$KP" report text.data
sqlite3 foreign.data "CREATE TABLE t(x)"
expect 1 "foreign SQLite database" "$KP" folded foreign.data
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	"$KP" record -q -o good.data -- "$ROOT/syscall-loop" 3000 > /dev/null || fail "record failed"
	cp good.data newer.data
	sqlite3 newer.data "PRAGMA user_version = 99"
	expect 1 "newer kprotperf.*upgrade" "$KP" report newer.data
	head -c $(($(stat -c %s good.data) / 2)) good.data > truncated.data
	expect 1 "corrupt or truncated" "$KP" report truncated.data
	expect 1 "no syscall named 'nosuch'" "$KP" report --hist nosuch good.data
	gone=$(sh -c 'echo $$')
	expect 1 "no process with pid $gone" "$KP" record -q -p "$gone" -o gone.data
	# CMD not found: 127 like a shell, and nothing written
	expect 127 "cannot run 'no-such-cmd': No such file" "$KP" record -q -o nf.data -- no-such-cmd
	[ ! -e nf.data ] || fail "a data file was written for a command that never ran"
	ls | grep -q '\.tmp\.' && fail "temporary file left behind: $(ls)"
fi
echo "all error paths gave one clear line"

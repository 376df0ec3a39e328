#!/bin/bash
# -o is checked before CMD starts: only an absent path or a regular file is
# written (replaced atomically); a directory, a symbolic link (not followed:
# documented in README.md), a device node or an unwritable directory is
# refused with one line, exit 1, CMD never run and the path left as it was.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
# refused PATH WANT: one exact error line, exit 1, and the workload never ran
refused() {
	local path=$1 want=$2 rc
	"$KP" record -q -o "$path" -- touch "$TMP/ran" > out 2> err && rc=0 || rc=$?
	[ "$rc" = 1 ] || fail "-o $path: exit $rc, want 1: $(cat err)"
	[ "$(cat err)" = "$want" ] || fail "-o $path said '$(cat err)', want '$want'"
	[ ! -e "$TMP/ran" ] || fail "-o $path: the workload ran before the path was refused"
}
mknod null c 1 3
refused null "kprotperf record: cannot write 'null': it is a device, FIFO or socket, not a regular file: the data file would replace it; choose another path with -o"
[ -c null ] || fail "the device node at -o is no longer a device node: $(ls -l null)"
mkfifo fifo
refused fifo "kprotperf record: cannot write 'fifo': it is a device, FIFO or socket, not a regular file: the data file would replace it; choose another path with -o"
[ -p fifo ] || fail "the FIFO at -o was replaced"
mkdir dir
refused dir "kprotperf record: cannot write 'dir': it is a directory: give a file name, e.g. -o 'dir/kprotperf.data'"
[ -z "$(ls -A dir)" ] || fail "something was written into the directory: $(ls -A dir)"
echo precious > target
ln -s target link
refused link "kprotperf record: cannot write 'link': it is a symbolic link: record does not write through links; give the file it points to: -o '$TMP/target'"
[ -L link ] && [ "$(cat target)" = precious ] || fail "the link or its target was changed"
ln -s missing dangling
refused dangling "kprotperf record: cannot write 'dangling': it is a symbolic link to a missing file: give a path that is not a link with -o"
mkdir ro && chmod 555 ro
# root writes anywhere: drop CAP_DAC_OVERRIDE for this one case with setpriv if it can
if setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search true 2>/dev/null; then
	setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search \
		"$KP" record -q -o ro/k.data -- touch "$TMP/ran" > out 2> err && rc=0 || rc=$?
	[ "$rc" = 1 ] || fail "unwritable dir: exit $rc, want 1: $(cat err)"
	[ "$(cat err)" = "kprotperf record: cannot create 'ro/k.data': Permission denied: choose a writable path with -o" ] ||
		fail "unwritable dir said '$(cat err)'"
	[ ! -e ran ] || fail "unwritable dir: the workload ran"
fi
# a regular file is replaced, and nothing else is left beside it
"$KP" record -q -o target -- "$ROOT/syscall-loop" 100 > /dev/null || fail "recording over a regular file failed"
[ "$(q target "SELECT value FROM meta WHERE key = 'record.end'")" = exited ] || fail "target is not the recording"
ls | grep -q '\.tmp\.' && fail "temporary file left behind: $(ls)"
echo "-o is checked before the workload starts"

#!/bin/bash
# -o is checked before CMD starts: only an absent path or a regular file is
# written (replaced atomically); a directory, a symbolic link (not followed:
# documented in docs/record.md), a device node, an unwritable directory or one
# other users can write (not sticky) is refused with one line, exit 1, CMD
# never run and the path left as it was.
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
# a folder other users can write, not sticky: one of them could put a link in
# place of the file being written; a sticky one (/tmp) is fine
mkdir shared sticky && chmod 777 shared && chmod 1777 sticky
refused shared/k.data "kprotperf record: cannot write 'shared/k.data': folder 'shared' can be written by other users (mode 0777, not sticky): write into a folder only you can write"
[ -z "$(ls -A shared)" ] || fail "something was written into the shared folder: $(ls -A shared)"
"$KP" record -q -o sticky/k.data -- true > /dev/null 2> err || fail "-o in a sticky folder: $(cat err)"
[ "$(ls -A sticky)" = k.data ] || fail "the sticky folder holds $(ls -A sticky)"
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
# something that appears at -o while recording is not replaced, and the recording
# is not lost: it is kept under its temporary name, which the message gives
"$KP" record -q -o out.data -- sh -c 'mkdir out.data' > out 2> err && rc=0 || rc=$?
[ "$rc" = 1 ] || fail "a directory made at -o while recording: exit $rc, want 1: $(cat err)"
kept=$(ls | grep '^out\.data\.tmp\.' || true)
[ "$(echo "$kept" | wc -w)" = 1 ] || fail "not one kept recording beside out.data: $(ls)"
[ "$(cat err)" = "kprotperf record: cannot write 'out.data': it is a directory now: the recording is kept in 'out.data.tmp.${kept#out.data.tmp.}': move it where you want it" ] ||
	fail "a directory made at -o said '$(cat err)'"
"$KP" report -i "$kept" > /dev/null 2> err || fail "the kept recording does not open: $(cat err)"
# it is not taken for a stale temporary file by the next record writing there
rmdir out.data
"$KP" record -q -o out.data -- true > /dev/null 2>&1
[ -f "$kept" ] || fail "the next record removed the kept recording"
# stale temporary files: only ours (this boot and pid namespace, a dead pid, a regular
# file of this user, mode 0600) are removed; look-alikes stay
tag=$(head -c 8 /proc/sys/kernel/random/boot_id)-$(stat -L -c %i /proc/self/ns/pid)
true & dead=$!
wait $dead
stalefile() { echo x > "$1" && chmod 600 "$1"; }
stalefile "n.data.tmp.$tag-$dead.abcdef"
stalefile "n.data.tmp.$tag-$dead.nobody" && chown nobody "n.data.tmp.$tag-$dead.nobody"
stalefile "n.data.tmp.0badbeef-1-$dead.othert"
stalefile "n.data.tmp.$dead.oldnam"
stalefile "n.data.tmp.$tag-$dead.public" && chmod 644 "n.data.tmp.$tag-$dead.public"
echo precious > linked
ln -s linked "n.data.tmp.$tag-$dead.symlnk"
"$KP" record -q -o n.data -- true > /dev/null 2> err || fail "record beside look-alikes failed: $(cat err)"
[ ! -e "n.data.tmp.$tag-$dead.abcdef" ] || fail "our stale temporary file was not removed"
for f in nobody othert public symlnk; do
	[ -e "n.data.tmp.$tag-$dead.$f" ] || [ -e "n.data.tmp.0badbeef-1-$dead.$f" ] ||
		fail "a look-alike temporary file ($f) was removed"
done
[ -e "n.data.tmp.$dead.oldnam" ] || fail "a look-alike temporary file (oldnam) was removed"
[ -L "n.data.tmp.$tag-$dead.symlnk" ] && [ "$(cat linked)" = precious ] ||
	fail "the symlink look-alike or what it points to was changed"
echo "-o is checked before the workload starts and at the end"

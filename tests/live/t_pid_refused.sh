#!/bin/bash
# -p on a process root may not ptrace (here pid 1 when it lives in another
# user namespace): the line says what was refused and the way out, not
# "run as root".
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
head -c 1 /proc/1/maps > /dev/null 2>&1 && skip "/proc/1/maps is readable here: no untraceable process to try"
"$KP" record -q -p 1 -d 1 -o p.data > out 2> err && rc=0 || rc=$?
[ "$rc" = 1 ] || fail "exit $rc, want 1: $(cat err)"
want="kprotperf record: cannot read /proc/1/maps: Permission denied: process 1 may not be traced from here (another user's or another user namespace's process, or ptrace limited by kernel.yama.ptrace_scope); record a process this user may ptrace, or -a to record the whole system"
[ "$(cat err)" = "$want" ] || fail "said '$(cat err)', want '$want'"
[ ! -e p.data ] && ! ls | grep -q '\.tmp\.' || fail "a file was left: $(ls)"
echo "-p on an untraceable process says why"

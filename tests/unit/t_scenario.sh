#!/bin/bash
# kprotperf scenario among the caller's processes, each case's exit status
# and whole stderr compared: in a pipeline led by it (a job-control shell
# makes it the group leader) the other commands of the pipeline live on;
# Ctrl-C (SIGINT to the terminal's foreground group, here the job's group)
# stops it cleanly, 130, with its processes killed, none left: the worker
# leads a group of its own, out of the terminal's; with SIGCHLD ignored by
# the caller (trap '' CHLD, some CI runners), which would have the kernel
# reap the worker unseen, it still sees its worker end.
set -u
# a relative KP is relative to where the test was started
if [[ ${KP-} == */* && $KP != /* ]]; then KP=$PWD/$KP; fi
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
. tests/lib/procs.sh
[ -x "$KP" ] || { echo "skipped: no $KP to run: run make"; exit 77; }
TMP=$(mktemp -d /tmp/kp-scenario.XXXXXX)
job=
trap '[ -z "$job" ] || kill "$job" 2> /dev/null; rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1
printf 'eventfd count=1\n' > one.scn
printf 'mmap count=4 size=65536 shared=0 touch=1\nfork count=4 depth=2 hold=0\n' > reap.scn
printf 'fork count=4 depth=2 hold=60000\n' > hold.scn
printf '[fork]\ncount = 1..64 default 1\ndepth = 1..4 default 1\nhold = 0..60000 default 0\n' > hold.conf

# expect NAME STATUS STDERR: the case's $rc and file err
expect() {
	[ "$rc" = "$2" ] || fail "$1: exit $rc, want $2; stderr: $(cat err)"
	[ "$(cat err)" = "$3" ] || fail "$1: stderr: $(cat err); want: $3"
}

# job control: each pipeline a process group, led by its first command
set -m
"$KP" scenario one.scn 2> err | cat > /dev/null
rc="${PIPESTATUS[*]}"
set +m
expect "in a pipeline" "0 0" ""

set -m
"$KP" scenario --seconds 60 --templates hold.conf hold.scn 2> err &
job=$!
set +m
worker=$(children_of "$job") || fail "no worker under kprotperf ($job) after 60 s"
children_of "$worker" > /dev/null || fail "no process under the worker ($worker) after 60 s"
pgid=$(ps -o pgid= -p "$worker" | tr -d ' ')
[ "$pgid" = "$worker" ] || fail "the worker $worker is in process group $pgid, not one of its own"
# what the terminal does on Ctrl-C
kill -INT -- "-$job"
rc=0
wait "$job" || rc=$?
job=
expect "Ctrl-C" 130 "kprotperf scenario: stopped by SIGINT in step 1 (fork): its processes are killed"
! pgrep -g "$worker" > /dev/null || fail "Ctrl-C: processes of the scenario are left: $(pgrep -g "$worker")"

rc=0
(trap '' CHLD; exec "$KP" scenario reap.scn 2> err) || rc=$?
expect "SIGCHLD ignored" 0 ""
echo "scenario: a pipeline's other command lives on, Ctrl-C stops it (130), SIGCHLD ignored is no hang"

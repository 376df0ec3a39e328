#!/bin/bash
# kprotperf scenario's steps run without capabilities: as uid 65534 with
# cap_bpf,cap_perfmon,cap_syslog+ep on a copy of the binary, and as root,
# the worker and a process of its fork step have no effective, permitted,
# inheritable or ambient capability and no_new_privs set (their status
# lines compared whole), the bounding set emptied as root and left as it
# was without CAP_SETPCAP; in that binary's secure mode a TMPDIR the C
# library dropped is said in one line, and --quiet silences it.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/lib/procs.sh"
need_root
command -v pgrep > /dev/null || skip "pgrep missing (procps)"
setcap_copy
setcap cap_bpf,cap_perfmon,cap_syslog+ep "$TMP/bin/kprotperf" || skip "setcap failed on $TMP (no xattrs?)"
printf 'fork count=1 depth=2 hold=60000\n' > hold.scn
printf '[fork]\ncount = 1..64 default 1\ndepth = 1..4 default 1\nhold = 0..60000 default 0\n' > hold.conf
printf 'eventfd count=1\n' > one.scn
job=
trap '[ -z "$job" ] || kill "$job" 2> /dev/null; rm -rf "$TMP"' EXIT

caps() {	# PID: its capability sets and no_new_privs
	grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' "/proc/$1/status"
}
# steps NAME BOUNDING CMD...: CMD (a kprotperf) runs hold.scn; its worker's and
# a step process' sets must be none, the bounding set BOUNDING
steps() {
	local name=$1 bnd=$2 worker chain want rc=0
	shift 2
	"$@" scenario --seconds 60 --templates hold.conf hold.scn 2> err &
	job=$!
	worker=$(children_of "$job") || fail "$name: no worker under kprotperf ($job) after 60 s"
	# a step's process: the worker has its sandbox
	chain=$(children_of "$worker") || fail "$name: no step process under $worker after 60 s"
	want=$(printf 'CapInh:\t%s\nCapPrm:\t%s\nCapEff:\t%s\nCapBnd:\t%s\nCapAmb:\t%s\nNoNewPrivs:\t1' \
		0000000000000000 0000000000000000 0000000000000000 "$bnd" 0000000000000000)
	[ "$(caps "$worker")" = "$want" ] || fail "$name: the worker's sets: $(caps "$worker"); want: $want"
	[ "$(caps "$chain")" = "$want" ] || fail "$name: a step process' sets: $(caps "$chain"); want: $want"
	kill -TERM "$job"
	wait "$job" || rc=$?
	job=
	[ "$rc" = 143 ] || fail "$name: exit $rc, want 143: $(cat err)"
	want="kprotperf scenario: stopped by SIGTERM in step 1 (fork): its processes are killed"
	[ "$(cat err)" = "$want" ] || fail "$name: stderr: $(cat err); want: $want"
}

bnd=$(as_user grep CapBnd /proc/self/status | cut -f2)
steps "setcap'ed, uid $user" "$bnd" "${as_user_cmd[@]}" "$TMP/bin/kprotperf"
steps "root" 0000000000000000 "$KP"

want="kprotperf scenario: \$TMPDIR is ignored: this binary's file capabilities make the C library drop it; scratch folders go to /tmp (scenario --dir DIR chooses)"
rc=0
TMPDIR=$TMP/work as_user "$TMP/bin/kprotperf" scenario one.scn 2> err || rc=$?
[ "$rc" = 0 ] || fail "TMPDIR dropped: exit $rc: $(cat err)"
[ "$(cat err)" = "$want" ] || fail "TMPDIR dropped: stderr: $(cat err); want: $want"
rc=0
TMPDIR=$TMP/work as_user "$TMP/bin/kprotperf" scenario -q one.scn 2> err || rc=$?
[ "$rc:$(cat err)" = "0:" ] || fail "TMPDIR dropped, -q: exit $rc, stderr: $(cat err)"
echo "scenario steps without capabilities (setcap'ed as uid $user, root), no_new_privs; a dropped TMPDIR said"

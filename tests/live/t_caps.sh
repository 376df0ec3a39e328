#!/bin/bash
# Recording without root: an unprivileged user with CAP_BPF, CAP_PERFMON and
# CAP_SYSLOG on a copy of the binary records exactly, owns the 0600 data
# file, and its workload gets none of the capabilities; one capability
# short, the line names what is lacking and the setcap line.
. "$(dirname "$0")/lib.sh"
need_bpf
setcap_copy

setcap cap_bpf,cap_perfmon,cap_syslog+ep "$TMP/bin/kprotperf" || skip "setcap failed on $TMP (no xattrs?)"
as_user "$TMP/bin/kprotperf" record -q -o caps.data -- "$ROOT/syscall-loop" 1000 > /dev/null 2> err ||
	fail "record with capabilities as uid $user: $(cat err)"
[ "$(stat -c '%u %a' caps.data)" = "$user 600" ] || fail "owner/mode $(stat -c '%u %a' caps.data)"
calls=$(q caps.data "SELECT calls FROM latency WHERE name = 'getppid'")
[ "$calls" = 1000 ] || fail "getppid calls recorded: $calls, want 1000"
as_user "$TMP/bin/kprotperf" record -q -o eff.data -- grep CapEff /proc/self/status > out 2> err ||
	fail "record grep: $(cat err)"
[ "$(cat out)" = "$(printf 'CapEff:\t0000000000000000')" ] || fail "the workload has capabilities: $(cat out)"

setcap cap_bpf+ep "$TMP/bin/kprotperf"
as_user "$TMP/bin/kprotperf" record -q -o short.data -- true 2> err && fail "recording without CAP_PERFMON succeeded"
# CAP_SYSLOG is needed, and named, only where kallsyms hides addresses from the user
if [ "$(as_user head -c 16 /proc/kallsyms)" = 0000000000000000 ]; then
	lacking="CAP_PERFMON, CAP_SYSLOG" set=cap_bpf,cap_perfmon,cap_syslog
else
	lacking=CAP_PERFMON set=cap_bpf,cap_perfmon
fi
want="kprotperf record: recording needs $lacking, which this process lacks: run as root, or give the binary its capabilities: sudo setcap $set+ep $TMP/bin/kprotperf"
[ "$(cat err)" = "$want" ] || fail "missing-capability line: $(cat err); want: $want"
[ ! -e short.data ] || fail "a data file was written without the capabilities"
# the setcap line replaces the file's set: a capability it has stays in it
setcap cap_bpf,cap_syslog+ep "$TMP/bin/kprotperf"
as_user "$TMP/bin/kprotperf" record -q -o short.data -- true 2> err && fail "recording without CAP_PERFMON succeeded"
want="kprotperf record: recording needs CAP_PERFMON, which this process lacks: run as root, or give the binary its capabilities: sudo setcap cap_bpf,cap_perfmon,cap_syslog+ep $TMP/bin/kprotperf"
[ "$(cat err)" = "$want" ] || fail "missing-capability line with CAP_SYSLOG held: $(cat err); want: $want"
echo "recorded as uid $user with capabilities: 1000 getppid calls, $user-owned 0600 file, workload CapEff 0; one short: named"

#!/bin/bash
# A workload too short to be sampled (true at 1 Hz, syscalls not traced) is
# still a recording, as perf writes one: its wall time, exit code and page
# faults are saved, report shows them and says in one line that there are
# no samples, folded and annotate say only that, and diff notes it per side.
# Outputs are compared whole, with what varies between runs (times, the
# date, fault counts) masked and the host's own header lines (kernel,
# config, vulnerabilities, debug info) left out.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"

# rec FILE: a recording of true without a sample.  At 1 Hz a sample falls in
# its millisecond or two on a CPU about once in 500 recordings, more on a
# busy machine: a recording that took one is made again.
rec() {
	local i
	for i in 1 2 3 4 5; do
		"$KP" record -F 1 --no-syscalls -o "$1" -- true 2> "$1.err" ||
			fail "record -F 1 --no-syscalls -- true exited $?: $(cat "$1.err")"
		[ "$(q "$1" "SELECT COUNT(*) FROM samples")" = 0 ] && return 0
	done
	fail "each of 5 recordings of true took a sample at 1 Hz"
}

mask() {
	sed -E -e '/^# (kernel |cmdline |hardening config|cpu vulnerabilities|cpu not affected|inline frames)/d' \
		-e '/^#   /d' -e '/^# note: [a-z]+: no inline frames/d' \
		-e 's/[0-9]+(\.[0-9]+)?(ns|us|ms|s)\b/TIME/g' -e 's/[0-9]+\.[0-9]+ s$/TIME s/' \
		-e 's/recorded [0-9TZ:-]+/recorded DATE/' -e 's/[0-9]+ (page faults|user|kernel)/N \1/g'
}

# expect NAME WANT_STATUS CMD...: CMD's stdout and stderr, masked, are NAME.want
expect() {
	local name=$1 want=$2 rc
	shift 2
	"$@" > "$name.out" 2> "$name.err" && rc=0 || rc=$?
	[ "$rc" = "$want" ] || fail "$* exited $rc, want $want: $(cat "$name.err")"
	{ mask < "$name.out"; echo "--- stderr"; mask < "$name.err"; } > "$name.got"
	diff -u "$name.want" "$name.got" || fail "$name: the output above differs"
}

rec e1.data
rec e2.data
{ echo "--- stderr"; mask < e1.data.err; } > rec.got
cat > rec.want <<'EOF'
--- stderr
kprotperf: wrote e1.data: 0 samples, syscalls not traced, N page faults, 0 lost, TIME s
EOF
diff -u rec.want rec.got || fail "record's summary differs"
[ "$(q e1.data "SELECT value FROM meta WHERE key = 'record.exit_code'")" = 0 ] ||
	fail "no exit code"
[ "$(q e1.data "SELECT value > 0 FROM meta WHERE key = 'record.wall_ns'")" = 1 ] ||
	fail "no wall time"
[ "$(q e1.data "SELECT value > 0 FROM counters WHERE name = 'page_faults_user'")" = 1 ] ||
	fail "no page faults"

cat > report.want <<'EOF'
# kprotperf report of true (recorded DATE)
# wall TIME, exit code 0, ended: exited; 1 Hz cpu-clock sampling
# 0 samples, 0 syscalls, N page faults (N user, N kernel), 1 processes
# lost: nothing

Syscalls not traced (record --no-syscalls)

no CPU samples in TIME at 1 Hz
--- stderr
EOF
expect report 0 "$KP" report e1.data

"$KP" report --json e1.data | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["counters"]["samples"] == 0 and d["syscalls"] is None, d["counters"]
assert d["kernel_functions"] == d["user_functions"] == [], d
# the feature rows are null where record could not read the kernel text
f = d["features"]
assert f["rows"] == ([] if f["sites_source"] == "/proc/kcore" else None), f
assert int(d["meta"]["record.wall_ns"]) > 0 and d["meta"]["record.exit_code"] == "0"
' || fail "report --json of the empty recording"

printf -- '--- stderr\nkprotperf folded: e1.data: no CPU samples in TIME at 1 Hz\n' > folded.want
expect folded 0 "$KP" folded e1.data
printf -- '--- stderr\nkprotperf annotate: e1.data: no CPU samples in TIME at 1 Hz\n' > annotate.want
expect annotate 1 "$KP" annotate -f do_syscall_64 e1.data

"$KP" diff e1.data e2.data > diff.out 2> diff.err || fail "diff exited $?: $(cat diff.err)"
grep 'no CPU samples' diff.out | mask > diff.got
cat > diff.want <<'EOF'
# note: base: no CPU samples in TIME at 1 Hz
# note: hardened: no CPU samples in TIME at 1 Hz
EOF
diff -u diff.want diff.got || fail "diff's notes differ"
echo "a recording without samples: written, and said so by report, folded, annotate, diff"

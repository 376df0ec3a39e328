#!/bin/bash
# Counting starts at the command's exec, as strace -f counts: for true, a
# shell pipeline and programs that fork (and exec), kprotperf's syscall
# table holds the same names and counts as strace's, whole sets compared.
# The launcher's setup and execvp's failed PATH attempts never count; the
# execve that succeeds counts once.  Calls are compared with strace's lines
# (exit_group, which never returns, included), returns with strace -c.
# A command that never reaches its exec (not found, not executable, killed
# before it) is said to be one.
. "$(dirname "$0")/lib.sh"
need_bpf
command -v strace > /dev/null || skip "needs strace"
command -v jq > /dev/null || skip "needs jq"
cd "$TMP"

# tables CMD...: k.calls and k.ret from kprotperf, s.calls and s.ret from strace
tables() {
	"$KP" record -q -o k.data -- "$@" > /dev/null 2> err || fail "record -- $* failed: $(cat err)"
	"$KP" report --json k.data > k.json || fail "report --json"
	jq -r '.syscalls[] | "\(.name) \(.calls)"' k.json | sort > k.calls
	jq -r '.syscalls[] | select(.returned > 0) | "\(.name) \(.returned)"' k.json | sort > k.ret
	rm -f k.data
	strace -f -qq -o s.out -- "$@" > /dev/null || fail "strace -- $* failed"
	# one line per syscall entry: its continuation, exits and signals are not entries
	grep -Ev '^[0-9]+ +(<\.\.\.|\+\+\+|---)' s.out |
		sed -E 's/^[0-9]+ +([a-z0-9_]+)\(.*/\1/' | sort | uniq -c | awk '{print $2, $1}' |
		sort > s.calls
	strace -f -c -U name,calls -o s.sum -- "$@" > /dev/null || fail "strace -c -- $* failed"
	awk 'NR > 2 && !/^-/ && $1 != "total" {print $1, $2}' s.sum | sort > s.ret
}

# same CMD...: the tables agree.  The two tools run CMD apart, so a signal
# may interrupt (and restart) a syscall in one run and not in the other,
# e.g. SIGCHLD during the shell's next clone: up to 5 tries for one match.
same() {
	local try
	for try in 1 2 3 4 5; do
		tables "$@"
		if cmp -s k.calls s.calls && cmp -s k.ret s.ret; then
			echo "'$*': $(wc -l < k.calls) syscalls, $(awk '{n += $2} END {print n}' k.calls) calls, as strace (try $try)"
			return 0
		fi
	done
	diff k.calls s.calls >&2
	diff k.ret s.ret >&2
	fail "'$*': kprotperf (<) and strace (>) differ in 5 tries"
}

same true
same sh -c 'echo a | cat > /dev/null'
same sh -c '/bin/true; /bin/true'
same "$ROOT/big-fork" 3

# the launcher's own calls, explicitly: one execve, none of its setup
tables true
[ "$(awk '$1 == "execve" {print $2}' k.calls)" = 1 ] || fail "true: execve $(grep execve k.calls)"
for name in getuid getgid prctl poll rt_sigprocmask; do
	! grep -q "^$name " k.calls || fail "true: the launcher's $name counted"
done

# dropping to the sudo user (setgroups, setgid, setuid) is the launcher's too
SUDO_UID=65534 SUDO_GID=65534 "$KP" record -q -o u.data -- true 2> err || fail "as nobody: $(cat err)"
for name in setgroups setgid setuid; do
	[ -z "$(q u.data "SELECT calls FROM latency WHERE kind = 'syscall' AND name = '$name'")" ] ||
		fail "the drop to the sudo user's $name counted"
done
[ "$(q u.data "SELECT calls FROM latency WHERE name = 'execve'")" = 1 ] || fail "as nobody: execve count"

# each run of --repeat counts from its own exec
"$KP" record -q --repeat 3 -o r.data -- true 2> err || fail "--repeat 3: $(cat err)"
[ "$(q r.data "SELECT calls FROM latency WHERE name = 'execve'")" = 3 ] || fail "--repeat 3: execve count"

# a command that cannot exec is said to be one, with the shell's status
"$KP" record -q -o n.data -- ./no-such-command 2> err && rc=0 || rc=$?
[ "$rc" = 127 ] && grep -q "cannot run './no-such-command': No such file or directory" err ||
	fail "missing command: status $rc, said: $(cat err)"
printf 'echo hi\n' > not-executable
"$KP" record -q -o n.data -- ./not-executable 2> err && rc=0 || rc=$?
[ "$rc" = 126 ] && grep -q "cannot run './not-executable': Permission denied" err ||
	fail "non-executable: status $rc, said: $(cat err)"
[ ! -e n.data ] || fail "a data file was written for a command that never ran"
# held_in_prctl PID: PID waits in prctl(PR_SET_PDEATHSIG, SIGKILL), let go
# already; its arguments say so on any architecture
held_in_prctl() {
	[ "$(cut -d' ' -f2,3 "/proc/$1/syscall" 2> /dev/null)" = "0x1 0x9" ]
}
# killed_before TRACED-SYSCALL FLAGS READY [NTH]: strace holds kprotperf in
# following the launcher (perf_event_open) or sending it the go byte (write),
# or the launcher let go in prctl (PR_SET_PDEATHSIG), for 3 s (only the NTH
# call, if given), while the launcher is killed once READY LAUNCHER-PID holds
killed_before() {
	local launcher='' rec tracer
	# LeakSanitizer (the asan tier's build) cannot run under ptrace
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace $2 -qq -o /dev/null -e trace="$1" \
		-e inject="$1":delay_enter=3000000${4:+:when=$4} "$KP" record -q -o n.data -- true 2> err &
	tracer=$!
	# a bound, for a busy machine's slow start: the wait ends when READY holds
	for _ in $(seq 500); do
		rec=$(pgrep -P $tracer -x kprotperf) && launcher=$(pgrep -P "$rec" -x kprotperf) &&
			$3 "$launcher" && break
		launcher=''
		sleep 0.02
	done
	[ -n "$launcher" ] || fail "the launcher never showed ($1)"
	kill -KILL "$launcher"
	wait $tracer && rc=0 || rc=$?
	[ "$rc" = 1 ] && [ ! -e n.data ] || fail "killed before exec ($1): status $rc, file $(ls n.data 2>&1)"
}
# kprotperf's first perf_event_open follows the launcher, just forked: killed
# meanwhile, it is not a process that cannot be followed (ESRCH)
killed_before perf_event_open '' true 1
grep -qx "kprotperf record: 'true' was killed by signal 9 before its exec: nothing of it ran" err ||
	fail "killed while being followed: said: $(cat err)"
# before its release kprotperf sees only a closed pipe (EPIPE): it still
# tells the signal, as it does after the release
killed_before write '' true
grep -qx "kprotperf record: 'true' was killed by signal 9 before its exec: nothing of it ran" err ||
	fail "killed before being let go: said: $(cat err)"
# only once it is let go: killed as soon as it shows, it may not be yet
killed_before prctl -f held_in_prctl
grep -qx "kprotperf record: 'true' was killed by signal 9 before its exec: nothing of it ran" err ||
	fail "killed before its exec: said: $(cat err)"
echo "launcher's calls not counted (sudo drop, --repeat, failed exec reported)"

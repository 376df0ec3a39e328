#!/bin/bash
# A sweep's jobs run by GNU parallel over ssh, for real, to "nodes" that
# share nothing of the sweep's folder with this machine: each node is an
# sshd the test starts on a loopback port (a host key, a user key and a
# known_hosts of its own; ssh -F a config of its own: nothing of the
# system's ssh is read or touched) in a mount namespace of its own, where
# the sweep's folder ($TMP/node) is an empty tmpfs.  So the jobs' DIR and
# plan are the node's own, as on a machine without a shared file system:
# --transferfile sends the plan, each job writes DIR/VARIANT on the node,
# and --return brings that folder and DIR/sweep.plan back (rsync over that
# ssh).  What the node does share is what a job needs at the same path
# (the checkout and its build, scripts/, the kernel cache, QEMU): the job
# checks it first.  (A shared folder, NFS, would be the other way; here it
# would be this machine's own folder and show nothing that a transfer does.)
# The smallest plan of t_sweep.sh (tests/vm/engines.sh) runs here first,
# then as docs/sweep.md's parallel line does it, and the two matrices are
# alike: the same rows, every cell compared in both, the broken row saying
# vm-run's reason.  Then bad input: a job that parallel kills (--timeout)
# in its boot: no process of it left on the node, its row "not run" (its
# scratch folder left there: parallel's kill ended it before it could say
# so; the joblog has the signal) or, when it could, "killed:
# SIGTERM in its boot"; and a node whose checkout has
# no static binaries (a second sshd whose namespace hides build/static):
# the job's first line says so, its folder comes back with that reason in
# its row, while the other rows are made.  Prints the time each step took.
# kernels: hard base
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
# shellcheck source=tests/vm/engines.sh
. "$(dirname "$0")/engines.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (sshd, and the kernel cache is root's here)"
vm_need_host_test
vm_need_tools parallel sshd ssh ssh-keygen rsync unshare
export KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
export OUTPUT=$VM_OUTPUT
cd "$TMP" || fail "cd $TMP"
K=$TMP/ssh
SSHD_PIDS=()

# ns_pids PID: the processes in PID's mount namespace but PID
ns_pids() {
	local ns q
	ns=$(readlink "/proc/$1/ns/mnt" 2>/dev/null) || return 0
	for q in /proc/[0-9]*; do
		[ "${q#/proc/}" != "$1" ] && [ "$(readlink "$q/ns/mnt" 2>/dev/null)" = "$ns" ] &&
			echo "${q#/proc/}"
	done
	return 0
}

# each node's processes (a job parallel left), then its sshd
nodes_stop() {
	local p i
	for p in "${SSHD_PIDS[@]}"; do
		# shellcheck disable=SC2046 # pids
		kill $(ns_pids "$p") "$p" 2>/dev/null || true
		for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	return 0
}
trap 'rc=$?; nodes_stop; (exit $rc); vm_cleanup' EXIT

# node NAME [HIDE]: an sshd for host NAME in a mount namespace where
# $TMP/node (and HIDE, when given) is an empty tmpfs; prints its login line
node() {
	local name=$1 hide=${2:-} port i
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$K/sshd-$name" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $K/host
AuthorizedKeysFile $K/id.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile none
# its keys are under /tmp, which others can write (sticky)
StrictModes no
# the kernel cache where this machine's is (a job looks there: vm.sh)
AcceptEnv XDG_CACHE_HOME
EOF
	cat >>"$K/config" <<EOF
Host $name
	HostName 127.0.0.1
	Port $port
	User root
	IdentityFile $K/id
	IdentitiesOnly yes
	BatchMode yes
	HostKeyAlias $name
	UserKnownHostsFile $K/known_hosts
	StrictHostKeyChecking yes
${XDG_CACHE_HOME:+	SetEnv XDG_CACHE_HOME=$XDG_CACHE_HOME}
EOF
	echo "$name $(cat "$K/host.pub")" >>"$K/known_hosts"
	# sshd's privilege separation folder, /run/sshd, on a /run of the node's own
	setsid unshare -m sh -c "mount -t tmpfs kp-run /run && mkdir -m 755 /run/sshd &&
		mount -t tmpfs kp-node '$TMP/node' ${hide:+&& mount -t tmpfs kp-hide '$hide'} &&
		exec /usr/sbin/sshd -D -f '$K/sshd-$name' -E '$K/log-$name'" </dev/null &
	SSHD_PIDS+=($!)
	for i in $(seq 50); do
		ssh -F "$K/config" "$name" true 2>/dev/null && return 0
		sleep 0.1
	done
	fail "sshd for $name did not answer: $(tail -3 "$K/log-$name" 2>/dev/null)"
}

mkdir -p "$K" node
ssh-keygen -q -t ed25519 -N '' -C kp-node -f "$K/host"
ssh-keygen -q -t ed25519 -N '' -C kp-test -f "$K/id"
node kpnode
node kpbare "$VM_OUTPUT/static"
[ -z "$(ssh -F "$K/config" kpnode "ls -A '$TMP/node'")" ] || fail "the node sees this machine's $TMP/node"
eng_step "sweep with parallel: two sshd nodes started ($(sshd -V 2>&1 | cut -d, -f1))"
eng_plan
eng_local
eng_step "sweep with parallel: the plan run here (-j 2)"

# docs/sweep.md's parallel line, its commands as written there
kprotperf() { "$KP" "$@"; }
cp plan node/plan
echo "ssh -F $K/config kpnode" >hosts.txt
# the nodes' checkout builds into build/ unless OUTPUT says otherwise (a test run's)
envs=()
[ "$VM_OUTPUT" = "$VM_ROOT/build" ] || envs=(--env OUTPUT)
kprotperf sweep --dry-run -r 2 --ops $ENG_OPS -o "$TMP/node/sweep" "$TMP/node/plan" 2>dry.err |
	awk '{ print $4 "\t" $0 }' >jobs.tsv || fail "--dry-run failed" # the variant's name, then the job
parallel --sshloginfile hosts.txt -j 2 "${envs[@]}" --colsep '\t' --joblog jobs.log \
	--transferfile "$TMP/node/plan" \
	--return "$TMP/node/sweep/{1}" --return "$TMP/node/sweep/sweep.plan" \
	'eval {2}' :::: jobs.tsv >par.out 2>par.err || true
[ "$(wc -l <jobs.tsv)" = 3 ] || fail "--dry-run printed $(wc -l <jobs.tsv) jobs: $(cat jobs.tsv)"
[ "$(awk -F'\t' 'NR > 1 { print $7 }' jobs.log | sort | tr '\n' ' ')" = "0 0 1 " ] ||
	fail "the jobs' exit status (broken's 1, the others 0): $(cat jobs.log par.err)"
rc=0
kprotperf sweep --merge node/sweep --json >node.json 2>err || rc=$?
[ "$rc" = 1 ] || fail "sweep --merge node/sweep: exit $rc, want 1: $(cat err par.err)"
[ "$(grep -c ': this node has what the job needs (vm-run.sh --check-host, kernel-build.sh --check)$' par.err)" = 3 ] ||
	fail "not every job checked its node: $(cat par.err)"
eng_same local.json node.json
eng_step "sweep with parallel: 3 jobs over ssh, brought back and merged, alike the local run"

# Bad input: freelist_random's job killed by parallel in its boot; broken's
# on kpbare, whose checkout has no static binaries.  base's results are there.
mkdir node/sweep2 && cp -a node/sweep/sweep.plan node/sweep/base node/sweep2/ || fail "cannot copy base's results"
sed "s|$TMP/node/sweep |$TMP/node/sweep2 |" jobs.tsv >jobs2.tsv
# -r 100 (the most): a job that would run ~45 s, so that the kill comes in
# its boot (-r 20 took 13.9 s once boots got 3-4 s shorter: not killed)
grep '^freelist_random' jobs2.tsv | sed 's/ -r 2 / -r 100 /' >killed.tsv
grep '^broken' jobs2.tsv >bare.tsv
rc=0
parallel -S "ssh -F $K/config kpnode" --timeout 15 --colsep '\t' --joblog killed.log \
	--transferfile "$TMP/node/plan" --return "$TMP/node/sweep2/{1}" \
	'eval {2}' :::: killed.tsv >killed.out 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "parallel --timeout 15: exit 0: $(cat killed.out)"
grep -q 'freelist_random: booting' killed.out || fail "the job was killed before its boot: $(cat killed.out)"
for _ in $(seq 50); do
	[ "$(ns_pids "${SSHD_PIDS[0]}")" = "" ] && break
	sleep 0.2
done
[ "$(ns_pids "${SSHD_PIDS[0]}")" = "" ] ||
	fail "the killed job left processes on the node: $(ns_pids "${SSHD_PIDS[0]}" | xargs -r ps -o pid,args -p)"
# stopped in its boot: parallel's kill (its --termseq ends in KILL) leaves
# either the scratch folder or, when the job had the time to, its folder
# with a job file saying that it was killed
left=$(ssh -F "$K/config" kpnode "cd '$TMP/node/sweep2' && ls -d kprotperf-freelist_random.* freelist_random 2>/dev/null" || true)
killed="killed: SIGTERM in its boot (its engine stopped it: a time limit, a cancel, Ctrl-C): run its job again"
if [ "$left" = freelist_random ]; then
	ssh -F "$K/config" kpnode "cat '$TMP/node/sweep2/freelist_random/job'" | grep -qxF "reason=$killed" ||
		fail "the killed job's folder on the node: $(ssh -F "$K/config" kpnode "cat '$TMP/node/sweep2/freelist_random/job'")"
else
	[[ $left == kprotperf-freelist_random.?????? ]] || fail "the killed job left on the node: $left"
fi
parallel -S "ssh -F $K/config kpbare" "${envs[@]}" --colsep '\t' --joblog bare.log \
	--transferfile "$TMP/node/plan" --return "$TMP/node/sweep2/{1}" \
	'eval {2}' :::: bare.tsv >bare.out 2>&1 || true
want="kprotperf sweep: broken: node: vm-run: $VM_STATIC/kprotperf missing: run 'make${envs[0]:+ OUTPUT=$OUTPUT} static'"
[ "$(cat bare.out)" = "$want" ] || fail "the job on a node without the static binaries said: $(cat bare.out)"
rc=0
kprotperf sweep --merge node/sweep2 --json >sweep2.json 2>err || rc=$?
[ "$rc" = 1 ] || fail "sweep --merge node/sweep2: exit $rc, want 1: $(cat err)"
why=$(eng_why sweep2.json freelist_random)
[ "$why" = "not run: no node/sweep2/freelist_random/job (kprotperf sweep --job freelist_random ...)" ] ||
	[ "$why" = "$killed" ] || fail "the killed job's row: $why"
echo "sweep with parallel: the killed job's row: $why; its joblog: exit $(awk -F'\t' 'NR == 2 { print $7 ", signal " $8 }' killed.log); left on the node: $left"
why=$(eng_why sweep2.json broken)
[ "$why" = "${want#kprotperf sweep: broken: }" ] || fail "the row of the node without inputs: $why"
echo "sweep with parallel: the row of the node without inputs: $why"
eng_step "sweep with parallel: bad input, each row saying why"

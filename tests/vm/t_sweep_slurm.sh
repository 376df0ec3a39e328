#!/bin/bash
# A sweep's jobs run by Slurm, for real: a single-node cluster the test
# starts itself in its own folder (Debian's slurm-wlm and munge: munged with
# a key and socket of its own, slurmctld and slurmd as root with a
# slurm.conf for this host, proctrack/linuxproc and task/none: no cgroups;
# SLURM_CONF points at it, nothing of the system's is touched; all of it
# stopped when the test ends).  The smallest plan of t_sweep.sh
# (tests/vm/engines.sh: base, freelist_random, broken) runs here first,
# then as docs/sweep.md's job array does it (--dry-run's lines, one array
# task a line, the merge a job that waits for them), and the two matrices
# are alike: the same rows, every cell compared in both, the broken row
# saying vm-run's reason (the numbers are two boots' and are not compared).
# Then bad input, each row saying why while the others are made: a job
# cancelled by Slurm in its boot (SIGTERM: "killed: SIGTERM in its boot"),
# a node that lacks the static binaries (OUTPUT at a folder without them:
# the job's first line, "node: vm-run: ... missing: run 'make ... static'",
# nothing built or booted), and a variant's folder from another plan (the
# matrix refuses it).  Prints the time each step took.
# kernels: hard base
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
# shellcheck source=tests/vm/engines.sh
. "$(dirname "$0")/engines.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd, and the kernel cache is root's here)"
vm_need_host_test
vm_need_tools munged slurmctld slurmd sbatch squeue scancel
export KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
# the jobs' vm-run.sh finds the static binaries from the folder the test works in
export OUTPUT=$VM_OUTPUT
cd "$TMP" || fail "cd $TMP"
S=$TMP/slurm

# pid FILE: the daemon's process id in FILE, when it runs
pid_of() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && cat "$1"; }

# Everything the test started goes: its jobs, then slurmd, slurmctld, munged.
slurm_stop() {
	local f p i
	[ -n "${SLURM_CONF:-}" ] && [ -s "$S/slurmctld.pid" ] && scancel --quiet --user=root 2>/dev/null
	for i in $(seq 50); do
		[ -z "$(squeue -h 2>/dev/null)" ] && break
		sleep 0.2
	done
	for f in slurmd.pid slurmctld.pid munge/pid; do
		p=$(pid_of "$S/$f") || continue
		kill "$p" 2>/dev/null || true
		for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	return 0
}
trap 'rc=$?; slurm_stop; (exit $rc); vm_cleanup' EXIT

# two free ports on the loopback interface, for slurmctld and slurmd
free_ports() {
	python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))'
}

slurm_start() {
	local host ports i
	mkdir -p "$S/munge" "$S/state" "$S/spool" "$S/log"
	chmod 700 "$S/munge"
	head -c 1024 /dev/urandom >"$S/munge/munge.key"
	chmod 400 "$S/munge/munge.key"
	munged --force --socket="$S/munge/sock" --key-file="$S/munge/munge.key" \
		--log-file="$S/munge/log" --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" ||
		fail "munged did not start: $(tail -1 "$S/munge/log")"
	host=$(hostname -s)
	read -r -a ports < <(free_ports)
	cat >"$S/slurm.conf" <<EOF
ClusterName=kptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=kp Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$S/slurm.conf
	slurmctld -i || fail "slurmctld did not start: $(tail -3 "$S/log/slurmctld.log")"
	slurmd || skip "slurmd cannot run here: $(grep -m1 -iE 'error|fatal' "$S/log/slurmd.log" || tail -1 "$S/log/slurmd.log")"
	for i in $(seq 100); do
		[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && return 0
		sleep 0.2
	done
	fail "the node is not idle after 20 s: $(sinfo -h -o '%t %E' 2>&1); slurmd: $(tail -3 "$S/log/slurmd.log")"
}

slurm_start
eng_step "sweep on slurm: a single-node cluster started (slurm-wlm $(slurmd -V | cut -d' ' -f2))"
eng_plan
eng_local
eng_step "sweep on slurm: the plan run here (-j 2)"

# docs/sweep.md's job array, its commands as written there, kprotperf on PATH
mkdir bin && ln -s "$KP" bin/kprotperf
export PATH=$TMP/bin:$PATH
kprotperf sweep --dry-run -r 2 --ops $ENG_OPS -o "$TMP/sweep" plan >jobs.txt 2>dry.err ||
	fail "--dry-run: $(cat dry.err)"
cat >sweep.sbatch <<'EOF'
#!/bin/bash
#SBATCH --job-name=kp-sweep
#SBATCH --cpus-per-task=1
#SBATCH --time=02:00:00
# line SLURM_ARRAY_TASK_ID of jobs.txt is this task's job
eval "$(sed -n "${SLURM_ARRAY_TASK_ID}p" jobs.txt)"
EOF
id=$(sbatch --parsable --array=1-"$(wc -l <jobs.txt)" sweep.sbatch) || fail "sbatch of the array failed"
sbatch --wait --dependency=afterany:"$id" --wrap "kprotperf sweep --merge $TMP/sweep --json >sweep.json" || true
[ -s sweep.json ] || fail "the merge job left no matrix: $(tail -n 20 slurm-*.out 2>/dev/null)"
for f in slurm-"$id"_*.out; do
	grep -q ': this node has what the job needs (vm-run.sh --check-host, kernel-build.sh --check)$' "$f" ||
		fail "$f: no line of the node's check: $(cat "$f")"
done
eng_same local.json sweep.json
eng_step "sweep on slurm: $(wc -l <jobs.txt) array tasks and the merge, alike the local run"

# Bad input.  sweep2 holds base's results; freelist_random's job is
# cancelled in its boot, broken's runs on a "node" whose checkout has no
# static binaries (OUTPUT elsewhere).
mkdir sweep2 && cp -a sweep/sweep.plan sweep/base sweep2/ || fail "cannot copy base's results"
sed -e "s|$TMP/sweep |$TMP/sweep2 |" jobs.txt >jobs2.txt
job_of() { grep -- "--job $1 " jobs2.txt; }
kid=$(sbatch --parsable -o killed.out --wrap "$(job_of freelist_random)") || fail "sbatch failed"
mkdir nobuild
bid=$(sbatch --parsable -o node.out --export=ALL,OUTPUT="$TMP/nobuild" --wrap "$(job_of broken)") ||
	fail "sbatch failed"
for i in $(seq 300); do
	compgen -G "sweep2/kprotperf-freelist_random.*/vm.log" >/dev/null && break
	sleep 0.2
done
[ "$i" -lt 300 ] || fail "freelist_random's job did not boot within 60 s: $(cat killed.out)"
scancel "$kid"
for i in $(seq 150); do
	[ -z "$(squeue -h -j "$kid,$bid" 2>/dev/null)" ] && break
	sleep 0.2
done
[ -z "$(squeue -h -j "$kid,$bid" 2>/dev/null)" ] || fail "the jobs still run 30 s after the cancel"
scontrol show job "$kid" | grep -q 'JobState=CANCELLED' || fail "freelist_random's job: $(scontrol show job "$kid" | grep JobState)"
! pgrep -f "$TMP/sweep2/kprotperf-freelist_random" >/dev/null ||
	fail "the cancelled job left processes: $(pgrep -af "$TMP/sweep2/kprotperf-freelist_random")"
want="kprotperf sweep: broken: node: vm-run: $TMP/nobuild/static/kprotperf missing: run 'make OUTPUT=$TMP/nobuild static'"
[ "$(cat node.out)" = "$want" ] || fail "the job on a node without its inputs said: $(cat node.out)"
rc=0
"$KP" sweep --merge sweep2 --json >sweep2.json 2>err || rc=$?
[ "$rc" = 1 ] || fail "sweep --merge sweep2: exit $rc, want 1: $(cat err)"
why=$(eng_why sweep2.json freelist_random)
[ "$why" = "killed: SIGTERM in its boot (its engine stopped it: a time limit, a cancel, Ctrl-C): run its job again" ] ||
	fail "the cancelled job's row: $why"
[ "$(tail -1 killed.out)" = "kprotperf sweep: freelist_random: $why" ] || fail "the cancelled job said: $(cat killed.out)"
! compgen -G "sweep2/kprotperf-*" >/dev/null || fail "the cancelled job left $(echo sweep2/kprotperf-*)"
echo "sweep on slurm: the cancelled job's row: $why"
why=$(eng_why sweep2.json broken)
[ "$why" = "${want#kprotperf sweep: broken: }" ] || fail "the row of the node without inputs: $why"
echo "sweep on slurm: the row of the node without inputs: $why"

# a variant's folder from another plan, where broken's job left its own
mkdir sweep3 && cp -a sweep/sweep.plan sweep/base sweep/freelist_random sweep3/ &&
	cp -a local/freelist_random sweep3/broken || fail "cannot copy the results"
rc=0
"$KP" sweep --merge sweep3 --json >sweep3.json 2>err || rc=$?
[ "$rc" = 1 ] || fail "sweep --merge sweep3: exit $rc, want 1: $(cat err)"
why=$(eng_why sweep3.json broken)
[ "$why" = "sweep3/broken/job is of another setup than the plan's (kernel-build.sh --set SLAB_FREELIST_RANDOM=n; timeout 2): run its job again" ] ||
	fail "the row of a folder from another plan: $why"
python3 - sweep3.json <<'PY' || fail "sweep3's freelist_random row: $(head -c 2000 sweep3.json)"
import json, sys
m = json.load(open(sys.argv[1]))
r = next(r for r in m["rows"] if r["variant"] == "freelist_random")
assert r["ok"] and len(r["cells"]) == 2 and all(c["ok"] for c in r["cells"]), r
PY
echo "sweep on slurm: a folder from another plan: $why"
eng_step "sweep on slurm: bad input, each row saying why, the others made"

#!/bin/bash
# The version level: the same recording on Debian's stock 6.1 kernel and
# its stock 6.12 (linux-image-6.12-amd64), diffed on the host.  Probed
# functions are matched by name across the two builds: every one is in the
# diff with a latency on both sides.  With --probe kprobe, 6.1 (no
# CONFIG_FPROBE) attaches a kprobe per function and 6.12 one kprobe.multi
# link for all, and on both the calls the workload fixes are counted exactly:
# syscall-loop N makes N getppid calls, each calling __task_pid_nr_ns once.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
N=2000
R=3
FUNCS=(__task_pid_nr_ns ksys_write vfs_write __x64_sys_set_tid_address kmem_cache_free dput __fput __x64_sys_getppid)
ARGS=$(printf -- '--func %s ' "${FUNCS[@]}")
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-300}
vm_prepare
releases=()
for k in linux-image-amd64 linux-image-6.12-amd64; do
	vm_use_kernel "$k"
	vm_run <<GUEST || fail "guest script on $VM_KV exited $?"
kprotperf record -q -r $R --probe kprobe $ARGS -o /mnt/host/v.data -- syscall-loop $N
GUEST
	cp "$VM_SHARE/v.data" "$TMP/$VM_KV.data"
	releases+=("$VM_KV")
done
A=$TMP/${releases[0]}.data B=$TMP/${releases[1]}.data
[[ ${releases[0]} == 6.1.* && ${releases[1]} == 6.12.* ]] ||
	fail "booted ${releases[*]}, want a 6.1 and a 6.12 kernel"

# each side: the method, and exact counts where the workload fixes them
check_side() {	# $1: data file, $2: the method every function must have
	local d=$1 want=$2 rel methods n
	rel=$(q "$d" "SELECT value FROM meta WHERE key = 'kernel.release'")
	methods=$(q "$d" "SELECT group_concat(name || '=' || method, ' ') FROM (SELECT name, method FROM funcs ORDER BY name)")
	[ "$methods" = "$(printf "%s=$want\n" "${FUNCS[@]}" | LC_ALL=C sort | paste -sd' ')" ] ||
		fail "$rel: methods '$methods', want $want for all ${#FUNCS[@]}"
	n=$(q "$d" "SELECT calls FROM func_syscalls WHERE nr = 110 AND func = (SELECT id FROM funcs WHERE name = '__task_pid_nr_ns')")
	[ "$n" = $((R * N)) ] || fail "$rel ($want): __task_pid_nr_ns called $n times inside getppid, want $((R * N))"
	n=$(q "$d" "SELECT group_concat(calls, ' ') FROM (SELECT calls FROM run_latency WHERE kind = 'func' AND id = (SELECT id FROM funcs WHERE name = '__x64_sys_getppid') ORDER BY run)")
	[ "$n" = "$N $N $N" ] || fail "$rel ($want): __x64_sys_getppid calls per run '$n', want $N in each of $R"
	n=$(q "$d" "SELECT calls FROM latency WHERE kind = 'syscall' AND name = 'getppid'")
	[ "$n" = $((R * N)) ] || fail "$rel: $n getppid calls, want $((R * N))"
	echo "$rel: ${#FUNCS[@]} functions by $want; __task_pid_nr_ns $((R * N)) calls inside getppid, __x64_sys_getppid $N in each run"
}
check_side "$A" kprobe
check_side "$B" kprobe.multi

# the diff matches the functions by name: each has a latency on both sides
"$KP" diff --json "$A" "$B" >"$TMP/diff.json" || fail "diff --json exited $?"
rows=$(python3 - "$TMP/diff.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["functions"]:
    both = all(isinstance(r[k], (int, float)) and r[k] > 0 for k in ("base", "hardened"))
    print(r["name"], "both" if both else "base=%s hardened=%s" % (r["base"], r["hardened"]))
EOF
) || fail "diff JSON unreadable"
got=$(sort <<<"$rows" | paste -sd' ')
want=$(printf '%s both\n' "${FUNCS[@]}" | sort | paste -sd' ')
[ "$got" = "$want" ] || fail "diff's probed functions: '$got', want '$want'"
"$KP" diff "$A" "$B" >"$TMP/diff.txt" || fail "diff exited $?"
grep -qxF "#   kernel release: ${releases[0]} -> ${releases[1]}" "$TMP/diff.txt" ||
	fail "diff's provenance lacks the release change: $(grep -m 20 '^#' "$TMP/diff.txt")"
table=$(sed -n '/^Probed functions/,/^$/p' "$TMP/diff.txt")
for f in "${FUNCS[@]}"; do
	grep -qE "^$f +[0-9]" <<<"$table" || fail "diff's probed-function table lacks $f: $table"
done
echo "diff ${releases[0]} -> ${releases[1]}: all ${#FUNCS[@]} probed functions matched by name, each timed on both sides"

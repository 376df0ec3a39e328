#!/bin/bash
# On Debian 12's own kernel (6.1) kprotperf's CO-RE BPF programs load and
# count N getppid calls exactly, and the file recorded there is reported here,
# on another kernel, from what it saved: offline analysis.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
N=20000
vm_prepare
vm_run nokaslr <<EOF || fail "guest script exited $?"
kprotperf record -q -o /mnt/host/k.data -- syscall-loop $N
EOF
D=$VM_SHARE/k.data
[ -s "$D" ] || fail "the guest wrote no data file"
release=$(q "$D" "SELECT value FROM meta WHERE key = 'kernel.release'")
[[ $release == 6.1.0* ]] || fail "kernel.release '$release', want 6.1.0*"
stext=$(q "$D" "SELECT value FROM meta WHERE key = 'kernel.stext'")
[ -n "$stext" ] || fail "no kernel.stext in meta"
# the command line vm_run was given reached the guest kernel
grep -qw nokaslr <<<"$(q "$D" "SELECT value FROM meta WHERE key = 'kernel.cmdline'")" ||
	fail "kernel.cmdline lacks nokaslr"
read -r calls returned < <(q "$D" "SELECT calls, done FROM latency WHERE name = 'getppid'" | tr '|' ' ')
[ "${calls:-}" = $N ] || fail "getppid calls '${calls:-}', want $N"
[ "$returned" = $N ] || fail "getppid returned $returned, want $N"
"$KP" report "$D" >"$TMP/report" || fail "report of the guest's file exited $?"
grep -qF "$release" "$TMP/report" || fail "report header lacks the guest's kernel $release"
grep -qw getppid "$TMP/report" || fail "report has no getppid row"
echo "kernel $release (_stext $stext): getppid $calls calls, $returned returned"

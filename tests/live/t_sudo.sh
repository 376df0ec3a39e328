#!/bin/bash
# Recording through a real sudo: the workload runs as the invoking user, not
# as root, and that user owns the 0600 data file (a sudoers rule for the
# test's copy of the binary, removed at exit).
. "$(dirname "$0")/lib.sh"
need_bpf
for t in sudo setpriv; do
	command -v $t > /dev/null || skip "$t missing (sudo, util-linux)"
done
user=65534
rule=/etc/sudoers.d/kprotperf-test-$$
trap 'rm -f "$rule"; rm -rf "$TMP"' EXIT
mkdir "$TMP/bin" "$TMP/work"
cp "$KP" "$TMP/bin/kprotperf"
chmod 755 "$TMP" "$TMP/bin" "$TMP/bin/kprotperf"
chown "$user" "$TMP/work"
cd "$TMP/work" || fail "cd"
echo "#$user ALL=(root) NOPASSWD: $TMP/bin/kprotperf" > "$rule"
chmod 440 "$rule"
setpriv --reuid=$user --regid=$user --clear-groups sudo -n "$TMP/bin/kprotperf" record -q -o sudo.data -- id -u > out 2> err ||
	fail "sudo record: $(cat err)"
[ "$(cat out)" = "$user" ] || fail "under sudo the workload ran as uid $(cat out), want $user"
[ "$(stat -c '%u %a' sudo.data)" = "$user 600" ] || fail "owner/mode $(stat -c '%u %a' sudo.data)"
echo "under sudo: the workload ran as uid $user, who owns the 0600 data file"

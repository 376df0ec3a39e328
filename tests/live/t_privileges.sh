#!/bin/bash
# Without root, without BTF, or with an unwritable output: one clear line.
# Under sudo the command runs as the invoking user, who also owns the file.
. "$(dirname "$0")/lib.sh"
need_bpf
command -v setpriv > /dev/null || skip "setpriv (util-linux) missing"
# nobody may write here; sticky, as a folder anyone can write must be for root to write in it
chmod 1777 "$TMP"
cd "$TMP"
setpriv --reuid=65534 --regid=65534 --clear-groups "$KP" record -q -o nr.data -- true 2> err &&
	fail "recording as nobody succeeded"
grep -q "^kprotperf record: recording needs CAP_BPF, CAP_PERFMON.*, which this process lacks: run as root, or give the binary its capabilities: sudo setcap cap_bpf,cap_perfmon.*+ep $(realpath "$KP")$" err ||
	fail "not-root message: $(cat err)"
[ ! -e nr.data ] || fail "file written without privileges"
# a kernel without BTF: hide /sys/kernel/btf in a private mount namespace
unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && '$KP' record -q -o nb.data -- true" 2> err &&
	fail "recording without BTF succeeded"
grep -q "no BTF.*CONFIG_DEBUG_INFO_BTF" err || fail "no-BTF message: $(cat err)"
"$KP" record -q -o /proc/kp.data -- true 2> err && fail "recording into /proc succeeded"
grep -q "cannot create '/proc/kp.data'.*choose a writable path with -o" err ||
	fail "unwritable message: $(cat err)"
# sudo: SUDO_UID/SUDO_GID name the user the command runs as and who owns the data
SUDO_UID=65534 SUDO_GID=65534 "$KP" record -q -o sudo.data -- id -u > out || fail "sudo record"
[ "$(cat out)" = 65534 ] || fail "command ran as uid $(cat out), want 65534"
[ "$(stat -c '%u %a' sudo.data)" = "65534 600" ] || fail "owner/mode $(stat -c '%u %a' sudo.data)"
echo "privilege checks and sudo user handled"

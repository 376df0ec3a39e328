# Sourced by live tests: helpers that make a test skip honestly or fail loudly.
# shellcheck shell=bash
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KP=${KP:-$ROOT/kprotperf}
# the asan tier's live tests must run the sanitized build, not the plain one
if [ "${KP_ASAN:-0}" = 1 ] && ! grep -qa __asan_init "$KP"; then
	echo "FAIL: KP_ASAN=1 but $KP is not an AddressSanitizer build" >&2
	exit 1
fi
TMP=$(mktemp -d /tmp/kp-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (BPF)"; }
need_bpf() {
	need_root
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"
}
# q FILE SQL: one value from a data file
q() { sqlite3 -batch -noheader "$1" "$2"; }

# setcap_copy: $TMP/bin/kprotperf, a copy of $KP for setcap, that uid $user
# (65534) runs with as_user CMD... (or "${as_user_cmd[@]}" CMD..., a command
# and not a function, whose pid with & is CMD's); $TMP/work, the user's,
# the current folder
setcap_copy() {
	local t
	for t in setcap setpriv findmnt; do
		command -v $t > /dev/null || skip "$t missing (libcap2-bin, util-linux)"
	done
	! findmnt -no OPTIONS -T "$TMP" | grep -qw nosuid || skip "$TMP is mounted nosuid: file capabilities are ignored there"
	user=65534
	as_user_cmd=(setpriv --reuid=$user --regid=$user --clear-groups --inh-caps=-all)
	mkdir "$TMP/bin" "$TMP/work"
	cp "$KP" "$TMP/bin/kprotperf"
	chmod 755 "$TMP" "$TMP/bin" "$TMP/bin/kprotperf"
	chown "$user" "$TMP/work"
	cd "$TMP/work" || fail "cd"
}
as_user() { "${as_user_cmd[@]}" "$@"; }

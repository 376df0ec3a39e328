# Sourced by live tests: helpers that make a test skip honestly or fail loudly.
# shellcheck shell=bash
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KP=${KP:-$ROOT/kprotperf}
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Makes tests/golden/data/cpu-max.data and cpu-sky.data anew: one boot each
# of Debian's 6.1 under icount, on QEMU's max and on Skylake-Client-v1
# (scripts/vm-run.sh --cpu), recording syscall-loop 2000 at 99 Hz; then
# rewrites expected/ (review the git diff).  Needs what vm-run.sh needs
# (make static, QEMU, the cached kernel), not root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for side in max:max sky:Skylake-Client-v1; do
	# the workload's output to /dev/null: on the serial console its write is slow
	KP_VM_ACCEL=icount "$root/scripts/vm-run.sh" --cpu "${side#*:}" --out "$scratch/${side%%:*}" -- \
		sh -c 'kprotperf record -q -F 99 -o cpu.data -- syscall-loop 2000 >/dev/null'
done
for s in max sky; do
	install -m 644 "$scratch/$s/cpu.data" "$here/data/cpu-$s.data"
done
"$here/golden.sh" --update
git -C "$root" --no-pager diff --stat -- tests/golden

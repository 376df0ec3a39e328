# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Sourced by scripts/lib/vm.sh and scripts/lib/kbuild.sh: a script stopped
# by SIGTERM, SIGINT or SIGHUP first stops the long child it waits for
# (STOP_PID: QEMU's timeout(1), the kernel's make), waits for it, then exits
# 128+N, its EXIT trap cleaning up as usual.  Without it the child outlives
# the script: timeout(1) puts QEMU in a process group of its own, which an
# engine's kill of the job's group (GNU parallel's --timeout, Slurm's
# cancel) does not reach, and kprotperf sweep forwards a stop to the script
# alone.  timeout(1) hands the TERM on to QEMU; make to its own children.
STOP_PID=

# A trap runs under the caller's set -e: nothing in it may fail.
stop_on_signal() {
	if [ -n "$STOP_PID" ]; then
		kill -TERM "$STOP_PID" 2>/dev/null || true
		wait "$STOP_PID" 2>/dev/null || true
	fi
	exit $((128 + $1))
}
trap 'stop_on_signal 1' HUP
trap 'stop_on_signal 2' INT
trap 'stop_on_signal 15' TERM

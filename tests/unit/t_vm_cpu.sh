#!/bin/bash
# scripts/vm-run.sh --cpu MODEL (and KP_VM_CPU) tried with this machine's
# QEMU before anything boots: a model QEMU cannot run under TCG (an unknown
# name, host, which needs KVM, a property the model does not have), one
# without long mode (486), an empty value and --cpu with KP_VM_CPU=kvm are
# each refused with their whole one line on stderr and exit 125.  A model
# TCG runs passes the check, names the features TCG drops, and the run
# goes on to what it needs next, the static binaries, which OUTPUT points
# at an empty folder for: nothing is booted.  --check tries the model
# alone: 0 for one TCG runs, its refusal else; --check-host the static
# binaries.  The QEMU command line of a
# boot is tests/unit/t_vm_harness.sh's (its fake QEMU).
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-vmcpu.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "skipped: qemu-system-x86_64 is not installed"; exit 77; }
mkdir "$TMP/build" "$TMP/tmp"
static="$TMP/build/static/kprotperf missing: run 'make OUTPUT=$TMP/build static'"

# expect WANT-STDERR ARGS...: vm-run.sh ARGS -- true exits 125 with WANT-STDERR
# (whole), no work folder left
expect() {
	local want=$1 rc=0
	shift
	env -u KP_VM_KEEP OUTPUT="$TMP/build" TMPDIR="$TMP/tmp" "$@" -- true \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 125 ] || fail "${*@Q}: exit $rc, want 125: $(cat "$TMP/err")"
	printf '%s\n' "$want" | diff -u - "$TMP/err" || fail "${*@Q}: stderr"
	[ ! -s "$TMP/out" ] || fail "${*@Q}: stdout: $(cat "$TMP/out")"
	[ -z "$(ls "$TMP/tmp")" ] || fail "${*@Q}: left $(ls "$TMP/tmp")"
}
VR=$ROOT/scripts/vm-run.sh
help="(qemu-system-x86_64 -cpu help lists the models)"

expect "vm-run: --cpu NoSuchModel: QEMU cannot run it under TCG: unable to find CPU model 'NoSuchModel' $help" \
	"$VR" --cpu NoSuchModel
expect "vm-run: --cpu host: QEMU cannot run it under TCG: CPU model 'host' requires KVM or HVF $help" \
	"$VR" --cpu host
expect "vm-run: --cpu Skylake-Client-v1,+nosuch: QEMU cannot run it under TCG: Property 'Skylake-Client-v1-x86_64-cpu.nosuch' not found $help" \
	"$VR" --cpu Skylake-Client-v1,+nosuch
expect "vm-run: --cpu 486: a CPU without long mode (lm): an x86-64 kernel cannot boot on it" \
	"$VR" --cpu 486
expect "vm-run: --cpu '': want a CPU model (qemu-system-x86_64 -cpu help)" "$VR" --cpu ''
expect "vm-run: --cpu max is a CPU QEMU emulates (TCG), and KP_VM_ACCEL=kvm runs the host's: drop one" \
	env KP_VM_ACCEL=kvm "$VR" --cpu max
# KP_VM_CPU, the default's override, is tried the same way; --cpu wins over it
expect "vm-run: KP_VM_CPU=Nope: QEMU cannot run it under TCG: unable to find CPU model 'Nope' $help" \
	env KP_VM_CPU=Nope KP_VM_ACCEL=tcg "$VR"
expect "vm-run: $static" env KP_VM_CPU=Nope "$VR" --cpu max
# models TCG runs: on to the static binaries; Skylake's dropped features named
expect "vm-run: $static" "$VR" --cpu max
expect "vm-run: $static" env KP_VM_ACCEL=icount "$VR" --cpu max,family=21
expect "vm-run: --cpu Skylake-Client-v1: TCG cannot emulate pcid x2apic tsc-deadline hle invpcid rtm rdseed 3dnowprefetch xsavec: QEMU drops them, the guest does not see them
vm-run: $static" "$VR" --cpu Skylake-Client-v1
expect "vm-run: --cpu EPYC-Rome-v1: TCG cannot emulate rdseed sha-ni rdpid fxsr-opt misalignsse 3dnowprefetch osvw topoext perfctr-core clzero xsaveerptr wbnoinvd ibpb amd-stibp nrip-save xsavec xsaves: QEMU drops them, the guest does not see them
vm-run: $static" "$VR" --cpu EPYC-Rome-v1
# --check: the model tried alone, nothing else looked for (OUTPUT has no binaries)
check() {	# WANT-STATUS WANT-STDERR ARGS...
	local want=$1 line=$2 rc=0
	shift 2
	env -u KP_VM_KEEP OUTPUT="$TMP/build" TMPDIR="$TMP/tmp" "$VR" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq "$want" ] || fail "--check ${*@Q}: exit $rc, want $want: $(cat "$TMP/err")"
	printf '%s' "$line" | diff -u - "$TMP/err" || fail "--check ${*@Q}: stderr"
	[ -z "$(ls "$TMP/tmp")" ] || fail "--check ${*@Q}: left $(ls "$TMP/tmp")"
}
check 0 "" --check --cpu max
check 0 "vm-run: --cpu Cascadelake-Server-v1: TCG cannot emulate pcid x2apic tsc-deadline hle invpcid rtm avx512f avx512dq rdseed avx512cd avx512bw avx512vl avx512vnni spec-ctrl ssbd 3dnowprefetch xsavec: QEMU drops them, the guest does not see them
" --check --cpu Cascadelake-Server-v1
check 125 "vm-run: --cpu NoSuchModel: QEMU cannot run it under TCG: unable to find CPU model 'NoSuchModel' $help
" --check --cpu NoSuchModel
check 125 "vm-run: --check tries a CPU model: give --cpu MODEL
" --check
check 125 "vm-run: --check tries the --cpu model and boots nothing: drop the rest
" --check --cpu max -- true
# --check-host: what a boot needs on this machine, a sweep's job's first step
check 125 "vm-run: $static
" --check-host
check 125 "vm-run: --check-host looks at this machine and boots nothing: only --model goes with it
" --check-host --cpu max
echo "ok: --cpu's refusals and checks, --check, --check-host"

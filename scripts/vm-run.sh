#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs one command in a VM booted with a given kernel, with kprotperf and
# the workloads on PATH, and copies its files back, or (--boot) records the
# boot itself for `kprotperf boot`: see usage below and docs/kernels.md,
# "Running in a VM".  The harness is scripts/lib/vm.sh, which the
# vm test tier uses too.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/vm-run.sh [--kernel DIR|PACKAGE] [--append CMDLINE] [--out DIR]
                         [--ro DIR] [--timeout SECONDS] [--cpu MODEL]
                         [--model timing [--core FILE|NAME] [--sample N]]
                         [--model insns|cache [--I1=SIZE,ASSOC,LINE]
                          [--D1=SIZE,ASSOC,LINE] [--LL=SIZE,ASSOC,LINE]
                          [--ITLB=ENTRIES,ASSOC] [--DTLB=ENTRIES,ASSOC]
                          [--model-out FILE]] -- CMD [ARG...]
       scripts/vm-run.sh --boot [--kernel DIR|PACKAGE] [--append CMDLINE]
                         [--out DIR] [--timeout SECONDS] [--cpu MODEL]
                         [--model insns|cache
                          [--I1=...] [--D1=...] [--LL=...] [--ITLB=...]
                          [--DTLB=...]]
       scripts/vm-run.sh --check --cpu MODEL
       scripts/vm-run.sh --check-host [--model insns|cache]

Boots a kernel in QEMU (KVM when the CPU has VMX/SVM, else TCG), runs CMD as
root in the guest, prints its output, copies the files it left back and
exits with CMD's exit status.

  --kernel DIR|PACKAGE  a folder made by scripts/kernel-build.sh (bzImage,
                        vmlinux, .config), or a Debian kernel package:
                        linux-image-amd64 (default: Debian 12's 6.1),
                        linux-image-6.12-amd64, linux-image-6.1.0-56-amd64,
                        ... (downloaded once, cached in ~/.cache/kprotperf)
  --append CMDLINE      added to the kernel command line (e.g. "nokaslr
                        init_on_alloc=1")
  --out DIR             where the guest's files are copied (default ./vm-out)
  --ro DIR              a host folder the guest sees read-only at /mnt/ro
  --timeout SECONDS     give up on a boot after this long (default 180, or
                        KP_VM_TIMEOUT; 600 with --model cache)
  --cpu MODEL           the CPU QEMU emulates (TCG; default max, or
                        KP_VM_CPU): one of its named models
                        (qemu-system-x86_64 -cpu help), e.g.
                        Skylake-Client-v1, Cascadelake-Server-v1,
                        EPYC-Rome-v1, whose vulnerabilities the guest
                        kernel then reports and mitigates (PTI, MDS buffer
                        clearing, ...: docs/kernels.md), optionally with
                        QEMU's properties (max,family=21).  Tried before
                        the boot: a model QEMU cannot run under TCG (an
                        unknown name, host, a CPU without long mode) is
                        refused in one line; the features TCG cannot
                        emulate (Skylake's pcid and invpcid) are named on
                        stderr, as the guest goes without them.  Never
                        KVM: with --cpu the accelerator is TCG unless
                        KP_VM_ACCEL says icount
  --check               with --cpu and nothing else: try the model and exit
                        (0, or 125 with the line), nothing booted
  --check-host          whether this machine has what a boot needs: QEMU,
                        a static busybox, the static binaries (make
                        static), with --model the plugin (make plugin);
                        exit 0, or 125 with the line, nothing booted (a
                        sweep's job runs it first on its node)
  --model insns|cache   run kprotperf's machine model, a QEMU TCG plugin
                        (`make plugin`): exact instruction counts per guest
                        PC, and with cache also simulated I1, D1 and LL
                        misses per PC (LRU, write-allocate, physical
                        addresses, cachegrind's conventions).  Only what runs
                        between the guest's start and stop markers counts:
                        wrap the command in `model-window -- CMD`.  TCG
                        single-threaded, one vCPU (icount too, with
                        KP_VM_ACCEL=icount); never KVM.  Without icount
                        the kernel boots with nokaslr and the plugin reads
                        its image, for fewer counters (docs/model.md)
  --model timing        as cache, and cycles per PC from a model of an
                        out-of-order core (docs/model.md, "The timing
                        model"): its window, dependences, overlapping
                        misses, an L2 and a second-level TLB, a branch
                        predictor, prefetchers, fast strings.  The caches
                        and TLBs are the core description's: no --I1...
  --core FILE|NAME|native
                        with --model timing, the core description (a
                        share/cores/NAME.json, or a file of that format);
                        native, or a table kprotperf calibrate wrote: the
                        description nearest its CPU with the latencies,
                        walk, mispredict penalty, memory channel and fast
                        strings it measured.  Default by --cpu, skylake for
                        Skylake-*, cascadelake for Cascadelake-*, epyc-rome
                        for EPYC-Rome*, else epyc-milan
  --sample N            with --model timing, sampled: of every N intervals
                        of a million instructions the first goes to the
                        core (its first 100,000 warm it up, uncharged), the
                        others to the caches and TLBs (L2 and the second-
                        level TLB kept warm; the predictor in the interval
                        before a sample), and each PC's cycles are its
                        measured ones scaled to all its executions: ~2.5x
                        faster at N=10 on big-fork, ~3.2x at N=20,
                        est_cycles a few % from the exact run's on the
                        functions that matter (N=20: about 1.4x N=10's
                        error; N=40 too few samples on a workload of a
                        billion instructions: docs/model.md, "Sampled
                        timing").  N from 2 to 1000; the interval and
                        warm-up through KP_MODEL_ARGS (sample.len=,
                        sample.warm=)
  --I1=, --D1=, --LL=SIZE,ASSOC,LINE
                        a cache's geometry in bytes, ways, bytes (each a
                        power of two, ASSOC x LINE <= SIZE; defaults
                        32768,8,64, 32768,8,64 and 8388608,16,64).  Repeat
                        for a sweep simulated side by side in one boot: the
                        k-th geometry takes the k-th of each, or the last
                        given (--LL=1048576,16,64 --LL=4194304,16,64: two)
  --ITLB=, --DTLB=ENTRIES,ASSOC
                        a TLB's geometry: entries and ways (each a power of
                        two, ASSOC <= ENTRIES; defaults 128,8 and 64,4, a
                        Skylake's first-level TLBs), LRU, every translation
                        counted as a 4 KiB page, tagged by PCID when the
                        guest uses it (docs/model.md).  Repeatable like
                        --D1: the k-th geometry takes the k-th, or the last
                        given (--DTLB=64,4 --DTLB=16,2: two)
  --boot                no command: one boot, recorded for `kprotperf boot`
                        (docs/boot.md).  Runs under icount
                        (KP_VM_ACCEL=icount), appends 'initcall_debug
                        log_buf_len=4M' to the command line, and leaves in
                        --out the boot's raw folder: dmesg.txt (the log as
                        busybox dmesg prints it, read first thing by the
                        guest, with a 'kprotperf-boot: tsc TICKS' line
                        boot-clock wrote), kallsyms.txt, cmdline, release,
                        build-id (hex), config (the kernel's .config),
                        cpu-model (/proc/cpuinfo's model name),
                        vulnerabilities/ (the kernel's files) and,
                        with --model, model.txt: the model counts from reset
                        to the first user-mode instruction (window=boot)
  --model-out FILE      where the model's raw table goes (default
                        OUT/model.txt): a header of '#' lines (mode,
                        geometries, QEMU version, window complete or not),
                        then per PC: pc insns ev flushes, and per geometry
                        i1_miss d1_read d1_read_miss d1_write d1_write_miss
                        ll_miss itlb_miss dtlb_miss
  -h, --help            this text

In the guest CMD runs in a scratch folder (tmpfs); afterwards the files there
and in /mnt/host (the share) are copied to --out.  On PATH: kprotperf,
big-fork, syscall-loop, cpu-burn, alloc-free, model-window, boot-clock, core-ops,
count-loop, data-walk, data-walk-b and busybox.  A
kernel folder is at /mnt/kernel; its vmlinux, at /boot/vmlinux-RELEASE,
gives kprotperf the kernel's DWARF.  The static binaries come from `make static` (OUTPUT/static,
OUTPUT defaulting to build).

Environment: KP_VM_ACCEL=kvm|tcg|icount (default kvm when the CPU has
VMX/SVM, else tcg; icount: TCG whose clock counts executed instructions,
1 ns each, one vCPU, so latencies are instruction counts the host's load
cannot move), KP_VM_CPU the TCG CPU model when there is no --cpu (default
max), KP_VM_KASLR=1 boots the bzImage (its decompressor picks KASLR's
offset; without it a kernel built with CONFIG_PVH, Debian's, is booted
directly from its ELF image, 2.5-3 s sooner under TCG, where it was
linked: nokaslr is appended; --boot always boots the bzImage, and
keeps the crypto self-tests every other boot skips: cryptomgr.notests),
KP_VM_KEEP=1 keeps the work folder, KP_MODEL_ARGS more
arguments for the model plugin (count=tb: per-block counting, faster and
not exact; see plugin/kp_model.c).

Exit status: CMD's, or 125 when the VM could not run it (one line on stderr
says why: QEMU missing, a bad kernel, a kernel that did not boot, ...).
SIGTERM, SIGINT or SIGHUP stops QEMU first, then vm-run exits 128+N.

Examples:
  scripts/vm-run.sh --kernel linux-image-6.12-amd64 --out k612 -- \
      kprotperf record -r 3 --func vfs_read -o k.data -- syscall-loop 10000
  scripts/vm-run.sh --model cache --LL=2097152,16,64 --LL=8388608,16,64 \
      --out m -- model-window -- big-fork 100
  scripts/vm-run.sh --boot --model insns --append init_on_alloc=1 --out b1
  scripts/vm-run.sh --cpu Skylake-Client-v1 --out sky -- \
      kprotperf record -o k.data -- syscall-loop 10000
EOF
}

die() {
	echo "vm-run: $*" >&2
	exit 125
}
vm_skip() { die "$@"; }
vm_fail() {
	# a boot that failed: its console log is kept in --out, and named only
	# when there is one (QEMU may fail before the kernel writes a line)
	if [ -s "${VM_SERIAL_LOG:-}" ] && cp "$VM_SERIAL_LOG" "$out/console.log" 2>/dev/null; then
		die "$* (console log: $out/console.log)"
	fi
	die "$@"
}

pow2() { [[ $1 =~ ^[1-9][0-9]{0,12}$ ]] && ((($1 & ($1 - 1)) == 0)); }

# a --I1/--D1/--LL value, SIZE,ASSOC,LINE, as the plugin takes it
# (SIZE:ASSOC:LINE), or vm-run's refusal
model_cache() {	# $1 option, $2 value
	local size assoc line
	IFS=, read -r size assoc line <<<"$2"
	pow2 "$size" && pow2 "$assoc" && pow2 "$line" && [ "$2" = "$size,$assoc,$line" ] &&
		((assoc * line <= size)) ||
		die "$1=$2: want SIZE,ASSOC,LINE in bytes, ways and bytes, each a power of two, ASSOC x LINE <= SIZE"
	echo "$size:$assoc:$line"
}

# a --ITLB/--DTLB value, ENTRIES,ASSOC, as the plugin takes it
# (ENTRIES:ASSOC), or vm-run's refusal
model_tlb() {	# $1 option, $2 value
	local entries assoc
	IFS=, read -r entries assoc <<<"$2"
	pow2 "$entries" && pow2 "$assoc" && [ "$2" = "$entries,$assoc" ] && ((assoc <= entries)) ||
		die "$1=$2: want ENTRIES,ASSOC, each a power of two, ASSOC <= ENTRIES"
	echo "$entries:$assoc"
}

# The plugin's geom= arguments: the k-th geometry of a sweep takes the k-th
# --I1, --D1, --LL, --ITLB and --DTLB, or the last one given, or the default.
model_geoms() {
	local n=${#i1s[@]} k
	[ ${#d1s[@]} -le "$n" ] || n=${#d1s[@]}
	[ ${#lls[@]} -le "$n" ] || n=${#lls[@]}
	[ ${#itlbs[@]} -le "$n" ] || n=${#itlbs[@]}
	[ ${#dtlbs[@]} -le "$n" ] || n=${#dtlbs[@]}
	[ "$n" -gt 0 ] || n=1
	pick() {	# $1 k, $2 default, then the list
		local k=$1 d=$2
		shift 2
		if [ $# -eq 0 ]; then echo "$d"; elif [ "$k" -lt $# ]; then echo "${@:k+1:1}"; else echo "${@: -1}"; fi
	}
	for ((k = 0; k < n; k++)); do
		printf ',geom=%s/%s/%s/%s/%s' "$(pick $k 32768:8:64 "${i1s[@]}")" \
			"$(pick $k 32768:8:64 "${d1s[@]}")" "$(pick $k 8388608:16:64 "${lls[@]}")" \
			"$(pick $k 128:8 "${itlbs[@]}")" "$(pick $k 64:4 "${dtlbs[@]}")"
	done
}

kernel='' append='' out=vm-out ro='' timeout=${KP_VM_TIMEOUT:-} model='' model_out='' boot=''
cpu='' cpu_set='' check='' check_host='' core='' sample=''
i1s=() d1s=() lls=() itlbs=() dtlbs=()
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--boot) boot=1; shift ;;
	--check) check=1; shift ;;
	--check-host) check_host=1; shift ;;
	--I1=* | --D1=* | --LL=* | --I1 | --D1 | --LL | --ITLB=* | --DTLB=* | --ITLB | --DTLB)
		if [[ $1 == *=* ]]; then
			o=${1%%=*} v=${1#*=}
			shift
		else
			[ $# -ge 2 ] || die "$1 needs a value (--help)"
			o=$1 v=$2
			shift 2
		fi
		case $o in
		--ITLB | --DTLB) v=$(model_tlb "$o" "$v") || exit 125 ;;
		*) v=$(model_cache "$o" "$v") || exit 125 ;;
		esac
		case $o in
		--I1) i1s+=("$v") ;; --D1) d1s+=("$v") ;; --LL) lls+=("$v") ;;
		--ITLB) itlbs+=("$v") ;; *) dtlbs+=("$v") ;;
		esac
		;;
	--kernel | --append | --out | --ro | --timeout | --model | --model-out | --cpu | --core | --sample)
		[ $# -ge 2 ] || die "$1 needs a value (--help)"
		case $1 in
		--core) core=$2 ;;
		--sample) sample=$2 ;;
		--cpu) cpu=$2 cpu_set=1 ;;
		--kernel) kernel=$2 ;;
		--append) append=$2 ;;
		--out) out=$2 ;;
		--ro) ro=$2 ;;
		--timeout) timeout=$2 ;;
		--model) model=$2 ;;
		--model-out) model_out=$2 ;;
		esac
		shift 2 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (the command goes after --; see --help)" ;;
	esac
done
case $model in
'' | insns | cache | timing) ;;
*) die "--model $model: want insns, cache or timing" ;;
esac
[ "$model" = timing ] || [ -z "$core" ] || die "--core describes the timing model's core: it needs --model timing"
[ "$model" = timing ] || [ -z "$sample" ] || die "--sample samples the timing model: it needs --model timing"
[ -z "$sample" ] || { [[ $sample =~ ^[1-9][0-9]{0,3}$ ]] && [ "$sample" -ge 2 ] && [ "$sample" -le 1000 ]; } ||
	die "--sample $sample: want a whole number of intervals from 2 to 1000"
[ "$model" = cache ] || [ $((${#i1s[@]} + ${#d1s[@]} + ${#lls[@]})) -eq 0 ] ||
	die "--I1, --D1 and --LL are cache geometries: they need --model cache"
[ "$model" = cache ] || [ $((${#itlbs[@]} + ${#dtlbs[@]})) -eq 0 ] ||
	die "--ITLB and --DTLB are TLB geometries: they need --model cache"
[ -n "$model" ] || [ -z "$model_out" ] || die "--model-out needs --model"
# --model timing: the core description as the plugin's arguments, checked
# by scripts/lib/core_args.py (one line naming the field when it is bad)
core_args=''
if [ "$model" = timing ]; then
	case $core:${cpu:-${KP_VM_CPU:-max}} in
	:Skylake-*) core=skylake ;;
	:Cascadelake-*) core=cascadelake ;;
	:EPYC-Rome*) core=epyc-rome ;;
	:*) core=epyc-milan ;;
	esac
	share=$(dirname "$0")/../share
	core_args=$(python3 "$(dirname "$0")/lib/core_args.py" "$core" "$share/costs" "$share/cores" 2>&1) ||
		die "--core: $core_args"
fi
# a boot with the cache simulation is slower
[ -n "$timeout" ] || timeout=$([ "$model" = cache ] || [ "$model" = timing ] && echo 600 || echo 180)
if [ -n "$check_host" ]; then
	[ $# -eq 0 ] && [ -z "$boot$check$cpu_set$kernel$append" ] ||
		die "--check-host looks at this machine and boots nothing: only --model goes with it"
elif [ -n "$check" ]; then
	[ -n "$cpu_set" ] || die "--check tries a CPU model: give --cpu MODEL"
	[ $# -eq 0 ] && [ -z "$boot" ] || die "--check tries the --cpu model and boots nothing: drop the rest"
elif [ -n "$boot" ]; then
	[ $# -eq 0 ] || die "--boot runs no command (the boot is what is recorded): drop '-- $*'"
	[ -z "$model_out" ] || die "--boot leaves the model's table in --out as model.txt: drop --model-out"
	# instructions for time: a boot's phases then cost what the guest executed
	export KP_VM_ACCEL=icount
	# from the firmware on, through the bzImage's decompressor (no direct boot)
	VM_BZIMAGE=1
	# every initcall's start and return, none lost from the log buffer
	append="${append:+$append }initcall_debug log_buf_len=4M"
else
	[ $# -gt 0 ] || die "no command: scripts/vm-run.sh [options] -- CMD [ARG...] (--help)"
fi
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout '$timeout': want whole seconds"
[ -z "$ro" ] || [ -d "$ro" ] || die "--ro $ro: no such folder"
[ ! -e "$out" ] || [ -d "$out" ] || die "--out $out: exists and is not a folder"
# --cpu: an emulated CPU, so TCG (KVM would run the host's, -cpu host)
if [ -n "$cpu_set" ]; then
	if [ -z "$cpu" ] || [[ $cpu == -* ]]; then
		die "--cpu '$cpu': want a CPU model (qemu-system-x86_64 -cpu help)"
	fi
	[ "${KP_VM_ACCEL:-}" != kvm ] ||
		die "--cpu $cpu is a CPU QEMU emulates (TCG), and KP_VM_ACCEL=kvm runs the host's: drop one"
	export KP_VM_ACCEL=${KP_VM_ACCEL:-tcg}
fi

VM_PREFIX=vm-run
VM_VERBOSE=0
VM_CPU=$cpu
VM_RO_SHARE=$ro
export KP_VM_TIMEOUT=$timeout
# shellcheck source=scripts/lib/vm.sh
. "$(dirname "$0")/lib/vm.sh"

# --model: the plugin on QEMU's command line; TCG, one vCPU (its counters are
# plain adds), single-threaded unless icount already is
model_setup() {
	local so=$VM_OUTPUT/plugin/kp_model.so qv
	[ -f "$so" ] || die "$so missing: run 'make${OUTPUT:+ OUTPUT=$OUTPUT} plugin'"
	case $VM_ACCEL in
	icount) ;;
	*) VM_ACCEL=tcg VM_ACCEL_ARGS=(-accel tcg,thread=single -cpu "${VM_CPU:-${KP_VM_CPU:-max}}") ;;
	esac
	VM_SMP=1
	qv=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
	model_tab=$VM_TMP/model.txt
	# QEMU's option syntax: a comma in a value is doubled
	VM_QEMU_ARGS=(-plugin "${so//,/,,},mode=$model,out=${model_tab//,/,,}${qv:+,qemu=$qv}$([ "$model" != cache ] || model_geoms)${core_args:+,$core_args}${sample:+,sample.period=$sample}${boot:+,window=boot}${KP_MODEL_ARGS:+,$KP_MODEL_ARGS}")
	VM_ACCEL="$VM_ACCEL, model $model"
}

# --model without icount: the kernel's image as the plugin's vmlinux=, for
# fewer counters in the kernel (plugin/kp_model.c), which it needs running
# where it was linked: nokaslr.  Under icount an access to device memory
# may end a block early anywhere, so the plugin goes without.
model_kernel() {
	local elf
	[[ $VM_ACCEL != icount* ]] || return 0
	elf=$(vm_vmlinux_elf)
	[ -n "$elf" ] || return 0
	VM_QEMU_ARGS[1]+=",vmlinux=${elf//,/,,}"
	append="${append:+$append }nokaslr"
}

# 'it'\''s': each argument single-quoted for the guest's busybox sh
quote() {
	local a
	for a in "$@"; do
		printf "'%s' " "${a//\'/\'\\\'\'}"
	done
}

# HEX: the GNU build id in the guest kernel's notes (/sys/kernel/notes as
# hex): 4-byte little-endian name and descriptor sizes and type, then the
# name and descriptor, each padded to 4 bytes; type 3 named GNU is the id
notes_build_id() {
	local h=$1 o=0 nsz dsz type le
	le() { echo $((16#${1:6:2}${1:4:2}${1:2:2}${1:0:2})); }
	while [ $((o + 24)) -le ${#h} ]; do
		nsz=$(le "${h:o:8}") dsz=$(le "${h:o+8:8}") type=$(le "${h:o+16:8}")
		o=$((o + 24))
		if [ "$type" = 3 ] && [ "${h:o:8}" = 474e5500 ]; then
			echo "${h:o+$(((nsz + 3) / 4 * 8)):dsz*2}"
			return
		fi
		o=$((o + (nsz + 3) / 4 * 8 + (dsz + 3) / 4 * 8))
	done
}

# The model's table, stamped with the kernel that ran, to --model-out and
# into the recordings of `kprotperf record --model` the guest left; a line
# when its window was not whole.
model_result() {
	local dest=${model_out:-$out/model.txt} window bid
	[ -s "$model_tab" ] || die "the model wrote no table: QEMU did not exit normally (its log: $VM_TMP)"
	bid=$(notes_build_id "$(cat "$VM_SHARE/.vm/notes.hex" 2>/dev/null)")
	[ -z "$bid" ] || sed -i "1a # kernel_build_id $bid" "$model_tab"
	cp "$model_tab" "$dest" || die "cannot copy the model's table to $dest"
	window=$(sed -n 's/^# window //p' "$model_tab")
	case $window:$boot in
	none:) echo "vm-run: the model's window never opened: nothing was counted (run the command as model-window -- CMD)" >&2 ;;
	incomplete:) echo "vm-run: the model's window was never closed: counted up to the power-off, marked incomplete in $dest" >&2 ;;
	incomplete:1) echo "vm-run: the boot never reached a user-mode instruction: counted up to the power-off, marked incomplete in $dest" >&2 ;;
	esac
	echo "vm-run: model table ($model, window $window): $dest" >&2
	[ ${#model_data[@]} -eq 0 ] || "${KP:-$VM_ROOT/kprotperf}" inject --model "$dest" "${model_data[@]}" ||
		echo "vm-run: the model's counts were not merged into ${model_data[*]}" >&2
}

# --boot: the guest's part of the boot's raw folder (docs/boot.md),
# written to the share.  The log is read first, so that
# it ends a few lines after the first user process started, boot-clock's
# line among them.
boot_guest() {
	cat <<'GUEST'
set -o pipefail
boot-clock
dmesg >/mnt/host/dmesg.txt
cat /proc/kallsyms >/mnt/host/kallsyms.txt
cat /proc/cmdline >/mnt/host/cmdline
uname -r >/mnt/host/release
od -An -v -tx1 /sys/kernel/notes | tr -d ' \n' >/mnt/host/.vm/notes.hex
# the CPU the guest saw (--cpu) and what its kernel made of it
grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//' >/mnt/host/cpu-model
v=/sys/devices/system/cpu/vulnerabilities
if [ -d $v ]; then
	mkdir /mnt/host/vulnerabilities
	for f in $v/*; do cat "$f" >"/mnt/host/vulnerabilities/${f##*/}"; done
fi
GUEST
}

# --boot: the host's part of the raw folder, the build id and the .config;
# a guest that could not write its part fails the boot
boot_result() {
	local bid
	[ "$rc" -eq 0 ] || vm_fail "kernel $VM_KV: the guest could not write the boot's files (status $rc; its output is above)"
	bid=$(notes_build_id "$(cat "$VM_SHARE/.vm/notes.hex" 2>/dev/null)")
	[ -n "$bid" ] || vm_fail "kernel $VM_KV: no GNU build id in the guest's /sys/kernel/notes"
	echo "$bid" >"$out/build-id" && cp "$VM_KCONFIG" "$out/config" ||
		die "cannot write the boot's build-id and config to --out $out (disk full?)"
	echo "vm-run: the boot's raw folder: $out" >&2
}

vm_accel
# a CPU model named (the default, max, is QEMU's own) before anything else
# is looked for: a wrong one is said at once
if [ -n "$cpu" ]; then
	vm_cpu_check "--cpu $cpu"
	[ -z "$check" ] || exit 0
elif [ -n "${KP_VM_CPU:-}" ] && [ "$VM_ACCEL" != kvm ]; then
	vm_cpu_check "KP_VM_CPU=$KP_VM_CPU"
fi
vm_need_host
if [ -n "$check_host" ]; then
	[ -z "$model" ] || [ -f "$VM_OUTPUT/plugin/kp_model.so" ] ||
		die "$VM_OUTPUT/plugin/kp_model.so missing: run 'make${OUTPUT:+ OUTPUT=$OUTPUT} plugin'"
	exit 0
fi
[ -z "$model" ] || model_setup
vm_kernel "$kernel"
[ -z "$model" ] || model_kernel
[ -z "$boot" ] || [ -n "$VM_KCONFIG" ] ||
	die "--boot: the kernel folder $VM_KFOLDER has no .config, which the boot's raw folder needs"
vm_initramfs
mkdir -p "$out" || die "cannot create --out $out"
echo "vm-run: booting $VM_KV ($VM_ACCEL)" >&2
rc=0
if [ -n "$boot" ]; then
	vm_run "$append" < <(boot_guest) || rc=$?
else
	vm_run "$append" <<GUEST || rc=$?
export HOME=/tmp/work
mkdir -p /tmp/work
cd /tmp/work
set +e
$(quote "$@")
rc=\$?
cp -R /tmp/work/. /mnt/host/
$([ -z "$model" ] || echo "od -An -v -tx1 /sys/kernel/notes | tr -d ' \\n' >/mnt/host/.vm/notes.hex")
exit \$rc
GUEST
fi
# the recordings the guest left, for the model's counts
model_data=()
[ -z "$model" ] || [ -n "$boot" ] || mapfile -t model_data < <(find "$VM_SHARE" -mindepth 1 -maxdepth 1 -name '*.data' -type f -printf "$out/%f\n")
# everything in the share but the harness's own files (with +, find fails
# when cp does)
find "$VM_SHARE" -mindepth 1 -maxdepth 1 ! -name .vm -exec cp -a -t "$out/" {} + ||
	die "cannot copy the guest's files to --out $out (disk full?)"
[ -z "$model" ] || model_result
[ -z "$boot" ] || boot_result
exit "$rc"

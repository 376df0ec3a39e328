#!/bin/bash
# --func on functions the compiler inlined into every caller (Debian 6.1:
# new_slab, shuffle_freelist), with the kernel's DWARF (the -dbg vmlinux):
# every inline instance is timed per invocation by kprobes at its entry and
# exits, its ranges are the DWARF's, and the report (made on the host, as on
# another machine) shows inline frames, per-instance tables and per-line
# annotation.  Without DWARF, or with a file of another build, the errors
# say so.
#
# The sampled assertions hold whatever the host's load: the guest runs under
# TCG with icount (even where KVM could run it), where its clock, and so its
# cpu-clock sampling, counts executed instructions (at -F 999 a sample every
# ~1M), and the recordings are sized so that each sampled assertion has 14
# samples or more expected.  Measured under icount: big-fork 30 at 999 Hz
# with the probes puts 11-19 samples in allocate_slab's own code and ~130 in
# its fentry trampoline; big-fork 60 at 1999 Hz without them 15-25 in
# shuffle_freelist's ranges.  A Poisson count of mean 14 is 0 once in a
# million runs.  Under plain TCG, whose clock is the host's, big-fork 5 at
# 999 Hz put 0-9 samples there, none in 2 runs of 10 on a busy host.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
# KVM would run big-fork several times faster: fewer samples than sized for
export KP_VM_ACCEL=${KP_VM_ACCEL:-icount}
vm_prepare
vm_dbg_vmlinux
VMLINUX=$VM_RO_SHARE/vmlinux-$VM_KV
# each record reads the 630 MB file's DWARF over 9p under TCG: ~10 s
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-400}
vm_run <<GUEST || fail "guest script exited $?"
V=/mnt/ro/vmlinux-$VM_KV
kprotperf record -q -F 999 --func new_slab --func shuffle_freelist --func allocate_slab \
	--vmlinux \$V -o /mnt/host/inl.data -- big-fork 30 2> /mnt/host/inl.err
# a kernel without kprobes: the kprobe PMU hidden, the instance is measured by samples
mkdir /tmp/nokprobes
mount --bind /tmp/nokprobes /sys/bus/event_source/devices/kprobe
kprotperf record -F 1999 --func shuffle_freelist --vmlinux \$V -o /mnt/host/samples.data \
	-- big-fork 60 2> /mnt/host/samples.err
umount /sys/bus/event_source/devices/kprobe
set +e
kprotperf record -q --func new_slab -o /mnt/host/x.data -- true 2> /mnt/host/nodwarf.err
kprotperf record -q --func new_slab --vmlinux /bin/kprotperf -o /mnt/host/x.data -- true 2> /mnt/host/nodebug.err
true
GUEST
S=$VM_SHARE
D=$S/inl.data
[ -s "$D" ] || fail "no data file: $(cat "$S/inl.err")"
[ ! -e "$S/x.data" ] || fail "a data file was written for an unprobeable function"
grep -q "no kernel function matches 'new_slab'.*with the kernel's debug info (--vmlinux, or linux-image-RELEASE-dbg) kprotperf probes its inline instances" \
	"$S/nodwarf.err" || fail "without DWARF: $(cat "$S/nodwarf.err")"
grep -q "vmlinux /bin/kprotperf: no DWARF debug info in it, so kprotperf cannot tell whether new_slab is inlined" "$S/nodebug.err" ||
	fail "a vmlinux without DWARF: $(cat "$S/nodebug.err")"

# the instances, as the DWARF has them (llvm-dwarfdump, independent of libdw)
slide=$(($(q "$D" "SELECT value FROM meta WHERE key = 'kernel.stext'") - 0x$(nm "$VMLINUX" | awk '$3 == "_stext" {print $1}')))
[ "$(q "$D" "SELECT group_concat(parent, ' ') FROM (SELECT parent FROM inlines WHERE name = 'new_slab' ORDER BY parent)")" = \
	"___slab_alloc __kmem_cache_create" ] || fail "new_slab instances: $(q "$D" "SELECT * FROM inlines WHERE name = 'new_slab'")"
read -r parent site ranges < <(q "$D" "SELECT parent, call_file || ':' || call_line, ranges FROM inlines WHERE name = 'shuffle_freelist'" | tr '|' ' ')
[ "$parent $site" = "allocate_slab mm/slub.c:1978" ] || fail "shuffle_freelist instance: $parent $site"
want=$(llvm-dwarfdump --name=allocate_slab --show-children "$VMLINUX" |
	awk '/DW_TAG_inlined_subroutine/ {inl = 1} inl && /"shuffle_freelist"/ {sf = 1}
		sf && !done && /^ *\[0x[0-9a-f]+, 0x[0-9a-f]+\)/ {print} sf && /DW_AT_call_file/ {done = 1}' |
	grep -o '0x[0-9a-f]*, 0x[0-9a-f]*' | while IFS=', ' read -r lo hi; do
		[ $((lo)) -lt $((hi)) ] && printf '0x%x-0x%x\n' $((lo + slide)) $((hi + slide)); done | paste -sd' ')
[ -n "$want" ] && [ "$ranges" = "$want" ] || fail "shuffle_freelist ranges: recorded '$ranges', DWARF '$want'"
echo "shuffle_freelist in allocate_slab ($site): $ranges"

# timed per invocation: every allocate_slab runs shuffle_freelist once
id() { q "$D" "SELECT id FROM funcs WHERE name = '$1' AND symbol = '$2'"; }
lat() { q "$D" "SELECT $1 FROM latency WHERE kind = 'func' AND id = $2"; }
sf=$(id shuffle_freelist allocate_slab)
as=$(id allocate_slab allocate_slab)
[ "$(q "$D" "SELECT method FROM funcs WHERE id = $sf")" = inline-kprobe ] || fail "shuffle_freelist method"
read -r sf_calls sf_total sf_max < <(lat "done, total_ns, max_ns" "$sf" | tr '|' ' ')
read -r as_calls as_total < <(lat "done, total_ns" "$as" | tr '|' ' ')
[ "${sf_calls:-0}" -gt 0 ] || fail "shuffle_freelist never timed"
[ "$(q "$D" "SELECT SUM(count) FROM latency_hist WHERE kind = 'func' AND id = $sf AND clock = 'total'")" = "$sf_calls" ] ||
	fail "shuffle_freelist histogram does not hold its $sf_calls calls"
# nested inside allocate_slab: as many invocations, each shorter
[ $((sf_calls * 100)) -ge $((as_calls * 95)) ] && [ "$sf_calls" -le "$as_calls" ] ||
	fail "shuffle_freelist timed $sf_calls times, allocate_slab returned $as_calls times"
[ "$sf_total" -lt "$as_total" ] || fail "shuffle_freelist took $sf_total ns of allocate_slab's $as_total"
ns=$(id new_slab ___slab_alloc)
[ "$(lat done "$ns")" -gt 0 ] || fail "new_slab in ___slab_alloc never timed"
echo "allocate_slab: $as_calls calls, $((as_total / as_calls)) ns avg; shuffle_freelist: $sf_calls, $((sf_total / sf_calls)) ns avg"

# reported on the host: another machine, with the DWARF given, and without it
R=$("$KP" report --inline --vmlinux "$VMLINUX" "$D") || fail "report --inline failed"
grep -qE "^shuffle_freelist +allocate_slab +mm/slub.c:1978 .* inline-kprobe +$sf_calls " <<<"$R" ||
	fail "report --inline: $R"
R=$("$KP" report --inline "$D") || fail "report --inline without DWARF failed"
grep -q "inline frames and source lines not shown: no debug info for kernel $VM_KV" <<<"$R" &&
	grep -qE "^shuffle_freelist +allocate_slab +mm/slub.c:1978 .* inline-kprobe +$sf_calls " <<<"$R" ||
	fail "report --inline without DWARF: $R"
"$KP" report --inline --vmlinux "$KP" "$D" 2> "$S/stale.err" && fail "report took another build's DWARF"
grep -q "is the vmlinux of another kernel build: its build-id differs from the recorded kernel's" "$S/stale.err" ||
	fail "another build: $(cat "$S/stale.err")"
F=$("$KP" folded --vmlinux "$VMLINUX" "$D") || fail "folded failed"
grep -q '_\[k\];[a-z_0-9]*_\[i\]' <<<"$F" || fail "no inline frames in folded output"
echo "folded: $(grep -c '_\[i\]' <<<"$F") of $(wc -l <<<"$F") stacks have inline frames"
# the trampoline of allocate_slab's fentry is named as such, not after its neighbour
grep -q 'allocate_slab_\[k\];bpf_trampoline_[0-9]*_\[k\]' <<<"$F" || fail "fentry trampoline frames misnamed"

# without kprobes: recorded by samples only, counted in the recorded ranges at report time
D2=$S/samples.data
grep -q "note: this kernel has no kprobes (CONFIG_KPROBES not set): shuffle_freelist (1 inlined instance) is measured by CPU samples only" \
	"$S/samples.err" || fail "no-kprobes note: $(cat "$S/samples.err")"
[ "$(q "$D2" "SELECT method FROM funcs")" = samples ] || fail "samples-only method"
R=$("$KP" report --inline "$D2") || fail "report --inline of a samples-only recording failed"
# the same count made independently, in SQL (SQLite reads 0xffff... literals as signed, like the addresses)
in_ranges=$(q "$D2" "SELECT ranges FROM inlines" | tr ' ' '\n' |
	sed 's/^\(0x[0-9a-f]*\)-\(0x[0-9a-f]*\)$/(k.addr >= \1 AND k.addr < \2)/' | paste -sd'|' | sed 's/|/ OR /g')
self=$(q "$D2" "SELECT COALESCE(SUM(s.count), 0) FROM samples s JOIN kstack_frames k
	ON k.stack = s.kstack AND k.depth = 0 WHERE $in_ranges")
# ~20 expected: with none, the count below would check nothing
[ "$self" -gt 0 ] || fail "samples-only: no sample in shuffle_freelist's ranges"
grep -qE "^shuffle_freelist +allocate_slab +mm/slub.c:1978 +366 +$self +[0-9]+ .* samples +0 " <<<"$R" ||
	fail "samples-only report --inline (want SELF $self): $R"
echo "samples only: shuffle_freelist SELF $self"

A=$("$KP" annotate --func allocate_slab --vmlinux "$VMLINUX" "$D") || fail "annotate failed"
# every sample in allocate_slab's own code is on one of its lines, and some are
# on the slab code's lines (mm/slub.c, or mm/slab.h inlined)
own=$(sed -n 's/^# annotate allocate_slab: [0-9]* samples with it on the kernel stack, \([0-9]*\) in its own code$/\1/p' <<<"$A")
on_lines=$(awk '/^Per source line/ {t = 1} /^Per inline range/ {t = 0} t && $4 ~ /:[0-9]+$/ {n += $1} END {print n + 0}' <<<"$A")
[ "${own:-0}" -gt 0 ] && [ "$on_lines" = "$own" ] ||
	fail "annotate: $on_lines samples on lines of the ${own:-?} in allocate_slab's own code: $A"
grep -qE '^ +[1-9][0-9]* +[0-9.]+% +[0-9]+  mm/sl[au]b\.[ch]:[0-9]+' <<<"$A" ||
	fail "annotate attributes no samples to mm/slub.c or mm/slab.h lines: $A"
head -20 <<<"$A"

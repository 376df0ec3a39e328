#!/bin/bash
# The end-to-end proof of kprotperf diff: the same Debian kernel booted as a
# baseline (init_on_alloc=0 init_on_free=0 mitigations=off) and hardened
# (init_on_alloc=1 init_on_free=1), alloc-free and big-fork recorded with
# --repeat 5 on each, and diffed on the host: the provenance names the
# changed knobs, munmap (which frees memory) regresses significantly, the top
# differential frames are in the page-zeroing path, and the roll-up gives
# the change to init_on_alloc/init_on_free.  A second baseline boot is the
# null test: no significant change on those rows.
# Without KVM the boots run under TCG with icount: the guest's clock, so its
# latencies and its cpu-clock sampling, counts executed instructions, which
# the host's load cannot move between boots.  Plain TCG's clock is the
# host's: on a busy host the kernel time outside any feature moved by a
# third of init_on_alloc's change between boots, and the roll-up had no
# share to give.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
if [ -z "${KP_VM_ACCEL:-}" ]; then
	vm_accel
	[ "$VM_ACCEL" = kvm ] || export KP_VM_ACCEL=icount
fi
vm_prepare
# inline frames (kernel_init_pages, the slab hooks) need the kernel's DWARF
vm_dbg_vmlinux
VMLINUX=$VM_RO_SHARE/vmlinux-$VM_KV
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-400}
BASE="init_on_alloc=0 init_on_free=0 mitigations=off"
HARD="init_on_alloc=1 init_on_free=1"

boot() {	# $1: name, then kernel parameters
	local name=$1
	shift
	vm_run "$@" <<'GUEST' || fail "guest script ($name) exited $?"
kprotperf record -q -r 5 -F 499 -o /mnt/host/af.data -- alloc-free 8
kprotperf record -q -r 5 -F 499 -o /mnt/host/bf.data -- big-fork 10
GUEST
	mkdir -p "$TMP/$name"
	cp "$VM_SHARE"/af.data "$VM_SHARE"/bf.data "$TMP/$name/"
}
# shellcheck disable=SC2086 # the parameters are words
boot base $BASE
# shellcheck disable=SC2086
boot hard $HARD
# shellcheck disable=SC2086
boot base2 $BASE

# each pair's JSON diff is made once (each run reads the 630 MB vmlinux's
# DWARF: ~2.5 CPU s) and kept for every check of that pair
diff_json() {	# $1 $2: the recordings (SIDE/W.data); the JSON diff in $J
	local a=${1#"$TMP"/} b=${2#"$TMP"/}
	a=${a%.data} b=${b%.data}
	J=$TMP/diff-${a//\//.}-${b//\//.}.json
	[ -s "$J" ] || "$KP" diff --json --vmlinux "$VMLINUX" "$1" "$2" >"$J" || fail "diff $1 $2 failed"
}
# $1: a python expression over d (the JSON diff) and row(table, name); fails with $2
check() {
	python3 - "$J" "$1" <<'EOF' || fail "$2: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print({k: d[k][:3] for k in ("features", "syscalls")})' "$J")"
import json, sys
d = json.load(open(sys.argv[1]))
def row(table, name):
    return next((r for r in d[table] if r["name"] == name), None)
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}
# the stack that grew most in diff --folded --normalize, after its growth
top_stack() {	# $1 $2: the recordings
	"$KP" diff --folded --normalize --vmlinux "$VMLINUX" "$1" "$2" |
		awk '{print $NF - $(NF - 1), $1}' | sort -rn | head -1
}

for w in af bf; do
	diff_json "$TMP/base/$w.data" "$TMP/hard/$w.data"
	check "[c['name'] for c in d['provenance']['cmdline'] if c['base'] == '0' and c['hardened'] == '1'] == ['init_on_alloc', 'init_on_free']" \
		"$w: the provenance diff does not name init_on_alloc and init_on_free"
	# the roll-up: init_on_alloc_free carries the largest, significant share of the
	# change (no share, null, where the other rows' changes cancel a tenth of it)
	check "d['features'][0]['name'] == 'init_on_alloc_free' and d['features'][0]['significant'] and (d['features'][0]['share_pct'] or 0) > 40" \
		"$w: the change is not rolled up to init_on_alloc_free"
	"$KP" diff --vmlinux "$VMLINUX" "$TMP/base/$w.data" "$TMP/hard/$w.data" | sed -n '/^Hardening features/,/^$/p'
done
diff_json "$TMP/base/af.data" "$TMP/hard/af.data"
# munmap frees the 32 MiB areas: every page is zeroed on the hardened kernel
check "row('syscalls', 'munmap')['significant'] and row('syscalls', 'munmap')['ratio'] > 2" \
	"munmap does not regress significantly"
read -r grew stack < <(top_stack "$TMP/base/af.data" "$TMP/hard/af.data")
[[ $stack == *kernel_init_pages_\[i\]*clear_page* ]] ||
	fail "alloc-free's top differential stack is not page zeroing ($grew): $stack"
read -r grew stack < <(top_stack "$TMP/base/bf.data" "$TMP/hard/bf.data")
[[ $stack =~ (slab_post_alloc_hook|slab_free_hook)_\[i\]\;memset ]] ||
	fail "big-fork's top differential stack is not slab object zeroing ($grew): $stack"
echo "top differential stacks: page zeroing (alloc-free), slab object zeroing (big-fork)"

# the null test: two baseline boots.  A row passes when its change is not
# significant, or too small to matter: under 10% of the change the hardened
# kernel brought to the same row (a 5% test flags one row in twenty by
# chance, and two boots of one kernel differ a little for real, more so on
# a loaded host).  The rows: the feature, from CPU samples, for both
# workloads, and munmap for alloc-free.  big-fork's syscall latencies are
# left out: between two plain TCG boots of the same kernel they moved by up
# to 35% (mmap, munmap, clone together, CPU time unchanged), a difference
# between boots that 5 runs within each boot cannot see.
null_rows() {	# $1: workload
	echo "features init_on_alloc_free"
	[ "$1" != af ] || echo "syscalls munmap"
}
for w in af bf; do
	diff_json "$TMP/base/$w.data" "$TMP/hard/$w.data"
	H=$J
	diff_json "$TMP/base/$w.data" "$TMP/base2/$w.data"
	check "d['provenance']['cmdline'] == [] and d['provenance']['config'] == []" \
		"$w: the baseline boots differ in provenance"
	while read -r table name; do
		check "(lambda n, h: n is None or not n['significant'] or abs(n['delta_per_run_ns']) < 0.1 * abs(h['delta_per_run_ns']))(row('$table', '$name'), next(x for x in json.load(open('$H'))['$table'] if x['name'] == '$name'))" \
			"$w null test: $name changed significantly between two baseline boots"
	done < <(null_rows "$w")
done
echo "null test: no significant change between the baseline boots on those rows"

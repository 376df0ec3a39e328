#!/bin/bash
# One command line for two kernel builds: record --func with a name the
# running kernel lacks probes the others, warns once on stderr naming it,
# and keeps it as absent in the data file, which report shows; --strict
# refuses as before, and a recording where no name matches is still an error.
# Then diff as on a kernel pair: shuffle_freelist not found (no DWARF: as on
# a kernel built without SLAB_FREELIST_RANDOM) in the base, found inlined
# into allocate_slab (with the -dbg vmlinux) in the hardened recording, is
# listed as on the hardened kernel only, with its calls.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_prepare
vm_dbg_vmlinux
# the hardened record reads the 630 MB file's DWARF over 9p under TCG
KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-400}
vm_run <<GUEST || fail "guest script exited \$?"
set +e
kprotperf record -q --func allocate_slab --func shuffle_freelist -o /mnt/host/base.data \
	-- big-fork 10 > /dev/null 2> /mnt/host/base.err
kprotperf record -q --func allocate_slab --func shuffle_freelist \
	--vmlinux /mnt/ro/vmlinux-$VM_KV -o /mnt/host/hard.data -- big-fork 10 > /dev/null \
	2> /mnt/host/hard.err
kprotperf record -q --func allocate_slab --func no_such_fn_xyz -o /mnt/host/absent.data \
	-- big-fork 20 > /dev/null 2> /mnt/host/absent.err
echo \$? > /mnt/host/absent.rc
kprotperf record -q --strict --func allocate_slab --func no_such_fn_xyz \
	-o /mnt/host/strict.data -- true 2> /mnt/host/strict.err
echo \$? > /mnt/host/strict.rc
kprotperf record -q --func no_such_fn_xyz --func 'zz_none_*' -o /mnt/host/none.data \
	-- true 2> /mnt/host/none.err
echo \$? > /mnt/host/none.rc
exit 0
GUEST
S=$VM_SHARE
[ "$(cat "$S/absent.rc")" = 0 ] || fail "record with one absent name exited $(cat "$S/absent.rc"): $(cat "$S/absent.err")"
[ "$(wc -l < "$S/absent.err")" = 1 ] || fail "want one warning line, got: $(cat "$S/absent.err")"
grep -q "^kprotperf record: warning: no kernel function matches 'no_such_fn_xyz' (closest: .*it is recorded as absent on this kernel, the rest is probed (--strict refuses instead)" "$S/absent.err" ||
	fail "warning: $(cat "$S/absent.err")"
absent=$(q "$S/absent.data" "SELECT group_concat(pattern, ' ') FROM func_absent")
[ "$absent" = no_such_fn_xyz ] || fail "func_absent holds '$absent'"
calls=$(q "$S/absent.data" "SELECT l.calls FROM latency l JOIN funcs f ON f.id = l.id
	WHERE l.kind = 'func' AND f.name = 'allocate_slab'")
[ "${calls:-0}" -gt 0 ] || fail "allocate_slab not measured beside the absent name"
report=$("$KP" report "$S/absent.data")
grep -qx '# absent on this kernel: no_such_fn_xyz' <<<"$report" ||
	fail "report does not show the absent name"
report=$("$KP" report --json "$S/absent.data")
grep -q '"functions_absent":\["no_such_fn_xyz"\]' <<<"$report" ||
	fail "report --json does not show the absent name"
echo "one name absent: recorded, allocate_slab $calls calls, warned: $(cut -c1-100 "$S/absent.err")..."
[ "$(cat "$S/strict.rc")" != 0 ] || fail "--strict recorded with an absent name"
grep -q "no kernel function matches 'no_such_fn_xyz'" "$S/strict.err" ||
	fail "--strict: $(cat "$S/strict.err")"
[ ! -e "$S/strict.data" ] || fail "--strict left a data file"
[ "$(cat "$S/none.rc")" != 0 ] || fail "recorded with no name matching"
grep -q "no kernel function matches 'no_such_fn_xyz' (closest: .*) or 'zz_none_\*'" "$S/none.err" ||
	fail "nothing matching: $(cat "$S/none.err")"
[ ! -e "$S/none.data" ] || fail "nothing matching left a data file"
echo "--strict and nothing matching refuse: $(cat "$S/strict.rc") / $(cat "$S/none.rc")"
[ -s "$S/base.data" ] || fail "base: no data file: $(cat "$S/base.err")"
[ -s "$S/hard.data" ] || fail "hardened: no data file: $(cat "$S/hard.err")"
[ "$(q "$S/base.data" "SELECT pattern FROM func_absent")" = shuffle_freelist ] ||
	fail "base: shuffle_freelist not stored as absent: $(cat "$S/base.err")"
calls=$(q "$S/hard.data" "SELECT SUM(l.calls) FROM latency l JOIN funcs f ON f.id = l.id
	WHERE l.kind = 'func' AND f.name = 'shuffle_freelist'")
[ "${calls:-0}" -gt 0 ] || fail "hardened: shuffle_freelist not timed: $(cat "$S/hard.err")"
out=$("$KP" diff "$S/base.data" "$S/hard.data")
grep -qE "^shuffle_freelist +function +hardened only +absent +$calls\$" <<<"$out" ||
	fail "diff does not list shuffle_freelist as hardened only with $calls calls: $out"
grep -qE "^shuffle_freelist in allocate_slab +inline instance +hardened only +absent +$calls\$" <<<"$out" ||
	fail "diff does not list the inline instance as hardened only: $out"
grep -qE "^shuffle_freelist +absent +[0-9.]+[num]?s +new " <<<"$out" ||
	fail "the probed functions table does not say absent: $out"
grep -qE "^allocate_slab +[0-9.]+[num]?s +[0-9.]+[num]?s " <<<"$out" ||
	fail "allocate_slab not matched on both sides: $out"
json=$("$KP" diff --json "$S/base.data" "$S/hard.data")
grep -q "\"one_side_only\":\[{\"name\":\"shuffle_freelist\",\"kind\":\"function\",\"only\":\"hardened\",\"base_calls\":null,\"hardened_calls\":$calls}" <<<"$json" ||
	fail "diff --json: $(grep -o '"one_side_only":[^]]*]' <<<"$json")"
echo "diff: shuffle_freelist on the hardened side only, $calls calls"

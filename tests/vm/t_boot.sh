#!/bin/bash
# kprotperf boot on Debian's 6.1 kernel (CONFIG_SHUFFLE_PAGE_ALLOCATOR=y,
# shuffling off by default): two boots without and two with
# page_alloc.shuffle=1, each `kprotperf boot --model insns --repeat 2`.
# Checked: each recording has 2 boot_runs rows with initcalls > 0 and
# entry_insns < first_user_insns; in `kprotperf diff --json base shuffle`
# a function the shuffle runs at boot (share/features.conf's
# page_alloc_shuffle: __shuffle_free_memory, __shuffle_zone, ...) is "new"
# and none of them is on the base side.  And a boot that fails (--timeout
# 2: the kernel cannot reach user mode in 2 s under TCG) exits 125 with the
# console's lines and writes no file.  Prints the figures it measured.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_need_model
export KP_VM_RUN=$ROOT/scripts/vm-run.sh

# a failed boot: exit 125, the console's tail and vm-run's reason, no file
rc=0
"$KP" boot --timeout 2 -o "$TMP/failed.data" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
[ "$rc" -eq 125 ] || fail "a boot that timed out: exit $rc, not 125: $(tail -3 "$TMP/err")"
[ ! -e "$TMP/failed.data" ] || fail "a boot that timed out left $TMP/failed.data"
[ "$(sed -n 2p "$TMP/err")" = "kprotperf boot: boot 1/1 failed; the console's last lines:" ] ||
	fail "a boot that timed out said: $(cat "$TMP/err")"
[[ $(tail -1 "$TMP/err") == "kprotperf boot: vm-run.sh: vm-run: "* ]] ||
	fail "no vm-run.sh reason last: $(tail -1 "$TMP/err")"
echo "boot: a boot that timed out: exit 125, $(grep -c '^  | ' "$TMP/err") console lines, no file"

# record LABEL [--append CMDLINE]: two boots with the model into TMP/LABEL.data
record() {
	local label=$1 start=$SECONDS rc=0
	shift
	"$KP" boot --model insns --repeat 2 "$@" -o "$TMP/$label.data" >"$TMP/out" 2>"$TMP/err" \
		</dev/null || rc=$?
	[ "$rc" -eq 0 ] || fail "$label: kprotperf boot exited $rc: $(tail -5 "$TMP/err")"
	echo "boot: $label: 2 boots in $((SECONDS - start)) s"
	[ "$(q "$TMP/$label.data" "SELECT value FROM config WHERE option = 'CONFIG_SHUFFLE_PAGE_ALLOCATOR'")" = y ] ||
		skip "this kernel is not built with CONFIG_SHUFFLE_PAGE_ALLOCATOR=y"
	[ "$(q "$TMP/$label.data" "SELECT count(*) FROM boot_runs
		WHERE initcalls > 0 AND entry_insns > 0 AND entry_insns < first_user_insns")" = 2 ] ||
		fail "$label: boot_runs: $(q "$TMP/$label.data" 'SELECT * FROM boot_runs')"
	q "$TMP/$label.data" "SELECT 'boot: ' || '$label' || ' run ' || run || ': ' || initcalls ||
		' initcalls, clock offset ' || ifnull(clock_offset_ns, 'NULL') || ' ns, initcalls end ' ||
		initcalls_end_ns || ' ns, first user ' || first_user_ns || ' ns; entry ' || entry_insns ||
		', first user ' || first_user_insns || ' insns' FROM boot_runs ORDER BY run"
}

record base
record shuffle --append page_alloc.shuffle=1

"$KP" diff --json "$TMP/base.data" "$TMP/shuffle.data" >"$TMP/diff.json" 2>"$TMP/err" ||
	fail "kprotperf diff --json exited $?: $(tail -3 "$TMP/err")"
python3 - "$TMP/diff.json" <<'PY' || fail "diff --json: $(head -c 2000 "$TMP/diff.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["base"]["runs"] == 2 and d["hardened"]["runs"] == 2, (d["base"], d["hardened"])
assert "page_alloc.shuffle=1" in d["hardened"]["cmdline"], d["hardened"]["cmdline"]
assert d["base"]["build_id"] == d["hardened"]["build_id"]
shuffle = {"__shuffle_free_memory", "__shuffle_zone", "shuffle_free_memory", "shuffle_zone"}
funcs = {f["name"]: f for f in d["functions"] if f["module"] == "[kernel]"}
seen = {n: funcs[n] for n in shuffle if n in funcs}
new = sorted(n for n, f in seen.items() if f["status"] == "new")
assert new, "no shuffle function is new: %s" % seen
assert all(f["status"] == "new" and f["base_insns"] is None for f in seen.values()), seen
phases = {p["name"]: p for p in d["phases"]}
assert set(phases) == {"kernel_entry", "initcalls_end", "first_user"}, phases
assert any(i["status"] == "both" for i in d["initcalls"]), d["initcalls"][:3]
for n in new:
    print("boot: %s new with page_alloc.shuffle=1: %.0f instructions a boot" %
          (n, seen[n]["hardened_insns"]))
p = phases["first_user"]
print("boot: first user process: %s ns base, %s ns shuffled (delta %s ns, 95%% CI %s..%s)" %
      (p["base_ns"], p["hardened_ns"], p["delta_ns"], p["ci_low_ns"], p["ci_high_ns"]))
PY

#!/bin/bash
# scripts/vm-run.sh --boot --model insns on Debian's 6.1 kernel, one boot:
# the raw folder `kprotperf boot` reads (docs/kernels.md, "Running in a VM").
# Checked: every file there; dmesg.txt has initcall_debug's "calling" and
# "initcall ... returned" lines and boot-clock's tsc line; cmdline ends
# with what --boot appends; build-id is hex; model.txt's boot window is
# complete, one window, with both boot lines, entry < first user, and,
# since counting is exact and stops at the first user instruction, the
# rows add up to first_user_insns and those below the kernel's half
# (firmware, boot loader, decompressor) to entry_insns.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
vm_need_host_test
vm_need_plugin

start=$(date +%s)
rc=0
"$VR" --boot --model insns --out "$TMP/b" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "vm-run --boot exited $rc: $(tail -3 "$TMP/err")"
echo "boot_raw: one boot with --model insns: $(($(date +%s) - start)) s"
B=$TMP/b
for f in dmesg.txt kallsyms.txt cmdline release build-id config model.txt; do
	[ -s "$B/$f" ] || fail "no $f in the raw folder: $(ls "$B")"
done
[ ! -e "$B/console.log" ] || fail "a console.log after a boot that worked"

grep -qE '^\[ *[0-9]+\.[0-9]{6}\] calling  [a-z0-9_]+\+0x0/0x[0-9a-f]+ @ 1$' "$B/dmesg.txt" ||
	fail "dmesg.txt: no initcall_debug 'calling' line"
grep -qE '^\[ *[0-9]+\.[0-9]{6}\] initcall [a-z0-9_]+\+0x0/0x[0-9a-f]+ returned 0 after [0-9]+ usecs$' "$B/dmesg.txt" ||
	fail "dmesg.txt: no 'initcall ... returned' line"
[ "$(grep -cE '^\[ *[0-9]+\.[0-9]{6}\] kprotperf-boot: tsc [0-9]+$' "$B/dmesg.txt")" = 1 ] ||
	fail "dmesg.txt: not one 'kprotperf-boot: tsc' line: $(grep kprotperf-boot "$B/dmesg.txt")"
[[ $(cat "$B/cmdline") == *" initcall_debug log_buf_len=4M" ]] || fail "cmdline: $(cat "$B/cmdline")"
[[ $(cat "$B/build-id") =~ ^[0-9a-f]{40}$ ]] || fail "build-id: $(cat "$B/build-id")"
grep -q "^CONFIG_X86_64=y$" "$B/config" || fail "config: no CONFIG_X86_64=y"
grep -qE '^ffffffff[0-9a-f]{8} T startup_64$' "$B/kallsyms.txt" || fail "kallsyms.txt: no startup_64 with its address"
grep -qx "# kernel_build_id $(cat "$B/build-id")" "$B/model.txt" || fail "model.txt: not stamped with the build id"
echo "boot_raw: dmesg.txt with initcalls and the tsc line, kallsyms.txt, cmdline, release $(cat "$B/release"), build-id, config"

M=$B/model.txt
h() { sed -n "s/^# $1 //p" "$M"; }
[ "$(h window)" = complete ] || fail "model.txt: window $(h window)"
[ "$(h windows)" = "opened 1 closed 1 restarts 0 stray_stops 0" ] || fail "model.txt: windows $(h windows)"
entry=$(h "boot entry_insns") user=$(h "boot first_user_insns")
[[ $entry =~ ^[1-9][0-9]*$ && $user =~ ^[1-9][0-9]*$ ]] && [ "$entry" -lt "$user" ] ||
	fail "model.txt: entry_insns '$entry', first_user_insns '$user'"
sums=$(awk '$1 ~ /^0x/ { all += $2; if (length($1) < 18) low += $2 }
	END { printf "%.0f %.0f", all, low }' "$M")
[ "$sums" = "$user $entry" ] ||
	fail "model.txt: rows add up to $sums (all, below 0xffff8...), the header says $user $entry"
echo "boot_raw: model window complete; entry $entry, first user $user instructions, the rows add up to both"

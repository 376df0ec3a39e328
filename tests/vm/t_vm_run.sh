#!/bin/bash
# scripts/vm-run.sh as a user runs it, on the kernel-build.sh kernel (a ~5 s
# boot): CMD's output and exit status come back, its files land in --out,
# arguments with spaces and quotes arrive intact; and each refusal is one
# line with exit 125: no command, a bad --timeout, a folder that is no
# kernel, an unknown package, and a kernel that panics (its panic line, the
# console log kept).
# kernels: hard
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
[ "$(id -u)" -eq 0 ] || skip "needs root (the kernel build's cache is root's here)"
vm_need_host_test
K=$(vm_kbuild hard)

# expect STATUS LINE -- ARGS...: vm-run's exit status and the last line of its stderr
expect() { vm_expect "$@"; }

# a command's status, output, files and arguments
rc=0
"$VR" --kernel "$K" --out "$TMP/o1" -- sh -c 'echo "$1|$2" > args.txt; echo to-stdout; exit 3' sh "a b" "it's" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 3 ] || fail "the command's exit status 3 came back as $rc: $(tail -3 "$TMP/err")"
[ "$(cat "$TMP/out")" = to-stdout ] || fail "the command's output: $(cat "$TMP/out")"
[ "$(cat "$TMP/o1/args.txt")" = "a b|it's" ] || fail "the arguments arrived as: $(cat "$TMP/o1/args.txt")"
echo "vm-run: status 3, output, a file and quoted arguments came back"

expect 125 "vm-run: no command: scripts/vm-run.sh [options] -- CMD [ARG...] (--help)" -- --kernel "$K"
expect 125 "vm-run: --timeout '5s': want whole seconds" -- --timeout 5s -- true
mkdir -p "$TMP/notakernel"
expect 125 "vm-run: kernel folder $TMP/notakernel has no bzImage: not an output folder of scripts/kernel-build.sh, or its build did not finish" \
	-- --kernel "$TMP/notakernel" -- true
expect 125 "vm-run: unknown kernel package linux-image-0.0-nonesuch: apt has no such package, and there is no folder of that name (packages: e.g. linux-image-amd64, linux-image-6.12-amd64, linux-image-6.1.0-56-amd64)" \
	-- --kernel linux-image-0.0-nonesuch -- true
# a kernel that cannot start its init panics: the panic line, the console kept
rc=0
"$VR" --kernel "$K" --out "$TMP/o2" --timeout 120 --append "rdinit=/nonexistent" -- true \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 125 ] || fail "a panicking kernel: exit $rc, want 125: $(tail -2 "$TMP/err")"
grep -q 'Kernel panic' "$TMP/err" || fail "a panicking kernel: no panic line: $(tail -3 "$TMP/err")"
[ -s "$TMP/o2/console.log" ] || fail "a panicking kernel: no console.log in --out"
echo "vm-run: a panic is reported with its line, the console log kept"

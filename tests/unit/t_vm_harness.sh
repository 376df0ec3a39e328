#!/bin/bash
# scripts/vm-run.sh and scripts/lib/vm.sh with nothing booted: a fake
# qemu-system-x86_64 first on PATH records its arguments and plays the VM (a
# guest that reports status 3, a kernel that panics, a QEMU that fails), the
# kernel a fake kernel-build.sh folder or a package from stub apt-get and
# apt-cache, the static binaries copies of true.  Checked: vm-run's exit
# status (the command's, else 125), the whole last line of its stderr, the
# console log kept (and named) only when there is one, no kp-vm.* work
# folder left in TMPDIR, a comma in the --ro and kernel folders' paths
# doubled in -virtfs (QEMU's option syntax); a truncated package download
# (its size not the index's; or, when the index no longer has its version,
# one dpkg-deb cannot unpack) refused in one line, removed, nothing marked
# complete; the whole package unpacked, marked and booted.  --boot: a
# command after it refused, a kernel folder without .config refused; the
# QEMU command line whole (icount, the append, the plugin's window=boot);
# the guest script run on the host (the share for /mnt/host, fake
# boot-clock and dmesg) leaves the raw folder's files, build-id and
# config added on the host, no inject.
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VR=$ROOT/scripts/vm-run.sh
TMP=$(mktemp -d /tmp/kp-vmh.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for t in cpio dpkg-deb depmod strip; do
	PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null || { echo "skipped: $t is not installed"; exit 77; }
done
export FAKE=$TMP/fake
mkdir -p "$FAKE/bin" "$TMP/build/static" "$TMP/tmp" "$TMP/ro,dir" "$TMP/k,1"
for f in kprotperf big-fork syscall-loop cpu-burn alloc-free model-window boot-clock core-ops count-loop data-walk data-walk-b; do
	cp /bin/true "$TMP/build/static/$f"
done
# not an ELF file, so vm.sh takes it for a static busybox
printf '#!/bin/sh\n' >"$FAKE/bin/busybox"
cat >"$FAKE/bin/qemu-system-x86_64" <<'FAKEQEMU'
#!/bin/bash
# the arguments, one a line; then the VM FAKE_QEMU asks for
printf '%s\n' "$@" >"$FAKE/qemu-args"
prev=
for a in "$@"; do
	case $prev in
	-serial) serial=${a#file:} ;;
	-virtfs) [[ $a != *,mount_tag=host,* ]] || { share=${a#local,path=}; share=${share%,mount_tag=host,*}; } ;;
	-plugin) table=${a#*,out=}; table=${table%%,*} ;;
	esac
	prev=$a
done
case $FAKE_QEMU in
fail) echo "qemu-system-x86_64: -virtfs: a fake failure" >&2; exit 1 ;;
panic) echo "[    0.512] Kernel panic - not syncing: a fake panic" >"$serial" ;;
boot)
	# the guest script, /mnt/host being the share, the host's /proc and /sys
	printf '# kp_model 1\n# window complete\n0x1000 7\n' >"$table"
	sed "s|/mnt/host|$share|g" "$share/.vm/guest.sh" >"$FAKE/guest.sh"
	PATH=$FAKE/guest:$PATH bash -e "$FAKE/guest.sh" >"$share/.vm/guest.log" 2>&1
	echo $? >"$share/.vm/status"
	;;
model)
	printf '# kp_model 1\n# window incomplete\n0x1000 7\n' >"$table"
	;&
ok)
	echo "the guest's output" >"$share/.vm/guest.log"
	echo made >"$share/made.txt"
	echo 3 >"$share/.vm/status"
	;;
esac
FAKEQEMU
# apt: linux-image-0.0.1-kp-amd64, version 0.0.1-1, is $FAKE/whole.deb;
# apt-get download gives $FAKE/$FAKE_DEB.deb
cat >"$FAKE/bin/apt-get" <<'FAKEAPT'
#!/bin/bash
[ "$1" = download ] || exit 0
cp "$FAKE/$FAKE_DEB.deb" "${!#}_0.0.1-1_amd64.deb"
FAKEAPT
cat >"$FAKE/bin/apt-cache" <<'FAKEAPT'
#!/bin/bash
case $1 in
pkgnames) echo linux-image-0.0.1-kp-amd64 ;;
show)
	[ "$2" = --no-all-versions ] || { echo "Package: $2"; exit 0; }
	[ "$FAKE_INDEX" = yes ] || { echo "E: Version '${3#*=}' for '${3%%=*}' was not found" >&2; exit 100; }
	echo "Package: ${3%%=*}"
	echo "Version: ${3#*=}"
	echo "Size: $(stat -c %s "$FAKE/whole.deb")"
	echo "SHA256: $(sha256sum <"$FAKE/whole.deb" | cut -d' ' -f1)"
	;;
esac
FAKEAPT
mkdir "$FAKE/guest"
printf '#!/bin/sh\necho "[    1.250000] kprotperf-boot: tsc 1250000000" >"$FAKE/kmsg"\n' >"$FAKE/guest/boot-clock"
printf '#!/bin/sh\necho "[    0.100000] calling  pci_init+0x0/0x40 @ 1"\ncat "$FAKE/kmsg"\n' >"$FAKE/guest/dmesg"
chmod +x "$FAKE/bin"/* "$FAKE/guest"/*
kv=0.0.1-kp-amd64
mkdir -p "$TMP/pkg/DEBIAN" "$TMP/pkg/boot" "$TMP/pkg/lib/modules/$kv"
printf 'Package: linux-image-%s\nVersion: 0.0.1-1\nArchitecture: amd64\nMaintainer: kprotperf <kp@example.org>\nDescription: a fake kernel\n' \
	"$kv" >"$TMP/pkg/DEBIAN/control"
head -c 20000 /dev/urandom >"$TMP/pkg/boot/vmlinuz-$kv"
echo CONFIG_KPROTPERF_FAKE=y >"$TMP/pkg/boot/config-$kv"
dpkg-deb --build -Zxz "$TMP/pkg" "$FAKE/whole.deb" >/dev/null
size=$(stat -c %s "$FAKE/whole.deb")
head -c $((size - 4000)) "$FAKE/whole.deb" >"$FAKE/truncated.deb"
K=$TMP/k,1
echo kernel >"$K/bzImage"
echo vmlinux >"$K/vmlinux"
echo release=6.1.0-kp >"$K/manifest"

# run QEMU_MODE ARGS...: vm-run with the fakes; its status in rc
run() {
	local mode=$1
	shift
	rm -f "$FAKE/qemu-args"
	rc=0
	env -u KP_VM_KEEP FAKE_QEMU="$mode" FAKE_DEB="${FAKE_DEB:-whole}" FAKE_INDEX="${FAKE_INDEX:-yes}" \
		PATH="$FAKE/bin:$PATH" OUTPUT="$TMP/build" XDG_CACHE_HOME="$TMP/cache" TMPDIR="$TMP/tmp" \
		KP_VM_ACCEL=tcg "$VR" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ -z "$(ls -A "$TMP/tmp")" ] || fail "vm-run.sh $*: left in TMPDIR: $(ls -A "$TMP/tmp")"
}
# expect STATUS LINE: the last run's status and the whole last line of its stderr
expect() {
	local got
	got=$(tail -1 "$TMP/err")
	[ "$rc" -eq "$1" ] || fail "exit $rc, want $1 ($got)"
	[ "$got" = "$2" ] || fail "stderr's last line:"$'\n'"  got:  $got"$'\n'"  want: $2"
}

# QEMU fails before the kernel ran: its line, no console log to name
run fail --kernel "$K" --out "$TMP/o1" -- true
expect 125 "vm-run: kernel 6.1.0-kp: qemu exited 1: qemu-system-x86_64: -virtfs: a fake failure"
[ ! -e "$TMP/o1/console.log" ] || fail "a console.log without a console: $(cat "$TMP/o1/console.log")"

# a kernel that panics: its line, the console log kept
run panic --kernel "$K" --out "$TMP/o2" -- true
expect 125 "vm-run: kernel 6.1.0-kp: Kernel panic - not syncing: a fake panic (console log: $TMP/o2/console.log)"
[ "$(cat "$TMP/o2/console.log")" = "[    0.512] Kernel panic - not syncing: a fake panic" ] ||
	fail "console.log: $(cat "$TMP/o2/console.log" 2>&1)"

# a guest that reports: its status, output and files; commas doubled
run ok --kernel "$K" --ro "$TMP/ro,dir" --out "$TMP/o3" -- true
[ "$rc" -eq 3 ] || fail "the guest's status 3 came back as $rc: $(tail -3 "$TMP/err")"
[ "$(cat "$TMP/out")" = "the guest's output" ] || fail "the guest's output: $(cat "$TMP/out")"
[ "$(cat "$TMP/o3/made.txt")" = made ] || fail "the guest's file did not come back"
# two vCPUs in one host thread: multi-threaded TCG hung guests while
# kprobes were patched (docs/kernels.md)
printf '%s\n' -accel tcg,thread=single -cpu max -smp 2 >"$TMP/want"
head -6 "$FAKE/qemu-args" | diff -u "$TMP/want" - || fail "plain TCG's -accel, -cpu and -smp"
sed -n '/^-virtfs$/{n;p}' "$FAKE/qemu-args" | sed 1d >"$TMP/got"
printf '%s\n' "local,path=$TMP/ro,,dir,mount_tag=ro,security_model=none,readonly=on" \
	"local,path=$TMP/k,,1,mount_tag=kernel,security_model=none,readonly=on" >"$TMP/want"
diff -u "$TMP/want" "$TMP/got" || fail "the read-only -virtfs shares"

# a truncated download: refused, removed, nothing marked complete
pkg=linux-image-$kv
deb=$TMP/cache/kprotperf/debs/${pkg}_0.0.1-1_amd64.deb
nothing_kept() {
	[ ! -e "$deb" ] || fail "$1: the damaged package is kept"
	[ ! -e "$TMP/cache/kprotperf/kernels/$pkg" ] || fail "$1: its kernel folder is kept"
}
FAKE_DEB=truncated run ok --kernel "$pkg" --out "$TMP/o4" -- true
expect 125 "vm-run: $deb: $((size - 4000)) bytes where apt's index says $size: a damaged download (removed: the next run downloads it again)"
nothing_kept "a truncated download"
# the index no longer has its version: dpkg-deb's refusal
mkdir "$TMP/x"
why=$(dpkg-deb -x "$FAKE/truncated.deb" "$TMP/x" 2>&1 | tail -1 || true)
[ -n "$why" ] || fail "dpkg-deb unpacked the truncated package"
FAKE_DEB=truncated FAKE_INDEX=no run ok --kernel "$pkg" --out "$TMP/o5" -- true
expect 125 "vm-run: $deb: cannot unpack it: $why (removed: the next run downloads it again)"
nothing_kept "a truncated download apt's index does not describe"

# the whole package: unpacked, marked complete, booted
run ok --kernel "$pkg" --out "$TMP/o6" -- true
[ "$rc" -eq 3 ] || fail "the whole package: exit $rc: $(tail -3 "$TMP/err")"
[ -f "$TMP/cache/kprotperf/kernels/$pkg/.complete" ] || fail "the whole package was not marked complete"
[ -f "$deb" ] || fail "the whole package was not kept"
echo "vm-run: status 3 back, 125 with one line for a failing QEMU and a panic (console kept), commas doubled, nothing left in TMPDIR; a truncated package refused twice, a whole one unpacked"

# --model: no plugin built, one line; then TCG single-threaded with one
# vCPU, the plugin and its arguments (a sweep of two LLs sharing one
# D1), its table to --model-out, a line for the window left open
run ok --kernel "$K" --model insns --out "$TMP/o7" -- true
expect 125 "vm-run: $TMP/build/plugin/kp_model.so missing: run 'make OUTPUT=$TMP/build plugin'"
mkdir -p "$TMP/build/plugin"
cp /bin/true "$TMP/build/plugin/kp_model.so"
run model --kernel "$K" --model cache --D1=65536,4,128 --LL 1048576,16,64 --LL=4194304,16,64 \
	--DTLB=16,2 --DTLB 32,4 --ITLB=64,4 --out "$TMP/o8" --model-out "$TMP/o8.txt" -- true
[ "$rc" -eq 3 ] || fail "--model cache: exit $rc: $(tail -3 "$TMP/err")"
grep -qx -- 'tcg,thread=single' "$FAKE/qemu-args" || fail "--model: not single-threaded TCG: $(tr '\n' ' ' <"$FAKE/qemu-args")"
[ "$(sed -n '/^-smp$/{n;p}' "$FAKE/qemu-args")" = 1 ] || fail "--model: not one vCPU"
got=$(sed -n '/^-plugin$/{n;p}' "$FAKE/qemu-args")
want="$TMP/build/plugin/kp_model.so,mode=cache,out=$TMP/tmp/kp-vm.*/model.txt,qemu=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null),geom=32768:8:64/65536:4:128/1048576:16:64/64:4/16:2,geom=32768:8:64/65536:4:128/4194304:16:64/64:4/32:4,vmlinux=${K//,/,,}/vmlinux"
# shellcheck disable=SC2053 # a pattern: the work folder's name is random
[[ $got == $want ]] || fail "--model's -plugin argument:"$'\n'"  got:  $got"$'\n'"  want: $want"
# the kernel's image for the plugin needs it where it was linked
append=$(sed -n '/^-append$/{n;p}' "$FAKE/qemu-args")
grep -qw nokaslr <<<"$append" || fail "--model: no nokaslr with vmlinux=: $append"
[ "$(sed -n 3p "$TMP/o8.txt")" = "0x1000 7" ] || fail "--model-out: $(cat "$TMP/o8.txt" 2>&1)"
grep -q "the model's window was never closed" "$TMP/err" || fail "--model: no line for the open window"
echo "vm-run --model: a missing plugin is one line; TCG single-threaded, one vCPU, the plugin's arguments (the kernel's image, nokaslr), its table back"

# --boot: no command after it; a kernel folder without .config refused
run boot --kernel "$K" --boot --out "$TMP/b0" -- true
expect 125 "vm-run: --boot runs no command (the boot is what is recorded): drop '-- true'"
run boot --kernel "$K" --boot --out "$TMP/b0"
expect 125 "vm-run: --boot: the kernel folder $K has no .config, which the boot's raw folder needs"
[ -z "$(ls -A "$TMP/b0" 2>/dev/null)" ] || fail "--boot refused, yet left: $(ls -A "$TMP/b0")"
echo CONFIG_KP_FAKE=y >"$K/.config"
# the whole QEMU command line (the work folder's random name as WORK): icount
# whatever KP_VM_ACCEL says, one vCPU, the user's append then the boot's
run boot --kernel "$K" --boot --model insns --append "nokaslr a=b" --out "$TMP/b1"
[ "$rc" -eq 0 ] || fail "--boot: exit $rc: $(tail -3 "$TMP/err")"
qv=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
printf '%s\n' -accel tcg -icount shift=0,sleep=off -cpu max -smp 1 -m 2G -nographic -nodefaults \
	-no-reboot -monitor none -serial file:WORK/run1/serial.log -kernel "$K/bzImage" \
	-initrd WORK/initramfs.cpio -append \
	"console=ttyS0 panic=-1 quiet nokaslr a=b initcall_debug log_buf_len=4M" \
	-virtfs local,path=WORK/share,mount_tag=host,security_model=none \
	-virtfs "local,path=${K//,/,,},mount_tag=kernel,security_model=none,readonly=on" \
	-plugin "$TMP/build/plugin/kp_model.so,mode=insns,out=WORK/model.txt${qv:+,qemu=$qv},window=boot" \
	>"$TMP/want"
sed -E "s|$TMP/tmp/kp-vm\.[A-Za-z0-9]+|WORK|g" "$FAKE/qemu-args" >"$TMP/got"
diff -u "$TMP/want" "$TMP/got" || fail "--boot's QEMU command line"
# the raw folder: the guest's files, the host's build-id and config
for f in dmesg.txt kallsyms.txt cmdline release build-id config model.txt cpu-model; do
	[ -f "$TMP/b1/$f" ] || fail "--boot left no $f in --out: $(ls "$TMP/b1")"
done
printf '%s\n' "[    0.100000] calling  pci_init+0x0/0x40 @ 1" \
	"[    1.250000] kprotperf-boot: tsc 1250000000" | diff -u - "$TMP/b1/dmesg.txt" || fail "dmesg.txt"
cmp -s /proc/cmdline "$TMP/b1/cmdline" || fail "cmdline: $(cat "$TMP/b1/cmdline")"
[ "$(cat "$TMP/b1/release")" = "$(uname -r)" ] || fail "release: $(cat "$TMP/b1/release")"
# the host's CPU and vulnerabilities, as the guest's would be
[ "$(cat "$TMP/b1/cpu-model")" = "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" ] ||
	fail "cpu-model: $(cat "$TMP/b1/cpu-model")"
if [ -d /sys/devices/system/cpu/vulnerabilities ]; then
	diff -r /sys/devices/system/cpu/vulnerabilities "$TMP/b1/vulnerabilities" >/dev/null ||
		fail "vulnerabilities/: $(ls "$TMP/b1/vulnerabilities" 2>&1)"
fi
[ "$(wc -l <"$TMP/b1/kallsyms.txt")" -gt 1000 ] || fail "kallsyms.txt: $(wc -l <"$TMP/b1/kallsyms.txt") lines"
[ "$(cat "$TMP/b1/config")" = CONFIG_KP_FAKE=y ] || fail "config: $(cat "$TMP/b1/config")"
# the running kernel's build id, read from the same notes by python
want=$(python3 -c '
import struct, sys
d = open("/sys/kernel/notes", "rb").read()
o = 0
while o + 12 <= len(d):
    n, s, t = struct.unpack_from("<III", d, o)
    o += 12
    name = d[o:o + n]
    o += (n + 3) // 4 * 4
    if t == 3 and name == b"GNU\0":
        print(d[o:o + s].hex())
        sys.exit()
    o += (s + 3) // 4 * 4')
[[ $want =~ ^[0-9a-f]{40}$ ]] || fail "python found no build id in /sys/kernel/notes: '$want'"
[ "$(cat "$TMP/b1/build-id")" = "$want" ] || fail "build-id: $(cat "$TMP/b1/build-id"), want $want"
[ "$(sed -n 2p "$TMP/b1/model.txt")" = "# kernel_build_id $want" ] || fail "model.txt: $(head -3 "$TMP/b1/model.txt")"
! grep -q "merged\|never opened" "$TMP/err" || fail "--boot ran inject or spoke of markers: $(cat "$TMP/err")"
echo "vm-run --boot: a command and a folder without .config refused; icount, the append and window=boot on QEMU's command line; the raw folder's files back"

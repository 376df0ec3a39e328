#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Seed corpora for the fuzz targets, made from the tests' own files into
# DIR/TARGET/ (run.sh calls it): the golden recordings (rewritten with 512-byte
# pages, which makes them 3-4 times smaller and the fuzzer as much faster),
# their recorded inline ranges, share/features.conf, --func patterns, perf
# side-band records, and small ELF files with DWARF built here with cc -g.
# DIR/recordings holds the golden recordings cut small, opened once by
# datafile_rows, and the datafile target's seeds.  DIR/vmlinux.elf stands in for the recorded kernel: some
# recordings are given its build id, so that the readers' paths with DWARF
# run too; and, in DIR/symfs, for a recorded workload.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: seeds.sh DIR}
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"/{datafile,datafile_rows,ranges,features,funcmatch,sideband,symbolize,model_table,boot_dmesg,sweep_plan,costs}
out=$dir.tmp

# a program with inlined functions and an _stext, for symbolize and as a vmlinux
cat >"$out/prog.c" <<'C'
static int depth;
static inline __attribute__((always_inline)) int leaf_in(int x) { depth++; return x * 3 + depth; }
static inline __attribute__((always_inline)) int mid_in(int x) { return leaf_in(x) + leaf_in(x + 1); }
__attribute__((noinline)) int leaf(int x) { return mid_in(x) ^ depth; }
__attribute__((noinline)) int middle(int x) { return leaf(x) + mid_in(x * 2); }
__attribute__((noinline)) void _stext(void) { depth = 0; }
int main(int argc, char **argv) { _stext(); return middle(argc) & 1; }
C
cc -O2 -g -Wl,--build-id -o "$out/vmlinux.elf" "$out/prog.c"
cp "$out/vmlinux.elf" "$out/symbolize/o2-dwarf5"
cc -O2 -gdwarf-4 -Wl,--build-id -o "$out/symbolize/o2-dwarf4" "$out/prog.c"
cc -O0 -g -o "$out/symbolize/o0" "$out/prog.c"
cc -O2 -g -c -o "$out/symbolize/reloc.o" "$out/prog.c"
bid=$(readelf -n "$out/vmlinux.elf" | awk '/Build ID/ { print $3 }')

for f in tests/golden/data/*.data tests/golden/data/old/*.data tests/golden/vm/data/*.data; do
	s=$out/datafile/$(basename "$f" .data)
	cp "$f" "$s"
	sqlite3 "$s" 'PRAGMA page_size = 512; VACUUM;'
done
for s in "$out"/datafile/{burn,inl-base}; do
	cp "$s" "$s-dwarf"
	sqlite3 "$s-dwarf" "UPDATE meta SET value = '$bid' WHERE key = 'kernel.build_id';"
done
# DIR/symfs (the datafile target's --symfs): the same small ELF file as the
# workload burn-dwarf records, so that the user inline frames' path runs too
mkdir -p "$out/symfs/tmp/before"
cp "$out/vmlinux.elf" "$out/symfs/tmp/before/cpu-burn"
sqlite3 "$out/datafile/burn-dwarf" \
	"UPDATE maps SET build_id = '$bid' WHERE path = '/tmp/before/cpu-burn';"

# datafile_rows' recordings (DIR/recordings, KP_FUZZ_RECORDINGS): those of
# datafile/ cut to their first 6 rows a table, which the checks and readers
# of each input go through, 3 to 6 times faster than on the whole ones
mkdir "$out/recordings"
for s in "$out"/datafile/*; do
	r=$out/recordings/$(basename "$s")
	cp "$s" "$r"
	cut=$(sqlite3 "$r" "SELECT 'DELETE FROM \"' || name || '\" WHERE rowid NOT IN (SELECT rowid
		FROM \"' || name || '\" LIMIT 6);' FROM sqlite_schema WHERE type = 'table'")
	sqlite3 "$r" "$cut VACUUM;"
done
# the datafile target's seeds are the same cut recordings: its checks and
# readers too go through every row, and on the whole ones it ran 3 to 5
# times fewer inputs a second; their pages, tables and readers' paths are
# the whole ones' (on 2026-11-26: 876 against 183 a second, two runs of 30 s
# from an empty corpus side by side)
# the machine model's counts of format 2 (TLBs and events) in a copy of the
# cut burn (the cut would drop its meta), as inject leaves them: PCs at its
# kernel symbols of its own, thunks among them, and a user PC; a kernel PC's
# writes split by two call sites (model_sites)
s=$out/recordings/burn-model
cp "$out/recordings/burn" "$s"
sqlite3 "$s" "INSERT INTO meta VALUES ('model.state', 'counted'), ('model.mode', 'cache'),
	('model.window', 'complete'), ('model.qemu', '7'), ('model.windows', '1'),
	('model.format', '2'), ('model.guest_pti', '1'), ('model.guest_pcid', 'unknown');
	INSERT INTO ksyms VALUES (-2130706432, '_stext', ''), (-2130706176, 'kfunc', ''),
	(-2130705920, '__x86_indirect_thunk_rax', ''), (-2130705888, '__x86_return_thunk', '');
	INSERT INTO model_geoms VALUES (0, 32768, 8, 64, 32768, 8, 64, 8388608, 16, 64);
	INSERT INTO model_tlbs VALUES (0, 128, 8, 64, 4);
	INSERT INTO model_pcs SELECT addr + 4 * k, 7 + k FROM ksyms, (SELECT 0 AS k UNION SELECT 1)
	WHERE addr < 0;
	INSERT INTO model_pcs VALUES (4198400, 9);
	INSERT INTO model_misses SELECT pc, 0, 1, 2, 1, 3, 1, 1 FROM model_pcs;
	INSERT INTO model_tlb SELECT pc, 0, 1, 2 FROM model_pcs;
	INSERT INTO model_events SELECT pc, 'mov_cr3', 1 FROM model_pcs LIMIT 1;
	INSERT INTO model_events SELECT pc, 'ret', 0 FROM model_pcs LIMIT 1 OFFSET 1;
	INSERT INTO model_sites SELECT pc, pc - 4, 0, 2 FROM model_pcs WHERE pc < 0 LIMIT 1;
	INSERT INTO model_sites SELECT pc, 0, 0, 1 FROM model_pcs WHERE pc < 0 LIMIT 1;
	INSERT INTO meta VALUES ('model.callsites_dropped', '0');"

cp "$out"/recordings/* "$out/datafile/"
# datafile_rows: each recording as it is (byte 0 picks one, in the order of
# their names), then a few edits (op, table, row, value)
n=$(ls "$out/recordings" | wc -l)
for ((i = 0; i < n; i++)); do
	printf "$(printf '\\x%02x' "$i")" >"$out/datafile_rows/r$i"
	printf "$(printf '\\x%02x' "$i")\\x00\\x00\\x00\\x03\\x05" >"$out/datafile_rows/set$i"
	printf "$(printf '\\x%02x' "$i")\\x01\\x03\\x00\\x02\\x07\\x02\\x00\\x05\\x10" \
		>"$out/datafile_rows/del-add$i"
done

i=0
for f in tests/golden/vm/data/inl-*.data; do
	sqlite3 "$f" 'SELECT ranges FROM inlines' | while read -r r; do
		printf '%s' "$r" >"$out/ranges/$(basename "$f" .data)-$((i++))"
	done
done
printf '0x10-0x20 0x30-0x40' >"$out/ranges/two"
printf '0-0 1-1 2-2' >"$out/ranges/short"

cp share/features.conf "$out/features/features.conf"
# one process: head closing the pipe early would kill grep (pipefail)
awk '!/^#/ && n++ < 12' share/features.conf >"$out/features/head"

# the model's tables: every mode, a sweep of two geometries, a window left open, a boot
printf '%s\n' '# kp_model 1' '# kernel_build_id ab12' '# mode insns' '# qemu 1:7.2' \
	'# window complete' '# windows opened 1 closed 1 restarts 0 stray_stops 0' \
	'# columns pc insns' '0x401000 3' '0x401004 3' '0xffffffff81000000 12' >"$out/model_table/insns"
printf '%s\n' '# kp_model 1' '# mode cache' '# qemu 1:7.2' '# window incomplete' \
	'# windows opened 2 closed 1 restarts 0 stray_stops 0' \
	'# geom 0 i1=32768:8:64 d1=32768:8:64 ll=1048576:16:64' \
	'# geom 1 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64' '# iaddr physical' \
	'# columns pc insns i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0 d1_write_miss.0 ll_miss.0 i1_miss.1 d1_read.1 d1_read_miss.1 d1_write.1 d1_write_miss.1 ll_miss.1' \
	'0x401000 10 1 2 1 0 0 1 1 2 1 0 0 0' '0xffffffff81000100 7 0 4 2 3 1 2 0 4 2 3 1 1' >"$out/model_table/cache"
# a boot window's (kprotperf boot): its two boot lines
printf '%s\n' '# kp_model 1' '# mode insns' '# qemu 1:7.2' '# window complete' \
	'# windows opened 1 closed 1 restarts 0 stray_stops 0' '# boot entry_insns 1000' \
	'# boot first_user_insns 5000' '# columns pc insns' '0x100000 1000' \
	'0xffffffff81000000 4000' >"$out/model_table/boot"

# format 2 (TLBs and events): the unit tests' fixtures, cache and insns
cp tests/unit/model/table2-base.txt "$out/model_table/tlb"
cp tests/unit/model/table2-insns.txt "$out/model_table/events"
cp tests/unit/model/table3-timing.txt "$out/model_table/timing"
# the plugin's running bytes of patched kernel instructions (vmlinux=), before the columns
sed '/^# columns/i # patched sites 2 dropped 1\n# running 0xffffffff81000100 f0480fc70e\n# running 0xffffffff81000105 0f1f440000' \
	tests/unit/model/table2-base.txt >"$out/model_table/patched"
# the string helpers' accesses per call site (with vmlinux=): a section of three
sed -e '/^# columns/i # callsites 1 lines 3 dropped 5\
# callsite 0xffffffff81a00010 0x0 0 7\
# callsite 0xffffffff81a00010 0xffffffff81200040 0 4096\
# callsite 0xffffffff81a00020 0xffffffff81300abc 12 12' \
	tests/unit/model/table2-base.txt >"$out/model_table/callsites"
# version 2: a call site's share for two calls of a slab allocator
sed -e '/^# columns/i # callsites 2 lines 3 dropped 0\
# callsite 0xffffffff81a00010 0x0 0x0 0 7\
# callsite 0xffffffff81a00010 0xffffffff81200040 0xffffffff81500010 0 4096\
# callsite 0xffffffff81a00010 0xffffffff81200040 0xffffffff81500020 12 12' \
	tests/unit/model/table2-base.txt >"$out/model_table/callsites2"

# cost tables: the shipped ones, one cut short, one with the core's figures, one with
# escapes and notes
cp share/costs/*.json "$out/costs/"
cp tests/unit/model/costs.json "$out/costs/unit"
head -c 600 share/costs/skylake.json >"$out/costs/cut"
cp tests/unit/golden/calibrate-show-core-json "$out/costs/core"
sed -e 's/"name": "/"_n": 1, "name": "\\u00e9\\ud83d\\ude00 /' share/costs/epyc-rome.json >"$out/costs/escapes"

# a boot's kernel log (kprotperf boot): initcalls, the tsc and init lines, one unpaired
printf '%s\n' '[    0.000000] Linux version 6.1.0-test' \
	'[    0.001000] tsc: Detected 2400.000 MHz processor' \
	'[    0.100000] calling  init_a+0x0/0x40 @ 1' \
	'[    0.100500] initcall init_a+0x0/0x40 returned 0 after 400 usecs' \
	'[    0.200000] calling  init_b+0x0/0x20 @ 1' \
	'[    0.300000] calling  init_c+0x0/0x10 @ 1' \
	'[    0.300002] initcall init_c+0x0/0x10 returned -19 after 2 usecs' \
	'[    0.500000] Run /init as init process' \
	'[    0.600000] kprotperf-boot: tsc 1800000000' \
	'[    1.500000] tsc: Refined TSC clocksource calibration: 2399.999 MHz' >"$out/boot_dmesg/boot"

# sweep plans (a first byte of 0) and a job file (1): the docs' plan, each kind of refusal
{ printf '\0'; cat docs/sweep/plan-6.1.txt; } >"$out/sweep_plan/docs"
n=0
for p in 'base: --set A=n\nx: --set A=y --append "a=1 b"\nnull:\n' ': --set A=y' \
	'base:\nx:\nx:' 'base: --set A=y --set A=n\nx:' "base: --append 'a=1\nx:" \
	'base: --kernel linux-image-amd64\nv: --version 6.12 --timeout 900\n'; do
	printf "\\0$p" >"$out/sweep_plan/p$((n++))"
done
printf '\1variant=x\nsetup=kernel-build.sh --set A=y\nops=null fork\nmodel=none\nstatus=ok\nreason=\nrepeat=5\nbuild_seconds=3\nboot_seconds=20\n' \
	>"$out/sweep_plan/job"

n=0
for p in allocate_slab 'new_*' $'*slab*\nshuffle_freelist' do_sys_open ext4_map_blocks \
	nomatch 'allocate_slb' '[a-z]*_slab' '?' 'only_clone'; do
	printf '%s\n' "$p" >"$out/funcmatch/p$((n++))"
done

python3 - "$out/sideband" <<'PY'
import struct, sys
d = sys.argv[1]
def rec(typ, misc, body, time):
    body += struct.pack('<Q', time)
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body
def name(s):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)
MMAP, COMM, EXIT, FORK, MMAP2 = 1, 3, 4, 7, 10
BUILD_ID, COMM_EXEC = 1 << 14, 1 << 13
bid = bytes(range(20))
mmap2_bid = struct.pack('<IIQQQBBH20sII', 100, 100, 0x400000, 0x1000, 0, 20, 0, 0, bid, 5, 2)
mmap2_ino = struct.pack('<IIQQQIIQQII', 100, 100, 0x7f0000, 0x2000, 0x1000, 8, 1, 42, 0, 5, 2)
recs = {
    'exec': rec(COMM, COMM_EXEC, struct.pack('<II', 100, 100) + name('big-fork'), 10)
            + rec(MMAP2, BUILD_ID, mmap2_bid + name('/usr/bin/big-fork'), 11)
            + rec(MMAP2, 0, mmap2_ino + name('/lib/x86_64-linux-gnu/libc.so.6'), 12),
    'fork': rec(FORK, 0, struct.pack('<IIIIQ', 101, 100, 101, 100, 20), 20)
            + rec(COMM, 0, struct.pack('<II', 101, 101) + name('child'), 21)
            + rec(EXIT, 0, struct.pack('<IIIIQ', 101, 100, 101, 100, 30), 30),
    'mmap': rec(MMAP, 0, struct.pack('<IIQQQ', 100, 100, 0x500000, 0x1000, 0) + name('[vdso]'), 40),
}
recs['all'] = recs['exec'] + recs['fork'] + recs['mmap']
for k, v in recs.items():
    open(f'{d}/{k}', 'wb').write(v)
PY

rm -f "$out/prog.c"
rm -rf "$dir" && mv "$out" "$dir"

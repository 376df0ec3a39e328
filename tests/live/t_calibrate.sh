#!/bin/bash
# kprotperf calibrate on this machine (~30 s): it writes the table to
# $XDG_CACHE_HOME/kprotperf/costs/native.json (a regular file, mode 0644,
# no temporary left), shows every one of the 27 costs with a source, the
# file reads back (--show, --show --json) and as `--costs native`; the
# measured figures are in the ranges any x86-64 machine gives (the clock
# 0.5-6 GHz, an L1 hit 2-8 cycles' worth of d1_miss below an L2 hit, the
# fences and calls finite); the constants say where they come from.  The
# core's 22 figures shown with a unit and method, each in a range that
# holds on a busy machine (each figure the fastest of repeats, so load
# only adds time; the ranges wide enough for a VM's nested page walks):
# load-to-use rising from L1 (2-8 cycles, any x86 since Nehalem is 4-5)
# to DRAM, over 40 cycles (~60 ns even at 0.7 GHz); a STLB hit 1-50; a
# mispredict 5-60 (its refill: 11-18 on current cores); a stream 0.2-64 bytes a cycle
# (one 64-byte line a cycle at most); the fast strings finite, DRAM's no
# faster than L1's; the rename registers between the sweep's ends (97-433:
# x86 cores since Nehalem have 100-300); a loop across two fetch blocks
# 0.8-4x its time within one (1 or 2 on the cores measured); a read through
# L2 0.2-16 cycles a line, no faster than the read from DRAM's (1 or 2 on
# current cores: 64 or 32 bytes a cycle); loads at random beyond L2 0.5
# cycles a line up to twice the last level's latency (at least one miss
# served at a time, a line shared with L2's hits counted); the scheduler
# 4-1024 operations waiting (reservation stations since Nehalem hold
# 36-200; a busy machine only slows the loads, lowering it); the stream
# through 4 KiB pages no faster than half the 2 MiB pages' (where THP is
# off both are 4 KiB), at most a DRAM latency a line slower (a crossing
# every 64 lines).
# Refused in one line, nothing written: the costs folder a symbolic link,
# a folder others can write, an operand, an unknown option.
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || skip "python3 is not installed"
export XDG_CACHE_HOME=$TMP/cache
dir=$XDG_CACHE_HOME/kprotperf/costs
"$KP" calibrate > "$TMP/out" 2> "$TMP/err" || fail "calibrate exited $?: $(tail -3 "$TMP/err")"
[ -f "$dir/native.json" ] && [ ! -L "$dir/native.json" ] || fail "no $dir/native.json"
[ "$(stat -c %a "$dir/native.json")" = 644 ] || fail "native.json mode $(stat -c %a "$dir/native.json")"
[ "$(ls "$dir")" = native.json ] || fail "left in $dir: $(ls "$dir")"
head -4 "$TMP/out" | grep -q "^# cost table: calibrated on .* (this machine) ($dir/native.json)$" ||
	fail "the table's header: $(head -1 "$TMP/out")"
[ "$(grep -c '^[a-z0-9_]* *[0-9.]*  [a-z]' "$TMP/out")" = 27 ] || fail "not 27 costs with a source: $(cat "$TMP/out")"
[ "$(grep -c '^core\.[a-z0-9_.]* *[0-9.]* [a-z/]* *\(measured: \|"$\)' "$TMP/out")" = 22 ] ||
	fail "not 22 core figures with a unit and method: $(cat "$TMP/out")"
"$KP" calibrate --show > "$TMP/show" || fail "calibrate --show"
cmp -s <(tail -n +2 "$TMP/out") <(tail -n +2 "$TMP/show") || fail "--show is not the table calibrate showed"
"$KP" calibrate --show --json > "$TMP/json" || fail "calibrate --show --json"
cmp -s "$TMP/json" "$dir/native.json" || fail "--show --json is not the file"
python3 - "$TMP/json" <<'PY' || fail "the figures measured"
import json, sys
d = json.load(open(sys.argv[1]))
c, s = d["costs"], d["sources"]
checks = [
    (0.5 <= d["ghz"] <= 6, "ghz"), (0.05 <= d["cpi"] <= 2, "cpi"),
    (2 <= c["d1_miss"] <= 60, "d1_miss"), (c["ll_miss"] >= 0 and c["dtlb_miss"] > 5, "ll/dtlb"),
    (c["mfence"] > c["sfence"], "mfence > sfence"), (c["retpoline"] > c["call_ind"], "retpoline > call_ind"),
    (all(v < 1e7 for v in c.values()), "finite"),
    (all(s[k].startswith("measured: ") for k in ("d1_miss", "ll_miss", "lfence", "verw", "iret", "retpoline")), "measured"),
    (all(s[k].startswith("constant ") for k in ("cr3_write", "wrmsr", "swapgs", "invlpg", "wbinvd")), "constants"),
]
def sysfs_kib(level):
    import glob
    best = 0
    for i in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            lv, ty, sz = (open(f"{i}/{f}").read().strip() for f in ("level", "type", "size"))
        except OSError:
            continue
        if ty != "Instruction" and (int(lv) == level or (level == 3 and int(lv) > 2)):
            best = max(best, int(sz[:-1]) * (1024 if sz.endswith("M") else 1) if sz[-1] in "KM" else int(sz) // 1024)
    return best
l2_kib, ll_kib = sysfs_kib(2) or 256, sysfs_kib(3)
k = d["core"]
u, t, r, m = k["load_to_use"], k["tlb"], k["rep_stosb_cycles_per_line"], k["rep_movsb_cycles_per_line"]
checks += [
    (2 <= u["l1"] <= 8 and u["l1"] < u["l2"] < u["ll"] < u["dram"], "load_to_use rising"),
    (u["l2"] <= 60 and 40 <= u["dram"] <= 5000, "load_to_use l2, dram"),
    (1 <= t["stlb_hit"] <= 50 and 0 <= t["walk_cached"] < 1e4 and 0 <= t["dram"] < 1e4, "tlb"),
    (5 <= k["mispredict"] <= 60, "mispredict"),
    (0.2 <= k["stream_bytes_per_cycle"] <= 64, "stream"),
    (abs(k["stream_bytes_per_cycle"] * k["stream_cycles_per_line"] - 64) < 1, "stream line"),
    (all(0 < x[l] < 1e4 for x in (r, m) for l in x) and r["dram"] >= r["l1"] and m["dram"] >= m["l1"], "rep"),
    (all(d["core_sources"][g].startswith("measured: ") for g in k), "core measured"),
    # at least L2's size (the fallback), at most sysfs's last level (or the default 8 MiB)
    (l2_kib <= k["ll_capacity"] <= max(ll_kib, 8192), "ll_capacity"),
    (97 <= k["rename_registers"] <= 433, "rename_registers"),
    (0.8 <= k["fetch_block_crossing"] <= 4, "fetch_block_crossing"),
    (0.2 <= k["l2_stream_cycles_per_line"] <= min(16, k["stream_cycles_per_line"]),
     "l2_stream_cycles_per_line"),
    (0.5 <= k["ll_random_cycles_per_line"] <= 2 * k["load_to_use"]["ll"], "ll_random_cycles_per_line"),
    (4 <= k["scheduler"] <= 1024, "scheduler"),
    (k["stream_cycles_per_line"] / 2 <= k["stream_4k_cycles_per_line"] <= k["stream_cycles_per_line"] + u["dram"],
     "stream_4k_cycles_per_line"),
    # a share of hits, absent when none was lost (or the set lies within L2)
    (0 < k.get("ll_lost", 1) <= 1e6, "ll_lost"),
]
bad = [w for ok, w in checks if not ok]
if bad:
    print("out of range:", bad, c, d["core"], file=sys.stderr)
    sys.exit(1)
PY

# expect CODE LINE CMD...: the exit code and stderr, one line, whole
expect() {
	local code=$1 line=$2 rc
	shift 2
	"$@" > "$TMP/o" 2> "$TMP/e" && rc=0 || rc=$?
	[ "$rc" = "$code" ] || fail "'$*' exited $rc, want $code: $(cat "$TMP/e")"
	[ "$(cat "$TMP/e")" = "$line" ] || fail "'$*' said '$(cat "$TMP/e")', want '$line'"
}
expect 2 "kprotperf calibrate: unexpected argument 'x' (see kprotperf calibrate --help)" "$KP" calibrate x
expect 2 "kprotperf calibrate: unknown option '--bogus' (see kprotperf calibrate --help)" "$KP" calibrate --bogus
mv "$dir" "$TMP/real"
ln -s "$TMP/real" "$dir"
expect 1 "kprotperf calibrate: cannot write into $dir: Not a directory (a link, another user's or a folder others can write are refused): give --out FILE" \
	"$KP" calibrate
rm "$dir" && mv "$TMP/real" "$dir" && chmod 0777 "$dir"
expect 1 "kprotperf calibrate: cannot write into $dir: Operation not permitted (a link, another user's or a folder others can write are refused): give --out FILE" \
	"$KP" calibrate
chmod 0755 "$dir"
"$KP" calibrate --out "$TMP/mine.json" --json > "$TMP/mine.out" 2> /dev/null || fail "calibrate --out --json"
cmp -s "$TMP/mine.out" "$TMP/mine.json" || fail "--json is not the file --out wrote"
echo "ok: calibrate"

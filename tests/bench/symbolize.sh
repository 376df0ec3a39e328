#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How fast does `kprotperf symbolize -f -i` turn kernel addresses into inline
# chains and source lines, next to `eu-addr2line -f -i`, on the Debian 6.1
# vmlinux with full DWARF (633 MB)?  Both read the same address list on
# stdin in one process: >= 20000 distinct addresses, a third and two thirds
# into every 4th function symbol of the kernel, so every part of .text and
# nearly every compilation unit is visited.  Wall time is the best of
# BENCH_RUNS (default 3) runs, max RSS that run's.  Then the time to open the
# vmlinux and answer one address from a fresh process, with the page cache
# warm and cold (the vmlinux evicted from it first), and how far the two
# outputs agree, address by address.
#
# perf report --inline is not measured: it symbolizes the samples of a
# perf.data, not a list of addresses.
#
# Exit: 0 when kprotperf is >= 3x faster than eu-addr2line, opens in < 1 s
# and agrees on >= 99% of the addresses (differences with a known cause
# count as agreeing and are listed); 1 otherwise; 77 when skipped (no
# cached vmlinux: `make test-vm` fetches it, or name one in KP_BENCH_VMLINUX).
# Results: build/bench/symbolize.tsv, both outputs symbolize.{kprotperf,eu}.out.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/build/bench
RUNS=${BENCH_RUNS:-3}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf/dbg
TIME=/usr/bin/time

skip() {
	echo "skipped: $*"
	exit 77
}

VMLINUX=${KP_BENCH_VMLINUX:-$(ls "$CACHE"/vmlinux-* 2>/dev/null | head -n1 || true)}
[ -n "$VMLINUX" ] && [ -s "$VMLINUX" ] ||
	skip "no vmlinux with DWARF in $CACHE (make test-vm fetches it; or set KP_BENCH_VMLINUX)"
[ -x ./kprotperf ] || skip "./kprotperf not built (make)"
for t in eu-addr2line nm python3 "$TIME"; do
	command -v "$t" >/dev/null || skip "$t not installed (scripts/install-deps.sh)"
done
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kp-bench-sym.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Every 4th sized function symbol, a third and two thirds in.
nm -n -S "$VMLINUX" | python3 -c '
import sys
seen, n = set(), 0
for line in sys.stdin:
    f = line.split()
    if len(f) != 4 or f[2] not in "tTwW":
        continue
    n += 1
    if n % 4:
        continue
    start, size = int(f[0], 16), int(f[1], 16)
    seen.update((start + size // 3, start + 2 * size // 3))
print("\n".join("0x%x" % a for a in sorted(seen)))
' >"$WORK/addrs"
NADDR=$(wc -l <"$WORK/addrs")
[ "$NADDR" -ge 20000 ] || {
	echo "bench: only $NADDR addresses from $VMLINUX's symbols, 20000 wanted" >&2
	exit 1
}

# best_of NAME CMD...: runs CMD RUNS times on the addresses; sets best_s, best_kb.
best_of() {
	local name=$1 i s kb
	shift
	best_s=
	for ((i = 0; i < RUNS; i++)); do
		"$TIME" -f '%e %M' -o "$WORK/time" "$@" <"$WORK/addrs" >"$WORK/$name.out"
		read -r s kb <"$WORK/time"
		if [ -z "$best_s" ] || python3 -c "import sys; sys.exit(not $s < $best_s)"; then
			best_s=$s
			best_kb=$kb
		fi
		echo "  $name run $((i + 1))/$RUNS: ${s} s, ${kb} KB max RSS" >&2
	done
}

echo "symbolize bench: $NADDR addresses, $VMLINUX" >&2
best_of kprotperf ./kprotperf symbolize -a -f -i --vmlinux "$VMLINUX"
KP_S=$best_s KP_KB=$best_kb
# --relative: file names as the DWARF has them, as kprotperf prints them
best_of eu eu-addr2line -a -f -i --relative -e "$VMLINUX"
EU_S=$best_s EU_KB=$best_kb

ONE=$(head -n1 "$WORK/addrs")
open_s=
for ((i = 0; i < 3; i++)); do
	"$TIME" -f '%e' -o "$WORK/time" ./kprotperf symbolize -f -i --vmlinux "$VMLINUX" "$ONE" >/dev/null
	s=$(cat "$WORK/time")
	if [ -z "$open_s" ] || python3 -c "import sys; sys.exit(not $s < $open_s)"; then
		open_s=$s
	fi
done
# cold: the vmlinux's pages evicted from the page cache first (that file's
# only, so the rest of the machine keeps its cache)
python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$VMLINUX"
"$TIME" -f '%e' -o "$WORK/time" ./kprotperf symbolize -f -i --vmlinux "$VMLINUX" "$ONE" >/dev/null
cold_s=$(cat "$WORK/time")

# Address by address: identical once eu's columns are dropped, or different
# for a known reason, or not.
python3 - "$WORK/kprotperf.out" "$WORK/eu.out" >"$WORK/agree" <<'EOF'
import re, sys

MAX_FRAMES = 8  # SYM_MAX_FRAMES in src/symbolize.h

def blocks(path):
    out, cur = {}, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if re.fullmatch(r"0x[0-9a-f]{16}", line):
            cur = out.setdefault(int(line, 16), [])
        else:
            line = re.sub(r"^(.*:\d+):\d+$", r"\1", line)
            cur.append(re.sub(r"(inlined at \S+:\d+):\d+ in ", r"\1 in ", line))
    return out

kp, eu = blocks(sys.argv[1]), blocks(sys.argv[2])
why = {"same": 0, "deeper": 0, "eu_short": 0, "alias": 0, "other": 0}
drop_in = lambda b: [re.sub(r" in \S+$", "", b[0])] + b[1:] if b else b
examples = []
for addr, e in eu.items():
    k = kp.get(addr, [])
    if k == e:
        why["same"] += 1
    # the innermost MAX_FRAMES - 1 frames and the function (2 lines a frame)
    elif len(k) == 2 * MAX_FRAMES and len(e) > len(k) and e[:len(k) - 2] == k[:-2] \
            and e[-2:] == k[-2:]:
        why["deeper"] += 1
    elif len(k) > len(e) >= 2 and k[:len(e)] == e:
        why["eu_short"] += 1
    elif drop_in(k) == drop_in(e):
        why["alias"] += 1
    else:
        why["other"] += 1
        if len(examples) < 5:
            examples.append("0x%x: kprotperf %s | eu %s" % (addr, k[:4], e[:4]))
print(len(eu), why["same"], why["deeper"], why["eu_short"], why["alias"], why["other"])
for x in examples:
    print(x)
EOF
read -r n same deeper eu_short alias other <"$WORK/agree"

pct() { python3 -c "print('%.2f' % (100.0 * $1 / $2))"; }
RATIO=$(python3 -c "print('%.2f' % ($EU_S / $KP_S))")
AGREE=$(pct $((same + deeper + eu_short + alias)) "$n")
printf 'tool\taddresses\tseconds\tmax_rss_kb\nkprotperf\t%s\t%s\t%s\neu-addr2line\t%s\t%s\t%s\n' \
	"$NADDR" "$KP_S" "$KP_KB" "$NADDR" "$EU_S" "$EU_KB" >"$OUT/symbolize.tsv"

echo
echo "addresses            $NADDR (every 4th function of $(basename "$VMLINUX"))"
printf '%-20s %8s s  %8s MB max RSS\n' "kprotperf symbolize" "$KP_S" $((KP_KB / 1024)) \
	"eu-addr2line" "$EU_S" $((EU_KB / 1024))
echo "speed-up             ${RATIO}x (eu-addr2line time / kprotperf time; wanted >= 3)"
echo "open + 1 address     ${open_s} s (page cache warm)"
echo "  cold               ${cold_s} s (the vmlinux evicted from the page cache; wanted < 1)"
echo "perf report --inline not applicable: it symbolizes a perf.data's samples, not an address list"
echo "agreement            ${AGREE}% of $n addresses (wanted >= 99)"
echo "  identical          $same ($(pct "$same" "$n")%)"
echo "  deeper than 8      $deeper: kprotperf keeps the innermost SYM_MAX_FRAMES - 1 frames and the function"
echo "  eu chain cut short $eu_short: eu-addr2line prints no outer frames (e.g. in .cold parts)"
echo "  alias              $alias: the symbol after \"inlined ... in\" is another name of the same address"
echo "  other              $other (e.g. overlapping inline ranges the two resolve differently)"
tail -n +2 "$WORK/agree" | sed 's/^/    /'
cp "$WORK/kprotperf.out" "$OUT/symbolize.kprotperf.out"
cp "$WORK/eu.out" "$OUT/symbolize.eu.out"

fail=0
python3 -c "import sys; sys.exit(not $RATIO >= 3)" || {
	echo "FAILED: speed-up ${RATIO}x < 3x"
	fail=1
}
python3 -c "import sys; sys.exit(not $cold_s < 1)" || {
	echo "FAILED: open takes $cold_s s"
	fail=1
}
python3 -c "import sys; sys.exit(not $AGREE >= 99)" || {
	echo "FAILED: only ${AGREE}% agree"
	fail=1
}
exit $fail

#!/bin/bash
# User inline frames from the workload's DWARF:
# 1. a -g -O2 program whose hot loop is an always_inline function: in folded
#    the heaviest user stack is main;kp_inl_caller;kp_inl_hot_[i], the same
#    line as --no-inline's with the inline frame added at the leaf, and
#    report's top user functions are kp_inl_caller then kp_inl_hot [inlined]
#    (no user function [inlined] with --no-inline); annotate -f kp_inl_hot
#    lists only the loop's lines (body, maybe for and return) of inl.c,
#    most SELF on the loop's body or for line, and annotate -f kp_inl_caller the same
#    rows INLINED kp_inl_hot plus, not inlined, only lines of its own;
# 2. --symfs: with an empty folder the heaviest stack has no kp_inl_hot_[i]
#    and annotate refuses in one line, with a folder holding a copy of the
#    binary at its path it has;
# 3. python3 built with -g (pyenv's, when there): with --call-graph dwarf the
#    median number of inline frames per stack is within 30% of perf's, on
#    the same run (kprotperf records perf, which records python3).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/lib/perfcmp.sh"
need_bpf
command -v cc > /dev/null || skip "no C compiler"
cd "$TMP"
cat > inl.c <<'EOS'
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long kp_inl_hot(unsigned long x)
{
	unsigned long i;

	for (i = 0; i < 100000; i++) /* KP_FOR */
		x = x * 6364136223846793005ul + 1442695040888963407ul; /* KP_BODY */
	return x; /* KP_RET */
}

static __attribute__((noinline)) void kp_inl_caller(double secs)
{
	struct timespec t0, t;
	unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x = kp_inl_hot(x);
		sink = x;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}

int main(int argc, char **argv)
{
	kp_inl_caller(atof(argv[1]));
	return 0;
}
EOS
cc -g -O2 -fno-omit-frame-pointer inl.c -o inl-burn || fail "cc exited $?"
# the function was inlined, and the DWARF says so
! nm inl-burn | grep -q kp_inl_hot || fail "kp_inl_hot has a symbol: not inlined"
"$KP" record -q -F 999 -o i.data -- ./inl-burn 2 > /dev/null || fail "record exited $?"

# heaviest FOLDED: the frames of the line with most samples
heaviest() { sort -t ' ' -k 2,2nr -k 1,1 "$1" | head -1 | sed -E 's/ [0-9]+$//'; }
"$KP" folded -U i.data > inl.folded || fail "folded exited $?"
"$KP" folded -U --no-inline i.data > noinl.folded || fail "folded --no-inline exited $?"
top=$(heaviest inl.folded)
plain=$(heaviest noinl.folded)
[[ $plain == inl-burn\;*\;main\;kp_inl_caller ]] ||
	fail "heaviest --no-inline stack: $plain"
[ "$top" = "$plain;kp_inl_hot_[i]" ] || fail "heaviest stack: $top (--no-inline: $plain)"
n=$(awk -v t="$top" '{c = $NF; sub(/ [0-9]+$/, ""); if ($0 == t) k = c; s += c}
	END {print (2 * k >= s) ? k : "only " k " of " s}' inl.folded)
[[ $n =~ ^[0-9]+$ ]] || fail "heaviest stack has $n samples"

names() {	# report --json ARGS: its first two user functions, how many are inlined
	"$KP" report --json "$@" i.data | python3 -c 'import json, sys
u = json.load(sys.stdin)["user_functions"]
print(";".join(f["name"] for f in u[:2]), sum(f["name"].endswith(" [inlined]") for f in u))'
}
r=$(names) || fail "report exited $?"
[ "${r% *}" = "kp_inl_caller;kp_inl_hot [inlined]" ] || fail "report's user functions: $r"
r=$(names --no-inline) || fail "report --no-inline exited $?"
[ "${r##* }" = 0 ] || fail "report --no-inline has inlined user functions: $r"
echo "folded: $top $n; report: kp_inl_caller, kp_inl_hot [inlined]"

# annotate's rows as "LINE SELF TOTAL INLINED", LINE without inl.c's path
at() { grep -n "$1" inl.c | cut -d: -f1; }
src=$(realpath inl.c)
rows() {	# annotate -f $1: its rows by line; a row of another file fails
	"$KP" annotate -f "$1" i.data > "ann.$1" || fail "annotate -f $1 exited $?"
	awk -v src="$src" '/^ *[0-9]+ +[0-9.]+% +[0-9]+  / {
		n = split($4, w, ":"); if (w[1] != src || n != 2) { print "BAD " $0; next }
		print w[2], $1, $3, $5 }' "ann.$1" | sort -n
}
mostself() { sort -k 2,2nr -k 1,1n <<< "$1" | head -1 | cut -d ' ' -f 1; }
hot=$(rows kp_inl_hot) && caller=$(rows kp_inl_caller) || exit 1
lines=$(cut -d ' ' -f 1 <<< "$hot" | paste -sd ' ')
# the loop's lines only; whether the for and return lines get a sample is up
# to where the CPU-clock timer lands (a busy run once gave the body all 1,500)
for l in $lines; do
	case $l in
	"$(at KP_FOR)" | "$(at KP_BODY)" | "$(at KP_RET)") ;;
	*) fail "annotate -f kp_inl_hot lines: $lines; rows: $hot" ;;
	esac
done
# most SELF on the loop's own lines, the body's or the for's: a CPU-clock
# sample lands on the instruction after the one the timer interrupted, so
# the multiply's line or the increment's takes most by the core's timing
# (a loaded host once gave the for 1,600 of 1,960)
loop="$(at KP_BODY) $(at KP_FOR)"
[[ " $loop " == *" $(mostself "$hot") "* ]] || fail "kp_inl_hot's most SELF: $hot"
# kp_inl_caller: its rows at kp_inl_hot's code are kp_inl_hot's own rows
inl=$(awk '$4 == "kp_inl_hot" {print $1, $2, $3}' <<< "$caller")
[ "$inl" = "$(awk '{print $1, $2, $3}' <<< "$hot")" ] ||
	fail "kp_inl_caller's rows inlined kp_inl_hot: $caller; kp_inl_hot's: $hot"
lo=$(at 'kp_inl_caller(double') hi=$(at '^int main')
awk -v lo="$lo" -v hi="$hi" 'NF == 3 && $1 > lo && $1 < hi || $4 == "kp_inl_hot" {next}
	{exit 1}' <<< "$caller" || fail "kp_inl_caller's rows, not its lines ($lo-$hi): $caller"
[ "$(mostself "$caller")" = "$(mostself "$hot")" ] || fail "kp_inl_caller's most SELF: $caller"
echo "annotate: kp_inl_hot and kp_inl_caller at lines $lines, most SELF at $(mostself "$hot") (loop: $loop)"

# the file is looked up under --symfs only: nothing there, no inline frame
mkdir empty sym
"$KP" folded -U --symfs empty i.data > empty.folded || fail "folded --symfs empty exited $?"
[ "$(heaviest empty.folded)" = "$plain" ] ||
	fail "heaviest stack with an empty --symfs: $(heaviest empty.folded)"
for f in kp_inl_hot kp_inl_caller; do
	"$KP" annotate --symfs empty -f $f i.data > ann.out 2> ann.err &&
		fail "annotate -f $f under an empty --symfs exited 0"
	want="kprotperf annotate: $f is neither a kernel function of i.data nor a user function"
	want+=" with DWARF (build it with -g, install its -dbg package, or give --symfs DIR"
	want+=" holding its files)"
	[ ! -s ann.out ] && [ "$(cat ann.err)" = "$want" ] ||
		fail "annotate -f $f under an empty --symfs: $(cat ann.out ann.err)"
done
bin=$(realpath inl-burn)	# as the kernel names the mapped file
mkdir -p "sym${bin%/*}"
cp inl-burn "sym$bin"
"$KP" folded -U --symfs sym i.data > sym.folded || fail "folded --symfs sym exited $?"
# only the binary is there: no inline frames of libc, whatever the host has
[ "$(heaviest sym.folded)" = "$plain;kp_inl_hot_[i]" ] ||
	fail "heaviest stack with --symfs sym: $(heaviest sym.folded)"
echo "--symfs: from an empty folder no kp_inl_hot_[i], annotate refused; found in a copy"

PY=/root/.pyenv/versions/3.11.7/bin/python3
[ -x "$PY" ] || skip "(python3 part) no pyenv python3 built with -g"
command -v perf > /dev/null || skip "(python3 part) perf not installed"
perf record -q -o /dev/null -- true 2> /dev/null || skip "(python3 part) perf cannot sample"
cat > busy.py <<'EOS'
import sys, time
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
end = time.time() + float(sys.argv[1])
d = {}
while time.time() < end:
    fib(18)
    for i in range(2000):
        d[str(i)] = [i, i * 2]
    d.clear()
EOS
"$KP" record -q -F 499 --call-graph dwarf -o p.data -- perf record -q -F 499 \
	--call-graph dwarf -o p.perf -- "$PY" busy.py 3 > out 2> err ||
	fail "record of perf record python3 exited $?: $(cat err)"
# inline frames per python3 sample: perf marks them "(inlined)", kprotperf _[i]
pi=$(perf script -i p.perf -F comm,ip,sym 2> /dev/null | awk '
	/^[^\t]/ { if (s == "python3") print n; s = $1; n = 0; next }
	/\(inlined\)$/ { n++ }
	END { if (s == "python3") print n }' | median)
"$KP" folded -U p.data > p.folded || fail "folded of python3 exited $?"
ki=$(awk '{c = $NF; sub(/ [0-9]+$/, ""); if (!index($0, "python3;")) next
	n = gsub(/_\[i\](;|$)/, "&"); for (i = 0; i < c; i++) print n}' p.folded | median)
[ -n "$pi" ] && [ "$pi" -gt 2 ] || fail "perf's median inline frames per stack: '$pi'"
[ $((ki * 10)) -ge $((pi * 7)) ] && [ $((ki * 10)) -le $((pi * 13)) ] ||
	fail "median inline frames per stack: kprotperf $ki, perf $pi"
echo "python3: median inline frames per stack $ki (perf $pi)"

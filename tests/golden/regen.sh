#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Makes the host recordings of tests/golden/data anew with this checkout's
# kprotperf (so they hold the current schema), rewrites expected/ from them
# and shows what changed, for a review of every change before committing.
# Needs root and BPF (perf_event, raw tracepoints).  The workloads run as
# ./NAME from a scratch folder, so that the recorded command does not name
# the checkout.  All four are recorded before any replaces its old copy.
#   regen.sh [--no-diff]: --no-diff shows the summary (git diff --stat) only
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
show_diff=true
[ "${1:-}" = --no-diff ] && show_diff=false
[ "$(id -u)" -eq 0 ] || { echo "regen.sh: recording needs root (BPF): run it as root" >&2; exit 1; }
nice make -C "$root" -s -j2 all
kp=$root/kprotperf
scratch=$(mktemp -d "$here/regen.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cp "$root/syscall-loop" "$root/cpu-burn" "$root/big-fork" "$scratch/"
cd "$scratch"
# one line per recording, as tests/golden/cases describes them
"$kp" record -q -F 499 -o sl.data -- ./syscall-loop 20000
"$kp" record -q -F 499 -o burn.data -- ./cpu-burn 1
"$kp" record -q -r 3 --count context-switches,task-clock -o bf-a.data -- ./big-fork 5
"$kp" record -q -r 3 --count context-switches,task-clock -o bf-b.data -- ./big-fork 5
# rename(2) within one file system: a reader sees the old file or the new one
for f in sl burn bf-a bf-b; do
	mv -f "$f.data" "$here/data/$f.data"
done
"$here/golden.sh" --update
cd "$root"
git --no-pager diff --stat -- tests/golden/data tests/golden/expected
$show_diff && git --no-pager diff -- tests/golden/expected
# the documentation quotes report's syscall rows of sl.data
echo "regen.sh: update the rows quoted from expected/report-sl in:" \
	"$(git grep -l 'kprotperf report tests/golden/data/sl.data' -- '*.md' | tr '\n' ' ')"

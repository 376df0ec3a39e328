#!/bin/bash
# The documentation against the program (tests/unit/docs_check.py says how):
# every kprotperf command line quoted in README.md and docs/ parses with its
# command's option table (kprotperf help --parse), every relative link and
# anchor resolves, every figure of docs/benchmarks.md names the script that
# made it, and README.md stays short.  First the check itself, on planted
# faults: its whole output must be the one expected, so that it cannot pass
# by finding nothing.
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
[ -x "$KP" ] || { echo "FAIL: no $KP (make)"; exit 1; }
CHECK=$PWD/tests/unit/docs_check.py
tmp=$(mktemp -d /tmp/kp-docs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/docs" "$tmp/tests/bench"
: > "$tmp/tests/bench/made.sh"
cat > "$tmp/docs/a.md" <<'MD'
# Planted faults

Fine: `kprotperf report --inline k.data`, `record --func NAME`, [b](b.md),
[up](#planted-faults), [b's](b.md#a-heading-with-code-and-x).
Bad: `report --inlines`, `kprotperf record --blocks`, `kprotperf reprot`,
[b](b.md#nope), [c](c.md), ![img](pic.svg).

```
sudo kprotperf record -F 99 --bogus -- ./big-fork 10 | tee log
KP_VM_ACCEL=icount nice -n 10 kprotperf diff \
    --vmlinux
scripts/vm-run.sh -- sh -c "big-fork 1; kprotperf record -q -x -- true"
kprotperf diff: BASE and HARDENED are the same recording   # a message, no command
kprotperf COMMAND --help
```

<!-- docs-check: usage-error -->
```
kprotperf report -n
kprotperf report -n 5
```
MD
cat > "$tmp/docs/b.md" <<'MD'
# B
## A heading with `code` and (x)
MD
cat > "$tmp/docs/benchmarks.md" <<'MD'
# Bench

## One

| a | b |
|---|---|

Measured 12.5 ms per run.

## Two

`tests/bench/made.sh` makes this, 3.5x faster:

| a | b |
|---|---|

## Three

Made by `tests/bench/missing.sh`: 2.0 s.
MD
expected='docs/a.md:5: report has no option --inlines: report --inlines
docs/a.md:5: kprotperf record: missing argument to '"'"'--blocks'"'"' (see kprotperf record --help): kprotperf record --blocks
docs/a.md:5: no command '"'"'reprot'"'"': kprotperf reprot
docs/a.md:6: link to b.md#nope: no such heading in docs/b.md
docs/a.md:6: link to c.md: no such file
docs/a.md:6: link to pic.svg: no such file
docs/a.md:9: kprotperf record: unknown option '"'"'--bogus'"'"' (see kprotperf record --help): kprotperf record -F 99 --bogus -- ./big-fork 10
docs/a.md:10: kprotperf diff: missing argument to '"'"'--vmlinux'"'"' (see kprotperf diff --help): kprotperf diff --vmlinux
docs/a.md:12: kprotperf record: unknown option '"'"'-x'"'"' (see kprotperf record --help): kprotperf record -q -x -- true
docs/a.md:20: marked as a usage error, but parses: kprotperf report -n 5
docs/benchmarks.md:5: a table whose section names no script that made it (tests/bench/X.sh) before it
docs/benchmarks.md:8: a measured figure whose section names no script that made it (tests/bench/X.sh)
docs/benchmarks.md:19: a measured figure whose section names no script that made it (tests/bench/X.sh)
docs: 3 files, 7 command lines, 13 faults'
got=$(cd "$tmp" && python3 "$CHECK" "$KP" docs)
rc=$?
if [ "$got" != "$expected" ] || [ "$rc" -ne 1 ]; then
	echo "FAIL: the check on planted faults (exit $rc), expected then got:"
	printf '%s\n----\n%s\n' "$expected" "$got"
	exit 1
fi

fail=0
python3 "$CHECK" "$KP" README.md docs || fail=1
lines=$(wc -l < README.md)
if [ "$lines" -gt 250 ]; then
	echo "README.md: $lines lines, over 250: move the detail to docs/"
	fail=1
fi
exit "$fail"

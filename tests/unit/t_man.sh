#!/bin/bash
# The man pages (make man: kprotperf help --scdoc, then scdoc) against
# --help: for every command, the options --help lists and those its page's
# OPTIONS section lists are the same, as are the examples; kprotperf(1)
# lists every command; every page renders without a warning from man; and
# kprotperf help refuses a command that does not exist.
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
MAN=${OUTPUT:-build}/man
command -v man > /dev/null || { echo "skipped: man (man-db) is not installed"; exit 77; }
# the pages of the binary under test (make test has made the plain build's)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s OUTPUT="${OUTPUT:-build}" BIN="$KP" man ||
	{ echo "FAIL: make man"; exit 1; }
exec python3 - "$KP" "$MAN" <<'PY'
import os, re, subprocess, sys

kp, mandir = sys.argv[1:]
env = dict(os.environ, MANWIDTH="250", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8")
bad = []

def run(*args):
    return subprocess.run(args, capture_output=True, text=True, env=env)

def section(text, name):
    """The lines of a rendered page's section NAME."""
    m = re.search(r"^%s\n(.*?)(?=^\S)" % re.escape(name), text, re.M | re.S)
    return m.group(1).splitlines() if m else []

def help_options(text):
    opts = set()
    for line in text.splitlines():
        m = re.match(r"^  (-\w), (--[\w-]+)|^      (--[\w-]+)", line)
        if m:
            opts.update(g for g in m.groups() if g)
    return opts

def man_options(lines):
    opts = set()
    for line in lines:
        m = re.match(r"^       (?:(-\w), )?(--[\w-]+)", line)
        if m:
            opts.update(g for g in m.groups() if g)
    return opts

def help_examples(text):
    block = text.split("\nExamples:\n")[1].split("\nExit status:")[0] if "\nExamples:\n" in text else ""
    return [l[2:] for l in block.splitlines() if re.match(r"^  \S", l)]

def man_examples(lines):
    return [l[7:] for l in lines if re.match(r"^       \S", l)]

cmds = run(kp, "help", "--list-cmds").stdout.split()
if len(cmds) < 9:
    bad.append(f"help --list-cmds: {cmds}")
for cmd in [""] + cmds:
    page = os.path.join(mandir, f"kprotperf-{cmd}.1" if cmd else "kprotperf.1")
    r = run("man", "--warnings", "-l", page)
    if r.returncode or r.stderr:
        bad.append(f"{page}: man --warnings: exit {r.returncode}: {r.stderr.strip()}")
    text = r.stdout
    if not cmd:
        listed = [re.sub(r"\(1\)$", "", l.strip()) for l in section(text, "COMMANDS") if re.match(r"^       kprotperf-", l)]
        if listed != [f"kprotperf-{c}" for c in cmds]:
            bad.append(f"kprotperf(1) COMMANDS: {listed}")
        continue
    h = run(kp, cmd, "--help").stdout
    ho, mo = help_options(h), man_options(section(text, "OPTIONS"))
    if not ho or ho != mo:
        bad.append(f"{cmd}: only in --help: {sorted(ho - mo)}; only in the man page: {sorted(mo - ho)}")
    he, me = help_examples(h), man_examples(section(text, "EXAMPLES"))
    if he != me:
        bad.append(f"{cmd}: examples differ: --help {he}, man {me}")
    if not section(text, "EXIT STATUS") or not section(text, "SYNOPSIS"):
        bad.append(f"{cmd}: no SYNOPSIS or EXIT STATUS section")

r = run(kp, "help", "nosuch")
want = "kprotperf help: no command 'nosuch' (commands: %s)\n" % " ".join(cmds)
if r.returncode != 2 or r.stderr != want or r.stdout:
    bad.append(f"help nosuch: exit {r.returncode}, stderr {r.stderr!r}")

for b in bad:
    print("FAIL:", b)
if bad:
    sys.exit(1)
print(f"{len(cmds) + 1} man pages render cleanly; each command's options and examples match its --help")
PY

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The documentation's check (tests/unit/t_docs.sh runs it).

    docs_check.py KPROTPERF PATH...

Reads each Markdown file given, or under each folder given, and prints one
line, FILE:LINE: what, per fault; exit status 1 when there is one:

- every kprotperf command line quoted (a line of a ``` block, lines joined
  at a trailing backslash, or an `inline code` span) parses with the
  command's option table: `kprotperf help --parse COMMAND ARGS...`, the
  binary's own getopt.  A command is found as the shell would run it: after
  sudo, env assignments, pipes, `;`, `&&`, inside sh -c "..." and after
  record's `--`; its words end at a pipe, `;`, `&`, a redirection or a
  comment; `$(...)` counts as one word; brackets of optional parts
  (`[--func NAME]`) are dropped.  A word after kprotperf that is a lower-case
  word but no command is a fault; one in upper case (CMD, COMMAND) or ending
  in ':' (a message quoted: "kprotperf diff: ...") is no command line.
- a ``` block that shows bad usage on purpose is marked on the line before
  it with <!-- docs-check: usage-error -->: each kprotperf command in it
  must then be refused (exit status 2), and is a fault when it parses.
- every relative link and image ([text](path), [text](path#anchor),
  [text](#anchor), [ref]: path) names a file or folder that exists, and an
  anchor a heading of that Markdown file (GitHub's anchors).
- every figure of a file named benchmarks.md names the script that made
  it: a table, or a paragraph with a measured number (digits and a unit),
  needs a path of an existing script (tests/.../X.sh, scripts/X.sh) earlier
  in its section (the text since the last heading).
"""
import os
import re
import shlex
import subprocess
import sys

MARK_BAD = "<!-- docs-check: usage-error -->"
FENCE = re.compile(r"^\s*(```|~~~)")
SCRIPT = re.compile(r"\b((?:tests|scripts)/[\w./-]*\.sh)\b")
# a measured number: digits and a unit of time, size, ratio or share
MEASURED = re.compile(
    r"\d(?:[\d,.]*\d)?\s?(?:ns|us|µs|ms|s|MB|KB|KiB|MiB|GB|x|×|%)(?![\w])")
PUNCT = set("();<>|&")


class Checker:
    def __init__(self, kp, root):
        self.kp = kp
        self.root = root
        self.faults = []
        self.commands = set(run([kp, "help", "--list-cmds"]).stdout.split())
        # each command's option spellings, for the short forms (`report --inline`)
        self.options = {c: set(w for w in run([kp, "help", "--list-opts", c]).stdout.split()
                               if w.startswith("-")) for c in self.commands}
        self.anchor_cache = {}
        self.parsed = 0

    def fault(self, path, line, what):
        self.faults.append(f"{os.path.relpath(path, self.root)}:{line}: {what}")

    # -- command lines -----------------------------------------------------

    def parse(self, path, line, sub, args, expect_bad):
        self.parsed += 1
        r = run([self.kp, "help", "--parse", sub] + args)
        shown = " ".join(["kprotperf", sub] + args)
        if expect_bad and r.returncode != 2:
            self.fault(path, line, f"marked as a usage error, but parses: {shown}")
        elif not expect_bad and r.returncode != 0:
            why = r.stderr.strip().splitlines()
            self.fault(path, line, f"{why[-1] if why else 'exit %d' % r.returncode}: {shown}")

    def short_form(self, path, line, text):
        """A span naming a command without kprotperf (`record --func NAME`): its options."""
        tokens = words(text)
        if len(tokens) < 2 or tokens[0] not in self.commands:
            return
        for w in tokens[1:]:
            if set(w) <= PUNCT:
                break
            w = w.strip("[]").split("=")[0]
            if re.fullmatch(r"--?[A-Za-z][\w-]*", w) and w not in self.options[tokens[0]]:
                self.fault(path, line, f"{tokens[0]} has no option {w}: {text}")

    def command_lines(self, path, line, text, expect_bad):
        """Each kprotperf command in one shell line of text."""
        if not re.search(r"kprotperf\s+\S", text):
            return
        text = re.sub(r"\$\([^()]*\)|`[^`]*`", "SUBST", text)
        tokens = words(text)
        for tok in tokens:
            if " " in tok and "kprotperf" in tok:  # sh -c "...": a line of its own
                self.command_lines(path, line, tok, expect_bad)
        for i in command_starts(tokens):
            tok = tokens[i]
            if tok != "kprotperf" and not tok.endswith("/kprotperf"):
                continue
            rest = tokens[i + 1:]
            if not rest or set(rest[0]) <= PUNCT:
                continue
            sub = rest[0]
            if sub in self.commands:
                args = []
                for w in rest[1:]:
                    if set(w) <= PUNCT:
                        break
                    w = w.strip("[]")
                    if w:
                        args.append(w)
                self.parse(path, line, sub, args, expect_bad)
            elif sub in ("--help", "-h", "--version", "version"):
                continue
            elif sub.startswith("-") or re.fullmatch(r"[a-z][a-z0-9_-]*", sub):
                self.fault(path, line, f"no command '{sub}': kprotperf {sub}")

    # -- links -------------------------------------------------------------

    def anchors(self, md):
        if md not in self.anchor_cache:
            seen, found = {}, set()
            for _, text in headings(md):
                slug = github_slug(text)
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                found.add(slug if n == 0 else f"{slug}-{n}")
            self.anchor_cache[md] = found
        return self.anchor_cache[md]

    def link(self, path, line, target):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:
            return
        file, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(dest):
            self.fault(path, line, f"link to {target}: no such file")
        elif anchor and dest.endswith(".md") and anchor not in self.anchors(dest):
            self.fault(path, line, f"link to {target}: no such heading in "
                       f"{os.path.relpath(dest, self.root)}")

    # -- one file ----------------------------------------------------------

    def check(self, path):
        lines = open(path, encoding="utf-8").read().split("\n")
        fence = None
        marked = expect_bad = False
        pending, start, para = "", 0, []
        for n, raw in enumerate(lines, 1):
            if fence:
                if FENCE.match(raw) and raw.strip().startswith(fence):
                    fence = None
                    continue
                if not pending:
                    start = n
                if raw.rstrip().endswith("\\"):
                    pending += raw.rstrip()[:-1] + " "
                    continue
                self.command_lines(path, start, pending + raw, expect_bad)
                pending = ""
                continue
            m = FENCE.match(raw)
            if m or not raw.strip() or raw.startswith("#"):
                self.prose(path, para)
                para = []
            if m:
                fence, expect_bad, marked = m.group(1), marked, False
                continue
            marked = raw.strip() == MARK_BAD or (marked and not raw.strip())
            para.append((n, raw))
        self.prose(path, para)
        if os.path.basename(path) == "benchmarks.md":
            self.figures(path, lines)

    def prose(self, path, para):
        """A paragraph's code spans (which may run over a line's end) and links."""
        if not para:
            return
        first = para[0][0]
        text = re.sub(r"<!--.*?-->", "", "\n".join(raw for _, raw in para), flags=re.S)
        for m in re.finditer(r"(`+)(.+?)\1", text, re.S):
            line = first + text.count("\n", 0, m.start())
            span = m.group(2).replace("\n", " ").strip()
            self.command_lines(path, line, span, False)
            self.short_form(path, line, span)
        text = re.sub(r"(`+)(.+?)\1", lambda m: "\n" * m.group(0).count("\n"), text,
                      flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
            self.link(path, first + text.count("\n", 0, m.start()), m.group(1))
        for m in re.finditer(r"^\s*\[[^\]]+\]:\s*(\S+)", text, re.M):
            self.link(path, first + text.count("\n", 0, m.start()), m.group(1))

    def figures(self, path, lines):
        """Each table and measured paragraph after a script's name, in its section."""
        named, fence, in_table, para = False, False, False, []

        def paragraph_done():
            text = " ".join(t for _, t in para)
            if para and MEASURED.search(text) and not named_in(text):
                self.fault(path, para[0][0], "a measured figure whose section names no "
                           "script that made it (tests/bench/X.sh)")
            para.clear()

        def named_in(text):
            return any(os.path.isfile(os.path.join(self.root, s))
                       for s in SCRIPT.findall(text)) or named

        for n, raw in enumerate(lines, 1):
            if FENCE.match(raw):
                fence = not fence
                continue
            if fence:
                continue
            if raw.startswith("#"):
                paragraph_done()
                named = False
                continue
            if raw.lstrip().startswith("|"):
                if not in_table:
                    paragraph_done()
                    if not named:
                        self.fault(path, n, "a table whose section names no script "
                                   "that made it (tests/bench/X.sh) before it")
                in_table = True
                continue
            in_table = False
            if not raw.strip():
                paragraph_done()
                continue
            para.append((n, raw))
            if any(os.path.isfile(os.path.join(self.root, s)) for s in SCRIPT.findall(raw)):
                named = True
        paragraph_done()


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def words(text):
    """text split as the shell splits it, operators apart (unbalanced quotes: not quoting)."""
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    try:
        return list(lex)
    except ValueError:
        return re.findall(r"[();<>|&]+|[^\s();<>|&]+", text)


# words that run the command after them: sudo kprotperf, nice -n 10 kprotperf
WRAPPERS = {"$", "sudo", "env", "nice", "exec", "time", "command", "nohup", "timeout"}


def command_starts(tokens):
    """Indexes of the words in command position: first, after ( | ; & (not after a
    redirection or a closing parenthesis), a wrapper with its options and numbers,
    a VAR=value or a wrapper's -- (record -- CMD, vm-run.sh ... -- CMD)."""
    start, wrapped = True, False
    for i, tok in enumerate(tokens):
        if set(tok) <= PUNCT:
            start, wrapped = set(tok) <= set("(;|&"), False
        elif tok == "--":
            start, wrapped = True, False
        elif start and (tok in WRAPPERS or re.fullmatch(r"\w+=\S*", tok)):
            wrapped = True
        elif start and wrapped and (tok.startswith("-") or tok.isdigit()):
            continue
        elif start:
            yield i
            start = wrapped = False


def headings(md):
    fence = False
    for n, raw in enumerate(open(md, encoding="utf-8").read().split("\n"), 1):
        if FENCE.match(raw):
            fence = not fence
        elif not fence:
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", raw)
            if m:
                yield n, m.group(1)


def github_slug(text):
    """A heading's anchor as GitHub makes it: its text, lower case, punctuation out, blanks -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return "".join(c for c in text if c.isalnum() or c in " -_").replace(" ", "-")


def markdown_files(paths):
    for p in paths:
        if os.path.isdir(p):
            for d, _, files in sorted(os.walk(p)):
                yield from (os.path.join(d, f) for f in sorted(files) if f.endswith(".md"))
        else:
            yield p


def main():
    kp, paths = sys.argv[1], sys.argv[2:]
    checker = Checker(kp, os.getcwd())
    files = list(markdown_files(paths))
    for f in files:
        checker.check(f)
    for f in checker.faults:
        print(f)
    print(f"docs: {len(files)} files, {checker.parsed} command lines, "
          f"{len(checker.faults)} faults")
    return 1 if checker.faults else 0


if __name__ == "__main__":
    sys.exit(main())

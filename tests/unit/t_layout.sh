#!/bin/bash
# The layout docs/developing.md describes, checked: each folder of src/ includes only
# its own headers and those of folders below it, no two files include each
# other (directly or around a loop), no two .c files call each other (a
# function or table of one used by the other, directly or around a loop), no
# file name is in two folders, each .c includes its own header before
# anything else, SQL and sqlite3 appear only in src/data/ and only
# src/data/ includes its SQL machinery (data/query.h), no source file has
# over 800 lines and no function over 80.
# runs no kprotperf
cd "$(dirname "$0")/../.." || exit 1
exec python3 - <<'PY'
import collections, glob, os, re, sys

# lower rank: depended on; a folder may include its own or lower-ranked
# folders, and never a different folder of the same rank
RANK = {"util": 0, "data": 1, "system": 1, "symbols": 2, "analysis": 3, "features": 4,
        "datatype": 4, "record": 5, "report": 5, "diff": 5, "model": 5, "explore": 6, "boot": 6,
        "sweep": 7, "calibrate": 6, "cmd": 8}
bad = []

def folder(path):
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else "main"

files = sorted(glob.glob("src/**/*.[ch]", recursive=True))
graph = {}
for f in files:
    src = open(f).read()
    incs = re.findall(r'^#include "([a-z_]+/[a-z_]+\.h)"', src, re.M)
    graph[f] = ["src/" + i for i in incs]
    a = folder(f)
    for i in incs:
        b = i.split("/")[0]
        if b == a:
            continue
        if a != "main" and (b not in RANK or RANK[b] >= RANK.get(a, 9)):
            bad.append(f"{f}: includes {i} ({a}/ must not depend on {b}/)")
    if folder(f) != "data" and re.search(r'sqlite3|"\s*(SELECT|INSERT|CREATE|UPDATE|DELETE)\b', src):
        bad.append(f"{f}: SQL or sqlite3 outside src/data/")
    if folder(f) != "data" and "data/query.h" in incs:
        bad.append(f"{f}: includes data/query.h (data/'s SQL machinery) outside src/data/")

# a name says what a file holds wherever it is: one folder per name (x.c and x.h one name)
where = collections.defaultdict(set)
for f in files:
    where[os.path.basename(f)[:-2]].add(os.path.dirname(f))
for name, dirs in sorted(where.items()):
    if len(dirs) > 1:
        bad.append(f"{name}.[ch] in {len(dirs)} folders: {', '.join(sorted(dirs))} (name them for what they hold)")

# the cycles of a graph {node: {node: why}}, each once, as "a -> b -> a"
def cycles(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out

def loop(comp, edges):
    # one loop through the component's first node, shortest by breadth-first search
    start, inside = comp[0], set(comp)
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while prev[path[-1]]:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in inside and w not in prev:
                prev[w] = v
                todo.append(w)

# a header's own .c is the same unit: a cycle is a loop between units
def unit(p):
    return p[:-2]
edges = {}
for f, incs in graph.items():
    edges.setdefault(unit(f), {}).update((unit(i), None) for i in incs if unit(i) != unit(f))
for comp in cycles(edges):
    bad.append("include cycle: " + " -> ".join(loop(comp, edges)))

# What each .c defines for others (functions and objects at column 0, not
# static) and what it uses of theirs: the identifiers it names, comments and
# strings aside, less those it defines itself.
def code(src):
    def blank(m):
        t = m.group(0)
        return re.sub(r"[^\n]", " ", t) if t.startswith("/") else '""'
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, src,
                  flags=re.S)

cfiles = [f for f in files if f.endswith(".c")]
text, shared, own = {}, {}, collections.defaultdict(set)
for f in cfiles:
    text[f] = code(open(f).read())
    lines = text[f].split("\n")
    for n, l in enumerate(lines):
        if not l or l[0] in " \t#{}" or l.startswith("typedef") or \
           re.match(r"(struct|enum|union)( \w+)? \{", l):
            continue
        m = re.match(r"[^=(;]*?\b([A-Za-z_]\w*)\s*([(\[=])", l)
        if not m or l.startswith("extern"):
            continue
        if m.group(2) == "(":  # a function's definition has its "{" line before any ";"
            k = n
            while k < len(lines) and lines[k] != "{" and not lines[k].rstrip().endswith(";"):
                k += 1
            if k == len(lines) or lines[k] != "{":
                continue
        own[f].add(m.group(1))
        if not l.startswith("static"):
            shared.setdefault(m.group(1), f)
uses = {}
for f in cfiles:
    uses[f] = collections.defaultdict(list)
    for name in sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text[f])) - own[f]):
        g = shared.get(name)
        if g and g != f:
            uses[f][g].append(name)
for comp in cycles(uses):
    path = loop(comp, uses)
    why = ", ".join(f"{a} uses {' '.join(uses[a][b][:3])}" for a, b in zip(path, path[1:]))
    bad.append("file circle: " + " -> ".join(path) + f" ({why})")

# a .c includes its own header before anything else, so that each header
# is seen to stand alone: its namesake, else the header of its folder that
# declares what it defines
for f in cfiles:
    if folder(f) == "main":
        continue
    m = re.search(r'^#include ["<]([^">]+)[">]', open(f).read(), re.M)
    first = m.group(1) if m else None
    mine = f[len("src/"):-2] + ".h"
    if os.path.exists("src/" + mine):
        if first != mine:
            bad.append(f"{f}: includes {first} before its own header, {mine}")
        continue
    names = [n for n, g in shared.items() if g == f]
    ok = first and os.path.dirname(first) == folder(f) and os.path.exists("src/" + first) and \
        any(re.search(r"\b%s\b" % n, open("src/" + first).read()) for n in names)
    if names and not ok:
        bad.append(f"{f}: its first include, {first}, is not the header of its folder declaring"
                   f" what it defines ({names[0]}, ...)")

for f in files + glob.glob("bpf/*.[ch]") + glob.glob("include/*.h"):
    lines = open(f).read().split("\n")
    if len(lines) - 1 > 800:
        bad.append(f"{f}: {len(lines) - 1} lines (over 800)")
    for n, l in enumerate(lines):
        if l == "{":
            end = lines.index("}", n)
            if end - n + 1 > 80:
                bad.append(f"{f}:{n}: a function of {end - n + 1} lines (over 80)")

for b in bad:
    print("layout:", b)
print(f"layout: {len(files)} files, {len(bad)} problems")
sys.exit(1 if bad else 0)
PY

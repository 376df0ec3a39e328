#!/bin/bash
# The layout README.md describes, checked: each folder of src/ includes only
# its own headers and those of folders below it, no two files include each
# other (directly or around a loop), SQL and sqlite3 appear only in
# src/data/ and only src/data/ includes its SQL machinery (data/query.h), no
# source file has over 800 lines and no function over 80.
cd "$(dirname "$0")/../.." || exit 1
exec python3 - <<'PY'
import glob, re, sys

# lower rank: depended on; a folder may include its own or lower-ranked
# folders, and never a different folder of the same rank
RANK = {"util": 0, "data": 1, "system": 1, "symbols": 2, "analysis": 3, "features": 4, "record": 5, "report": 5, "diff": 5,
        "model": 5, "explore": 6, "boot": 6, "cmd": 7}
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

# a header's own .c is the same unit: a cycle is a loop between units
def unit(p):
    return p[:-2]
edges = {}
for f, incs in graph.items():
    edges.setdefault(unit(f), set()).update(unit(i) for i in incs if unit(i) != unit(f))
state = {}
def visit(u, path):
    state[u] = 1
    for v in sorted(edges.get(u, ())):
        if state.get(v) == 1:
            bad.append("include cycle: " + " -> ".join(path[path.index(v):] + [v]))
        elif v not in state:
            visit(v, path + [v])
    state[u] = 2
for u in sorted(edges):
    if u not in state:
        visit(u, [u])

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

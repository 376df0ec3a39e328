#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A core description (share/cores/NAME.json, docs/model.md "Core
descriptions") checked and turned into the machine model plugin's
arguments for mode=timing, one line on stdout:

    core_args.py FILE|NAME COSTS_DIR CORES_DIR

A core file is untrusted input: a regular file of at most 64 KiB, strict
JSON of the one format ("kprotperf_core": 1), every field known and
present, every number a whole number within bounds, every cache and TLB
size a power of two, every number with its source.  A bad one is refused
in one line naming the field, exit 1.  Its event costs (CPUID, WRMSR...)
come from the cost table it names ("costs"), the one est_cycles uses for
that CPU, so that the two models charge the same constants.
"""
import json
import os
import re
import stat
import sys

LIMIT = 64 << 10
# every number's bounds, as the plugin takes them
NUMBERS = {
    "core": {"width": (1, 16), "window": (1, 4096), "mshrs": (1, 256), "mispredict": (0, 1000),
             "lq": (0, 4096), "sq": (0, 4096)},
    "latency": {"l1": (1, 100), "l2": (1, 200), "ll": (1, 1000), "dram": (1, 10000),
                "stlb": (0, 1000), "walk": (0, 10000), "string_uops": (1, 4096),
                "dram_line": (0, 10000)},
    "predictor": {"cond": (1, 1 << 24), "hist": (0, 64), "btb": (1, 1 << 24),
                  "btb_assoc": (1, 64), "ras": (1, 1024)},
    "prefetch": {"next_line": (0, 1), "stride_entries": (0, 4096), "stride_distance": (0, 64),
                 "streams": (0, 64), "stream_distance": (0, 64), "stream_degree": (0, 16)},
}
POW2 = {("predictor", "cond"), ("predictor", "btb"), ("predictor", "btb_assoc")}
SIZES = {"caches": ("i1", "d1", "l2", "ll"), "tlbs": ("itlb", "dtlb", "stlb")}
PLUGIN_KEY = {"core": "core", "latency": "lat", "predictor": "bp", "prefetch": "pf"}
# the cost table's keys charged as fixed costs, by the plugin's event names
EVENTS = {"cr3_write": "mov_cr3", "lfence": "lfence", "mfence": "mfence", "sfence": "sfence",
          "cpuid": "cpuid", "wrmsr": "wrmsr", "rdmsr": "rdmsr", "verw": "verw", "iret": "iret",
          "sysret": "sysret", "swapgs": "swapgs", "mov_cr": "mov_cr", "invlpg": "invlpg",
          "invpcid": "invpcid", "wbinvd": "wbinvd", "lxdt": "lxdt"}


class Bad(Exception):
    pass


def load(path, what):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise Bad(f"{path}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Bad(f"{path}: not a regular file")
        text = f.read(LIMIT + 1)
    if len(text) > LIMIT:
        raise Bad(f"{path}: larger than any {what} (64 KiB)")

    def no_dup(pairs):
        keys = [k for k, _ in pairs]
        for k in keys:
            if keys.count(k) > 1:
                raise Bad(f"{path}: \"{k}\" given twice")
        return dict(pairs)
    try:
        return json.loads(text.decode("utf-8"), object_pairs_hook=no_dup)
    except (UnicodeDecodeError, ValueError) as e:
        raise Bad(f"{path}: not JSON: {e}") from None


def whole(v, lo, hi, name):
    if type(v) is not int or not lo <= v <= hi:
        raise Bad(f"{name}: {json.dumps(v)}: want a whole number from {lo} to {hi}")
    return v


def size(v, name, parts):
    if not isinstance(v, str) or not re.fullmatch(r"\d+(:\d+){%d}" % (parts - 1), v):
        form = "SIZE:ASSOC:LINE" if parts == 3 else "ENTRIES:ASSOC"
        raise Bad(f"{name}: {json.dumps(v)}: want \"{form}\"")
    for n in map(int, v.split(":")):
        if n <= 0 or n & (n - 1):
            raise Bad(f"{name}: {v}: {n} is not a power of two")
    return v


def group(d, key, names):
    g = d.get(key)
    if not isinstance(g, dict):
        raise Bad(f"{key}: missing (an object)")
    for k in g:
        if k not in names:
            raise Bad(f"{key}.{k}: no such field")
    for k in names:
        if k not in g:
            raise Bad(f"{key}.{k}: missing")
    return g


def check(d):
    if not isinstance(d, dict) or d.get("kprotperf_core") != 1:
        hint = " (it is a cost table: give it to --costs)" if isinstance(d, dict) and "kprotperf_costs" in d else ""
        raise Bad(f"not a core description: no \"kprotperf_core\": 1{hint}")
    known = {"kprotperf_core", "name", "cpu", "costs", "sources", *NUMBERS, *SIZES}
    for k in d:
        if k not in known and not k.startswith("_"):
            raise Bad(f"{k}: no such field")
    for k in ("name", "costs"):
        if not isinstance(d.get(k), str) or not re.fullmatch(r"[\w .,()+-]{1,80}", d[k]):
            raise Bad(f"{k}: missing or not a short name")
    if not re.fullmatch(r"[\w-]+", d["costs"]):
        raise Bad(f"costs: {json.dumps(d['costs'])}: want a cost table's name (share/costs/NAME.json)")
    src = d.get("sources")
    if not isinstance(src, dict):
        raise Bad("sources: missing (an object)")
    args = []
    for key, fields in NUMBERS.items():
        g = group(d, key, fields)
        for f, (lo, hi) in fields.items():
            v = whole(g[f], lo, hi, f"{key}.{f}")
            if (key, f) in POW2 and v & (v - 1):
                raise Bad(f"{key}.{f}: {v} is not a power of two")
            args.append(f"{PLUGIN_KEY[key]}.{f}={v}")
    pred = d["predictor"]
    if 1 << pred["hist"] > pred["cond"]:
        raise Bad(f"predictor.hist: {pred['hist']} bits index more than the {pred['cond']} counters of predictor.cond")
    for key, fields in SIZES.items():
        group(d, key, fields)
    for key, fields in [*NUMBERS.items(), *SIZES.items()]:
        for f in fields:
            if not isinstance(src.get(f"{key}.{f}"), str) or not src[f"{key}.{f}"].strip():
                raise Bad(f"sources.{key}.{f}: missing: every number says where it comes from")
    return args


def geometry(d):
    c, t = d["caches"], d["tlbs"]
    for k in SIZES["caches"]:
        size(c[k], f"caches.{k}", 3)
    for k in SIZES["tlbs"]:
        size(t[k], f"tlbs.{k}", 2)
    return [f"geom={c['i1']}/{c['d1']}/{c['ll']}/{t['itlb']}/{t['dtlb']}",
            f"l2={c['l2']}", f"stlb={t['stlb']}"]


def events(costs_dir, name):
    table = load(os.path.join(costs_dir, name + ".json"), "cost table")
    costs = table.get("costs") if isinstance(table, dict) else None
    if not isinstance(costs, dict):
        raise Bad(f"costs: {name}: not a cost table")
    return [f"ev.{ev}={whole(costs.get(k), 0, 1000000, f'costs {name}: {k}')}"
            for k, ev in EVENTS.items()]


def main(argv):
    if len(argv) != 4:
        print("usage: core_args.py FILE|NAME COSTS_DIR CORES_DIR", file=sys.stderr)
        return 2
    spec, costs_dir, cores_dir = argv[1:]
    path = spec if "/" in spec or spec.endswith(".json") else os.path.join(cores_dir, spec + ".json")
    try:
        if "/" not in spec and not spec.endswith(".json") and not os.path.exists(path):
            names = sorted(f[:-5] for f in os.listdir(cores_dir) if f.endswith(".json"))
            raise Bad(f"no core named {spec}: the shipped ones are {', '.join(names)}")
        d = load(path, "core description")
        try:
            args = check(d) + geometry(d)
        except Bad as e:
            raise Bad(f"{path}: {e}") from None
        args += events(costs_dir, d["costs"])
    except Bad as e:
        print(e, file=sys.stderr)
        return 1
    name = os.path.basename(path)[:-5] if path.endswith(".json") else os.path.basename(path)
    print(",".join([f"core={re.sub(r'[^A-Za-z0-9_.-]', '_', name)}"] + args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

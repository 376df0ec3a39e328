#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A core description (share/cores/NAME.json, docs/model.md "Core
descriptions") checked and turned into the machine model plugin's
arguments for mode=timing, one line on stdout:

    core_args.py FILE|NAME|native COSTS_DIR CORES_DIR

A cost table that kprotperf calibrate wrote with the core's figures (its
"core" object) is taken too, and so is `native`, the one it saves
(${XDG_CACHE_HOME:-~/.cache}/kprotperf/costs/native.json): the shipped
description nearest its CPU, with the latencies, the walk, the
mispredict penalty, the memory channel, the fast strings, the rename
registers and the fetch block it measured, and its own event costs.

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
    "core": {"width": (1, 16), "window": (1, 4096), "mshrs": (1, 256), "l2_mshrs": (0, 256),
             "mispredict": (0, 1000), "lq": (0, 4096), "sq": (0, 4096), "prf": (0, 4096),
             "sched": (0, 4096), "walkers": (0, 64), "fetch_block": (0, 4096),
             "alus": (0, 64)},
    "latency": {"l1": (1, 100), "l2": (1, 200), "ll": (1, 1000), "dram": (1, 10000),
                "stlb": (0, 1000), "walk": (0, 10000), "string_uops": (1, 4096),
                "dram_line": (0, 10000), "dram_wline": (0, 10000), "page_cross": (0, 10000),
                "l1_fill": (0, 1000), "ll_lost": (0, 1000000), "ll_queue": (0, 100000)},
    "predictor": {"cond": (1, 1 << 24), "hist": (0, 64), "btb": (1, 1 << 24),
                  "btb_assoc": (1, 64), "ras": (1, 1024), "loop": (0, 1 << 16)},
    "prefetch": {"next_line": (0, 2), "stride_entries": (0, 4096), "stride_distance": (0, 64),
                 "streams": (0, 64), "stream_distance": (0, 64), "stream_degree": (0, 16),
                 "next_page": (0, 1)},
}
POW2 = {("core", "fetch_block"), ("predictor", "cond"), ("predictor", "btb"), ("predictor", "btb_assoc"),
        ("predictor", "ras"), ("predictor", "loop")}
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
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Bad(f"{path}: not a regular file")
        text = os.read(fd, LIMIT + 1)
    finally:
        os.close(fd)
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
    if not isinstance(d.get("name"), str) or not re.fullmatch(r"[\w .,()+-]{1,80}", d["name"]):
        raise Bad("name: missing or not a short name")
    if not isinstance(d.get("costs"), str) or not re.fullmatch(r"[\w-]{1,40}", d["costs"]):
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
    if d["latency"]["ll_queue"] and not d["core"]["l2_mshrs"]:
        raise Bad(f"latency.ll_queue: {d['latency']['ll_queue']} needs core.l2_mshrs, whose buffers count the misses in flight")
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


def table_events(table, name):
    costs = table.get("costs") if isinstance(table, dict) else None
    if not isinstance(costs, dict):
        raise Bad(f"costs: {name}: not a cost table")
    # calibrate's costs are fractional cycles
    return [f"ev.{ev}={whole(round(costs.get(k)) if isinstance(costs.get(k), float) else costs.get(k), 0, 1000000, f'costs {name}: {k}')}"
            for k, ev in EVENTS.items()]


def events(costs_dir, name):
    return table_events(load(os.path.join(costs_dir, name + ".json"), "cost table"), name)


def nearest(cpu):
    """the shipped description nearest a calibrated table's CPU"""
    if not isinstance(cpu, dict):
        return "epyc-milan"
    if cpu.get("vendor") == "GenuineIntel":
        return "cascadelake" if cpu.get("model") in (85, 106, 143, 207) else "skylake"
    if cpu.get("family") == 25 and isinstance(cpu.get("model"), int) and cpu["model"] >= 0x10:
        return "epyc-genoa"  # Zen 4: models 10h-1Fh, 60h-7Fh, A0h-AFh; Zen 3 below
    return {23: "epyc-rome", 26: "epyc-turin"}.get(cpu.get("family"), "epyc-milan")


def measured(table, path, cores_dir):
    """a description from a calibrated table: (the description, its name)"""
    core = table.get("core")
    if not isinstance(core, dict):
        raise Bad(f"{path}: a cost table without the core's figures: run kprotperf calibrate (it measures them)")
    base = nearest(table.get("cpu"))
    d = load(os.path.join(cores_dir, base + ".json"), "core description")
    try:
        lu, tlb = core["load_to_use"], core["tlb"]
        lat = d["latency"]
        for k in ("l1", "l2", "ll", "dram"):
            lat[k] = round(lu[k])
        lat["stlb"] = round(tlb["stlb_hit"])
        # calibrate's tlb.dram is what a TLB miss adds to a load going to
        # memory, the case a walk's cost weighs in; on that chase the model
        # adds the STLB's and the load of the page's entry, from LL (its
        # entries, 512 KiB, are not kept in L2 by the lines streaming
        # through).  Under a hypervisor that miss is the host's side of the
        # translation too (load_to_use.dram's chase keeps its translation in
        # the TLB), which a walk then carries, as the model charges it: on
        # an STLB miss, a walker held.  Not walk_cached: its chase, of one
        # line a page, swings with the host's other tenants (70-1,100 cycles
        # on this project's hosts; docs/model.md, "Which walk the timing
        # model takes")
        lat["walk"] = max(0, round(tlb["dram"] - tlb["stlb_hit"] - lu["ll"]))
        lat["dram_line"] = round(core["stream_cycles_per_line"])
        # a line written back: what a fast string's page takes a line through
        # memory (no read for ownership there), the channel's write rate
        lat["dram_wline"] = round(core["rep_stosb_cycles_per_line"]["dram"])
        lat["string_uops"] = max(1, round(core["rep_stosb_cycles_per_line"]["l1"] * d["core"]["width"]))
        d["core"]["mispredict"] = round(core["mispredict"])
        # the rename registers, when calibrate measured them (a table written
        # before them keeps the description's)
        if core.get("rename_registers"):
            d["core"]["prf"] = round(core["rename_registers"])
            d["sources"]["core.prf"] = f"kprotperf calibrate: {path}"
        # a read through half of L2, a load a line: the rate L1's fill path
        # takes lines from L2 (a table calibrated before it keeps the
        # description's)
        if core.get("l2_stream_cycles_per_line"):
            lat["l1_fill"] = max(1, round(core["l2_stream_cycles_per_line"]))
            d["sources"]["latency.l1_fill"] = f"kprotperf calibrate: {path}"
        # independent loads beyond L2, as many in flight as L1's buffers
        # let: the last level's latency grows with the misses it serves at
        # once, from load_to_use.ll's for one to what their rate makes of
        # it with all of them (docs/model.md, "The last level under load";
        # a table calibrated before it keeps the description's bound)
        if core.get("ll_random_cycles_per_line"):
            n = d["core"]["mshrs"]
            queue = (n * core["ll_random_cycles_per_line"] - lu["ll"]) / (n - 1) if n > 1 else 0
            d["core"]["l2_mshrs"] = n
            lat["ll_queue"] = max(0, round(100 * queue))
            d["sources"]["core.l2_mshrs"] = f"kprotperf calibrate: {path} (L1's buffers: core.mshrs)"
            d["sources"]["latency.ll_queue"] = f"kprotperf calibrate: {path}"
        # the share of last-level hits a tenant finds gone to DRAM (a table
        # calibrated before it keeps the description's)
        if core.get("ll_lost"):
            lat["ll_lost"] = round(core["ll_lost"])
            d["sources"]["latency.ll_lost"] = f"kprotperf calibrate: {path}"
        # the operations waiting for their operands at once (a table
        # calibrated before it keeps the description's)
        if core.get("scheduler"):
            d["core"]["sched"] = round(core["scheduler"])
            d["sources"]["core.sched"] = f"kprotperf calibrate: {path}"
        # what leaving a 4 KiB page cost the stream: its 64 lines' cycles
        # over the 2 MiB pages' (a table calibrated before it keeps the
        # description's)
        if core.get("stream_4k_cycles_per_line"):
            lat["page_cross"] = max(0, round(64 * (core["stream_4k_cycles_per_line"]
                                                   - core["stream_cycles_per_line"])))
            d["sources"]["latency.page_cross"] = f"kprotperf calibrate: {path}"
        # whether a loop across two 64-byte blocks took two cycles an
        # iteration: the description's block (64 where it has none), else
        # no bound (a front end that takes two blocks a cycle)
        if core.get("fetch_block_crossing"):
            d["core"]["fetch_block"] = (d["core"]["fetch_block"] or 64) \
                if core["fetch_block_crossing"] >= 1.5 else 0
            d["sources"]["core.fetch_block"] = f"kprotperf calibrate: {path}"
    except (KeyError, TypeError) as e:
        raise Bad(f"{path}: the core's figures lack {e}: run kprotperf calibrate again") from None
    for k in ("latency.l1", "latency.l2", "latency.ll", "latency.dram", "latency.stlb", "latency.walk",
              "latency.dram_line", "latency.dram_wline", "latency.string_uops", "core.mispredict"):
        d["sources"][k] = f"kprotperf calibrate: {path}"
    d["name"] = f"{d['name']}, calibrated"
    return d, base + "+calibrated"


def describe(spec, costs_dir, cores_dir):
    """the checked plugin arguments of spec, and its name"""
    native = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                          "kprotperf", "costs", "native.json")
    path = native if spec == "native" else \
        spec if "/" in spec or spec.endswith(".json") else os.path.join(cores_dir, spec + ".json")
    if spec == "native" and not os.path.exists(path):
        raise Bad(f"no {path}: run kprotperf calibrate (it measures this machine)")
    if path != native and "/" not in spec and not spec.endswith(".json") and not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(cores_dir) if f.endswith(".json"))
        raise Bad(f"no core named {spec}: the shipped ones are {', '.join(names)}, or native")
    d = load(path, "core description")
    name = os.path.basename(path)[:-5] if path.endswith(".json") else os.path.basename(path)
    costs = None
    if isinstance(d, dict) and "kprotperf_costs" in d and "kprotperf_core" not in d:
        costs, (d, name) = d, measured(d, path, cores_dir)
    try:
        args = check(d) + geometry(d)
    except Bad as e:
        raise Bad(f"{path}: {e}") from None
    if costs is not None:
        args += table_events(costs, path)
    else:
        args += events(costs_dir, d["costs"])
    return args, name


def main(argv):
    if len(argv) != 4:
        print("usage: core_args.py FILE|NAME COSTS_DIR CORES_DIR", file=sys.stderr)
        return 2
    try:
        args, name = describe(*argv[1:])
    except Bad as e:
        print(e, file=sys.stderr)
        return 1
    print(",".join([f"core={re.sub(r'[^A-Za-z0-9_.+-]', '_', name)}"] + args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

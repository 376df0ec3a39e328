#!/bin/bash
# kprotperf features --vmlinux BASE --vmlinux HARDENED on two builds
# (scripts/kernel-build.sh, no boot: the vmlinux files as linked) that
# differ in CONFIG_ZERO_CALL_USED_REGS alone: zbase and zcur, kernels
# without what only the VM and a userland need (tests/vm/kernels.sh says
# why).  The inventories differ in zero_call_used_regs alone: most
# functions zero their call-used registers before returning on the hardened
# side, next to none on the base side (timespec64_add_safe returns a
# tv_nsec of 0 in %rdx: xor %edx,%edx; ret), and the tinyconfig-based
# builds have no other compiler-inserted protection.  And the text, the
# functions' code without the fill between them, grows by the sites' xors
# give or take what the flag changes besides (docs/features.md says what:
# jumps the xors put out of a short jump's reach, return values' xor
# %eax,%eax counted in the sites): within 10% of them.  (Debian builds no
# kernel with ZERO_CALL_USED_REGS, so the pair is built; the boots of
# t_compiler_inventory.sh need no build.)
# kernels: zbase zcur
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_need_host_test
KB=$(vm_kbuild zbase)
KZ=$(vm_kbuild zcur)
[ -f "$KB/vmlinux" ] && [ -f "$KZ/vmlinux" ] || fail "the builds left no vmlinux: $KB $KZ"
"$KP" features --json --vmlinux "$KB/vmlinux" --vmlinux "$KZ/vmlinux" >"$TMP/pair.json" ||
	fail "features --vmlinux --vmlinux exited $?"
"$KP" features --vmlinux "$KB/vmlinux" --vmlinux "$KZ/vmlinux" | sed 's/^/    /'
python3 - "$TMP/pair.json" <<'PY' || fail "the inventory diff does not show ZERO_CALL_USED_REGS"
import json, sys
p = json.load(open(sys.argv[1]))
f = {x["feature"]: x for x in p["features"]}
z = f["zero_call_used_regs"]
b, h = p["base"], p["hardened"]
# every function that returns zeroes its registers: most of the kernel's
assert z["base_sites"] < z["hardened_sites"] / 1000 and z["hardened_functions"] > h["functions"] / 2, (z, h)
assert all(x["change"] == 0 for k, x in f.items() if k != "zero_call_used_regs"), f
text, xors = h["text_bytes"] - b["text_bytes"], h["zeroing_bytes"] - b["zeroing_bytes"]
assert xors > 0 and abs(text - xors) <= xors / 10, (b, h)
print("config pair: zero_call_used_regs %d -> %d sites in %d of %d functions; text %d -> %d"
      " bytes, %+d, the xors %+d (%+.1f%%)"
      % (z["base_sites"], z["hardened_sites"], z["hardened_functions"], h["functions"],
         b["text_bytes"], h["text_bytes"], text, xors, 100.0 * (text - xors) / xors))
PY

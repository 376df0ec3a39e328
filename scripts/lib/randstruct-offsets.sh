#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The offsets the code of a build by GCC's randstruct plugin uses for the
# members of the structures it may shuffle: the plugin leaves a randomized
# struct's declared layout in the DWARF (docs/features.md, "Structure
# layouts"), so they are asked of the compiler itself, as the kernel's
# asm-offsets.c does: a file of offsetof()s compiled as kernel/fork.c was
# (its flags, the plugin and the seed), each constant read back from the
# assembly.  Bitfields (no offsetof) and a structure whose file fails to
# compile are left out.
# Then a line "STRUCT * *" for each structure the source marks
# __randomize_layout whose offsets were not asked: the data view counts its
# accesses as the whole object's rather than name members by the DWARF.
#   randstruct-offsets.sh WORK VMLINUX: lines "STRUCT MEMBER OFFSET" on stdout
set -euo pipefail
WORK=$1 VMLINUX=$2
STRUCTS="task_struct mm_struct vm_area_struct file inode dentry super_block cred
	signal_struct sighand_struct files_struct fs_struct nsproxy pid"
cmd=$(sed -n 's/^\(saved\)\{0,1\}cmd_kernel\/fork\.o := //p' "$WORK/kernel/.fork.o.cmd")
[ -n "$cmd" ] || { echo "randstruct-offsets.sh: no compile command in $WORK/kernel/.fork.o.cmd" >&2; exit 1; }
TMPD=$(mktemp -d /tmp/kp-rsoff.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMPD"' EXIT
# the command as kbuild ran it, writing assembly of our file instead
cmd=${cmd/-Wp,-MMD,kernel\/.fork.o.d /}
cmd="${cmd% -c -o *} -S -o $TMPD/o.s $TMPD/o.c"

# members: pahole's view, one name a line (anonymous structs' members by
# their own names, as offsetof takes them); bitfields and unnamed left out
members() {
	pahole -C "$1" "$VMLINUX" 2>/dev/null |
		sed -E '/;[[:space:]]*\/\*/!d; /:[0-9]+;/d; s/;.*//; s/ __attribute__\(\(.*\)\)//g;
			s/.*\(\*([A-Za-z_][A-Za-z0-9_]*)\).*/\1/; s/(\[[^]]*\])+[[:space:]]*$//;
			s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*$/\1/' |
		grep -E '^[A-Za-z_][A-Za-z0-9_]*$' || true
}

# the file of offsetof()s of struct $1 for the members "${names[@]}"
write_c() {
	printf '#include <linux/sched.h>\n#include <linux/sched/signal.h>\n#include <linux/mm_types.h>\n'
	printf '#include <linux/fs.h>\n#include <linux/dcache.h>\n#include <linux/cred.h>\n'
	printf '#include <linux/fdtable.h>\n#include <linux/fs_struct.h>\n#include <linux/nsproxy.h>\n'
	printf '#include <linux/pid.h>\n#include <linux/stddef.h>\n'
	printf '#define M(s, m) asm volatile("\\n.ascii \\"->" #s " " #m " %%c0\\"" : : "i"(offsetof(struct s, m)))\n'
	printf 'void kp_randstruct_offsets(void);\nvoid kp_randstruct_offsets(void)\n{\n'
	printf "\tM($1, %s);\n" "${names[@]}"
	printf '}\n'
}

for s in $STRUCTS; do
	mapfile -t names < <(members "$s")
	# a member of a named member's anonymous type (vm_area_struct's shared.rb)
	# is not the struct's own: what gcc says it lacks is left out, once
	for try in 1 2; do
		[ ${#names[@]} -gt 0 ] || continue 2
		write_c "$s" >"$TMPD/o.c"
		(cd "$WORK" && eval "$cmd") 2>"$TMPD/err" && break
		[ "$try" = 1 ] || continue 2
		mapfile -t names < <(printf '%s\n' "${names[@]}" |
			grep -vxFf <(sed -nE "s/.*has no member named .([A-Za-z_0-9]+).*/\1/p" "$TMPD/err"))
	done
	sed -nE 's/.*\.ascii "->([A-Za-z_0-9]+) ([A-Za-z_0-9]+) \$?([0-9]+)".*/\1 \2 \3/p' "$TMPD/o.s"
done

# the other marked structures (the definition's closing line carries the
# mark; task_struct's marked fields are asked above), from the build
# tree's link to its source
asked=" $STRUCTS "
grep -rl --include='*.[ch]' -e '__randomize_layout' "$WORK/source/" 2>/dev/null |
	xargs -r awk '/^(struct|union) [A-Za-z_0-9]+ *\{/ { n = $2 }
		/^\}.*__randomize_layout/ { if (n) print n }' | sort -u |
	while read -r s; do
		[[ $asked == *[[:space:]]${s}[[:space:]]* ]] || echo "$s * *"
	done

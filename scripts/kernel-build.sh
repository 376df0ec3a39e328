#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds a small bootable kernel for kprotperf's VM (scripts/vm-run.sh, the
# vm test tier) from Debian's linux-source-<version> package or a source
# tree of your own, with options changed on top: two builds that differ in one
# option are a baseline/hardened pair.  Run with --help for the options.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${KP_KBUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf/kbuild}
PROG=kernel-build

usage() {
	cat <<'EOF'
usage: scripts/kernel-build.sh [--version 6.1|6.12] [--src DIR] [--set OPT=VALUE]...
                               [--cmdline WORDS] [--randstruct-seed HEX] [-o DIR]
                               [-j N] [--check] [-q]

Builds a small kernel for kprotperf's VM: tinyconfig, plus what kprotperf
needs (scripts/kconfig/kprotperf.config: serial console, virtio and 9p,
BPF + JIT, BTF, kprobes, fprobe, ftrace syscalls, perf events, IKCONFIG,
DWARF 5, SLUB with freelist randomization), plus your --set options.

  --version V      Debian's linux-source-V package (default 6.1; 6.12 too)
  --src DIR        a kernel source tree of your own instead (kept clean: the
                   build is out of tree)
  --set OPT=VALUE  change a config option on top (repeatable), with or
                   without CONFIG_: --set SLAB_FREELIST_RANDOM=n
                   VALUE: y, n, m, a number or a "string"
  --cmdline WORDS  kernel command-line parameters the kernel will boot with:
                   each must be one this version documents (Documentation/
                   admin-guide/kernel-parameters.txt), else it is refused
  --randstruct-seed HEX
                   with --set RANDSTRUCT_FULL=y or RANDSTRUCT_PERFORMANCE=y
                   (built with GCC plugins: gcc-12-plugin-dev): the seed
                   that lays the structures out, 64 hex digits, instead of
                   kprotperf's fixed default (the kernel's own draws one at
                   random); kept in the manifest and, as CONFIG_BUILD_SALT,
                   in the kernel's config, which a recording's provenance
                   shows
  -o DIR           also put the result in DIR (made, or replaced when it
                   holds an earlier kernel-build result)
  -j N             parallel jobs (default: the number of CPUs)
  --check          configure and check the options, print the config's
                   cache key, build nothing (in a tree of its own: it does
                   not wait for a build running)
  -q               no progress line

Refuses, before building, an option that this version does not have or that
olddefconfig drops (it names the unmet dependency).  Results are cached by
source version + final .config in $KP_KBUILD_CACHE (default
~/.cache/kprotperf/kbuild): the same request never builds twice, and one
build tree per source is kept, so toggling one option rebuilds only what it
changes.  The last line on stdout is the result folder: bzImage, vmlinux
(with DWARF and BTF, unless your --set options drop them: --set
DEBUG_INFO_NONE=y --set DEBUG_INFO_DWARF5=n --set DEBUG_INFO_BTF=n compiles
each file about a third faster), System.map, .config and manifest (release, source version,
options changed).
EOF
}

die() {
	[ -z "${PROGRESS_ON:-}" ] || printf '\n' >&2
	echo "$PROG: $*" >&2
	exit 1
}
say() { $QUIET || echo "$PROG: $*" >&2; }

VERSION=6.1 SRC_DIR= OUT= JOBS=$(nproc) CHECK=false QUIET=false CMDLINE= RANDSTRUCT_SEED=
SETS=()
while [ $# -gt 0 ]; do
	case $1 in
	--version) [ $# -ge 2 ] || die "--version needs a value (6.1 or 6.12)"; VERSION=$2; shift ;;
	--src) [ $# -ge 2 ] || die "--src needs a directory"; SRC_DIR=$2; shift ;;
	--set) [ $# -ge 2 ] || die "--set needs OPT=VALUE"; SETS+=("$2"); shift ;;
	--cmdline) [ $# -ge 2 ] || die "--cmdline needs the parameters"; CMDLINE=$2; shift ;;
	--randstruct-seed) [ $# -ge 2 ] || die "--randstruct-seed needs 64 hex digits"; RANDSTRUCT_SEED=$2; shift ;;
	-o | --output) [ $# -ge 2 ] || die "-o needs a directory"; OUT=$2; shift ;;
	-j) [ $# -ge 2 ] || die "-j needs a number"; JOBS=$2; shift ;;
	--check) CHECK=true ;;
	-q) QUIET=true ;;
	-h | --help) usage; exit 0 ;;
	*) echo "$PROG: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "-j $JOBS: want a positive number"

# shellcheck source=scripts/lib/kbuild.sh
. "$ROOT/scripts/lib/kbuild.sh"

# a mistyped --set is refused before the machine's tools are looked at
kb_parse_sets
kb_parse_randstruct
kb_need_tools
kb_source
kb_check_sets
kb_check_cmdline
if ! kb_remembered; then
	kb_configure
	kb_remember
fi
if $CHECK; then
	echo "$KEY"
	exit 0
fi
kb_build_cached
kb_output

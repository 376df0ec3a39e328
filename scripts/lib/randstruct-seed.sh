#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Stands in for the kernel's scripts/gen-randstruct-seed.sh, which draws
# RANDSTRUCT's seed from /dev/urandom: kernel-build.sh names a copy of this
# as make's gen-randstruct-seed (a command-line variable beats
# scripts/basic/Makefile's assignment and reaches every sub-make), so that
# the seed is KP_RANDSTRUCT_SEED and a build's layouts can be made again.
# $1: the seed file, $2: the hash header, written as the kernel's script
# writes them.
set -eu
SEED=${KP_RANDSTRUCT_SEED:?kernel-build.sh sets KP_RANDSTRUCT_SEED}
echo "$SEED" >"$1"
HASH=$(printf '%s' "$SEED" | sha256sum | cut -d" " -f1)
echo "#define RANDSTRUCT_HASHED_SEED \"$HASH\"" >"$2"

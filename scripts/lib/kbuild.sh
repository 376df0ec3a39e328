# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The steps of scripts/kernel-build.sh, which sets VERSION, SRC_DIR, SETS,
# OUT, JOBS, QUIET, CACHE, ROOT and die/say before sourcing this.
#
# Cache ($CACHE):
#   src/<srcid>/     Debian's source, unpacked once (never written to again)
#   work/<srcid>/    the one out-of-tree build directory of that source: every
#                    request reconfigures it, so make rebuilds only what the
#                    options changed since the last build
#   out/<key>/       finished results, key = sha256(source id + final .config);
#                    made under a temporary name and renamed when complete, so
#                    a failed or interrupted build leaves nothing to trust
#   requests/<id>    the key a request's .config had: id = sha256 of what the
#                    .config follows from (source, fragments, --set options,
#                    these scripts, the compiler, binutils and pahole), so
#                    that a request made before needs no configuring

KCONFIG_DIR=$ROOT/scripts/kconfig
# shellcheck source=scripts/lib/stop.sh
. "$ROOT/scripts/lib/stop.sh"

kb_need_tools() {
	local t missing=()
	for t in make gcc flex bison bc pahole xz sha256sum; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] ||
		die "missing ${missing[*]}: run scripts/install-deps.sh (packages make gcc flex bison bc dwarves xz-utils)"
	# Kconfig drops GCC_PLUGINS without a word when the headers are missing
	! $RANDSTRUCT || [ -e "$(gcc -print-file-name=plugin)/include/plugin-version.h" ] ||
		die "RANDSTRUCT is built by a GCC plugin and gcc's plugin headers are missing: run scripts/install-deps.sh (package gcc-$(gcc -dumpversion | cut -d. -f1)-plugin-dev)"
}

# SET_NAMES/SET_VALUES from --set, names without CONFIG_; needs nothing of
# the machine or the source, so kernel-build.sh runs it first.
kb_parse_sets() {
	local s name value
	SET_NAMES=() SET_VALUES=()
	for s in "${SETS[@]}"; do
		name=${s%%=*} value=${s#*=}
		name=${name#CONFIG_}
		# A newline would end the .config line early: scripts/config writes it
		# as given and only olddefconfig stumbled on it.  The patterns below do
		# not stop it (bash's =~ has ^ and $ match at the string's ends only,
		# and [^\"] matches a newline), and the message must stay one line.
		[[ $s != *[[:cntrl:]]* ]] ||
			die "--set ${name%%[[:cntrl:]]*}: a newline or another control character in it: a config option is one line"
		[[ $s == *=* ]] || die "--set $s: want OPT=VALUE, e.g. --set SLAB_FREELIST_RANDOM=n"
		[[ $name =~ ^[A-Za-z0-9_]+$ ]] || die "--set $s: '$name' is not a config option name"
		[[ $value =~ ^(y|n|m|-?[0-9]+|0x[0-9a-fA-F]+|\"[^\"]*\")$ ]] ||
			die "--set $s: value '$value' is not y, n, m, a number or a \"string\""
		SET_NAMES+=("$name") SET_VALUES+=("$value")
	done
}

# RANDSTRUCT's seed (kernel-build.sh --randstruct-seed): a constant unless
# given, so that two builds of one config lay their structures out alike.
KB_RANDSTRUCT_SEED=6b70726f74706572662072616e64737472756374207365656420303030303031

# RANDSTRUCT (true when --set asks for a randomized layout) and
# RANDSTRUCT_SEED checked; needs nothing of the machine or the source.
kb_parse_randstruct() {
	local i n=0
	RANDSTRUCT=false
	for i in "${!SET_NAMES[@]}"; do
		case ${SET_NAMES[$i]}=${SET_VALUES[$i]} in
		RANDSTRUCT_FULL=y | RANDSTRUCT_PERFORMANCE=y) RANDSTRUCT=true n=$((n + 1)) ;;
		BUILD_SALT=*) KB_SALT_SET=1 ;;
		esac
	done
	[ "$n" -le 1 ] || die "--set RANDSTRUCT_FULL=y and RANDSTRUCT_PERFORMANCE=y: one of them (a Kconfig choice)"
	if ! $RANDSTRUCT; then
		[ -z "$RANDSTRUCT_SEED" ] ||
			die "--randstruct-seed: no --set RANDSTRUCT_FULL=y or RANDSTRUCT_PERFORMANCE=y: the seed would lay nothing out"
		return 0
	fi
	[ -z "${KB_SALT_SET:-}" ] ||
		die "--set BUILD_SALT: with RANDSTRUCT kernel-build.sh keeps the seed there (the kernel's config shows it): leave it out"
	[[ ${RANDSTRUCT_SEED:=$KB_RANDSTRUCT_SEED} =~ ^[0-9a-fA-F]{64}$ ]] ||
		die "--randstruct-seed $RANDSTRUCT_SEED: want 64 hex digits (256 bits, as the kernel's gen-randstruct-seed.sh makes)"
	RANDSTRUCT_SEED=${RANDSTRUCT_SEED,,}
}

# SRC (the tree), SRCID (names it in the cache), SRC_DESC (for the manifest).
kb_source() {
	if [ -n "$SRC_DIR" ]; then
		kb_source_own
	else
		kb_source_debian
	fi
	KVERSION=$(make -s -C "$SRC" kernelversion 2>/dev/null) ||
		die "$SRC: 'make kernelversion' failed: is it a kernel source tree?"
}

kb_source_debian() {
	local pkg=linux-source-$VERSION tarball pkgver tmp
	[[ $VERSION =~ ^[0-9]+\.[0-9]+$ ]] || die "--version $VERSION: want a version such as 6.1 or 6.12"
	tarball=/usr/src/linux-source-$VERSION.tar.xz
	pkgver=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$pkg" 2>/dev/null || true)
	[[ $pkgver == installed\ * && -f $tarball ]] ||
		die "$pkg is not installed: run scripts/install-deps.sh (or apt-get install $pkg), or give --src DIR"
	pkgver=${pkgver#installed }
	SRCID=${pkg}_$pkgver
	SRC_DESC="$pkg $pkgver"
	SRC=$CACHE/src/$SRCID/linux-source-$VERSION
	[ -f "$CACHE/src/$SRCID/.complete" ] && return
	say "unpacking $tarball"
	mkdir -p "$CACHE/src"
	rm -rf "$CACHE/src/$SRCID"
	tmp=$(mktemp -d "$CACHE/src/.unpack.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" || { rm -rf "$tmp"; die "cannot unpack $tarball into $CACHE/src (disk full?)"; }
	touch "$tmp/.complete"
	mv "$tmp" "$CACHE/src/$SRCID"
}

# A tree of the user's: its state (git commit and uncommitted changes, or the
# newest file time) is part of the cache key, so an edit is never served an
# old build.
kb_source_own() {
	local state
	[ -f "$SRC_DIR/Makefile" ] && [ -f "$SRC_DIR/Kconfig" ] ||
		die "--src $SRC_DIR: not a kernel source tree (no Makefile and Kconfig)"
	SRC=$(cd "$SRC_DIR" && pwd)
	[ ! -e "$SRC/.config" ] && [ ! -e "$SRC/include/config" ] ||
		die "--src $SRC has been configured in place; the build is out of tree: run 'make mrproper' there first"
	if git -C "$SRC" rev-parse --verify -q HEAD >/dev/null 2>&1; then
		state="git $(git -C "$SRC" rev-parse HEAD) $(git -C "$SRC" diff HEAD | sha256sum | cut -c1-16)"
	else
		state="mtime $(find "$SRC" -type f -printf '%T@\n' | sort -n | tail -1)"
	fi
	SRCID=own-$(printf '%s' "$SRC" | sha256sum | cut -c1-16)
	SRC_DESC="$SRC ($state)"
}

# Each word of --cmdline must name a parameter this version documents:
# the kernel hands one it does not know to init without a word, and a
# misspelt protection would measure nothing.
kb_check_cmdline() {
	local doc=$SRC/Documentation/admin-guide/kernel-parameters.txt w key
	[ -n "$CMDLINE" ] || return 0
	[[ $CMDLINE != *[[:cntrl:]]* ]] || die "--cmdline: a control character in it: the parameters are one line"
	[ -f "$doc" ] || die "--cmdline: $doc is missing: the parameters cannot be checked"
	for w in $CMDLINE; do
		key=${w%%=*}
		[[ $key =~ ^[A-Za-z0-9_.-]+$ ]] || die "--cmdline $w: '$key' is not a parameter name"
		grep -qE "^"$'\t'"${key//./\\.}(=|\\[|[[:space:]]|\$)" "$doc" ||
			die "--cmdline $w: linux $KVERSION documents no parameter $key (Documentation/admin-guide/kernel-parameters.txt): check its spelling (the kernel hands a parameter it does not know to init)"
	done
}

# The first line CMD... prints, its output read whole: under pipefail,
# `CMD | head -1` fails when head exits before CMD has written everything.
kb_first_line() {
	local out
	out=$("$@") || return
	printf '%s\n' "${out%%$'\n'*}"
}

# What the final .config follows from: the source, the fragments, the
# --set options, these scripts and the tools whose versions Kconfig reads
# (the compiler's, the linker's, pahole's).
kb_request_id() {
	local frag=$KCONFIG_DIR/kprotperf-$(cut -d. -f1,2 <<<"$KVERSION").config
	{
		echo "$SRC_DESC"
		cat "$KCONFIG_DIR/kprotperf.config" "$ROOT/scripts/kernel-build.sh" "$ROOT/scripts/lib/kbuild.sh"
		[ ! -f "$frag" ] || cat "$frag"
		printf '%s\n' "${SETS[@]}"
		! $RANDSTRUCT || echo "randstruct seed $RANDSTRUCT_SEED"
		kb_first_line gcc --version
		kb_first_line ld --version
		pahole --version
	} | sha256sum | cut -c1-24
}

# A request made before: its key without configuring, when its result is
# built (or only --check is asked); configuring takes seconds, and the lock.
kb_remembered() {
	local f
	REQUEST=$(kb_request_id)
	f=$CACHE/requests/$REQUEST
	[ -f "$f" ] || return 1
	KEY=$(cat "$f")
	[[ $KEY =~ ^[0-9a-f]{24}$ ]] || return 1
	$CHECK || [ -f "$CACHE/out/$KEY/.complete" ]
}

# After a configure that passed kb_verify: its key, for the next request
# (written whole under a temporary name; a failure to write only costs speed).
kb_remember() {
	local tmp=$CACHE/requests/.$REQUEST.$$
	mkdir -p "$CACHE/requests" && echo "$KEY" >"$tmp" && mv "$tmp" "$CACHE/requests/$REQUEST" ||
		rm -f "$tmp"
}

# kb_make TARGET...: make in the build tree, output to the log.
kb_make() {
	make -C "$SRC" O="$WORK" "$@" >>"$LOG" 2>&1
}

# A fresh config every time: tinyconfig, the fragments, the --set options.
# --check configures in a tree of its own: the build tree's lock is held for
# a whole build, and a check (the sweep's, a test's) need not wait for one.
kb_configure() {
	local frag lock
	WORK=$CACHE/work/$SRCID
	! $CHECK || WORK+=.check
	mkdir -p "$WORK"
	exec {lock}>"$WORK.lock"
	flock "$lock" || die "cannot lock $WORK.lock"
	LOG=$WORK/build.log
	: >"$LOG"
	say "configuring linux $KVERSION ($SRC_DESC)"
	kb_make tinyconfig || kb_fail "make tinyconfig"
	FRAGS=("$KCONFIG_DIR/kprotperf.config")
	frag=$KCONFIG_DIR/kprotperf-$(cut -d. -f1,2 <<<"$KVERSION").config
	[ ! -f "$frag" ] || FRAGS+=("$frag")
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$WORK" "$WORK/.config" "${FRAGS[@]}") \
		>>"$LOG" 2>&1 || kb_fail "merging ${FRAGS[*]}"
	kb_apply_sets
	kb_make olddefconfig || kb_fail "make olddefconfig"
	kb_verify
	KEY=$( { echo "$SRC_DESC"; grep -v '^#' "$WORK/.config" | grep -v '^$'; } | sha256sum | cut -c1-24)
}

# Each --set option must be one the version declares: refused before
# configuring, which takes seconds and the build tree's lock.
kb_check_sets() {
	local i
	for i in "${!SET_NAMES[@]}"; do
		kb_defined "${SET_NAMES[$i]}" ||
			die "--set ${SET_NAMES[$i]}=${SET_VALUES[$i]}: linux $KVERSION has no option CONFIG_${SET_NAMES[$i]}"
	done
}

kb_apply_sets() {
	local i name value args=()
	for i in "${!SET_NAMES[@]}"; do
		name=${SET_NAMES[$i]} value=${SET_VALUES[$i]}
		case $value in
		y) args+=(--enable "$name") ;;
		n) args+=(--disable "$name") ;;
		m) args+=(--module "$name") ;;
		\"*) value=${value#\"}; args+=(--set-str "$name" "${value%\"}") ;;
		*) args+=(--set-val "$name" "$value") ;;
		esac
	done
	# RANDSTRUCT is a choice (NONE is tinyconfig's), built by a GCC plugin;
	# 6.1 allows BTF (which record's BPF programs need) beside the plugin
	# only under COMPILE_TEST.  The seed is kept in BUILD_SALT, which reaches
	# /proc/config.gz and so the provenance of a recording on the kernel,
	# and the cache key.
	if $RANDSTRUCT; then
		kb_is_set GCC_PLUGINS || args+=(--enable GCC_PLUGINS)
		kb_is_set COMPILE_TEST || args+=(--enable COMPILE_TEST)
		args+=(--disable RANDSTRUCT_NONE --set-str BUILD_SALT "randstruct-seed=$RANDSTRUCT_SEED")
	fi
	[ ${#args[@]} -eq 0 ] || "$SRC/scripts/config" --file "$WORK/.config" "${args[@]}"
}

# kb_defined NAME: some Kconfig file of the tree declares CONFIG_NAME.
kb_defined() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$1[[:space:]]*\$" \
		"$SRC/arch/x86" "$SRC/init" "$SRC/mm" "$SRC/kernel" "$SRC/security" "$SRC/lib" \
		"$SRC/fs" "$SRC/net" "$SRC/drivers" "$SRC/block" "$SRC/crypto" "$SRC/Kconfig" \
		"$SRC/arch/Kconfig" "$SRC/usr" "$SRC/certs" "$SRC/io_uring" "$SRC/virt" 2>/dev/null
}

# kb_value NAME: the option's value in the final .config (n when unset).
kb_value() {
	local line
	line=$(grep -m1 "^CONFIG_$1=" "$WORK/.config" || true)
	echo "${line:+${line#*=}}" | sed 's/^$/n/'
}

# Every option asked for, by a fragment or by --set, must have survived
# olddefconfig with the value asked: Kconfig drops what it cannot satisfy
# without a word, and a build without it would measure something else.
kb_verify() {
	local i frag line name want
	for i in "${!SET_NAMES[@]}"; do
		kb_check_one "${SET_NAMES[$i]}" "${SET_VALUES[$i]}" "--set"
	done
	if $RANDSTRUCT; then
		kb_check_one GCC_PLUGINS y "RANDSTRUCT's"
		kb_check_one BUILD_SALT "\"randstruct-seed=$RANDSTRUCT_SEED\"" "RANDSTRUCT's seed in"
	fi
	for frag in "${FRAGS[@]}"; do
		while read -r line; do
			if [[ $line =~ ^CONFIG_([A-Za-z0-9_]+)=(.*)$ ]]; then
				name=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
			elif [[ $line =~ ^#\ CONFIG_([A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
				name=${BASH_REMATCH[1]} want=n
			else
				continue
			fi
			kb_is_set "$name" && continue
			kb_check_one "$name" "$want" "${frag##*/}"
		done <"$frag"
	done
}

kb_is_set() {
	local n
	for n in "${SET_NAMES[@]}"; do
		[ "$n" = "$1" ] && return 0
	done
	return 1
}

kb_check_one() {
	local name=$1 want=$2 from=$3 got
	got=$(kb_value "$name")
	[ "$got" = "$want" ] && return
	kb_defined "$name" || die "$from CONFIG_$name=$want: linux $KVERSION has no such option"
	die "$from CONFIG_$name=$want: make olddefconfig made it $got: $(kb_why "$name")"
}

# Why Kconfig refused an option: its "depends on" lines, each symbol in them
# with its value here.  awk takes the first entry's and reads on to the end:
# an exit there would kill grep with SIGPIPE, which pipefail reports.
kb_why() {
	local deps sym vals=()
	deps=$(grep -rhsE --include='Kconfig*' -A40 "^[[:space:]]*(menu)?config[[:space:]]+$1[[:space:]]*\$" "$SRC" |
		awk 'NR > 1 && /^[[:space:]]*(config|menuconfig|choice|endchoice|menu|endmenu|if|endif|source|comment)([[:space:]]|$)/ { done = 1 }
		     !done && /^[[:space:]]*depends on/ { sub(/^[[:space:]]*depends on[[:space:]]*/, ""); print }' |
		paste -sd'&' | sed 's/&/ \&\& /g')
	if [ -z "$deps" ]; then
		echo "it has no 'depends on'; a choice, a 'select' or an enclosing 'if' decides it (see $LOG)"
		return
	fi
	for sym in $(grep -oE '\b[A-Z][A-Z0-9_]+\b' <<<"$deps" | sort -u); do
		vals+=("$sym=$(kb_value "$sym")")
	done
	echo "it depends on '$deps' (here ${vals[*]}): change those too"
}

kb_fail() {
	if grep -qi 'no space left on device' "$LOG"; then
		die "$1: no space left on device under $CACHE: free some, or set KP_KBUILD_CACHE to a roomier place (nothing was cached)"
	fi
	tail -15 "$LOG" >&2
	die "$1 failed (whole log: $LOG; nothing was cached)"
}

# Sets RESULT to the cache entry of KEY, building it when it is missing.
kb_build_cached() {
	RESULT=$CACHE/out/$KEY
	if [ -f "$RESULT/.complete" ]; then
		say "cached: $RESULT"
	else
		kb_build
		kb_store
	fi
	kb_register_debug
}

# kprotperf finds a vmlinux by its build id here too (report, folded,
# annotate, diff): the kernels built here need no --vmlinux.
kb_register_debug() {
	local bid dir=${XDG_CACHE_HOME:-$HOME/.cache}/kprotperf/debug/.build-id
	# a vmlinux without DWARF would stand in for one with it
	grep -qx 'CONFIG_DEBUG_INFO=y' "$RESULT/.config" || return 0
	bid=$(readelf -n "$RESULT/vmlinux" | awk '/Build ID:/ && !n++ { print $3 }')
	[ -n "$bid" ] || die "$RESULT/vmlinux has no build id"
	mkdir -p "$dir/${bid:0:2}"
	ln -sfn "$RESULT/vmlinux" "$dir/${bid:0:2}/${bid:2}.debug"
}

kb_build() {
	local start pid rc=0 sections
	start=$(date +%s)
	say "building linux $KVERSION, $JOBS jobs (log: $LOG)"
	kb_randstruct_seed
	KP_RANDSTRUCT_SEED=$RANDSTRUCT_SEED kb_make -j"$JOBS" bzImage "${KB_MAKE_VARS[@]}" &
	pid=$! STOP_PID=$!
	$QUIET || kb_progress "$pid" "$start" &
	wait "$pid" || rc=$?
	STOP_PID=
	wait
	[ "$rc" -eq 0 ] || kb_fail "the build"
	BUILD_SECONDS=$(($(date +%s) - start))
	say "built in $((BUILD_SECONDS / 60)) min $((BUILD_SECONDS % 60)) s"
	# the section list is read whole first: `readelf | grep -q` under
	# pipefail fails when grep exits before readelf has written everything
	sections=$(readelf -S "$WORK/vmlinux") || die "readelf cannot read $WORK/vmlinux"
	# what the config asks for (--set DEBUG_INFO_NONE=y asks for neither)
	! kb_enabled DEBUG_INFO || [[ $sections == *' .debug_info '* ]] ||
		die "$WORK/vmlinux has no DWARF: the config lost DEBUG_INFO"
	! kb_enabled DEBUG_INFO_BTF || [[ $sections == *' .BTF '* ]] ||
		die "$WORK/vmlinux has no BTF: is pahole (dwarves) installed?"
	# the plugin's DWARF keeps the declared layout: the code's offsets of the
	# structures it may shuffle, asked of the compiler, go with the result
	! $RANDSTRUCT || "$ROOT/scripts/lib/randstruct-offsets.sh" "$WORK" "$WORK/vmlinux" \
		>"$WORK/randstruct.offsets" 2>>"$LOG" || kb_fail "scripts/lib/randstruct-offsets.sh"
}

# KB_MAKE_VARS: make's gen-randstruct-seed set to our script, which writes
# the fixed seed (the kernel's draws one).  The script is copied to one path
# in the cache: kbuild reruns a command whose text changed, so another
# checkout's path would make a new seed file and rebuild the plugin.  A
# seed file of another seed is removed, for make to write it again.
kb_randstruct_seed() {
	local script=$CACHE/randstruct-seed.sh seedf=$WORK/scripts/basic/randstruct.seed
	KB_MAKE_VARS=()
	$RANDSTRUCT || return 0
	cmp -s "$ROOT/scripts/lib/randstruct-seed.sh" "$script" ||
		cp "$ROOT/scripts/lib/randstruct-seed.sh" "$script" || die "cannot write $script"
	[ "$(cat "$seedf" 2>/dev/null)" = "$RANDSTRUCT_SEED" ] || rm -f "$seedf"
	KB_MAKE_VARS=("gen-randstruct-seed=$script")
}

kb_enabled() { grep -qx "CONFIG_$1=y" "$WORK/.config"; }

# The progress line: the step the log shows and the time so far.
kb_progress() {
	local pid=$1 start=$2 step el
	PROGRESS_ON=1
	while kill -0 "$pid" 2>/dev/null; do
		step=$(tail -1 "$LOG" 2>/dev/null | awk '{print $1, $NF}' | cut -c1-60)
		el=$(($(date +%s) - start))
		if [ -t 2 ]; then
			printf '\r%s: %dm%02ds %-60s' "$PROG" $((el / 60)) $((el % 60)) "$step" >&2
		elif [ $((el % 60)) -lt 5 ] && [ "$el" -ge 5 ]; then
			printf '%s: %dm%02ds %s\n' "$PROG" $((el / 60)) $((el % 60)) "$step" >&2
		fi
		sleep 5
	done
	[ ! -t 2 ] || printf '\r%-80s\r' '' >&2
}

# Runs inside kb_store's `if !`, where bash ignores set -e: a release it
# cannot read fails it explicitly rather than store "release=".
kb_manifest() {
	local i release
	release=$(cat "$WORK/include/config/kernel.release") && [ -n "$release" ] || return 1
	echo "release=$release"
	echo "version=$KVERSION"
	echo "source=$SRC_DESC"
	echo "config_key=$KEY"
	for i in "${!SET_NAMES[@]}"; do
		echo "set=CONFIG_${SET_NAMES[$i]}=${SET_VALUES[$i]}"
	done
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "build_seconds=$BUILD_SECONDS"
	echo "compiler=$(kb_first_line gcc --version)"
	! $RANDSTRUCT || echo "randstruct_seed=$RANDSTRUCT_SEED"
}

kb_store() {
	local tmp
	mkdir -p "$CACHE/out"
	tmp=$(mktemp -d "$CACHE/out/.new.XXXXXX")
	if ! { cp "$WORK/arch/x86/boot/bzImage" "$WORK/vmlinux" "$WORK/System.map" "$WORK/.config" "$tmp/" &&
		{ ! $RANDSTRUCT || cp "$WORK/randstruct.offsets" "$tmp/"; } &&
		kb_manifest >"$tmp/manifest" && touch "$tmp/.complete"; }; then
		rm -rf "$tmp"
		die "cannot store the result in $CACHE/out (disk full?); nothing was cached"
	fi
	rm -rf "$RESULT"
	mv "$tmp" "$RESULT"
}

# -o DIR: hard links where the file system allows, else copies.
kb_output() {
	local tmp
	if [ -n "$OUT" ]; then
		[ ! -e "$OUT" ] || [ -f "$OUT/manifest" ] || [ -z "$(ls -A "$OUT" 2>/dev/null)" ] ||
			die "-o $OUT exists and holds something other than a kernel-build result: give a new folder"
		mkdir -p "$(dirname "$OUT")"
		tmp=$(mktemp -d "$(dirname "$OUT")/.kb.XXXXXX")
		cp -al "$RESULT"/. "$tmp"/ 2>/dev/null || cp -a "$RESULT"/. "$tmp"/ ||
			{ rm -rf "$tmp"; die "cannot copy the result to $OUT (disk full?)"; }
		rm -rf "$OUT"
		mv "$tmp" "$OUT"
		RESULT=$(cd "$OUT" && pwd)
	fi
	echo "$RESULT"
}

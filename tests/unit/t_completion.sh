#!/bin/bash
# share/completion/kprotperf.bash, sourced into bash and its _kprotperf run
# on simulated command lines (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT),
# each whole sorted COMPREPLY compared with what it must be: the commands and
# the options as the binary lists them (help --list-cmds, --list-opts), the
# files after a FILE/PATH/DIR option, *.data files and folders (without a
# trailing /: readline adds it) as the reading commands' operands, kernel
# function names after --func/--blocks/--target as /proc/kallsyms (or
# tracefs) names them, nothing after other options' arguments, command names
# after record's --, and nothing written to stderr; in plain bash, then once
# more with bash-completion's bash_completion sourced first (the test is
# skipped, after the plain part, when it is not installed).
set -u
# a relative KP is relative to where the test was started
if [[ ${KP-} == */* && $KP != /* ]]; then KP=$PWD/$KP; fi
cd "$(dirname "$0")/../.." || exit 1
KP=${KP:-$PWD/kprotperf}
SCRIPT=$PWD/share/completion/kprotperf.bash
BASHCOMP=/usr/share/bash-completion/bash_completion
[ -x "$KP" ] || { echo "skipped: no $KP to complete for: run make"; exit 77; }
bash -n "$SCRIPT" || { echo "FAIL: bash -n $SCRIPT"; exit 1; }
TMP=$(mktemp -d /tmp/kp-completion.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/dir" "$TMP/dir/sub"
touch "$TMP/dir/a.data" "$TMP/dir/b.txt"
export LC_ALL=C

# the expectations, from the binary and the kernel, not from the script
nl=$'\n'
CMDS=$("$KP" help --list-cmds | sort)
[ -n "$CMDS" ] || { echo "FAIL: $KP help --list-cmds lists nothing"; exit 1; }
DIFF_OPTS=$("$KP" help --list-opts diff | tr ' ' '\n' | grep '^-' | sort)
REPORT_OPTS=$("$KP" help --list-opts report | tr ' ' '\n' | grep '^-' | sort)
ff=/sys/kernel/tracing/available_filter_functions
if { : < "$ff"; } 2> /dev/null; then
	FSRC=$ff
	kfuncs() { cut -d' ' -f1 "$ff" | grep "^$1" | sort -u; }
else
	FSRC=/proc/kallsyms
	# without the loaded BPF programs ("\t[bpf]"), which tests running
	# beside this one load and unload
	kfuncs() { grep -E "^[0-9a-f]+ [tT] $1" /proc/kallsyms | grep -vF $'\t[bpf]' | cut -d' ' -f3 | cut -f1 | sort -u; }
fi
FUNCS=$(kfuncs vfs_rea)

# comp WORD...: COMPREPLY, sorted, for "kprotperf WORD..." with the cursor
# at the end of the last WORD; what the completion wrote to stderr in $TMP/err
# (compopt's complaint that no completion is under way is the simulation's)
comp() {
	COMP_WORDS=("$KP" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_kprotperf kprotperf "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2> "$TMP/err.all"
	grep -v 'compopt: not currently executing completion function' "$TMP/err.all" > "$TMP/err"
	if [ ${#COMPREPLY[@]} -gt 0 ]; then printf '%s\n' "${COMPREPLY[@]}" | sort; fi
}

# check EXPECTED WORD...: the whole completion is EXPECTED (lines, sorted)
check() {
	local exp=$1 got
	shift
	got=$(comp "$@")
	if [ "$got" != "$exp" ]; then
		echo "FAIL ($MODE): kprotperf $* <TAB>: got (<) vs expected (>):"
		diff <(printf '%s\n' "$got") <(printf '%s\n' "$exp") | head -20
		bad=$((bad + 1))
	fi
	if [ -s "$TMP/err" ]; then
		echo "FAIL ($MODE): kprotperf $* <TAB> wrote to stderr: $(head -3 "$TMP/err")"
		bad=$((bad + 1))
	fi
}

# includes NAME WORD...: NAME is one of the completions
includes() {
	local name=$1 got
	shift
	got=$(comp "$@")
	if ! grep -qxF -- "$name" <<< "$got"; then
		echo "FAIL ($MODE): kprotperf $* <TAB>: no $name among: $(head -5 <<< "$got" | tr '\n' ' ')"
		bad=$((bad + 1))
	fi
}

suite() {
	bad=0
	# shellcheck source=/dev/null
	source "$SCRIPT" || { echo "FAIL ($MODE): sourcing $SCRIPT"; return 1; }
	if [ "$MODE" = bash-completion ] && ! declare -F _init_completion > /dev/null; then
		echo "FAIL ($MODE): $BASHCOMP defines no _init_completion"
		return 1
	fi
	local spec
	spec=$(complete -p kprotperf)
	[ "$spec" = "complete -F _kprotperf kprotperf" ] || { echo "FAIL ($MODE): registered as: $spec"; bad=$((bad + 1)); }
	cd "$TMP/dir" || return 1

	# commands
	check "report" rep
	check "$(printf '%s\n' "$CMDS" --help --version | sort)" ''
	check "--help$nl--version" --
	check "record" help rec
	check "$CMDS" help ''
	check "$CMDS" help --list-opts ''
	# options
	check "--func$nl--func-stacks" record --fu
	check "$DIFF_OPTS" diff -
	check "$REPORT_OPTS" report -i a.data -
	check "$REPORT_OPTS" report a.data -
	check "--blocks" report --bl
	check "" nosuchcmd -
	# option arguments: files, folders
	check "a.data${nl}b.txt${nl}sub" record -o ''
	check "a.data${nl}b.txt${nl}sub" record -p 1 --output ''
	check "b.txt" record -o b
	check "a.data${nl}b.txt${nl}sub" symbolize -e ''
	check "a.data${nl}b.txt${nl}sub" explore -o ''
	check "a.data${nl}b.txt${nl}sub" features --features ''
	check "sub" scenario --dir ''
	check "sub" sweep -o ''
	check "sub" sweep --merge ''
	check "a.data${nl}b.txt${nl}sub" sweep --svg ''
	# option arguments: none to offer, and no options instead
	check "" report -n ''
	check "" report -n -
	check "" report --hist ''
	check "" record -F 9
	# option arguments: kernel functions
	if [ -n "$FUNCS" ]; then
		check "$FUNCS" record --func vfs_rea
		check "$FUNCS" annotate -f vfs_rea
		check "$FUNCS" report --func vfs_rea
		check "$FUNCS" record --blocks vfs_rea
		check "$FUNCS" explore --target vfs_rea
		check "$(kfuncs '')" record --func ''
	else
		# every kernel has vfs_read: an empty list means the names went unread
		echo "FAIL ($MODE): no vfs_rea* in $FSRC"
		bad=$((bad + 1))
	fi
	# operands
	check "a.data${nl}sub" report ''
	check "a.data${nl}sub" diff -n 5 a.data ''
	check "a.data" folded a
	check "" annotate b
	check "a.data${nl}b.txt${nl}sub" scenario ''
	check "a.data${nl}b.txt${nl}sub" sweep -o out ''
	check "" symbolize ''
	# record's CMD after --
	includes echo record -- ech
	includes echo record -o x.data -a -- ech
	check "" record -- -o -x
	check "a.data${nl}b.txt${nl}sub" record -- echo ''
	return $((bad > 0))
}

(MODE=plain && suite) || exit 1
if [ ! -r "$BASHCOMP" ]; then
	echo "skipped: with bash-completion: no $BASHCOMP (apt-get install bash-completion); plain bash: ok"
	exit 77
fi
# shellcheck source=/dev/null
(MODE=bash-completion && source "$BASHCOMP" && suite) || exit 1
echo "completion: plain bash and with bash-completion: ok"

# SPDX-License-Identifier: GPL-2.0-only
# bash completion for kprotperf: its commands, each command's options, the
# arguments of those options (files, directories, kernel function names) and
# the commands' operands (data files, scenario files, command names, record's
# CMD after --). The command and option names are not written here: they
# come, at each completion, from the kprotperf being completed itself
# (`kprotperf help --list-cmds`, `kprotperf help --list-opts CMD`), the
# kernel functions from /sys/kernel/tracing/available_filter_functions or
# else /proc/kallsyms. Installed as
# PREFIX/share/bash-completion/completions/kprotperf; from a checkout:
# source share/completion/kprotperf.bash

# COMPREPLY: the files and folders starting with $1; $2: f (any file),
# d (folders only) or data (*.data files, and folders to descend into).
# Folders are listed without a trailing /: -o filenames makes readline add
# it (and quote what needs it).
_kprotperf_files()
{
	compopt -o filenames 2> /dev/null
	case $2 in
	d) mapfile -t COMPREPLY < <(compgen -d -- "$1") ;;
	data) mapfile -t COMPREPLY < <({ compgen -f -X '!*.data' -- "$1"; compgen -d -- "$1"; } | awk '!seen[$0]++') ;;
	*) mapfile -t COMPREPLY < <(compgen -f -- "$1") ;;
	esac
}

# Kernel function names starting with $1, each once: the traceable ones when
# tracefs says which, else the text symbols of /proc/kallsyms (names are
# readable there without privileges; a module's have a "\t[mod]" suffix,
# which is a field of its own for awk).  Loaded BPF programs ("[bpf]") are
# no functions to probe, and come and go as tracers run.
_kprotperf_kfuncs()
{
	local ff=/sys/kernel/tracing/available_filter_functions
	if { : < "$ff"; } 2> /dev/null; then
		KP_PFX=$1 awk 'index($1, ENVIRON["KP_PFX"]) == 1 && !seen[$1]++ { print $1 }' "$ff" 2> /dev/null
	else
		KP_PFX=$1 awk '($2 == "t" || $2 == "T") && $4 != "[bpf]" && index($3, ENVIRON["KP_PFX"]) == 1 && !seen[$3]++ { print $3 }' \
			/proc/kallsyms 2> /dev/null
	fi
}

_kprotperf()
{
	# prev too: _init_completion sets it, and must not set a global one
	# shellcheck disable=SC2034
	local cur prev words cword
	if declare -F _init_completion > /dev/null; then
		_init_completion || return
	else
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]-}
	fi
	COMPREPLY=()

	# the kprotperf being completed, as typed (~/ expanded)
	local kp=${words[0]}
	[[ $kp == \~/* ]] && kp=$HOME/${kp:2}
	if ((cword == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$("$kp" help --list-cmds 2> /dev/null) --help --version" -- "$cur")
		return 0
	fi
	local cmd=${words[1]}

	# CMD's options: every spelling, the argument it takes (. for none) and
	# the number of its line (the spellings of one option share it)
	local -A argof=() lineof=()
	local opts=() parts=() sp=() w arg n=0
	while read -ra parts; do
		((n++))
		sp=() arg=.
		for w in "${parts[@]}"; do
			if [[ $w == -* ]]; then sp+=("$w"); else arg=$w; fi
		done
		for w in "${sp[@]}"; do argof[$w]=$arg lineof[$w]=$n; done
		opts+=("${sp[@]}")
	done < <("$kp" help --list-opts "$cmd" 2> /dev/null)

	# the words before the cursor: options, their arguments, operands, --
	local i=2 dashdash=0 argopt='' func=''
	while ((i < cword)); do
		w=${words[i]}
		if [[ $w == -- ]]; then
			dashdash=$i
			break
		fi
		arg=.
		[[ $w == -?* ]] && arg=${argof[$w]-.}
		if [[ $arg != . ]]; then
			if ((i + 1 == cword)); then
				argopt=$arg
				# a kernel function: FUNC, or --func's NAME (not --hist's)
				[[ $arg == FUNC || ${lineof[$w]} == "${lineof[--func]-}" ]] && func=1
				break
			fi
			((i += 2))
		else
			((i++))
		fi
	done

	if [[ -n $argopt ]]; then
		if [[ -n $func ]]; then
			# mapfile reads a pipe a byte at a time, a here-string's
			# file in blocks: ~10x faster for the ~100k names of ""
			local names
			names=$(_kprotperf_kfuncs "$cur")
			[[ -n $names ]] && mapfile -t COMPREPLY <<< "$names"
		else
			case $argopt in
			DIR) _kprotperf_files "$cur" d ;;
			FILE | PATH | MAP | *\|FILE | FILE\|*) _kprotperf_files "$cur" f ;;
			esac
		fi
		return 0
	fi

	if ((dashdash)); then
		[[ $cmd == record ]] || { _kprotperf_operand "$cmd" "$cur" "$kp"; return 0; }
		if declare -F _command_offset > /dev/null; then
			# the index of CMD in COMP_WORDS (words may join some of them)
			_command_offset $((COMP_CWORD - (cword - dashdash) + 1))
		elif ((cword == dashdash + 1)); then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur" | awk '!seen[$0]++')
		else
			_kprotperf_files "$cur" f
		fi
		return 0
	fi

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "${opts[*]}" -- "$cur")
		return 0
	fi
	_kprotperf_operand "$cmd" "$cur" "$kp"
}

# COMPREPLY: the operands of command $1 starting with $2; $3: kprotperf.
_kprotperf_operand()
{
	case $1 in
	report | folded | annotate | diff | features) _kprotperf_files "$2" data ;;
	scenario | sweep) _kprotperf_files "$2" f ;;
	help) mapfile -t COMPREPLY < <(compgen -W "$("$3" help --list-cmds 2> /dev/null)" -- "$2") ;;
	esac
}

complete -F _kprotperf kprotperf

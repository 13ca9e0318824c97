# SPDX-License-Identifier: MIT
# bash completion for tfdctl(1)                             -*- shell-script -*-
#
# Installed as share/bash-completion/completions/tfdctl. Job names are the
# running tfd's: `tfdctl list --names` asks it (through --control=PATH
# when the line gives one), so nothing is offered when no tfd answers, or
# none within 2 seconds.
#
# A job's name may come from a crontab line any user of the host wrote,
# and completion runs as whoever presses Tab (root, too): a name is never
# evaluated. Not by compgen -W, which expands $(...) in its word list:
# each name is compared as text and offered as one word that the shell
# reads back as the name, quoted by printf %q, or as $'...' when tfdctl
# printed it with escapes (a control character, a backslash).

# The word typed so far without its quotes, with nothing evaluated: a
# leading ' " or $' and its closing quote, or the backslashes of an
# unquoted word.
_tfdctl_unquote()
{
	local w=$1 out='' i
	case $w in
	\$\'*) w=${w#??} w=${w%\'} ;;
	\'*) w=${w#?} w=${w%\'} ;;
	\"*) w=${w#?} w=${w%\"} ;;
	*)
		for ((i = 0; i < ${#w}; i++)); do
			[[ ${w:i:1} == \\ ]] && ((++i))
			out+=${w:i:1}
		done
		w=$out
		;;
	esac
	printf '%s' "$w"
}

# COMPREPLY: the names that begin with the word typed, $1, each quoted;
# the rest of the arguments are tfdctl's options (--control=PATH).
_tfdctl_names()
{
	local typed name word
	typed=$(_tfdctl_unquote "$1")
	shift
	COMPREPLY=()
	while IFS= read -r name; do
		[[ $name == "$typed"* ]] || continue
		if [[ $name == *\\* ]]; then
			word="\$'${name//\'/\\\'}'"
		else
			printf -v word %q "$name"
		fi
		COMPREPLY+=("$word")
	done < <(tfdctl "$@" --timeout=2s list --names 2>/dev/null)
}

_tfdctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i w cmd=''
	local -a ctl=()
	# --control=PATH reaches bash as "--control" "=" "PATH" when '=' is in
	# COMP_WORDBREAKS, else as one word.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--control=?*) ctl=("$w") ;;
		--control)
			if [[ ${COMP_WORDS[i + 1]} == = ]] && ((i + 2 < COMP_CWORD)); then
				ctl=("--control=${COMP_WORDS[i + 2]}")
				((i += 2))
			fi
			;;
		-*) ;;
		*)
			cmd=$w
			break
			;;
		esac
	done
	if [[ $prev == = && ${COMP_WORDS[COMP_CWORD - 2]} == --control ]] ||
		[[ $cur == --control=* ]]; then
		cur=${cur#--control=}
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '--control= --json --help --usage --version' -- "$cur")
			[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		else
			mapfile -t COMPREPLY < <(compgen -W 'list status run stop pause resume reload' -- "$cur")
		fi
		return
	fi
	case $cmd in
	status | stop)
		# One job: none once it is given.
		((COMP_CWORD > i + 1)) && return
		;;
	run)
		if ((COMP_CWORD > i + 1)); then
			mapfile -t COMPREPLY < <(compgen -W '--wait' -- "$cur")
			return
		fi
		;;
	pause | resume)
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '--all' -- "$cur")
			return
		fi
		;;
	*) return ;;
	esac
	_tfdctl_names "$cur" "${ctl[@]}"
}
complete -F _tfdctl tfdctl

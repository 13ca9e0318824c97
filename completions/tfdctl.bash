# bash completion for tfdctl(1)                             -*- shell-script -*-
#
# Installed as share/bash-completion/completions/tfdctl. Job names are the
# running tfd's: `tfdctl list --names` asks it (through --control=PATH
# when the line gives one), so nothing is offered when no tfd answers.

_tfdctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i w cmd='' names
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
	names=$(tfdctl "${ctl[@]}" list --names 2>/dev/null)
	mapfile -t COMPREPLY < <(compgen -W "$names" -- "$cur")
}
complete -F _tfdctl tfdctl

# SPDX-License-Identifier: MIT
# bash completion for tfd(1)                                -*- shell-script -*-
#
# Installed as share/bash-completion/completions/tfd, where bash-completion
# loads it on first use; it can also be sourced on its own. It uses
# bash-completion's helpers (_command_offset, _filedir) when they are there
# and falls back to compgen otherwise.

# Options that take their value in the next word (or after '=').
_tfd_arg_opts='--name -c --clock -a --at -d --delay -i --interval -n --count
	--for --calendar --cron --base-time -e --exec -f --format --overlap
	--timeout --retry --retry-delay --random-delay --persist --cgroup --join
	--user --jobs --user-crontabs --metrics --listen --fleet --replica --fleet-lease
	--fleet-deadline --fleet-keep --on-stop --kill-after
	--on-failure --on-success --ping --notify --notify-on'

_tfd_all_opts='--name -c --clock -a --at -d --delay -i --interval -n --count
	--for --calendar --cron --dry-run --base-time -e --exec -f --format
	--tag-output -j --json -q --quiet --precise --stats -v --verbose
	--overlap --timeout --retry --retry-delay -E --exit-on-error
	--on-stop --kill-after --log-runs --random-delay --persist --cgroup --join --user --jobs --system-crontab
	--user-crontabs --metrics --listen --ping --notify --notify-on
	--fleet --replica --fleet-lease --fleet-deadline --fleet-keep --fleet-sql --control
	--on-failure --on-success
	-h --help --usage -V --version --'

# Short options that take a value: in a cluster such as "-qc", the value
# is the next word when the cluster ends with one of them.
_tfd_arg_shorts='cadinef'

# Rebuilds the words as popt will see them. bash splits "--clock=realtime"
# at '=' (it is in COMP_WORDBREAKS), so pieces that touch on the command
# line are glued back together. Sets _tfd_words, _tfd_raw (the COMP_WORDS
# index each word starts at) and _tfd_cword.
_tfd_glue_words()
{
	local i n w rest=$COMP_LINE trimmed spaced last
	_tfd_words=() _tfd_raw=() _tfd_cword=0
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		trimmed=${rest#"${rest%%[![:space:]]*}"}
		spaced=$((${#trimmed} != ${#rest}))
		rest=${trimmed#"$w"}
		n=${#_tfd_words[@]}
		last=''
		((n > 0)) && last=${_tfd_words[n - 1]}
		if ((n > 0 && !spaced)) && [[ $last == --?* ]] &&
			{ [[ $w == = && $last != *=* ]] || [[ $last == *= ]]; }; then
			_tfd_words[n - 1]+=$w
		else
			_tfd_words+=("$w")
			_tfd_raw+=("$i")
		fi
		if ((i == COMP_CWORD)); then
			_tfd_cword=$((${#_tfd_words[@]} - 1))
		fi
	done
}

# Succeeds when WORD is an option whose value is the next word.
_tfd_takes_next()
{
	local word=$1 opt
	if [[ $word == -[!-]* ]]; then
		# A short cluster: "-qc" wants a value, "-n5" carries it.
		local i c
		for ((i = 1; i < ${#word}; i++)); do
			c=${word:i:1}
			if [[ $_tfd_arg_shorts == *"$c"* ]]; then
				((i == ${#word} - 1))
				return
			fi
		done
		return 1
	fi
	for opt in $_tfd_arg_opts; do
		[[ $word == "$opt" ]] && return 0
	done
	return 1
}

# Fills COMPREPLY with the words of LIST that start with CUR.
_tfd_reply_words()
{
	local list=$1 cur=$2
	mapfile -t COMPREPLY < <(compgen -W "$list" -- "$cur")
}

_tfd_reply_files()
{
	local cur=$1 kind=$2
	compopt -o filenames 2>/dev/null || true
	if declare -F _filedir >/dev/null && [[ $_tfd_prefix == "" ]]; then
		# _filedir reads $cur itself.
		if [[ $kind == -d ]]; then
			_filedir -d
		else
			_filedir
		fi
		return
	fi
	mapfile -t COMPREPLY < <(compgen "$kind" -- "$cur")
}

_tfd_reply_pids()
{
	local cur=$1 p
	local -a pids=()
	for p in /proc/[0-9]*; do
		pids+=("${p#/proc/}")
	done
	_tfd_reply_words "${pids[*]}" "$cur"
}

# Completes the value CUR of option OPT.
_tfd_reply_value()
{
	local opt=$1 cur=$2
	case $opt in
	-c | --clock)
		_tfd_reply_words 'monotonic realtime boottime realtime-alarm
			boottime-alarm' "$cur"
		;;
	--overlap)
		_tfd_reply_words 'skip queue kill parallel' "$cur"
		;;
	--notify-on)
		_tfd_reply_words 'failure always' "$cur"
		;;
	--on-stop)
		_tfd_reply_words 'forward wait leave' "$cur"
		;;
	--persist | --jobs | --metrics)
		_tfd_reply_files "$cur" -f
		;;
	--user-crontabs)
		_tfd_reply_files "$cur" -d
		;;
	--cgroup)
		if [[ $cur == "" && -d /sys/fs/cgroup ]]; then
			cur=/sys/fs/cgroup/
		fi
		_tfd_reply_files "$cur" -d
		;;
	--join)
		_tfd_reply_pids "$cur"
		;;
	--user)
		mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		;;
	-e | --exec | --on-failure | --on-success)
		mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
		;;
	--cron)
		_tfd_reply_words '@hourly @daily @weekly @monthly @yearly' "$cur"
		;;
	--calendar)
		_tfd_reply_words 'minutely hourly daily weekly monthly yearly
			quarterly semiannually' "$cur"
		;;
	-a | --at | --base-time)
		_tfd_reply_words 'now today tomorrow' "$cur"
		;;
	*)
		# Names, durations, counts and formats have nothing to offer.
		COMPREPLY=()
		;;
	esac
}

# Completes COMMAND [ARG...] starting at COMP_WORDS index RAW.
_tfd_reply_command()
{
	local raw=$1 cur=$2
	if declare -F _comp_command_offset >/dev/null; then
		_comp_command_offset "$raw"
	elif declare -F _command_offset >/dev/null; then
		_command_offset "$raw"
	elif ((raw == COMP_CWORD)); then
		mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
	else
		_tfd_reply_files "$cur" -f
	fi
}

_tfd()
{
	local _tfd_words _tfd_raw _tfd_cword _tfd_prefix=''
	_tfd_glue_words
	local cur=${_tfd_words[_tfd_cword]-} word j=1 valuefor=''
	COMPREPLY=()

	# Walk the words before the cursor to find where the command starts.
	while ((j < _tfd_cword)); do
		word=${_tfd_words[j]}
		case $word in
		--)
			_tfd_reply_command "${_tfd_raw[j + 1]:-$COMP_CWORD}" "$cur"
			return
			;;
		--*=*) ;;
		-?*)
			if _tfd_takes_next "$word"; then
				((j++))
				if ((j == _tfd_cword)); then
					valuefor=$word
				fi
			fi
			;;
		*)
			_tfd_reply_command "${_tfd_raw[j]}" "$cur"
			return
			;;
		esac
		((j++))
	done

	if [[ $valuefor != "" ]]; then
		# "-qc": the value belongs to the cluster's last letter.
		[[ $valuefor == -[!-]?* ]] && valuefor=-${valuefor: -1}
		_tfd_reply_value "$valuefor" "$cur"
		return
	fi

	case $cur in
	--?*=*)
		# When '=' broke the word, bash replaces only the value;
		# otherwise the reply must repeat the option.
		local opt=${cur%%=*} raw=${COMP_WORDS[COMP_CWORD]}
		[[ $raw == "$cur" ]] && _tfd_prefix=$opt=
		_tfd_reply_value "$opt" "${cur#*=}"
		if [[ $_tfd_prefix != "" ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/$_tfd_prefix}")
		fi
		;;
	-*)
		_tfd_reply_words "$_tfd_all_opts" "$cur"
		;;
	*)
		_tfd_reply_command "${_tfd_raw[_tfd_cword]}" "$cur"
		;;
	esac
}

complete -F _tfd tfd

# ex: filetype=sh

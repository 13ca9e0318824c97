#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Shell completions: bash's _tfd driven through COMP_WORDS/COMP_CWORD,
# zsh and fish checked for syntax and exercised in the real shells.

load test_helper
load completion_helper

# The options of the SPEC; every shell must offer all of them.
LONG_OPTS=(--name --clock --at --delay --interval --count --for --calendar
	--cron --dry-run --base-time --exec --format --tag-output --json --quiet
	--precise --stats --verbose --overlap --timeout --retry --retry-delay
	--exit-on-error --random-delay --persist --cgroup --join --jobs --metrics
	--user-crontabs --listen --help --usage --version)
SHORT_OPTS=(-c -a -d -i -n -e -f -j -q -v -E -h -V)
CLOCKS='monotonic realtime boottime realtime-alarm boottime-alarm'
POLICIES='skip queue kill parallel'

setup() {
	COMPLETIONS=$REPO/completions
	# Keep the shells away from the user's configuration and history.
	export HOME=$BATS_TEST_TMPDIR/home XDG_CONFIG_HOME=$BATS_TEST_TMPDIR/xdg
	export XDG_DATA_HOME=$BATS_TEST_TMPDIR/xdg-data
	mkdir -p "$HOME"
}

# --- bash ---------------------------------------------------------------

# bash_complete LINE WORD...: runs _tfd with the cursor at the end of LINE,
# which bash split into WORDs (the last one is the word being completed),
# and leaves the answer in COMPREPLY. Without bash-completion loaded, so
# the fallbacks are what is tested unless a test defines the helpers.
bash_complete() {
	local line=$1
	shift
	# shellcheck source=../../completions/tfd.bash
	source "$COMPLETIONS/tfd.bash"
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_tfd
}

# Fails unless COMPREPLY holds every WORD.
assert_reply_has() {
	local want w
	for want in "$@"; do
		for w in "${COMPREPLY[@]}"; do
			[[ $w == "$want" ]] && continue 2
		done
		fail "'$want' not offered; got: ${COMPREPLY[*]}"
		return 1
	done
}

refute_reply_has() {
	local unwanted=$1 w
	for w in "${COMPREPLY[@]}"; do
		[[ $w == "$unwanted" ]] && fail "'$unwanted' offered: ${COMPREPLY[*]}"
	done
	return 0
}

@test "bash: the completion file is shellcheck-clean" {
	require_command shellcheck
	run shellcheck -s bash "$COMPLETIONS/tfd.bash"
	assert_success
	assert_output ""
}

@test "bash: sourcing registers _tfd for tfd" {
	source "$COMPLETIONS/tfd.bash"
	run complete -p tfd
	assert_success
	assert_output "complete -F _tfd tfd"
}

@test "bash: every long option is offered after --" {
	bash_complete 'tfd --' tfd --
	assert_reply_has "${LONG_OPTS[@]}"
}

@test "bash: every short option is offered after -" {
	bash_complete 'tfd -' tfd -
	assert_reply_has "${SHORT_OPTS[@]}"
}

@test "bash: a prefix narrows the options" {
	bash_complete 'tfd --ov' tfd --ov
	assert_equal "${COMPREPLY[*]}" "--overlap"
	bash_complete 'tfd -i 1s --ex' tfd -i 1s --ex
	assert_equal "${COMPREPLY[*]}" "--exec --exit-on-error"
}

@test "bash: clocks after --clock and -c" {
	bash_complete 'tfd --clock ' tfd --clock ''
	assert_equal "${COMPREPLY[*]}" "$CLOCKS"
	bash_complete 'tfd -i 1s -c boot' tfd -i 1s -c boot
	assert_equal "${COMPREPLY[*]}" "boottime boottime-alarm"
}

@test "bash: clocks after --clock= split at '=' by COMP_WORDBREAKS" {
	bash_complete 'tfd --clock=' tfd --clock =
	assert_equal "${COMPREPLY[*]}" "$CLOCKS"
	# bash replaces only the part after '=', so no option in the reply.
	bash_complete 'tfd --clock=real' tfd --clock = real
	assert_equal "${COMPREPLY[*]}" "realtime realtime-alarm"
}

@test "bash: clocks after --clock= when '=' does not break words" {
	bash_complete 'tfd --clock=real' tfd --clock=real
	assert_equal "${COMPREPLY[*]}" "--clock=realtime --clock=realtime-alarm"
}

@test "bash: the value of a short cluster such as -qc" {
	bash_complete 'tfd -qc ' tfd -qc ''
	assert_equal "${COMPREPLY[*]}" "$CLOCKS"
}

@test "bash: overlap policies" {
	bash_complete 'tfd --overlap ' tfd --overlap ''
	assert_equal "${COMPREPLY[*]}" "$POLICIES"
	bash_complete 'tfd --overlap=q' tfd --overlap = q
	assert_equal "${COMPREPLY[*]}" "queue"
}

@test "bash: a duration value gets no options offered" {
	bash_complete 'tfd --interval ' tfd --interval ''
	assert_equal "${#COMPREPLY[@]}" 0
	bash_complete 'tfd -n -' tfd -n -
	assert_equal "${#COMPREPLY[@]}" 0
}

@test "bash: files for --persist" {
	local dir=$BATS_TEST_TMPDIR/p
	mkdir -p "$dir/sub"
	: >"$dir/state.tfd"
	bash_complete "tfd --persist $dir/st" tfd --persist "$dir/st"
	assert_equal "${COMPREPLY[*]}" "$dir/state.tfd"
	bash_complete "tfd --persist=$dir/s" tfd --persist = "$dir/s"
	assert_reply_has "$dir/state.tfd"
	assert_reply_has "$dir/sub"
}

@test "bash: files for --jobs and --metrics" {
	local dir=$BATS_TEST_TMPDIR/j opt
	mkdir -p "$dir/etc"
	: >"$dir/jobs"
	: >"$dir/tfd.prom"
	for opt in --jobs --metrics; do
		bash_complete "tfd $opt $dir/" tfd "$opt" "$dir/"
		assert_reply_has "$dir/jobs" "$dir/tfd.prom" "$dir/etc"
		bash_complete "tfd $opt=$dir/t" tfd "$opt" = "$dir/t"
		assert_equal "${COMPREPLY[*]}" "$dir/tfd.prom"
	done
}

@test "bash: --name, --retry and --retry-delay take a value, offered nothing" {
	local opt
	for opt in --name --retry --retry-delay; do
		bash_complete "tfd $opt " tfd "$opt" ''
		assert_equal "${#COMPREPLY[@]}" 0
		bash_complete "tfd $opt -" tfd "$opt" -
		assert_equal "${#COMPREPLY[@]}" 0
	done
	# The value is not the command: options are still offered after it.
	bash_complete 'tfd --retry 3 --retry-d' tfd --retry 3 --retry-d
	assert_equal "${COMPREPLY[*]}" "--retry-delay"
	bash_complete 'tfd --name x --ta' tfd --name x --ta
	assert_equal "${COMPREPLY[*]}" "--tag-output"
}

@test "bash: --tag-output is a flag: the next word starts the command" {
	_command_offset() { OFFSET=$1; COMPREPLY=(delegated); }
	bash_complete 'tfd -i 1s --tag-output ' tfd -i 1s --tag-output ''
	assert_equal "$OFFSET" 4
	assert_equal "${COMPREPLY[*]}" delegated
	unset -f _command_offset
}

@test "bash: directories only for --cgroup" {
	local dir=$BATS_TEST_TMPDIR/cg
	mkdir -p "$dir/job.slice"
	: >"$dir/job.file"
	bash_complete "tfd --cgroup $dir/job" tfd --cgroup "$dir/job"
	assert_equal "${COMPREPLY[*]}" "$dir/job.slice"
}

@test "bash: --cgroup starts under /sys/fs/cgroup" {
	[[ -d /sys/fs/cgroup ]] || skip "no /sys/fs/cgroup here"
	# A container often sees the cgroup root alone, with nothing to offer.
	local sub
	sub=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d -print -quit 2>/dev/null)
	[[ -n $sub ]] || skip "/sys/fs/cgroup has no subdirectories here"
	bash_complete 'tfd --cgroup ' tfd --cgroup ''
	((${#COMPREPLY[@]} > 0)) || fail "nothing offered"
	local w
	for w in "${COMPREPLY[@]}"; do
		[[ $w == /sys/fs/cgroup/* && -d $w ]] || fail "not a cgroup dir: $w"
	done
}

@test "bash: process IDs for --join" {
	bash_complete 'tfd --join ' tfd --join ''
	assert_reply_has "$$"
	assert_reply_has 1
	local w
	for w in "${COMPREPLY[@]}"; do
		[[ $w =~ ^[0-9]+$ ]] || fail "not a PID: $w"
	done
}

@test "bash: a command name after --" {
	unset -f _command_offset _comp_command_offset
	bash_complete 'tfd -i 1s -- bas' tfd -i 1s -- bas
	assert_reply_has bash
	refute_reply_has --clock
}

@test "bash: the first word that is not an option starts the command" {
	unset -f _command_offset _comp_command_offset
	bash_complete 'tfd -i 1s --clock realtime bas' \
		tfd -i 1s --clock realtime bas
	assert_reply_has bash
	bash_complete 'tfd --clock=realtime -qn 3 bas' \
		tfd --clock = realtime -qn 3 bas
	assert_reply_has bash
}

@test "bash: files for the command's arguments without bash-completion" {
	unset -f _command_offset _comp_command_offset
	local dir=$BATS_TEST_TMPDIR/args
	mkdir -p "$dir"
	: >"$dir/input.txt"
	bash_complete "tfd -i 1s -- cat $dir/in" tfd -i 1s -- cat "$dir/in"
	assert_equal "${COMPREPLY[*]}" "$dir/input.txt"
	# tfd's options are not offered to the command.
	bash_complete 'tfd -i 1s -- ls --cl' tfd -i 1s -- ls --cl
	refute_reply_has --clock
}

@test "bash: the command's own completion via _command_offset" {
	# A stand-in for bash-completion's helper records where the command
	# starts, as an index into COMP_WORDS.
	_command_offset() { OFFSET=$1; COMPREPLY=(delegated); }
	bash_complete 'tfd -i 1s -- ls -' tfd -i 1s -- ls -
	assert_equal "$OFFSET" 4
	assert_equal "${COMPREPLY[*]}" delegated
	bash_complete 'tfd --clock=realtime ls ' tfd --clock = realtime ls ''
	assert_equal "$OFFSET" 4
	bash_complete 'tfd -i 1s ' tfd -i 1s ''
	assert_equal "$OFFSET" 3
	unset -f _command_offset
}

@test "bash: with bash-completion loaded, the command completes as itself" {
	local bc
	for bc in /usr/share/bash-completion/bash_completion \
		/etc/bash_completion; do
		[[ -r $bc ]] && break
	done
	[[ -r $bc ]] || skip "bash-completion is not installed"
	run bash -c '
		source "$1" && source "$2" || exit 1
		COMP_LINE="tfd -i 1s -- tfd --ov"; COMP_POINT=${#COMP_LINE}
		COMP_WORDS=(tfd -i 1s -- tfd --ov); COMP_CWORD=5
		_tfd 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' _ "$bc" "$COMPLETIONS/tfd.bash"
	assert_success
	assert_output --overlap
}

@test "bash, zsh, fish: every option of the binary's --help is completed" {
	[[ -x $TFD ]] || skip "no tfd binary at $TFD"
	run "$TFD" --help
	assert_success
	local -a opts
	mapfile -t opts < <(grep -oE -- '--[a-z][a-z-]+' <<<"$output" | sort -u)
	((${#opts[@]} >= ${#LONG_OPTS[@]})) || fail "too few options in --help"
	bash_complete 'tfd --' tfd --
	local o
	for o in "${opts[@]}"; do
		assert_reply_has "$o"
		grep -qE -- "(^|[{',)*])$o(=-|[=+-])?[[',}]" "$COMPLETIONS/_tfd" ||
			fail "zsh does not complete $o"
		grep -qE -- "-l ${o#--}( |\$)" "$COMPLETIONS/tfd.fish" ||
			fail "fish does not complete $o"
	done
	# Short options, from the "  -c, --clock" lines.
	mapfile -t opts < <(grep -oE -- '^ +-[[:alpha:]],' <<<"$output" |
		grep -oE -- '-[[:alpha:]]')
	((${#opts[@]} >= ${#SHORT_OPTS[@]})) || fail "too few short options"
	bash_complete 'tfd -' tfd -
	for o in "${opts[@]}"; do
		assert_reply_has "$o"
		grep -qE -- "\{$o\+?," "$COMPLETIONS/_tfd" ||
			fail "zsh does not complete $o"
		grep -qE -- "-s ${o#-} " "$COMPLETIONS/tfd.fish" ||
			fail "fish does not complete $o"
	done
}

# --- zsh ----------------------------------------------------------------

# Fails unless zsh's listing in $output has a "WORD -- description" line
# for every WORD.
assert_zsh_lists() {
	local w
	for w in "$@"; do
		assert_line --regexp "^$w +-- "
	done
}

@test "zsh: _tfd parses (zsh -n) and starts with #compdef tfd" {
	require_command zsh
	run zsh -n "$COMPLETIONS/_tfd"
	assert_success
	assert_output ""
	run head -n 1 "$COMPLETIONS/_tfd"
	assert_output "#compdef tfd"
}

@test "zsh: lists the clocks after --clock" {
	require_command zsh
	run zsh_complete 'tfd --clock '
	assert_success
	# shellcheck disable=SC2086 # the clocks are words.
	assert_zsh_lists $CLOCKS
}

@test "zsh: completes options and policies" {
	require_command zsh
	run zsh_complete 'tfd --ov'
	assert_success
	assert_output --partial 'tfd --overlap='
	run zsh_complete 'tfd --overlap='
	# shellcheck disable=SC2086 # the policies are words.
	assert_zsh_lists $POLICIES
}

@test "zsh: files after --jobs and --metrics, nothing for --retry" {
	require_command zsh
	mkdir -p "$BATS_TEST_TMPDIR/z"
	: >"$BATS_TEST_TMPDIR/z/crontab.jobs"
	cd "$BATS_TEST_TMPDIR/z"
	run zsh_complete 'tfd --jobs cront'
	assert_success
	assert_output --partial 'tfd --jobs crontab.jobs'
	run zsh_complete 'tfd --metrics=cront'
	assert_output --partial 'tfd --metrics=crontab.jobs'
	run zsh_complete 'tfd --retry cront'
	refute_output --partial 'crontab.jobs'
}

@test "zsh: --tag-output is offered as a flag" {
	require_command zsh
	run zsh_complete 'tfd --tag-o'
	assert_success
	assert_output --partial 'tfd --tag-output '
	refute_output --partial 'tfd --tag-output='
}

@test "zsh: the command's own completion after --" {
	require_command zsh
	run zsh_complete 'tfd -i 1s -- ls --colo'
	assert_success
	assert_output --partial 'ls --color'
	refute_output --partial 'clock of the timer'
}

# --- fish ---------------------------------------------------------------

# fish_complete LINE: what fish offers for LINE, one "word<TAB>description"
# a line.
fish_complete() {
	fish -c 'source $argv[1]; and complete -C $argv[2]' \
		"$COMPLETIONS/tfd.fish" "$1"
}

@test "fish: tfd.fish parses (fish -n)" {
	require_command fish
	run fish -n "$COMPLETIONS/tfd.fish"
	assert_success
	assert_output ""
}

@test "fish: lists the clocks after --clock" {
	require_command fish
	run fish_complete 'tfd --clock '
	assert_success
	assert_equal "$(cut -f1 <<<"$output" | sort | tr '\n' ' ')" \
		"boottime boottime-alarm monotonic realtime realtime-alarm "
	run fish_complete 'tfd -qc real'
	assert_equal "$(cut -f1 <<<"$output" | tr '\n' ' ')" \
		"realtime realtime-alarm "
}

@test "fish: every long option, with a description" {
	require_command fish
	run fish_complete 'tfd --'
	assert_success
	local o
	for o in "${LONG_OPTS[@]}"; do
		assert_line --regexp "^$o	.+"
	done
}

@test "fish: files for --jobs and --metrics, nothing for --retry and --name" {
	require_command fish
	mkdir -p "$BATS_TEST_TMPDIR/f"
	: >"$BATS_TEST_TMPDIR/f/crontab.jobs"
	cd "$BATS_TEST_TMPDIR/f"
	local opt
	for opt in --jobs --metrics; do
		run fish_complete "tfd $opt cront"
		assert_success
		assert_line --regexp '^crontab\.jobs(	|$)'
	done
	for opt in --retry --retry-delay --name; do
		run fish_complete "tfd $opt cront"
		assert_success
		refute_output --partial crontab.jobs
	done
}

@test "fish: --tag-output is a flag: the next word is the command" {
	require_command fish
	run fish_complete 'tfd -i 1s --tag-output bas'
	assert_success
	assert_line --regexp '^bash(	|$)'
	# After a value-taking option, the word is its value, not a command.
	run fish_complete 'tfd -i 1s --retry bas'
	assert_success
	refute_output --regexp $'(^|\n)bash(\t|\n|$)'
}

@test "fish: overlap policies" {
	require_command fish
	run fish_complete 'tfd --overlap '
	assert_success
	assert_equal "$(cut -f1 <<<"$output" | sort | tr '\n' ' ')" \
		"kill parallel queue skip "
}

@test "fish: the command and its own completion after --" {
	require_command fish
	run fish_complete 'tfd -i 1s -- bas'
	assert_success
	assert_line --regexp '^bash(	|$)'
	run fish_complete 'tfd -i 1s --clock realtime bas'
	assert_line --regexp '^bash(	|$)'
	# ls's own options, not tfd's, after the command.
	run fish_complete 'tfd -i 1s -- ls --'
	refute_line --regexp '^--clock(	|$)'
	assert_line --regexp '^--all(	|$)'
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# tfd --jobs FILE (tfd-jobs(5)): every kind of line, every error with
# FILE:LINE, names, the environment of a line, crontab's '%', CRON_TZ,
# @reboot, the merged dry run, reloads (SIGHUP, an editor's save, an
# in-place write, a ConfigMap's symlink swap), shutdown, -E, the options
# beside --jobs, 10,000 jobs, and crontabs written for cron. Runs that must
# happen at start are @reboot lines or --delay 0; timers end by --count,
# by their schedule or by a signal, and every wait polls with a generous
# bound.

load test_helper
load reload_helper

# The helper's teardown, extended: a run's sleep that outlived a failing
# tfd carries this test's marker and is ended too.
eval "helper_$(declare -f teardown)"
teardown() {
	mapfile -t -O "${#BG_PIDS[@]}" BG_PIDS < <(pgrep -f "^sleep 100\\.$MARKN")
	helper_teardown
}

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	export TZ=UTC
	# A marker no other process has in its command line: sleep 100.MARKN1
	# and so on are this test's runs.
	MARKN="${BASHPID}${RANDOM}"
	FIXTURES=$BATS_TEST_DIRNAME/fixtures
	BASE='2026-12-03 00:00:00 UTC'   # a Thursday
}

# Helpers

# Asserts that the lines of file $1, in which job $2 counts TFD_SEQ one a
# line, rise with no restart and are every tick of the job that ev.json
# says was run (up to the last line): no run lost. A loaded machine may
# skip a tick (a run still going), never lose one.
assert_counts_on() {
	local prev=0 line
	while read -r line; do
		((line > prev)) || fail "$1: $line after $prev: counted again"
		prev=$line
	done <"$1"
	((prev > 0)) || fail "$1 is empty"
	assert_equal "$(xargs <"$1")" "$(jq -r --arg j "$2" --argjson last "$prev" \
		'select(.event == "tick" and .job == $j and .action == "run" and .seq <= $last) | .seq' \
		ev.json | xargs)"
}

# Starts tfd --jobs jobfile --json (events to ev.json, stderr to err) with one
# job, a, that counts its runs into a.out every 0.1 s, and waits for two.
start_ticking() {
	echo '--name a --interval 0.1s --exec "echo \$TFD_SEQ >> a.out"' >jobfile
	start_bg "$TFD" --jobs jobfile --json >ev.json 2>err
	wait_for_lines a.out 20 2
}

# Asserts that the tfd of start_ticking still runs a, with no run lost, and
# that it serves SIGTERM at once: exit 143.
assert_ticks_on_and_ends() {
	local before
	before=$(wc -l <a.out)
	wait_for_lines a.out 20 $((before + 3)) || fail "a stopped ticking"
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 20
	assert_equal "$bg_status" 143
	assert_counts_on a.out a
}

# Checks that file "jobfile", whose line $1 is bad, is refused at start and by
# a dry run: a usage error whose first line is "tfd: jobfile:$1: ..." and holds
# the bad text $2; nothing runs (the file's first line is an @reboot line
# that would create "ran").
assert_bad_jobs() {
	local line=$1 bad=$2 how
	for how in start dry; do
		local -a args=(--jobs jobfile)
		[[ $how == dry ]] && args+=(--dry-run)
		run --separate-stderr timeout 10 "$TFD" "${args[@]}"
		assert_equal "$status" 2
		assert_equal "$output" ""
		[[ ${stderr_lines[0]} == "tfd: jobfile:$line: "* ]] ||
			fail "not 'tfd: jobfile:$line: ...': $stderr"
		[[ ${stderr_lines[0]} == *"$bad"* ]] || fail "does not name '$bad': $stderr"
		assert_equal "${stderr_lines[1]}" "Try 'tfd --help'."
		assert_equal "${#stderr_lines[@]}" 2
		[[ ! -e ran ]] || fail "a job ran although the file is bad"
	done
}

# Writes the lines given as arguments to file "jobfile" after an @reboot line
# that creates "ran" and a comment, so the first of them is line 3.
bad_jobs() {
	{
		echo '@reboot touch ran'
		echo '# the line below is bad'
		printf '%s\n' "$@"
	} >jobfile
}

# The names of the jobs in the dry-run lines "TIME NAME" of $output, in the
# order of their first expiration.
first_runs() {
	awk '!seen[$2]++' <<<"$output"
}

# The man page's command (tfd-jobs(5), EXAMPLES) that drops the user field
# of a system crontab's lines: file $1 to stdout.
drop_user_field() {
	sed -E '/^[[:space:]]*(#|$|[^[:space:]=]*[[:space:]]*=)/b
		/^[[:space:]]*-?@/{s/^([[:space:]]*[^[:space:]]+[[:space:]]+)[^[:space:]]+[[:space:]]+/\1/;b}
		s/^(([[:space:]]*[^[:space:]]+){5}[[:space:]]+)[^[:space:]]+[[:space:]]+/\1/' "$1"
}

# The job lines of the jobs file $1: neither blank, nor a comment, nor an
# environment line, nor @reboot.
job_lines() {
	grep -Ev '^[[:space:]]*(#|$|@reboot|"[^"]*"[[:space:]]*=|[A-Za-z_][A-Za-z0-9_]*[[:space:]]*=)' "$1"
}

# Line kinds

@test "every kind of line: comments, blank lines, environment, 5 fields, each @nickname, '-' before the fields, tfd lines; @reboot is not in a dry run" {
	{
		echo '# a comment'
		printf ' \t# an indented comment\n'
		echo ''
		printf ' \t \n'
		echo 'PATH=/usr/bin:/bin'
		echo '30 9 * * *   /usr/local/bin/backup.sh --full'
		echo '@yearly      yearly.sh'
		echo '@annually    annually.sh'
		echo '@monthly     monthly.sh'
		echo '@weekly      weekly.sh'
		echo '@daily       daily.sh'
		echo '@midnight    midnight.sh'
		echo '@hourly      hourly.sh'
		echo '@reboot      reboot.sh'
		echo "  --name cal --calendar '*-*-* 09:15' -- true"
		echo '-15 9 * * *  no-syslog.sh'
		printf '0 10 * * *   crlf.sh\r\n'
	} >jobfile
	run_clean "$TFD" --jobs jobfile --base-time '2026-12-03 08:50:00 UTC' --dry-run=1000
	run first_runs
	assert_output - <<-'EOF'
		2026-12-03T09:00:00.000000Z hourly.sh
		2026-12-03T09:15:00.000000Z cal
		2026-12-03T09:15:00.000000Z no-syslog.sh
		2026-12-03T09:30:00.000000Z backup.sh
		2026-12-03T10:00:00.000000Z crlf.sh
		2026-12-04T00:00:00.000000Z daily.sh
		2026-12-04T00:00:00.000000Z midnight.sh
		2026-12-06T00:00:00.000000Z weekly.sh
		2027-01-01T00:00:00.000000Z yearly.sh
		2027-01-01T00:00:00.000000Z annually.sh
		2027-01-01T00:00:00.000000Z monthly.sh
	EOF
}

@test "@reboot runs once at start; not again on a reload, nor when a reload adds one" {
	cat >jobfile <<-'EOF'
		@reboot echo boot >> boot.out
		--name keep --interval 1h -- true
	EOF
	start_bg "$TFD" --jobs jobfile --json >ev.json
	wait_for_lines boot.out
	printf '%s\n' '@reboot echo boot >> boot.out' '@reboot echo late >> late.out' \
		'--name keep --interval 1h -- true' | save jobfile
	wait_for_reloads ev.json 1
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 2
	assert_reloads ev.json "ok 1 0 2" "ok 0 0 3"
	run cat boot.out
	assert_output boot
	[[ ! -e late.out ]] || fail "a reload ran an @reboot line"
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	assert_equal "$bg_status" 143
}

@test "@reboot runs at the first start of its jobs in a boot: a restart says it runs none; another boot, other jobs, another replica, PID 1 run them" {
	echo '@reboot echo ran' >rb
	run --separate-stderr "$TFD" --jobs rb
	assert_success
	assert_output ran
	assert_equal "$(without_operator_log "$stderr")" ""
	# The record: a key of the jobs' sources and this boot's id.
	run cat "$TFD_REBOOT_FILE"
	assert_output --regexp "^[0-9a-f]{16} $(cat /proc/sys/kernel/random/boot_id)\$"
	run --separate-stderr "$TFD" --jobs rb
	assert_success
	assert_output ""
	assert_equal "$(without_operator_log "$stderr")" "tfd: not running 1 @reboot job: not the first start since boot ($TFD_REBOOT_FILE)"
	# Other sources are another tfd (a tfd@NAME unit): its first start
	# runs them; so does another replica's of the same jobs.
	cp rb rb2
	run output_without_log "$TFD" --jobs rb2
	assert_output ran
	run output_without_log "$TFD" --jobs rb --replica other
	assert_output ran
	run output_without_log "$TFD" --jobs rb --replica other
	assert_output --partial "not running 1 @reboot job"
	# A record of another boot: this start is the first of this boot.
	sed -i 's/ .*/ 00000000-0000-0000-0000-000000000000/' "$TFD_REBOOT_FILE"
	run output_without_log "$TFD" --jobs rb
	assert_output ran
	# As PID 1 (a container's start is its boot): always.
	if unshare -p -f true 2>/dev/null; then
		run output_without_log unshare -p -f "$TFD" --jobs rb
		assert_output ran
	fi
}

# Not root, no TFD_REBOOT_FILE: the record goes under XDG_RUNTIME_DIR, or,
# without it, under HOME.
@test "@reboot's record as another user: \$XDG_RUNTIME_DIR/tfd/reboot, else \$HOME/.local/state/tfd/reboot" {
	local dir
	dir=$(mktemp -d)
	chmod 755 "$dir"
	mkdir "$dir/xdg" "$dir/home"
	chown nobody "$dir/xdg" "$dir/home"
	echo "@reboot echo ran" >"$dir/rb"
	as_nobody() {
		env -u TFD_REBOOT_FILE "$@" setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$TFD" --jobs "$dir/rb"
	}
	run output_without_log as_nobody XDG_RUNTIME_DIR="$dir/xdg" HOME=/nonexistent
	assert_output ran
	run output_without_log as_nobody XDG_RUNTIME_DIR="$dir/xdg" HOME=/nonexistent
	assert_output "tfd: not running 1 @reboot job: not the first start since boot ($dir/xdg/tfd/reboot)"
	run output_without_log as_nobody -u XDG_RUNTIME_DIR HOME="$dir/home"
	assert_output ran
	run output_without_log as_nobody -u XDG_RUNTIME_DIR HOME="$dir/home"
	assert_output "tfd: not running 1 @reboot job: not the first start since boot ($dir/home/.local/state/tfd/reboot)"
	[[ -s $dir/home/.local/state/tfd/reboot ]] || fail "no record under HOME"
	rm -rf "$dir"
}

@test "a jobs file of @reboot and one-shot jobs exits 0 once they are done" {
	cat >jobfile <<-'EOF'
		@reboot echo boot >> out
		--name once --delay 0.2s --exec 'echo once >> out'
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile
	run sort out
	assert_output $'boot\nonce'
}

# Environment

@test "environment lines apply to the lines below them only, unexpanded, quotes kept off, over tfd's own" {
	cat >jobfile <<-'EOF'
		@reboot echo "1 A=$A B=[${B-unset}]" >> out
		A=1
		B = "  two blanks  "
		C='single'
		D=$HOME/x # not a comment
		"E F" = quoted name
		@reboot echo "2 A=$A B=[$B] C=$C D=$D G=$G" >> out
		--name dump --delay 0 -- env
		A=3
		--name three --delay 0 --exec 'echo "3 A=$A B=[$B]" >> out'
		  # '#' elsewhere than first is text
		@reboot echo a#b >> out
	EOF
	A=outer G=from-tfd run_clean timeout 10 "$TFD" --jobs jobfile
	# A name that is no shell variable reaches a command run without one
	# (sh drops it from its children's environment, under cron too).
	assert_line 'E F=quoted name'
	assert_line 'A=1'
	run sort out
	assert_output - <<-'EOF'
		1 A=outer B=[unset]
		2 A=1 B=[  two blanks  ] C=single D=$HOME/x # not a comment G=from-tfd
		3 A=3 B=[  two blanks  ]
		a#b
	EOF
}

@test "a tfd line's command is found in the PATH its line sees, checked at load" {
	mkdir bin
	printf '#!/bin/sh\necho mine > mine.out\n' >bin/mytool
	chmod +x bin/mytool
	printf '%s\n' "PATH=$PWD/bin:/usr/bin:/bin" '--delay 0 -- mytool' >jobfile
	run_clean timeout 10 "$TFD" --jobs jobfile
	run cat mine.out
	assert_output mine
	# Above its PATH line the command is not found: a bad line, exit 2.
	bad_jobs '--delay 0 -- mytool' "PATH=$PWD/bin:/usr/bin:/bin"
	assert_bad_jobs 3 "'mytool': command not found"
}

@test "SHELL= picks the shell of the crontab lines below it, never tfd's own \$SHELL; --exec stays /bin/sh" {
	printf '#!/bin/sh\necho "$0 $*" >> shell.out\nexec /bin/sh "$@"\n' >myshell
	chmod +x myshell
	cat >jobfile <<-EOF
		@reboot echo one > one.out
		SHELL=$PWD/myshell
		@reboot echo two > two.out
		--name three --delay 0 --exec 'echo three > three.out'
	EOF
	SHELL=$PWD/myshell run_clean timeout 10 "$TFD" --jobs jobfile
	run cat one.out two.out three.out
	assert_output $'one\ntwo\nthree'
	run cat shell.out
	assert_output "$PWD/myshell -c echo two > two.out"
}

@test "MAILTO is set in the runs' environment, without a warning" {
	cat >jobfile <<-'EOF'
		# mail
		MAILTO=ops@example.com
		@reboot echo "$MAILTO" > mail.out
		MAILTO=""
		@reboot echo "[$MAILTO]" > empty.out
	EOF
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile
	assert_success
	assert_equal "$(without_operator_log "$stderr")" ""
	run cat mail.out empty.out
	assert_output $'ops@example.com\n[]'
	run --separate-stderr "$TFD" --jobs jobfile --dry-run
	assert_success
	assert_equal "$stderr" ""
}

# Crontab's '%'

@test "'%' ends a crontab command: the rest is its stdin, '%' as newline; '\\%' is a '%'; without '%' the run reads tfd's stdin" {
	cat >jobfile <<-'EOF'
		@reboot cat > in1%first%second
		@reboot printf '\%s|' "$(cat)" > in2%a\%b
		@reboot echo 100\% > in3
		@reboot cat > in4
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile <<<"tfd's stdin"
	run cat in1
	assert_output $'first\nsecond'
	[[ $(tail -c1 in1 | od -An -c) == *'\n'* ]] || fail "no newline added at the end"
	run cat in2 in3 in4
	assert_output $'a%b|100%\ntfd\'s stdin'
}

# CRON_TZ

@test "CRON_TZ: the zone of the cron and calendar lines below it, as TZ is for one job; %T stays in TZ" {
	cat >jobfile <<-'EOF'
		0 9 * * *  local.sh
		CRON_TZ=America/New_York
		0 9 * * *  ny.sh
		--name cal --calendar '*-*-* 09:00' -- true
		CRON_TZ=UTC
		0 9 * * *  utc.sh
	EOF
	TZ=Europe/Berlin run_clean "$TFD" --jobs jobfile --base-time "$BASE" --dry-run=4
	assert_output - <<-'EOF'
		2026-12-03T08:00:00.000000Z local.sh
		2026-12-03T09:00:00.000000Z utc.sh
		2026-12-03T14:00:00.000000Z ny.sh
		2026-12-03T14:00:00.000000Z cal
	EOF
	# The cron line under CRON_TZ is what the same --cron gives under TZ.
	TZ=America/New_York run_clean "$TFD" --cron '0 9 * * *' --base-time "$BASE" --dry-run=1
	assert_output 2026-12-03T14:00:00.000000Z
	TZ=Europe/Berlin run_clean "$TFD" --jobs jobfile --base-time "$BASE" --dry-run=3 -f '%T %j'
	assert_line --index 2 '2026-12-03T15:00:00.000000+01:00 ny.sh'
}

# Names

@test "names: --name first, then default names with -2, -3 in file order; an explicit name twice is an error" {
	cat >jobfile <<-'EOF'
		@daily backup.sh
		--name backup.sh --cron @daily -- true
		@daily /usr/local/bin/backup.sh --full
		@daily LANG=C sort -u list
		--cron @daily --exec '"/opt/my tool" arg'
		--cron @daily -- /bin/true
		@daily ( cd /srv && ls )
		@daily a
		@daily a
		--name a-2 --cron @daily -- true
	EOF
	run_clean "$TFD" --jobs jobfile --base-time "$BASE" --dry-run=10 -f '%j'
	assert_output - <<-'EOF'
		backup.sh-2
		backup.sh
		backup.sh-3
		sort
		my tool
		true
		job
		a
		a-3
		a-2
	EOF
	bad_jobs '--name x --interval 1h -- true' '@daily x' '--name x --cron @daily -- true'
	assert_bad_jobs 5 "--name 'x': already the name of another job"
}

@test "%j, \"job\" and TFD_JOB name the job of every tick, run and exit" {
	cat >jobfile <<-'EOF'
		--name alpha --delay 0 --exec 'echo "$TFD_JOB" >> names.out'
		@reboot echo "$TFD_JOB" >> names.out
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile --json
	run jq -r '"\(.event) \(.job)"' <<<"$output"
	assert_line 'tick alpha'
	assert_line 'exit alpha'
	assert_line 'tick echo'
	assert_line 'exit echo'
	assert_equal "${#lines[@]}" 4
	run sort names.out
	assert_output $'alpha\necho'
	# @reboot runs at the first start in a boot: the record gone is another boot.
	rm "$TFD_REBOOT_FILE"
	run_clean timeout 10 "$TFD" --jobs jobfile --format '%j %n'
	run sort <<<"$output"
	assert_output $'alpha 1\necho 1'
}

# Errors

@test "bad crontab lines: FILE:LINE and the bad text, exit 2, nothing runs" {
	bad_jobs '* * * * cmd'
	assert_bad_jobs 3 "bad crontab line '* * * * cmd': 4 time fields before 'cmd', expected 5 or an @nickname"
	# A field left out before a command with arguments: the word named,
	# never --cron, which a file's line does not have.
	bad_jobs '*/5 * * * echo a b'
	assert_bad_jobs 3 "bad crontab line '*/5 * * * echo a b': 4 time fields before 'echo', expected 5 or an @nickname"
	bad_jobs '* * * *'
	assert_bad_jobs 3 "bad crontab line '* * * *': 4 time fields and no command"
	bad_jobs '* * * * *'
	assert_bad_jobs 3 "'* * * * *': no command after the 5 time fields"
	bad_jobs '* * * * * * cmd'
	assert_bad_jobs 3 "'* * * * * * cmd': the command begins with '*'"
	bad_jobs '@often cmd'
	assert_bad_jobs 3 "unknown nickname '@often'"
	bad_jobs '@daily'
	assert_bad_jobs 3 "'@daily': no command after @daily"
	bad_jobs '* * * * * %stdin'
	assert_bad_jobs 3 "no command before '%'"
	bad_jobs '61 * * * * cmd'
	assert_bad_jobs 3 "minute out of range 0-59 in '61'"
	[[ $stderr != *--cron* ]] || fail "a crontab line's error names --cron: $stderr"
	bad_jobs 'hello world'
	assert_bad_jobs 3 "bad line 'hello world'"
}

@test "bad environment lines: FILE:LINE and the bad text, exit 2, nothing runs" {
	bad_jobs 'A='
	assert_bad_jobs 3 "bad environment line 'A=': no value"
	bad_jobs '=x'
	assert_bad_jobs 3 "'=x': empty variable name"
	bad_jobs 'A="x'
	assert_bad_jobs 3 "'A=\"x': unterminated \" quote"
	bad_jobs "A='x"
	assert_bad_jobs 3 "'A='x': unterminated ' quote"
	bad_jobs 'A="x" y'
	assert_bad_jobs 3 "'A=\"x\" y': text after the closing quote"
	bad_jobs '"A B = 1'
	assert_bad_jobs 3 "'\"A B = 1'"
	bad_jobs 'SHELL=""'
	assert_bad_jobs 3 "'SHELL=\"\"': SHELL is empty"
}

@test "bad tfd lines: FILE:LINE and the bad text, exit 2, nothing runs" {
	bad_jobs "--delay 1 -- echo 'x"
	assert_bad_jobs 3 "bad tfd line '--delay 1 -- echo 'x': unterminated ' quote"
	bad_jobs '--delay 1 -- echo "x'
	assert_bad_jobs 3 "unterminated \" quote"
	bad_jobs '--delay 1 -- echo x\'
	assert_bad_jobs 3 "backslash at the end of the line"
	bad_jobs '--delay 1 -- echo a;b'
	assert_bad_jobs 3 "unquoted ';'"
	bad_jobs '--delay 1 -- echo $HOME'
	assert_bad_jobs 3 "unquoted '\$'"
	bad_jobs '--json --delay 1 -- true'
	assert_bad_jobs 3 "--json: not an option of a job line"
	bad_jobs '--jobs other --delay 1 -- true'
	assert_bad_jobs 3 "--jobs: not an option of a job line"
	bad_jobs '--delay 1'
	assert_bad_jobs 3 "bad tfd line '--delay 1': no command"
	bad_jobs '-- true'
	assert_bad_jobs 3 "bad tfd line '-- true': no schedule"
	bad_jobs '--at @0 --delay 1 -- true'
	assert_bad_jobs 3 "bad tfd line '--at @0 --delay 1 -- true': --at and --delay conflict"
	bad_jobs '--delay 1x -- true'
	assert_bad_jobs 3 "--delay: invalid duration '1x'"
	bad_jobs '--overlap sometimes --delay 1 -- true'
	assert_bad_jobs 3 "'sometimes'"
	bad_jobs '--delay 1 -- no-such-command-here'
	assert_bad_jobs 3 "'no-such-command-here': command not found"
	touch notexec
	bad_jobs "--delay 1 -- $PWD/notexec"
	assert_bad_jobs 3 "'$PWD/notexec': Permission denied"
	bad_jobs '--name "" --delay 1 -- true'
	assert_bad_jobs 3 "--name '': must not be empty"
}

@test "a NUL byte and an overlong line are errors naming the line" {
	printf '@reboot touch ran\n# next\n@daily a\0b\n' >jobfile
	assert_bad_jobs 3 "NUL byte at column 9"
	{
		printf '@reboot touch ran\n# next\n@daily echo '
		head -c 131072 /dev/zero | tr '\0' x
		echo
	} >jobfile
	assert_bad_jobs 3 "line too long"
}

@test "a line whose shell is missing, a crontab line whose command is not in its PATH: a warning at load (the shell's in a dry run too), never a refusal" {
	cat >jobfile <<-'EOF'
		PATH=/usr/bin:/bin
		--name up --delay 0 -- /usr/bin/touch up
		0 1 * * * tfd-no-such-cmd --x
		0 2 * * * cd / && echo builtins are not looked up
		0 3 * * * /bin/true an absolute path that is there
		0 4 * * * FOO=1 /no/such/tfd-cmd
		0 5 * * * if true; then :; fi
		0 6 * * * tfd-no-such-cmd said once
		SHELL=/nonexistent/sh
		0 7 * * * true
		--name e --interval 1h --exec true
	EOF
	local shell="tfd: warning: jobfile:10: the shell '/nonexistent/sh': No such file or directory: the runs of the lines it runs will fail (status 127)"
	# A dry run, often where the commands are not installed, says the
	# shell alone; the dry run is as it would be.
	run --separate-stderr "$TFD" --jobs jobfile --dry-run=1 --base-time "$BASE"
	assert_success
	assert_output "2026-12-03T00:00:00.000000Z up"
	assert_equal "$stderr" "$shell"
	# A start says each once, and runs what it can.
	start_bg "$TFD" --jobs jobfile 2>err
	wait_for_lines err 5 3 || fail "$(cat err)"
	for ((i = 0; i < 100; i++)); do [[ -e up ]] && break; sleep 0.05; done
	[[ -e up ]] || fail "the load was refused: $(cat err)"
	run without_operator_log "$(cat err)"
	assert_output - <<-EOF
		tfd: warning: jobfile:3: 'tfd-no-such-cmd' is not found in its PATH (/usr/bin:/bin): its runs will fail (status 127)
		tfd: warning: jobfile:6: '/no/such/tfd-cmd': No such file or directory: its runs will fail (status 127)
		$shell
	EOF
}

@test "a missing or unreadable file is exit 2 naming it" {
	assert_system_error "--jobs 'no-such-file'" --jobs no-such-file
	assert_system_error "no-such-file" --jobs no-such-file --dry-run
}

# A directory is a source of files (59-host-cron.bats), no longer refused.
@test "a FIFO or a device as the file is exit 2 naming it, at once, also in a dry run" {
	mkfifo fifo
	ln -s fifo link
	local f dry
	for f in fifo link /dev/null; do
		for dry in --verbose --dry-run=1; do
			run --separate-stderr timeout 10 "$TFD" --jobs "$f" "$dry"
			assert_equal "$status" 2
			assert_equal "$output" ""
			case $f in
			/dev/null) assert_equal "${stderr_lines[0]}" "tfd: --jobs '/dev/null': a device, not a regular file" ;;
			*) assert_equal "${stderr_lines[0]}" "tfd: --jobs '$f': a FIFO, not a regular file" ;;
			esac
			# No hint: --help cannot mend a file.
			assert_equal "${#stderr_lines[@]}" 1
		done
	done
}

@test "a file with no job is valid: tfd waits for a reload that brings some" {
	printf '# nothing yet\nA=1\n\n' >jobfile
	start_bg "$TFD" --jobs jobfile
	# Loaded and watching (a tfd that exited fails the wait).
	wait_for_watch "${BG_PIDS[0]}"
	printf '%s\n' '--delay 0 --exec "echo \$A > ran"' 'A=1' | save jobfile
	wait_for_lines ran
	# That one-shot job done, tfd has nothing left to do.
	wait_bg_exit "${BG_PIDS[0]}"
	assert_equal "$bg_status" 0
}

# Options beside --jobs

@test "options beside --jobs are defaults of every line; a line's own option overrides them" {
	cat >jobfile <<-'EOF'
		--name a --delay 0 -- true
		--name b --delay 0 --format 'line %j %n' -- true
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile --format 'default %j %n'
	run sort <<<"$output"
	assert_output $'default a 1\nline b 1'
	cat >jobfile <<-EOF
		--name short --delay 0 -- sleep 100.${MARKN}1
		--name long --delay 0 --timeout 30s -- sleep 1
		@reboot sleep 100.${MARKN}2
	EOF
	run_clean timeout 20 "$TFD" --jobs jobfile --timeout 0.3s --json
	run jq -r 'select(.event == "exit") | "\(.job) \(.timed_out) \(.signal) \(.status)"' <<<"$output"
	assert_line 'short true SIGTERM null'
	assert_line 'long false null 0'
	assert_line 'sleep true SIGTERM null'
	assert_equal "${#lines[@]}" 3
}

@test "job-only options beside --jobs are a usage error quoting them" {
	echo '@daily true' >jobfile
	local -a opt
	for spec in '--name x' '--at @0' '--delay 1' '--interval 1' '--count 1' '--for 1s' \
		'--calendar daily' '--cron @daily' '--exec true' '--persist p'; do
		read -ra opt <<<"$spec"
		assert_usage_error "${opt[0]} '${opt[1]}' cannot be given beside --jobs: it belongs on a line of 'jobfile'" \
			--jobs jobfile "${opt[@]}"
	done
	assert_usage_error "a COMMAND 'true' cannot be given beside --jobs" --jobs jobfile -- true
	assert_usage_error "a COMMAND 'echo a b' cannot be given beside --jobs: it belongs on a line of 'jobfile'" \
		--jobs jobfile echo a b
	[[ ! -e p ]]
}

# Dry run

@test "dry run: the jobs merged in time order, equal instants in file order, '%t %j' by default" {
	cat >jobfile <<-'EOF'
		--name zeta --interval 20s -- true
		--name alpha --interval 30s --count 3 -- true
		* * * * *  minute.sh
	EOF
	run_clean "$TFD" --jobs jobfile --base-time '2026-12-03 10:00:00 UTC' --dry-run=9
	assert_output - <<-'EOF'
		2026-12-03T10:00:20.000000Z zeta
		2026-12-03T10:00:30.000000Z alpha
		2026-12-03T10:00:40.000000Z zeta
		2026-12-03T10:01:00.000000Z zeta
		2026-12-03T10:01:00.000000Z alpha
		2026-12-03T10:01:00.000000Z minute.sh
		2026-12-03T10:01:20.000000Z zeta
		2026-12-03T10:01:30.000000Z alpha
		2026-12-03T10:01:40.000000Z zeta
	EOF
	run_clean "$TFD" --jobs jobfile --base-time '2026-12-03 10:00:00 UTC' --dry-run=2 --json
	run jq -r '"\(.job) \(.time)"' <<<"$output"
	assert_output $'zeta 2026-12-03T10:00:20.000000Z\nalpha 2026-12-03T10:00:30.000000Z'
}

# Reload

@test "SIGHUP reloads: a kept job keeps its counters, a new one starts, a removed one's run finishes, a bad file changes nothing" {
	mkdir dir other
	# c's run outlasts the reload even on a loaded machine: a run that
	# ended before it would let c start a second one, as it should.
	cat >dir/jobs <<-'EOF'
		--name a --interval 0.2s --exec 'echo $TFD_SEQ >> a.out'
		--name c --delay 0 --interval 0.25s --exec 'echo start >> c.out; sleep 3; echo end >> c.out'
	EOF
	# A second name in another directory: writes through it are a change
	# that inotify on dir/ does not see, so only SIGHUP reloads it.
	ln dir/jobs other/jobs
	start_bg "$TFD" --jobs dir/jobs --json >ev.json 2>err
	wait_for_lines a.out 20 3
	wait_for_lines c.out
	cat >other/jobs <<-'EOF'
		--name b --interval 0.2s --exec 'echo $TFD_SEQ >> b.out'
		--name a --interval 0.2s --exec 'echo $TFD_SEQ >> a.out'
	EOF
	nap 0.4
	run reloads ev.json
	assert_output ""
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 1
	run reloads ev.json
	assert_output "ok 1 1 1"
	wait_for_lines b.out 20 2
	# The removed job's run was not ended: it finishes, and is reported.
	wait_for_match c.out '^end$'
	wait_for_match ev.json '"event":"exit","job":"c",.*"status":0,'
	# And c wakes no more.
	run bash -c "sed -n '/\"reload\"/,\$p' ev.json | jq -r 'select(.event == \"tick\") | .job' | sort -u"
	assert_output $'a\nb'
	# The unchanged file again: every job kept.
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 2
	# A bad file: one line on stderr, a reload event with ok false, and the
	# jobs run on.
	echo 'garbage here' >>other/jobs
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 3
	local before
	before=$(wc -l <a.out)
	wait_for_lines a.out 20 $((before + 2))
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	assert_equal "$bg_status" 143
	run reloads ev.json
	assert_line --index 1 "ok 0 0 2"
	assert_line --index 2 "error dir/jobs:3: bad line 'garbage here': not NAME=VALUE, a crontab line (5 time fields or an @nickname, then a command) or a tfd line (options, beginning with '-')"
	assert_equal "${#lines[@]}" 3
	run cat err
	assert_output "tfd: dir/jobs:3: bad line 'garbage here': not NAME=VALUE, a crontab line (5 time fields or an @nickname, then a command) or a tfd line (options, beginning with '-')"
	assert_counts_on a.out a
	assert_counts_on b.out b
	run cat c.out
	assert_output $'start\nend'
}

@test "a FIFO put in the file's place is refused on reload: the jobs tick on, the error is reported, SIGTERM is served" {
	start_ticking
	# Renamed into place (inotify sees it), then removed and made anew;
	# each time a SIGHUP too.
	mkfifo f2
	mv f2 jobfile
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 1
	rm jobfile
	mkfifo jobfile
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 2
	assert_ticks_on_and_ends
	# One event and one line on stderr for each refused reload.
	run reloads ev.json
	local line
	for line in "${lines[@]}"; do
		assert_equal "$line" "error --jobs 'jobfile': a FIFO, not a regular file"
	done
	run sort -u err
	assert_output "tfd: --jobs 'jobfile': a FIFO, not a regular file"
}

@test "a file change reloads: rename over, in-place rewrite, a new file written slowly, a slow in-place write, a symlink or hard link put in place; one save is one reload" {
	mkdir dir
	echo '--name a --interval 1h -- true' >dir/jobs
	start_bg "$TFD" --jobs dir/jobs --json >ev.json 2>err
	wait_for_watch "${BG_PIDS[0]}"
	# An editor's save: a new file renamed over the old.
	printf '%s\n' '--name a --interval 1h -- true' '--name b --interval 1h -- true' | save dir/jobs
	wait_for_reloads ev.json 1
	assert_reloads ev.json "ok 1 0 1"
	# A rewrite in place.
	printf '%s\n' '--name a --interval 1h -- true' '--name c --interval 1h -- true' >dir/jobs
	wait_for_reloads ev.json 2
	assert_reloads ev.json "ok 1 0 1" "ok 1 1 1"
	# vim's save: the old file renamed away, a new one created and written;
	# it is read once closed, never half-written.
	mv dir/jobs dir/jobs~
	{
		echo '--name a --interval 1h -- true'
		printf -- '--name d --interv'
		nap 0.4
		echo 'al 1h -- true'
	} >dir/jobs
	wait_for_reloads ev.json 3
	assert_reloads ev.json "ok 1 0 1" "ok 1 1 1" "ok 1 1 1"
	# The same, in place: truncated, written slowly, closed.
	{
		echo '--name a --interval 1h -- true'
		printf -- '--name e --interv'
		nap 0.4
		echo 'al 1h -- true'
	} >dir/jobs
	wait_for_reloads ev.json 4
	assert_reloads ev.json "ok 1 0 1" "ok 1 1 1" "ok 1 1 1" "ok 1 1 1"
	# Linked into place: a symlink, then a second hard link of a file.
	printf '%s\n' '--name a --interval 1h -- true' '--name f --interval 1h -- true' >dir/other
	ln -sf other dir/jobs
	wait_for_reloads ev.json 5
	printf '%s\n' '--name a --interval 1h -- true' '--name g --interval 1h -- true' >dir/third
	ln -f dir/third dir/jobs
	wait_for_reloads ev.json 6
	assert_reloads ev.json "ok 1 0 1" "ok 1 1 1" "ok 1 1 1" "ok 1 1 1" "ok 1 1 1" "ok 1 1 1"
	# A save that changes nothing, a touch, a file beside it: no reload.
	cp dir/jobs dir/copy && mv dir/copy dir/jobs
	touch dir/jobs dir/unrelated
	echo x >dir/unrelated
	assert_reloads ev.json "ok 1 0 1" "ok 1 1 1" "ok 1 1 1" "ok 1 1 1" "ok 1 1 1" "ok 1 1 1"
	run cat err
	assert_output ""
}

@test "a Kubernetes ConfigMap's ..data symlink swap reloads, once" {
	mkdir -p cm/..2026_a
	echo '--name a --interval 1h -- true' >cm/..2026_a/jobs
	ln -s ..2026_a cm/..data
	ln -s ..data/jobs cm/jobs
	start_bg "$TFD" --jobs cm/jobs --json >ev.json 2>err
	# Two watches: the ConfigMap's directory and the one its link reaches.
	wait_for_watch "${BG_PIDS[0]}" 20 2
	# What the kubelet does: a new timestamped directory, a temporary link
	# to it renamed over ..data, the old directory removed.
	mkdir cm/..2026_b
	printf '%s\n' '--name a --interval 1h -- true' '--name b --interval 1h -- true' >cm/..2026_b/jobs
	ln -s ..2026_b cm/..data_tmp
	mv -T cm/..data_tmp cm/..data
	rm -rf cm/..2026_a
	wait_for_reloads ev.json 1
	assert_reloads ev.json "ok 1 0 1"
	run cat err
	assert_output ""
}

# Ending

@test "SIGTERM reaches every job's runs, a removed job's too, and tfd exits 143" {
	cat >jobfile <<-EOF
		--name one --delay 0 -- sleep 100.${MARKN}1
		--name two --delay 0 --exec 'sleep 100.${MARKN}2; true'
		@reboot sleep 100.${MARKN}3
		--name four --delay 0 -- sleep 100.${MARKN}4
	EOF
	start_bg "$TFD" --jobs jobfile --json >ev.json
	local i
	for i in 1 2 3 4; do
		wait_for_process "^sleep 100\\.$MARKN$i\$"
	done
	sed '/--name four/d' jobfile | save jobfile
	wait_for_reloads ev.json 1
	run reloads ev.json
	assert_output "ok 0 1 3"
	pgrep -f "^sleep 100\\.${MARKN}4\$" >/dev/null || fail "a removed job's run was ended by the reload"
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	assert_equal "$bg_status" 143
	run pgrep -af "^sleep 100\\.$MARKN"
	assert_output ""
	run jq -r 'select(.event == "exit") | "\(.job) \(.signal)"' ev.json
	assert_line 'one SIGTERM'
	assert_line 'two SIGTERM'
	assert_line 'sleep SIGTERM'
	assert_line 'four SIGTERM'
}

@test "-E: the first failing run of any job ends tfd with its status, and the other runs" {
	cat >jobfile <<-EOF
		--name fine --interval 0.1s -- true
		--name slow --delay 0 -- sleep 100.${MARKN}1
		--name bad --delay 0.5s --exec 'exit 7'
		@reboot sleep 100.${MARKN}2
	EOF
	run --separate-stderr timeout 20 "$TFD" --jobs jobfile -E
	assert_equal "$status" 7
	run pgrep -af "^sleep 100\\.$MARKN"
	assert_output ""
	cat >jobfile <<-'EOF'
		--name fine --interval 0.1s -- true
		@reboot sleep 0.3; exit 9
	EOF
	rm "$TFD_REBOOT_FILE"   # another boot: @reboot runs again
	run --separate-stderr timeout 20 "$TFD" --jobs jobfile -E
	assert_equal "$status" 9
}

# Scale

@test "10,000 jobs under ulimit -n 1024: a dry run and a real start" {
	awk 'BEGIN {
		for (i = 0; i < 5000; i++)
			printf "%d %d * * * echo cron%d\n", i % 60, i / 60 % 24, i
		for (i = 0; i < 5000; i++)
			printf "--name cal%d --calendar \x27*-*-* %02d:%02d:%02d\x27 -- true\n", i, i / 3600 % 24, i / 60 % 60, i % 60
	}' >jobfile
	run bash -c "ulimit -n 1024 && '$TFD' --jobs jobfile --base-time '$BASE' --dry-run=20000 | sort -c -s -k1,1 && '$TFD' --jobs jobfile --base-time '$BASE' --dry-run=20000 | awk '!seen[\$2]++' | wc -l"
	assert_success
	assert_output 10000
	echo "@reboot touch started" >>jobfile
	start_bg bash -c "ulimit -n 1024 && exec '$TFD' --jobs jobfile"
	wait_for_lines started 30 0
	local fds
	fds=$(find "/proc/${BG_PIDS[0]}/fd" -mindepth 1 | wc -l)
	((fds < 32)) || fail "$fds descriptors open for 10,000 jobs"
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 30
	assert_equal "$bg_status" 143
}

# Writes to file $1 the job line $2, then comment lines up to $3 bytes in all.
pad_jobs() {
	{
		printf '%s\n' "$2"
		yes "#$(printf '%099d' 0)" | head -c $(($3 - ${#2} - 1))
	} >"$1"
	assert_equal "$(stat -c %s "$1")" "$3"
}

@test "a file of 16 MiB is taken; one byte more, a sparse terabyte or /dev/zero is refused at once, also in a dry run" {
	pad_jobs jobfile '--name a --interval 1s -- true' $((16 << 20))
	run_clean timeout 20 "$TFD" --jobs jobfile --base-time "$BASE" --dry-run=1
	assert_output "2026-12-03T00:00:01.000000Z a"
	echo >>jobfile
	truncate -s 1T sparse
	local f dry
	for f in jobfile sparse /dev/zero; do
		for dry in --verbose --dry-run=1; do
			run --separate-stderr timeout 10 "$TFD" --jobs "$f" "$dry"
			assert_equal "$status" 2
			if [[ $f == /dev/zero ]]; then
				assert_equal "${stderr_lines[0]}" "tfd: --jobs '$f': a device, not a regular file"
			else
				assert_equal "${stderr_lines[0]}" "tfd: --jobs '$f': too large: more than 16777216 bytes"
			fi
			assert_equal "${#stderr_lines[@]}" 1
		done
	done
}

@test "a reload onto a file over 16 MiB or onto /dev/zero is refused; the jobs tick on and SIGTERM is served" {
	start_ticking
	pad_jobs big '--name b --interval 0.1s -- true' $(((16 << 20) + 1))
	# Each put in place whole, so each is one reload.
	mv big jobfile
	wait_for_reloads ev.json 1
	ln -sf /dev/zero jobfile
	wait_for_reloads ev.json 2
	assert_ticks_on_and_ends
	run reloads ev.json
	assert_output "error --jobs 'jobfile': too large: more than 16777216 bytes
error --jobs 'jobfile': a device, not a regular file"
	run cat err
	assert_output "tfd: --jobs 'jobfile': too large: more than 16777216 bytes
tfd: --jobs 'jobfile': a device, not a regular file"
}

# Crontabs written for cron

@test "a Debian package's /etc/cron.d file, less its user field, is taken as it is" {
	drop_user_field "$FIXTURES/e2scrub_all.cron.d" >jobfile
	run cat jobfile
	assert_output - <<-'EOF'
		30 3 * * 0 test -e /run/systemd/system || SERVICE_MODE=1 /usr/lib/x86_64-linux-gnu/e2fsprogs/e2scrub_all_cron
		10 3 * * * test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r
	EOF
	run_clean "$TFD" --jobs jobfile --base-time "$BASE" --dry-run=3
	assert_output - <<-'EOF'
		2026-12-03T03:10:00.000000Z test-2
		2026-12-04T03:10:00.000000Z test-2
		2026-12-05T03:10:00.000000Z test-2
	EOF
	run_clean "$TFD" --jobs jobfile --base-time "$BASE" --dry-run=10
	run first_runs
	assert_output $'2026-12-03T03:10:00.000000Z test-2\n2026-12-06T03:30:00.000000Z test'
	# Debian's /etc/crontab: environment lines, comments, a { ...; } list.
	drop_user_field "$FIXTURES/debian.crontab" >jobfile
	run_clean "$TFD" --jobs jobfile --base-time "$BASE" --dry-run=1000
	run first_runs
	assert_output - <<-'EOF'
		2026-12-03T00:17:00.000000Z cd
		2026-12-03T06:25:00.000000Z test
		2026-12-06T06:47:00.000000Z test-2
		2027-01-01T06:52:00.000000Z test-3
	EOF
	# And this machine's own, whatever they are.
	local f
	for f in /etc/cron.d/*; do
		[[ -f $f ]] || continue
		drop_user_field "$f" >jobfile
		run_clean "$TFD" --jobs jobfile --dry-run=1
	done
}

@test "a crontab that uses every crontab(5) feature: each line accepted, each job's first run as cron has it, its environment as cron sets it" {
	local f=$FIXTURES/every-feature.crontab
	run --separate-stderr "$TFD" --jobs "$f" --base-time "$BASE" --dry-run=100000
	assert_success
	assert_equal "$stderr" ""
	run first_runs
	assert_output - <<-'EOF'
		2026-12-03T00:05:00.000000Z lists-steps.sh
		2026-12-03T01:00:00.000000Z hourly-field.sh
		2026-12-03T01:00:00.000000Z hourly.sh
		2026-12-03T04:45:00.000000Z no-syslog.sh
		2026-12-03T08:00:00.000000Z range-step.sh
		2026-12-03T14:15:00.000000Z stdin.sh
		2026-12-04T00:00:00.000000Z tar
		2026-12-04T00:00:00.000000Z daily.sh
		2026-12-04T00:00:00.000000Z midnight.sh
		2026-12-06T00:00:00.000000Z weekly.sh
		2026-12-06T06:00:00.000000Z sunday-is-7.sh
		2026-12-07T12:00:00.000000Z dom-or-dow.sh
		2026-12-31T00:00:00.000000Z thirty-first.sh
		2027-01-01T00:00:00.000000Z quarterly.sh
		2027-01-01T00:00:00.000000Z yearly.sh
		2027-01-01T00:00:00.000000Z annually.sh
		2027-01-01T00:00:00.000000Z monthly.sh
		2027-01-03T06:00:00.000000Z names.sh
		2028-02-29T23:30:00.000000Z leap-day.sh
	EOF
	assert_equal "${#lines[@]}" "$(job_lines "$f" | wc -l)"
	# Run for real: the @reboot line dumps the environment cron would set.
	export ENV_DUMP=$PWD/env.out
	start_bg "$TFD" --jobs "$f"
	wait_for_match env.out '^CRON_TZ='
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}"
	assert_equal "$bg_status" 143
	# Not "QUOTED NAME": sh, cron's shell too, passes on no such name.
	run grep -E '^(SHELL|PATH|MAILTO|GREETING|LITERAL|CRON_TZ)=' env.out
	assert_line 'SHELL=/bin/sh'
	assert_line 'PATH=/usr/local/bin:/usr/bin:/bin'
	assert_line 'MAILTO='
	assert_line 'GREETING=  hello, world  '
	assert_line 'LITERAL=$HOME # not a comment'
	assert_equal "${#lines[@]}" 6
	assert_line 'CRON_TZ=UTC'
}

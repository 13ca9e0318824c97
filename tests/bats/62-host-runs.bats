#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# A host's cron as safe as cron (SPEC "As safe as cron"): how a run as
# another user starts. Its user is looked up at each run (removed: an
# "error" event, no run; a group left: not kept), a PAM session of service
# cron is opened (an expired account does not run; pam_env's variables,
# pam_limits' limits; closed when the run ends), the environment is
# cron's, not tfd's, the directory is HOME, the run has a session of its
# own and no terminal; USER and GROUP may be numbers. Users and groups made
# here are named tfb*, and removed in teardown. tfd runs as root, as in CI.

load test_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	[[ $(id -u) == 0 ]] || fail "these tests need root (CI runs them as root)"
	TEST_USER=tfb$RANDOM
	# The user's HOME, where the user can reach it (bats' own directories
	# are root's alone).
	HOME_DIR=$(mktemp -d /tmp/tfbhome.XXXXXX)
	chmod 755 "$HOME_DIR"
}

eval "helper_$(declare -f teardown)"
teardown() {
	helper_teardown
	rm -rf "$HOME_DIR"
	remove_user "$TEST_USER" "${TEST_USER}g"
}

make_user() {
	useradd -M -d "$HOME_DIR" -s /bin/bash -U "$@" "$TEST_USER"
	chown "$TEST_USER:" "$HOME_DIR"
}

# libpam as tfd loads it: Debian's libpam0g, in every base image.
require_pam() {
	ldconfig -p | grep -q 'libpam\.so\.0 ' || skip "libpam is not installed"
}

# Runs "$@" in a mount namespace of its own whose /etc/pam.d/cron is
# ./cron.pam: the host's PAM files are not touched.
with_pam_config() {
	mkdir -p pam.d
	cp -a /etc/pam.d/. pam.d/
	cp cron.pam pam.d/cron
	unshare -m sh -c 'mount --bind "$1/pam.d" /etc/pam.d && shift && exec "$@"' \
		sh "$PWD" "$@"
}

@test "each run looks its user up: a user removed since the load is an error event, and nothing runs" {
	make_user
	cat >jobs.tab <<-EOF
		--name del --delay 0 --count 1 -- /usr/sbin/userdel $TEST_USER
		--name as-user --delay 1.5s --count 1 --user $TEST_USER -- /usr/bin/touch $HOME_DIR/ran
	EOF
	run --separate-stderr timeout 20 "$TFD" --json --jobs jobs.tab
	assert_equal "$status" 1
	run jq -c 'select(.job == "as-user" and .event != "tick") | [.event, .call // .status, .message // .failed]' <<<"$output"
	assert_output - <<-EOF
		["error","user","as-user: user '$TEST_USER': no such user; run 1 (try 1) did not start"]
		["exit",125,true]
	EOF
	assert_equal "$stderr" "tfd: as-user: user '$TEST_USER': no such user; run 1 (try 1) did not start"
	[[ ! -e "$HOME_DIR/ran" ]] || fail "the run started"
}

@test "each run gets the groups of the moment (initgroups): a membership removed since the load is gone" {
	groupadd "${TEST_USER}g"
	make_user -G "${TEST_USER}g"
	local gid
	gid=$(getent group "${TEST_USER}g" | cut -d: -f3)
	cat >jobs.tab <<-EOF
		--name before --delay 0 --count 1 --user $TEST_USER -- /usr/bin/id -G
		--name leave --delay 1s --count 1 -- /usr/bin/gpasswd -d $TEST_USER ${TEST_USER}g
		--name after --delay 2s --count 1 --user $TEST_USER -- /usr/bin/id -G
	EOF
	run --separate-stderr timeout 20 "$TFD" --quiet --jobs jobs.tab
	assert_success
	[[ ${lines[0]} =~ (^| )$gid( |$) ]] || fail "before: ${lines[0]}, no $gid"
	assert_line --index 1 --partial "Removing user $TEST_USER from group ${TEST_USER}g"
	[[ ! ${lines[2]} =~ (^| )$gid( |$) ]] || fail "after: ${lines[2]} still has $gid"
	assert_equal "${lines[2]}" "$(id -G "$TEST_USER")"
}

@test "an expired account (chage -E 0) does not run: PAM's account check, an error event" {
	require_pam
	make_user
	chage -E 0 "$TEST_USER"
	run --separate-stderr timeout 20 "$TFD" --json --user "$TEST_USER" --delay 0 --count 1 \
		-- /usr/bin/touch "$HOME_DIR/ran"
	# A single job's tfd ends with its run's status: 125, it never ran.
	assert_equal "$status" 125
	run jq -r 'select(.event == "error") | "\(.call) \(.message)"' <<<"$output"
	assert_output --regexp "^user touch: user '$TEST_USER': pam_acct_mgmt \(service cron\): .+; run 1 \(try 1\) did not start$"
	[[ ! -e "$HOME_DIR/ran" ]] || fail "the run started"
	# The account made good again runs.
	chage -E -1 "$TEST_USER"
	run timeout 20 "$TFD" --quiet --user "$TEST_USER" --delay 0 --count 1 -- /usr/bin/id -un
	assert_success
	assert_output "$TEST_USER"
}

@test "a PAM session of service cron: pam_env's variables, pam_limits' limits, closed when the run ends" {
	require_pam
	require_command unshare
	make_user
	printf 'TFB_FROM_PAM=pam-value\nPATH=/from/pam\n' >pam.env
	: >pam_env.conf
	printf '%s soft nofile 77\n%s hard nofile 77\n' "$TEST_USER" "$TEST_USER" >limits.conf
	printf '#!/bin/sh\necho "$PAM_TYPE $PAM_USER $(/bin/date +%%s%%N)" >>%s/pam.log\n' "$PWD" >pam-log
	chmod 755 pam-log
	cat >cron.pam <<-EOF
		account required pam_unix.so
		session required pam_env.so readenv=1 envfile=$PWD/pam.env conffile=$PWD/pam_env.conf
		session required pam_limits.so conf=$PWD/limits.conf
		session optional pam_exec.so $PWD/pam-log
	EOF
	run --separate-stderr with_pam_config timeout 20 "$TFD" --quiet --user "$TEST_USER" \
		--delay 0 --count 1 -- /bin/sh -c \
		'echo "$TFB_FROM_PAM $PATH $(ulimit -Sn) $(ulimit -Hn)"; sleep 0.3; date +%s%N'
	assert_success
	# The variable is PAM's; PATH is cron's, which wins over PAM's.
	assert_equal "${lines[0]}" "pam-value /usr/bin:/bin 77 77"
	local ended=${lines[1]}
	run cat pam.log
	assert_equal "${#lines[@]}" 2
	[[ ${lines[0]} == "open_session $TEST_USER "* ]] || fail "$output"
	[[ ${lines[1]} == "close_session $TEST_USER "* ]] || fail "$output"
	((${lines[1]##* } >= ended)) || fail "the session closed before the run ended: $output, $ended"
	# A run ended by --timeout closes its session too.
	run --separate-stderr with_pam_config timeout 20 "$TFD" --json --user "$TEST_USER" \
		--delay 0 --count 1 --timeout 0.3s -- /bin/sleep 30
	run jq -r 'select(.event == "exit") | "\(.signal) \(.timed_out)"' <<<"$output"
	assert_output "SIGTERM true"
	run cut -d' ' -f1 pam.log
	assert_output $'open_session\nclose_session\nopen_session\nclose_session'
}

@test "without libpam a run as another user runs, with no PAM session, and a warning says so" {
	require_pam
	require_command unshare
	make_user
	local lib
	lib=$(ldconfig -p | awk '/libpam\.so\.0 /{ print $NF; exit }')
	# libpam made unloadable in a mount namespace of this test's own.
	run --separate-stderr unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' \
		sh "$lib" timeout 20 "$TFD" --quiet --user "$TEST_USER" --delay 0 --count 1 -- /usr/bin/id -un
	assert_success
	assert_output "$TEST_USER"
	[[ $stderr == "tfd: warning: $lib: "*"; runs as another user open no PAM session" ]] || fail "$stderr"
}

@test "src/pam.h declares Linux-PAM's types and constants as <security/pam_appl.h> does" {
	[[ -e /usr/include/security/pam_appl.h ]] || fail "libpam0g-dev is not installed (.ci/install-deps)"
	run cc -std=c11 -Wall -Wextra -Werror -I"$REPO/src" -c -o /dev/null "$REPO/tests/pam/pam_abi.c"
	assert_success
}

@test "libpam is not linked: a tfd with no run as another user never maps it, one with such a job does" {
	require_pam
	require_command ldd
	run ldd "$TFD"
	refute_output --partial libpam
	make_user
	run timeout 20 "$TFD" --quiet -d 0 -- /bin/sh -c 'grep -c libpam "/proc/$PPID/maps" || true'
	assert_output 0
	cat >jobs.tab <<-EOF
		--name mine --delay 0 --count 1 -- /bin/sh -c 'grep -c libpam "/proc/\$PPID/maps"'
		--name theirs --delay 0 --count 1 --user $TEST_USER -- /bin/true
	EOF
	run timeout 20 "$TFD" --quiet --jobs jobs.tab
	assert_success
	((output > 0)) || fail "libpam not mapped: $output"
}

@test "a dry run of a job as another user does not load libpam" {
	require_command strace
	skip_under_asan "its leak check stops under strace"
	make_user
	printf -- '--name theirs --delay 0 --count 1 --user %s -- /bin/true\n' "$TEST_USER" >jobs.tab
	strace -f -qq -e trace=openat -o trace "$TFD" --jobs jobs.tab --dry-run=1 >/dev/null
	run grep -c libpam trace
	assert_output 0
	# The same file run for real does.
	strace -f -qq -e trace=openat -o trace "$TFD" --jobs jobs.tab >/dev/null
	run grep -c 'libpam\.so' trace
	((output > 0)) || fail "libpam not opened"
}

@test "another user's run starts from cron's environment, not tfd's; tfd's own runs keep tfd's" {
	make_user
	printf 'MAILTO=""\nA=from-file\nPATH=/file/bin:/usr/bin:/bin\n@reboot %s /usr/bin/env\n@reboot root echo "root sees ${TFB_SECRET-}"\n' \
		"$TEST_USER" >system.tab
	TFB_SECRET=s3cret PGPASSWORD=pw host_cron_until \
		'grep -q "^root sees" "$HOST_OUT" && grep -q "^USER=" "$HOST_OUT"' \
		"$TFD" --quiet --system-crontab --jobs system.tab
	assert_equal "$status" 143
	assert_line "root sees s3cret"
	run grep -v '^root sees' <<<"$output"
	run sed -E 's/^(TFD_[A-Z_]+)=.*/\1/' <<<"$output"
	run sort <<<"$output"
	assert_output - <<-EOF
		A=from-file
		HOME=$HOME_DIR
		LOGNAME=$TEST_USER
		MAILTO=
		PATH=/file/bin:/usr/bin:/bin
		PWD=$HOME_DIR
		SHELL=/bin/sh
		TFD_ATTEMPT
		TFD_EXPIRATIONS
		TFD_JOB
		TFD_LATE_US
		TFD_REPLICA
		TFD_SCHEDULED
		TFD_SEQ
		TFD_TIME
		TFD_TOTAL
		USER=$TEST_USER
	EOF
	# On the command line: cron's PATH and SHELL, whatever tfd's are.
	SHELL=/bin/bash PATH=/usr/sbin:$PATH TFB_SECRET=s3cret run timeout 20 "$TFD" --quiet \
		--user "$TEST_USER" --delay 0 --count 1 -- /usr/bin/env
	assert_success
	assert_line "SHELL=/bin/sh"
	assert_line "PATH=/usr/bin:/bin"
	refute_output --partial s3cret
}

@test "with --fleet no run gets tfd's PG* variables; a jobs file's own are kept" {
	printf 'MAILTO=""\nPGPASSWORD=the-file-s\n@reboot root /usr/bin/env\n' >system.tab
	PGPASSWORD=tfd-s PGUSER=tfd-u PGHOST=/nowhere host_cron_until \
		'grep -q "^TFD_JOB=" "$HOST_OUT" && grep -q "^PGPASSWORD=" "$HOST_OUT"' \
		"$TFD" --quiet --fleet 'host=/nonexistent dbname=tfd' --system-crontab --jobs system.tab
	assert_line "PGPASSWORD=the-file-s"
	refute_output --partial tfd-s
	refute_output --partial PGUSER
	refute_output --partial PGHOST
	assert_line --regexp '^TFD_JOB='
	# Without --fleet, tfd's own user's runs keep them, as before.
	PGUSER=tfd-u run timeout 20 "$TFD" --quiet --delay 0 --count 1 -- /usr/bin/env
	assert_line "PGUSER=tfd-u"
}

@test "another user's run starts in HOME, else in /" {
	make_user
	run timeout 20 "$TFD" --quiet --user "$TEST_USER" --delay 0 --count 1 -- /bin/pwd
	assert_success
	assert_output "$HOME_DIR"
	# A HOME the user cannot enter: /, as cron.
	chown root: "$HOME_DIR"
	chmod 700 "$HOME_DIR"
	run timeout 20 "$TFD" --quiet --user "$TEST_USER" --delay 0 --count 1 -- /bin/pwd
	assert_output /
	# tfd's own runs stay in tfd's directory.
	run timeout 20 "$TFD" --quiet --delay 0 --count 1 -- /bin/pwd
	assert_output "$BATS_TEST_TMPDIR"
}

@test "in a terminal, another user's run has a session of its own, no terminal, /dev/null as stdin, its output through pipes" {
	require_command script
	make_user
	local show='echo "sid $(cut -d" " -f6 /proc/self/stat) tty $(cut -d" " -f7 /proc/self/stat) in $(readlink /proc/self/fd/0)"'
	# tfd's session is that of the shell that execs it.
	script -qec "sh -c 'echo tfd sid \$(cut -d\" \" -f6 /proc/self/stat); exec \"\$0\" --user $TEST_USER --delay 0 --count 1 -- /bin/sh -c '\\''$show'\\'' ' '$TFD'" \
		/dev/null </dev/null | tr -d '\r' >out
	run cat out
	local tfd_sid
	tfd_sid=$(sed -n 's/^tfd sid //p' out)
	[[ -n $tfd_sid ]] || fail "no tfd sid: $output"
	# The line came through a pipe, tagged as --tag-output tags it.
	run grep '^sh\[1\]: sid' out
	assert_success
	[[ $output =~ ^sh\[1\]:\ sid\ ([0-9]+)\ tty\ 0\ in\ /dev/null$ ]] || fail "$output"
	[[ ${BASH_REMATCH[1]} != "$tfd_sid" ]] || fail "the run is in tfd's session $tfd_sid"
	# tfd's own run, in the same terminal, shares tfd's session and terminal.
	script -qec "sh -c 'echo tfd sid \$(cut -d\" \" -f6 /proc/self/stat); exec \"\$0\" --delay 0 --count 1 -- /bin/sh -c '\\''$show'\\'' ' '$TFD'" \
		/dev/null </dev/null | tr -d '\r' >own
	run cat own
	tfd_sid=$(sed -n 's/^tfd sid //p' own)
	assert_line --regexp "^sid $tfd_sid tty [1-9][0-9]* in /dev/pts/"
	# A crontab line's % text is the stdin of another user's run too.
	printf 'MAILTO=""\n@reboot %s cat%%from-percent\n' "$TEST_USER" >system.tab
	run_host_cron 1 0 "$TFD" --system-crontab --jobs system.tab
	assert_output from-percent
}

@test "USER and GROUP may be numeric ids, as runuser and setpriv take them" {
	make_user
	local uid gid
	uid=$(id -u "$TEST_USER") gid=$(id -g "$TEST_USER")
	run timeout 20 "$TFD" --quiet --user "$uid" --delay 0 --count 1 -- /bin/sh -c 'echo "$(id -u) $(id -g) $USER $HOME"'
	assert_success
	assert_output "$uid $gid $TEST_USER $HOME_DIR"
	run timeout 20 "$TFD" --quiet --user "$TEST_USER:0" --delay 0 --count 1 -- /bin/sh -c 'echo "$(id -u) $(id -g)"'
	assert_output "$uid 0"
	run timeout 20 "$TFD" --quiet --user "$uid:0" --delay 0 --count 1 -- /bin/sh -c 'echo "$(id -u) $(id -g)"'
	assert_output "$uid 0"
	# A group number needs no entry; a user number does (its HOME, its name).
	run timeout 20 "$TFD" --quiet --user "$uid:54321" --delay 0 --count 1 -- /usr/bin/id -g
	assert_output 54321
	# A system crontab's user field is a name: cron looks a number up as
	# a name and finds none; the line is passed over (59-host-cron-lenient).
	printf 'MAILTO=""\n@reboot %s /usr/bin/id -un\n' "$uid" >system.tab
	run_host_cron 0 1 "$TFD" --quiet --system-crontab --jobs system.tab
	assert_output ""
	assert_equal "$stderr" "tfd: warning: system.tab:2: bad crontab line '@reboot $uid /usr/bin/id -un': the user field '$uid' is a number (a system crontab's user field is a user's name, not a uid; cron runs no such line); the line is not loaded"
	assert_usage_error "--user '4000000000': no such user" --user 4000000000 -d 0 -- /bin/true
}

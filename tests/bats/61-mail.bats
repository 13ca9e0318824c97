#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# MAILTO, MAILFROM, SENDMAIL (tfd-jobs(5)): a run's output mailed through
# the real MTA that .ci/install-deps installs (exim4-daemon-light, local
# delivery only: its sendmail delivers to /var/mail/USER at once, no
# daemon), or through a sendmail script that keeps what it is given or
# fails; a failing or missing sendmail prints the output instead.

load test_helper

# The MTA delivers mail for the local user "mail" (a user every Debian
# has) to this mailbox; each test finds its own message by a marker.
MAILBOX=/var/mail/mail

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	MARK="m$$-$BATS_TEST_NUMBER-$RANDOM"
}

# The helper's teardown, and the user and the directory a test made.
eval "helper_$(declare -f teardown)"
teardown() {
	helper_teardown
	if [[ -n ${TEST_USER-} ]]; then
		remove_user "$TEST_USER"
	fi
	if [[ -n ${SHARED-} ]]; then
		rm -rf "$SHARED"
	fi
}

# A user of this test's own (tfc prefix), removed in teardown.
make_user() {
	TEST_USER=tfcm$RANDOM
	useradd -M -d /nonexistent -s /bin/sh -U "$TEST_USER"
}

# A directory every user may write, outside the test's own (which only
# root may reach), removed in teardown.
make_shared() {
	SHARED=$(mktemp -d /tmp/tfc-mail.XXXXXX)
	chmod 1777 "$SHARED"
}

# Waits up to 10 s for the message of $MAILBOX holding $1, and prints it
# (headers, blank line, body) without the mbox "From " line.
delivered() {
	local i msg
	for ((i = 0; i < 200; i++)); do
		msg=$(awk -v mark="$1" '
			/^From / { if (found) { printf "%s", m; exit } m = ""; found = 0; next }
			{ m = m $0 "\n"; if (index($0, mark)) found = 1 }
			END { if (found) printf "%s", m }' "$MAILBOX" 2>/dev/null)
		if [[ -n $msg ]]; then
			printf '%s\n' "$msg"
			return 0
		fi
		nap 0.05
	done
	fail "no message holding '$1' in $MAILBOX after 10s"
}

# A sendmail that keeps each message it is given in $PWD/mail.N (and its
# arguments in args.N), and exits with $1 (default 0). N is taken with
# mkdir, which one of two sendmails started at once wins.
fake_sendmail() {
	cat >sendmail <<-EOF
		#!/bin/sh
		n=0
		while ! mkdir "$PWD/.slot.\$n" 2>/dev/null; do n=\$((n + 1)); done
		printf '%s\n' "\$*" > "$PWD/args.\$n"
		cat > "$PWD/mail.\$n.part" && mv "$PWD/mail.\$n.part" "$PWD/mail.\$n"
		exit ${1:-0}
	EOF
	chmod +x sendmail
}

# exim4's configuration type, from the file Debian's exim4-config keeps.
exim_configtype() {
	sed -n "s/^dc_eximconfig_configtype='\(.*\)'$/\1/p" /etc/exim4/update-exim4.conf.conf 2>/dev/null
}

# .ci/install-deps installs exim4 where there is no MTA, and keeps the one
# a machine has: the tests that read a mailbox need one that delivers the
# mail of a local user here.
require_mta() {
	[[ -x /usr/sbin/sendmail ]] || fail "no /usr/sbin/sendmail: run .ci/install-deps"
	[[ $(readlink -f /usr/sbin/sendmail) == */exim4 ]] ||
		skip "the MTA here is not exim4 (.ci/install-deps keeps the one a machine has)"
	case $(exim_configtype) in
	local | internet | smarthost) ;;
	*) skip "exim4 here delivers no local mail (dc_eximconfig_configtype '$(exim_configtype)')" ;;
	esac
	[[ -r $MAILBOX || ! -e $MAILBOX ]] || skip "$MAILBOX is not readable by $(id -un)"
	((EUID == 0)) || skip "the MTA's mailbox of user mail is root's to read"
}

@test "a crontab line's output, stdout and stderr, is mailed through the real MTA as cron mails it; nothing on tfd's stdout" {
	require_mta
	cat >jobfile <<-EOF
		MAILTO=mail
		@reboot echo "out $MARK"; echo "err $MARK" >&2
	EOF
	run_clean timeout 20 "$TFD" --jobs jobfile
	assert_output ""
	run delivered "out $MARK"
	assert_success
	# The MTA qualifies the local address with its host name.
	assert_line --regexp '^To: mail(@[^ ]+)?$'
	assert_line --regexp "^From: \"\\(Cron Daemon\\)\" <$(id -un)(@.*)?>\$"
	assert_line "Subject: Cron <$(id -un)@$(hostname)> echo \"out $MARK\"; echo \"err $MARK\" >&2"
	assert_line "Content-Type: text/plain; charset=UTF-8"
	assert_line "Auto-Submitted: auto-generated"
	assert_line "out $MARK"
	assert_line "err $MARK"
}

@test "a tfd line's mail: From is MAILFROM, the Subject names the job, To lists every address" {
	require_mta
	cat >jobfile <<-EOF
		MAILTO=mail, mail
		MAILFROM=ops@example.org
		--name job-$MARK --interval 10ms --count 1 -- printf 'one %s\\ntwo\\n' $MARK
	EOF
	run_clean timeout 20 "$TFD" --jobs jobfile
	assert_output ""
	run delivered "one $MARK"
	assert_success
	assert_line --regexp '^To: mail(@[^ ]+)?, mail(@[^ ]+)?$'
	assert_line 'From: "(Cron Daemon)" <ops@example.org>'
	assert_line "Subject: Cron <$(id -un)@$(hostname)> job-$MARK"
	assert_line "X-Tfd-Job: job-$MARK"
	# The message's body: the run's lines after the blank line.
	assert_equal "$(printf '%s\n' "$output" | sed '1,/^$/d')" "one $MARK"$'\n'"two"
}

@test "MAILTO=\"\" and no MAILTO: the output goes to tfd's stdout as it always did, no sendmail runs" {
	fake_sendmail
	cat >jobfile <<-EOF
		SENDMAIL=$PWD/sendmail
		@reboot echo unset
		MAILTO=""
		@reboot echo empty
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile
	assert_line unset
	assert_line empty
	run ls
	refute_output --partial mail.
	# The same with --tag-output (in another boot, for @reboot to run
	# again): tagged lines, still no mail.
	rm "$TFD_REBOOT_FILE"
	run_clean timeout 10 "$TFD" --jobs jobfile --tag-output
	assert_line "echo[1]: unset"
	assert_line "echo-2[1]: empty"
	run ls
	refute_output --partial mail.
}

@test "a run that prints nothing sends no mail" {
	fake_sendmail
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		@reboot true
		--name quiet --interval 10ms --count 3 -- true
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile
	assert_output ""
	run ls
	refute_output --partial mail.
}

@test "SENDMAIL is run with -i -t; each run of a job is its own mail" {
	fake_sendmail
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		--name each --interval 100ms --count 3 --exec 'echo "run \$TFD_SEQ"'
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile
	assert_output ""
	assert_equal "$(cat args.0)" "-i -t"
	run cat mail.0 mail.1 mail.2
	assert_line "run 1"
	assert_line "run 2"
	assert_line "run 3"
	assert_equal "$(grep -c '^Subject: Cron <.*> each$' mail.0 mail.1 mail.2 | grep -c ':1$')" 3
}

@test "a SENDMAIL that is missing: an error event, and the output on tfd's stdout as tagged lines" {
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/no-such-sendmail
		--name lost --interval 10ms --count 1 --exec 'echo first; echo second >&2'
	EOF
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile
	assert_equal "$status" 1
	assert_output $'lost[1]: first\nlost[1]: second'
	[[ $stderr == *"tfd: lost: $PWD/no-such-sendmail: exited with status 127; run 1's output is printed instead"* ]] ||
		fail "no message naming the sendmail: $stderr"
	# The same as JSON: an "error" event, then the lines as "output" events.
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile --json
	assert_equal "$status" 1
	run jq -r 'select(.event == "error" or .event == "output") | [.event, .job, (.line // .call)] | @tsv' <<<"$output"
	assert_output $'error\tlost\tsendmail\noutput\tlost\tfirst\noutput\tlost\tsecond'
}

@test "a sendmail that exits 1: an error event, and the output on tfd's stdout" {
	fake_sendmail 1
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		@reboot echo kept
	EOF
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile
	assert_equal "$status" 1
	assert_output "echo[1]: kept"
	assert_equal "$(without_operator_log "$stderr")" "tfd: echo: $PWD/sendmail: exited with status 1; run 1's output is printed instead"
	# It was given the mail, and refused it.
	assert_equal "$(sed '1,/^$/d' mail.0)" kept
}

@test "a sendmail killed by a signal: the output on tfd's stdout" {
	cat >sendmail <<-'EOF'
		#!/bin/sh
		kill -KILL $$
	EOF
	chmod +x sendmail
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		@reboot echo kept
	EOF
	run --separate-stderr timeout 10 "$TFD" --jobs jobfile
	assert_equal "$status" 1
	assert_output "echo[1]: kept"
	[[ $stderr == *"killed by signal 9"* ]] || fail "$stderr"
}

@test "50 MB of output: the first 256 KiB are mailed with a line saying how much was cut, and the run is never blocked" {
	fake_sendmail
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		--name big --interval 10ms --count 1 --exec 'yes 0123456789 | head -c 50000000; echo finished > finished'
	EOF
	run_clean timeout 60 "$TFD" --jobs jobfile --json
	# The run ended by itself (it was not blocked on a full pipe).
	run jq -r 'select(.event == "exit") | .status' <<<"$output"
	assert_output 0
	[[ -f finished ]]
	# Headers, blank line, 256 KiB of the output (its last line cut
	# short, so a newline is added), the note.
	local note="[tfd: $((50000000 - 262144)) more bytes of output were cut: a mail holds the first 262144]"
	assert_equal "$(tail -n 1 mail.0)" "$note"
	assert_equal "$(sed '1,/^$/d' mail.0 | head -c 262144 | tr -d '\n0-9' | wc -c)" 0
	assert_equal "$(sed '1,/^$/d' mail.0 | wc -c)" $((262144 + 1 + ${#note} + 1))
}

@test "SIGTERM while a run's output is collected: the run ends, its output is mailed, the sendmail reaped, then tfd exits" {
	fake_sendmail
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		@reboot echo "before $MARK"; touch started; sleep 30
	EOF
	start_bg "$TFD" --jobs jobfile
	wait_for_lines started 10 0
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 20
	assert_equal "$bg_status" 143
	# tfd waited for sendmail: the mail is all there when tfd is gone.
	run cat mail.0
	assert_line "before $MARK"
}

@test "SIGTERM, and the sendmail fails: the output is printed, never lost" {
	fake_sendmail 1
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		@reboot echo "before $MARK"; touch started; sleep 30
	EOF
	start_bg "$TFD" --jobs jobfile >out 2>err
	wait_for_lines started 10 0
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 20
	assert_equal "$bg_status" 143
	run cat out
	assert_output "echo[1]: before $MARK"
}

@test "SIGTERM, and the sendmail hangs: it is killed 5 s later, the output printed, tfd exits" {
	cat >sendmail <<-EOF
		#!/bin/sh
		cat > /dev/null
		touch "$PWD/sending"
		exec sleep 60
	EOF
	chmod +x sendmail
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		@reboot echo "stuck $MARK"
	EOF
	start_bg "$TFD" --jobs jobfile >out 2>err
	wait_for_lines sending 10 0
	kill -TERM "${BG_PIDS[0]}"
	local t0=$SECONDS
	wait_bg_exit "${BG_PIDS[0]}" 30
	assert_equal "$bg_status" 143
	# The grace, and not much more (the machine is noisy).
	((SECONDS - t0 >= 4 && SECONDS - t0 <= 20)) || fail "exit after $((SECONDS - t0)) s"
	run cat out
	assert_output "echo[1]: stuck $MARK"
	run cat err
	assert_output --partial "sendmail: killed: it had not ended 5 s after tfd was told to stop"
}

@test "a mailed run is read on while tfd's stdout is stuck: its mail goes, it is never blocked" {
	fake_sendmail
	cat >jobfile <<-EOF
		--name chatty --delay 0 -- sh -c 'yes chatty | head -c 1000000'
		MAILTO=ops@example.com
		SENDMAIL=$PWD/sendmail
		--name mailed --delay 0 -- sh -c 'sleep 2; yes m | head -c 1000000; echo > $PWD/finished'
	EOF
	# Nobody reads tfd's stdout: once its pipe is full, chatty's lines wait,
	# and so do timers; the mailed run's output goes to no stream of tfd's.
	mkfifo stdout
	exec 5<>stdout
	start_bg "$TFD" --jobs jobfile --tag-output >stdout 5<&-
	wait_for_lines finished 20
	for _ in $(seq 100); do
		[[ -e mail.0 ]] && break
		nap 0.1
	done
	run grep -c '^m$' mail.0
	assert_output 131072
	exec 5<&-
}

@test "sendmail runs as the job's user: the envelope sender is the user; X-Cron-Env names each variable the file set" {
	require_mta
	make_user
	cat >system.tab <<-EOF
		MAILTO=mail
		GREETING="hello there"
		@reboot $TEST_USER echo "out $MARK"
	EOF
	# A host's cron never ends by itself: stopped once the mail is there.
	host_cron_until 'delivered "out $MARK" >/dev/null 2>&1' "$TFD" --system-crontab \
		--jobs system.tab
	assert_equal "$status" 143
	assert_equal "$stderr" ""
	assert_output ""
	run delivered "out $MARK"
	assert_success
	assert_line --regexp "^Return-path: <$TEST_USER(@[^ ]+)?>\$"
	assert_line "Subject: Cron <$TEST_USER@$(hostname)> echo \"out $MARK\""
	assert_line "X-Cron-Env: <MAILTO=mail>"
	assert_line "X-Cron-Env: <GREETING=hello there>"
}

@test "sendmail sees the run's environment and ids, as the run does" {
	make_user
	make_shared
	cat >"$SHARED/sendmail" <<-EOF
		#!/bin/sh
		cat >/dev/null
		echo "\$(id -u) \$(id -g) \$GREETING \$LOGNAME \$USER \$HOME" >"$SHARED/who"
	EOF
	chmod 755 "$SHARED/sendmail"
	cat >system.tab <<-EOF
		MAILTO=someone
		SENDMAIL=$SHARED/sendmail
		GREETING=hi
		@reboot $TEST_USER echo "out $MARK"
	EOF
	host_cron_until '[[ -s $SHARED/who ]]' "$TFD" --system-crontab --jobs system.tab
	assert_equal "$status" 143
	assert_equal "$stderr" ""
	assert_output ""
	run cat "$SHARED/who"
	assert_output "$(id -u "$TEST_USER") $(id -g "$TEST_USER") hi $TEST_USER $TEST_USER /nonexistent"
}

@test "a mailed run's stdout and stderr share one pipe: the mail keeps the order they were written in" {
	fake_sendmail
	cat >jobfile <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		@reboot for i in 1 2 3 4 5 6; do echo "out \$i"; echo "err \$i" >&2; done
	EOF
	run_clean timeout 10 "$TFD" --jobs jobfile
	assert_output ""
	run sed '1,/^$/d' mail.0
	assert_output "$(for i in 1 2 3 4 5 6; do echo "out $i"; echo "err $i"; done)"
}

@test "--system-crontab: a line with no MAILTO mails its output to its user, as cron does; MAILTO=\"\" prints it" {
	require_mta
	cat >system.tab <<-EOF
		@reboot mail echo "to the user $MARK"
		MAILTO=""
		@reboot mail echo "printed $MARK"
	EOF
	host_cron_until 'has_lines "$HOST_OUT" 1 && delivered "to the user $MARK" >/dev/null 2>&1' \
		"$TFD" --system-crontab --jobs system.tab
	assert_equal "$status" 143
	assert_equal "$stderr" ""
	assert_output "printed $MARK"
	run delivered "to the user $MARK"
	assert_success
	assert_line --regexp '^To: mail(@[^ ]+)?$'
	assert_line --regexp '^Return-path: <mail(@[^ ]+)?>$'
	assert_line "Subject: Cron <mail@$(hostname)> echo \"to the user $MARK\""
	# Outside cron's own files, no MAILTO prints, as before.
	cat >jobfile <<-EOF
		@reboot echo "plain $MARK"
	EOF
	run_clean timeout 20 "$TFD" --jobs jobfile
	assert_output "plain $MARK"
}

@test "--system-crontab on a host with no MTA: a line with no MAILTO prints its output, no error (cron would drop it)" {
	require_command unshare
	unshare -m true 2>/dev/null || skip "no mount namespace (unshare -m)"
	cat >system.tab <<-EOF
		@reboot root echo "no MTA $MARK"
	EOF
	# /usr/sbin hidden under an empty tmpfs, in a mount namespace of the
	# test's own: no /usr/sbin/sendmail there.
	run_host_cron 1 0 unshare -m sh -c 'mount -t tmpfs none /usr/sbin && exec "$0" "$@"' \
		"$TFD" --system-crontab --jobs system.tab
	assert_equal "$status" 143
	assert_output "no MTA $MARK"
	assert_equal "$(without_operator_log "$stderr")" ""
}

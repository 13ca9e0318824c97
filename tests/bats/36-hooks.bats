#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# --on-failure and --on-success (tfd(1), HOOKS): a shell command after a
# run's last try, as the job's user, with the run's TFD_* variables and
# its output tail in TFD_OUTPUT_FILE; its failure an "error" event; shown
# by tfdctl status and --dry-run. A hook is not a run: no retry, no hook,
# no place in the runs' counts, and it never delays a tick.

load test_helper
load control_helper
eval "control_$(declare -f setup)"
# host_helper's make_user and make_shared, and its teardown, which
# removes what they made.
load host_helper
eval "host_$(declare -f setup)"

setup() {
	host_setup
	control_setup
}

# The hook that keeps what it sees: its TFD_* variables in ./env.N (N:
# TFD_RUN), sorted, written whole before they are looked at.
KEEP='env | grep "^TFD_" | sort >"env.$TFD_RUN.tmp"; mv "env.$TFD_RUN.tmp" "env.$TFD_RUN"'

# The value of variable $1 in file $2.
var() {
	sed -n "s/^$1=//p" "$2"
}

@test "hooks: a success runs --on-success with the run's variables, not --on-failure" {
	run_clean "$TFD" -d 0 --name ok --on-success "$KEEP" --on-failure 'touch wrong' -- true
	[[ -f env.1 ]] || fail "no hook ran"
	[[ ! -e wrong ]] || fail "--on-failure ran after a success"
	assert_equal "$(var TFD_JOB env.1)" ok
	assert_equal "$(var TFD_RUN env.1)" 1
	assert_equal "$(var TFD_STATUS env.1)" success
	assert_equal "$(var TFD_EXIT_STATUS env.1)" 0
	assert_equal "$(var TFD_HOOK env.1)" on-success
	[[ $(var TFD_DURATION env.1) =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "TFD_DURATION: $(cat env.1)"
	[[ $(var TFD_SCHEDULED env.1) =~ ^[0-9]+\.[0-9]{9}$ ]] || fail "TFD_SCHEDULED: $(cat env.1)"
	# Not reading the output, tfd has no tail to give.
	assert_equal "$(var TFD_OUTPUT_FILE env.1)" ""
}

@test "hooks: a failure, a timeout and a signal, as TFD_STATUS and TFD_EXIT_STATUS say them" {
	run --separate-stderr "$TFD" -d 0 --on-failure "$KEEP" --on-success 'touch wrong' -- sh -c 'exit 3'
	assert_equal "$status" 3
	assert_equal "$(var TFD_STATUS env.1)" failure
	assert_equal "$(var TFD_EXIT_STATUS env.1)" 3
	assert_equal "$(var TFD_HOOK env.1)" on-failure
	rm env.1
	run --separate-stderr "$TFD" -d 0 --timeout 0.2s --on-failure "$KEEP" -- sleep 30
	assert_equal "$status" 143
	assert_equal "$(var TFD_STATUS env.1)" timeout
	assert_equal "$(var TFD_EXIT_STATUS env.1)" 143
	[[ $(to_ns "$(var TFD_DURATION env.1)") -ge 200000000 ]] || fail "$(cat env.1)"
	rm env.1
	run --separate-stderr "$TFD" -d 0 --on-failure "$KEEP" -- sh -c 'kill -USR1 $$'
	assert_equal "$status" 138
	assert_equal "$(var TFD_STATUS env.1)" "signal SIGUSR1"
	assert_equal "$(var TFD_EXIT_STATUS env.1)" 138
	[[ ! -e wrong ]] || fail "--on-success ran after a failure"
}

@test "hooks: TFD_SCHEDULED is the elapse's scheduled instant, TFD_RUN each run's number" {
	run --separate-stderr "$TFD" -i 0.3s -n 2 -f '%n %u %l' --on-success "$KEEP" -- true
	assert_success
	local n u l
	for line in "${lines[@]}"; do
		read -r n u l <<<"$line"
		wait_for_lines "env.$n" 10 1 || fail "no hook for run $n"
		assert_equal "$(var TFD_RUN "env.$n")" "$n"
		# The wake-up less its lateness, to the microsecond %l has.
		local want=$(($(to_ns "$u") - l * 1000)) got
		got=$(to_ns "$(var TFD_SCHEDULED "env.$n")")
		((got - want < 1000 && want - got < 1000)) || fail "run $n: scheduled $got, not $want"
	done
}

@test "hooks: TFD_OUTPUT_FILE holds the output's tail, 0600, removed once the hook ended" {
	local hook='cat "$TFD_OUTPUT_FILE" >copy; stat -c "%a %U" "$TFD_OUTPUT_FILE" >mode; echo "$TFD_OUTPUT_FILE" >path'
	run --separate-stderr "$TFD" -d 0 --tag-output --on-failure "$hook" \
		-- sh -c 'seq 1 2000; echo last line; echo on stderr >&2; exit 1'
	assert_equal "$status" 1
	assert_equal "$(cat mode)" "600 root"
	# The last 4 KiB: the lines' end, stdout and stderr as they came.
	assert_equal "$(tail -n 2 copy)" "last line
on stderr"
	assert_equal "$(wc -c <copy)" 4096
	[[ $(cat path) == /tmp/tfd-hook-* ]] || fail "path: $(cat path)"
	[[ ! -e $(cat path) ]] || fail "$(cat path) is still there"
	# $TMPDIR, when absolute, is where it goes.
	mkdir tmp
	TMPDIR=$PWD/tmp run --separate-stderr "$TFD" -d 0 --tag-output --on-success "$hook" -- echo hi
	assert_success
	[[ $(cat path) == "$PWD"/tmp/tfd-hook-* ]] || fail "path: $(cat path)"
	assert_equal "$(cat copy)" hi
	assert_equal "$(ls tmp)" ""
}

@test "hooks: a hook's output goes where the runs' goes: tagged with the run, or mailed" {
	run --separate-stderr "$TFD" -d 0 --name t --tag-output \
		--on-failure 'echo from the hook; echo hook on stderr >&2' -- sh -c 'echo from the run; exit 1'
	assert_equal "$status" 1
	assert_equal "$output" "t[1]: from the run
t[1]: from the hook"
	[[ $stderr == *"t[1]: hook on stderr"* ]] || fail "stderr: $stderr"
	# Without --tag-output, tfd's own stdout, as the runs'.
	run --separate-stderr "$TFD" -d 0 --on-success 'echo plain' -- true
	assert_success
	assert_output plain
	# MAILTO: a mail of its own, as each run's is.
	cat >sendmail <<-EOF
		#!/bin/sh
		n=0
		while ! mkdir "$PWD/.slot.\$n" 2>/dev/null; do n=\$((n + 1)); done
		cat > "$PWD/mail.\$n.part" && mv "$PWD/mail.\$n.part" "$PWD/mail.\$n"
	EOF
	chmod +x sendmail
	cat >./jobs <<-EOF
		MAILTO=someone
		SENDMAIL=$PWD/sendmail
		--name m --delay 0 --on-failure 'echo the hook says' -- sh -c 'echo the run says; exit 1'
	EOF
	run --separate-stderr "$TFD" --jobs jobs
	assert_success
	wait_until 20 test -e mail.1 || fail "not two mails: $(cat mail.* 2>/dev/null)"
	assert_equal "$(grep -l 'the run says' mail.0 mail.1 | wc -l)" 1
	assert_equal "$(grep -l 'the hook says' mail.0 mail.1 | wc -l)" 1
	assert_equal "$(grep -l 'the hook says' mail.0 mail.1)" "$(grep -L 'the run says' mail.0 mail.1)"
}

@test "hooks: no hook after a try that a retry follows; one after the last" {
	run --separate-stderr "$TFD" -d 0 --retry 2 --retry-delay 0.1s \
		--on-failure 'echo "$TFD_STATUS" >>failed' --on-success 'echo ok >>succeeded' \
		-- sh -c 'echo x >>tries; [ "$(wc -l <tries)" -ge 2 ]'
	assert_success
	assert_equal "$(wc -l <tries)" 2
	[[ ! -e failed ]] || fail "--on-failure ran after a try that was retried"
	assert_equal "$(cat succeeded)" ok
	rm tries succeeded
	run --separate-stderr "$TFD" -d 0 --retry 2 --retry-delay 0.1s \
		--on-failure 'echo "$TFD_STATUS" >>failed' -- sh -c 'echo x >>tries; exit 4'
	assert_equal "$status" 4
	assert_equal "$(wc -l <tries)" 3
	assert_equal "$(cat failed)" failure
}

@test "hooks: a hook that fails is an \"error\" event naming the job and the hook" {
	run --separate-stderr "$TFD" -d 0 --json --name b --on-success 'exit 7' -- true
	# The run succeeded; the hook's failure is tfd's error, as a mail's is.
	assert_equal "$status" 1
	local err
	err=$(jq -c 'select(.event == "error")' <<<"$output")
	assert_equal "$(jq -r '.job, .call' <<<"$err")" "b
hook"
	assert_equal "$(jq -r .message <<<"$err")" "b: --on-success hook of run 1: exited with status 7"
	assert_equal "$(jq -c 'select(.event == "exit") | .status' <<<"$output")" 0
	assert_equal "${stderr_lines[0]}" "tfd: b: --on-success hook of run 1: exited with status 7"
	# A hook is not a run: one "exit" event, for the run.
	assert_equal "$(jq -c 'select(.event == "exit")' <<<"$output" | wc -l)" 1
}

@test "hooks: a hook runs as the job's user, with the runs' environment" {
	local TEST_USER
	make_user TEST_USER
	make_shared
	local hook="{ id -un; echo \"\$LOGNAME\"; stat -c '%U %a' \"\$TFD_OUTPUT_FILE\"; cat \"\$TFD_OUTPUT_FILE\"; } >$SHARED/t; mv $SHARED/t $SHARED/seen"
	run --separate-stderr "$TFD" -d 0 --user "$TEST_USER" --tag-output --on-failure "$hook" \
		-- sh -c 'echo from the run; exit 1'
	assert_equal "$status" 1
	assert_equal "$(cat "$SHARED/seen")" "$TEST_USER
$TEST_USER
$TEST_USER 600
from the run"
	# A crontab line's owner reaches its hook through the defaults, too.
	rm "$SHARED/seen"
	printf '* * * * * %s exit 1\n' "$TEST_USER" >./crontab
	start_bg "$TFD" --jobs crontab --system-crontab --tag-output --on-failure "$hook" \
		--control="$SOCK" >out 2>err
	wait_for_socket
	"$TFDCTL" run crontab/exit >/dev/null
	wait_until 20 test -e "$SHARED/seen" || fail "no hook: $(cat err)"
	assert_equal "$(head -n 2 "$SHARED/seen")" "$TEST_USER
$TEST_USER"
}

@test "hooks: on tfd lines and as defaults beside --jobs, which a line overrides" {
	cat >./jobs <<-'EOF'
		--name own --delay 0 --on-failure 'echo "own $TFD_JOB" >>hooks' -- false
		--name dflt --delay 0 -- false
		--name good --delay 0 -- true
	EOF
	run --separate-stderr "$TFD" --jobs jobs --on-failure 'echo "default $TFD_JOB" >>hooks'
	assert_success
	assert_equal "$(sort hooks)" "default dflt
own own"
}

@test "hooks: tfdctl status shows the hooks and the last one's result; --dry-run lists them" {
	printf '%s\n' "--name j --interval 1h --tag-output --on-failure 'echo hook line; exit 5' --on-success 'echo fine' -- sh -c 'echo run line; exit 1'" >./jobs
	start_tfd
	"$TFDCTL" run --wait j >/dev/null 2>&1 || true
	wait_until 20 sh -c "'$TFDCTL' --json status j | jq -e '.job.last_hook.result == \"status 5\"' >/dev/null" ||
		fail "$("$TFDCTL" --json status j)"
	run "$TFDCTL" --json status j
	assert_equal "$(jq -c '.job.hooks' <<<"$output")" '{"on_failure":"echo hook line; exit 5","on_success":"echo fine"}'
	# The output tail is the run's: the hook's lines are not in it.
	assert_equal "$(jq -c '.job.output_tail' <<<"$output")" '"run line\n"'
	assert_equal "$(jq -c '.job.last_hook | [.hook, .seq, .running, .status, .signal]' <<<"$output")" \
		'["on-failure",1,false,5,null]'
	# A hook is not a run: one run counted, one in the history.
	assert_equal "$(jq -c '[.job.counters.runs, (.job.runs | length)]' <<<"$output")" '[1,1]'
	run "$TFDCTL" status j
	assert_line "     Hooks: --on-failure echo hook line; exit 5"
	assert_line "            --on-success echo fine"
	assert_line --regexp '^ Last hook: --on-failure after run 1, .+, status 5 in [0-9]+'
	# --dry-run: into a pipe the hooks go to stderr, one line each.
	run --separate-stderr "$TFD" --jobs jobs --dry-run=1
	assert_success
	assert_equal "${#lines[@]}" 1
	assert_equal "$stderr" "tfd: j: --on-failure echo hook line; exit 5
tfd: j: --on-success echo fine"
	# On a terminal, below the expirations.
	run sh -c "timeout 20 script -qfec \"'$TFD' --jobs jobs --dry-run=1\" /dev/null"
	assert_success
	assert_line --regexp '^Hooks and notifications:'
	assert_line --regexp '^j  --on-failure echo hook line; exit 5'
}

@test "hooks: tfdctl status shows a hook still going as running" {
	printf '%s\n' "--name slow --interval 1h --on-success ': >ready; sleep 30' -- true" >./jobs
	start_tfd
	"$TFDCTL" run slow >/dev/null
	wait_until 20 test -e ready || fail "no hook: $(cat err)"
	run "$TFDCTL" --json status slow
	assert_equal "$(jq -c '.job.last_hook | [.hook, .running, .duration, .result, .status, .signal]' <<<"$output")" \
		'["on-success",true,null,null,null,null]'
	run "$TFDCTL" status slow
	assert_line --regexp '^ Last hook: --on-success after run 1, .+, running$'
	# The stop ends it, as a run.
	kill -TERM "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 20
	assert_equal "$bg_status" 143
}

@test "hooks: an empty --on-failure or --on-success, or one without a command, is a usage error" {
	assert_usage_error "--on-failure: empty" -d 0 --on-failure= -- true
	assert_usage_error "--on-success: empty" -d 0 --on-success '' -- true
	assert_usage_error "--on-failure needs a command" -i 1s --on-failure 'echo x'
	printf '%s\n' "--name j --delay 0 --on-success '' -- true" >./jobs
	run --separate-stderr "$TFD" --jobs jobs
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} == "tfd: jobs:1: "*"--on-success: empty"* ]] || fail "$stderr"
}

@test "hooks: a hook of a 100 ms job delays none of its ticks" {
	# Each hook takes a second: ten of them go on beside the runs.
	run --separate-stderr "$TFD" -i 100ms -n 20 --json --on-success 'sleep 1' -- true
	assert_success
	local ticks
	ticks=$(jq -c 'select(.event == "tick") | [.action, .expirations]' <<<"$output" | sort | uniq -c)
	# Every wake-up ran its run (none skipped for a hook going); a loaded
	# machine may bring two expirations in one read now and then.
	[[ $(jq -c 'select(.event == "tick" and .action != "run")' <<<"$output") == "" ]] ||
		fail "ticks not run: $ticks"
	local late
	late=$(jq -s '[.[] | select(.event == "tick") | .late_us] | max' <<<"$output")
	((late < 500000)) || fail "a tick was ${late} us late: $ticks"
	# A run for every wake-up, 20 expirations in all.
	assert_equal "$(jq -c 'select(.event == "exit")' <<<"$output" | wc -l)" \
		"$(jq -c 'select(.event == "tick")' <<<"$output" | wc -l)"
	assert_equal "$(jq -s '[.[] | select(.event == "tick") | .expirations] | add' <<<"$output")" 20
}

@test "hooks: tfd's stop forwards its signal to a hook going, as to the runs" {
	start_bg "$TFD" -i 1h -d 0 --on-success 'trap "echo term >hook.end; exit 0" TERM; sleep 61.36 & echo $$ >hook.pid; wait' -- true
	local tfd=${BG_PIDS[0]}
	wait_until 20 test -s hook.pid || fail "no hook"
	kill -TERM "$tfd"
	wait_bg_exit "$tfd" 20
	assert_equal "$bg_status" 143
	assert_equal "$(cat hook.end)" term
	wait_for_no_process "^sleep 61.36$"
	# One that ignores it is killed --kill-after later.
	start_bg "$TFD" --kill-after 0.5s -i 1h -d 0 \
		--on-success 'trap "" TERM; : >stubborn.ready; sleep 62.36' -- true
	tfd=${BG_PIDS[1]}
	wait_until 20 test -e stubborn.ready || fail "no hook"
	local t0=$SECONDS
	kill -TERM "$tfd"
	wait_bg_exit "$tfd" 20
	assert_equal "$bg_status" 143
	((SECONDS - t0 < 4)) || fail "took $((SECONDS - t0)) s, --kill-after is 0.5 s"
}

@test "hooks: -E waits for the failing run's --on-failure; --on-stop=wait lets a hook end" {
	run --separate-stderr timeout 20 "$TFD" -E -i 0.5s \
		--on-failure 'sleep 0.3; echo "$TFD_RUN $TFD_STATUS" >>failed' -- sh -c 'exit 3'
	assert_equal "$status" 3
	assert_equal "$(cat failed)" "1 failure"
	start_bg "$TFD" -i 1h -d 0 --on-stop wait \
		--on-success 'trap "echo term >hook.end" TERM; : >hook.ready; sleep 1; echo done >hook.end' -- true
	local tfd=${BG_PIDS[0]}
	wait_until 20 test -e hook.ready || fail "no hook"
	kill -TERM "$tfd"
	wait_bg_exit "$tfd" 20
	assert_equal "$bg_status" 0
	assert_equal "$(cat hook.end)" "done"
}

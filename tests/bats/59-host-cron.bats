#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# A host's cron as it is (SPEC "A host's cron"): --jobs more than once and
# on directories (run-parts' names, byte order, each file its own
# environment, names unique across files, a bad file refusing the load),
# --system-crontab on Debian's own /etc/crontab and a package's cron.d
# file, and runs as another user (--user, the user field): ids, groups,
# HOME, LOGNAME, USER, and the refusals at load. tfd runs as root here, as
# in CI; @reboot lines run once at start, so every plain tfd below ends by
# itself; a host's cron never does, and is stopped (run_host_cron).

load test_helper
load reload_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	export TZ=UTC
	FIXTURES=$BATS_TEST_DIRNAME/fixtures
	BASE='2026-12-03 00:00:00 UTC'   # a Thursday
	[[ $(id -u) == 0 ]] || fail "these tests need root (CI runs them as root)"
}

# The helper's teardown, and the user and groups a test made.
eval "helper_$(declare -f teardown)"
teardown() {
	helper_teardown
	if [[ -n ${TEST_USER-} ]]; then
		remove_user "$TEST_USER" "${TEST_USER}a" "${TEST_USER}b"
	fi
}

# A ConfigMap-like directory: d/a, d/b, and what run-parts passes over.
make_dir() {
	mkdir -p d/..2026_12_03 d/sub
	printf 'A=from-a\n@reboot echo "a sees A=${A-unset} B=${B-unset}" >>%s/out\n' "$PWD" >d/a
	printf 'B=from-b\n@reboot echo "b sees A=${A-unset} B=${B-unset}" >>%s/out\n' "$PWD" >d/b
	ln -s ..2026_12_03 d/..data
	local bad
	for bad in 'x~' x.dpkg-old .hidden 'c.sh'; do
		printf '@reboot echo "%s ran" >>%s/out\n' "$bad" "$PWD" >"d/$bad"
	done
	printf '@reboot echo "..data/c ran" >>%s/out\n' "$PWD" >d/..2026_12_03/c
	printf '@reboot echo "sub/c ran" >>%s/out\n' "$PWD" >d/sub/c
}

@test "a --jobs directory: only run-parts' names, each file with its own environment" {
	make_dir
	# A link to a regular file counts; one to the ConfigMap's data too.
	ln -s ..data/c d/c
	run "$TFD" --jobs d
	assert_success
	# The runs start together: their order is the test above's.
	run sort out
	assert_output - <<-'EOF'
		..data/c ran
		a sees A=from-a B=unset
		b sees A=unset B=from-b
	EOF
}

@test "default names are SOURCE/WORD, numbered within their own file; one file alone keeps bare names" {
	mkdir d
	echo '0 1 * * * echo a1' >d/B
	printf '0 1 * * * echo b1\n0 1 * * * echo b2\n' >d/a
	printf '0 1 * * * echo f1\n--name f/echo --cron "0 1 * * *" -- /bin/true\n' >f
	run "$TFD" --jobs f --jobs d --base-time "$BASE" --dry-run=5
	assert_success
	# f first, then d/B before d/a (byte order); the explicit f/echo is
	# taken first, so f's crontab line goes on to -2.
	assert_output - <<-'EOF'
		2026-12-03T01:00:00.000000Z f/echo-2
		2026-12-03T01:00:00.000000Z f/echo
		2026-12-03T01:00:00.000000Z B/echo
		2026-12-03T01:00:00.000000Z a/echo
		2026-12-03T01:00:00.000000Z a/echo-2
	EOF
	# The sources in another order, or a file that sorts first: the same
	# names.
	echo '0 1 * * * echo z' >d/0
	run "$TFD" --jobs d --jobs f --base-time "$BASE" --dry-run=6 --format '%j'
	assert_output $'0/echo\nB/echo\na/echo\na/echo-2\nf/echo-2\nf/echo'
	# A directory of one file is still a directory; one --jobs FILE alone
	# keeps bare names.
	rm d/0 d/B
	run "$TFD" --jobs d --base-time "$BASE" --dry-run=2 --format '%j'
	assert_output $'a/echo\na/echo-2'
	run "$TFD" --jobs d/a --base-time "$BASE" --dry-run=2 --format '%j'
	assert_output $'echo\necho-2'
}

@test "a bad file in a directory refuses the whole load with FILE:LINE; nothing runs" {
	make_dir
	printf 'A=1\n\n1 * * *  oops\n' >d/m
	run --separate-stderr "$TFD" --jobs d
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: d/m:3: bad crontab line '1 * * *  oops': 4 time fields before 'oops', expected 5 or an @nickname"
	[[ ! -e out ]] || fail "a job ran: $(cat out)"
	# An unreadable second --jobs as well.
	rm d/m
	run --separate-stderr "$TFD" --jobs d --jobs missing
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} == "tfd: --jobs 'missing': No such file or directory" ]] || fail "$stderr"
	[[ ! -e out ]] || fail "a job ran: $(cat out)"
}

@test "a reload reads every source again: a file added to a directory is one more job" {
	mkdir d
	echo '--name one --interval 1h -- /bin/true' >d/one
	echo '--name top --interval 1h -- /bin/true' >f
	start_bg "$TFD" --json --jobs f --jobs d >events
	# Loaded (a SIGHUP before the signal is caught would end tfd).
	wait_for_watch "${BG_PIDS[0]}" 20 2
	echo '--name two --interval 1h -- /bin/true' >d/two
	kill -HUP "${BG_PIDS[0]}"
	wait_for_match events '"event":"reload"'
	run jq -r 'select(.event == "reload") | "\(.ok) \(.added) \(.removed) \(.kept)"' events
	assert_output "true 1 0 2"
	# A bad file: the reload is refused, naming it; the jobs run on.
	echo 'nonsense' >d/three
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads events 2
	run jq -r 'select(.event == "reload" and .ok == false) | .error' events
	[[ $output == "d/three:1: bad line 'nonsense'"* ]] || fail "$output"
	kill -0 "${BG_PIDS[0]}"
}

@test "--system-crontab: Debian's /etc/crontab and e2scrub_all's cron.d file, as they are" {
	mkdir cron.d
	cp "$FIXTURES/e2scrub_all.cron.d" cron.d/e2scrub_all
	cp "$FIXTURES/debian.crontab" crontab
	run "$TFD" --system-crontab --jobs crontab --jobs cron.d \
		--base-time "$BASE" --dry-run=6
	assert_success
	assert_output - <<-'EOF'
		2026-12-03T00:17:00.000000Z crontab/cd
		2026-12-03T01:17:00.000000Z crontab/cd
		2026-12-03T02:17:00.000000Z crontab/cd
		2026-12-03T03:10:00.000000Z e2scrub_all/test-2
		2026-12-03T03:17:00.000000Z crontab/cd
		2026-12-03T04:17:00.000000Z crontab/cd
	EOF
	# Debian's file names test, test-2 and test-3; e2scrub_all's its own.
	# Without --system-crontab "root" would be the command: the files are
	# still crontabs, and the names say so; a warning names the option.
	run --separate-stderr "$TFD" --jobs "$FIXTURES/debian.crontab" --base-time "$BASE" --dry-run=1
	assert_output "2026-12-03T00:17:00.000000Z root"
	[[ $stderr == "tfd: warning: $FIXTURES/debian.crontab:"*": the command begins with 'root', a user of this host: "*"--system-crontab"* ]] ||
		fail "$stderr"
	# This machine's own, whatever they are.
	if [[ -f /etc/crontab ]]; then
		run "$TFD" --system-crontab --jobs /etc/crontab --jobs /etc/cron.d --dry-run=1
		assert_success
	fi
	assert_usage_error "--system-crontab needs --jobs" --system-crontab --count 1 -- /bin/true
}

# A host's cron restarted, as an upgrade restarts tfd-cron.service.
@test "names stay: /etc/crontab and e2scrub_all's, then a cron.d file that sorts first, across a restart; list --wide and status show user and FILE:LINE" {
	local tfdctl=$REPO/tfdctl sock=$PWD/sock i k names
	[[ -x $tfdctl ]] || skip "no $tfdctl: run make tfdctl first"
	mkdir -p etc/cron.d
	cp "$FIXTURES/debian.crontab" etc/crontab
	cp "$FIXTURES/e2scrub_all.cron.d" etc/cron.d/e2scrub_all
	names=$'crontab/cd\ncrontab/test\ncrontab/test-2\ncrontab/test-3\ne2scrub_all/test\ne2scrub_all/test-2'
	for ((i = 0; i < 2; i++)); do
		start_bg "$TFD" --system-crontab --jobs etc/crontab --jobs etc/cron.d \
			--control="$sock" 2>err
		for ((k = 0; k < 100; k++)); do [[ -S $sock ]] && break; sleep 0.05; done
		run "$tfdctl" --control="$sock" list --names
		assert_equal "$(sort <<<"$output")" "$names"
		run "$tfdctl" --control="$sock" list --wide
		assert_line --regexp '  root +etc/cron.d/e2scrub_all:2 +e2scrub_all/test-2$'
		assert_line --regexp '  USER +FILE:LINE +JOB$'
		run "$tfdctl" --control="$sock" status crontab/test-2
		assert_line --index 0 'crontab/test-2: 47 6 * * 7 (realtime clock)'
		assert_line --index 1 '      From: etc/crontab:20, as root'
		run "$tfdctl" --control="$sock" --json status crontab/test-2
		assert_equal "$(jq -r '.job | "\(.user) \(.file) \(.line)"' <<<"$output")" "root etc/crontab 20"
		kill -TERM "${BG_PIDS[-1]}"
		wait_bg_exit "${BG_PIDS[-1]}" 10
		# A package drops a file that sorts first: no other job is renamed.
		printf '17 * * * * root test -x /bin/true\n' >etc/cron.d/0hourly
		names=$(sort <<<"$names"$'\n0hourly/test')
	done
}

@test "a system crontab's user field and --user run as that user: ids, groups, HOME, LOGNAME, USER" {
	local show='echo "$(id -u) $(id -g) $(id -G) $HOME $LOGNAME $USER"'
	# MAILTO="": the output on stdout (a system crontab mails it by default).
	cat >system.tab <<-EOF
		MAILTO=""
		LOGNAME=not-this
		@reboot nobody echo cron: \$($show)
		--name tfdline --delay 0 --count 1 --user nobody --exec 'echo tfd: \$($show)'
	EOF
	run_host_cron 2 0 "$TFD" --system-crontab --jobs system.tab
	assert_equal "$status" 143
	local uid gid want
	uid=$(id -u nobody) gid=$(id -g nobody)
	want="$uid $gid $(id -G nobody) $(getent passwd nobody | cut -d: -f6) nobody nobody"
	run sort <<<"$output"
	assert_output $'cron: '"$want"$'\ntfd: '"$want"
	# A single job on the command line, with a group; the file's HOME wins
	# over the user's, as in cron.
	run "$TFD" --count 1 --delay 0 --user nobody:daemon --quiet -- /bin/sh -c "$show"
	assert_success
	assert_output "$uid $(getent group daemon | cut -d: -f3) $(id -G nobody | sed "s/^$gid/$(getent group daemon | cut -d: -f3)/") $(getent passwd nobody | cut -d: -f6) nobody nobody"
}

@test "a user with supplementary groups gets all of them (initgroups)" {
	TEST_USER=tfdu$RANDOM
	groupadd "${TEST_USER}a"
	groupadd "${TEST_USER}b"
	useradd -M -d /nonexistent/$TEST_USER -s /bin/sh -U -G "${TEST_USER}a,${TEST_USER}b" "$TEST_USER"
	run "$TFD" --count 1 --delay 0 --user "$TEST_USER" --quiet -- \
		/bin/sh -c 'id -G; echo "$HOME $LOGNAME $USER"'
	assert_success
	assert_equal "${lines[0]}" "$(id -G "$TEST_USER")"
	[[ $(wc -w <<<"${lines[0]}") == 3 ]] || fail "groups: ${lines[0]}"
	assert_equal "${lines[1]}" "/nonexistent/$TEST_USER $TEST_USER $TEST_USER"
	# The environment given to tfd is the job's, but for these three.
	HOME=/root LOGNAME=root USER=root run "$TFD" --count 1 --delay 0 --user "$TEST_USER" \
		--quiet -- /bin/sh -c 'echo "$HOME $LOGNAME $USER"'
	assert_output "/nonexistent/$TEST_USER $TEST_USER $TEST_USER"
}

@test "refused at load: an unknown --user (FILE:LINE), another user when tfd is not root" {
	# A tfd line's --user is an error in a plain jobs file; under
	# --system-crontab, as every bad line there, it is passed over with a
	# warning (59-host-cron-lenient.bats).
	printf -- '--name x --delay 0 --count 1 --user no-such-user-tfd -- /bin/true\n' >system.tab
	run --separate-stderr "$TFD" --jobs system.tab
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: system.tab:1: --user 'no-such-user-tfd': no such user"
	printf -- '--name x --delay 0 --count 1 --user nobody:no-such-group-tfd -- /bin/true\n' >jobfile
	run --separate-stderr "$TFD" --jobs jobfile
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: jobfile:1: --user 'nobody:no-such-group-tfd': no such group 'no-such-group-tfd'"
	assert_usage_error "--user 'no-such-user-tfd': no such user" \
		--count 1 --delay 0 --user no-such-user-tfd -- /bin/true
	assert_usage_error "--user needs a command" --count 1 --delay 0 --user nobody
	[[ ! -e out ]] || fail "a job ran"
	# tfd as nobody: another user is refused at load, its own is taken.
	require_command setpriv
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$TFD" --count 1 --delay 0 --user root -- /bin/true
	assert_equal "$status" 2
	[[ ${stderr_lines[0]} == "tfd: --user 'root': tfd runs as uid $(id -u nobody), not root"* ]] || fail "$stderr"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$TFD" --count 1 --delay 0 --user nobody --quiet -- /bin/sh -c 'id -u; echo $USER'
	assert_success
	assert_output "$(id -u nobody)"$'\n'nobody
}

# Watching every source (SPEC "A host's cron": every file and directory is
# watched); each tfd below has the job $UP (reload_helper.bash).

@test "a watched directory: a file added, removed or renamed reloads, once each; passed-over names do not" {
	mkdir d
	printf '%s\n' "$UP" '--name one --interval 1h -- /bin/true' >d/one
	start_bg "$TFD" --jobs d --json >ev.json 2>err
	wait_up
	# Added: written in place (created, then closed), and moved in.
	echo '--name two --interval 1h -- /bin/true' >d/two
	wait_for_reloads ev.json 1
	echo '--name three --interval 1h -- /bin/true' >d/three.tmp
	mv d/three.tmp d/three
	wait_for_reloads ev.json 2
	# Removed.
	rm d/two
	wait_for_reloads ev.json 3
	# Renamed inside: the same line, so the job is kept, but read again.
	mv d/three d/four
	wait_for_reloads ev.json 4
	# Renamed to a name run-parts passes over: the job is gone.
	mv d/four d/four.dpkg-old
	wait_for_reloads ev.json 5
	# Names passed over change nothing.
	echo '--name no --interval 1h -- /bin/true' >'d/x~'
	echo '--name no2 --interval 1h -- /bin/true' >d/.hidden
	assert_reloads ev.json "ok 1 0 2" "ok 1 0 3" "ok 0 1 3" "ok 0 0 3" "ok 0 1 2"
	run cat err
	assert_output ""
}

@test "a ConfigMap directory (files linked through ..data): a ..data swap reloads once" {
	mkdir -p cm/..2026_12_03_a
	echo "$UP" >cm/..2026_12_03_a/up
	echo '--name a --interval 1h -- /bin/true' >cm/..2026_12_03_a/a
	ln -s ..2026_12_03_a cm/..data
	ln -s ..data/up cm/up
	ln -s ..data/a cm/a
	start_bg "$TFD" --jobs cm --json >ev.json 2>err
	wait_up
	# What the kubelet does: a new timestamped directory with every key, a
	# temporary link to it renamed over ..data, the old directory removed;
	# a new key gets its link in the mount too.
	mkdir cm/..2026_12_03_b
	echo "$UP" >cm/..2026_12_03_b/up
	echo '--name a --interval 1h -- /bin/true' >cm/..2026_12_03_b/a
	echo '--name b --interval 1h -- /bin/true' >cm/..2026_12_03_b/b
	ln -s ..2026_12_03_b cm/..data_tmp
	mv -T cm/..data_tmp cm/..data
	ln -s ..data/b cm/b
	rm -rf cm/..2026_12_03_a
	wait_for_reloads ev.json 1
	assert_reloads ev.json "ok 1 0 2"
	run cat err
	assert_output ""
}

@test "a bad file put in a watched directory refuses the whole reload naming FILE:LINE; the jobs run on" {
	mkdir d
	echo "$UP" >d/one
	echo '--name tick --interval 0.2s -- /bin/true' >d/two
	start_bg "$TFD" --jobs d --json >ev.json 2>err
	wait_up
	printf '# fine\n--name three --interval 1h -- /bin/true\nnonsense here\n' >d/three
	wait_for_reloads ev.json 1
	run reloads ev.json
	[[ $output == "error d/three:3: "*"nonsense here"* ]] || fail "$output"
	# The jobs run on as they were: "tick" still runs, none was added.
	local before
	before=$(job_exits ev.json tick)
	wait_until 20 job_exits_above ev.json tick "$before" ||
		fail "the jobs stopped after a refused reload"
	kill -0 "${BG_PIDS[0]}"
	# Mended, the reload takes all of them.
	sed -i '/nonsense/d' d/three
	wait_for_reloads ev.json 2
	run reloads ev.json
	assert_line --index 1 "ok 1 0 2"
	run cat err
	assert_output --partial "d/three:3: "
}

@test "two --jobs files, each watched: a save to either reloads" {
	mkdir x y
	echo "$UP" >x/jobs
	echo '--name b --interval 1h -- /bin/true' >y/jobs
	start_bg "$TFD" --jobs x/jobs --jobs y/jobs --json >ev.json 2>err
	wait_up
	printf '%s\n' "$UP" '--name a2 --interval 1h -- /bin/true' | save x/jobs
	wait_for_reloads ev.json 1
	printf '%s\n' '--name b --interval 1h -- /bin/true' '--name b2 --interval 1h -- /bin/true' |
		save y/jobs
	wait_for_reloads ev.json 2
	assert_reloads ev.json "ok 1 0 2" "ok 1 0 3"
	run cat err
	assert_output ""
}

@test "--verbose names the first --jobs PATH and how many more a reload read" {
	mkdir x y
	echo "$UP" >x/jobs
	echo '--name b --interval 1h -- /bin/true' >y/jobs
	start_bg "$TFD" --jobs x/jobs --jobs y/jobs --json --verbose >ev.json 2>err
	wait_up
	printf '%s\n' "$UP" '--name a2 --interval 1h -- /bin/true' | save x/jobs
	wait_for_reloads ev.json 1
	run grep '^tfd: reloaded' err
	assert_output "tfd: reloaded x/jobs and 1 more: 1 added, 0 removed, 2 kept"
}

# A failed id change at run time: in a user namespace made by unshare -U -r
# tfd is root there (so the load's checks pass), but setgroups(2) is denied
# and nobody's ids are not mapped: the run's drop to the user fails, which
# the run's child tells tfd: an "error" event, and tfd ends with status 1.
@test "the drop to the user failing at run time: status 125, an error naming the call, never run as root" {
	unshare -U -r true 2>/dev/null || skip "this kernel makes no user namespace (unshare -U)"
	run --separate-stderr unshare -U -r "$TFD" --json --user nobody --count 2 --interval 0.1s \
		-- /bin/sh -c "id -u >>'$PWD/ran'"
	assert_equal "$status" 1
	run jq -r 'select(.event == "exit") | "\(.status) \(.failed)"' <<<"$output"
	assert_output $'125 true\n125 true'
	local why="user 'nobody': setgroups: Operation not permitted"
	assert_equal "$stderr" "tfd: sh: $why; run 1 (try 1) did not start"$'\n'"tfd: sh: $why; run 2 (try 1) did not start"
	[[ ! -e ran ]] || fail "the command ran, as $(cat ran)"
	# A system crontab's line, with -E: tfd ends with the run's status.
	printf '%s\n' "@reboot nobody id -u >>'$PWD/ran'" >system.tab
	run --separate-stderr unshare -U -r "$TFD" -E --system-crontab --jobs system.tab
	assert_equal "$status" 125
	run without_operator_log "$stderr"
	assert_line --index 0 "tfd: system.tab/id: $why; run 1 (try 1) did not start"
	# A host's cron logs each run's end (--log-runs).
	assert_line --index 1 --regexp '^tfd: system.tab/id: run 1: exited 125 after [0-9.]+s$'
	[[ ! -e ran ]] || fail "the command ran, as $(cat ran)"
}

# main's refusals of a FIFO or a device hold where a file is named; in a
# directory, run-parts' rule passes over what is not a regular file, and
# a FIFO is never opened (it would block tfd).
@test "in a --jobs directory a FIFO, a device link and a subdirectory are passed over, never opened; named as a file they are refused" {
	mkdir d d/sub
	echo '--name one --interval 1h -- /bin/true' >d/one
	mkfifo d/fifo
	ln -s /dev/zero d/zero
	run --separate-stderr timeout 10 "$TFD" --jobs d --dry-run=1 --base-time "$BASE"
	assert_success
	assert_output "2026-12-03T01:00:00.000000Z one"
	run --separate-stderr timeout 10 "$TFD" --jobs d --jobs d/fifo --dry-run=1
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --jobs 'd/fifo': a FIFO, not a regular file"
	run --separate-stderr timeout 10 "$TFD" --jobs d/zero --jobs d --dry-run=1
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --jobs 'd/zero': a device, not a regular file"
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# An operator's day with a host's cron (SPEC "An operator's day"): a line
# tfd cannot use is that line alone, a warning naming FILE:LINE, at start
# and at every reload, and so is a file it cannot take; values cron takes
# are taken (dates that never come: the job never runs); a host's cron
# stays when nothing is left to run; a user deleted and made again under
# another uid never gets the old one's runs; a plain --jobs file still
# being written never runs a line that has no end; root's lines get cron's
# SHELL; a user field is a user's name alone. tfd runs as root here, as
# in CI; the users made are tfa*, deleted in teardown (host_helper.bash).

load test_helper
load reload_helper
load host_helper

# Waits up to 5 s for file $1 to exist.
wait_for_file() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e $1 ]] && return 0
		nap 0.05
	done
	fail "no file '$1' after 5 s: $(cat err 2>/dev/null)"
}

# Line 2 of cron.d/good prints "good"; MAILTO="": printed, not mailed.
good_file() {
	mkdir -p cron.d
	printf 'MAILTO=""\n@reboot root echo good\n' >cron.d/good
}

@test "--system-crontab: a line tfd cannot use is not run, a warning names FILE:LINE and why; every other line and file loads" {
	good_file
	# What a package may drop: a bad field, an unknown option on a tfd
	# line, a variable whose name begins with '-', a field left out, a
	# user field that is not a user's name alone.
	cat >cron.d/badpkg <<-'EOF'
		MAILTO=""
		61 * * * * root echo x
		--name a --bogus -- /bin/true
		-x=1
		*/5 * * * root echo a b
		@reboot root:root echo as root:root
		@reboot 0 echo as uid 0
		@reboot root echo also
	EOF
	run_host_cron 2 6 "$TFD" --system-crontab --jobs cron.d
	assert_equal "$status" 143
	run sort <<<"$output"
	assert_output $'also\ngood'
	run sort <<<"$stderr"
	assert_output - <<-'EOF'
		tfd: warning: cron.d/badpkg:2: invalid cron expression '61 * * * *': minute out of range 0-59 in '61'; the line is not loaded
		tfd: warning: cron.d/badpkg:3: bad tfd line '--name a --bogus -- /bin/true': --bogus: not an option of a job line; the line is not loaded
		tfd: warning: cron.d/badpkg:4: bad tfd line '-x=1': -x=1: not an option of a job line; the line is not loaded
		tfd: warning: cron.d/badpkg:5: bad crontab line '*/5 * * * root echo a b': 4 time fields before 'root', expected 5 or an @nickname; the line is not loaded
		tfd: warning: cron.d/badpkg:6: bad crontab line '@reboot root:root echo as root:root': the user field 'root:root' holds a ':' (a system crontab's user field is a user's name alone, no group; cron runs no such line); the line is not loaded
		tfd: warning: cron.d/badpkg:7: bad crontab line '@reboot 0 echo as uid 0': the user field '0' is a number (a system crontab's user field is a user's name, not a uid; cron runs no such line); the line is not loaded
	EOF
	# A plain --jobs keeps its rule: a bad line refuses the load.
	printf '@reboot echo plain\n61 * * * * echo x\n' >plain
	run --separate-stderr "$TFD" --jobs plain
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: plain:2: invalid cron expression '61 * * * *': minute out of range 0-59 in '61'"
	assert_output ""
}

@test "--user-crontabs: a variable crontab(1) takes whose name begins with '-' is that line alone, not the user's whole crontab" {
	local user
	make_user user
	mkdir spool
	printf 'MAILTO=""\n-e=x\n@reboot echo still runs\n' >"spool/$user"
	chown "$user" "spool/$user"
	chmod 600 "spool/$user"
	run_host_cron 1 1 "$TFD" --user-crontabs spool
	assert_equal "$status" 143
	assert_output "still runs"
	assert_equal "$stderr" "tfd: warning: spool/$user:2: bad environment line '-e=x': a variable's name may not begin with '-' (tfd reads such a line as a tfd line, which a user's crontab cannot hold); the line is not loaded"
}

@test "a host's cron at every reload: a bad line added is passed over with a warning; the reload is applied, not refused" {
	mkdir cron.d
	printf '%s\n' "$UP" '--name a --interval 1h -- /bin/true' >cron.d/up
	start_bg "$TFD" --system-crontab --jobs cron.d --json >ev.json 2>err
	wait_up
	printf '%s\n' '--name b --interval 1h -- /bin/true' '61 * * * * root true' \
		'--name c --interval 1h --bogus -- /bin/true' | save cron.d/pkg
	wait_for_reloads ev.json 1
	assert_reloads ev.json "ok 1 0 2"
	run cat err
	assert_output - <<-'EOF'
		tfd: warning: cron.d/pkg:2: invalid cron expression '61 * * * *': minute out of range 0-59 in '61'; the line is not loaded
		tfd: warning: cron.d/pkg:3: bad tfd line '--name c --interval 1h --bogus -- /bin/true': --bogus: not an option of a job line; the line is not loaded
	EOF
	# A plain --jobs refuses such a reload, and the jobs run on as they were.
	mkdir plain
	printf '%s\n' '--name up2 --delay 0 -- /usr/bin/touch up2' '--name stay --interval 1h -- /bin/true' \
		>plain/a
	start_bg "$TFD" --jobs plain --json >ev2.json 2>err2
	wait_for_file up2
	printf '61 * * * * true\n' | save plain/b
	wait_for_reloads ev2.json 1
	run reloads ev2.json
	assert_output "error plain/b:1: invalid cron expression '61 * * * *': minute out of range 0-59 in '61'"
}

@test "a host's cron passes over a file over 16 MiB or not a regular file, with a warning; a --jobs PATH that is not there is still an error" {
	good_file
	truncate -s $((16 * 1024 * 1024 + 1)) cron.d/huge
	mkfifo fifo
	run_host_cron 1 2 timeout 20 "$TFD" --system-crontab --jobs cron.d --jobs fifo
	assert_equal "$status" 143
	assert_output good
	run sort <<<"$stderr"
	assert_output - <<-'EOF'
		tfd: warning: cron.d/huge: not loaded: too large: more than 16777216 bytes
		tfd: warning: fifo: not loaded: a FIFO, not a regular file
	EOF
	run --separate-stderr "$TFD" --system-crontab --jobs cron.d --jobs missing
	assert_equal "$status" 2
	[[ $stderr == *"tfd: --jobs 'missing': No such file or directory"* ]] || fail "$stderr"
}

@test "the packaged tfd-cron.service starts with a bad line in /etc/cron.d (exit status 2 would keep it down)" {
	local unit=$REPO/contrib/systemd/tfd-cron.service exec
	good_file
	printf '61 * * * * root echo x\n' >cron.d/badpkg
	printf 'MAILTO=""\n' >system.tab
	mkdir spool
	exec=$(sed -n 's/^ExecStart=//p' "$unit")
	[[ $exec == "/usr/bin/tfd "* ]] || fail "ExecStart: $exec"
	grep -qx 'RestartPreventExitStatus=2' "$unit" || fail "the unit no longer keeps a usage error down: fix this test"
	# The unit's command line, its paths in this test's directory.
	exec=${exec#/usr/bin/tfd }
	exec=${exec//\/etc\/crontab/$PWD/system.tab}
	exec=${exec//\/etc\/cron.d/$PWD/cron.d}
	exec=${exec//\/var\/spool\/cron\/crontabs/$PWD/spool}
	exec=${exec//--control/--control=$PWD/control}
	local -a args
	read -ra args <<<"$exec"
	run_host_cron 1 1 "$TFD" "${args[@]}"
	assert_equal "$status" 143
	assert_output good
	assert_equal "$stderr" "tfd: warning: $PWD/cron.d/badpkg:1: invalid cron expression '61 * * * *': minute out of range 0-59 in '61'; the line is not loaded"
}

@test "a host's cron stays when nothing is left to run (only @reboot lines, an empty cron.d): files and users added later are loaded" {
	local user
	good_file
	mkdir spool
	start_bg "$TFD" --system-crontab --jobs cron.d --user-crontabs spool >out 2>err
	wait_for_lines out 5 1 || fail "no @reboot run: $(cat err)"
	# The @reboot run is over and no schedule is left: a file added now is
	# still loaded and run.
	printf '%s\n' 'MAILTO=""' '--name late --delay 0 -- /bin/echo late' | save cron.d/late
	wait_for_lines out 5 2 || fail "the file added was not run: $(cat out err)"
	# An empty cron.d, and a user's crontab of one @reboot line: once it
	# ran, a file and a user's crontab added are loaded.
	mkdir empty spool2
	make_user user
	printf 'MAILTO=""\n@reboot echo first\n' >"spool2/$user"
	chown "$user" "spool2/$user"
	chmod 600 "spool2/$user"
	start_bg "$TFD" --system-crontab --jobs empty --user-crontabs spool2 >out2 2>err2
	wait_for_lines out2 5 1 || fail "no @reboot run: $(cat err2)"
	printf '%s\n' 'MAILTO=""' '--name late2 --delay 0 -- /bin/echo late2' | save empty/late
	wait_for_lines out2 5 2 || fail "tfd ended after its @reboot lines: $(cat err2)"
	assert_equal "$(cat out2)" $'first\nlate2'
	kill -0 "${BG_PIDS[1]}"
}

@test "a cron line whose dates never come (0 0 30 2 *) loads with a warning, never runs, shows no next time; tfd stays for it" {
	good_file
	cat >cron.d/never <<-'EOF'
		MAILTO=""
		0 0 30 2 * root echo never
		--name april31 --cron '0 0 31 4 *' -- /bin/echo never
	EOF
	run --separate-stderr "$TFD" --system-crontab --jobs cron.d --dry-run=3 --base-time "$BASE"
	assert_success
	assert_output ""
	assert_equal "$stderr" "tfd: warning: cron.d/never:2: '0 0 30 2 *' names no day that exists: the line is loaded and never runs
tfd: warning: cron.d/never:3: '0 0 31 4 *' names no day that exists: the line is loaded and never runs"
	# A plain --jobs file of only such a line: loaded, and tfd stays.
	printf '0 0 30 2 * echo never\n' >plain
	start_bg "$TFD" --jobs plain --control "$PWD/control" --metrics "$PWD/m.prom" >out 2>err
	wait_for_file control
	"$REPO/tfdctl" --control "$PWD/control" --json list >list.json
	run jq -c '.jobs[] | [.job, .next, .left]' list.json
	assert_output '["echo",null,null]'
	run "$REPO/tfdctl" --control "$PWD/control" status echo
	assert_line --regexp '^ +Next: -$'
	# The metrics say no next run rather than a time that never comes.
	wait_for_file m.prom
	run grep -c '^tfd_next_run_timestamp_seconds' m.prom
	assert_output 0
	grep -q '^tfd_runs_total{job_name="echo"' m.prom || fail "no series of the job: $(cat m.prom)"
	assert_equal "$(without_operator_log "$(cat err)")" "tfd: warning: plain:1: '0 0 30 2 *' names no day that exists: the line is loaded and never runs"
	kill -0 "${BG_PIDS[0]}"
}

@test "a user deleted and made again under another uid: the runs loaded for the old uid are errors and never run as the new one; a reload takes the user as it is" {
	local user old new name
	make_user user
	make_shared
	old=$(id -u "$user")
	new=$((old + 1000))
	while getent passwd "$new" >/dev/null; do new=$((new + 1)); done
	mkdir cron.d spool
	# Each run leaves a file named after the uid it ran as.
	printf -- "--name as-user --user %s --interval 0.3s -- /bin/sh -c 'touch %s/ran.\$(id -u)'\n" \
		"$user" "$SHARED" >cron.d/x
	printf 'MAILTO=""\n0 0 1 1 * touch %s/spool-ran.$(id -u)\n' "$SHARED" >"spool/$user"
	chown "$user" "spool/$user"
	chmod 600 "spool/$user"
	start_bg "$TFD" --system-crontab --jobs cron.d --user-crontabs spool \
		--control "$PWD/control" --json >ev.json 2>err
	wait_for_file "$SHARED/ran.$old"
	userdel "$user"
	useradd -M -d /nonexistent -s /bin/sh -U -u "$new" "$user"
	wait_for_match ev.json "\"event\":\"error\",\"job\":\"as-user\".*uid $new now, not $old as when the job was loaded" 5
	# The user's crontab line, run by hand: refused the same way.
	name=$("$REPO/tfdctl" --control "$PWD/control" --json list | jq -r '.jobs[] | select(.job != "as-user") | .job')
	[[ -n $name ]] || fail "no job of the user's crontab"
	"$REPO/tfdctl" --control "$PWD/control" run "$name" >/dev/null
	wait_for_match ev.json "\"event\":\"error\",\"job\":\"$name\".*uid $new now, not $old" 5
	run ls "$SHARED"
	assert_output "ran.$old"
	# A reload loads the system crontab's line for the user as it is now;
	# the user's crontab, still owned by the old uid, is not the new
	# user's and is not loaded.
	kill -HUP "${BG_PIDS[0]}"
	wait_for_file "$SHARED/ran.$new"
	wait_for_match err "spool/$user: not loaded: not owned by '$user' \\(uid $old, not $new\\)" 5
}

@test "a plain --jobs file held open half written past the reload's 10 s wait: its unended last line never runs; once closed it loads whole" {
	printf '%s\n' "$UP" '--name tick --interval 0.2s -- /bin/true' >jobfile
	start_bg "$TFD" --jobs jobfile --json >ev.json 2>err
	wait_up
	# A writer saves in place, held open, stopped mid-line: cut there, the
	# line would run "touch ran", the whole one "touch ran-whole".
	exec 5>jobfile
	printf '%s\n%s\n%s' "$UP" '--name tick --interval 0.2s -- /bin/true' \
		'--name cut --delay 0 -- /usr/bin/touch ran' >&5
	# A reload asked for meanwhile (SIGHUP, tfdctl reload, another file
	# saved) waits 10 s for the writer, then reads what is whole.
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 1 15
	assert_reloads ev.json "ok 0 0 2"
	[[ ! -e ran ]] || fail "the half-written line ran"
	run cat err
	assert_line --index 0 "tfd: warning: './jobfile' is still open for writing after 10 s: read up to its last newline until it is closed"
	assert_line --index 1 "tfd: warning: jobfile:3: not loaded: the file is still open for writing and this last line has no newline yet"
	printf -- '-whole\n' >&5
	exec 5>&-
	wait_for_reloads ev.json 2 5
	wait_for_file ran-whole
	[[ ! -e ran ]] || fail "the half-written line ran"
}

@test "root's lines get cron's SHELL (the file's, else /bin/sh), whatever tfd's environment has" {
	printf 'MAILTO=""\n@reboot root echo "root: SHELL=$SHELL"\n' >system.tab
	run_host_cron 1 0 env -u SHELL "$TFD" --system-crontab --jobs system.tab
	assert_output "root: SHELL=/bin/sh"
	rm "$TFD_REBOOT_FILE" # another boot: the @reboot line runs again
	SHELL=/bin/bash run_host_cron 1 0 "$TFD" --system-crontab --jobs system.tab
	assert_output "root: SHELL=/bin/sh"
	rm "$TFD_REBOOT_FILE"
	printf 'MAILTO=""\nSHELL=/bin/bash\n@reboot root echo "root: SHELL=$SHELL"\n' >system.tab
	run_host_cron 1 0 env -u SHELL "$TFD" --system-crontab --jobs system.tab
	assert_output "root: SHELL=/bin/bash"
}

@test "a link not root's that reaches a file another link reaches is said to be not root's, before it is said to be the same file" {
	local user uid
	make_user user
	uid=$(id -u "$user")
	mkdir cron.d
	printf 'MAILTO=""\n@reboot root echo target\n' >target
	ln -s "$PWD/target" cron.d/a
	ln -s "$PWD/target" cron.d/b
	chown -h "$user" cron.d/b
	run_host_cron 1 1 "$TFD" --system-crontab --jobs cron.d
	assert_output target
	assert_equal "$stderr" "tfd: warning: cron.d/b: not loaded: a symbolic link not owned by root (uid $uid)"
}

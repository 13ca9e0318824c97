#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# A host's cron as safe as cron (SPEC "A host's cron", "As safe as cron"):
# which files and lines load. Under --system-crontab a file must be root's
# alone; --user-crontabs runs each user's crontab as that user, when the
# user wrote it as crontab(1) does; a line of an unknown user is passed
# over until a reload finds the user; links are watched at both ends; a
# file still being written is waited for; a file reached twice is read
# once. tfd runs as root here, as in CI; the users made are tfa*, and
# deleted in teardown.

load test_helper
load reload_helper
load host_helper

@test "--system-crontab: a file not root's alone, or a link not root's, is not loaded, named with why; the others load" {
	local user uid
	make_user user
	uid=$(id -u "$user")
	mkdir cron.d
	# MAILTO="": output printed, not mailed to root as cron would.
	printf 'MAILTO=""\n@reboot root echo good\n' >cron.d/good
	echo '@reboot root echo owned' >cron.d/owned
	chown "$user" cron.d/owned
	echo '@reboot root echo group' >cron.d/group
	chmod g+w cron.d/group
	echo '@reboot root echo others' >cron.d/others
	chmod o+w cron.d/others
	# The user's link to root's file; root's link to the user's file.
	echo '@reboot root echo via-user-link' >root.tab
	ln -s "$PWD/root.tab" cron.d/userlink
	chown -h "$user" cron.d/userlink
	echo '@reboot root echo to-user-file' >user.tab
	chown "$user" user.tab
	ln -s "$PWD/user.tab" cron.d/rootlink
	run_host_cron 1 5 "$TFD" --system-crontab --jobs cron.d
	assert_equal "$status" 143
	assert_output good
	run sort <<<"$(without_operator_log "$stderr")"
	assert_output - <<-EOF
		tfd: warning: cron.d/group: not loaded: writable by group
		tfd: warning: cron.d/others: not loaded: writable by others
		tfd: warning: cron.d/owned: not loaded: not owned by root (uid $uid)
		tfd: warning: cron.d/rootlink: not loaded: not owned by root (uid $uid)
		tfd: warning: cron.d/userlink: not loaded: a symbolic link not owned by root (uid $uid)
	EOF
	# A plain --jobs file runs as tfd's user, as supercronic's: no check.
	echo '@reboot echo plain' >plain
	chown "$user" plain
	run --separate-stderr "$TFD" --jobs plain
	assert_output plain
}

@test "--system-crontab: the same rule at every reload, a chmod or chown alone included" {
	local user
	make_user user
	mkdir cron.d
	# "up" and "b" stay: a table whose schedules all ended would end tfd.
	printf '%s\n' "$UP" '--name b --interval 1h -- /bin/true' >cron.d/up
	echo '--name a --interval 1h -- /bin/true' >cron.d/a
	start_bg "$TFD" --system-crontab --jobs cron.d --json >ev.json 2>err
	wait_up
	chmod g+w cron.d/a
	wait_for_reloads ev.json 1
	chmod g-w cron.d/a
	wait_for_reloads ev.json 2
	chown "$user" cron.d/a
	wait_for_reloads ev.json 3
	assert_reloads ev.json "ok 0 1 2" "ok 1 0 2" "ok 0 1 2"
	run cat err
	assert_line --index 0 "tfd: warning: cron.d/a: not loaded: writable by group"
	assert_line --index 1 "tfd: warning: cron.d/a: not loaded: not owned by root (uid $(id -u "$user"))"
}

@test "--user-crontabs: each file runs as the user it is named after, when that user wrote it as crontab(1) does" {
	local user ghost
	make_user user
	new_user_name ghost
	mkdir spool
	# MAILTO="": the output comes to tfd's stdout, not to the user's mail.
	printf 'MAILTO=""\n@reboot echo "ran as $(id -un): $LOGNAME"\n' >"spool/$user"
	chown "$user" "spool/$user"
	chmod 600 "spool/$user"
	# Not the user's own; open to group; a tfd line; a link; no such user.
	echo '@reboot echo nobody ran' >spool/nobody
	chmod 600 spool/nobody
	echo '@reboot echo daemon ran' >spool/daemon
	chown daemon spool/daemon
	chmod 640 spool/daemon
	echo '--name x --delay 0 -- /bin/echo bin ran' >spool/bin
	chown bin spool/bin
	chmod 600 spool/bin
	ln -s "$user" spool/sys
	echo '@reboot echo ghost ran' >"spool/$ghost"
	chmod 600 "spool/$ghost"
	# crontab(1)'s temporary file and hidden names are passed over.
	cp -p "spool/$user" spool/tmp.XXXXab
	cp -p "spool/$user" spool/.hidden
	run_host_cron 1 5 "$TFD" --user-crontabs spool
	assert_equal "$status" 143
	assert_output "ran as $user: $user"
	run sort <<<"$(without_operator_log "$stderr")"
	assert_output - <<-EOF
		tfd: warning: spool/bin:1: bad line '--name x --delay 0 -- /bin/echo bin ran': a user's crontab takes crontab lines only, not tfd lines (their options, such as --user or --persist, are the host's to give); the line is not loaded
		tfd: warning: spool/daemon: not loaded: mode 0640 gives group or others access (crontab(1) writes 0600)
		tfd: warning: spool/nobody: not loaded: not owned by 'nobody' (uid 0, not $(id -u nobody))
		tfd: warning: spool/sys: not loaded: a symbolic link
		tfd: warning: spool/$ghost: not loaded: no such user '$ghost'
	EOF
	# A user's line naming a user is not a system crontab's: "root" is the
	# command there, never the user it runs as.
	printf 'MAILTO=""\n@reboot root echo as root\n' >"spool/$user"
	rm "$TFD_REBOOT_FILE"   # another boot: @reboot runs again
	host_cron_until 'grep -q "root: not found" "$HOST_ERR"' "$TFD" --user-crontabs spool
	[[ $output != *"as root"* ]] || fail "a user's line ran as root: $output"
	# A spool that is not there; a command beside it; --system-crontab
	# (the user field) is for --jobs files only.
	assert_system_error "--user-crontabs 'nowhere': No such file or directory" \
		--user-crontabs nowhere
	assert_usage_error "a COMMAND '/bin/true' cannot be given beside --user-crontabs" \
		--user-crontabs spool -- /bin/true
	assert_usage_error "--system-crontab needs --jobs" --system-crontab --user-crontabs spool
	# The same directory as a --jobs directory is said to be a spool,
	# naming the first of its users' files in byte order ('bin' before
	# '$user'), whatever order the file system lists them in.
	run --separate-stderr "$TFD" --jobs spool --dry-run=1 --base-time "$BASE"
	[[ ${stderr_lines[0]} == "tfd: warning: --jobs 'spool' looks like a crontab spool ('bin' is owned by the user it is named after): its lines run as tfd's user"* ]] ||
		fail "$stderr"
}

@test "--user-crontabs: a user's jobs are USER/WORD; status shows the schedule as written, the user and FILE:LINE" {
	local user tfdctl=$REPO/tfdctl sock=$PWD/sock k
	[[ -x $tfdctl ]] || skip "no $tfdctl: run make tfdctl first"
	make_user user
	mkdir spool
	printf 'MAILTO=""\n0 4 * * 1-5 true\n@daily true\n' >"spool/$user"
	chown "$user" "spool/$user"
	chmod 600 "spool/$user"
	start_bg "$TFD" --user-crontabs spool --control="$sock" 2>err
	for ((k = 0; k < 100; k++)); do [[ -S $sock ]] && break; sleep 0.05; done
	run "$tfdctl" --control="$sock" --json status "$user/true"
	assert_success
	assert_equal "$(jq -r '.job | "\(.schedule)|\(.user)|\(.file):\(.line)"' <<<"$output")" \
		"0 4 * * 1-5|$user|spool/$user:2"
	run "$tfdctl" --control="$sock" status "$user/true-2"
	assert_line --index 0 "$user/true-2: @daily (realtime clock)"
	assert_line --index 1 "      From: spool/$user:3, as $user"
}

@test "--user-crontabs: crontab -e (a temporary file renamed into place) reloads; a user's bad line is passed over" {
	local user
	make_user user
	mkdir spool
	echo "$UP" >up.jobs
	echo '0 1 * * * true' >"spool/$user"
	chown "$user" "spool/$user"
	chmod 600 "spool/$user"
	start_bg "$TFD" --jobs up.jobs --user-crontabs spool --json >ev.json 2>err
	wait_up
	# What crontab -e does: a tmp.* file in the spool, given to the user,
	# renamed over the crontab.
	printf '0 1 * * * true\n0 2 * * * true\n' >spool/tmp.Ab12Cd
	chown "$user" spool/tmp.Ab12Cd
	chmod 600 spool/tmp.Ab12Cd
	mv spool/tmp.Ab12Cd "spool/$user"
	wait_for_reloads ev.json 1
	# A bad line of one user's never stops the host's cron: passed over.
	# (Written in place: the file stays the user's.)
	printf '0 1 * * * true\n99 2 * * * false\n0 3 * * * true\n' >"spool/$user"
	wait_for_reloads ev.json 2
	assert_reloads ev.json "ok 1 0 2" "ok 1 1 2"
	run cat err
	[[ $output == "tfd: warning: spool/$user:2: "*"'99 2 * * *'"*"; the line is not loaded" ]] ||
		fail "$output"
}

@test "a line whose user does not exist is passed over with FILE:LINE; a reload that finds the user runs it" {
	local user later
	new_user_name user
	new_user_name later
	mkdir cron.d spool
	printf '0 1 * * * root true\n0 2 * * * %s true\n' "$user" >cron.d/a
	run --separate-stderr "$TFD" --system-crontab --jobs cron.d --base-time "$BASE" --dry-run=2
	assert_success
	assert_output - <<-'EOF'
		2026-12-03T01:00:00.000000Z a/true
		2026-12-04T01:00:00.000000Z a/true
	EOF
	assert_equal "$stderr" "tfd: warning: cron.d/a:2: not run: no such user '$user' (a reload that finds the user runs the line)"
	# The same under --user-crontabs: the crontab of a user not there yet.
	echo '0 3 * * * true' >"spool/$later"
	chmod 600 "spool/$later"
	run --separate-stderr "$TFD" --user-crontabs spool --dry-run=1 --base-time "$BASE"
	assert_equal "$stderr" "tfd: warning: spool/$later: not loaded: no such user '$later'"
	echo "$UP" >up.jobs
	start_bg "$TFD" --system-crontab --jobs up.jobs --jobs cron.d --user-crontabs spool \
		--json >ev.json 2>err
	wait_up
	# A change to nothing (touch) while the user is missing loads nothing.
	touch cron.d/a
	nap 0.5
	useradd -M -d /nonexistent -s /bin/sh -U "$user"
	kill -HUP "${BG_PIDS[0]}"
	wait_for_reloads ev.json 1
	# The user made, then given the crontab (crontab(1) would have): loaded.
	useradd -M -d /nonexistent -s /bin/sh -U "$later"
	chown "$later" "spool/$later"
	wait_for_reloads ev.json 2
	assert_reloads ev.json "ok 1 0 2" "ok 1 0 3"
}

@test "a jobs file or directory reached through a link is watched at the link and at its target" {
	mkdir real v1 v2
	echo "$UP" >up.jobs
	echo '--name a --interval 1h -- /bin/true' >real/jobs
	ln -s real/jobs link
	echo '--name v --interval 1h -- /bin/true' >v1/v
	cp v1/v v2/v
	echo '--name w --interval 1h -- /bin/true' >v2/w
	ln -s v1 current
	start_bg "$TFD" --jobs up.jobs --jobs link --jobs current --json >ev.json 2>err
	wait_up
	# The target edited in place.
	echo '--name b --interval 1h -- /bin/true' >>real/jobs
	wait_for_reloads ev.json 1
	# current -> v1 swapped for current -> v2.
	ln -s v2 current.new
	mv -T current.new current
	wait_for_reloads ev.json 2
	# The new target is watched, the old one no longer counts.
	echo '--name x --interval 1h -- /bin/true' >v2/x
	wait_for_reloads ev.json 3
	assert_reloads ev.json "ok 1 0 3" "ok 1 0 4" "ok 1 0 5"
	run cat err
	assert_output ""
}

@test "a reload waits for a jobs file still open for writing; the jobs run on meanwhile" {
	mkdir d
	echo "$UP" >d/up
	echo '--name tick --interval 0.1s -- /bin/true' >d/tick
	echo '--name a --interval 1h -- /bin/true' >d/a
	start_bg "$TFD" --jobs d --json >ev.json 2>err
	wait_up
	# A writer holds d/a open, half written; another file is saved.
	exec 5>d/a
	printf -- '--name a --interval 1h -- /bin/true\n--name half --interv' >&5
	echo '--name b --interval 1h -- /bin/true' | save d/b
	local before
	before=$(job_exits ev.json tick)
	wait_until 20 job_exits_above ev.json tick $((before + 2)) ||
		fail "the jobs stopped while the reload waited"
	run reloads ev.json
	assert_output ""
	printf 'al 1h -- /bin/true\n' >&5
	exec 5>&-
	wait_for_reloads ev.json 1
	assert_reloads ev.json "ok 2 0 3"
	run cat err
	assert_output ""
}

@test "--system-crontab: a last line without a newline is ignored with a warning, as cron does" {
	mkdir cron.d
	printf 'MAILTO=""\n@reboot root echo whole\n@reboot root echo half' >cron.d/x
	run_host_cron 1 1 "$TFD" --system-crontab --jobs cron.d
	assert_equal "$status" 143
	assert_output whole
	assert_equal "$(without_operator_log "$stderr")" "tfd: warning: cron.d/x:3: not loaded: the last line has no newline (cron ignores it too)"
	# A plain jobs file's last line needs none.
	printf '@reboot echo whole\n@reboot echo half' >plain
	run --separate-stderr "$TFD" --jobs plain
	run sort <<<"$output"
	assert_output $'half\nwhole'
}

@test "the same file reached twice is read once, with a warning" {
	echo '@reboot echo once' >F
	run --separate-stderr "$TFD" --jobs F --jobs ./F
	assert_success
	assert_output once
	assert_equal "$(without_operator_log "$stderr")" "tfd: warning: ./F: not loaded: the same file as 'F', read once"
	# A cron.d link to the system crontab.
	mkdir cron.d
	printf 'MAILTO=""\n@reboot root echo system\n' >./crontab
	ln -s "$PWD/crontab" cron.d/link
	run_host_cron 1 1 "$TFD" --system-crontab --jobs crontab --jobs cron.d
	assert_equal "$status" 143
	assert_output system
	assert_equal "$(without_operator_log "$stderr")" "tfd: warning: cron.d/link: not loaded: the same file as 'crontab', read once"
}

# VmRSS of pid $1 (kB) once it has slept in poll for half a second.
settled_rss() {
	local i quiet=0 nr
	for ((i = 0; i < 400 && quiet < 10; i++)); do
		read -r nr _ <"/proc/$1/syscall"
		if [[ $nr == 7 || $nr == 271 || $nr == 73 ]]; then quiet=$((quiet + 1)); else quiet=0; fi
		nap 0.05
	done
	awk '/^VmRSS/ { print $2 }' "/proc/$1/status"
}

# A host's cron of many small files: each reload reads and parses them all
# again. What it took is given back, so reloads leave RSS where the load
# did (it grew by a 64 KiB block a file a reload before).
@test "reloads of 2,000 one-line cron.d files leave tfd's RSS within 1.2x of the load's" {
	skip_under_asan "ASan's allocator keeps freed memory in quarantine"
	local pid load after k
	mkdir cron.d
	awk 'BEGIN { for (i = 0; i < 2000; i++) {
		f = sprintf("cron.d/f%04d", i)
		printf "%d %d 1 1 * root /bin/true %d\n", i % 60, i / 60 % 24, i > f
		close(f) } }'
	start_bg "$TFD" --system-crontab --jobs cron.d --json >ev.json 2>err
	pid=${BG_PIDS[0]}
	load=$(settled_rss "$pid")
	for ((k = 1; k <= 8; k++)); do
		echo "$k 2 1 1 * root /bin/true" >cron.d/f0000
		wait_for_reloads ev.json "$k" 20
	done
	after=$(settled_rss "$pid")
	((after * 10 <= load * 12)) || fail "RSS $load kB once loaded, $after kB after 8 reloads"
}

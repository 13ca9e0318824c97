#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# The control socket (--control) and tfdctl: every command and its errors,
# the socket's limits, its path's rules. Sockets live in the test's own
# directory, or under a tmpfs /run in a mount namespace of the test's own.

load test_helper
load completion_helper
load reload_helper
load control_helper

# tfd's ends of its clients' connections: ss shows them under the name
# the socket was bound at before its rename, $SOCK.PID.
clients() {
	ss -xH | grep -c -- "$SOCK\." || true
}

# Waits up to 5 s until tfd has $1 clients.
wait_for_clients() {
	local i
	for ((i = 0; i < 100; i++)); do
		(($(clients) == $1)) && return 0
		nap 0.05
	done
	fail "tfd has $(clients) clients, not $1"
}

# Sends the request $1 as a line and prints the answer line.
ask() {
	printf '%s\n' "$1" | socat -t5 - "UNIX-CONNECT:$SOCK"
}

@test "--control: a socket of mode 0600 in a directory made 0755, removed at exit" {
	echo '--name a --interval 1h -- true' >./jobs
	start_tfd
	assert_equal "$(stat -c %a "$SOCK")" 600
	assert_equal "$(stat -c %a "${SOCK%/*}")" 755
	kill -TERM "${BG_PIDS[0]}"
	wait "${BG_PIDS[0]}" || true
	[[ ! -e $SOCK ]] || fail "the socket is still there"
}

# The socket is made before the loop runs: a SIGTERM in between waits for
# the loop (its signals are blocked first) and the socket is removed as at
# any stop. strace holds tfd 2 s once the socket is in place, and the signal
# comes then.
@test "--control: a SIGTERM before the loop runs is a stop like any other: the socket removed" {
	require_command strace
	skip_under_asan "its leak check stops under strace"
	echo '--name a --interval 1h -- true' >./jobs
	strace -f -qq -e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:delay_exit=2000000 -o /dev/null \
		"$TFD" --jobs=jobs --json --control="$SOCK" >ev.json 2>err &
	BG_PIDS+=("$!")
	wait_for_socket
	pkill -TERM -P "${BG_PIDS[0]}" -x "${TFD##*/}"
	# A stop's status (strace ends as tfd did): not a death by the signal
	# before the loop could remove the socket.
	wait_bg_exit "${BG_PIDS[0]}" 20
	assert_equal "$bg_status" 143
	[[ ! -e $SOCK ]] || fail "the socket is still there"
}

@test "no --control: no socket, nothing created" {
	echo '--name a --interval 100ms --count 2 -- true' >./jobs
	XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/xdg run "$TFD" --jobs=jobs
	assert_success
	[[ ! -e $BATS_TEST_TMPDIR/xdg ]] || fail "something was created"
}

@test "list: one line per job, as list-timers, sorted by NEXT; --json the same jobs" {
	printf '%s\n' '--name late --interval 1h -- true' \
		'--name soon --delay 200ms --interval 30min -- sh -c "exit 3"' \
		'--name once --delay 100ms -- true' >./jobs
	start_tfd
	wait_for_match ev.json '"event":"exit","job":"once"'
	wait_for_match ev.json '"event":"exit","job":"soon"'
	run "$TFDCTL" list
	assert_success
	assert_line --index 0 --regexp '^NEXT +LEFT +LAST +PASSED +RESULT +DURATION +STATE +JOB$'
	assert_line --index 1 --regexp '^[A-Z][a-z]{2} [0-9-]{10} [0-9:]{8} UTC +29min [0-9]+s left +.* ago +status 3 +[0-9].* +idle +soon$'
	assert_line --index 2 --regexp ' +59min [0-9]+s left +- +- +- +- +idle +late$'
	assert_line --index 3 --regexp '^- +- +.* ago +success +.* idle +once$'
	assert_line --index 4 '3 jobs listed.'
	run "$TFDCTL" --json list
	assert_success
	assert_equal "$(jq -r '[.jobs[].job] | join(" ")' <<<"$output")" "soon late once"
	assert_equal "$(jq -r '.jobs[0].result' <<<"$output")" "status 3"
	run "$TFDCTL" list --names
	assert_output $'soon\nlate\nonce'
}

@test "status: schedule as written, policies, counters, next 3 elapses, runs, output tail" {
	# Two runs and no more, whatever the machine's load: --count 2, and a
	# job of an hour that keeps tfd (and its socket) there.
	printf '%s\n' '--name st --interval 1s --count 2 --overlap queue --timeout 5s --retry 1 --retry-delay 50ms --tag-output -- sh -c "echo out-$TFD_SEQ; exit 0"' \
		'--name stay --interval 1h -- true' >./jobs
	start_tfd
	wait_for_match ev.json '"event":"exit","job":"st","seq":2'
	run "$TFDCTL" --json status st
	assert_success
	assert_equal "$(jq -r '.job.schedule' <<<"$output")" "--interval '1s' --count '2'"
	assert_equal "$(jq -r '[.job.overlap, .job.timeout, .job.retry, .job.retry_delay, .job.output] | join(" ")' <<<"$output")" "queue 5 1 0.05 tagged"
	assert_equal "$(jq -r '.job.counters.success' <<<"$output")" 2
	assert_equal "$(jq -r '.job.next_elapses | length' <<<"$output")" 0
	assert_equal "$(jq -r '[.job.runs[].seq] | join(" ")' <<<"$output")" "2 1"
	assert_equal "$(jq -r '.job.runs[0].trigger' <<<"$output")" schedule
	assert_equal "$(jq -r '.job.output_tail' <<<"$output")" out-2
	run "$TFDCTL" status st
	assert_success
	assert_line --index 0 "st: --interval '1s' --count '2' (monotonic clock)"
	assert_line --partial 'Policies: overlap queue, timeout 5s, retry 1 (delay 50ms), output tagged'
	assert_line --partial 'Counters: runs 2, success 2,'
	assert_line 'out-2'
}

@test "status: a crontab line's schedule is its fields as written; the command line's its options" {
	printf '%s\n' '0 3 * * * /bin/true' '@weekly /bin/true' >./jobs
	start_tfd
	run "$TFDCTL" --json list
	# list is in the order of the next elapse: @weekly's Sunday midnight
	# comes before the next 03:00 from Saturday 03:00 on.
	assert_equal "$(jq -r '[.jobs[].job] | sort | join(" ")' <<<"$output")" "true true-2"
	assert_equal "$("$TFDCTL" --json status true | jq -r .job.schedule)" "0 3 * * *"
	assert_equal "$("$TFDCTL" --json status true-2 | jq -r .job.schedule)" "@weekly"
	# The first tfd gone (its socket with it) before the second takes the
	# path, and the second answering for its own job: a loaded machine
	# may take seconds for either.
	kill "${BG_PIDS[0]}"
	wait_bg_exit "${BG_PIDS[0]}" 20
	start_bg "$TFD" --clock boottime --delay 1h --interval 2h --name one --control="$SOCK" -- true >out 2>err
	for ((i = 0; i < 400; i++)); do "$TFDCTL" status one >/dev/null 2>&1 && break; sleep 0.05; done
	assert_equal "$("$TFDCTL" --json status one | jq -r '.job.schedule, .job.clock')" $'--clock \'boottime\' --delay \'1h\' --interval \'2h\'\nboottime'
}

@test "unknown job, missing and extra arguments, unknown command: 1 or 2" {
	echo '--name a --interval 1h -- true' >./jobs
	start_tfd
	for cmd in status run stop pause resume; do
		run --separate-stderr "$TFDCTL" "$cmd" nosuch
		assert_equal "$status" 1
		assert_equal "$stderr" "tfdctl: unknown job 'nosuch'"
	done
	run --separate-stderr "$TFDCTL" status
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfdctl: status: needs a job name"
	run --separate-stderr "$TFDCTL" list a
	assert_equal "$status" 2
	run --separate-stderr "$TFDCTL" pause
	assert_equal "$status" 2
	run --separate-stderr "$TFDCTL" frobnicate
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfdctl: unknown command 'frobnicate'"
	run --separate-stderr "$TFDCTL"
	assert_equal "$status" 2
	# Nothing was changed, so no control event.
	refute grep -q '"event":"control"' ev.json
}

@test "no tfd at the path: exit 3 naming it" {
	run --separate-stderr "$TFDCTL" --control="$BATS_TEST_TMPDIR/none" list
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: no tfd answers at $BATS_TEST_TMPDIR/none: No such file or directory"
}

@test "bad JSON and a request without a command: answered ok false, the client may go on" {
	echo '--name a --interval 1h -- true' >./jobs
	start_tfd
	run ask '{"command": "list"'
	assert_output --partial '{"ok":false,"error":"bad request: offset 18: '
	run ask '[1,2]'
	assert_output '{"ok":false,"error":"bad request: an object with \"command\" expected"}'
	run ask '{"command":"dance"}'
	assert_output '{"ok":false,"error":"unknown command '"'"'dance'"'"'"}'
	# Two requests on one connection, the first bad: both answered.
	run bash -c 'printf "nope\n{\"command\":\"list\"}\n" | socat -t5 - "UNIX-CONNECT:$1"' _ "$SOCK"
	assert_line --index 0 --partial '"ok":false'
	assert_line --index 1 --partial '{"ok":true,"jobs":[{"job":"a"'
}

@test "a request over 64 KiB is refused and the client ended" {
	echo '--name a --interval 1h -- true' >./jobs
	start_tfd
	run bash -c 'head -c 70000 /dev/zero | tr "\0" x | socat -t5 - "UNIX-CONNECT:$1"' _ "$SOCK"
	assert_output --partial '{"ok":false,"error":"request too big: over 65536 bytes"}'
	run "$TFDCTL" list
	assert_success
}

@test "a client that never reads is dropped past 1 MiB unread; a list it never reads ends after 5 s; ticks go on" {
	{
		echo '--name tick --interval 100ms -- true'
		for i in $(seq 1 1500); do echo "--name job-with-a-longer-name-$i --interval 1h -- true"; done
	} >./jobs
	start_tfd
	wait_for_match ev.json '"job":"tick","seq":2'
	# Requests only, never a read (socat -u), then one more 2 s later:
	# tfd dropped the client when its unread answers passed 1 MiB, long
	# before the 5 s idle end, so that write fails (status 1); a client
	# still connected would write it and end at its input's end (0).
	SECONDS=0
	run timeout 20 bash -c 'socat -u - "UNIX-CONNECT:$1" < <({
		for i in $(seq 3000); do echo "{\"command\":\"status\",\"job\":\"tick\"}"; done
		sleep 2; echo "{\"command\":\"list\"}"; } 2>/dev/null 3>&-)' _ "$SOCK"
	assert_failure 1
	((SECONDS < 5)) || fail "the client was not dropped in time (${SECONDS}s)"
	wait_for_clients 0
	# A list (megabytes) is written as the client reads it: one that never
	# reads holds a window of it, and is ended by the 5 s without progress.
	SECONDS=0
	run timeout 20 bash -c 'socat -u - "UNIX-CONNECT:$1" < <({
		echo "{\"command\":\"list\"}"; sleep 7; echo "{\"command\":\"list\"}"; } 2>/dev/null 3>&-)' _ "$SOCK"
	assert_failure 1
	before=$(grep -c '"event":"tick","job":"tick"' ev.json)
	nap 0.6
	after=$(grep -c '"event":"tick","job":"tick"' ev.json)
	((after > before)) || fail "ticks stopped: $before then $after"
	run "$TFDCTL" list --names
	assert_success
	assert_equal "${#lines[@]}" 1501
}

@test "the 33rd client is told and closed; one idle past 5 s is ended" {
	echo '--name a --interval 1h -- true' >./jobs
	start_tfd
	local i pids=()
	for i in $(seq 32); do
		socat -u "UNIX-CONNECT:$SOCK" OPEN:/dev/null 3>&- &
		pids+=("$!")
	done
	BG_PIDS+=("${pids[@]}")
	# Every one of them connected: tfd's side has 32 sockets.
	wait_for_clients 32
	run --separate-stderr "$TFDCTL" list
	assert_equal "$status" 1
	assert_equal "$stderr" 'tfdctl: too many clients: tfd serves 32 at once'
	# The idle ones are ended within 5 s (and a wide margin).
	for i in "${pids[@]}"; do
		timeout 15 tail --pid="$i" -f /dev/null || fail "client $i still connected"
	done
	run "$TFDCTL" list --names
	assert_output a
}

@test "accept failing for want of descriptors does not spin the loop; clients are served again later" {
	echo '--name a --interval 1h -- true' >./jobs
	start_bg bash -c 'ulimit -n 12 && exec "$@"' _ "$TFD" --jobs=jobs --control="$SOCK" >out 2>err
	wait_for_socket
	local i t0 t1
	for i in $(seq 8); do
		start_bg socat -u "UNIX-CONNECT:$SOCK" OPEN:/dev/null
	done
	nap 0.5
	t0=$(awk '{ print $14 + $15 }' "/proc/${BG_PIDS[0]}/stat")
	sleep 2
	t1=$(awk '{ print $14 + $15 }' "/proc/${BG_PIDS[0]}/stat")
	((t1 - t0 < 20)) || fail "tfd took $((t1 - t0)) ticks of CPU in 2 s"
	# The clients go away: their descriptors come free, and a new client
	# is served (an idle one would be ended after 5 s, the 11th test).
	# Each try gives up after 1 s, not tfdctl's default 10 s.
	kill "${BG_PIDS[@]:1}"
	for ((i = 0; i < 30; i++)); do
		"$TFDCTL" --timeout=1s list --names >list 2>/dev/null && break
		nap 0.1
	done
	assert_equal "$(cat list)" a
}

@test "a path where a tfd answers, or that is no socket, is refused at start (exit 2); a stale socket is replaced" {
	echo '--name a --interval 1h -- true' >./jobs
	start_tfd
	run --separate-stderr "$TFD" --jobs=jobs --control="$SOCK"
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --control '$SOCK': another tfd runs there (it holds '$SOCK.lock')"
	: >file
	run --separate-stderr "$TFD" --jobs=jobs --control="$BATS_TEST_TMPDIR/file"
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --control '$BATS_TEST_TMPDIR/file': the path exists and is not a socket"
	# A tfd killed leaves its socket behind: stale, replaced.
	kill -KILL "${BG_PIDS[0]}"
	wait "${BG_PIDS[0]}" 2>/dev/null || true
	[[ -S $SOCK ]] || fail "no stale socket to test with"
	start_bg "$TFD" --jobs=jobs --control="$SOCK" >out2 2>err2
	for ((i = 0; i < 100; i++)); do
		"$TFDCTL" list >/dev/null 2>&1 && break
		nap 0.05
	done
	run "$TFDCTL" list --names
	assert_success
	assert_output a
}

@test "tfdctl without --control reaches a tfd started with a bare --control (root: /run/tfd/control, in a mount namespace)" {
	((EUID == 0)) || skip "needs root for the mount namespace"
	echo '--name ns --interval 1h -- true' >./jobs
	unset TFD_CONTROL
	run unshare -m bash -c '
		mount -t tmpfs tmpfs /run || exit 9
		"$1" --jobs=jobs --control >out 2>err &
		for i in $(seq 100); do [[ -S /run/tfd/control ]] && break; sleep 0.05; done
		stat -c %a /run/tfd
		"$2" list --names
		kill %1; wait' _ "$TFD" "$TFDCTL"
	assert_success
	assert_output $'755\nns'
}

@test "without root the default path is \$XDG_RUNTIME_DIR/tfd/control" {
	local d
	d=$(mktemp -d /tmp/tfd-ctl-test.XXXXXX)
	chmod 755 "$d"
	mkdir -m 700 "$d/xdg"
	echo '--name x --interval 1h -- true' >"$d/jobs"
	chown nobody "$d/xdg" "$d/jobs"
	# The binaries where nobody may run them: a clone under /root (0700)
	# is not.
	install -m 755 "$TFD" "$d/tfd"
	install -m 755 "$TFDCTL" "$d/tfdctl"
	unset TFD_CONTROL
	run setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_RUNTIME_DIR="$d/xdg" bash -c '
		cd "$3" || exit 9
		"$1" --jobs=jobs --control >xdg/out 2>xdg/err 3>&- &
		for i in $(seq 100); do [[ -S xdg/tfd/control ]] && break; sleep 0.05; done
		"$2" list --names
		kill %1; wait' _ "$d/tfd" "$d/tfdctl" "$d"
	run_status=$status
	run_output=$output
	run --separate-stderr env -u XDG_RUNTIME_DIR setpriv --reuid=nobody --regid=nogroup --clear-groups "$d/tfd" --jobs="$d/jobs" --control
	rm -rf "$d"
	assert_equal "$run_status" 0
	assert_equal "$run_output" x
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: no control socket path: XDG_RUNTIME_DIR is not set; give --control=PATH"
}

@test "run --wait exits with the run's status; run's tick says trigger manual; a control event with the uid" {
	echo '--name r --interval 1h --tag-output -- sh -c "echo ran; exit 7"' >./jobs
	start_tfd
	run "$TFDCTL" run r --wait
	assert_equal "$status" 7
	wait_for_match ev.json '"event":"exit","job":"r"'
	run jq -c 'select(.event == "tick" or .event == "control") | [.event, .action // .command, .trigger // .uid]' ev.json
	assert_output $'["control","run",0]\n["tick","run","manual"]'
	run "$TFDCTL" run r
	assert_success
	assert_output 'r: run 2 started'
	run "$TFDCTL" --json status r
	wait_for_match ev.json '"event":"exit","job":"r","seq":2'
	run "$TFDCTL" --json status r
	assert_equal "$(jq -r '[.job.runs[].trigger] | join(" ")' <<<"$output")" "manual manual"
	echo '--name s --interval 1h -- sh -c "kill -TERM \$\$"' >./jobs
	"$TFDCTL" reload >/dev/null
	run "$TFDCTL" run s --wait
	assert_equal "$status" 143
}

@test "requests sent behind a run --wait, and behind a long list, are answered in turn" {
	{
		echo '--name r --interval 1h -- sh -c "sleep 0.3; exit 4"'
		for i in $(seq 1 1000); do echo "--name j$i --interval 1h -- true"; done
	} >./jobs
	start_tfd
	run bash -c 'printf "%s\n" "{\"command\":\"run\",\"job\":\"r\",\"wait\":true}" \
		"{\"command\":\"list\"}" "{\"command\":\"status\",\"job\":\"j7\"}" |
		socat -t5 - "UNIX-CONNECT:$1"' _ "$SOCK"
	assert_success
	assert_equal "${#lines[@]}" 3
	assert_equal "$(jq -r .exit <<<"${lines[0]}")" 4
	assert_equal "$(jq -r '.jobs | length' <<<"${lines[1]}")" 1001
	assert_equal "$(jq -r .job.job <<<"${lines[2]}")" j7
}

@test "run is refused by --overlap skip while a run goes; stop ends it as by SIGTERM, counted as killed" {
	echo '--name long --interval 1h --delay 10ms -- sleep 30' >./jobs
	start_tfd
	wait_for_match ev.json '"event":"tick","job":"long"'
	run --separate-stderr "$TFDCTL" run long
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: a run is still going and --overlap is skip"
	run "$TFDCTL" list
	assert_line --index 1 --regexp 'running [0-9]+ +long$'
	run "$TFDCTL" stop long
	assert_success
	assert_output '1 run stopped'
	wait_for_match ev.json '"event":"exit","job":"long","seq":1,.*"signal":"SIGTERM"'
	run "$TFDCTL" --json status long
	assert_equal "$(jq -r '.job.counters.killed, .job.result, .job.state' <<<"$output")" $'1\nsignal SIGTERM\nidle'
	run "$TFDCTL" stop long
	assert_output '0 runs stopped'
}

@test "pause: elapses printed paused and counted; lasts across a reload that keeps the job; resume" {
	printf '%s\n' '--name p --interval 150ms -- true' '--name q --interval 150ms -- true' >./jobs
	start_tfd --metrics=m.prom
	wait_for_match ev.json '"event":"exit","job":"p"'
	run "$TFDCTL" pause p
	assert_success
	assert_output ''
	wait_for_match ev.json '"job":"p".*"action":"paused"'
	run "$TFDCTL" list
	assert_line --regexp ' paused +p$'
	# A reload that keeps p keeps its pause; q, changed, is a new job.
	# The watch sees the write and reloads; tfdctl's reload after it finds
	# nothing more to do (which of the two came first is the machine's).
	printf '%s\n' '--name p --interval 150ms -- true' '--name q --interval 150ms -- /bin/true' >./jobs
	wait_for_match ev.json '"event":"reload","job":null,"ok":true,"added":1,"removed":1,"kept":1'
	run "$TFDCTL" reload
	assert_output 'reloaded: 0 added, 0 removed, 2 kept'
	n=$(grep -c '"job":"p".*"action":"paused"' ev.json)
	nap 0.5
	(($(grep -c '"job":"p".*"action":"paused"' ev.json) > n)) || fail "p no longer paused"
	grep -q '^tfd_paused{job_name="p"} 1$' m.prom || fail "$(grep paused m.prom)"
	grep -Eq '^tfd_paused_total\{job_name="p"\} [1-9]' m.prom || fail "$(grep paused m.prom)"
	run "$TFDCTL" resume --all
	assert_success
	n=$(grep -c '"event":"exit","job":"p"' ev.json)
	nap 0.5
	(($(grep -c '"event":"exit","job":"p"' ev.json) > n)) || fail "p did not run again"
	run jq -c 'select(.event == "control") | [.command, .job]' ev.json
	assert_output $'["pause","p"]\n["reload",null]\n["resume",null]'
}

@test "pause --all, and a pause of several names checks them all first" {
	printf '%s\n' '--name a --interval 1h -- true' '--name b --interval 1h -- true' >./jobs
	start_tfd
	run "$TFDCTL" pause a nosuch
	assert_failure 1
	run "$TFDCTL" --json list
	assert_equal "$(jq -r '[.jobs[].state] | join(" ")' <<<"$output")" "idle idle"
	"$TFDCTL" pause --all
	run "$TFDCTL" --json list
	assert_equal "$(jq -r '[.jobs[].state] | join(" ")' <<<"$output")" "paused paused"
	"$TFDCTL" resume a b
	run "$TFDCTL" --json list
	assert_equal "$(jq -r '[.jobs[].state] | join(" ")' <<<"$output")" "idle idle"
}

@test "reload: the counts, or FILE:LINE and exit 1 while the jobs run on" {
	echo '--name a --interval 1h -- true' >./jobs
	start_tfd
	run "$TFDCTL" --json reload
	assert_output '{"ok":true,"added":0,"removed":0,"kept":1}'
	printf '%s\n' '--name a --interval 1h -- true' '--name b --interval nonsense -- true' >./jobs
	run --separate-stderr "$TFDCTL" reload
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: jobs:2: --interval: invalid duration 'nonsense': expected a number at 'nonsense'"
	run "$TFDCTL" list --names
	assert_output a
}

@test "a tfd with one job from the command line: reload is refused" {
	start_bg "$TFD" --interval 1h --name one --control="$SOCK" -- true >out 2>err
	wait_for_socket
	run --separate-stderr "$TFDCTL" reload
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: reload needs a tfd started with --jobs"
	run "$TFDCTL" list --names
	assert_output one
}

@test "under --fleet with its database unreachable, run and pause are refused (neither can be claimed or written); list and status answer" {
	echo '--name f --cron "0 3 * * *" -- true' >./jobs
	# No server at all: the fleet's database is unreachable, the loop runs.
	start_bg "$TFD" --jobs=jobs --fleet "host=$BATS_TEST_TMPDIR dbname=none" --control="$SOCK" >out 2>err
	wait_for_socket
	run --separate-stderr "$TFDCTL" run f
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: the fleet's database is not connected: a run now must be claimed"
	run --separate-stderr "$TFDCTL" pause --all
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: the fleet's database is not connected: a pause is written to tfd_paused"
	run "$TFDCTL" list --names
	assert_output f
	run "$TFDCTL" --json status f
	assert_equal "$(jq -r .job.state <<<"$output")" idle
}

@test "bash completion offers the running tfd's job names" {
	printf '%s\n' '--name alpha --interval 1h -- true' '--name beta --interval 1h -- true' >./jobs
	start_tfd
	# shellcheck source=../../completions/tfdctl.bash
	source "$REPO/completions/tfdctl.bash"
	PATH=$(dirname "$TFDCTL"):$PATH
	COMP_WORDS=(tfdctl status a) COMP_CWORD=2
	_tfdctl
	assert_equal "${COMPREPLY[*]}" alpha
	COMP_WORDS=(tfdctl pause '') COMP_CWORD=2
	_tfdctl
	assert_equal "$(printf '%s\n' "${COMPREPLY[@]}" | sort | xargs)" "alpha beta"
	COMP_WORDS=(tfdctl '') COMP_CWORD=1
	_tfdctl
	assert_equal "${COMPREPLY[*]}" "list status run stop pause resume reload"
}

@test "fish completion offers the running tfd's job names and the commands" {
	command -v fish >/dev/null || skip "no fish"
	printf '%s\n' '--name alpha --interval 1h -- true' '--name beta --interval 1h -- true' >./jobs
	start_tfd
	run env PATH="$(dirname "$TFDCTL"):$PATH" HOME="$BATS_TEST_TMPDIR" \
		XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/xdg" fish --no-config -c "
		source $REPO/completions/tfdctl.fish
		complete -C 'tfdctl status '
		complete -C 'tfdctl re'"
	assert_success
	assert_output $'alpha\nbeta\nreload\tRead the jobs files again\nresume\tRun their elapses again'
}

@test "zsh completion offers the running tfd's job names and the commands" {
	command -v zsh >/dev/null || skip "no zsh"
	printf '%s\n' '--name alpha --interval 1h -- true' '--name beta --interval 1h -- true' >./jobs
	start_tfd
	HOME=$BATS_TEST_TMPDIR
	PATH="$(dirname "$TFDCTL"):$PATH"
	export HOME PATH
	run zsh_complete 'tfdctl status '
	assert_output --regexp 'alpha +beta'
	run zsh_complete 'tfdctl '
	assert_line --regexp '^reload +-- read the jobs files again'
	assert_line --regexp '^status +-- one job in full'
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # job lines are expanded by the run's shell, not here.
# The control socket and tfdctl under abuse (tfd(1) and tfdctl(1), SPEC's
# "Holding under load and abuse"): names that are shell code or escape
# sequences, a socket directory someone else made, two tfds on one path,
# pipelined and abandoned requests, a stuck stdout, a stopped tfd, few
# descriptors, stop between retries and under --overlap queue, and
# tfdctl's messages.

load test_helper
load completion_helper
load reload_helper
load control_helper

# Waits up to 10 s until tfdctl is answered at $SOCK.
wait_for_tfd() {
	local i
	for ((i = 0; i < 200; i++)); do
		"$TFDCTL" --control="$SOCK" list --names >/dev/null 2>&1 && return 0
		nap 0.05
	done
	fail "no tfd answers at $SOCK: $(cat err 2>/dev/null)"
}

# Starts tfd on ./jobs with the control socket, --json events in ev.json,
# and waits until it answers.
start_answering() {
	start_tfd "$@"
	wait_for_tfd
}

# A copy of the binaries that another user may run (the tree may be under
# a directory only root can search), in the 0755 directory $SHARED.
share_binaries() {
	SHARED=$(mktemp -d /tmp/tfd-abuse.XXXXXX)
	chmod 755 "$SHARED"
	install -m 755 "$TFD" "$SHARED/tfd"
	install -m 755 "$TFDCTL" "$SHARED/tfdctl"
}

# `tfdctl run $1 --wait` in the background (its stdout in wait.out, its
# stderr in wait.err), once tfd has printed the event matching $2.
start_waiter() {
	"$TFDCTL" run "$1" --wait >wait.out 2>wait.err &
	waiter=$!
	wait_for_match ev.json "$2"
}

# Waits up to 10 s for the waiter to be answered, and sets waited to its
# exit status.
# shellcheck disable=SC2034 # waited is the tests' to read.
wait_answered() {
	timeout 10 tail --pid="$waiter" -f /dev/null || fail "run --wait was not answered"
	waited=0
	wait "$waiter" || waited=$?
}

# A stopped tfd is continued before it is killed; a tfd under strace is
# killed itself (strace killed would let it go on).
teardown() {
	local pid child
	for pid in "${BG_PIDS[@]}"; do
		kill -CONT "$pid" 2>/dev/null || true
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == strace ]] || continue
		for child in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
			kill -KILL "$child" 2>/dev/null || true
		done
		wait "$pid" 2>/dev/null || true
	done
	[[ -z ${SHARED:-} ]] || rm -rf "$SHARED"
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	BG_PIDS=()
}

# Item 1: completions never evaluate a name.

@test "bash completion: a name from a crontab line that is shell code is offered quoted, never run" {
	# The name is the line's first word, as a user's crontab gives it.
	printf '%s\n' "0 4 * * * '\$(touch ran)' nightly" \
		'--name "two words" --interval 1h -- true' '--name "g*b?" --interval 1h -- true' >./jobs
	start_answering
	run "$TFDCTL" list --names
	assert_line '$(touch ran)'
	# shellcheck source=../../completions/tfdctl.bash
	source "$REPO/completions/tfdctl.bash"
	PATH=$(dirname "$TFDCTL"):$PATH
	COMP_WORDS=(tfdctl status '') COMP_CWORD=2
	_tfdctl
	[[ ! -e ran ]] || fail "completion ran a job's name as a command"
	assert_equal "${#COMPREPLY[@]}" 3
	# Each is one word that the shell reads back as the name.
	local word names=()
	for word in "${COMPREPLY[@]}"; do
		eval "names+=($word)"
	done
	[[ ! -e ran ]] || fail "a completion word runs the name"
	assert_equal "$(printf '%s\n' "${names[@]}" | sort)" \
		"$(printf '%s\n' '$(touch ran)' 'g*b?' 'two words' | sort)"
	COMP_WORDS=(tfdctl run "'two") COMP_CWORD=2
	_tfdctl
	assert_equal "${COMPREPLY[*]}" 'two\ words'
}

@test "bash completion: a name with control characters is offered as \$'...' and reaches the job" {
	printf -- '--name "esc\033[2J" --interval 1h -- true\n' >./jobs
	start_answering
	# shellcheck source=../../completions/tfdctl.bash
	source "$REPO/completions/tfdctl.bash"
	PATH=$(dirname "$TFDCTL"):$PATH
	COMP_WORDS=(tfdctl status e) COMP_CWORD=2
	_tfdctl
	assert_equal "${COMPREPLY[*]}" "\$'esc\\x1b[2J'"
	eval "name=${COMPREPLY[0]}"
	run "$TFDCTL" --json status "$name"
	assert_success
}

@test "zsh and fish completion offer a name that is shell code quoted, never run" {
	printf '%s\n' "--name '\$(touch $BATS_TEST_TMPDIR/ran)' --interval 1h -- true" \
		"--name '(touch $BATS_TEST_TMPDIR/ran2)' --interval 1h -- true" >./jobs
	start_answering
	PATH="$(dirname "$TFDCTL"):$PATH"
	if command -v zsh >/dev/null; then
		HOME=$BATS_TEST_TMPDIR
		export HOME PATH
		run zsh_complete 'tfdctl status \$'
		[[ ! -e ran && ! -e ran2 ]] || fail "zsh completion ran a name"
		assert_output --partial '\$\(touch\ '
	fi
	if command -v fish >/dev/null; then
		run env HOME="$BATS_TEST_TMPDIR" XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/xdg" fish --no-config -c "
			source $REPO/completions/tfdctl.fish
			complete -C 'tfdctl status '"
		[[ ! -e ran && ! -e ran2 ]] || fail "fish completion ran a name"
		assert_line '$(touch '"$BATS_TEST_TMPDIR"'/ran)'
		assert_line '(touch '"$BATS_TEST_TMPDIR"'/ran2)'
	fi
}

# Item 4: the socket's directory, and who answers.

@test "--control in a directory writable by others, or another user's, or /tmp itself: exit 2 naming it" {
	echo '--name a --interval 1h -- true' >./jobs
	mkdir -m 777 loose
	chmod 777 loose
	run --separate-stderr timeout 10 "$TFD" --jobs=jobs --control="$BATS_TEST_TMPDIR/loose/control"
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --control '$BATS_TEST_TMPDIR/loose/control': the directory '$BATS_TEST_TMPDIR/loose' is writable by others (mode 0777): another user could answer in tfd's place; chmod go-w it"
	[[ ! -e loose/control && ! -e loose/control.lock ]] || fail "something was made in it"
	mkdir -m 755 theirs
	chown nobody theirs
	run --separate-stderr timeout 10 "$TFD" --jobs=jobs --control="$BATS_TEST_TMPDIR/theirs/control"
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --control '$BATS_TEST_TMPDIR/theirs/control': the directory '$BATS_TEST_TMPDIR/theirs' belongs to uid $(id -u nobody), not to tfd's user (uid 0): its owner could answer in tfd's place; give a directory of tfd's user"
	run --separate-stderr timeout 10 "$TFD" --jobs=jobs --control="/tmp/tfd-abuse-$$"
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfd: --control '/tmp/tfd-abuse-$$': the directory '/tmp' is writable by others (mode 1777): another user could answer in tfd's place; chmod go-w it"
}

@test "tfdctl refuses a socket answered by another user (SO_PEERCRED): exit 3 naming the uid" {
	require_command socat
	share_binaries
	chown nobody "$SHARED"
	# Another user answers where root's tfd was expected, as ok as can be.
	start_bg setpriv --reuid=nobody --regid=nogroup --clear-groups \
		socat UNIX-LISTEN:"$SHARED/control",fork,mode=666 \
		SYSTEM:'echo "{\"ok\":true,\"exit\":0}"'
	local i
	for ((i = 0; i < 100; i++)); do [[ -S $SHARED/control ]] && break; sleep 0.05; done
	run --separate-stderr "$TFDCTL" --control="$SHARED/control" run backup --wait
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: $SHARED/control: the process answering runs as uid $(id -u nobody), not as you (uid 0) or root: not trusted"
}

@test "tfdctl as a user against root's socket: permission denied, naming its owner and mode" {
	echo '--name a --interval 1h -- true' >./jobs
	share_binaries
	mkdir -m 755 "$SHARED/run"
	SOCK=$SHARED/run/control
	start_answering
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SHARED/tfdctl" --control="$SOCK" list
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: $SOCK: permission denied (the socket is root's, mode 0600)"
	chmod 700 "$SHARED/run"
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SHARED/tfdctl" --control="$SOCK" list
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: $SOCK: permission denied (the directory $SHARED/run is root's, mode 0700)"
}

# Item 9: one tfd per path.

# How many of the pids given are still running (not gone, not zombies).
running() {
	local pid n=0 stat
	for pid in "$@"; do
		stat=
		{ read -r stat <"/proc/$pid/stat"; } 2>/dev/null || true
		stat=${stat##*) }
		[[ -n $stat && ${stat:0:1} != Z ]] && n=$((n + 1))
	done
	echo "$n"
}

@test "tfds started at once on one --control path: one runs, the others exit 2 (PATH.lock)" {
	require_command strace
	echo '--name a --interval 1h -- true' >./jobs
	mkdir -m 755 ctl
	local round k pid code pids
	for ((round = 0; round < 5; round++)); do
		pids=()
		# Each start's bind is held back 300 ms (strace's fault
		# injection): every start has looked at the path before any has
		# its socket there, the window in which two starts without a lock
		# could both pass (about 1 start in 100 otherwise).
		for ((k = 0; k < 4; k++)); do
			ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o /dev/null -e trace=bind \
				-e inject=bind:delay_enter=300000 \
				"$TFD" --jobs=jobs --control="$SOCK" >/dev/null 2>"err.$k" 3>&- &
			pids+=("$!")
		done
		BG_PIDS+=("${pids[@]}")
		# Every one but one gives up at once; that one answers.
		for ((k = 0; k < 200; k++)); do
			(($(running "${pids[@]}") <= 1)) && break
			nap 0.05
		done
		wait_for_tfd
		assert_equal "round $round: $(running "${pids[@]}") running" "round $round: 1 running"
		for pid in "${pids[@]}"; do
			(($(running "$pid") == 1)) && continue
			code=0
			wait "$pid" || code=$?
			assert_equal "round $round: exit $code" "round $round: exit 2"
		done
		run grep -hv -e "another tfd runs there (it holds '$SOCK.lock')" \
			-e "^Try 'tfd --help'.\$" err.0 err.1 err.2 err.3
		assert_equal "$(without_operator_log "$output")" ''
		# The tfd under the strace left is ended (strace would let go of
		# it on a signal of its own).
		for pid in "${pids[@]}"; do
			(($(running "$pid") == 1)) || continue
			read -r k <"/proc/$pid/task/$pid/children" || true
			kill "$k"
			wait "$pid" || true
		done
		[[ ! -e $SOCK.lock && ! -e $SOCK ]] || fail "round $round: the socket or its lock is left"
	done
}

# Item 5: tfdctl reload waits for a file being written, as SIGHUP does.

@test "tfdctl reload waits for a jobs file still being written: no job removed and added back" {
	printf '%s\n' '--name a --interval 1h -- true' '--name b --interval 1h -- true' \
		'--name c --interval 1h -- true' >./jobs
	start_answering
	"$TFDCTL" pause b
	# A writer truncates the file, writes its first line and holds it open.
	exec 4>./jobs
	printf '%s\n' '--name a --interval 1h -- true' >&4
	"$TFDCTL" reload >reload.out 2>&1 &
	local ctl=$!
	# tfd has the request; the file is still open for writing.
	wait_for_match ev.json '"event":"control".*"command":"reload"'
	printf '%s\n' '--name b --interval 1h -- true' '--name c --interval 1h -- true' >&4
	exec 4>&-
	wait "$ctl" || fail "reload failed: $(cat reload.out)"
	assert_equal "$(cat reload.out)" 'reloaded: 0 added, 0 removed, 3 kept'
	run "$TFDCTL" --json status b
	assert_equal "$(jq -r .job.state <<<"$output")" paused
	run reloads ev.json
	refute_output --partial 'ok 0 2 1'
}

@test "reload while tfd is stopping says so" {
	printf '%s\n' '--name slow --delay 0 -- sh -c "trap \"\" TERM; sleep 30"' >./jobs
	start_answering
	wait_for_match ev.json '"event":"tick","job":"slow"'
	kill -TERM "${BG_PIDS[0]}"
	# (Not i: bats' run sets it.)
	local tries
	for ((tries = 0; tries < 100; tries++)); do
		run --separate-stderr "$TFDCTL" reload
		[[ $stderr == *stopping* ]] && break
		nap 0.05
	done
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: tfd is stopping: no reload now"
}

# Item 6: stop between retries.

@test "stop between retries: the run ends failed (counters, metrics, exit event) and run --wait is answered" {
	echo '--name r --interval 1h --retry 3 --retry-delay 2s -- sh -c "exit 3"' >./jobs
	start_answering --metrics=m.prom
	start_waiter r '"event":"exit","job":"r","seq":1.*"attempt":1'
	run "$TFDCTL" stop r
	assert_success
	assert_output '0 runs stopped; run 1 is not tried again: it failed'
	wait_answered
	assert_equal "$waited" 3
	assert_equal "$(cat wait.err)" "tfdctl: r: run 1 failed (exit status 3, the run's)"
	run jq -c 'select(.event == "exit") | [.seq, .attempt, .failed]' ev.json
	assert_output $'[1,1,false]\n[1,1,true]'
	run "$TFDCTL" --json status r
	assert_equal "$(jq -r '[.job.counters.failures, .job.state, (.job.runs | length)] | join(" ")' <<<"$output")" "1 idle 1"
	wait_for_match m.prom '^tfd_runs_total\{job_name="r",result="failure"\} 1$'
}

# Item 15: stop under --overlap queue.

@test "stop under --overlap queue drops the queued run too, and says so; its waiter is told" {
	echo '--name q --interval 1h --delay 10ms --overlap queue -- sleep 30' >./jobs
	start_answering
	wait_for_match ev.json '"event":"tick","job":"q"'
	run "$TFDCTL" run q
	assert_output 'q: run 2 queued after the run going'
	start_waiter q '"event":"tick","job":"q","seq":3'
	run "$TFDCTL" stop q
	assert_success
	assert_output '1 run stopped; queued run 3 dropped'
	wait_for_match ev.json '"event":"exit","job":"q","seq":1'
	wait_answered
	assert_equal "$waited" 1
	assert_equal "$(cat wait.err)" "tfdctl: run 3 of 'q' was dropped from the queue by tfdctl stop: it did not run"
	run "$TFDCTL" --json status q
	assert_equal "$(jq -r .job.state <<<"$output")" idle
	refute grep -q '"event":"exit","job":"q","seq":[23]' ev.json
}

# Item 7: the 64 KiB limit is each request line's.

@test "over 64 KiB of requests pipelined behind a list and a run --wait: each answered, in order, whole" {
	{
		echo '--name r --interval 1h -- sh -c "sleep 0.5; exit 4"'
		for i in $(seq 1 300); do echo "--name job-$i --interval 1h -- true"; done
	} >./jobs
	start_answering
	{
		echo '{"command":"list"}'
		echo '{"command":"run","job":"r","wait":true}'
		for i in $(seq 1 2000); do echo '{"command":"status","job":"job-7"}'; done
		echo '{"command":"list"}'
	} >requests
	(($(wc -c <requests) > 70000)) || fail "only $(wc -c <requests) bytes"
	timeout 30 socat -t10 - "UNIX-CONNECT:$SOCK" <requests >answers
	assert_equal "$(wc -l <answers)" 2003
	# Every line is one JSON answer, none an error.
	run jq -c 'select(.ok != true)' answers
	assert_output ''
	assert_equal "$(sed -n 1p answers | jq '.jobs | length')" 301
	assert_equal "$(sed -n 2p answers | jq .exit)" 4
	assert_equal "$(sed -n 3p answers | jq -r .job.job)" job-7
	assert_equal "$(sed -n 2003p answers | jq '.jobs | length')" 301
}

# Item 8: what a terminal shows is safe.

@test "list and status show control characters in names and output tails escaped" {
	printf -- '--name "evil\033]0;title\007" --interval 1h --tag-output -- printf "a\\033[2Jb\\0c\\n"\n' >./jobs
	start_answering
	run "$TFDCTL" run "$(printf 'evil\033]0;title\007')" --wait
	assert_success
	"$TFDCTL" list >list.out
	"$TFDCTL" list --names >names.out
	"$TFDCTL" status "$(printf 'evil\033]0;title\007')" >status.out
	for f in list.out names.out status.out; do
		if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$f"; then
			fail "$f holds a control character: $(od -c "$f" | head)"
		fi
	done
	grep -q 'evil\\x1b]0;title\\x07$' list.out || fail "$(cat list.out)"
	assert_equal "$(cat names.out)" 'evil\x1b]0;title\x07'
	assert_equal "$(head -1 status.out)" 'evil\x1b]0;title\x07: --interval '"'1h'"' (monotonic clock)'
	# The tail whole, its NUL shown, its escape sequence escaped.
	assert_equal "$(tail -1 status.out)" 'a\x1b[2Jb\x00c'
}

# Item 10: control events are bounded while stdout is stuck.

@test "while stdout is stuck, control events past the limit are dropped and counted, not queued without end" {
	echo '--name a --interval 1h -- true' >./jobs
	mkfifo out.fifo
	# A reader that opens the pipe and reads nothing until told.
	start_bg bash -c 'exec 5<out.fifo; while [[ ! -e go ]]; do sleep 0.1; done; cat <&5 >ev.json'
	start_bg "$TFD" --jobs=jobs --json --control="$SOCK" >out.fifo 2>err
	wait_for_tfd
	local pid=${BG_PIDS[1]} before after
	# The pipe's buffer fills first: 64 KiB of events.
	for ((i = 0; i < 3; i++)); do
		yes '{"command":"pause","job":"a"}' | head -n 4000 | timeout 30 socat -t10 - "UNIX-CONNECT:$SOCK" >/dev/null
	done
	before=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	yes '{"command":"pause","job":"a"}' | head -n 30000 | timeout 60 socat -t10 - "UNIX-CONNECT:$SOCK" >/dev/null
	after=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	# (ASan's allocator keeps what is freed for a while: no measure there.)
	if ! ldd "$TFD" 2>/dev/null | grep -q libasan; then
		((after - before < 512)) || fail "RSS grew by $((after - before)) kB for 30,000 requests"
	fi
	touch go
	wait_for_match ev.json '"event":"error".*"call":"control".*control events dropped: stdout did not take them in time' 10
	run jq -r 'select(.event == "error") | .message' ev.json
	[[ $output =~ ^([0-9]+)\ control\ events\ dropped ]] || fail "$output"
	((BASH_REMATCH[1] > 30000)) || fail "only ${BASH_REMATCH[1]} dropped"
}

# Item 11: a stopped tfd never hangs tfdctl.

@test "a stopped tfd: tfdctl gives up after --timeout (default 10 s) with exit 3; completion too" {
	echo '--name a --interval 1h -- true' >./jobs
	start_answering
	kill -STOP "${BG_PIDS[0]}"
	SECONDS=0
	run --separate-stderr timeout 30 "$TFDCTL" --timeout=1s list
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: $SOCK: no answer within 1s (--timeout): tfd is stopped or too busy"
	((SECONDS < 5)) || fail "took ${SECONDS}s"
	SECONDS=0
	run --separate-stderr timeout 30 "$TFDCTL" status a
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: $SOCK: no answer within 10s (--timeout): tfd is stopped or too busy"
	((SECONDS >= 9 && SECONDS < 20)) || fail "took ${SECONDS}s"
	# shellcheck source=../../completions/tfdctl.bash
	source "$REPO/completions/tfdctl.bash"
	PATH=$(dirname "$TFDCTL"):$PATH
	COMP_WORDS=(tfdctl status '') COMP_CWORD=2
	SECONDS=0
	_tfdctl
	((SECONDS < 5)) || fail "Tab took ${SECONDS}s"
	kill -CONT "${BG_PIDS[0]}"
	run "$TFDCTL" list --names
	assert_output a
}

# Item 12: clients that went away hold no slot.

@test "run --wait clients that went away free their slots at once" {
	echo '--name long --interval 1h --overlap parallel -- sleep 60' >./jobs
	start_answering
	local i pids=()
	for ((i = 0; i < 32; i++)); do
		"$TFDCTL" run long --wait >/dev/null 2>&1 3>&- &
		pids+=("$!")
	done
	BG_PIDS+=("${pids[@]}")
	for ((i = 0; i < 200; i++)); do
		(($(grep -c '"event":"tick","job":"long"' ev.json) >= 32)) && break
		nap 0.05
	done
	kill "${pids[@]}"
	for i in "${pids[@]}"; do wait "$i" 2>/dev/null || true; done
	run --separate-stderr "$TFDCTL" list --names
	assert_success
	assert_output long
}

@test "closed clients never count against the 32: three rounds of 32 run --wait clients that go away, none refused" {
	echo '--name long --interval 1h --overlap parallel -- sleep 60' >./jobs
	start_answering
	local round k pids ticks=0
	for ((round = 1; round <= 3; round++)); do
		pids=()
		for ((k = 0; k < 32; k++)); do
			"$TFDCTL" run long --wait >/dev/null 2>>refused 3>&- &
			pids+=("$!")
		done
		BG_PIDS+=("${pids[@]}")
		# Each client was served: its run's tick is printed.
		for ((k = 0; k < 400; k++)); do
			(($(grep -c '"event":"tick","job":"long"' ev.json) >= ticks + 32)) && break
			[[ -s refused ]] && break
			nap 0.05
		done
		[[ ! -s refused ]] || fail "round $round: $(sort refused | uniq -c)"
		ticks=$((ticks + 32))
		kill "${pids[@]}"
		for k in "${pids[@]}"; do wait "$k" 2>/dev/null || true; done
	done
}

# Item 13: names and answers addressed and shown whole.

@test "a name over 95 bytes is listed whole; a name beginning with '-' is reached after --; one not UTF-8 by its bytes" {
	local long
	long=job-$(printf 'x%.0s' {1..150})
	printf '%s\n' "--name $long --interval 1h -- true" '--name -dash --interval 1h -- true' >./jobs
	printf -- '--name "bad\377name" --interval 1h -- true\n' >>./jobs
	start_answering
	run "$TFDCTL" list --names
	assert_line "$long"
	# JSON carries the name as shown: U+FFFD for the byte that is not UTF-8.
	assert_line "$(printf 'bad\357\277\275name')"
	run "$TFDCTL" list
	assert_line --regexp " $long\$"
	run "$TFDCTL" --json status -- -dash
	assert_success
	assert_equal "$(jq -r .job.job <<<"$output")" -dash
	run "$TFDCTL" pause -- -dash
	assert_success
	run --separate-stderr "$TFDCTL" status -dash
	assert_equal "$status" 2
	run "$TFDCTL" --json status "$(printf 'bad\377name')"
	assert_success
	run "$TFDCTL" --json status "$(printf 'bad\357\277\275name')"
	assert_success
}

@test "a requested name with \\u0000 is refused, not another job's; --json prints a refusal's answer" {
	printf '%s\n' '--name a --interval 1h -- true' >./jobs
	start_answering
	run socat -t5 - "UNIX-CONNECT:$SOCK" <<<'{"command":"status","job":"a\u0000b"}'
	assert_output '{"ok":false,"error":"a job'"'"'s name holds no NUL (\\u0000)"}'
	run socat -t5 - "UNIX-CONNECT:$SOCK" <<<'{"command":"pause","jobs":["a\u0000"]}'
	assert_output --partial '"ok":false'
	run --separate-stderr "$TFDCTL" --json status nosuch
	assert_equal "$status" 1
	assert_equal "$output" '{"ok":false,"error":"unknown job '"'"'nosuch'"'"'"}'
	assert_equal "$stderr" "tfdctl: unknown job 'nosuch'"
	run "$TFDCTL" --json list
	assert_equal "$(jq -r '.jobs[0].state' <<<"$output")" idle
}

# Item 14: descriptors for the control socket's clients are set aside.

@test "under an open-file limit of 40, idle control clients never leave runs without descriptors" {
	require_command socat
	echo '--name p --interval 100ms --overlap parallel --tag-output -- sleep 1' >./jobs
	start_bg bash -c 'ulimit -n 40 && exec "$@"' _ "$TFD" --jobs=jobs --json --control="$SOCK" >ev.json 2>err
	wait_for_tfd
	local i
	for ((i = 0; i < 32; i++)); do
		start_bg socat -u "UNIX-CONNECT:$SOCK" OPEN:/dev/null
	done
	local n
	n=$(grep -c '"event":"exit","job":"p"' ev.json || true)
	wait_for_match ev.json "\"event\":\"exit\",\"job\":\"p\",\"seq\":$((n + 15))," 20
	run grep -c '"event":"error"' ev.json
	assert_output 0
}

# Item 16 and issue 32's messages.

@test "messages: -h is help, a mistyped command or job name suggests the nearest, --control= is a usage error" {
	printf '%s\n' '--name echo --interval 1h -- echo hi' '--name backup --interval 1h -- true' >./jobs
	start_answering
	run "$TFDCTL" -h
	assert_success
	assert_line --index 0 --partial 'Usage: tfdctl [OPTION...]'
	run --separate-stderr "$TFDCTL" lst
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfdctl: unknown command 'lst'; did you mean 'list'?"
	run --separate-stderr "$TFDCTL" run ech
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: unknown job 'ech'; did you mean 'echo'?"
	run --separate-stderr "$TFDCTL" --control= list
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfdctl: --control: an empty path names no socket"
}

@test "messages: a command or job name in other case, or begun, suggests it as tfd's options do" {
	printf '%s\n' '--name nightly-report --interval 1h -- true' '--name echo --interval 1h -- true' >./jobs
	start_answering
	run --separate-stderr "$TFDCTL" STATUS
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "tfdctl: unknown command 'STATUS'; did you mean 'status'?"
	run --separate-stderr "$TFDCTL" stat
	assert_equal "${stderr_lines[0]}" "tfdctl: unknown command 'stat'; did you mean 'status'?"
	run --separate-stderr "$TFDCTL" run nightly
	assert_equal "$status" 1
	assert_equal "$stderr" "tfdctl: unknown job 'nightly'; did you mean 'nightly-report'?"
	run --separate-stderr "$TFDCTL" run ECHO
	assert_equal "$stderr" "tfdctl: unknown job 'ECHO'; did you mean 'echo'?"
	run --separate-stderr "$TFDCTL" run e
	assert_equal "$stderr" "tfdctl: unknown job 'e'"
}

@test "status shows the command quoted as a shell would take it back" {
	printf '%s\n' "--name q --interval 1h -- sh -c 'echo \"it'\\''s\" \$HOME; exit 0' x" >./jobs
	start_answering
	run "$TFDCTL" status q
	assert_line "   Command: sh -c 'echo \"it'\\''s\" \$HOME; exit 0' x"
}

@test "run --wait: the run's own status is told apart from tfdctl's on stderr" {
	echo '--name three --interval 1h -- sh -c "exit 3"' >./jobs
	start_answering
	run --separate-stderr "$TFDCTL" run three --wait
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: three: run 1 failed (exit status 3, the run's)"
	run --separate-stderr "$TFDCTL" --control="$BATS_TEST_TMPDIR/none" run three --wait
	assert_equal "$status" 3
	assert_equal "$stderr" "tfdctl: no tfd answers at $BATS_TEST_TMPDIR/none: No such file or directory"
}

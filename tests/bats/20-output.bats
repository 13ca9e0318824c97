#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# What each wake-up prints: the default line, every --format placeholder,
# --json, --quiet, --verbose, --stats, line buffering and missed ticks.

load test_helper

RFC3339_US='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z'
UNIX_NS='[0-9]+\.[0-9]{9}'
# Decimal seconds: up to 9 fraction digits, trailing zeros dropped.
SECONDS_RE='[0-9]+(\.[0-9]{0,8}[1-9])?'

# Checks that every line of $output matches the extended regex $1 whole.
assert_each_line() {
	local line
	((${#lines[@]} > 0)) || fail "no output"
	for line in "${lines[@]}"; do
		[[ $line =~ ^$1$ ]] || fail "line '$line' does not match ^$1\$"
	done
}

# The default line and the counters

@test "the default line is '%n %t %e'" {
	run_clean timeout 10 "$TFD" -i 10ms -n 3
	assert_each_line "[0-9]+ $RFC3339_US [0-9]+"
	assert_wakeups 3 '%n %t %e'
}

@test "%n counts wake-ups from 1; %E is the running sum of %e" {
	run --separate-stderr timeout 10 "$TFD" -i 10ms -n 30 -f '%n %e %E'
	assert_success
	assert_each_line '[0-9]+ [0-9]+ [0-9]+'
	assert_wakeups 30 '%n %e %E'
	local line e
	for line in "${lines[@]}"; do
		read -r _ e _ <<<"$line"
		((e >= 1)) || fail "a wake-up with no expiration: $line"
	done
}

# Times

@test "%t is RFC 3339 UTC with 6 fraction digits and Z, and it is now" {
	local before after
	before=$(date -u +%s)
	run --separate-stderr timeout 10 "$TFD" -d 10ms -f '%t'
	after=$(date -u +%s)
	assert_success
	assert_each_line "$RFC3339_US"
	local secs
	secs=$(date -u -d "${output%.*}Z" +%s)
	((secs >= before && secs <= after)) || fail "%t $output is not between @$before and @$after"
}

@test "%u is Unix seconds with 9 fraction digits, and %t is the same instant" {
	run --separate-stderr timeout 10 "$TFD" -i 20ms -n 3 -f '%t %u'
	assert_success
	assert_each_line "$RFC3339_US $UNIX_NS"
	local line t u
	for line in "${lines[@]}"; do
		read -r t u <<<"$line"
		assert_equal "${t%.*}" "$(date -u -d "@${u%.*}" +%Y-%m-%dT%H:%M:%S)"
		# %t truncates %u's nanoseconds to microseconds.
		local frac=${u#*.}
		assert_equal "${t#*.}" "${frac:0:6}Z"
	done
}

@test "%u of a wake-up lies between the start and the end of the run" {
	local before after
	before=$(now_ns)
	run --separate-stderr timeout 10 "$TFD" -d 100ms -f '%u'
	after=$(now_ns)
	assert_success
	assert_each_line "$UNIX_NS"
	local u
	u=$(to_ns "$output")
	((u >= before + 100000000 && u <= after)) || fail "%u $output outside the run"
}

@test "%s is the seconds since tfd started, at least the scheduled offset" {
	run --separate-stderr timeout 10 "$TFD" -i 100ms -n 3 -f '%E %s'
	assert_success
	assert_each_line "[0-9]+ $SECONDS_RE"
	local line total s prev=0
	for line in "${lines[@]}"; do
		read -r total s <<<"$line"
		s=$(to_ns "$s")
		((s >= total * 100000000)) || fail "'$line': %s is less than the schedule"
		((s < total * 100000000 + 3000000000)) || fail "'$line': %s is far too large"
		((s > prev)) || fail "'$line': %s did not grow"
		prev=$s
	done
}

@test "%l is the lateness in whole microseconds, not negative" {
	run --separate-stderr timeout 10 "$TFD" -i 20ms -n 5 -f '%l'
	assert_success
	assert_each_line '[0-9]+'
	local l
	for l in "${lines[@]}"; do
		((l < 2000000)) || fail "lateness $l us on an idle timer"
	done
}

@test "%r is the time to the next expiration: within one interval, 0 once ended" {
	run --separate-stderr timeout 10 "$TFD" -i 200ms -n 3 -f '%E %r'
	assert_success
	assert_each_line "[0-9]+ $SECONDS_RE"
	local line total r
	for line in "${lines[@]}"; do
		read -r total r <<<"$line"
		r=$(to_ns "$r")
		if ((total < 3)); then
			((r > 0 && r <= 200000000)) || fail "'$line': %r is not within the interval"
		else
			assert_equal "$r" 0
		fi
	done
}

@test "%r of a one-shot timer is 0" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -f '%r'
	assert_success
	assert_output "0"
}

@test "%i prints the interval as decimal seconds: 0.25 for 250ms" {
	run --separate-stderr timeout 10 "$TFD" -d 0 -i 250ms -n 1 -f '%i'
	assert_success
	assert_output "0.25"
}

@test "%i prints 1 for 1s, 1.5 for 1500ms, 0.1 for 100ms" {
	local pair
	for pair in 1s:1 1500ms:1.5 100ms:0.1 1000001us:1.000001; do
		run --separate-stderr timeout 10 "$TFD" -d 0 -i "${pair%%:*}" -n 1 -f '%i'
		assert_success
		assert_output "${pair#*:}"
	done
}

@test "%i of a one-shot timer is 0" {
	run --separate-stderr timeout 10 "$TFD" -d 10ms -f '%i'
	assert_success
	assert_output "0"
}

@test "%% prints a %, and other text is kept as it is" {
	run --separate-stderr timeout 10 "$TFD" -d 0 -f 'a%%b [%n] 100%% %%n'
	assert_success
	assert_output "a%b [1] 100% %n"
}

@test "a format of adjacent placeholders and of no placeholder at all" {
	run --separate-stderr timeout 10 "$TFD" -i 10ms -n 2 -f '%n%n%e'
	assert_success
	assert_regex "${lines[0]}" '^11[1-9][0-9]*$'
	run --separate-stderr timeout 10 "$TFD" -d 0 -f 'tick'
	assert_success
	assert_output "tick"
}

@test "every placeholder in one line" {
	run --separate-stderr timeout 10 "$TFD" -d 0 -i 250ms -n 2 -f '%n|%e|%E|%t|%u|%s|%l|%r|%i|%%'
	assert_success
	assert_each_line "[0-9]+\|[0-9]+\|[0-9]+\|$RFC3339_US\|$UNIX_NS\|$SECONDS_RE\|-?[0-9]+\|$SECONDS_RE\|0\.25\|%"
}

@test "a format longer than a line buffer is printed whole or refused, never cut" {
	local long
	long=$(printf 'x%.0s' {1..5000})
	run --separate-stderr timeout 10 "$TFD" -d 0 -f "$long%n"
	if ((status == 2)); then
		assert_output ""
		return
	fi
	assert_success
	# Compared by length and ends, so a failure does not print 5000 x's.
	assert_equal "${#output}" 5001
	[[ $output == "$long"1 ]] || fail "the line was changed"
}

# --json

@test "--json tick objects carry every field, typed" {
	run_clean timeout 10 "$TFD" --json -i 50ms -n 3
	local line
	for line in "${lines[@]}"; do
		echo "$line" | jq -e '
			.event == "tick" and
			(.seq | type) == "number" and
			(.expirations | type) == "number" and
			(.total | type) == "number" and
			(.time | type) == "string" and
			(.unix | type) == "number" and
			(.elapsed | type) == "number" and
			(.late_us | type) == "number" and
			(.next_in | type) == "number" and
			(.interval | type) == "number" and
			(has("action") | not)' >/dev/null || fail "bad tick object: $line"
		[[ $(jq -r .time <<<"$line") =~ ^$RFC3339_US$ ]] || fail "time is not as %t: $line"
		[[ $line =~ \"unix\":${UNIX_NS}[,}] ]] || fail "unix lacks its nanoseconds: $line"
	done
}

@test "--json: one object a line, numbered, totals summed, interval in seconds" {
	run --separate-stderr timeout 10 "$TFD" -j -i 250ms -n 2
	assert_success
	run jq -sc 'map([.seq, .total, .interval])' <<<"$output"
	assert_success
	# Two wake-ups, or one that read both expirations.
	[[ $output == '[[1,1,0.25],[2,2,0.25]]' || $output == '[[1,2,0.25]]' ]] || fail "got $output"
}

@test "--json: time and unix are the same instant; late_us is whole and not negative" {
	run --separate-stderr timeout 10 "$TFD" --json -d 10ms
	assert_success
	run jq -r '[.time, (.unix | floor), .late_us, (.late_us | floor)] | @tsv' <<<"$output"
	local t u l lf
	IFS=$'\t' read -r t u l lf <<<"$output"
	assert_equal "$(date -u -d "@$u" +%Y-%m-%dT%H:%M:%S)" "${t%.*}"
	assert_equal "$l" "$lf"
	((l >= 0)) || fail "late_us $l"
}

@test "--json with a command adds the action, and exit objects for runs" {
	# --overlap parallel: on a loaded machine the first run may still be
	# going at the second tick, whose action would then be "skip".
	run --separate-stderr timeout 10 "$TFD" --json -i 50ms -n 2 --overlap parallel -- true
	assert_success
	local json=$output
	run jq -sc '[.[] | select(.event == "tick") | .action]' <<<"$json"
	# Two expirations may come in one wake-up: one tick, one run.
	[[ $output == '["run","run"]' || $output == '["run"]' ]] || fail "actions: $output"
	run jq -e -s '
		[.[] | select(.event == "exit")] | length >= 1 and all(
			(.seq | type) == "number" and (.pid | type) == "number" and
			.status == 0 and .signal == null and
			(.duration | type) == "number" and .timed_out == false)' <<<"$json"
	assert_success
}

@test "--json exit object of a run killed by a signal: status null, signal named" {
	run --separate-stderr timeout 10 "$TFD" --json -d 10ms -- sh -c 'kill -TERM $$'
	assert_equal "$status" 143
	run jq -c 'select(.event == "exit") | [.status, .signal, .timed_out]' <<<"$output"
	assert_output '[null,"SIGTERM",false]'
}

@test "--json events of a 4000-byte name are over 4 KiB, whole and valid (the valgrind subset runs this)" {
	local name
	name=$(head -c 4000 /dev/zero | tr '\0' '"')
	run --separate-stderr timeout 20 "$TFD" --json --name "$name" -d 0 -- true
	assert_success
	assert_equal "$stderr" ""
	local json=$output len
	# Each quote is escaped: the lines are over 8 KiB.
	len=$(head -n 1 <<<"$json" | wc -c)
	((len > 8000)) || fail "tick line of $len bytes"
	run jq -r --arg n "$name" 'select(.job == $n) | .event' <<<"$json"
	assert_output $'tick\nexit'
}

# The lengths of the job names in the "exit" events of the --json file $1.
exit_name_lengths() {
	jq -r 'select(.event == "exit") | .job | length' "$1" 2>/dev/null | sort -u
}

@test "--json: a jobs file line with a name of 20000 bytes, and a reload that adds a longer one" {
	local f=$BATS_TEST_TMPDIR/jobs long longer i
	long=$(head -c 20000 /dev/zero | tr '\0' a)
	longer=$(head -c 60000 /dev/zero | tr '\0' b)
	printf -- '--name %s --interval 100ms -- true\n' "$long" >"$f"
	start_bg sh -c 'exec timeout 30 "$1" --json --jobs "$2" >"$2.out" 2>"$2.err"' sh "$TFD" "$f"
	for ((i = 0; i < 200; i++)); do
		exit_name_lengths "$f.out" | grep -qx 20000 && break
		nap 0.1
	done
	printf -- '--name %s --interval 100ms -- true\n' "$longer" >"$f.new"
	cat "$f" >>"$f.new"
	mv "$f.new" "$f"
	for ((i = 0; i < 200; i++)); do
		exit_name_lengths "$f.out" | grep -qx 60000 && break
		nap 0.1
	done
	kill -TERM "${BG_PIDS[-1]}"
	wait "${BG_PIDS[-1]}" || true
	run exit_name_lengths "$f.out"
	assert_output $'20000\n60000'
	run cat "$f.err"
	assert_output ''
}

# --quiet, --verbose, --stats

@test "-q prints nothing" {
	run --separate-stderr timeout 10 "$TFD" -q -i 10ms -n 3
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
	run --separate-stderr timeout 10 "$TFD" --quiet -i 10ms -n 3 -f '%n'
	assert_success
	assert_output ""
}

@test "--verbose prints the setting on stderr after arming and after each wake-up" {
	run --separate-stderr timeout 10 "$TFD" -v -i 100ms -n 2 -f '%n'
	assert_success
	local wakeups=${#lines[@]}
	assert_equal "${#stderr_lines[@]}" $((wakeups + 1))
	local re="next in ($SECONDS_RE) s, interval ($SECONDS_RE) s"
	[[ ${stderr_lines[0]} =~ ^tfd:\ armed:\ $re$ ]] || fail "bad first line: ${stderr_lines[0]}"
	local next=${BASH_REMATCH[1]} interval=${BASH_REMATCH[3]}
	assert_equal "$interval" 0.1
	(($(to_ns "$next") > 0 && $(to_ns "$next") <= 100000000)) || fail "armed: next in $next"
	local k
	for ((k = 1; k <= wakeups; k++)); do
		[[ ${stderr_lines[k]} =~ ^tfd:\ tick\ $k:\ $re$ ]] ||
			fail "bad line $k: ${stderr_lines[k]}"
	done
	# After the first of two wake-ups the timer is still armed.
	if ((wakeups == 2)); then
		[[ ${stderr_lines[1]} =~ $re ]]
		assert_equal "${BASH_REMATCH[3]}" 0.1
		(($(to_ns "${BASH_REMATCH[1]}") <= 100000000)) || fail "${stderr_lines[1]}"
	fi
}

@test "--verbose on a one-shot timer: interval 0" {
	run --separate-stderr timeout 10 "$TFD" --verbose -d 300ms -f '%n'
	assert_success
	assert_output "1"
	assert_equal "${#stderr_lines[@]}" 2
	# "next in 0 s" only on a machine so slow the timer expired meanwhile.
	[[ ${stderr_lines[0]} =~ ^tfd:\ armed:\ next\ in\ 0(\.[0-9]+)?\ s,\ interval\ 0\ s$ ]] ||
		fail "${stderr_lines[0]}"
	[[ ${stderr_lines[1]} =~ ^tfd:\ tick\ 1:\ next\ in\ 0\ s,\ interval\ 0\ s$ ]] ||
		fail "${stderr_lines[1]}"
}

@test "--stats prints one summary line on stderr at exit" {
	run --separate-stderr timeout 10 "$TFD" --stats -i 10ms -n 10 -f '%e'
	assert_success
	assert_equal "${#stderr_lines[@]}" 1
	local re='^tfd: stats: wakeups ([0-9]+) expirations ([0-9]+) missed ([0-9]+) late_us min (-?[0-9]+) avg (-?[0-9]+) p99 (-?[0-9]+) max (-?[0-9]+)$'
	[[ $stderr =~ $re ]] || fail "bad stats line: $stderr"
	local -a m=("${BASH_REMATCH[@]}")
	assert_equal "${m[1]}" "${#lines[@]}"
	assert_wakeups 10 '%e'
	assert_equal "${m[2]}" "$expirations"
	assert_equal "${m[3]}" $((m[2] - m[1]))
	((m[4] >= 0 && m[4] <= m[5] && m[5] <= m[7] && m[4] <= m[6] && m[6] <= m[7])) ||
		fail "lateness not ordered min <= avg, p99 <= max: $stderr"
}

@test "--stats with -q: no tick lines, still the summary" {
	run --separate-stderr timeout 10 "$TFD" --stats -q -i 10ms -n 3
	assert_success
	assert_output ""
	[[ $stderr =~ ^tfd:\ stats:\ wakeups\ [0-9]+\ expirations\ ([3-9]|[1-9][0-9]+)\ missed ]] || fail "$stderr"
}

# Buffering and missed ticks

@test "into a pipe, each line is written at once (line-buffered)" {
	local out=$BATS_TEST_TMPDIR/out
	# shellcheck disable=SC2016 # the inner shell expands $1 and $2.
	# 2 s between the first line and the last: a loaded machine (or qemu)
	# must still see tfd running after the first.
	start_bg bash -c '"$1" -i 500ms -n 5 | cat >"$2"' _ "$TFD" "$out"
	wait_for_lines "$out" 20 1 || fail "no line within 5 s"
	# The first line arrived while tfd still had expirations to go.
	(($(wc -l <"$out") < 5)) || fail "all lines arrived together"
	kill -0 "${BG_PIDS[0]}" || fail "tfd had already exited"
	wait "${BG_PIDS[0]}"
	(($(wc -l <"$out") >= 2)) || fail "no line after the first"
}

@test "into a pipe through a FIFO reader, the first line is seen before tfd exits" {
	local fifo=$BATS_TEST_TMPDIR/fifo first
	mkfifo "$fifo"
	# Opened read-write, the FIFO does not block the redirection below.
	exec 4<>"$fifo"
	start_bg "$TFD" -i 500ms -n 5 -f '%n' >"$fifo"
	read -r -t 5 first <&4 || fail "no line within 5 s"
	assert_equal "$first" 1
	kill -0 "${BG_PIDS[0]}" || fail "tfd had exited before its first line was read"
	wait "${BG_PIDS[0]}"
	exec 4<&-
}

@test "missed ticks: a stopped tfd reports e > 1 and %E still sums %e" {
	local out=$BATS_TEST_TMPDIR/out
	# 300 ticks (3 s): still running when the test stops it, however
	# late the first line is seen.
	start_bg "$TFD" -i 10ms -n 300 -f '%e %E' --stats >"$out" 2>"$BATS_TEST_TMPDIR/err"
	wait_for_lines "$out" 20 1 || fail "no first line"
	kill -STOP "${BG_PIDS[0]}"
	nap 0.2
	kill -CONT "${BG_PIDS[0]}"
	wait "${BG_PIDS[0]}"
	run cat "$out"
	assert_wakeups 300 '%e %E'
	local e most=0
	for e in "${lines[@]%% *}"; do
		((e <= most)) || most=$e
	done
	((most > 1)) || fail "no wake-up reported missed expirations: $output"
	run cat "$BATS_TEST_TMPDIR/err"
	[[ $output =~ missed\ ([0-9]+) ]] || fail "no stats: $output"
	((BASH_REMATCH[1] > 0)) || fail "stats show no missed expiration: $output"
}

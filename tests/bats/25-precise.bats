#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats sets $stderr and $stderr_lines
# --precise: SCHED_FIFO, mlockall, /dev/cpu_dma_latency held open, timer
# slack 1 ns; each refused part is one warning, never a failure.

load test_helper

# True when process $1 has /dev/cpu_dma_latency open.
holds_latency() {
	local fd
	for fd in /proc/"$1"/fd/*; do
		[[ $(readlink "$fd") == /dev/cpu_dma_latency ]] && return 0
	done
	return 1
}

# Starts tfd --precise and waits until it has done all it can: its timer
# slack is set last but one, and /dev/cpu_dma_latency (when there) last.
precise_pid() {
	start_bg "$TFD" --precise -i 100ms -n 30 -q
	local pid=${BG_PIDS[-1]} i
	for ((i = 0; i < 50; i++)); do
		# Linux 6.7 on reports 0 for a realtime task: its slack is unused.
		if [[ -r /proc/$pid/timerslack_ns ]] && (($(cat "/proc/$pid/timerslack_ns") <= 1)); then
			[[ ! -e /dev/cpu_dma_latency ]] && return 0
			holds_latency "$pid" && return 0
		fi
		nap 0.05
	done
	fail "tfd --precise did not finish setting up"
}

@test "--precise sets 1 ns timer slack and, as root, SCHED_FIFO, locked memory and the latency hold" {
	[[ $EUID -eq 0 ]] || skip "SCHED_FIFO and mlockall need root here"
	precise_pid
	local pid=${BG_PIDS[-1]}
	run chrt -p "$pid"
	assert_output --partial SCHED_FIFO
	# AddressSanitizer makes mlockall a no-op; a normal build locks.
	if ! grep -q libasan "/proc/$pid/maps"; then
		run grep VmLck "/proc/$pid/status"
		refute_output --regexp 'VmLck:[[:space:]]+0 kB'
	fi
}

@test "--precise: a run does not inherit SCHED_FIFO" {
	[[ $EUID -eq 0 ]] || skip "SCHED_FIFO needs root here"
	run timeout 10 "$TFD" --precise -d 10ms -- sh -c 'chrt -p $$'
	assert_success
	assert_output --partial SCHED_OTHER
}

@test "--precise without privileges: one warning per refused part, and tfd runs" {
	require_command setpriv
	[[ $EUID -eq 0 ]] || skip "dropping privileges needs root"
	run --separate-stderr timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$TFD" --precise -i 10ms -n 3 -f '%n %e'
	assert_success
	# A loaded machine may bring two expirations in one wake-up: the
	# lines count the wake-ups, their %e the expirations, 3 in all.
	assert_wakeups 3 '%n %e'
	local line
	for line in "${stderr_lines[@]}"; do
		assert_regex "$line" '^tfd: --precise: .+ skipped: .+$'
	done
	assert_regex "$stderr" 'SCHED_FIFO skipped'
	# Each part warns at most once.
	assert_equal "$(grep -c 'SCHED_FIFO' <<<"$stderr")" 1
}

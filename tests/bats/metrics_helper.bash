# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# For tests of --metrics files: promtool's verdict, and a real node_exporter
# (Debian's prometheus-node-exporter) that reads a directory with its textfile
# collector alone and is scraped on 127.0.0.1. Load it after test_helper
# (`load test_helper; load metrics_helper`): it starts node_exporter with
# start_bg, so teardown ends it even when a test fails half-way.

# Asserts that `promtool check metrics` reads FILE and has nothing to say.
assert_promtool_clean() {
	local file=$1
	require_command promtool
	run promtool check metrics <"$file"
	assert_equal "$output" ""
	assert_success
}

# node_exporter_start DIR: node_exporter with only the textfile collector,
# reading DIR, on a free port of 127.0.0.1; waits until it answers. Sets
# NODE_EXPORTER_PID and NODE_EXPORTER_URL. A port taken meanwhile by
# another program makes node_exporter exit: then another port is tried.
node_exporter_start() {
	local dir=$1 try port i
	require_command prometheus-node-exporter
	require_command curl
	for ((try = 0; try < 5; try++)); do
		port=$((20000 + RANDOM % 40000))
		start_bg prometheus-node-exporter --collector.disable-defaults \
			--collector.textfile --collector.textfile.directory="$dir" \
			--web.listen-address="127.0.0.1:$port" \
			>>"$BATS_TEST_TMPDIR/node_exporter.log" 2>&1
		NODE_EXPORTER_PID=${BG_PIDS[-1]}
		NODE_EXPORTER_URL=http://127.0.0.1:$port/metrics
		for ((i = 0; i < 400; i++)); do
			if curl -fsS -o /dev/null --max-time 2 "$NODE_EXPORTER_URL" 2>/dev/null; then
				return 0
			fi
			kill -0 "$NODE_EXPORTER_PID" 2>/dev/null || break
			nap 0.05
		done
		node_exporter_stop
	done
	fail "node_exporter did not start: $(tail -n 5 "$BATS_TEST_TMPDIR/node_exporter.log")"
}

# Ends the node_exporter node_exporter_start started (teardown would too).
node_exporter_stop() {
	[[ -n ${NODE_EXPORTER_PID-} ]] || return 0
	kill -TERM "$NODE_EXPORTER_PID" 2>/dev/null || true
	wait "$NODE_EXPORTER_PID" 2>/dev/null || true
	NODE_EXPORTER_PID=
}

# Scrapes node_exporter into $scraped and fails unless its textfile
# collector read every file without error.
# shellcheck disable=SC2034 # scraped is the tests' to read.
node_exporter_scrape() {
	scraped=$(curl -fsS --max-time 5 "$NODE_EXPORTER_URL") || fail "scrape of $NODE_EXPORTER_URL failed"
	[[ $scraped == *$'\nnode_textfile_scrape_error 0\n'* ]] ||
		fail "node_exporter could not read the textfile directory: $(grep -i textfile <<<"$scraped")
$(tail -n 5 "$BATS_TEST_TMPDIR/node_exporter.log")"
}

# scraped_value SERIES: the value of one series in $scraped, SERIES written
# as node_exporter prints it (labels sorted by name: job_name before
# result), e.g. 'tfd_runs_total{job_name="backup",result="success"}'.
# Prints nothing when the series is not there.
scraped_value() {
	local line
	while IFS= read -r line; do
		if [[ $line == "$1 "* ]]; then
			printf '%s\n' "${line#"$1 "}"
			return 0
		fi
	done <<<"$scraped"
}

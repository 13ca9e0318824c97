#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats' `run` sets $status and $output; metrics_helper sets $scraped.
# The --metrics text as the tools that read it judge it: promtool finds
# nothing to say, and a real node_exporter's textfile collector serves every
# series. The file comes from the metrics module itself, through the unit
# test binary (`test_metrics --write-sample FILE`), so this holds before and
# apart from how tfd's loop fills the figures in.

load test_helper
load metrics_helper

setup_file() {
	make -s -C "$REPO" build/unit/test_metrics >&2
}

setup() {
	DIR=$BATS_TEST_TMPDIR/textfiles
	mkdir -p "$DIR"
	"$REPO/build/unit/test_metrics" --write-sample "$DIR/tfd.prom"
}

@test "metrics file: promtool check metrics has nothing to say" {
	assert_promtool_clean "$DIR/tfd.prom"
}

@test "metrics file: promtool does speak up about a bad file (the check can fail)" {
	require_command promtool
	# A sample outside its family, a counter without _total, no help text.
	printf '%s\n' '# HELP a_total x' '# TYPE a_total counter' 'a_total 1' 'b 1' \
		'# TYPE c counter' 'c 1' >"$DIR/bad.prom"
	run promtool check metrics <"$DIR/bad.prom"
	assert_failure
	assert_output --partial "no help text"
}

@test "metrics file: node_exporter serves every series with its job_name" {
	node_exporter_start "$DIR"
	node_exporter_scrape
	node_exporter_stop
	local q='"' n
	# The fresh job: counters and tfd_running at 0, no last-run gauges.
	assert_equal "$(scraped_value 'tfd_runs_total{job_name="backup",result="success"}')" 0
	assert_equal "$(scraped_value 'tfd_running{job_name="backup"}')" 0
	assert_equal "$(scraped_value 'tfd_last_success_timestamp_seconds{job_name="backup"}')" ""
	# The busy job: every metric of the SPEC's table.
	assert_equal "$(scraped_value 'tfd_runs_total{job_name="report",result="success"}')" 3
	assert_equal "$(scraped_value 'tfd_runs_total{job_name="report",result="failure"}')" 1
	assert_equal "$(scraped_value 'tfd_runs_total{job_name="report",result="timeout"}')" 2
	assert_equal "$(scraped_value 'tfd_runs_total{job_name="report",result="killed"}')" 1
	assert_equal "$(scraped_value 'tfd_skipped_total{job_name="report"}')" 4
	assert_equal "$(scraped_value 'tfd_missed_expirations_total{job_name="report"}')" 5
	assert_equal "$(scraped_value 'tfd_running{job_name="report"}')" 1
	assert_equal "$(scraped_value 'tfd_last_run_duration_seconds{job_name="report"}')" 1.25
	assert_equal "$(scraped_value 'tfd_last_run_exit_status{job_name="report"}')" 143
	for n in last_run_start_timestamp_seconds:1796292001.000123456 \
		last_success_timestamp_seconds:1796291000.5 next_run_timestamp_seconds:1796292060; do
		local v
		v=$(scraped_value "tfd_${n%%:*}{job_name=\"report\"}")
		awk -v a="$v" -v b="${n#*:}" 'BEGIN { exit !(a != "" && a - b < 1e-3 && b - a < 1e-3) }' ||
			fail "tfd_${n%%:*}: '$v', want ${n#*:}"
	done
	# Escaped and UTF-8 label values come through as they were.
	assert_equal "$(scraped_value "tfd_running{job_name=${q}say \\${q}hi\\${q}\\\\now\\nthen${q}}")" 1
	assert_equal "$(scraped_value 'tfd_running{job_name="café"}')" 2
	# A name that is not UTF-8 (which would make node_exporter drop the
	# whole file, as the next test shows) has U+FFFD for the bad byte.
	assert_equal "$(scraped_value 'tfd_running{job_name="latin1 caf�"}')" 0
	# --fleet's figures.
	assert_equal "$(scraped_value 'tfd_fleet_claims_total{result="won"}')" 5
	assert_equal "$(scraped_value 'tfd_fleet_claims_total{result="missed"}')" 2
	assert_equal "$(scraped_value 'tfd_fleet_connected')" 1
	# Thirteen families, each once.
	assert_equal "$(grep -c '^# TYPE tfd_' <<<"$scraped")" 13
}

@test "metrics file: node_exporter_scrape notices a file node_exporter cannot read" {
	# A label value that is not UTF-8.
	printf 'tfd_running{job_name="caf\xe9"} 1\n' >"$DIR/broken.prom"
	node_exporter_start "$DIR"
	run node_exporter_scrape
	assert_failure
	assert_output --partial "textfile"
}

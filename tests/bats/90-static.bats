#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # the runs' shells, not this one, expand $TFD_*.
# ./tfd-static (make static) in an empty root, as in a FROM scratch image:
# a directory holding nothing but the binary (no /etc, /dev, /proc, loader,
# libraries or zoneinfo), entered with chroot; then with a static busybox as
# /bin/busybox and as /bin/sh. These tests exercise ./tfd-static, not $TFD.

load test_helper

setup_file() {
	((EUID == 0)) || return 0
	make -s -C "$REPO" tfd-static >&2
}

setup() {
	((EUID == 0)) || skip "chroot needs root"
	CHROOT=$(command -v chroot) || skip "chroot is not installed"
	ROOT=$BATS_TEST_TMPDIR/root
	mkdir "$ROOT"
	cp "$REPO/tfd-static" "$ROOT/tfd-static"
	"$CHROOT" "$ROOT" /tfd-static --version >/dev/null 2>&1 ||
		skip "chroot is not permitted here"
}

# Runs tfd-static in the root with nothing in its environment but "$@"'s
# NAME=VALUE words, then its arguments after "--". A first word -N is
# bats' `run -N`: the status expected.
in_root() {
	local env=() expect=()
	[[ ${1-} =~ ^-[0-9]+$ ]] && expect=("$1") && shift
	while (($#)) && [[ $1 != -- ]]; do
		env+=("$1")
		shift
	done
	shift
	run "${expect[@]}" --separate-stderr timeout 10 env -i "${env[@]}" "$CHROOT" "$ROOT" /tfd-static "$@"
}

# True when ELF file $1 asks for no program interpreter (the loader) and
# has no dynamic section: it needs no file of the system to start.
is_static() {
	local headers
	headers=$(readelf -lW "$1") || return 1
	[[ $headers != *INTERP* && $headers != *DYNAMIC* ]]
}

add_busybox() {
	[[ -x /bin/busybox ]] || skip "busybox-static is not installed"
	is_static /bin/busybox || skip "/bin/busybox is not the static build (busybox-static)"
	mkdir -p "$ROOT/bin"
	cp /bin/busybox "$ROOT/bin/busybox"
}

@test "static: ./tfd-static is statically linked and stripped" {
	is_static "$REPO/tfd-static" || fail "$(readelf -lW "$REPO/tfd-static")"
	run readelf -SW "$REPO/tfd-static"
	assert_success
	refute_output --partial ".symtab"
	refute_output --partial ".debug_"
}

@test "static: ticks in an empty root" {
	[[ $(find "$ROOT" | wc -l) == 2 ]] || fail "the root is not empty: $(find "$ROOT")"
	in_root -- -i 10ms -n 3
	assert_success
	assert_equal "$stderr" ""
	# 3 expirations, in 3 wake-ups or fewer (a loaded machine may read
	# two at once).
	assert_wakeups 3
}

@test "static: TZ unset and TZ=UTC take UTC without a word" {
	local want=1796378400.000000000 tz
	for tz in "" TZ=UTC; do
		# shellcheck disable=SC2086 # an empty $tz is no word.
		in_root $tz -- --calendar '*-*-* 10:00' --dry-run=1 --base-time @1796292000 -f %u
		assert_success
		assert_equal "$output" "$want"
		assert_equal "$stderr" ""
	done
}

@test "static: a zone that is not in the root: exit 2 for a local schedule, else UTC with one warning" {
	# A schedule in local time would run an hour off: refused, naming TZ.
	in_root -2 TZ=Europe/Berlin -- --calendar '*-*-* 10:00' --dry-run=1 \
		--base-time @1796292000 -f %u
	assert_equal "$output" ""
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "${stderr_lines[0]}" "^tfd: TZ: .*Europe/Berlin.*local time"
	# One in UTC runs, and the zone's absence is a warning naming it.
	in_root TZ=Europe/Berlin -- --calendar '*-*-* 10:00 UTC' --dry-run=1 \
		--base-time @1796292000 -f %u
	assert_success
	assert_equal "$output" 1796378400.000000000
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "${stderr_lines[0]}" "^tfd: warning: TZ: .*Europe/Berlin"
}

@test "static: -- runs a static program in the root" {
	add_busybox
	in_root -- -d 0 -- /bin/busybox true
	assert_success
	assert_equal "$stderr" ""
	in_root -- -d 0 -- /bin/busybox sh -c 'echo "run $TFD_SEQ"; exit 3'
	assert_equal "$status" 3
	assert_equal "$output" "run 1"
}

@test "static: a command missing from the root is 127, checked before arming" {
	in_root -127 -- -d 0 -- /bin/true
	assert_regex "$stderr" "^tfd: .*/bin/true"
}

@test "static: --exec with busybox as /bin/sh" {
	add_busybox
	ln -s busybox "$ROOT/bin/sh"
	in_root -- -d 0 --exec 'echo hi'
	assert_success
	assert_equal "$output" "hi"
	assert_equal "$stderr" ""
	# A copy works as well as a link, and the run's environment is there.
	rm "$ROOT/bin/sh"
	cp /bin/busybox "$ROOT/bin/sh"
	in_root -- -i 300ms -n 2 -q --exec 'echo "$TFD_SEQ"'
	assert_success
	assert_equal "$(xargs <<<"$output")" "1 2"
}

@test "static: --fleet is left out of the static build, and a usage error says so" {
	in_root -2 -- --fleet 'host=/run/postgresql' --cron '* * * * *' --dry-run=1
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "tfd: --fleet: this tfd was built without the fleet (a static build cannot load libpq); use the dynamic tfd"
	assert_equal "${stderr_lines[1]}" "Try 'tfd --help'."
}

@test "static: --listen is left out of the static build, and a usage error says so before any job runs" {
	in_root -2 -- --listen 127.0.0.1:9184 -d 0 -n 1 -q --exec 'echo ran'
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "tfd: --listen: this tfd was built without HTTP (a static build cannot load libmicrohttpd); use the dynamic tfd, or --metrics=FILE"
	assert_equal "${stderr_lines[1]}" "Try 'tfd --help'."
	# The address is still read: a bad one is named as in the dynamic tfd.
	in_root -2 -- --listen localhost:9184 --cron '* * * * *' --dry-run=1
	[[ ${stderr_lines[0]} == "tfd: --listen 'localhost:9184': 'localhost' is not a numeric IPv4 address"* ]] || fail "$stderr"
}

@test "static: --ping and --notify are left out of the static build, and a usage error says so before any job runs" {
	local option
	for option in --ping --notify; do
		in_root -2 -- "$option" http://127.0.0.1:9/x -d 0 -n 1 -q --exec 'echo ran'
		assert_equal "$output" ""
		assert_equal "${stderr_lines[0]}" "tfd: --ping and --notify: this tfd was built without HTTP (a static build cannot load libcurl); use the dynamic tfd"
		assert_equal "${stderr_lines[1]}" "Try 'tfd --help'."
	done
}

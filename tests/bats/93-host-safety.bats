#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# The test command (README.md: `.ci/install-deps && make -j2 check`) on a
# person's own machine: install-deps changes no configuration it did not
# make (exim4's above all), removes no package, leaves no policy-rc.d
# behind; the tests that set the realtime clock are skipped unless allowed.
#
# install-deps runs here in a mount namespace of the test's own, where /etc
# and /usr/sbin are overlays whose changes land in a tmpfs (the machine's
# are never written), with stubs first on PATH in place of apt-get, dpkg,
# dpkg-query and debconf-set-selections: they log what they are asked and
# answer from a package list the test writes, so no network and no package
# is touched, and only the script's own logic is tested.

load test_helper

setup() {
	((EUID == 0)) || skip "mounts in a namespace of its own need root"
	require_command unshare
	T=$BATS_TEST_TMPDIR
	export T
	# What dpkg knows: "STATE PACKAGE PROVIDES..." lines (stub_dpkg_query).
	: >"$T/dpkg-db"
	make_stubs
	unshare --mount true 2>/dev/null || skip "unshare --mount is not permitted here"
}

make_stubs() {
	mkdir "$T/stubs"
	# apt-get: logs its arguments; an install also logs what the policy
	# of /usr/sbin/policy-rc.d answers then, and may be told to fail
	# (APT_STATUS) or to wait for a signal (APT_WAIT).
	cat >"$T/stubs/apt-get" <<-'EOF'
		#!/bin/bash
		echo "$*" >>"$T/apt-get.log"
		if [[ " $* " == *" install "* ]]; then
			if [[ -x /usr/sbin/policy-rc.d ]]; then
				/usr/sbin/policy-rc.d exim4 start
				echo "policy $?" >>"$T/apt-get.log"
			else
				echo "policy none" >>"$T/apt-get.log"
			fi
			if [[ -n ${APT_WAIT-} ]]; then
				touch "$T/apt-waiting"
				exec sleep 60
			fi
		fi
		exit "${APT_STATUS:-0}"
	EOF
	printf '#!/bin/sh\necho "$*" >>"$T/dpkg.log"\n' >"$T/stubs/dpkg"
	printf '#!/bin/sh\ncat >>"$T/debconf.log"\n' >"$T/stubs/debconf-set-selections"
	printf '#!/bin/sh\necho "$*" >>"$T/update-exim4.conf.log"\n' >"$T/stubs/update-exim4.conf"
	# dpkg-query -W -f=FORMAT [PACKAGE]: a package's state, or every
	# package as "STATE PACKAGE PROVIDES" (the formats install-deps asks).
	cat >"$T/stubs/dpkg-query" <<-'EOF'
		#!/bin/bash
		pkg=${*: -1}
		if [[ $pkg == -* ]]; then
			cat "$T/dpkg-db"
			exit 0
		fi
		state=$(awk -v p="$pkg" '$2 == p { print $1 }' "$T/dpkg-db")
		[[ -n $state ]] || { echo "dpkg-query: no packages found matching $pkg" >&2; exit 1; }
		printf '%s' "$state"
	EOF
	chmod +x "$T/stubs/"*
}

# run_install_deps [PREPARE]: runs .ci/install-deps in the namespace after
# the shell commands PREPARE (which make the machine of the test: its
# /etc/exim4, its policy-rc.d; there is neither before them). Leaves what
# it printed in $T/out, its status in $T/status, /etc/exim4 before and
# after in $T/before and $T/after, and the policy file after (or nothing)
# in $T/policy-after.
run_install_deps() {
	local prepare=${1:-}
	mkdir "$T/ovl"
	unshare --mount -- bash -ec '
		mount -t tmpfs tmpfs "$T/ovl"
		for d in etc usr/sbin; do
			mkdir -p "$T/ovl/$d/up" "$T/ovl/$d/work"
			mount -t overlay overlay \
				-o "lowerdir=/$d,upperdir=$T/ovl/$d/up,workdir=$T/ovl/$d/work" "/$d"
		done
		rm -rf /etc/exim4 /usr/sbin/policy-rc.d
		eval "$1"
		mkdir "$T/before" "$T/after"
		[[ ! -d /etc/exim4 ]] || cp -a /etc/exim4/. "$T/before"
		status=0
		if [[ -n ${KILL_DURING_APT-} ]]; then
			APT_WAIT=1 PATH="$T/stubs:/usr/bin:/bin" setsid "$REPO/.ci/install-deps" \
				>"$T/out" 2>&1 &
			pid=$!
			for ((i = 0; i < 400; i++)); do
				[[ -e $T/apt-waiting ]] && break
				sleep 0.05
			done
			kill -TERM -- "-$pid"
			wait "$pid" || status=$?
		else
			PATH="$T/stubs:/usr/bin:/bin" "$REPO/.ci/install-deps" >"$T/out" 2>&1 || status=$?
		fi
		echo "$status" >"$T/status"
		[[ ! -d /etc/exim4 ]] || cp -a /etc/exim4/. "$T/after"
		[[ ! -e /usr/sbin/policy-rc.d ]] || cp -a /usr/sbin/policy-rc.d "$T/policy-after"
		umount /usr/sbin /etc "$T/ovl"
	' _ "$prepare"
}

# The exim4 configuration of a workstation that sends through a smarthost.
SMARTHOST_CONF="mkdir -p /etc/exim4
printf '%s\n' \"dc_eximconfig_configtype='smarthost'\" \"dc_smarthost='mail.example.org::587'\" \\
	\"dc_other_hostnames='ws1'\" >/etc/exim4/update-exim4.conf.conf
echo 'mail.example.org:user:secret' >/etc/exim4/passwd.client"

# Asserts that install-deps ended with status 0 and changed no file of
# /etc/exim4, nor asked debconf anything, nor rebuilt exim's configuration.
assert_exim_untouched() {
	assert_equal "$(<"$T/status")" 0
	run diff -r "$T/before" "$T/after"
	assert_success
	[[ ! -e $T/debconf.log ]] || fail "debconf was told: $(<"$T/debconf.log")"
	[[ ! -e $T/update-exim4.conf.log ]] || fail "update-exim4.conf ran"
}

# The packages apt-get was asked to install, one a line.
installed() {
	grep -m1 '^install ' "$T/apt-get.log" | tr ' ' '\n' | grep -v '^-' | grep -v '^install$'
}

@test "install-deps: an exim4 configured before (a smarthost) is kept as it is" {
	printf '%s\n' 'installed exim4-config' \
		'installed exim4-daemon-light default-mta, mail-transport-agent' >"$T/dpkg-db"
	run_install_deps "$SMARTHOST_CONF"
	assert_exim_untouched
	[[ -s $T/after/update-exim4.conf.conf ]] || fail "the test's configuration is not there"
	run installed
	refute_line exim4-daemon-light
	run cat "$T/out"
	assert_line "install-deps: keeping the MTA installed here: exim4-daemon-light"
}

@test "install-deps: with no MTA, exim4 is installed and set to local delivery before the package asks" {
	run_install_deps
	assert_equal "$(<"$T/status")" 0
	run cat "$T/debconf.log"
	assert_output 'exim4-config exim4/dc_eximconfig_configtype select local delivery only; not on a network'
	run installed
	assert_line exim4-daemon-light
	assert_line cron
	assert_line postgresql-15
	# install-deps writes no exim4 file itself: the package does, from
	# the answer.
	[[ ! -e $T/update-exim4.conf.log ]] || fail "update-exim4.conf ran"
	run ls -A "$T/after"
	assert_output ""
}

@test "install-deps: an exim4 removed but not purged keeps its configuration and its answers" {
	echo 'config-files exim4-config' >"$T/dpkg-db"
	run_install_deps "$SMARTHOST_CONF"
	assert_exim_untouched
	run installed
	assert_line exim4-daemon-light
}

@test "install-deps: another MTA (postfix) and another cron daemon are kept; apt may remove nothing" {
	printf '%s\n' 'installed postfix mail-transport-agent' \
		'installed cronie cron-daemon' 'config-files exim4-config' >"$T/dpkg-db"
	run_install_deps
	assert_exim_untouched
	run installed
	refute_line exim4-daemon-light
	refute_line cron
	assert_line bats
	run grep -c -- ' --no-remove ' "$T/apt-get.log"
	assert_output 1
	run cat "$T/out"
	assert_line "install-deps: keeping the MTA installed here: postfix"
	assert_line "install-deps: keeping the cron daemon installed here: cronie"
}

@test "install-deps: the dpkg architectures it adds are arm64 and i386 (README.md says so)" {
	run_install_deps
	run cat "$T/dpkg.log"
	assert_output $'--add-architecture arm64\n--add-architecture i386'
	tr -s ' \n' '  ' <"$REPO/README.md" | grep -q 'dpkg architectures arm64 and i386' ||
		fail "README.md does not say which architectures the test command adds"
}

@test "install-deps: no daemon starts during its install, and its policy-rc.d is gone after" {
	run_install_deps
	assert_equal "$(<"$T/status")" 0
	run grep '^policy' "$T/apt-get.log"
	assert_output "policy 101"
	[[ ! -e $T/policy-after ]] || fail "policy-rc.d left behind: $(<"$T/policy-after")"
}

@test "install-deps: its policy-rc.d is gone after a failed install, and after SIGTERM" {
	APT_STATUS=100 run_install_deps
	assert_equal "$(<"$T/status")" 100
	[[ ! -e $T/policy-after ]] || fail "policy-rc.d left after a failed install"
	rm -rf "$T/ovl" "$T/before" "$T/after" "$T/apt-get.log"
	KILL_DURING_APT=1 run_install_deps
	[[ -e $T/apt-waiting ]] || fail "apt-get never ran: $(<"$T/out")"
	assert_equal "$(<"$T/status")" 143
	[[ ! -e $T/policy-after ]] || fail "policy-rc.d left after SIGTERM"
}

@test "install-deps: a policy-rc.d of the machine's own is left as it was; one a killed run left is removed" {
	run_install_deps "printf '#!/bin/sh\nexit 0\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d"
	assert_equal "$(<"$T/status")" 0
	run grep '^policy' "$T/apt-get.log"
	assert_output "policy 0"
	assert_equal "$(<"$T/policy-after")" $'#!/bin/sh\nexit 0'
	rm -rf "$T/ovl" "$T/before" "$T/after" "$T/apt-get.log" "$T/policy-after"
	# What a run killed by SIGKILL leaves: install-deps' own policy.
	local left
	left=$(sed -n "s/^mark='\\(.*\\)'$/\\1/p" "$REPO/.ci/install-deps")
	[[ -n $left ]] || fail "install-deps has no mark for its policy"
	run_install_deps "printf '#!/bin/sh\n%s\nexit 101\n' '$left' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d"
	assert_equal "$(<"$T/status")" 0
	[[ ! -e $T/policy-after ]] || fail "the policy a killed run left is still there"
}

@test "60-clock.bats: without CI or TFD_CLOCK_TESTS=1 every test is skipped, saying why, and the clock is never set" {
	# A date that refuses to set the clock and logs each attempt: were
	# a test not skipped, it would be seen here and not reach the clock.
	cat >"$T/stubs/date" <<-'EOF'
		#!/bin/bash
		for a; do
			case $a in -s | --set | --set=*) echo "$*" >>"$T/date-set.log"; exit 1 ;; esac
		done
		exec /usr/bin/date "$@"
	EOF
	chmod +x "$T/stubs/date"
	run env -u CI -u TFD_CLOCK_TESTS PATH="$T/stubs:$PATH" TFD="$TFD" \
		bats --tap "$REPO/tests/bats/60-clock.bats"
	assert_success
	[[ ! -e $T/date-set.log ]] || fail "the clock would have been set: $(<"$T/date-set.log")"
	local n
	n=$(grep -c '^ok ' <<<"$output")
	((n >= 5)) || fail "too few tests: $output"
	assert_equal "$(grep -c '^ok .* # skip sets the realtime clock: runs only with CI or TFD_CLOCK_TESTS=1 set$' \
		<<<"$output")" "$n"
}

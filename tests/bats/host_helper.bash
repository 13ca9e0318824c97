# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by the bats files of a host's cron that make users
# (59-host-cron-files.bats, 59-host-cron-lenient.bats): each test in its
# own directory, as root, with the users it made (tfa and a random number)
# and its shared directory removed in teardown.

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	export TZ=UTC
	# shellcheck disable=SC2034 # the test files use it
	BASE='2026-12-03 00:00:00 UTC'   # a Thursday
	[[ $(id -u) == 0 ]] || fail "these tests need root (CI runs them as root)"
	umask 022
	TEST_USERS=()
	SHARED=
}

# The helper's teardown, the users a test made and its shared directory.
eval "helper_$(declare -f teardown)"
teardown() {
	exec 5>&- 2>/dev/null || true
	helper_teardown
	local u
	for u in "${TEST_USERS[@]}"; do
		remove_user "$u" "$u"
	done
	[[ -z $SHARED ]] || rm -rf "$SHARED"
}

# A user of this test (tfa and a random number), in $1's name.
new_user_name() {
	local -n out=$1
	out=tfa$RANDOM$RANDOM
	TEST_USERS+=("$out")
}

make_user() {
	local -n made=$1
	new_user_name made
	useradd -M -d /nonexistent -s /bin/sh -U "$made"
}

# A directory every user may write, outside the test's own (which only
# root may reach), in SHARED.
make_shared() {
	SHARED=$(mktemp -d /tmp/tfa-shared.XXXXXX)
	chmod 1777 "$SHARED"
}

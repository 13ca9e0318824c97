# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by the bats files of the control socket (62-control.bats,
# 64-control-abuse.bats): the tfdctl under test, each test in its own
# directory with its socket at $SOCK (also TFD_CONTROL), and a tfd started
# on ./jobs that answers there.

TFDCTL=${TFDCTL:-$REPO/tfdctl}

setup() {
	[[ -x $TFDCTL ]] || skip "no $TFDCTL: run make tfdctl first"
	cd "$BATS_TEST_TMPDIR" || exit 1
	export TZ=UTC
	SOCK=$BATS_TEST_TMPDIR/ctl/control
	export TFD_CONTROL=$SOCK
}

# Waits up to 5 s for the socket at $SOCK.
wait_for_socket() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -S $SOCK ]] && return 0
		nap 0.05
	done
	fail "no socket at $SOCK: $(cat err 2>/dev/null)"
}

# Starts tfd on ./jobs with the control socket, --json events in ev.json.
start_tfd() {
	start_bg "$TFD" --jobs=jobs --json --control="$SOCK" "$@" >ev.json 2>err
	wait_for_socket
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output, $stderr and their _lines.
# shellcheck disable=SC2016 # command strings are expanded by the run's shell, not here.
# --cgroup DIR (each run starts inside a cgroup v2 directory) and --join PID
# (each run starts inside the namespaces of a process). Both need root; each
# test says why when it skips.

load test_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# Cgroup directories are named after this bats run, so teardown_file finds
# the ones a failed test left behind.
cgroup_prefix() {
	echo "tfd-bats-${BATS_RUN_TMPDIR##*/}"
}

# The cgroup v2 mount point, from /proc/mounts (empty when there is none).
cgroup2_mount() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts
}

teardown_file() {
	local root
	root=$(cgroup2_mount)
	[[ -n $root ]] && rmdir "$root/$(cgroup_prefix)"-* 2>/dev/null
	return 0
}

# Helpers

need_root() {
	((EUID == 0)) || skip "needs root (runs as uid $EUID)"
}

# Makes a fresh cgroup for this test in CG, or skips saying why.
make_cgroup() {
	need_root
	local root
	root=$(cgroup2_mount)
	[[ -n $root ]] || skip "no cgroup2 file system in /proc/mounts"
	CG="$root/$(cgroup_prefix)-$BATS_TEST_NUMBER"
	mkdir "$CG" 2>/dev/null || skip "cannot create a cgroup under $root"
	# A kernel without CLONE_INTO_CGROUP is a missing feature, not a bug.
	run --separate-stderr "$TFD" -d 1ms --cgroup "$CG" -- true
	if ((status == 1)) && [[ $stderr == *"not supported"* || $stderr == *"not available"* ]]; then
		rmdir "$CG"
		skip "${stderr#tfd: }"
	fi
}

# Checks that $1, the cgroup v2 line of /proc/PID/cgroup ("0::PATH"), names
# $CG. PATH is relative to the cgroup namespace's root, so only its end is
# compared.
assert_cgroup_line() {
	assert_regex "$1" "^0::/(.*/)?${CG##*/}\$"
}

# Starts `unshare OPTION... -- sh -c SCRIPT` in the background with the
# script ending in `exec sleep 30`, and sets TARGET to the sleep's pid (the
# unshare process's child), once the script has done its work.
start_target() {
	local script=$1 upid i
	shift
	need_root
	unshare "$@" true 2>/dev/null || skip "unshare $* is refused here"
	start_bg unshare --kill-child "$@" sh -c "$script; exec sleep 30"
	upid=${BG_PIDS[-1]}
	for ((i = 0; i < 100; i++)); do
		TARGET=$(pgrep -P "$upid" || true)
		if [[ -n $TARGET && $(cat "/proc/$TARGET/comm" 2>/dev/null) == sleep ]]; then
			BG_PIDS+=("$TARGET")
			return 0
		fi
		nap 0.05
	done
	fail "the unshare target did not start"
}

# Makes ROOT, a root directory of its own: busybox (static) as the few
# commands the tests need, /marker to tell it from ours, /work to start in.
make_busybox_root() {
	local busybox applet
	busybox=$(command -v busybox) || skip "busybox is not installed"
	# ldd fails on a static executable, which alone runs in an empty root.
	! ldd "$busybox" >/dev/null 2>&1 ||
		skip "$busybox is not statically linked (busybox-static)"
	ROOT=$BATS_TEST_TMPDIR/root
	mkdir -p "$ROOT/bin" "$ROOT/work" "$ROOT/mnt" "$ROOT/proc"
	cp "$busybox" "$ROOT/bin/busybox"
	for applet in sh sleep cat pwd ls true mount touch hostname; do
		ln -s busybox "$ROOT/bin/$applet"
	done
	echo "the target's root" >"$ROOT/marker"
}

# --cgroup

@test "--cgroup starts each run inside the cgroup" {
	make_cgroup
	# Two runs a second apart: a loaded machine can neither merge nor
	# skip the second.
	run --separate-stderr "$TFD" -d 0 -i 1s -n 2 --cgroup "$CG" -- sh -c \
		'echo "pid $$ $PPID"; grep "^0::" /proc/self/cgroup; echo procs $(cat "$1/cgroup.procs")' \
		sh "$CG"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 6
	local i pid ppid
	for i in 0 3; do
		read -r _ pid ppid <<<"${lines[i]}"
		assert_cgroup_line "${lines[i + 1]}"
		# The run is in the cgroup; tfd itself stays out of it.
		[[ " ${lines[i + 2]} " == *" $pid "* ]] || fail "pid $pid not in ${lines[i + 2]}"
		[[ " ${lines[i + 2]} " != *" $ppid "* ]] || fail "tfd ($ppid) moved into $CG"
	done
	rmdir "$CG"
}

@test "--cgroup: a cgroup removed mid-schedule stops tfd with status 1" {
	make_cgroup
	start_bg "$TFD" -i 200ms -n 50 --json --cgroup "$CG" -- true >out 2>err
	wait_for_lines out 20 2 || fail "no run: $(cat out err)"
	# Between two runs the cgroup is empty and can go.
	local i
	for ((i = 0; i < 100; i++)); do
		rmdir "$CG" 2>/dev/null && break
		nap 0.02
	done
	[[ ! -d $CG ]] || fail "cannot remove $CG"
	wait_bg_exit "${BG_PIDS[-1]}"
	assert_equal "$bg_status" 1
	run cat err
	assert_equal "${#lines[@]}" 1
	assert_regex "${lines[0]}" '^tfd: .*(clone3|cgroup).*No such file or directory$'
}

@test "--cgroup: a missing directory is a usage error" {
	need_root
	assert_usage_error "'$BATS_TEST_TMPDIR/none'" -d 10ms --cgroup "$BATS_TEST_TMPDIR/none" -- true
	assert_regex "${stderr_lines[0]}" 'no such|not exist|missing|not found'
}

@test "--cgroup: a regular file is a usage error" {
	need_root
	touch file
	assert_usage_error "'$BATS_TEST_TMPDIR/file'" -d 10ms --cgroup "$BATS_TEST_TMPDIR/file" -- true
	assert_regex "${stderr_lines[0]}" 'not a (cgroup|directory)'
}

@test "--cgroup: a directory outside cgroup2 (/tmp) is a usage error" {
	need_root
	assert_usage_error "'/tmp'" -d 10ms --cgroup /tmp -- true
	assert_regex "${stderr_lines[0]}" 'cgroup'
}

# --join

@test "--join: the run sees the target's hostname, network and mounts" {
	mkdir mnt
	start_target "hostname tfd-joined-test; mount -t tmpfs tfd-test '$PWD/mnt'; touch '$PWD/mnt/inside'" \
		--uts --net --mount --fork
	run --separate-stderr "$TFD" -d 10ms --join "$TARGET" -- sh -c \
		'hostname; readlink /proc/self/ns/net; ls "$1"' sh "$PWD/mnt"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${lines[0]}" tfd-joined-test
	assert_equal "${lines[1]}" "$(readlink "/proc/$TARGET/ns/net")"
	assert_not_equal "${lines[1]}" "$(readlink /proc/self/ns/net)"
	assert_equal "${lines[2]}" inside
	assert_equal "${#lines[@]}" 3
	# None of it touched tfd's own namespaces.
	assert_not_equal "$(hostname)" tfd-joined-test
	[[ ! -e mnt/inside ]] || fail "the target's mount leaked out"
}

@test "--join: the run gets a chrooted target's root and working directory" {
	make_busybox_root
	start_target ":" --root="$ROOT" --wd=/work
	run --separate-stderr "$TFD" -d 10ms --join "$TARGET" -- /bin/sh -c \
		'pwd; cat /marker'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${lines[0]}" /work
	assert_equal "${lines[1]}" "the target's root"
	assert_equal "${#lines[@]}" 2
}

@test "--join: a target with its own mounts and root, as nsenter -a -r -w" {
	make_busybox_root
	start_target "mount -t tmpfs tfd-test /mnt && touch /mnt/inside" \
		--mount --uts --root="$ROOT" --wd=/work
	run --separate-stderr "$TFD" -d 10ms --join "$TARGET" -- /bin/sh -c \
		'pwd; cat /marker; ls /mnt'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${lines[0]}" /work
	assert_equal "${lines[1]}" "the target's root"
	assert_equal "${lines[2]}" inside
	assert_equal "${#lines[@]}" 3
}

@test "--join: a target in its own user namespace" {
	start_target "hostname tfd-joined-test" --user --map-root-user --uts --fork
	run --separate-stderr "$TFD" -d 10ms --join "$TARGET" -- sh -c \
		'hostname; readlink /proc/self/ns/user'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${lines[0]}" tfd-joined-test
	assert_equal "${lines[1]}" "$(readlink "/proc/$TARGET/ns/user")"
}

@test "--join: a process in tfd's own namespaces runs the command as usual" {
	run --separate-stderr "$TFD" -d 10ms --join "$$" -- hostname
	assert_success
	assert_equal "$output" "$(hostname)"
	assert_equal "$stderr" ""
}

@test "--join: a target in its own pid namespace gives the run a small pid there" {
	start_target ":" --pid --mount-proc --fork
	run --separate-stderr "$TFD" -d 10ms --join "$TARGET" -- sh -c \
		'echo $$; readlink /proc/self/ns/pid'
	assert_success
	assert_equal "$stderr" ""
	# The target is the namespace's init (1); a run comes soon after.
	((lines[0] > 1 && lines[0] < 100)) || fail "pid ${lines[0]} is not the namespace's"
	assert_equal "${lines[1]}" "$(readlink "/proc/$TARGET/ns/pid")"
}

@test "--join: a timed-out run's zombie in the target's pid namespace does not hold tfd" {
	start_target ":" --pid --mount-proc --fork
	# The run's background child is orphaned to the namespace's init (the
	# target, a sleep that never reaps it) and stays a zombie in the run's
	# process group: tfd can neither kill nor reap it, so must not wait.
	local mark="100.${BASHPID}${RANDOM}"
	run --separate-stderr timeout -k 2 10 "$TFD" -d 10ms --timeout 200ms --join "$TARGET" \
		-- sh -c "sleep $mark </dev/null >/dev/null 2>&1 & exec sleep 10"
	assert_equal "$status" 143
	assert_regex "$stderr" '^tfd: run 1 \(pid [0-9]+\) timed out and was killed by SIGTERM$'
}

@test "--join: bad PIDs are usage errors" {
	need_root
	local gone
	true &
	gone=$!
	wait "$gone"
	assert_usage_error "'abc'" -d 10ms --join abc -- true
	assert_usage_error "'0'" -d 10ms --join 0 -- true
	assert_usage_error "'-5'" -d 10ms --join=-5 -- true
	assert_usage_error "'99999999'" -d 10ms --join 99999999 -- true
	assert_usage_error "'$gone'" -d 10ms --join "$gone" -- true
	assert_regex "${stderr_lines[0]}" 'no such process|not exist|not found'
}

@test "--join: a target that exits stops tfd with status 1" {
	start_target "hostname tfd-joined-test" --uts --fork
	start_bg "$TFD" -i 100ms --json --join "$TARGET" -- hostname >out 2>err
	local tfd=${BG_PIDS[-1]}
	wait_for_lines out 20 2 || fail "no runs: $(cat out err)"
	kill -KILL "$TARGET"
	wait_bg_exit "$tfd"
	assert_equal "$bg_status" 1
	grep -q '^tfd-joined-test$' out || fail "no run in the target: $(cat out)"
	# tfd's line of the target's exit, once (unshare(1), whose child was
	# killed, may add its own). A run that began as the target went may
	# say it could not join it: the run's own line, written by its child,
	# before or after tfd's as the two processes are scheduled (on a
	# loaded machine, after), but before tfd exits, which reaps it first.
	run grep '^tfd: ' err
	assert_equal "$(grep -c '^tfd: --join: the target process exited; stopping$' <<<"$output")" 1
	[[ $(grep -Evc -e '^tfd: --join: the target' -e '^tfd: [a-z]+ \(--join[^)]*\): ' \
		<<<"$output") == 0 ]] || fail "$output"
}

@test "--cgroup and --join together" {
	make_cgroup
	start_target "hostname tfd-joined-test" --uts --fork
	run --separate-stderr "$TFD" -d 10ms --cgroup "$CG" --join "$TARGET" -- sh -c \
		'echo $$; hostname; grep "^0::" /proc/self/cgroup; echo procs $(cat "$1/cgroup.procs")' \
		sh "$CG"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${lines[1]}" tfd-joined-test
	assert_cgroup_line "${lines[2]}"
	[[ " ${lines[3]} " == *" ${lines[0]} "* ]] || fail "pid ${lines[0]} not in ${lines[3]}"
	rmdir "$CG"
}

# A run as another user calls NSS and PAM in its child, so the child is
# made by the C library's fork() (clone with CLONE_CHILD_SETTID, where
# tfd's other children are clone3's): a thread of libcurl's cannot leave
# it a held lock. Without CLONE_INTO_CGROUP it enters --cgroup itself.
@test "--cgroup with --user: a run as another user, forked by the C library's fork(), starts inside the cgroup" {
	make_cgroup
	require_command strace
	skip_under_asan "its leak check stops under strace"
	run --separate-stderr strace -f -qq -e trace=clone,clone3 -o trace \
		"$TFD" -d 10ms --cgroup "$CG" --user nobody -- sh -c 'id -un; grep "^0::" /proc/self/cgroup'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${lines[0]}" nobody
	assert_cgroup_line "${lines[1]}"
	grep -q 'clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD' trace ||
		fail "no fork(): $(cat trace)"
	rmdir "$CG"
}

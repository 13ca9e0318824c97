#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make install puts exactly its fifteen files in place with the right modes
# (the units naming the installed binary), and make uninstall removes
# exactly those.

load test_helper

# The files install writes, relative to DESTDIR, with their modes, as
# `find -printf '%m %P\n' | sort` shows them, for PREFIX=$1.
expected_files() {
	local p=${1#/}
	printf '%s\n' \
		"644 $p/lib/systemd/system/tfd-cron.service" \
		"644 $p/lib/systemd/system/tfd@.service" \
		"644 $p/share/bash-completion/completions/tfd" \
		"644 $p/share/bash-completion/completions/tfdctl" \
		"644 $p/share/fish/vendor_completions.d/tfd.fish" \
		"644 $p/share/fish/vendor_completions.d/tfdctl.fish" \
		"644 $p/share/man/man1/tfd.1" \
		"644 $p/share/man/man1/tfdctl.1" \
		"644 $p/share/man/man5/tfd-jobs.5" \
		"644 $p/share/man/man7/tfd-fleet.7" \
		"644 $p/share/man/man8/tfd-cron.8" \
		"644 $p/share/zsh/site-functions/_tfd" \
		"644 $p/share/zsh/site-functions/_tfdctl" \
		"755 $p/bin/tfd" \
		"755 $p/bin/tfdctl" | sort
}

installed_files() {
	(cd "$1" && find . -type f -printf '%m %P\n' | sort)
}

# make_in_repo ARG...: runs make in the checkout. `-o tfd` takes the binary
# as it is: these tests are about where files go, and must not rebuild
# (or race a build of) the binary under test.
make_in_repo() {
	make -C "$REPO" --no-print-directory -o tfd -o tfdctl "$@"
}

setup() {
	[[ -x $REPO/tfd ]] || skip "no $REPO/tfd: run make first"
	[[ -x $REPO/tfdctl ]] || skip "no $REPO/tfdctl: run make first"
	ROOT=$BATS_TEST_TMPDIR/root
}

@test "install with PREFIX=/usr puts exactly the fifteen files, with modes" {
	run make_in_repo install DESTDIR="$ROOT" PREFIX=/usr
	assert_success
	run installed_files "$ROOT"
	assert_output "$(expected_files /usr)"
}

@test "installed files are copies of the sources" {
	make_in_repo install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	cmp "$REPO/tfd" "$ROOT/usr/bin/tfd"
	cmp "$REPO/tfdctl" "$ROOT/usr/bin/tfdctl"
	cmp "$REPO/man/tfd.1" "$ROOT/usr/share/man/man1/tfd.1"
	cmp "$REPO/man/tfdctl.1" "$ROOT/usr/share/man/man1/tfdctl.1"
	cmp "$REPO/man/tfd-jobs.5" "$ROOT/usr/share/man/man5/tfd-jobs.5"
	cmp "$REPO/man/tfd-fleet.7" "$ROOT/usr/share/man/man7/tfd-fleet.7"
	cmp "$REPO/man/tfd-cron.8" "$ROOT/usr/share/man/man8/tfd-cron.8"
	cmp "$REPO/completions/tfd.bash" \
		"$ROOT/usr/share/bash-completion/completions/tfd"
	cmp "$REPO/completions/_tfd" "$ROOT/usr/share/zsh/site-functions/_tfd"
	cmp "$REPO/completions/tfd.fish" \
		"$ROOT/usr/share/fish/vendor_completions.d/tfd.fish"
	cmp "$REPO/contrib/systemd/tfd-cron.service" \
		"$ROOT/usr/lib/systemd/system/tfd-cron.service"
	cmp "$REPO/contrib/systemd/tfd@.service" \
		"$ROOT/usr/lib/systemd/system/tfd@.service"
	cmp "$REPO/completions/tfdctl.bash" \
		"$ROOT/usr/share/bash-completion/completions/tfdctl"
	cmp "$REPO/completions/_tfdctl" "$ROOT/usr/share/zsh/site-functions/_tfdctl"
	cmp "$REPO/completions/tfdctl.fish" \
		"$ROOT/usr/share/fish/vendor_completions.d/tfdctl.fish"
}

@test "the installed units start the installed binary and pass systemd-analyze verify" {
	require_command systemd-analyze
	# PREFIX is the test's own directory, so the units' ExecStart names a
	# binary that exists (verify checks it) without writing /usr.
	local p=$BATS_TEST_TMPDIR/prefix u
	make_in_repo install PREFIX="$p" >/dev/null
	for u in tfd-cron.service tfd@.service; do
		run grep -c "^ExecStart=$p/bin/tfd " "$p/lib/systemd/system/$u"
		assert_output 1
	done
	# Documentation= is checked with man(1) where it is installed.
	local man=--man=no
	command -v man >/dev/null && man=--man=yes
	cd "$p/lib/systemd/system"
	run env MANPATH="$p/share/man" systemd-analyze verify "$man" \
		./tfd-cron.service ./tfd@.service
	assert_success
	assert_output ""
	# And verify does fail on a fault: a unit whose binary is missing.
	sed -i "s|^ExecStart=$p/bin/tfd |ExecStart=$p/bin/no-such-tfd |" tfd-cron.service
	run systemd-analyze verify --man=no ./tfd-cron.service
	assert_failure
	assert_output --partial no-such-tfd
}

@test "uninstall with the same variables removes exactly what install put" {
	make_in_repo install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	# A file that is not tfd's must survive the uninstall.
	mkdir -p "$ROOT/usr/bin"
	: >"$ROOT/usr/bin/other"
	chmod 600 "$ROOT/usr/bin/other"
	run make_in_repo uninstall DESTDIR="$ROOT" PREFIX=/usr
	assert_success
	run installed_files "$ROOT"
	assert_output "600 usr/bin/other"
	rm "$ROOT/usr/bin/other"
	run find "$ROOT" -type f
	assert_output ""
}

@test "the default PREFIX is /usr/local" {
	run make_in_repo install DESTDIR="$ROOT"
	assert_success
	run installed_files "$ROOT"
	assert_output "$(expected_files /usr/local)"
	run make_in_repo uninstall DESTDIR="$ROOT"
	assert_success
	run find "$ROOT" -type f
	assert_output ""
}

@test "the installed man pages and completions are found where man and the shells look" {
	make_in_repo install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	local page
	if command -v mandoc >/dev/null; then
		for page in man1/tfd.1 man1/tfdctl.1 man5/tfd-jobs.5 man7/tfd-fleet.7 man8/tfd-cron.8; do
			run mandoc -Tlint -Wwarning "$ROOT/usr/share/man/$page"
			assert_success
		done
	fi
	# man finds each page by its name and section in the installed tree.
	if command -v man >/dev/null; then
		for page in 1/tfd 1/tfdctl 5/tfd-jobs 7/tfd-fleet 8/tfd-cron; do
			run env MANPATH="$ROOT/usr/share/man" man -w "${page%/*}" "${page#*/}"
			assert_output "$ROOT/usr/share/man/man${page%/*}/${page#*/}.${page%/*}"
		done
	fi
	run bash -c 'source "$1" && complete -p tfd' _ \
		"$ROOT/usr/share/bash-completion/completions/tfd"
	assert_output "complete -F _tfd tfd"
	if command -v fish >/dev/null; then
		run fish -n "$ROOT/usr/share/fish/vendor_completions.d/tfd.fish"
		assert_success
	fi
}

@test "every long option of --help is in tfd(1) as its literal --NAME, so a plain grep finds it" {
	local opt missing=()
	# The option items are mdoc (Fl \-name): the page also lists every
	# option as text, which this keeps complete.
	for opt in $("$TFD" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$opt\b" "$REPO/man/tfd.1" || missing+=("$opt")
	done
	assert_equal "${missing[*]}" ""
}

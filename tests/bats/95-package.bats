#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# The Debian package: `make deb` builds tfd_VERSION-N_ARCH.deb from a copy
# of the tree, lintian finds no error and no warning README.md does not
# explain; the package holds exactly what `make install PREFIX=/usr`
# installs, with the dlopen'ed libraries out of Depends; its binaries,
# units and completions work from the unpacked paths; its prerm stops
# tfd-cron.service on removal, not on upgrade; and, where it is
# allowed, dpkg installs it on this machine, it runs from /usr/bin, and
# dpkg purges it again. The package builds its own tfd from the sources
# ($TFD is not what is tested here).

load test_helper

setup_file() {
	export DEB_DIR=$BATS_FILE_TMPDIR/deb
	local tool
	for tool in dpkg-buildpackage dh lintian; do
		command -v "$tool" >/dev/null || {
			echo "no $tool" >"$BATS_FILE_TMPDIR/missing"
			return 0
		}
	done
	# nocheck: the package's build runs the unit tests (debian/rules),
	# which make check has run already.
	DEB_BUILD_OPTIONS=nocheck make -C "$REPO" --no-print-directory deb DEB_DIR="$DEB_DIR" \
		>"$BATS_FILE_TMPDIR/deb.log" 2>&1
	echo $? >"$BATS_FILE_TMPDIR/deb.status"
}

setup() {
	VERSION=$(<"$REPO/VERSION")
	DEB=$(compgen -G "$DEB_DIR/tfd_${VERSION}-*_$(dpkg --print-architecture).deb" || true)
}

require_tools() {
	[[ ! -e $BATS_FILE_TMPDIR/missing ]] ||
		skip "$(<"$BATS_FILE_TMPDIR/missing"): .ci/install-deps installs the packaging tools"
}

# Skips the test when the build failed: the first test reports that.
require_deb() {
	require_tools
	[[ $(<"$BATS_FILE_TMPDIR/deb.status") == 0 && -f $DEB ]] ||
		skip "make deb failed (the first test shows why)"
}

@test "VERSION, the man pages, debian/changelog and NEWS.md name one release (check-version.sh), and the check finds a stray one" {
	run "$REPO/tests/check-version.sh"
	assert_success
	assert_output ""
	# A copy of what it reads, with one page, the changelog and NEWS.md
	# each a release off.
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/man" "$t/debian"
	cp "$REPO/VERSION" "$REPO/NEWS.md" "$t/"
	cp "$REPO/debian/changelog" "$t/debian/"
	cp "$REPO/man/tfd.1" "$REPO/man/tfd-jobs.5" "$t/man/"
	run "$REPO/tests/check-version.sh" "$t"
	assert_success
	sed -i 's/^\.Os .*/.Os tfd 0.0.9/' "$t/man/tfd-jobs.5"
	sed -i 's/^\.Dd .*/.Dd January 1, 2020/' "$t/man/tfd.1"
	sed -i '1s/(\([^-]*\)-/(9.9.9-/' "$t/debian/changelog"
	sed -i '0,/^## /s/^## [^ ]*/## 0.0.1/' "$t/NEWS.md"
	run "$REPO/tests/check-version.sh" "$t"
	assert_failure
	assert_line "check-version: man/tfd-jobs.5: '.Os tfd 0.0.9', not '.Os tfd $VERSION'"
	assert_line --partial "check-version: man/tfd.1: '.Dd January 1, 2020', not the release's"
	assert_line --regexp "^check-version: debian/changelog:1: 9\.9\.9, not VERSION's $VERSION"
	assert_line --regexp "^check-version: NEWS.md:[0-9]+: first release is '## 0\.0\.1 "
	assert_equal "${#lines[@]}" 4
	# --stamp mends the pages from VERSION and the changelog's date.
	sed -i "1s/(9\.9\.9-/($VERSION-/" "$t/debian/changelog"
	cp "$REPO/NEWS.md" "$t/"
	run "$REPO/tests/check-version.sh" --stamp "$t"
	assert_success
	run diff "$REPO/man/tfd.1" "$t/man/tfd.1"
	assert_success
}

@test "make deb builds tfd_VERSION-N_ARCH.deb and lintian finds no error" {
	require_tools
	run cat "$BATS_FILE_TMPDIR/deb.log"
	if [[ $(<"$BATS_FILE_TMPDIR/deb.status") != 0 ]]; then
		fail "make deb failed: $(tail -n 30 "$BATS_FILE_TMPDIR/deb.log")"
	fi
	[[ -f $DEB ]] || fail "no $DEB_DIR/tfd_${VERSION}-N_ARCH.deb: $(ls "$DEB_DIR")"
	refute_line --regexp '^E: '
	# Nothing beside the tree's copy is written: dpkg-buildpackage's ../
	# is DEB_DIR, and the checkout gains no file.
	run git -C "$REPO" status --porcelain --ignored=no
	refute_output --regexp '\.(deb|changes|buildinfo)$'
}

@test "every lintian warning on the package is listed, with its reason, in README's Packages section" {
	require_deb
	local packages tag missing=()
	packages=$(sed -n '/^## Packages/,/^## [^P]/p' "$REPO/README.md")
	[[ -n $packages ]] || fail "README.md has no '## Packages' section"
	for tag in $(sed -n 's/^W: [^:]*: \([a-z0-9-]*\).*/\1/p' \
		"$BATS_FILE_TMPDIR/deb.log" | sort -u); do
		grep -q -- "\`$tag\`" <<<"$packages" || missing+=("$tag")
	done
	assert_equal "${missing[*]}" ""
}

@test "the package holds exactly what make install PREFIX=/usr installs, and the docs" {
	require_deb
	local root=$BATS_TEST_TMPDIR/install
	make -C "$REPO" --no-print-directory -o tfd install DESTDIR="$root" \
		PREFIX=/usr UNITDIR=/lib/systemd/system >/dev/null
	# dh_installman compresses the man pages; the rest is as installed.
	run bash -c 'cd "$1" && find . -type f | sed "s|^\./|/|; s|\(/man/man[1-8]/.*\)|\1.gz|" | sort' \
		_ "$root"
	local expected=$output
	run bash -c 'dpkg-deb -c "$1" | awk "{ print \$6 }" | grep -v "/$" |
		grep -v "^\./usr/share/doc/" | sed "s|^\.||" | sort' _ "$DEB"
	assert_output "$expected"
	run bash -c 'dpkg-deb -c "$1" | awk "{ print \$6 }" | grep "^\./usr/share/doc/tfd/" | sort' _ "$DEB"
	assert_line ./usr/share/doc/tfd/README.md.gz
	assert_line ./usr/share/doc/tfd/changelog.gz
	assert_line ./usr/share/doc/tfd/copyright
}

@test "libpq5, libpam0g and libmicrohttpd12 are Recommends or Suggests, never Depends; the version is VERSION's" {
	require_deb
	run dpkg-deb -f "$DEB" Version
	assert_output --regexp "^${VERSION//./\\.}-[0-9]+$"
	run dpkg-deb -f "$DEB" Depends
	assert_success
	refute_output --regexp 'libpq|libpam|libmicrohttpd'
	run dpkg-deb -f "$DEB" Recommends Suggests
	assert_output --partial libpq5
	assert_output --partial libpam0g
	assert_output --partial libmicrohttpd12
}

@test "unpacked: tfd --version is VERSION's, the smoke test passes from the package's paths, the units name them" {
	require_deb
	local root=$BATS_TEST_TMPDIR/root
	dpkg-deb -x "$DEB" "$root"
	run "$root/usr/bin/tfd" --version
	assert_success
	assert_output "tfd $VERSION"
	# debian/tests/smoke is the autopkgtest: tfd (and tfdctl) from PATH.
	run env PATH="$root/usr/bin:$PATH" AUTOPKGTEST_TMP="$BATS_TEST_TMPDIR" \
		"$REPO/debian/tests/smoke"
	assert_success
	assert_output --partial ran
	local unit bin
	for unit in tfd-cron.service tfd@.service; do
		bin=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$root/lib/systemd/system/$unit")
		assert_equal "$bin" /usr/bin/tfd
	done
	run grep -c '^Conflicts=cron.service cronie.service$' "$root/lib/systemd/system/tfd-cron.service"
	assert_output 1
	run bash -c 'source "$1" && complete -p tfd' _ \
		"$root/usr/share/bash-completion/completions/tfd"
	assert_output "complete -F _tfd tfd"
}

@test "unpacked: tfdctl --version is VERSION's" {
	require_deb
	dpkg-deb -c "$DEB" | grep -q '\./usr/bin/tfdctl$' ||
		skip "no tfdctl in the package: this tree does not build it yet"
	local root=$BATS_TEST_TMPDIR/root
	dpkg-deb -x "$DEB" "$root"
	run "$root/usr/bin/tfdctl" --version
	assert_success
	assert_output "tfdctl $VERSION"
}

# The prerm as dpkg runs it, on a machine where systemd runs: a mount
# namespace of the test's own with /run/systemd/system made on a tmpfs,
# and deb-systemd-invoke and deb-systemd-helper that write what they were
# asked (tfd-cron was enabled) unless the test put its own.
run_prerm() {
	local bin=$BATS_TEST_TMPDIR/bin tool
	mkdir -p "$bin"
	for tool in deb-systemd-invoke deb-systemd-helper; do
		[[ -e $bin/$tool ]] && continue
		printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$tool" "$BATS_TEST_TMPDIR/calls" >"$bin/$tool"
		chmod +x "$bin/$tool"
	done
	: >"$BATS_TEST_TMPDIR/calls"
	run unshare -m sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system &&
		PATH="$1:$PATH" "$2" "$3" "$4"' _ "$bin" "$1" "$2" "${3-}"
}

@test "the prerm stops tfd-cron.service when the package is removed, not when it is upgraded" {
	require_deb
	local ctl=$BATS_TEST_TMPDIR/control
	dpkg-deb -e "$DEB" "$ctl"
	[[ -x $ctl/prerm ]] || fail "no prerm in the package: $(ls "$ctl")"
	run grep -c 'deb-systemd-invoke stop tfd-cron.service' "$ctl/prerm"
	assert_output 1
	# Where systemd does not run (here, a chroot, a container build) it
	# does nothing, and succeeds.
	if [[ ! -d /run/systemd/system ]]; then
		run env PATH="/nonexistent:$PATH" "$ctl/prerm" remove
		assert_success
	fi
	((EUID == 0)) && unshare -m true 2>/dev/null || skip "no mount namespace here (needs root)"
	run_prerm "$ctl/prerm" remove
	assert_success
	assert_output "tfd: stopping tfd-cron.service; to run cron again: systemctl enable --now cron"
	run grep '^deb-systemd-invoke' "$BATS_TEST_TMPDIR/calls"
	assert_output "deb-systemd-invoke stop tfd-cron.service"
	# Not enabled (cron kept): stopped all the same, without a word.
	printf '#!/bin/sh\nexit 1\n' >"$BATS_TEST_TMPDIR/bin/deb-systemd-helper"
	run_prerm "$ctl/prerm" remove
	assert_success
	assert_output ""
	local how
	for how in "upgrade $VERSION-1" "failed-upgrade $VERSION-1" "deconfigure in-favour"; do
		# shellcheck disable=SC2086 # the action and its argument
		run_prerm "$ctl/prerm" $how
		assert_success
		run cat "$BATS_TEST_TMPDIR/calls"
		assert_output ""
	done
}

# dpkg -i changes the machine: only as root, only when asked
# (TFD_PACKAGE_INSTALL=1, as .ci/run sets on its throwaway machine), and
# never over a tfd package already installed.
@test "installed by dpkg: tfd runs from /usr/bin, man finds its pages, dpkg --purge removes it" {
	require_deb
	((EUID == 0)) || skip "dpkg -i needs root"
	[[ ${TFD_PACKAGE_INSTALL-} == 1 ]] ||
		skip "set TFD_PACKAGE_INSTALL=1 to let this test install the package on this machine"
	! dpkg -s tfd >/dev/null 2>&1 || skip "a tfd package is installed here already"
	INSTALLED_DEB=1
	run dpkg -i "$DEB"
	assert_success
	run /usr/bin/tfd --version
	assert_output "tfd $VERSION"
	if [[ -x /usr/bin/tfdctl ]]; then
		run /usr/bin/tfdctl --version
		assert_output "tfdctl $VERSION"
	fi
	run env AUTOPKGTEST_TMP="$BATS_TEST_TMPDIR" "$REPO/debian/tests/smoke"
	assert_success
	if command -v man >/dev/null; then
		run man -w tfd
		assert_output /usr/share/man/man1/tfd.1.gz
	fi
	if command -v systemd-analyze >/dev/null; then
		run systemd-analyze verify --man=no /lib/systemd/system/tfd-cron.service
		assert_success
	fi
	# Installed, not enabled: nothing links the units into a target.
	run find /etc/systemd/system -name 'tfd*'
	assert_output ""
	# Removed (its prerm stops tfd-cron.service where systemd runs), then
	# purged.
	run dpkg --remove tfd
	assert_success
	[[ ! -e /usr/bin/tfd ]] || fail "dpkg --remove left /usr/bin/tfd"
	if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
		run systemctl is-active tfd-cron.service
		refute_output active
	fi
	run dpkg --purge tfd
	assert_success
	INSTALLED_DEB=
	[[ ! -e /usr/bin/tfd && ! -e /lib/systemd/system/tfd-cron.service ]]
	run dpkg -s tfd
	assert_failure
}

teardown() {
	if [[ -n ${INSTALLED_DEB-} ]]; then
		dpkg --purge tfd >/dev/null 2>&1 || true
	fi
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# tests/check-spdx.sh: every source file, script and man page carries
# `SPDX-License-Identifier: MIT` at its head in its own comment style; the
# check names each file without it, --add puts it where it belongs (after a
# #! line or zsh's #compdef, never in data files) and a second --add
# changes nothing.

load test_helper

CHECK=$REPO/tests/check-spdx.sh

# A tree of one file of each kind, none with the line, outside git.
make_tree() {
	local t=$1
	mkdir -p "$t/src" "$t/man" "$t/completions" "$t/tests/bats/fixtures" "$t/.ci"
	printf '#include "x.h"\nint x;\n' >"$t/src/x.c"
	printf '.\\" x(1)\n.Dd January 1, 2026\n' >"$t/man/x.1"
	printf '#!/usr/bin/env bash\necho run\n' >"$t/.ci/run"
	chmod 755 "$t/.ci/run"
	printf '#compdef x\n_x() { :; }\n' >"$t/completions/_x"
	printf '# x\nall:\n\ttrue\n' >"$t/Makefile"
	printf '[Service]\nExecStart=/usr/bin/x\n' >"$t/x.service"
	printf '* * * * * root true\n' >"$t/tests/bats/fixtures/crontab"
	printf '# Notes\n' >"$t/NOTES.md"
}

@test "the tree: every source file, script and man page has the licence line" {
	run "$CHECK"
	assert_success
	assert_output ""
}

@test "the check names each file without the line and where it belongs, and passes data files by" {
	local t=$BATS_TEST_TMPDIR/tree
	make_tree "$t"
	run "$CHECK" "$t"
	assert_failure
	assert_line "check-spdx: src/x.c:1: not '/* SPDX-License-Identifier: MIT */'"
	assert_line "check-spdx: man/x.1:1: not '.\\\" SPDX-License-Identifier: MIT'"
	assert_line "check-spdx: .ci/run:2: not '# SPDX-License-Identifier: MIT'"
	assert_line "check-spdx: completions/_x:2: not '# SPDX-License-Identifier: MIT'"
	assert_line "check-spdx: Makefile:1: not '# SPDX-License-Identifier: MIT'"
	assert_line "check-spdx: x.service:1: not '# SPDX-License-Identifier: MIT'"
	assert_line "check-spdx: 6 files without the licence line; 'make spdx' adds it"
	assert_equal "${#lines[@]}" 7
}

@test "--add puts the line where it belongs, keeps modes and data, and a second --add changes nothing" {
	local t=$BATS_TEST_TMPDIR/tree
	make_tree "$t"
	# A line in the wrong place is moved, not doubled.
	printf '# SPDX-License-Identifier: MIT\n' >>"$t/Makefile"
	run "$CHECK" --add "$t"
	assert_success
	assert_equal "${#lines[@]}" 6
	run "$CHECK" "$t"
	assert_success
	assert_equal "$(head -n 2 "$t/src/x.c")" $'/* SPDX-License-Identifier: MIT */\n#include "x.h"'
	assert_equal "$(head -n 2 "$t/man/x.1")" $'.\\" SPDX-License-Identifier: MIT\n.\\" x(1)'
	assert_equal "$(head -n 3 "$t/.ci/run")" $'#!/usr/bin/env bash\n# SPDX-License-Identifier: MIT\necho run'
	assert_equal "$(head -n 2 "$t/completions/_x")" $'#compdef x\n# SPDX-License-Identifier: MIT'
	assert_equal "$(grep -c SPDX "$t/Makefile")" 1
	assert_equal "$(head -n 1 "$t/Makefile")" '# SPDX-License-Identifier: MIT'
	assert_equal "$(stat -c %a "$t/.ci/run")" 755
	assert_equal "$(cat "$t/tests/bats/fixtures/crontab")" '* * * * * root true'
	assert_equal "$(cat "$t/NOTES.md")" '# Notes'
	run bash "$t/.ci/run"
	assert_output run
	local before after
	before=$(cd "$t" && find . -type f -exec md5sum {} + | sort)
	run "$CHECK" --add "$t"
	assert_success
	assert_output ""
	after=$(cd "$t" && find . -type f -exec md5sum {} + | sort)
	assert_equal "$after" "$before"
}

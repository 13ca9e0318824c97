#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# .clang-format describes the code as it is written (a case's statements
# on lines of their own, a macro's backslash one space after its line,
# the first argument beside its parenthesis), `make format-check` fails on
# a file `make format` would change and passes once it is formatted, and
# tests/format-stats.sh counts the files and lines a configuration would
# change. clang-format is Debian 12's (14).

load test_helper

STYLE=$BATS_TEST_DIRNAME/fixtures/format-style.c

# Run from `make check`, the make of a test is a sub-make that would say
# which directories it enters: it is make run by hand here.
unset MAKEFLAGS MFLAGS MAKELEVEL

# A tree the Makefile can run in: VERSION, the configuration, src/.
make_tree() {
	local t=$1
	mkdir -p "$t/src" "$t/tests/unit" "$t/tests"
	cp "$REPO/VERSION" "$REPO/.clang-format" "$t/"
	cp "$REPO/tests/format-stats.sh" "$t/tests/"
}

@test "code written in the tree's style is left as it is" {
	run clang-format --style="file:$REPO/.clang-format" --dry-run --Werror "$STYLE"
	assert_success
	assert_output ""
}

@test "make format-check names a file make format would change, and passes once it is formatted" {
	local t=$BATS_TEST_TMPDIR/tree
	make_tree "$t"
	cp "$STYLE" "$t/src/good.c"
	printf '/* SPDX-License-Identifier: MIT */\nint f(int k)\n{\n\tswitch (k) {\n\tcase 1: return 2;\n\t}\n\treturn 0;\n}\n' >"$t/tests/unit/bad.c"
	run make -s -C "$t" -f "$REPO/Makefile" format-check
	assert_failure
	assert_output --partial "tests/unit/bad.c:5:"
	assert_output --partial "code should be clang-formatted"
	refute_output --partial "good.c"
	run make -s -C "$t" -f "$REPO/Makefile" format
	assert_success
	run make -s -C "$t" -f "$REPO/Makefile" format-check
	assert_success
	assert_output ""
	run cat "$t/tests/unit/bad.c"
	assert_line -n 4 $'\tcase 1:'
	assert_line -n 5 $'\t\treturn 2;'
	cmp "$STYLE" "$t/src/good.c"
}

@test "make format-check keeps a region between clang-format off and on as written, and only that" {
	local t=$BATS_TEST_TMPDIR/tree
	make_tree "$t"
	printf '/* clang-format off */\nint  f(void);\n/* clang-format on */\nint  g(void);\n' >"$t/src/table.h"
	run make -s -C "$t" -f "$REPO/Makefile" format-check
	assert_failure
	assert_output --partial "src/table.h:4:"
	refute_output --partial "src/table.h:2:"
	run make -s -C "$t" -f "$REPO/Makefile" format
	assert_success
	run cat "$t/src/table.h"
	assert_line -n 1 'int  f(void);'
	assert_line -n 3 'int g(void);'
}

@test "format-stats counts the files and lines each configuration would change" {
	local t=$BATS_TEST_TMPDIR/tree
	make_tree "$t"
	cp "$STYLE" "$t/src/good.c"
	printf 'int  f(void);\nint g( void );\nint h(void);\n' >"$t/src/bad.h"
	printf 'BasedOnStyle: LLVM\nColumnLimit: 40\n' >"$t/narrow"
	run "$t/tests/format-stats.sh"
	assert_success
	assert_output ".clang-format: 1 of 2 files, 2 lines"
	run "$t/tests/format-stats.sh" --files "$t/.clang-format"
	assert_success
	assert_line -n 0 "     2 src/bad.h"
	assert_line -n 1 "$t/.clang-format: 1 of 2 files, 2 lines"
	cd "$t"
	run tests/format-stats.sh .clang-format narrow
	assert_success
	assert_line -n 0 ".clang-format: 1 of 2 files, 2 lines"
	assert_line -n 1 --regexp "^narrow: 2 of 2 files, [0-9]+ lines$"
	run "$t/tests/format-stats.sh" "$t/missing"
	assert_failure 2
	assert_output "format-stats: $t/missing: cannot read it"
}

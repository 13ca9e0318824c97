#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# tests/check-floors.sh on small trees of C files: a circle between
# objects (of two files, of three, two in one knot), a call or an include
# that goes up a floor, a folder the floors do not name, a flat tree given
# floors by a plan, and clean trees, flat and in folders; --report's
# numbers. Each tree is compiled here, with the compiler the build uses.

load test_helper

CHECK=$REPO/tests/check-floors.sh

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	mkdir -p src obj
}

# put FILE TEXT: writes src/FILE (folders made as needed).
put() {
	mkdir -p "$(dirname "src/$1")"
	printf '%s\n' "$2" >"src/$1"
}

# build: compiles every src/**.c into obj/**.o, as the Makefile does, with
# every folder of src in the include path.
build() {
	local c o dirs=()
	while read -r c; do
		dirs+=("-I$c")
	done < <(find src -type d)
	while read -r c; do
		o=obj/${c#src/}
		o=${o%.c}.o
		mkdir -p "$(dirname "$o")"
		"${CC:-cc}" -std=c11 -c "${dirs[@]}" -o "$o" "$c" || return 1
	done < <(find src -name '*.c')
}

@test "a flat tree without a circle passes" {
	put a.c 'int b(void); int a(void) { return b(); }'
	put b.c 'int c(void); int b(void) { return c(); }'
	put c.c 'int c(void) { return 0; }'
	build
	run "$CHECK" src obj
	assert_success
	assert_output ""
}

@test "a circle of two files is named, file by file" {
	put a.c 'int b(void); int a(void) { return b(); }'
	put b.c 'int a(void); int b(void) { return a(); }'
	put c.c 'int a(void); int c(void) { return a(); }'
	build
	run "$CHECK" src obj
	assert_failure 1
	assert_output "check-floors: circle: src/a.c -> src/b.c -> src/a.c"
}

@test "a circle of three files is named from its first file, and data counts as use" {
	put a.c 'int b(void); int a(void) { return b(); }'
	put b.c 'extern int c_count; int b(void) { return c_count; }'
	put c.c 'int a(void); int c_count; int c(void) { return a() + c_count; }'
	build
	run "$CHECK" src obj
	assert_failure 1
	assert_output "check-floors: circle: src/a.c -> src/b.c -> src/c.c -> src/a.c"
}

@test "every circle of a knot is named, not only one" {
	# a <-> b, and a -> b -> c -> a
	put a.c 'int b(void); int a(void) { return b(); }'
	put b.c 'int a(void); int c(void); int b(void) { return a() + c(); }'
	put c.c 'int a(void); int c(void) { return a(); }'
	build
	run "$CHECK" src obj
	assert_failure 1
	assert_line "check-floors: circle: src/a.c -> src/b.c -> src/a.c"
	assert_line "check-floors: circle: src/a.c -> src/b.c -> src/c.c -> src/a.c"
	assert_equal "${#lines[@]}" 2
}

@test "folders in their floors' order, and the files above them, pass" {
	put base/buf.h 'int buf_len(void);'
	put base/buf.c '#include "buf.h"
int buf_len(void) { return 0; }'
	put loop/loop.h 'int loop_run(void);'
	put loop/loop.c '#include "../base/buf.h"
#include "loop.h"
int loop_run(void) { return buf_len(); }'
	put tfd.c '#include "base/buf.h"
#include "loop/loop.h"
int main(void) { return loop_run() + buf_len(); }'
	build
	run "$CHECK" --floors 'base loop' src obj
	assert_success
	assert_output ""
}

@test "a call up a floor is named with its symbols, even without an include" {
	put base/buf.c 'int loop_run(void); extern int loop_ticks;
int buf_len(void) { return loop_run() + loop_ticks; }'
	put loop/loop.c 'int loop_ticks; int loop_run(void) { return 0; }'
	build
	run "$CHECK" --floors 'base loop' src obj
	assert_failure 1
	assert_output "check-floors: arrow up: src/base/buf.c (base) uses src/loop/loop.c (loop): loop_run, loop_ticks"
}

@test "an include up a floor is named with its line, however the header is found" {
	put base/buf.c '/* a buffer */
#include "../loop/loop.h"
#include "loop/loop.h"
#include "loop.h"
int buf_len(void) { return 0; }'
	put loop/loop.h '#define LOOP_MAX 1'
	put loop/loop.c '#include "loop.h"
int loop_run(void) { return LOOP_MAX; }'
	build
	run "$CHECK" --floors 'base loop' src obj
	assert_failure 1
	assert_line -n 0 "check-floors: include up: src/base/buf.c:2 (base) includes src/loop/loop.h (loop)"
	assert_line -n 1 "check-floors: include up: src/base/buf.c:3 (base) includes src/loop/loop.h (loop)"
	assert_line -n 2 "check-floors: include up: src/base/buf.c:4 (base) includes src/loop/loop.h (loop)"
	assert_equal "${#lines[@]}" 3
}

@test "a header that includes one above it is found too, and a file on top may include anything" {
	put base/buf.h '#include "../serve/http.h"'
	put serve/http.h 'int http_serve(void);'
	put tfd.c '#include "serve/http.h"
int main(void) { return 0; }'
	build
	run "$CHECK" --floors 'base serve' src obj
	assert_failure 1
	assert_output "check-floors: include up: src/base/buf.h:1 (base) includes src/serve/http.h (serve)"
}

@test "a folder the floors do not name is refused" {
	put base/buf.c 'int buf_len(void) { return 0; }'
	put misc/x.c 'int x(void) { return 0; }'
	build
	run "$CHECK" --floors 'base loop' src obj
	assert_failure 1
	assert_output "check-floors: src/misc/: a folder not in the floors (base loop)"
}

@test "a plan gives a flat tree's files their floors" {
	put buf.c 'int loop_run(void); int buf_len(void) { return loop_run(); }'
	put loop.c '#include "tick.h"
int loop_run(void) { return 0; }'
	put tick.h 'int tick(void);'
	put tfd.c 'int loop_run(void); int main(void) { return loop_run(); }'
	printf '# a comment\nbase: loop tick\nloop: buf\n' >plan
	build
	run "$CHECK" --floors 'base loop' --plan plan src obj
	assert_success
	printf 'base: buf\nloop: loop tick\n' >plan
	run "$CHECK" --floors 'base loop' --plan plan src obj
	assert_failure 1
	assert_output "check-floors: arrow up: src/buf.c (base) uses src/loop.c (loop): loop_run"
	printf 'base: buf\nloop: loop\nserve: tfd\n' >plan
	run "$CHECK" --floors 'base loop' --plan plan src obj
	assert_failure 2
	assert_output "check-floors: plan:3: serve is not one of the floors (base loop)"
}

@test "--report counts files, arrows, circles, arrows up, includes up and struct fields" {
	put base/buf.h 'struct buf { char *s; int len, cap; struct { int a; int b; } inner; void (*grow)(int x, int y); };
#include "../loop/loop.h"'
	put base/buf.c 'int loop_run(void); int buf_len(void) { return loop_run(); }'
	put loop/loop.h 'struct loop {
	int fd;          /* a comment; with a semicolon, and a comma */
	char *name;
#ifdef X
	int x;
#endif
};'
	put loop/loop.c 'int buf_len(void); int loop_run(void) { return buf_len(); }'
	build
	run "$CHECK" --report --floors 'base loop' --structs 'loop' src obj
	assert_success
	assert_line "floors (bottom up): base loop (then src/ itself)"
	assert_line "files: 4 (2 .c, 2 objects); by floor: base 2, loop 2"
	assert_line "arrows (file uses file): 2"
	assert_line "circles: 1 (files in a circle: 2)"
	assert_line "  src/base/buf.c -> src/loop/loop.c -> src/base/buf.c"
	assert_line "arrows up: 1"
	assert_line "  base -> loop: 1"
	assert_line "includes up: 1"
	assert_line "    5 struct buf (src/base/buf.h:1)"
	assert_line "    3 struct loop (src/loop/loop.h:1)"
	assert_line "fields of the structs named (--structs):"
	assert_equal "${lines[-1]}" "    3 struct loop (src/loop/loop.h:1)"
}

@test "without objects, without a folder or with floors named twice, the check says so and fails with 2" {
	put a.c 'int a(void) { return 0; }'
	run "$CHECK" src obj
	assert_failure 2
	assert_output "check-floors: no object in obj is built from a source in src"
	run "$CHECK" src nowhere
	assert_failure 2
	assert_output "check-floors: nowhere: no such directory (build the objects first)"
	build
	run "$CHECK" --floors 'base base' src obj
	assert_failure 2
	assert_output "check-floors: floors (base base): base named twice"
	run "$CHECK" --floors 'base top' src obj
	assert_failure 2
	assert_output "check-floors: floors (base top): top is the name of the files above every folder"
}

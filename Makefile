# SPDX-License-Identifier: MIT
# tfd — a plain Makefile. CFLAGS, CPPFLAGS and LDFLAGS are the packager's:
# they are never assigned here, only given a default, and always passed on.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
# systemd's unit directory: it reads /usr/local/lib/systemd/system too.
# Debian 12's is /lib/systemd/system (debian/rules says so).
UNITDIR    ?= $(PREFIX)/lib/systemd/system
CC         ?= cc
CLANG      ?= clang
PKG_CONFIG ?= pkg-config
INSTALL    ?= install
STRIP      ?= strip
BATS       ?= bats
CFLAGS     ?= -O2 -g
CORPUS     ?= ../shared/corpus
SHELL      := /bin/bash
# The release, in one place: VERSION (one line, e.g. 0.3.0). The build
# gives it to every object as TFD_VERSION (tfd --version, tfdctl --version);
# the man pages' .Os, debian/changelog and NEWS.md must agree with it
# (tests/check-version.sh, run by analyze).
VERSION    := $(strip $(file <VERSION))
$(if $(VERSION),,$(error VERSION: no release written in $(CURDIR)/VERSION))

POPT_CFLAGS := $(shell $(PKG_CONFIG) --cflags popt 2>/dev/null)
POPT_LIBS   := $(shell $(PKG_CONFIG) --libs popt 2>/dev/null || echo -lpopt)

# The floors (HACKING.md, "The floors"): src/'s folders from the bottom
# up, their order written here only. A folder uses only itself and the
# folders below; tfd.c and tfdctl.c, in src/ itself, are above them all.
FLOORS = base time fleet run jobs loop serve

# What the code needs to build at all; not tuning, so not in CFLAGS. Every
# floor's folder is on the include path, so an #include names a header
# alone ("buf.h"), wherever its folder.
SRC_INCLUDES = -Isrc $(FLOORS:%=-Isrc/%)
TFD_CPPFLAGS = -D_GNU_SOURCE -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64 \
	       -DTFD_VERSION='"$(VERSION)"' $(SRC_INCLUDES)
TFD_CFLAGS   = -std=c11 -Wall -Wextra
SAN_FLAGS    = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	       -fno-sanitize-recover=all

SRCS      := $(filter-out src/tfdctl.c,$(wildcard src/*.c $(FLOORS:%=src/%/*.c)))
LIB_SRCS  := $(filter-out src/tfd.c,$(SRCS))
# tfdctl: its own main and the few pure modules it shares with tfd.
CTL_SRCS  := src/tfdctl.c src/base/json.c src/base/buf.c src/base/nearest.c \
	     src/base/utf8.c src/time/jsonw.c src/time/report.c \
	     src/time/parse_time.c src/time/civil.c src/time/tz.c src/time/tzrule.c \
	     src/serve/ctlpath.c src/serve/ctlconn.c src/serve/showtext.c
HDRS      := $(wildcard src/*.h $(FLOORS:%=src/%/*.h))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
# Shared test code (the TSV reader, row checkers): every tests/unit/*.c that
# is not itself a test.
UNIT_HELP := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
UNIT_HDRS := $(wildcard tests/unit/*.h)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/unit/%)
ASAN_BINS := $(UNIT_SRCS:tests/unit/%.c=build/asan/%)

all: tfd tfdctl

# Every source is compiled once per flavour into build/<flavour>/, with the
# headers it includes recorded by -MMD in a .d file beside the object, so a
# change to one header rebuilds only what includes it; the programs link
# the objects. build/<flavour>/ has src/'s folders (build/obj/base/buf.o).
DEP_FLAGS = -MMD -MP
PROG_OBJS  = $(SRCS:src/%.c=build/obj/%.o)

tfd: $(PROG_OBJS)
	$(CC) $(CFLAGS) -o $@ $(PROG_OBJS) $(LDFLAGS) $(POPT_LIBS)

tfdctl: $(CTL_SRCS:src/%.c=build/obj/%.o)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(POPT_LIBS)

# A fully static ./tfd-static for containers (README: In containers): glibc's
# and popt's archives, unused code and data dropped, stripped. It needs no
# file of the system at run time: not the loader, no NSS, no locale.
# A static binary cannot dlopen libpq or libmicrohttpd: that build has no
# --fleet (src/pq.c) and no --listen (src/mhd.c).
STATIC_CFLAGS = -ffunction-sections -fdata-sections -DTFD_NO_FLEET -DTFD_NO_HTTP
STATIC_FLAGS  = -static $(STATIC_CFLAGS) -Wl,--gc-sections
POPT_STATIC_LIBS := $(shell $(PKG_CONFIG) --static --libs popt 2>/dev/null || echo -lpopt)
STATIC_OBJS = $(SRCS:src/%.c=build/static-obj/%.o)

build/static-obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(TFD_CPPFLAGS) $(CPPFLAGS) $(TFD_CFLAGS) $(POPT_CFLAGS) $(CFLAGS) \
		$(STATIC_CFLAGS) $(DEP_FLAGS) -c -o $@ $<

tfd-static: $(STATIC_OBJS)
	$(CC) $(CFLAGS) $(STATIC_FLAGS) -o $@ $(STATIC_OBJS) $(LDFLAGS) $(POPT_STATIC_LIBS)
	$(STRIP) $@
	@echo "tfd-static: $$(stat -c %s $@) bytes, stripped"

static: tfd-static

# The same binary under ASan+UBSan, for the bats suite in check-asan.
build/tfd-asan: $(SRCS:src/%.c=build/asan-obj/%.o)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(LDFLAGS) $(POPT_LIBS)

# Objects are kept between runs, not removed as intermediate files.
.SECONDARY:

# Every object is compiled with -DTFD_VERSION: a new VERSION rebuilds the
# ones already built (those not built yet are built anyway).
$(wildcard build/*/*.o build/*/*/*.o build/*/*/*/*.o): VERSION

# Every unit test links the library's objects (all but tfd.o) and the
# shared test code, instead of compiling them again.
LIB_OBJS  := $(LIB_SRCS:src/%.c=build/obj/%.o) $(UNIT_HELP:tests/unit/%.c=build/obj/unit-%.o)
ASAN_OBJS := $(LIB_SRCS:src/%.c=build/asan-obj/%.o) $(UNIT_HELP:tests/unit/%.c=build/asan-obj/unit-%.o)

build/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(TFD_CPPFLAGS) $(CPPFLAGS) $(TFD_CFLAGS) $(POPT_CFLAGS) $(CFLAGS) \
		$(DEP_FLAGS) -c -o $@ $<

build/obj/unit-%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(TFD_CPPFLAGS) -Itests/unit $(CPPFLAGS) $(TFD_CFLAGS) $(CFLAGS) \
		$(DEP_FLAGS) -c -o $@ $<

build/asan-obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(TFD_CPPFLAGS) $(CPPFLAGS) $(TFD_CFLAGS) $(POPT_CFLAGS) $(SAN_FLAGS) \
		$(DEP_FLAGS) -c -o $@ $<

build/asan-obj/unit-%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(TFD_CPPFLAGS) -Itests/unit $(CPPFLAGS) $(TFD_CFLAGS) $(SAN_FLAGS) \
		$(DEP_FLAGS) -c -o $@ $<

build/unit/%: build/obj/test-%.o $(LIB_OBJS)
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(POPT_LIBS)

build/asan/%: build/asan-obj/test-%.o $(ASAN_OBJS)
	@mkdir -p build/asan
	$(CC) $(SAN_FLAGS) -o $@ $^ $(LDFLAGS) $(POPT_LIBS)

# A test's own source, compiled as build/<flavour>/test-test_NAME.o.
build/obj/test-%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(TFD_CPPFLAGS) -Itests/unit $(CPPFLAGS) $(TFD_CFLAGS) $(CFLAGS) \
		$(DEP_FLAGS) -c -o $@ $<

build/asan-obj/test-%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(TFD_CPPFLAGS) -Itests/unit $(CPPFLAGS) $(TFD_CFLAGS) $(SAN_FLAGS) \
		$(DEP_FLAGS) -c -o $@ $<

# The fleet's database client in a poll loop of its own, for
# tests/bats/76-fleet-client.bats.
build/fleet_drive: tests/fleet/fleet_drive.c $(LIB_OBJS) $(HDRS)
	@mkdir -p build
	$(CC) $(TFD_CPPFLAGS) $(CPPFLAGS) $(TFD_CFLAGS) $(CFLAGS) \
		-o $@ $< $(LIB_OBJS) $(LDFLAGS) $(POPT_LIBS)

# A TCP proxy that delays every byte (a slow link), for the same file.
build/delay_proxy: tests/fleet/delay_proxy.c
	@mkdir -p build
	$(CC) $(TFD_CPPFLAGS) $(CPPFLAGS) $(TFD_CFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

# Unit tests take the corpus folder (skipped when absent, as in a user's
# clone) and the project's own vectors.
unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do $$t $(CORPUS) tests/vectors; done

unit-asan: $(ASAN_BINS)
	@set -e; for t in $(ASAN_BINS); do $$t $(CORPUS) tests/vectors; done

bats: tfd tfdctl
	TFD=$(CURDIR)/tfd $(BATS) tests/bats

# The bats files make check runs against tfd built with ASan+UBSan, in two
# streams, instead of the normal build (each file runs once: the suite
# must fit 15 minutes on two cores): those whose paths parse, copy and
# free the most: output, bad input, the control socket and HTTP under
# abuse, the fleet's client. The other files run the same modules against
# the normal build; those modules are under ASan in the unit tests
# (unit-asan) and the fuzzers too. make bats runs every file against the
# normal build, make bats-asan these against ASan's.
ASAN_STREAM_a     = 20-output 45-bad-input 75-fleet
ASAN_STREAM_b     = 62-control 63-http 64-control-abuse
ASAN_STREAMS = a b
ASAN_BATS = $(foreach s,$(ASAN_STREAMS),$(ASAN_STREAM_$(s):%=tests/bats/%.bats))
bats-asan: build/tfd-asan
	TFD=$(CURDIR)/build/tfd-asan $(BATS) $(ASAN_BATS)

# A representative subset under valgrind: the output's paths (bad input's
# error paths run under ASan, whose leak check is valgrind's too).
VALGRIND_BATS = tests/bats/20-output.bats
build/tfd-valgrind: tfd
	@mkdir -p build
	printf '#!/bin/sh\nexec valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite "%s/tfd" "$$@"\n' \
		'$(CURDIR)' > $@
	chmod +x $@

bats-valgrind: build/tfd-valgrind
	TFD=$(CURDIR)/build/tfd-valgrind $(BATS) $(VALGRIND_BATS)

MAN_PAGES = man/tfd.1 man/tfdctl.1 man/tfd-jobs.5 man/tfd-fleet.7 man/tfd-cron.8

SHELL_FILES = .ci/run .ci/install-deps completions/tfd.bash completions/tfdctl.bash \
	      $(wildcard tests/bats/*.bash) \
	      $(wildcard bench/*.sh bench/*.bash tests/fuzz/*.sh tests/vectors/*.sh tests/*.sh) \
	      debian/tests/smoke

# Checks analyze runs besides its own: the floors and the style (below).
analyze: floors-check format-check
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--std=c11 -D_GNU_SOURCE $(SRC_INCLUDES) --suppress=missingIncludeSystem \
		--inline-suppr src tests/unit
	shellcheck -x $(SHELL_FILES)
	shellcheck -s bash -S warning $(wildcard tests/bats/*.bats)
	mandoc -Tlint -Wwarning $(MAN_PAGES)
	tests/check-version.sh
	tests/check-spdx.sh
	zsh -n completions/_tfd completions/_tfdctl
	fish -n completions/tfd.fish completions/tfdctl.fish

# The licence line at the head of every source file, script and man page
# that lacks it (tests/check-spdx.sh; analyze checks it): run after adding
# files. It changes nothing in a file that has it.
spdx:
	tests/check-spdx.sh --add

# The project's style (.clang-format, for Debian 12's clang-format 14)
# applied in place to src/ and tests/unit/ (their folders too); only when
# asked: neither the build nor check runs it. format-check (in analyze)
# changes nothing and fails on any file format would change; a hand-laid
# table stays as written between /* clang-format off */ and
# /* clang-format on */. tests/format-stats.sh counts the files and lines
# format would change.
CLANG_FORMAT ?= clang-format
FORMAT_FILES  = $(wildcard src/*.[ch] src/*/*.[ch] tests/unit/*.[ch] tests/unit/*/*.[ch])
format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES)

# The floors (FLOORS above; HACKING.md, "The floors"): floors-check fails
# on a circle between objects, a call or an include that goes up a floor,
# and a folder of src/ that FLOORS does not name (tests/check-floors.sh).
# floors-report prints the module graph's numbers for BENCHMARKS.md:
# circles, arrows up, the biggest structs; FLOORS_PLAN gives a flat src/'s
# files (a commit before the folders, bench/floors.sh's base) the floors
# of the folders they went to.
FLOORS_PLAN    = bench/floors-plan
FLOORS_STRUCTS = fleet loop control_client
FLOORS_OBJS    = $(PROG_OBJS) build/obj/tfdctl.o

# src/ itself holds the two mains only: a module there (one added before the
# folders, merged) would be above every floor, and checked against none.
FLOORS_TOP     = src/tfd.c src/tfdctl.c

floors-check: $(FLOORS_OBJS)
	@stray='$(filter-out $(FLOORS_TOP),$(wildcard src/*.[ch]))'; \
	[ -z "$$stray" ] || { echo "floors-check: $$stray: in src/ itself, not in a folder of FLOORS ($(FLOORS))"; exit 1; }
	tests/check-floors.sh --floors '$(FLOORS)' src build/obj

floors-report: $(FLOORS_OBJS)
	@tests/check-floors.sh --report --floors '$(FLOORS)' --plan '$(FLOORS_PLAN)' \
		--structs '$(FLOORS_STRUCTS)' src build/obj

# libFuzzer harnesses, seeded from the corpora and the project's vectors;
# found crashers are kept in tests/fuzz/regressions/NAME and replayed.
FUZZ_SECONDS ?= 10
FUZZERS      = duration timestamp calendar cron jobsfile json listen secrets
FUZZ_FLAGS   = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
fuzz_seed_duration  = 1 $(CORPUS)/durations.tsv tests/vectors/durations.tsv
fuzz_seed_timestamp = 3 $(CORPUS)/timestamps.tsv tests/vectors/timestamps.tsv
fuzz_seed_calendar  = 3 $(CORPUS)/calendar.tsv tests/vectors/calendar.tsv
fuzz_seed_cron      = 3 $(CORPUS)/cron.tsv tests/vectors/cron.tsv
fuzz_seed_jobsfile  = 1 tests/fuzz/jobsfile.tsv
fuzz_seed_json      = 1 tests/fuzz/json.tsv
fuzz_seed_listen    = 1 tests/fuzz/listen.tsv
# Long lines reach the JSON writers with names of many KiB.
fuzz_opts_jobsfile  = -dict=tests/fuzz/jobsfile.dict -max_len=65536
fuzz_seed_secrets   = 1 tests/fuzz/secrets.tsv

FUZZ_OBJS = $(LIB_SRCS:src/%.c=build/fuzz/obj/%.o)

build/fuzz/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CLANG) $(TFD_CPPFLAGS) $(TFD_CFLAGS) $(FUZZ_FLAGS) $(DEP_FLAGS) -c -o $@ $<

build/fuzz/obj/fuzz_%.o: tests/fuzz/fuzz_%.c
	@mkdir -p $(@D)
	$(CLANG) $(TFD_CPPFLAGS) $(TFD_CFLAGS) $(FUZZ_FLAGS) $(DEP_FLAGS) -c -o $@ $<

build/fuzz/fuzz_%: build/fuzz/obj/fuzz_%.o $(FUZZ_OBJS)
	$(CLANG) $(FUZZ_FLAGS) -o $@ $^ $(POPT_LIBS)

fuzz-%: build/fuzz/fuzz_%
	rm -rf build/fuzz/corpus-$*
	mkdir -p tests/fuzz/regressions/$*
	tests/fuzz/seed.sh build/fuzz/corpus-$* $(fuzz_seed_$*)
	@$< -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=build/fuzz/crash-$*- $(fuzz_opts_$*) \
		build/fuzz/corpus-$* tests/fuzz/regressions/$* >build/fuzz/log-$* 2>&1; \
	status=$$?; \
	[ $$status -eq 0 ] || tail -n 40 build/fuzz/log-$*; \
	echo "fuzz-$*: $$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/log-$*) executions in $(FUZZ_SECONDS) s, status $$status"; \
	exit $$status

# Two at a time: the machines have two cores.
fuzz:
	$(MAKE) -j2 $(FUZZERS:%=fuzz-%)

# make check: compiling goes as many at a time as the caller's -j says
# (make -j2 check); then the unit tests and the analyzers side by side;
# then the bats files in streams side by side, each stream file after
# file, each file once. The suite must fit 15 minutes on two cores with
# the fresh container's install (README), and it is CPU that bounds it,
# not the tests' waits (BENCHMARKS.md, "The suite's time"): streams of
# about 3 minutes each keep both cores busy, and a test's tolerances are
# for a busy machine, which the streams make of each other. The host-cron
# files make and remove users: they share one stream (useradd's lock).
#
# 60-clock sets the realtime clock, which would move the other streams'
# realtime schedules: it runs alone, after them, and only where CI or
# TFD_CLOCK_TESTS=1 is set (.ci/run sets it); elsewhere its tests are
# skipped, saying why.
CLOCK_BATS = tests/bats/60-clock.bats
STREAM_core   = 10-schedule 25-precise 30-command 37-notify 40-signals 41-on-stop \
		42-log 47-hardening 50-runner
STREAM_jobs   = 36-hooks 55-jobs 56-reload 57-retry-output-metrics 58-storms 65-calendar \
		70-cgroup-join
STREAM_fleet1 = 75-fleet 76-fleet-client 78-fleet-control 79-fleet-readme
STREAM_fleet2 = 77-fleet
STREAM_fleet3 = 76-fleet-on-stop 78-fleet-safety 78-fleet-scale
STREAM_host   = 59-host-cron 59-host-cron-files 59-host-cron-lenient 61-mail \
		62-host-runs 93-host-safety
NAMED_STREAMS = core jobs fleet1 fleet2 fleet3 host
# The rest: completion, install, package and the tree's own checks; a new
# file lands here until a stream names it. A file an ASan stream runs is
# not run against the normal build too (75-fleet is named above: the ASan
# build skips one of its tests).
STREAM_system = $(filter-out $(foreach s,$(NAMED_STREAMS),$(STREAM_$(s))) \
		$(foreach s,$(ASAN_STREAMS),$(ASAN_STREAM_$(s))) \
		$(CLOCK_BATS:tests/bats/%.bats=%),$(patsubst tests/bats/%.bats,%,$(wildcard tests/bats/*.bats)))
STREAMS = $(NAMED_STREAMS) system

BATS_NEEDS = tfd tfdctl build/tfd-asan build/fleet_drive build/delay_proxy
define stream_rules
bats-stream-$(1): $$(BATS_NEEDS)
	TFD=$$(CURDIR)/tfd $$(BATS) $$(STREAM_$(1):%=tests/bats/%.bats)
endef
define asan_stream_rules
bats-asan-stream-$(1): $$(BATS_NEEDS)
	TFD=$$(CURDIR)/build/tfd-asan $$(BATS) $$(ASAN_STREAM_$(1):%=tests/bats/%.bats)
endef
$(foreach s,$(STREAMS),$(eval $(call stream_rules,$(s))))
$(foreach s,$(ASAN_STREAMS),$(eval $(call asan_stream_rules,$(s))))

bats-clock: tfd build/tfd-asan
	TFD=$(CURDIR)/tfd $(BATS) $(CLOCK_BATS)
	TFD=$(CURDIR)/build/tfd-asan $(BATS) $(CLOCK_BATS)

# The other architectures' tests (under qemu) keep a core busy for about
# a minute: they run beside the streams. valgrind's subset runs after
# them, with the clock tests: its timing tests need the cores it slows.
check:
	$(MAKE) tfd tfdctl tfd-static build/tfd-asan $(UNIT_BINS) $(ASAN_BINS) build/tfd-valgrind \
		build/fleet_drive build/delay_proxy build-aarch64 build-i686 \
		build/aarch64/tfd-qemu build/qemu-run $(FUZZERS:%=build/fuzz/fuzz_%)
	$(MAKE) -j3 --output-sync=target unit unit-asan analyze
	$(MAKE) -j$(words $(STREAMS) $(ASAN_STREAMS) cross fuzz) --output-sync=target \
		$(STREAMS:%=bats-stream-%) $(ASAN_STREAMS:%=bats-asan-stream-%) check-cross \
		fuzz-beside
	$(MAKE) -j1 bats-clock bats-valgrind

# The fuzzers beside the streams, at the lowest priority: each runs for
# FUZZ_SECONDS of the clock, on what CPU the tests leave (make fuzz alone
# gives them both cores; each prints how many inputs it ran).
fuzz-beside:
	nice -n 19 $(MAKE) fuzz

# Other architectures, with Debian's cross compilers (.ci/install-deps):
# aarch64, whose unit tests and a bats subset run under qemu-user, and
# i686 with 64-bit time (-D_TIME_BITS=64 above), whose unit tests run
# natively on an x86_64 kernel. qemu-user runs the binary through the
# target's own ld.so and libc from the multiarch directories; its -L with
# the cross sysroot would pair that sysroot's ld.so with the multiarch libc
# (two builds of glibc), under which fork() in a child never returns.
CC_AARCH64   ?= aarch64-linux-gnu-gcc
CC_I686      ?= i686-linux-gnu-gcc
QEMU_AARCH64 ?= qemu-aarch64
AARCH64_BATS  = tests/bats/20-output.bats
CROSS_ARCHES  = aarch64 i686
# The unit tests of what a word's size, time_t's, byte order or alignment
# could change: time and its text, buffers, hashes, heaps, JSON, the jobs
# file, saved state and the fleet's parameters, its instants and
# fingerprints as text (its wins, pauses and replica's statements).
CROSS_UNITS   = buf calendar cron fleet_answer fleet_params fleet_pause fleet_replica \
		fleet_wins hash heap jobsfile json \
		metrics parse_time persist report schedule tick timens tz utf8 writenow
CROSS_UNIT_SRCS = $(CROSS_UNITS:%=tests/unit/test_%.c)
cross_cc_aarch64 = $(CC_AARCH64)
cross_cc_i686    = $(CC_I686)

define cross_rules
build/$(1)/tfd: $$(SRCS:src/%.c=build/$(1)/obj/%.o)
	$$(cross_cc_$(1)) $$(CFLAGS) -o $$@ $$^ $$(LDFLAGS) -lpopt

build/$(1)/obj/%.o: src/%.c
	@mkdir -p $$(@D)
	$$(cross_cc_$(1)) $$(TFD_CPPFLAGS) $$(CPPFLAGS) $$(TFD_CFLAGS) $$(CFLAGS) \
		$$(DEP_FLAGS) -c -o $$@ $$<

build/$(1)/obj/unit-%.o: tests/unit/%.c
	@mkdir -p $$(@D)
	$$(cross_cc_$(1)) $$(TFD_CPPFLAGS) -Itests/unit $$(CPPFLAGS) $$(TFD_CFLAGS) $$(CFLAGS) \
		$$(DEP_FLAGS) -c -o $$@ $$<

build/$(1)/obj/test-%.o: tests/unit/%.c
	@mkdir -p $$(@D)
	$$(cross_cc_$(1)) $$(TFD_CPPFLAGS) -Itests/unit $$(CPPFLAGS) $$(TFD_CFLAGS) $$(CFLAGS) \
		$$(DEP_FLAGS) -c -o $$@ $$<

build/$(1)/unit/%: build/$(1)/obj/test-%.o $$(LIB_OBJS:build/obj/%=build/$(1)/obj/%)
	@mkdir -p build/$(1)/unit
	$$(cross_cc_$(1)) $$(CFLAGS) -o $$@ $$^ $$(LDFLAGS) -lpopt

build-$(1): build/$(1)/tfd $$(CROSS_UNIT_SRCS:tests/unit/%.c=build/$(1)/unit/%)
endef
$(foreach arch,$(CROSS_ARCHES),$(eval $(call cross_rules,$(arch))))

# Guest programs start through tests/cross/qemu-run (built for this
# machine), which gives qemu the signal dispositions a real machine's tfd
# would give its runs; bats runs $TFD as a program, so a wrapper does it.
QEMU_RUN = $(CURDIR)/build/qemu-run $(QEMU_AARCH64)

build/qemu-run: tests/cross/qemu-run.c
	@mkdir -p build
	$(CC) $(TFD_CFLAGS) $(CFLAGS) -o $@ $<

build/aarch64/tfd-qemu: build/aarch64/tfd build/qemu-run
	printf '#!/bin/sh\nexec %s "%s/build/aarch64/tfd" "$$@"\n' '$(QEMU_RUN)' '$(CURDIR)' > $@
	chmod +x $@

check-aarch64: build-aarch64 build/aarch64/tfd-qemu
	@set -e; for t in $(CROSS_UNIT_SRCS:tests/unit/%.c=build/aarch64/unit/%); do \
		$(QEMU_RUN) $$t $(CORPUS) tests/vectors; done
	TFD=$(CURDIR)/build/aarch64/tfd-qemu $(BATS) $(AARCH64_BATS)

# A kernel built or booted without 32-bit support (ia32_emulation=0)
# refuses i686 programs with ENOEXEC: they then run under qemu-user, as
# aarch64's do.
QEMU_I386 ?= qemu-i386
check-i686: build-i686 build/qemu-run
	@set -e; run=; \
	if ! build/i686/tfd --version >/dev/null 2>&1; then \
		run='$(CURDIR)/build/qemu-run $(QEMU_I386)'; \
		echo "check-i686: this kernel runs no 32-bit program; under $(QEMU_I386)"; \
	fi; \
	for t in $(CROSS_UNIT_SRCS:tests/unit/%.c=build/i686/unit/%); do \
		$$run $$t $(CORPUS) tests/vectors; done

check-cross: check-aarch64 check-i686

clean:
	rm -rf tfd tfdctl tfd-static build bench/build

# The headers each object was compiled against (-MMD above).
-include $(wildcard build/*/*.d build/*/*/*.d build/*/*/*/*.d)

.PHONY: all static unit unit-asan bats bats-asan bats-valgrind analyze spdx format fuzz check clean \
	format-check floors-check floors-report \
	bats-clock fuzz-beside $(STREAMS:%=bats-stream-%) $(ASAN_STREAMS:%=bats-asan-stream-%) \
	build-aarch64 build-i686 check-aarch64 check-i686 check-cross

# Installation: the binary, the man pages, the three shells' completions
# and the systemd units (contrib/systemd; none enabled). The Debian package
# is this install with PREFIX=/usr (debian/rules).
UNITS     = tfd-cron.service tfd@.service
INSTALLED = $(DESTDIR)$(BINDIR)/tfd \
	    $(DESTDIR)$(BINDIR)/tfdctl \
	    $(DESTDIR)$(MANDIR)/man1/tfd.1 \
	    $(DESTDIR)$(MANDIR)/man1/tfdctl.1 \
	    $(DESTDIR)$(MANDIR)/man5/tfd-jobs.5 \
	    $(DESTDIR)$(MANDIR)/man7/tfd-fleet.7 \
	    $(DESTDIR)$(MANDIR)/man8/tfd-cron.8 \
	    $(DESTDIR)$(DATADIR)/bash-completion/completions/tfd \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions/_tfd \
	    $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/tfd.fish \
	    $(DESTDIR)$(DATADIR)/bash-completion/completions/tfdctl \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions/_tfdctl \
	    $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/tfdctl.fish \
	    $(UNITS:%=$(DESTDIR)$(UNITDIR)/%)

install: tfd tfdctl
	$(INSTALL) -D -m 755 tfd $(DESTDIR)$(BINDIR)/tfd
	$(INSTALL) -D -m 755 tfdctl $(DESTDIR)$(BINDIR)/tfdctl
	$(INSTALL) -D -m 644 man/tfd.1 $(DESTDIR)$(MANDIR)/man1/tfd.1
	$(INSTALL) -D -m 644 man/tfdctl.1 $(DESTDIR)$(MANDIR)/man1/tfdctl.1
	$(INSTALL) -D -m 644 man/tfd-jobs.5 $(DESTDIR)$(MANDIR)/man5/tfd-jobs.5
	$(INSTALL) -D -m 644 man/tfd-fleet.7 $(DESTDIR)$(MANDIR)/man7/tfd-fleet.7
	$(INSTALL) -D -m 644 man/tfd-cron.8 $(DESTDIR)$(MANDIR)/man8/tfd-cron.8
	$(INSTALL) -D -m 644 completions/tfd.bash \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/tfd
	$(INSTALL) -D -m 644 completions/_tfd \
		$(DESTDIR)$(DATADIR)/zsh/site-functions/_tfd
	$(INSTALL) -D -m 644 completions/tfd.fish \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/tfd.fish
	$(INSTALL) -D -m 644 completions/tfdctl.bash \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/tfdctl
	$(INSTALL) -D -m 644 completions/_tfdctl \
		$(DESTDIR)$(DATADIR)/zsh/site-functions/_tfdctl
	$(INSTALL) -D -m 644 completions/tfdctl.fish \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/tfdctl.fish
	$(INSTALL) -d $(DESTDIR)$(UNITDIR)
	@# The units name /usr/bin/tfd: the installed binary's path instead.
	set -e; for u in $(UNITS); do \
		sed 's|^ExecStart=/usr/bin/tfd |ExecStart=$(BINDIR)/tfd |' \
			contrib/systemd/$$u >'$(DESTDIR)$(UNITDIR)/'$$u; \
		chmod 644 '$(DESTDIR)$(UNITDIR)/'$$u; \
	done

uninstall:
	rm -f $(INSTALLED)

.PHONY: install uninstall

# The Debian package, built from a copy of the tree in DEB_DIR (so
# dpkg-buildpackage's ../*.deb and friends land in build/deb/, not beside
# the checkout), then checked by lintian: no error, and the warnings are the
# ones README.md ("Packages") lists. Needs what debian/control's
# Build-Depends lists, and lintian (README.md: `apt-get build-dep ./`).
# The copy is what git tracks and would track (as a clone has it), or the
# whole tree less build/ and the binaries outside a git checkout.
DEB_DIR     ?= build/deb
DEB_VERSION  = $(shell dpkg-parsechangelog -S Version 2>/dev/null)
DEB_ARCH     = $(shell dpkg --print-architecture 2>/dev/null)
DEB          = $(DEB_DIR)/tfd_$(DEB_VERSION)_$(DEB_ARCH).deb
LINTIAN     ?= lintian

deb:
	rm -rf '$(DEB_DIR)'
	mkdir -p '$(DEB_DIR)/tfd-$(VERSION)'
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 -I{} sh -c 'test ! -e "$$1" || printf "%s\0" "$$1"' _ {} | \
			tar -c --null -T - -f - | tar -x -C '$(DEB_DIR)/tfd-$(VERSION)'; \
	else \
		tar -c --exclude=./build --exclude=./tfd --exclude=./tfd-static -f - . | \
			tar -x -C '$(DEB_DIR)/tfd-$(VERSION)'; \
	fi
	@# The package's flags are dpkg-buildflags' (hardening), not the caller's
	@# CFLAGS, nor this make's options (-j, -o, a jobserver).
	cd '$(DEB_DIR)/tfd-$(VERSION)' && env -u CFLAGS -u CPPFLAGS -u LDFLAGS \
		-u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -us -uc -b
	@test -f '$(DEB)' || { echo "deb: dpkg-buildpackage made no $(DEB)"; exit 1; }
	$(LINTIAN) --fail-on error '$(DEB)'
	@echo "deb: $(DEB)"

.PHONY: deb

# Benchmarks against the floor (see BENCHMARKS.md); not part of check.
bench: tfd tfd-static
	CC='$(CC)' TFD=./tfd TFD_STATIC=./tfd-static bash bench/run.sh

# Against Debian's cron and snooze (about 14 minutes; starts cron -f, so no
# other cron daemon may be running): a table of its own.
bench-peers: tfd
	CC='$(CC)' TFD=./tfd RESULTS=bench/results-peers.md bash bench/run.sh peers

# The fleet against a PostgreSQL 15 of its own (about 14 minutes; root):
# a table of its own.
bench-fleet: tfd
	CC='$(CC)' TFD=./tfd RESULTS=bench/results-fleet.md bash bench/run.sh fleet

# The same cron.d files under Debian's cron and tfd-cron.service's tfd, run
# by run, with a restart of each in the middle (about 5 minutes; root; a
# user made and removed; both in a mount namespace of their own, so the
# host's cron, if one runs, is left alone).
bench-cron: tfd tfdctl
	TFD=./tfd TFDCTL=./tfdctl RESULTS=bench/results-cron.md bash bench/cron-compare.sh

# --listen's /metrics against node_exporter's textfile collector, with
# 10,000 jobs (about 30 s; ports 19190 and 19191 on 127.0.0.1).
bench-http: tfd
	TFD=./tfd bash bench/http.sh

# How long make -j2 check takes, quiet and beside two busy loops (about
# twice the suite's time; HACKING.md, "Benchmarks").
bench-suite:
	bash bench/suite-time.sh

.PHONY: bench bench-peers bench-fleet bench-http bench-cron bench-suite

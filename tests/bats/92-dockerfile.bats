#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# The container recipes, checked without a container runtime (none runs
# here): contrib/Dockerfile (the static binary FROM scratch) and
# contrib/Dockerfile.debian (the dynamic one on debian:bookworm-slim, with
# --listen and --fleet). In each, every instruction is one Docker knows,
# the first is FROM (or ARG), each COPY/ADD source is in the build context
# (the top of the repository) or in a stage named before, exec-form lines
# are JSON arrays; the build stage's make works from exactly the files it
# copies and makes what the image copies from it, of the release VERSION
# names; and every stage's packages resolve on Debian 12 (apt-get install
# --simulate), as do those of the Dockerfile in tfd-jobs(5)'s EXAMPLES.
# The images that run tfd install the package of every library it links
# or loads.

load test_helper

STATIC_RECIPE=$REPO/contrib/Dockerfile
DEBIAN_RECIPE=$REPO/contrib/Dockerfile.debian

# Prints the instructions of Dockerfile $1, one a line: comments and blank
# lines dropped, lines ending in a backslash joined with the next.
instructions() {
	local line joined=
	while IFS= read -r line || [[ -n $line ]]; do
		[[ -z $joined && ( $line =~ ^[[:space:]]*# || $line =~ ^[[:space:]]*$ ) ]] && continue
		if [[ $line == *\\ ]]; then
			joined+="${line%\\} "
			continue
		fi
		printf '%s\n' "$joined$line"
		joined=
	done <"$1"
	[[ -z $joined ]] || printf '%s\n' "$joined"
}

# check_dockerfile FILE CONTEXT: prints one line per fault and fails if
# there is any.
check_dockerfile() {
	local file=$1 context=$2 line word rest src faults=0 n=0
	local -A stages=()
	local known=" FROM RUN CMD LABEL MAINTAINER EXPOSE ENV ADD COPY ENTRYPOINT VOLUME USER WORKDIR ARG ONBUILD STOPSIGNAL HEALTHCHECK SHELL "
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		word=${line%%[[:space:]]*}
		word=${word^^}
		rest=${line#*[[:space:]]}
		n=$((n + 1))
		if [[ $known != *" $word "* ]]; then
			echo "unknown instruction '$word' in: $line"
			faults=$((faults + 1))
			continue
		fi
		if ((n == 1)) && [[ $word != FROM && $word != ARG ]]; then
			echo "the first instruction is $word, not FROM"
			faults=$((faults + 1))
		fi
		case $word in
		FROM)
			if [[ $rest =~ [[:space:]][Aa][Ss][[:space:]]+([^[:space:]]+) ]]; then
				stages[${BASH_REMATCH[1]}]=1
			fi
			;;
		COPY | ADD)
			read -ra src <<<"$rest"
			if [[ ${src[0]} == --from=* ]]; then
				[[ -n ${stages[${src[0]#--from=}]-} ]] || {
					echo "COPY from a stage not named before: ${src[0]}"
					faults=$((faults + 1))
				}
				continue
			fi
			while [[ ${src[0]} == --* ]]; do src=("${src[@]:1}"); done
			for s in "${src[@]:0:${#src[@]}-1}"; do
				[[ -e $context/$s ]] || {
					echo "$word source '$s' is not in the build context"
					faults=$((faults + 1))
				}
			done
			;;
		CMD | ENTRYPOINT | RUN | SHELL)
			if [[ $rest == \[* ]] && ! jq -e 'type == "array" and all(type == "string")' \
				<<<"$rest" >/dev/null 2>&1; then
				echo "$word is not a JSON array of strings: $rest"
				faults=$((faults + 1))
			fi
			;;
		esac
	done < <(instructions "$file")
	((n > 0)) || { echo "no instructions"; faults=1; }
	((faults == 0))
}

# Prints the instructions of stage $2 (0 for the first FROM) of Dockerfile
# $1.
stage() {
	instructions "$1" | awk -v want="$2" 'toupper($1) == "FROM" { n++ } n - 1 == want'
}

# Prints the packages that the instructions on stdin install with apt-get,
# one a line: the words after "install" that are not options, up to the
# end of that command.
apt_packages() {
	local line word in_install after_apt
	while IFS= read -r line; do
		in_install='' after_apt=''
		for word in $line; do
			case $word in
			install) [[ -n ${after_apt-} ]] && in_install=1 ;;
			apt-get) after_apt=1 ;;
			'&&' | ';' | '||' | '|') in_install='' after_apt='' ;;
			-*) ;;
			*) [[ -z $in_install ]] || printf '%s\n' "$word" ;;
			esac
		done
	done
}

# The Dockerfile of tfd-jobs(5)'s EXAMPLES, as a file: the literal block
# that holds a FROM line, its roff escapes undone.
man_dockerfile() {
	awk '/^\.Bd -literal/ { block = ""; inb = 1; next }
		/^\.Ed/ { if (inb && block ~ /(^|\n)FROM /) { printf "%s", block; exit } inb = 0; next }
		inb { block = block $0 "\n" }' "$REPO/man/tfd-jobs.5" | sed 's/\\e/\\/g'
}

# Skips unless apt-get can resolve Debian 12's packages here: the images
# are debian:bookworm-slim, and apt resolves against this machine's lists.
require_bookworm_apt() {
	require_command apt-get
	[[ $(. /etc/os-release && echo "${VERSION_CODENAME-}") == bookworm ]] ||
		skip "this machine is not Debian 12 (bookworm), the images' base"
	[[ -n $(apt-cache policy libpopt0 | sed -n 's/^ *Candidate: *//p' | grep -v '(none)') ]] ||
		skip "no package lists here (apt-get update has not run)"
}

# build_stage RECIPE DIR: copies into DIR what the build stage (the first)
# of RECIPE copies from the context, and runs its RUN lines there but for
# those that call apt-get (this machine has what .ci/install-deps gives).
# It compiles without optimizing: what it checks is that the copied files
# are enough, and the suite's two cores have the rest of it to run.
# Prints the sources the last stage copies from the build stage, as paths
# under DIR (the build stage's WORKDIR is DIR).
build_stage() {
	local recipe=$1 ctx=$2 line s workdir=/
	local -a words
	while IFS= read -r line; do
		read -ra words <<<"$line"
		case ${words[0]^^} in
		COPY)
			for s in "${words[@]:1:${#words[@]}-2}"; do
				mkdir -p "$(dirname "$ctx/$s")"
				cp -r "$REPO/$s" "$ctx/$s"
			done
			;;
		WORKDIR) workdir=${words[1]} ;;
		RUN)
			[[ $line == *apt-get* ]] && continue
			(cd "$ctx" && CFLAGS=-O0 bash -ec "${line#* }") >&2 || return 1
			;;
		esac
	done < <(stage "$recipe" 0)
	while IFS= read -r line; do
		read -ra words <<<"$line"
		[[ ${words[0]^^} == COPY && ${words[1]} == --from=* ]] || continue
		for s in "${words[@]:2:${#words[@]}-3}"; do
			printf '%s\n' "$ctx/${s#"$workdir"/}"
		done
	done < <(instructions "$recipe")
}

# The package of each library path on stdin, one a line, glibc's (every
# image has it) left out.
packages_of() {
	local lib
	while IFS= read -r lib; do
		dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib"
	done | sed 's/:.*//' | grep -vx 'libc6' | sort -u
}

# The packages of the libraries ELF file $1 links, one a line.
linked_packages() {
	ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | packages_of
}

# The packages of the libraries tfd loads on demand (src/*/*.c's
# *_LIBRARY), one a line.
loaded_packages() {
	local lib
	sed -n 's/^#define [A-Z]*_LIBRARY "\(lib.*\)"$/\1/p' "$REPO"/src/*.c "$REPO"/src/*/*.c |
		while IFS= read -r lib; do
			ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }'
		done | packages_of
}

@test "Dockerfiles: every instruction is valid and every COPY source exists" {
	require_command jq
	local recipe
	for recipe in "$STATIC_RECIPE" "$DEBIAN_RECIPE"; do
		run check_dockerfile "$recipe" "$REPO"
		assert_success
		assert_output ""
	done
}

@test "Dockerfile: the check finds faults (a misspelt instruction, a missing source, an unknown stage, bad JSON)" {
	require_command jq
	printf '%s\n' 'FROM debian AS build' 'RUN true \' '  && true' 'COPPY x y' \
		'COPY no-such-file /x' 'COPY --from=nowhere /a /b' 'CMD ["a", 1]' \
		>"$BATS_TEST_TMPDIR/Dockerfile"
	run check_dockerfile "$BATS_TEST_TMPDIR/Dockerfile" "$REPO"
	assert_failure
	assert_line --partial "unknown instruction 'COPPY'"
	assert_line --partial "'no-such-file' is not in the build context"
	assert_line --partial "stage not named before: --from=nowhere"
	assert_line --partial "CMD is not a JSON array"
	assert_equal "${#lines[@]}" 4
}

@test "Dockerfile: the build stage's make static works from the files it copies" {
	local ctx=$BATS_TEST_TMPDIR/src copied
	mkdir "$ctx"
	copied=$(build_stage "$STATIC_RECIPE" "$ctx") || fail "the build stage failed"
	assert_equal "$copied" "$ctx/tfd-static"
	run "$ctx/tfd-static" -d 0 -n 1 -f ok
	assert_success
	assert_output ok
	# The image is the release the tree says (VERSION, copied with it).
	run "$ctx/tfd-static" --version
	assert_output "tfd $(<"$REPO/VERSION")"
}

@test "Dockerfile.debian: the build stage makes tfd and tfdctl from the files it copies; --listen and --fleet are there" {
	local ctx=$BATS_TEST_TMPDIR/src copied
	mkdir "$ctx"
	copied=$(build_stage "$DEBIAN_RECIPE" "$ctx") || fail "the build stage failed"
	assert_equal "$copied" "$ctx/tfd"$'\n'"$ctx/tfdctl"
	run "$ctx/tfd" --version
	assert_output "tfd $(<"$REPO/VERSION")"
	run "$ctx/tfdctl" --version
	assert_success
	# Not the static build's refusals: these options are built in.
	run "$ctx/tfd" --help
	assert_output --partial -- "--listen"
	assert_output --partial -- "--fleet"
	run "$ctx/tfd" --fleet-sql
	assert_success
	assert_output --partial "CREATE TABLE"
	# What the image runs: the default command's jobs directory and port.
	run jq -r 'join(" ")' <<<"$(stage "$DEBIAN_RECIPE" 1 | sed -n 's/^CMD //p')"
	assert_output "--jobs /etc/tfd --listen :9184 --json"
}

@test "Dockerfiles: every stage's packages, and those of tfd-jobs(5)'s example, resolve on Debian 12" {
	require_bookworm_apt
	man_dockerfile >"$BATS_TEST_TMPDIR/man.Dockerfile"
	[[ -s $BATS_TEST_TMPDIR/man.Dockerfile ]] || fail "tfd-jobs(5) has no Dockerfile example"
	local recipe n from
	local -a pkgs
	for recipe in "$STATIC_RECIPE" "$DEBIAN_RECIPE" "$BATS_TEST_TMPDIR/man.Dockerfile"; do
		for n in 0 1; do
			from=$(stage "$recipe" "$n" | sed -n '1s/^FROM //p')
			[[ -n $from ]] || continue
			# The packages are bookworm's: the base must be too.
			[[ $from == scratch || $from == debian:bookworm* ]] ||
				fail "$recipe: stage $n is FROM $from, not debian:bookworm"
			mapfile -t pkgs < <(stage "$recipe" "$n" | apt_packages)
			((${#pkgs[@]})) || continue
			run apt-get install --simulate --no-install-recommends -qq "${pkgs[@]}"
			assert_success
		done
	done
}

@test "Dockerfiles: the images that run tfd install the package of every library it links or loads" {
	require_command dpkg
	[[ -x $REPO/tfd ]] || skip "no $REPO/tfd: make tfd"
	man_dockerfile >"$BATS_TEST_TMPDIR/man.Dockerfile"
	local linked loaded have pkg
	linked=$(linked_packages "$REPO/tfd")
	loaded=$(loaded_packages)
	[[ $linked == *libpopt0* ]] || fail "libpopt0 not among the linked: $linked"
	[[ $loaded == *libpq5* && $loaded == *libmicrohttpd12* ]] ||
		fail "libpq5 and libmicrohttpd12 not among the loaded: $loaded"
	# Dockerfile.debian's image: all of them.
	have=$(stage "$DEBIAN_RECIPE" 1 | apt_packages)
	for pkg in $linked $loaded; do
		grep -qx "$pkg" <<<"$have" || fail "Dockerfile.debian does not install $pkg"
	done
	# tfd-jobs(5)'s: what tfd links (its example uses no --listen nor
	# --fleet).
	have=$(stage "$BATS_TEST_TMPDIR/man.Dockerfile" 0 | apt_packages)
	for pkg in $linked; do
		grep -qx "$pkg" <<<"$have" || fail "tfd-jobs(5)'s Dockerfile does not install $pkg"
	done
}

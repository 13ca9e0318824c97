#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status and $output.
# contrib/Dockerfile, checked without a container runtime (none runs here):
# every instruction is one Docker knows, the first is FROM (or ARG), each
# COPY/ADD source is in the build context (the top of the repository) or
# in a stage named before, exec-form lines are JSON arrays; and the build
# stage's `make static` works from exactly the files it copies, and builds
# the release VERSION names.

load test_helper

DOCKERFILE=$REPO/contrib/Dockerfile

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

@test "Dockerfile: every instruction is valid and every COPY source exists" {
	require_command jq
	run check_dockerfile "$DOCKERFILE" "$REPO"
	assert_success
	assert_output ""
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
	local ctx=$BATS_TEST_TMPDIR/src
	mkdir "$ctx"
	# What the build stage copies: COPY lines before the second FROM.
	local line s seen_from=
	local -a words
	while IFS= read -r line; do
		[[ $line == FROM* && -n ${seen_from-} ]] && break
		[[ $line == FROM* ]] && seen_from=1
		if [[ $line == COPY* ]]; then
			read -ra words <<<"$line"
			for s in "${words[@]:1:${#words[@]}-2}"; do
				cp -r "$REPO/$s" "$ctx/$s"
			done
		fi
	done < <(instructions "$DOCKERFILE")
	[[ -f $ctx/Makefile && -d $ctx/src ]] || fail "the build stage copies no Makefile and src/"
	run make -s -C "$ctx" static
	assert_success
	[[ -x $ctx/tfd-static ]] || fail "make static made no tfd-static"
	run "$ctx/tfd-static" -d 0 -n 1 -f ok
	assert_success
	assert_output ok
	# The image is the release the tree says (VERSION, copied with it).
	run "$ctx/tfd-static" --version
	assert_output "tfd $(<"$REPO/VERSION")"
}

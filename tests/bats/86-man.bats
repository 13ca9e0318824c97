#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # bats' `run` sets $status, $output and $lines.
# The man pages as a reader meets them: groff's header names the manual of
# the section (not "BSD General Commands Manual"), every heading reads as
# written, tfd(1) opens with its examples and its options, the pages point
# to each other, tfd-fleet(7)'s six commands are README's, and a list that
# a page shows is laid out as tfdctl lays it out. (mandoc -Tlint is make
# analyze's; 85-install.bats installs the pages.)

load test_helper

PAGES=(tfd.1 tfdctl.1 tfd-jobs.5 tfd-fleet.7 tfd-cron.8)

# render PAGE: the page as man(1) shows it on an 80-column terminal.
render() {
	MANWIDTH=80 man -l "$REPO/man/$1" 2>/dev/null | col -bx
}

@test "the five pages exist, and groff heads each with its section's manual and foots it with tfd VERSION" {
	require_command man
	local page version title
	version=$(<"$REPO/VERSION")
	for page in "${PAGES[@]}"; do
		[[ -f $REPO/man/$page ]] || fail "no man/$page"
		case ${page##*.} in
		1) title="General Commands Manual" ;;
		5) title="File Formats Manual" ;;
		7) title="Miscellaneous Information Manual" ;;
		8) title="System Manager's Manual" ;;
		esac
		run render "$page"
		assert_line --index 0 --regexp "^[A-Z-]+\([1-8]\) +$title +[A-Z-]+\([1-8]\)$"
		assert_line --index $((${#lines[@]} - 1)) --regexp "^tfd $version +[A-Z][a-z]+ [0-9]+, [0-9]{4} +tfd $version$"
	done
}

@test "every section and subsection title renders as written, none taken for a macro (In, At, ...)" {
	require_command mandoc
	local page title missing=()
	for page in "${PAGES[@]}"; do
		[[ -f $REPO/man/$page ]] || missing+=("no man/$page")
		run bash -c 'mandoc -Tascii -Owidth=200 "$1" | col -bx' _ "$REPO/man/$page"
		while IFS= read -r title; do
			# The source's \& (a word that would be a macro) is not shown.
			title=${title//\\&/}
			printf '%s\n' "$output" | grep -qxF -e "$title" -e "   $title" ||
				missing+=("$page: $title")
		done < <(sed -n 's/^\.S[hs] //p' "$REPO/man/$page")
	done
	assert_equal "$(printf '%s\n' "${missing[@]}")" ""
}

@test "tfd(1) opens with DESCRIPTION, QUICK EXAMPLES and OPTIONS, each within the first screens" {
	require_command man
	run render tfd.1
	local -A at
	local i
	for ((i = 0; i < ${#lines[@]}; i++)); do
		case ${lines[i]} in
		DESCRIPTION | "QUICK EXAMPLES" | OPTIONS | "TIME SYNTAX" | EXAMPLES)
			at[${lines[i]}]=$i ;;
		esac
	done
	# The order: what tfd does, the common uses, then the options.
	((at[DESCRIPTION] < at["QUICK EXAMPLES"] && at["QUICK EXAMPLES"] < at[OPTIONS] &&
		at[OPTIONS] < at["TIME SYNTAX"] && at["TIME SYNTAX"] < at[EXAMPLES])) ||
		fail "sections out of order: $(declare -p at)"
	# A reader sees the first example on the first screen or two, and the
	# options on the third at most.
	((at["QUICK EXAMPLES"] < 60)) || fail "QUICK EXAMPLES at rendered line ${at["QUICK EXAMPLES"]}"
	((at[OPTIONS] < 150)) || fail "OPTIONS at rendered line ${at[OPTIONS]}"
	# Each option group is a subsection of OPTIONS.
	run sed -n '/^OPTIONS$/,/^TIME SYNTAX$/p' <<<"$output"
	for i in Schedule "Wake-up actions" "Runner options" "Timing and reporting" Jobs Replicas "Other options"; do
		assert_line "   $i"
	done
}

@test "the pages name each other: every tfd page a page names exists, and each page's SEE ALSO names the new pages and cron's" {
	local page ref missing=()
	for page in "${PAGES[@]}"; do
		while read -r ref; do
			[[ -f $REPO/man/${ref% *}.${ref#* } ]] || missing+=("$page: .Xr $ref")
		done < <(grep -o '^\.Xr tfd[a-z-]* [1-8]' "$REPO/man/$page" | sed 's/^\.Xr //' | sort -u)
		run sed -n '/^\.Sh SEE ALSO/,/^\.Sh /p' "$REPO/man/$page"
		for ref in "tfd-cron 8" "tfd-fleet 7" "crontab 1" "crontab 5" "cron 8"; do
			[[ $page == "${ref% *}.${ref#* }" ]] && continue
			# tfdctl(1) and tfd-fleet(7) are not about crontabs.
			[[ $page == tfdctl.1 || $page == tfd-fleet.7 ]] && [[ $ref == *cron* && $ref != tfd-cron* ]] && continue
			assert_line --regexp "^\.Xr $ref( ,)?$"
		done
	done
	assert_equal "${missing[*]}" ""
	# Where systemd's timers are the alternative, their page is named.
	run sed -n '/^\.Sh SEE ALSO/,/^\.Sh /p' "$REPO/man/tfd.1" "$REPO/man/tfd-jobs.5"
	assert_equal "$(grep -c '^\.Xr systemd\.timer 5' <<<"$output")" 2
}

# page_fleet_commands: tfd-fleet(7)'s literal display that holds
# `tfd --fleet-sql`, its roff escapes read as the reader sees them.
page_fleet_commands() {
	awk '/^\.Bd -literal/ { inb = 1; block = ""; next }
		/^\.Ed/ { if (block ~ /tfd --fleet-sql/) { printf "%s", block; exit } inb = 0; next }
		inb { block = block $0 "\n" }' "$REPO/man/tfd-fleet.7" |
		sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\(dq/"/g'
}

@test "tfd-fleet(7)'s six commands are README's, which 79-fleet-readme.bats runs" {
	run page_fleet_commands
	assert_equal "${#lines[@]}" 6
	assert_output "$(readme_fleet_commands)"
	# And what the reader sees is those six lines, unwrapped.
	require_command mandoc
	local line rendered
	rendered=$(mandoc -Tascii -Owidth=200 "$REPO/man/tfd-fleet.7" | col -bx)
	while IFS= read -r line; do
		grep -qF -- "$line" <<<"$rendered" || fail "not rendered as README has it: $line"
	done < <(readme_fleet_commands)
}

# layout_faults: reads a list as tfdctl prints it (a header of column
# names, then rows), and prints each column whose width is not its widest
# cell plus two spaces, or a row whose cell does not begin where the
# header's name does.
layout_faults() {
	awk 'NR == 1 {
			n = 0
			for (i = 1; i <= length($0); i++)
				if (substr($0, i, 1) != " " && (i == 1 || substr($0, i - 1, 1) == " "))
					start[++n] = i
			start[n + 1] = 10000
			rows[NR] = $0; next
		}
		{ rows[NR] = $0 }
		END {
			for (c = 1; c < n; c++) {
				widest = 0
				for (r = 1; r <= NR; r++) {
					cell = substr(rows[r], start[c], start[c + 1] - start[c])
					sub(/ +$/, "", cell)
					if (length(cell) > widest) widest = length(cell)
					if (r > 1 && substr(rows[r], start[c + 1] - 2, 2) != "  ")
						print "row " r - 1 ": column " c + 1 " does not begin at " start[c + 1]
				}
				if (start[c + 1] - start[c] != widest + 2)
					print "column " c ": " start[c + 1] - start[c] - 2 " wide, its widest cell " widest
			}
		}'
}

# page_lists PAGE: each list in PAGE's literal displays, a blank line
# after each.
page_lists() {
	awk '/^NEXT  / { inl = 1 } inl && /^$/ { print ""; inl = 0 } inl' "$REPO/man/$1"
}

@test "the lists that tfdctl(1) and tfd(1) show are laid out as tfdctl lays out a list, with its columns" {
	local page list faults=()
	for page in tfdctl.1 tfd.1; do
		while IFS= read -r -d '' list; do
			faults+=("$(layout_faults <<<"$list" | sed "s|^|$page: |")")
		done < <(page_lists "$page" | awk 'BEGIN { RS = ""; ORS = "\0" } { print }')
	done
	assert_equal "$(printf '%s' "${faults[@]}")" ""
	# tfdctl(1) shows list and list --wide; their columns are tfdctl's.
	[[ -x $REPO/tfdctl ]] || skip "no $REPO/tfdctl: run make tfdctl first"
	cd "$BATS_TEST_TMPDIR" || exit 1
	echo '--name report --calendar daily -- true' >./jobs
	local sock=$BATS_TEST_TMPDIR/ctl/control i
	start_bg "$TFD" --jobs=jobs --control="$sock" >out 2>err
	for ((i = 0; i < 200; i++)); do
		[[ -S $sock ]] && break
		nap 0.05
	done
	local narrow wide
	narrow=$("$REPO/tfdctl" --control="$sock" list | head -n 1 | tr -s ' ')
	wide=$("$REPO/tfdctl" --control="$sock" list --wide | head -n 1 | tr -s ' ')
	[[ -n $narrow && -n $wide ]] || fail "no list from tfdctl: $(cat err)"
	run page_lists tfdctl.1
	run bash -c 'grep "^NEXT " <<<"$1" | tr -s " "' _ "$output"
	assert_line --index 0 "$narrow"
	assert_line --index 1 "$wide"
}

@test "no page writes a unit of its own: the packaged unit is the one they point to" {
	run grep -l '^\[Service\]' "$REPO"/man/*.[1-8]
	assert_output ""
	run grep -c 'tfd-cron\.service' "$REPO/man/tfd-jobs.5"
	refute_output 0
}

@test "the fleet's rules are in tfd-fleet(7); tfd(1)'s FLEET is a pointer to it, and no page points to a moved section under tfd(1)" {
	local ss
	for ss in Claims '\&At most once' Stopping 'The database unreachable' Failover \
		'The tables' Privileges Secrets '\&In Kubernetes'; do
		grep -qxF ".Ss $ss" "$REPO/man/tfd-fleet.7" || fail "tfd-fleet(7) lacks .Ss $ss"
		! grep -qxF ".Ss $ss" "$REPO/man/tfd.1" || fail "tfd(1) still has .Ss $ss"
	done
	run sed -n '/^\.Sh FLEET/,/^\.Sh /p' "$REPO/man/tfd.1"
	((${#lines[@]} < 25)) || fail "tfd(1)'s FLEET has ${#lines[@]} lines"
	assert_line '.Xr tfd-fleet 7 ;'
	# A subsection now in tfd-fleet(7) is never sent for "under FLEET" in tfd(1).
	run grep -n -A2 '^\.Sx \(Secrets\|Privileges\|Stopping\|The database unreachable\)$' \
		"$REPO/man/tfd.1" "$REPO/man/tfd-jobs.5"
	refute_output --partial '.Sx FLEET'
}

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-version.sh [--stamp] [ROOT]: the release is written in one place,
# VERSION; everything else that names it must agree, and this says where it
# does not (one line each, exit 1):
#   - every tracked man page (man/*.[1-8]): `.Os tfd VERSION`, and `.Dd` the
#     date of the release, as debian/changelog gives it;
#   - debian/changelog: its newest entry is VERSION-N;
#   - NEWS.md: its first release heading is `## VERSION (YYYY-MM-DD)`, that
#     same date.
# The build passes VERSION to the compiler itself (Makefile: TFD_VERSION),
# so --version needs no check here (95-package.bats runs it).
# --stamp rewrites the man pages' .Os and .Dd from VERSION and the
# changelog's date, for a release bump: edit VERSION, add the changelog
# entry and NEWS.md's heading, then `tests/check-version.sh --stamp`.
set -euo pipefail
stamp=0
if [[ ${1-} == --stamp ]]; then
	stamp=1
	shift
fi
cd "${1:-$(dirname "$0")/..}"
export LC_ALL=C
faults=0
fault() {
	echo "check-version: $*" >&2
	faults=$((faults + 1))
}

version=$(<VERSION)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
	{ echo "check-version: VERSION: '$version' is not MAJOR.MINOR.PATCH" >&2; exit 1; }

# The newest changelog entry: `tfd (0.3.0-1) unstable; urgency=medium`,
# and its trailer line ` -- NAME <EMAIL>  RFC 2822 date`.
head=$(sed -n '1p' debian/changelog)
[[ $head =~ ^tfd\ \(([^-\)]+)-[0-9][^\)]*\) ]] ||
	{ echo "check-version: debian/changelog:1: not a 'tfd (VERSION-N)' entry: $head" >&2; exit 1; }
[[ ${BASH_REMATCH[1]} == "$version" ]] ||
	fault "debian/changelog:1: ${BASH_REMATCH[1]}, not VERSION's $version"
trailer=$(sed -n '/^ -- /{p;q}' debian/changelog)
released=$(date -u -d "${trailer##*>  }" +%F) ||
	{ echo "check-version: debian/changelog: no date in: $trailer" >&2; exit 1; }
mdoc_date=$(date -u -d "$released" '+%B %-d, %Y')

news=$(grep -m 1 -n '^## ' NEWS.md || true)
[[ $news == *":## $version ($released)" ]] ||
	fault "NEWS.md:${news%%:*}: first release is '${news#*:}', not '## $version ($released)'"

mapfile -t pages < <(git ls-files 'man/*.[1-8]' 2>/dev/null || ls man/*.[1-8])
((${#pages[@]} > 0)) || fault "no man pages under man/"
for page in "${pages[@]}"; do
	if ((stamp)); then
		sed -i -e "s/^\.Os.*/.Os tfd $version/" -e "s/^\.Dd .*/.Dd $mdoc_date/" "$page"
	fi
	grep -qx "\.Os tfd $version" "$page" ||
		fault "$page: '$(grep -m 1 '^\.Os' "$page")', not '.Os tfd $version'"
	grep -qx "\.Dd $mdoc_date" "$page" ||
		fault "$page: '$(grep -m 1 '^\.Dd' "$page")', not the release's '.Dd $mdoc_date'"
done
((faults == 0))

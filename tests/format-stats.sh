#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# format-stats.sh [--files] [CONFIG...]: how much of the tree clang-format
# would change with each CONFIG (a .clang-format file; the tree's own when
# none is given), one line each:
#   CONFIG: F of N files, L lines
# where L counts the tree's lines clang-format would rewrite or remove.
# With --files, each file it would change first, with its count. The files
# are make format's: the .c and .h files of src/ and tests/unit/ and of
# their folders. Nothing is changed. To compare with another commit's:
#   git show prep:.clang-format >/tmp/old.clang-format
#   tests/format-stats.sh /tmp/old.clang-format .clang-format
# CLANG_FORMAT names the program (default clang-format; .clang-format is
# written for Debian 12's, version 14).
set -euo pipefail
export LC_ALL=C

files=0
if [[ ${1-} == --files ]]; then
	files=1
	shift
fi
# Each CONFIG as given, and its full path (the tree's own .clang-format
# when none is given); then to the top of the tree.
names=("$@") paths=()
for cfg in "$@"; do
	[[ -r $cfg ]] || { echo "format-stats: $cfg: cannot read it" >&2; exit 2; }
	paths+=("$(realpath "$cfg")")
done
cd "$(dirname "$0")/.."
if [[ $# -eq 0 ]]; then
	names=(.clang-format) paths=("$PWD/.clang-format")
fi
export CLANG_FORMAT=${CLANG_FORMAT:-clang-format}

shopt -s nullglob
tree=(src/*.[ch] src/*/*.[ch] tests/unit/*.[ch] tests/unit/*/*.[ch])
[[ ${#tree[@]} -gt 0 ]] || { echo "format-stats: no .c or .h file under src/ or tests/unit/" >&2; exit 2; }

for i in "${!paths[@]}"; do
	# The lines diff marks as the tree's ("<") per file, two files at a time.
	# shellcheck disable=SC2016 # the program is the inner bash's
	counts=$(printf '%s\0' "${tree[@]}" | xargs -0 -n 8 -P 2 bash -c '
		cfg=$1
		shift
		for f; do
			out=$("$CLANG_FORMAT" --style="file:$cfg" "$f") || { echo "format-stats: $CLANG_FORMAT failed on $f" >&2; exit 255; }
			n=$(diff "$f" - <<<"$out" | grep -c "^<" || true)
			printf "%s %s\n" "$n" "$f"
		done' _ "${paths[i]}")
	if [[ $files == 1 ]]; then
		awk '$1 > 0 { printf "%6d %s\n", $1, $2 }' <<<"$counts" | sort -k2
	fi
	awk -v cfg="${names[i]}" '
		{ n++ } $1 > 0 { changed++; lines += $1 }
		END { printf "%s: %d of %d files, %d lines\n", cfg, changed, n, lines }' <<<"$counts"
done

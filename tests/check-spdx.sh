#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-spdx.sh [--add] [ROOT]: every source file, script and man page of
# the tree says its licence at its head, in the comment style of its kind:
#   C (*.c, *.h)                  line 1: /* SPDX-License-Identifier: MIT */
#   man pages (man/*.[1-8])       line 1: .\" SPDX-License-Identifier: MIT
#   shell, bats, make, zsh, fish, systemd units, Dockerfiles, scripts with
#   a #! line                     line 1, or line 2 after a #! line (or
#                                 zsh's #compdef, which must stay first):
#                                 # SPDX-License-Identifier: MIT
# The files are those git tracks (the whole tree less build/ outside a git
# checkout). Data is not source and is left alone: test fixtures, fuzz
# regressions and dictionaries, vectors, Markdown, debian/'s control files.
# Without --add, one line per file that lacks the line where it belongs,
# and exit 1. With --add, the line is put where it belongs in each such
# file (an SPDX line elsewhere in it is moved), so running it again
# changes nothing; the file's mode is kept.
set -euo pipefail
add=0
if [[ ${1-} == --add ]]; then
	add=1
	shift
fi
cd "${1:-$(dirname "$0")/..}"
export LC_ALL=C
ID='SPDX-License-Identifier: MIT'

# The tracked files, one a line.
tree_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files
	else
		find . -path ./build -prune -o -path ./.git -prune -o -type f -print |
			sed 's|^\./||'
	fi
}

# kind FILE: prints c, man or hash for a source file, nothing for data.
kind() {
	local f=$1 first
	case $f in
	tests/bats/fixtures/* | tests/fuzz/regressions/* | tests/vectors/*.tsv | \
		*.md | *.tsv | *.dict | LICENSE | VERSION | .gitignore | */.gitignore | \
		debian/changelog | debian/control | debian/copyright | debian/docs | \
		debian/source/* | debian/tests/control)
		return 0 ;;
	*.c | *.h) echo c ;;
	man/*.[1-8]) echo man ;;
	*.sh | *.bash | *.bats | *.fish | *.zsh | Makefile | */Makefile | *.mk | \
		*.service | *.timer | *.socket | Dockerfile | */Dockerfile | *.py | \
		completions/_*)
		echo hash ;;
	*)
		# A script of any other name: its #! line says so.
		[[ -f $f ]] || return 0
		IFS= read -r first <"$f" || true
		[[ $first == '#!'* ]] && echo hash
		return 0 ;;
	esac
}

# The line a file of kind $1 carries.
spdx_line() {
	case $1 in
	c) printf '/* %s */\n' "$ID" ;;
	man) printf '.\\" %s\n' "$ID" ;;
	hash) printf '# %s\n' "$ID" ;;
	esac
}

# Whether line 1 of FILE must stay first: a #! line, or zsh's #compdef
# (compinit reads it there).
keeps_first_line() {
	local first
	IFS= read -r first <"$1" || true
	[[ $first == '#!'* || $first == '#compdef'* ]]
}

# The line number the SPDX line of FILE belongs on.
spdx_at() {
	if [[ $2 == hash ]] && keeps_first_line "$1"; then
		echo 2
	else
		echo 1
	fi
}

# add_to FILE KIND: writes the line where it belongs, dropping it from
# anywhere else, through a temporary copy written back in place.
add_to() {
	local f=$1 line at tmp
	line=$(spdx_line "$2")
	at=$(spdx_at "$f" "$2")
	tmp=$(mktemp)
	# The line through the environment: awk -v would read its backslash.
	SPDX_LINE=$line awk -v at="$at" '
		BEGIN { line = ENVIRON["SPDX_LINE"] }
		$0 == line { next }
		{ n++ }
		n == at && !done { print line; done = 1 }
		{ print }
		END { if (!done) print line }
	' "$f" >"$tmp"
	cat "$tmp" >"$f"
	rm -f "$tmp"
}

# The whole run is one function, read before it starts: --add may write
# this very file, which bash would otherwise go on reading as it changes.
main() {
	local f k at faults=0
	while IFS= read -r f; do
		[[ -f $f && ! -L $f ]] || continue
		k=$(kind "$f")
		[[ -n $k ]] || continue
		at=$(spdx_at "$f" "$k")
		[[ $(sed -n "${at}p" "$f") == "$(spdx_line "$k")" ]] && continue
		if ((add)); then
			add_to "$f" "$k"
			echo "check-spdx: added to $f"
		else
			echo "check-spdx: $f:$at: not '$(spdx_line "$k")'" >&2
			faults=$((faults + 1))
		fi
	done < <(tree_files)
	if ((faults > 0)); then
		echo "check-spdx: $faults files without the licence line; 'make spdx' adds it" >&2
		return 1
	fi
}

main; exit

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-floors.sh [--report] [--floors 'F1 F2 ...'] [--plan FILE] SRC OBJDIR
#
# The floors (HACKING.md, "The floors"): SRC is in folders by layer, and a
# folder uses only itself and the folders below it. --floors names the
# folders from the bottom up (the Makefile's FLOORS, where the order is
# written once); the files directly in SRC (tfd.c, tfdctl.c) are above
# every folder. In a flat SRC every file is there, on one floor, and only
# circles can be found; --plan FILE gives a flat SRC's files floors, one
# line per floor: "FLOOR: NAME NAME ..." (a NAME is a file without .c or
# .h; # begins a comment; a file in a folder is on its folder's floor).
#
# Which file uses which is read from the objects: OBJDIR/X.o is SRC/X.c's
# (other objects are left out), and a file uses another when its object
# names as undefined a symbol the other's defines (nm). Found, one line
# each, on stderr:
#   check-floors: circle: src/a.c -> src/b.c -> src/a.c
#       every elementary cycle of that graph, from its first file by name
#   check-floors: arrow up: src/base/x.c (base) uses src/loop/y.c (loop): f, g
#       a file that uses one of a floor above its own
#   check-floors: include up: src/fleet/x.h:12 (fleet) includes src/serve/y.h (serve)
#       an #include "..." of a header on a floor above (found beside the
#       including file, then under SRC, then by its name alone)
#   check-floors: src/NAME/: a folder not in the floors (F1 F2 ...)
# Exit 0 when nothing is found, 1 when something is, 2 on bad usage.
#
# --report prints the module graph's numbers instead (BENCHMARKS.md):
# files, arrows, circles, arrows up and includes up by floor pair, and the
# structs with the most fields (each declarator one field, counted in the
# sources); it exits 0 whatever it finds.
set -euo pipefail
export LC_ALL=C

me=check-floors
usage() {
	echo "usage: $0 [--report] [--floors 'F1 F2 ...'] [--plan FILE] SRC OBJDIR" >&2
	exit 2
}
report=0 floors='' plan='' structs=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--report) report=1 ;;
	--floors) [[ $# -ge 2 ]] || usage; floors=$2; shift ;;
	--plan) [[ $# -ge 2 ]] || usage; plan=$2; shift ;;
	--structs) [[ $# -ge 2 ]] || usage; structs=$2; shift ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[[ $# -eq 2 ]] || usage
src=${1%/} objdir=${2%/}
[[ -d $src ]] || { echo "$me: $src: no such directory" >&2; exit 2; }
[[ -d $objdir ]] || { echo "$me: $objdir: no such directory (build the objects first)" >&2; exit 2; }
[[ -z $plan || -r $plan ]] || { echo "$me: $plan: cannot read the plan" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sources, and the objects built from them.
find "$src" -type f \( -name '*.c' -o -name '*.h' \) | sort >"$work/files"
find "$objdir" -type f -name '*.o' | sort | while read -r o; do
	c=$src/${o#"$objdir"/}
	c=${c%.o}.c
	[[ -f $c ]] && printf '%s %s\n' "$o" "$c"
done >"$work/objects"
if [[ ! -s $work/objects ]]; then
	echo "$me: no object in $objdir is built from a source in $src" >&2
	exit 2
fi

# FILE SYMBOL, for every external symbol an object defines (D) or needs (U).
cut -d' ' -f1 "$work/objects" | xargs nm -A -P -g >"$work/nm"

# One awk does the rest: it reads the floors, the plan, the files, the
# objects' symbols and the files' include lines, in that order.
awk -v me="$me" -v src="$src" -v floors="$floors" -v report="$report" \
    -v plan="$plan" -v work="$work" '
function floor_of(f,    rel, dir, stem) {
	rel = substr(f, length(src) + 2)
	if (index(rel, "/")) {
		dir = substr(rel, 1, index(rel, "/") - 1)
		if (!(dir in rank)) {
			if (!(dir in told)) {
				told[dir] = 1
				printf "%s: %s/%s/: a folder not in the floors (%s)\n", me, src, dir, (floors == "" ? "none given" : floors) > "/dev/stderr"
				found++
			}
			return top
		}
		return dir
	}
	stem = rel
	sub(/\.[ch]$/, "", stem)
	return (stem in planned) ? planned[stem] : top
}

# PATH without its "./" and "DIR/../" parts.
function normal(path) {
	while (sub(/\/\.\//, "/", path)) {}
	while (sub(/\/[^\/]+\/\.\.\//, "/", path)) {}
	return path
}

# The header an include line of FROM names, or "".
function resolve(from, name,    dir, base) {
	dir = from
	sub(/\/[^\/]*$/, "", dir)
	if (normal(dir "/" name) in isfile) return normal(dir "/" name)
	if (normal(src "/" name) in isfile) return normal(src "/" name)
	base = name
	sub(/.*\//, "", base)
	return (base in byname && byname[base] != "-") ? byname[base] : ""
}

function up(a, b) { return rank[floor[a]] < rank[floor[b]] }

# Every elementary cycle through START that visits only files after it (so
# each cycle is found once, from its first file), as one line; past
# CYCLES_SHOWN the search stops (a knot of many files has more cycles than
# anyone reads).
function cycles_from(start, at, depth,    k, next_file, i, line) {
	if (ncycles > CYCLES_SHOWN) return
	path[depth] = at
	onpath[at] = 1
	for (k = 1; k <= nout[at]; k++) {
		next_file = out[at, k]
		if (next_file == start) {
			line = path[1]
			for (i = 2; i <= depth; i++) line = line " -> " path[i]
			if (++ncycles <= CYCLES_SHOWN) cycle[ncycles] = line " -> " start
		} else if (!(next_file in onpath) && next_file > start && comp[next_file] == comp[start]) {
			cycles_from(start, next_file, depth + 1)
		}
	}
	delete onpath[at]
}

# Tarjan: comp[F] numbers the strongly connected component of each file.
function strong(v,    k, w) {
	index_of[v] = low[v] = ++counter
	stack[++sp] = v
	instack[v] = 1
	for (k = 1; k <= nout[v]; k++) {
		w = out[v, k]
		if (!(w in index_of)) {
			strong(w)
			if (low[w] < low[v]) low[v] = low[w]
		} else if ((w in instack) && index_of[w] < low[v]) {
			low[v] = index_of[w]
		}
	}
	if (low[v] == index_of[v]) {
		ncomp++
		do {
			w = stack[sp--]
			delete instack[w]
			comp[w] = ncomp
			compsize[ncomp]++
		} while (w != v)
	}
}

BEGIN {
	CYCLES_SHOWN = 200
	nfloors = split(floors, fl, " ")
	for (i = 1; i <= nfloors; i++) {
		if (fl[i] in rank || fl[i] == "top") {
			printf "%s: floors (%s): %s %s\n", me, floors, fl[i],
				(fl[i] == "top" ? "is the name of the files above every folder" : "named twice") > "/dev/stderr"
			bad = 2
			exit
		}
		rank[fl[i]] = i
	}
	top = "top"
	rank[top] = nfloors + 1
	if (plan != "") {
		while ((getline line < plan) > 0) {
			planline++
			sub(/#.*/, "", line)
			if (line ~ /^[ \t]*$/) continue
			if (line !~ /^[A-Za-z0-9_.-]+:/) {
				printf "%s: %s:%d: expected \"FLOOR: NAME ...\"\n", me, plan, planline > "/dev/stderr"
				bad = 2
				exit
			}
			f = substr(line, 1, index(line, ":") - 1)
			if (!(f in rank) || f == top) {
				printf "%s: %s:%d: %s is not one of the floors (%s)\n", me, plan, planline, f, floors > "/dev/stderr"
				bad = 2
				exit
			}
			n = split(substr(line, index(line, ":") + 1), names, " ")
			for (i = 1; i <= n; i++) {
				if (names[i] in planned) {
					printf "%s: %s:%d: %s planned twice\n", me, plan, planline, names[i] > "/dev/stderr"
					bad = 2
					exit
				}
				planned[names[i]] = f
				plannedline[names[i]] = planline
			}
		}
	}
	while ((getline f < (work "/files")) > 0) {
		isfile[f] = 1
		nfiles++
		files[nfiles] = f
		base = f
		sub(/.*\//, "", base)
		if (base in byname)
			byname[base] = "-"
		else
			byname[base] = f
		stem = base
		sub(/\.[ch]$/, "", stem)
		hasstem[stem] = 1
	}
	for (s in planned)
		if (!(s in hasstem))
			printf "%s: %s:%d: warning: no %s.c or %s.h under %s\n", me, plan, plannedline[s], s, s, src > "/dev/stderr"
	for (i = 1; i <= nfiles; i++) floor[files[i]] = floor_of(files[i])
	while ((getline line < (work "/objects")) > 0) {
		split(line, w, " ")
		source[w[1]] = w[2]
		objects++
	}
	# nm -A -P: "OBJECT: SYMBOL TYPE [VALUE SIZE]"
	while ((getline line < (work "/nm")) > 0) {
		n = split(line, w, " ")
		o = w[1]
		sub(/:$/, "", o)
		if (!(o in source) || n < 3) continue
		f = source[o]
		if (w[3] == "U" || w[3] == "w") {
			nneed++
			needer[nneed] = f
			needed[nneed] = w[2]
		} else if (!(w[2] in definer)) {
			definer[w[2]] = f
		}
	}
	for (i = 1; i <= nneed; i++) {
		a = needer[i]
		s = needed[i]
		if (!(s in definer) || definer[s] == a) continue
		b = definer[s]
		if (!((a, b) in uses)) {
			uses[a, b] = s
			out[a, ++nout[a]] = b
			narrows++
		} else {
			uses[a, b] = uses[a, b] ", " s
		}
	}
}

END {
	if (bad) exit bad

	# Circles.
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (!(f in index_of)) strong(f)
	}
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (compsize[comp[f]] > 1) {
			knotted++
			cycles_from(f, f, 1)
		}
	}
	for (c = 1; c <= ncycles && c <= CYCLES_SHOWN; c++) {
		if (!report) printf "%s: circle: %s\n", me, cycle[c] > "/dev/stderr"
	}
	if (ncycles > CYCLES_SHOWN && !report)
		printf "%s: and more circles than these %d\n", me, CYCLES_SHOWN > "/dev/stderr"

	# Arrows up, file by file.
	for (i = 1; i <= nfiles; i++) {
		a = files[i]
		for (k = 1; k <= nout[a]; k++) {
			b = out[a, k]
			if (!up(a, b)) continue
			nup++
			pair = floor[a] " -> " floor[b]
			upby[pair]++
			if (!report)
				printf "%s: arrow up: %s (%s) uses %s (%s): %s\n", me, a, floor[a], b, floor[b], uses[a, b] > "/dev/stderr"
		}
	}

	# Includes up.
	for (i = 1; i <= nfiles; i++) {
		a = files[i]
		lineno = 0
		while ((getline line < a) > 0) {
			lineno++
			if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
			name = line
			sub(/^[^"]*"/, "", name)
			sub(/".*/, "", name)
			h = resolve(a, name)
			if (h == "" || !up(a, h)) continue
			nincup++
			incby[floor[a] " -> " floor[h]]++
			if (!report)
				printf "%s: include up: %s:%d (%s) includes %s (%s)\n", me, a, lineno, floor[a], h, floor[h] > "/dev/stderr"
		}
		close(a)
	}

	if (!report) exit (found + ncycles + nup + nincup > 0) ? 1 : 0

	printf "floors (bottom up): %s\n", (floors == "" ? "none" : floors " (then " src "/ itself)")
	if (plan != "") printf "plan for the files directly in %s: %s\n", src, plan
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		onfloor[floor[f]]++
		if (f ~ /\.c$/) sources++
	}
	printf "files: %d (%d .c, %d objects)", nfiles, sources, objects
	sep = "; by floor:"
	for (i = 1; i <= nfloors + 1; i++) {
		fn = (i <= nfloors) ? fl[i] : top
		if (onfloor[fn] > 0) {
			printf "%s %s %d", sep, fn, onfloor[fn]
			sep = ","
		}
	}
	printf "\n"
	printf "arrows (file uses file): %d\n", narrows
	printf "circles: %s (files in a circle: %d)\n", (ncycles > CYCLES_SHOWN ? "more than " CYCLES_SHOWN : ncycles), knotted
	for (c = 1; c <= ncycles && c <= CYCLES_SHOWN; c++) printf "  %s\n", cycle[c]
	printf "arrows up: %d\n", nup
	fflush()
	for (p in upby) printf "  %s: %d\n", p, upby[p] | "sort"
	close("sort")
	printf "includes up: %d\n", nincup
	fflush()
	for (p in incby) printf "  %s: %d\n", p, incby[p] | "sort"
	close("sort")
}'
[[ $report == 1 ]] || exit 0

# The structs with the most fields: each declarator of a struct's own
# level is one field ("int a, b;" two, a nested struct's member one),
# comments, strings and preprocessor lines left out.
# shellcheck disable=SC2016 # the program is awk's, not the shell's
xargs awk -v shown="$structs" '
FNR == 1 { incomment = 0; depth = -1 }
{
	line = $0
	if (incomment) {
		if (!index(line, "*/")) next
		line = substr(line, index(line, "*/") + 2)
		incomment = 0
	}
	while (match(line, /\/\*/)) {
		rest = substr(line, RSTART + 2)
		if (index(rest, "*/")) {
			line = substr(line, 1, RSTART - 1) " " substr(rest, index(rest, "*/") + 2)
		} else {
			line = substr(line, 1, RSTART - 1)
			incomment = 1
		}
	}
	sub(/\/\/.*/, "", line)
	gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
	if (line ~ /^[ \t]*#/) next
	if (depth < 0) {
		if (!match(line, /(^|[^A-Za-z0-9_])struct[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\{/)) next
		name = substr(line, RSTART, RLENGTH)
		sub(/^[^s]*struct[ \t]+/, "", name)
		sub(/[ \t]*\{$/, "", name)
		where = FILENAME ":" FNR
		line = substr(line, RSTART + RLENGTH)
		depth = 1
		parens = 0
		fields = 0
		commas = 0
	}
	for (i = 1; i <= length(line) && depth > 0; i++) {
		c = substr(line, i, 1)
		if (c == "{") depth++
		else if (c == "}") depth--
		else if (c == "(") parens++
		else if (c == ")") parens--
		else if (depth == 1 && parens == 0 && c == ",") commas++
		else if (depth == 1 && parens == 0 && c == ";") {
			fields += commas + 1
			commas = 0
		}
	}
	if (depth == 0) {
		n++
		size[n] = fields
		label[n] = "struct " name " (" where ")"
		named[n] = name
		depth = -1
	}
}
END {
	nshown = split(shown, want, " ")
	for (i = 1; i <= nshown; i++) wanted[want[i]] = 1
	for (i = 1; i <= n; i++) {
		line = sprintf("%5d %s", size[i], label[i])
		print line | "sort -k1,1nr -k2 | head -n 12"
		if (named[i] in wanted) picked[++npicked] = line
	}
	close("sort -k1,1nr -k2 | head -n 12")
	print "fields of the structs named (--structs):"
	for (i = 1; i <= npicked; i++) print picked[i]
}' <"$work/files" | { echo "structs with the most fields:"; cat; }

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/update-benchmarks.sh: copies the table of the last run
# (bench/results.md, written by bench/run.sh) into BENCHMARKS.md, between the
# "results: begin" and "results: end" markers. The rest of BENCHMARKS.md (what
# is not met and why) is written by hand.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
results=bench/results.md
doc=BENCHMARKS.md

[[ -f $results ]] || { echo "update-benchmarks: no $results: run bench/run.sh first" >&2; exit 1; }
grep -q '<!-- results: begin -->' "$doc" || { echo "update-benchmarks: no markers in $doc" >&2; exit 1; }

# The run's summary line and table: everything after the title up to the
# per-run figures.
table=$(sed -n '3,/^## Per-run figures/p' "$results" | sed '$d')

awk -v table="$table" '
	/<!-- results: end -->/ { skipping = 0 }
	!skipping { print }
	/<!-- results: begin -->/ { print table; skipping = 1 }
' "$doc" >"$doc.tmp"
mv "$doc.tmp" "$doc"

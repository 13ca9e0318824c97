#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seeds a fuzzer's corpus folder from the input column of the reference
# corpora (when ../shared/corpus exists) and from the project's own vectors.
# Usage: seed.sh OUT_DIR INPUT_COLUMN FILE...
set -euo pipefail
out=$1 column=$2
shift 2
mkdir -p "$out"
n=0
for file in "$@"; do
	[[ -f $file ]] || continue
	while IFS= read -r line; do
		n=$((n + 1))
		printf '%s' "$line" >"$out/seed-$n"
	done < <(grep -v '^#' "$file" | tail -n +2 | cut -f "$column")
done

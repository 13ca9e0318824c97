#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/notify.sh: what --ping adds to the start of a run (issue 34).
# NOTIFY_JOBS jobs (default 1000) due at the same instants, every
# NOTIFY_PERIOD (default 10s: six times "each minute"'s rate, so that a
# run takes minutes, not hours) for NOTIFY_ROUNDS elapses (default 3),
# without and with --ping to a local receiver (tests/notify-receiver.py),
# in turns, NOTIFY_PAIRS times (default 2). A run's start-up lateness is
# its start (its "exit" event's time minus its duration) minus its
# elapse's instant (its "tick"'s unix): the start queue's wait for a
# storm of due runs, plus whatever the requests cost the loop.
# Prints the p50, p99 and max of each side and their ratio (target: the
# p50 and p99 with --ping at most 1.05 times those without).
#
#   TFD=./tfd bash bench/notify.sh
set -euo pipefail

TFD=${TFD:-./tfd}
JOBS=${NOTIFY_JOBS:-1000}
PERIOD=${NOTIFY_PERIOD:-10s}
ROUNDS=${NOTIFY_ROUNDS:-3}
PAIRS=${NOTIFY_PAIRS:-2}
REPO=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/tfd-bench-notify.XXXXXX)
# shellcheck source=bench/receiver.bash
. "$REPO/bench/receiver.bash"
start_receiver "$dir"

# one SIDE N: a run of the jobs file, its events in $dir/SIDE.N.json.
one() {
	local side=$1 n=$2 ping=()
	[[ $side == plain ]] || ping=(--ping "http://127.0.0.1:$port/check")
	awk -v n="$JOBS" -v p="$PERIOD" -v c="$ROUNDS" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "--name j%d --delay 2s --interval %s --count %d -- /bin/true\n", i, p, c
	}' >"$dir/jobs"
	"$TFD" -j --jobs "$dir/jobs" "${ping[@]}" >"$dir/$side.$n.json"
}

for ((n = 0; n < PAIRS; n++)); do
	one plain "$n"
	one ping "$n"
done

python3 - "$dir" "$PAIRS" "$JOBS" "$ROUNDS" <<'PY'
import json, sys
d, pairs, jobs, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def lateness(path):
    due, late = {}, []
    for line in open(path):
        e = json.loads(line)
        key = (e.get("job"), e.get("seq"))
        if e["event"] == "tick":
            due[key] = e["unix"]
        elif e["event"] == "exit":
            # "time" is when the exit was written: the start is that
            # minus the run's duration.
            t = e["time"]
            import datetime
            end = datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
            late.append((end - e["duration"] - due[key]) * 1e6)
    return late

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]

res = {}
for side in ("plain", "ping"):
    v = []
    for n in range(pairs):
        v += lateness(f"{d}/{side}.{n}.json")
    res[side] = v
    print(f"{side}: {len(v)} runs of {pairs * jobs * rounds}; start-up lateness p50 {pct(v, 50):.0f} us, "
          f"p99 {pct(v, 99):.0f} us, max {max(v):.0f} us")
for p in (50, 99):
    print(f"ratio p{p}: {pct(res['ping'], p) / pct(res['plain'], p):.2f}")
PY
echo "requests received: $(wc -l <"$dir/requests")"

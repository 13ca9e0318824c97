#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/notify-hang.sh: a receiver that never answers, and a 10 ms job
# that pings it (issue 34). A job every HANG_INTERVAL (default 10ms) with
# --ping to tests/notify-receiver.py --hang asks for two requests a run;
# after HANG_RUNS wake-ups (default 5000: 10,000 requests asked, far past
# the 256 that may wait) tfd is stopped (SIGTERM). The same job without
# --ping runs beside it in turn, as the floor. Prints, for each side, the
# peak RSS (VmHWM just before the stop), the longest gap between two
# wake-ups, the expirations missed and the requests dropped.
#
#   TFD=./tfd bash bench/notify-hang.sh
set -euo pipefail

TFD=${TFD:-./tfd}
INTERVAL=${HANG_INTERVAL:-10ms}
RUNS=${HANG_RUNS:-5000}
REPO=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/tfd-bench-hang.XXXXXX)
# shellcheck source=bench/receiver.bash
. "$REPO/bench/receiver.bash"
start_receiver "$dir" --hang

# The total of the last tick event in file $1 (0 before the first).
last_total() {
	local t
	t=$(grep -a '"event":"tick"' "$1" | tail -n 1 | sed -n 's/.*"total":\([0-9]*\).*/\1/p')
	echo "${t:-0}"
}

# side NAME [OPTION...]: one run of the job, its figures on one line.
side() {
	local name=$1 out=$dir/$1.json pid hwm gap missed dropped
	shift
	"$TFD" -j --metrics "$dir/$name.prom" --name j -i "$INTERVAL" "$@" -- true >"$out" 2>/dev/null &
	pid=$!
	while (($(last_total "$out") < RUNS)); do
		sleep 0.2
	done
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	kill -TERM "$pid"
	wait "$pid" || true
	read -r gap missed < <(grep -a '"event":"tick"' "$out" |
		sed 's/.*"expirations":\([0-9]*\).*"unix":\([0-9.]*\).*/\1 \2/' |
		awk 'NR > 1 && ($2 - prev) * 1000 > gap { gap = ($2 - prev) * 1000 }
			{ prev = $2; missed += $1 - 1 } END { printf "%.1f %d\n", gap, missed }')
	dropped=$(awk -F' ' '/^tfd_notify_dropped_total/ { s += $2 } END { print s + 0 }' "$dir/$name.prom")
	printf '%-10s peak RSS %6s kB  longest gap %8s ms  missed %5s  dropped %5s\n' \
		"$name" "$hwm" "$gap" "$missed" "$dropped"
}

echo "notify-hang: a ${INTERVAL} job, $RUNS wake-ups, a receiver that never answers ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
side floor
side ping --ping "http://127.0.0.1:$port/hang-key"

#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/cron-probe.sh OUTDIR [JOB [HOLD]]: run by bench/cron-compare.sh
# from the cron.d lines that both cron and tfd read. Writes
# OUTDIR/RUNNER.JOB.USER.HHMM.PID, what this run sees as KEY=VALUE lines,
# and prints one line, which its daemon mails. With HOLD (seconds), the run
# then sleeps that long (past the daemons' restart in the middle), prints a
# second line and only then writes end=: a run whose output reader went
# away with its daemon ends at that line (SIGPIPE) and has no end=.
start=$(date +%s.%N)
out=$1 job=${2:-every} hold=${3:-0}
# Before any redirection of ours: what the daemon left open (the listing
# itself adds the pipe of this substitution, under both daemons alike).
# shellcheck disable=SC2012 # the names are numbers
fds=$(ls /proc/$$/fd | sort -n | paste -sd, -)
# The daemon that started us: the outermost ancestor named cron or tfd
# (each forks a copy of itself for a run as another user, in the run's
# session: the daemon is the one above it).
runner=unknown daemon=$$
pid=$$
while [ "$pid" -gt 1 ]; do
	comm=$(cat "/proc/$pid/comm" 2>/dev/null) || break
	case $comm in cron | tfd) runner=$comm daemon=$pid ;; esac
	pid=$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status")
done
user=$(id -un)
# Field 6 of /proc/self/stat (after the command's parentheses) is the
# session, field 7 the terminal (0: none).
# shellcheck disable=SC2046 # the fields are words
set -- $(sed 's/.*) //' /proc/$$/stat)
session=own
[ "$4" = "$(sed 's/.*) //' "/proc/$daemon/stat" | cut -d' ' -f4)" ] && session=daemon\'s
tty=none
[ "$5" != 0 ] && tty=$5
# The minute this run belongs to: the one it started in (runs start a
# second or two after it, never before).
record="$out/$runner.$job.$user.$(date -u -d "@${start%.*}" +%H%M).$$"
{
	echo "start=$start"
	echo "daemon=$daemon"
	echo "ids=$(id -u):$(id -g)"
	echo "groups=$(id -G | tr ' ' ,)"
	echo "cwd=$(pwd)"
	echo "session=$session"
	echo "tty=$tty"
	echo "fds=$fds"
	echo "env_keys=$(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' | grep -v '^TFD_' | sort | paste -sd, -)"
	echo "secret=${TFD_COMPARE_SECRET:-absent}"
} >"$record"
echo "runner=$runner job=$job user=$user"
[ "$hold" -gt 0 ] || exit 0
sleep "$hold"
echo "runner=$runner job=$job user=$user still running after ${hold}s"
echo "end=$(date +%s.%N)" >>"$record"

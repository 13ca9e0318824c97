#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/cron-compare.sh: the same cron.d files under Debian's cron and
# under tfd as tfd-cron.service runs it, side by side for MINUTES whole
# minutes (default 4, at least 3), as root, with a restart of each in the
# middle (issue 29). Every line runs bench/cron-probe.sh, which records
# what its run sees and prints a line, so that both daemons mail it to the
# line's user. The files hold:
#   - root's and a user's line every minute, an environment line, no
#     MAILTO (so each run's output is mailed to its user);
#   - a @reboot line for each: run once per boot by both;
#   - a "long" line for each at the second minute, whose run outlives the
#     restart and prints a second line after it;
#   - a package's file whose one line is bad (minute 61): neither runs it,
#     both run the other files;
#   - a file with a bad line beside a good one: Debian's cron ignores the
#     whole file, tfd its bad line alone (a difference, shown, not judged).
# Halfway through the second minute each daemon is stopped as its unit
# stops it (SIGTERM to the daemon alone, KillMode=process: cron's
# cron.service, tfd's --on-stop=leave) and started again; tfd's jobs are
# listed before and after. The script then compares, job by job and minute
# by minute, the runs, what they saw, the mails, the names, how late after
# the minute each started, and prints one markdown table, the ratios and a
# verdict line per property (also written to RESULTS).
#
# Both daemons run in a mount namespace of the script's own (unshare -m),
# so the host is left as it was and a cron daemon of the machine's may run
# meanwhile: a private tmpfs on /run (a boot of the script's own: neither
# /run/crond.reboot nor /run/tfd/reboot exists at the first start, and
# both go with the namespace; cron's pid file and tfd's control socket are
# there too), and /etc/crontab, /etc/cron.d and /var/spool/cron/crontabs
# bound over by the script's files, which the machine's cron never sees.
# Only the user tfcmp (made, then removed with its mailbox) and the mail
# root gets are the host's.
#
# Usage: bash bench/cron-compare.sh   (TFD=./tfd TFDCTL=./tfdctl MINUTES=4
#        RESULTS=bench/results-cron.md)
# Needs: cron, exim4 (or any sendmail delivering to /var/mail), useradd,
# unshare (util-linux).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
TFD=$(realpath "${TFD:-./tfd}")
TFDCTL=$(realpath "${TFDCTL:-./tfdctl}")
MINUTES=${MINUTES:-4}
RESULTS=${RESULTS:-bench/results-cron.md}
USER_NAME=tfcmp
# The long run's sleep: from a second or two after its minute to past the
# restart, 30 s into that minute, ending before the next minute's runs.
HOLD=${HOLD:-50}
say() { printf 'cron-compare: %s\n' "$*" >&2; }

if [[ ${CRON_COMPARE_NS:-} != inside ]]; then
	((EUID == 0)) || { say "needs root"; exit 1; }
	for tool in cron useradd userdel unshare mount /usr/sbin/sendmail "$TFD" "$TFDCTL"; do
		command -v "$tool" >/dev/null || { say "$tool missing (.ci/install-deps; make tfd tfdctl)"; exit 1; }
	done
	[[ -d /var/spool/cron/crontabs ]] || { say "/var/spool/cron/crontabs missing (Debian's cron package makes it)"; exit 1; }
	((MINUTES >= 3)) || { say "MINUTES=$MINUTES: at least 3 (a minute before the restart, its minute, one after)"; exit 1; }
	exec env CRON_COMPARE_NS=inside TFD="$TFD" TFDCTL="$TFDCTL" \
		unshare --mount --propagation private bash "${BASH_SOURCE[0]}"
fi

WORK=$(mktemp -d /tmp/cron-compare.XXXXXX)
chmod 755 "$WORK"
mkdir -m 1777 "$WORK/out"
mkdir -m 755 "$WORK/cron.d" "$WORK/lists"
mkdir -m 1730 "$WORK/crontabs"
chgrp crontab "$WORK/crontabs" 2>/dev/null
PROBE=$WORK/probe.sh
install -m 755 bench/cron-probe.sh "$PROBE"
CRON_PID='' TFD_PID=''

# Debian's /etc/crontab without its lines, so neither runs the host's
# run-parts.
printf 'SHELL=/bin/sh\nPATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin\n' >"$WORK/crontab"
chmod 644 "$WORK/crontab"
private_mount() { mount "$@" || { say "mount $*: failed"; exit 1; }; }
private_mount -t tmpfs -o mode=755,size=4m cron-compare-run /run
private_mount --bind "$WORK/cron.d" /etc/cron.d
private_mount --bind "$WORK/crontab" /etc/crontab
private_mount --bind "$WORK/crontabs" /var/spool/cron/crontabs

# Ends the probes still going (only ours: their command names our copy).
end_probes() {
	local p
	for p in /proc/[0-9]*; do
		grep -qsF "$PROBE" "$p/cmdline" && kill -TERM "${p#/proc/}" 2>/dev/null
	done
}
stop_daemons() {
	local p
	for p in $CRON_PID $TFD_PID; do kill -TERM "$p" 2>/dev/null; done
	for p in $CRON_PID $TFD_PID; do wait "$p" 2>/dev/null; done
	CRON_PID='' TFD_PID=''
}
cleanup() {
	stop_daemons
	end_probes
	userdel -r "$USER_NAME" >/dev/null 2>&1
	rm -f "/var/mail/$USER_NAME"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

useradd -m -s /bin/sh "$USER_NAME" || exit 1
# A secret in the daemons' environment, which no run as another user may
# see (cron's own environment is not passed on; tfd's must not be either).
export TFD_COMPARE_SECRET=hunter2

# Start between 0 and 40 s into a minute, so the first whole minute is at
# least 20 s away (both have loaded by then).
sec=$(($(date +%s) % 60))
((sec <= 40)) || sleep $((65 - sec))
START=$(date +%s)
FIRST=$(((START / 60 + 1) * 60))
LONG_AT=$((FIRST + 60))
RESTART_AT=$((LONG_AT + 30))
STOP_AT=$((FIRST + 60 * MINUTES - 15))
hhmm() { date -u -d "@$1" +%H%M; }
hms() { date -u -d "@$1" +%T; }
long_minute=$(date -u -d "@$LONG_AT" +%-M)

line() { printf '%s %s %s %s %s\n' "$1" "$2" "$PROBE" "$WORK/out" "$3"; }
{
	printf 'SHELL=/bin/sh\nCOMPARE_VAR=set-in-file\n'
	line '* * * * *' root every
	line '* * * * *' "$USER_NAME" every
	line '@reboot' root reboot
	line '@reboot' "$USER_NAME" reboot
	line "$long_minute * * * *" root "long $HOLD"
	line "$long_minute * * * *" "$USER_NAME" "long $HOLD"
} >"$WORK/cron.d/tfd-compare"
line '61 * * * *' root bad >"$WORK/cron.d/tfd-compare-bad"
{
	line '61 * * * *' root mixed-bad
	line '* * * * *' root mixed-good
} >"$WORK/cron.d/tfd-compare-mixed"
chmod 644 "$WORK/cron.d/"*

# Mail goes to /var/mail/USER (root's may be aliased to another box):
# what each mailbox gains while the daemons run is theirs. exim delivers
# only into a box its user owns, so the new user's is left to it.
declare -A mail_before
for box in /var/mail/*; do
	[[ -f $box ]] && mail_before[$box]=$(stat -c %s "$box")
done

# Each as its unit starts it: in /, with the small environment a service
# manager gives (PATH, LANG, and the secret a unit may give); cron as
# cron.service (cron -f), tfd as tfd-cron.service's ExecStart.
daemon_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	LANG=C.UTF-8 TFD_COMPARE_SECRET="$TFD_COMPARE_SECRET")
start_cron() {
	(cd / && exec "${daemon_env[@]}" cron -f >>"$WORK/cron.out" 2>>"$WORK/cron.log") &
	CRON_PID=$!
}
start_tfd() {
	(cd / && exec "${daemon_env[@]}" "$TFD" --jobs /etc/crontab --jobs /etc/cron.d \
		--system-crontab --user-crontabs /var/spool/cron/crontabs --control \
		--on-stop=leave >>"$WORK/tfd.out" 2>>"$WORK/tfd.log") &
	TFD_PID=$!
	local i
	for ((i = 0; i < 300; i++)); do
		"$TFDCTL" list >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	say "tfd's control socket did not answer in 30 s"
	return 1
}
# tfd's jobs as tfdctl lists them: the wide table, and from the JSON one
# line a job, its name, user and FILE:LINE.
list_jobs() {
	"$TFDCTL" list --wide >"$WORK/lists/$1.wide"
	"$TFDCTL" --json list | grep -o '"job":"[^"]*","user":"[^"]*","file":"[^"]*","line":[0-9]*' |
		sed 's/"job":"\([^"]*\)","user":"\([^"]*\)","file":"\([^"]*\)","line":\([0-9]*\)/\1 \2 \3:\4/' |
		sort >"$WORK/lists/$1"
}
sleep_until() {
	local left=$(($1 - $(date +%s)))
	((left > 0)) && sleep "$left"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start_cron
start_tfd || exit 1
CRON_PID1=$CRON_PID TFD_PID1=$TFD_PID
say "cron and tfd side by side, $MINUTES minutes from $(hhmm "$FIRST") UTC, a restart at $(hms "$RESTART_AT") ($WORK)"

sleep_until "$RESTART_AT"
list_jobs before
restart_t0=$(date +%s.%N)
kill -TERM "$CRON_PID" "$TFD_PID"
wait "$CRON_PID"
cron_stop_status=$?
wait "$TFD_PID"
tfd_stop_status=$?
# The long runs, as each daemon left them.
long_alive() {
	local f n=0
	for f in "$WORK/out/$1.long."*; do
		[[ -e $f && -e /proc/${f##*.} ]] && n=$((n + 1))
	done
	echo "$n"
}
cron_long_left=$(long_alive cron) tfd_long_left=$(long_alive tfd)
[[ -e /run/crond.reboot ]] && cron_reboot_record=yes || cron_reboot_record=no
[[ -e /run/tfd/reboot ]] && tfd_reboot_record=yes || tfd_reboot_record=no
start_cron
start_tfd || exit 1
restart_t1=$(date +%s.%N)
list_jobs after
cron_long_after=$(long_alive cron) tfd_long_after=$(long_alive tfd)

sleep_until "$STOP_AT"
stop_daemons
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
# The runs still going end on their own (the long ones ended before the
# next minute); then their mails, as many as the runs that printed, or
# whatever came 30 s after the last.
for ((i = 0; i < 120; i++)); do
	pgrep -f "$PROBE" >/dev/null || break
	sleep 0.5
done
end_probes
mail_text() {
	local box
	for box in /var/mail/*; do
		[[ -f $box ]] || continue
		tail -c +"$((${mail_before[$box]:-0} + 1))" "$box"
	done
}
printed=$(find "$WORK/out" -type f | wc -l)
for ((i = 0; i < 60; i++)); do
	(($(mail_text | grep -c '^runner=[a-z]* job=[a-z-]* user=[^ ]*$') >= printed)) && break
	sleep 0.5
done
: >"$WORK/mail.root"
for box in /var/mail/*; do
	[[ -f $box && $box != "/var/mail/$USER_NAME" ]] || continue
	tail -c +"$((${mail_before[$box]:-0} + 1))" "$box" >>"$WORK/mail.root"
done
cp "/var/mail/$USER_NAME" "$WORK/mail.user" 2>/dev/null || : >"$WORK/mail.user"

# One record per run: out/RUNNER.JOB.USER.HHMM.PID, KEY=VALUE lines.
field() { sed -n "s/^$2=//p" "$1"; }
records() {
	local f
	for f in "$WORK/out/$1.$2.$3."*; do [[ -e $f ]] && echo "$f"; done
}
# The minutes RUNNER ran JOB as USER in, within the compared minutes, as
# "HHMM ..." with "×N" after a minute run N times; then "(count)".
minutes_of() {
	local from to
	from=$(hhmm "$FIRST") to=$(hhmm $((FIRST + 60 * (MINUTES - 1))))
	records "$@" | sed 's/.*\.\([0-9]\{4\}\)\.[0-9]*$/\1/' | sort | uniq -c |
		awk -v from="$from" -v to="$to" '
			{ m = $2; if (from <= to ? (m < from || m > to) : (m < from && m > to)) next
			  s = s (s ? " " : "") m ($1 > 1 ? "×" $1 : ""); n += $1 }
			END { printf "%s (%d)\n", s ? s : "none", n }'
}
runs_of() { records "$@" | wc -l; }
# The value of FIELD in every run of RUNNER's JOB as USER, distinct, joined.
values() {
	local f
	records "$1" "$2" "$3" | while read -r f; do field "$f" "$4"; done | sort -u | paste -sd' '
}
# The mails in FILE from RUNNER's JOB (by their first line), and the
# lines a long run printed after its sleep, mailed.
mail_count() { grep -c "^runner=$2 job=$3 user=[^ ]*\$" "$1" | tr -d '\n'; }
mail_later() { grep -c "^runner=$2 job=$3 user=.* still running" "$1" | tr -d '\n'; }
# The header names of the mails in FILE whose body names RUNNER, distinct.
mail_headers() {
	awk -v runner="$2" '
		/^From / { if (hdr != "" && body ~ "runner=" runner " job=every") print hdr; hdr = ""; body = ""; inhdr = 1; next }
		inhdr && /^$/ { inhdr = 0; next }
		inhdr && /^[A-Za-z-]+:/ { name = $1; if (name ~ /^X-Cron-Env:/) name = name " " $2; hdr = hdr "\n" name; next }
		!inhdr { body = body $0 }
		END { if (hdr != "" && body ~ "runner=" runner " job=every") print hdr }' "$1" |
		grep -E '^(To|From|Subject|Content-Type|X-Cron-Env|Auto-Submitted|Precedence)' | sort -u | paste -sd' '
}

# Milliseconds from the minute to each start of RUNNER's minute jobs that
# both run (every, long), sorted.
delays() {
	local f
	for f in "$WORK/out/$1".{every,long}.*; do
		[[ -e $f ]] && field "$f" start
	done | awk '{ s = $1 - int($1 / 60) * 60; print s * 1000 }' | sort -g
}
median() { awk '{ v[NR] = $1 } END { if (!NR) { print "n/a"; exit } m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f\n", m }'; }
maximum() { awk 'END { if (!NR) print "n/a"; else printf "%.1f\n", $1 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.1f\n", a / b; else print "n/a" }'; }

rows=() verdicts=() differ=()
# A row judged: "yes" when cron's and tfd's are the same, else "no" (and
# false; its label is kept in differ).
row() {
	local same=no
	[[ $2 == "$3" ]] && same=yes
	rows+=("| $1 | $2 | $3 | $same |")
	[[ $same == yes ]] || differ+=("$1")
	[[ $same == yes ]]
}
# A row not judged: NOTE says why when they differ.
row_report() {
	local same=$4
	[[ $2 == "$3" ]] && same=yes
	rows+=("| $1 | $2 | $3 | $same |")
}
verdict() { verdicts+=("- **$1**: $2"); }

# Runs, job by job, minute by minute, and the mails.
runs_same=yes
for job in every long reboot bad; do
	for who in root "$USER_NAME"; do
		[[ $job == bad && $who != root ]] && continue
		if [[ $job == reboot ]]; then
			row "runs of @reboot as $who (at any time)" "$(runs_of cron reboot "$who")" "$(runs_of tfd reboot "$who")" || runs_same=no
		else
			row "runs of $job as $who, by minute (UTC)" "$(minutes_of cron "$job" "$who")" "$(minutes_of tfd "$job" "$who")" || runs_same=no
		fi
	done
done
for job in every reboot long; do
	row "mails of $job to root / $USER_NAME" \
		"$(mail_count "$WORK/mail.root" cron "$job") / $(mail_count "$WORK/mail.user" cron "$job")" \
		"$(mail_count "$WORK/mail.root" tfd "$job") / $(mail_count "$WORK/mail.user" tfd "$job")" || runs_same=no
done
# What each run saw: judged where SPEC asks for cron's, reported where it
# asks for something else.
for who in root "$USER_NAME"; do
	for key in ids groups tty; do
		row "every, as $who: $key" "$(values cron every "$who" "$key")" "$(values tfd every "$who" "$key")" || runs_same=no
	done
done
for key in cwd session secret; do
	row "every, as $USER_NAME: $key" "$(values cron every "$USER_NAME" "$key")" "$(values tfd every "$USER_NAME" "$key")" || runs_same=no
	row_report "every, as root: $key" "$(values cron every root "$key")" "$(values tfd every root "$key")" \
		"by design: a run as tfd's own user keeps tfd's directory, environment and session (SPEC)"
done
for who in root "$USER_NAME"; do
	row_report "every, as $who: environment keys" "$(values cron every "$who" env_keys)" "$(values tfd every "$who" env_keys)" \
		"$([[ $who == root ]] && echo "by design (tfd's own)" || echo "SPEC adds USER")"
	row_report "every, as $who: descriptors" "$(values cron every "$who" fds)" "$(values tfd every "$who" fds)" \
		"0-2 alike; the rest are dash's own"
done
row_report "mail headers (root)" "$(mail_headers "$WORK/mail.root" cron)" "$(mail_headers "$WORK/mail.root" tfd)" \
	"SPEC: X-Cron-Env for the file's variables only; tfd adds Auto-Submitted, Precedence"
row_report "mail headers ($USER_NAME)" "$(mail_headers "$WORK/mail.user" cron)" "$(mail_headers "$WORK/mail.user" tfd)" \
	"as above"
row_report "mixed file: its good line's runs (a bad line beside it)" "$(minutes_of cron mixed-good root)" \
	"$(minutes_of tfd mixed-good root)" "differs: cron ignores the file, tfd the line"
if [[ $runs_same == yes ]]; then
	verdict "same runs" "met: every job as every user, minute by minute, its ids, groups, terminal (the user's: directory, session, no secret) and its mails alike"
else
	verdict "same runs" "not met: $(printf '%s; ' "${differ[@]}" | sed 's/; $//') differ"
fi

# The bad line.
bad_warned=$(grep -c 'tfd-compare-bad:1:.*not loaded' "$WORK/tfd.log")
if (($(runs_of cron bad root) + $(runs_of tfd bad root) == 0 && bad_warned > 0)) &&
	[[ $(minutes_of cron every root) == "$(minutes_of tfd every root)" ]]; then
	verdict "a package's bad line in its own file" "met: run by neither, the other files run alike; tfd warned $bad_warned times (its start and restart), naming tfd-compare-bad:1"
else
	verdict "a package's bad line in its own file" "not met (tfd's warnings naming it: $bad_warned)"
fi
verdict "a bad line beside good ones (not judged)" "Debian's cron ran none of that file's lines ($(runs_of cron mixed-good root) runs), tfd all but the bad one ($(runs_of tfd mixed-good root) runs), as tfd-jobs(5) says"

# @reboot once per boot.
reboot_skipped=$(grep -c 'not running 2 @reboot jobs: not the first start since boot' "$WORK/tfd.log")
reboot_ok=yes
for r in cron tfd; do
	for who in root "$USER_NAME"; do
		[[ $(runs_of "$r" reboot "$who") == 1 ]] || reboot_ok=no
	done
done
for f in "$WORK/out/"*.reboot.*; do
	[[ -e $f ]] || continue
	d=$(field "$f" daemon)
	[[ $d == "$CRON_PID1" || $d == "$TFD_PID1" ]] || reboot_ok=no
done
if [[ $reboot_ok == yes && $reboot_skipped == 1 ]]; then
	verdict "@reboot once per boot" "met: each line ran once, at the first start, under both, and not at the restart (records: cron's /run/crond.reboot $cron_reboot_record, tfd's /run/tfd/reboot $tfd_reboot_record, in the namespace's /run; tfd said it did not run them)"
else
	verdict "@reboot once per boot" "not met (tfd's line saying so: $reboot_skipped)"
fi

# The restart: the long runs go on and end, no minute twice or lost.
long_ended() {
	local f n=0
	for f in $(records "$1" long root) $(records "$1" long "$USER_NAME"); do
		[[ -n $(field "$f" end) ]] && n=$((n + 1))
	done
	echo "$n"
}
cron_long_ended=$(long_ended cron) tfd_long_ended=$(long_ended tfd)
row "long runs going after the daemon stopped / after its new start / ended on their own" \
	"$cron_long_left / $cron_long_after / $cron_long_ended" "$tfd_long_left / $tfd_long_after / $tfd_long_ended"
cron_later="$(mail_later "$WORK/mail.root" cron long) / $(mail_later "$WORK/mail.user" cron long)"
tfd_later="$(mail_later "$WORK/mail.root" tfd long) / $(mail_later "$WORK/mail.user" tfd long)"
row "long runs' lines printed after the restart, mailed (root / $USER_NAME)" "$cron_later" "$tfd_later"
# What the daemons printed of the runs' output instead of mailing it.
row "run output on the daemon's own stdout instead of a mail (lines)" \
	"$(grep -c 'runner=' "$WORK/cron.out")" "$(grep -c 'runner=' "$WORK/tfd.out")"
row_report "exit status of the stop (SIGTERM)" "$cron_stop_status" "$tfd_stop_status" "report"
minutes_ok=yes
for r in cron tfd; do
	for who in root "$USER_NAME"; do
		[[ $(minutes_of "$r" every "$who") == *"($MINUTES)" && $(minutes_of "$r" every "$who") != *×* ]] || minutes_ok=no
	done
done
if ((cron_long_left == 2 && tfd_long_left == 2 && cron_long_ended == 2 && tfd_long_ended == 2)) &&
	[[ $minutes_ok == yes && $cron_later == "1 / 1" && $tfd_later == "1 / 1" ]]; then
	verdict "a restart in the middle" "met: the runs going kept running to their end under both, their later output mailed, every minute ran once under both"
else
	verdict "a restart in the middle" "not met: long runs going after the stop, cron $cron_long_left of 2, tfd $tfd_long_left of 2; ended on their own, cron $cron_long_ended, tfd $tfd_long_ended; their lines after the restart mailed, cron $cron_later, tfd $tfd_later; every minute once under both: $minutes_ok"
fi

# The names.
names=$(wc -l <"$WORK/lists/before")
if cmp -s "$WORK/lists/before" "$WORK/lists/after" && ((names > 0)); then
	verdict "tfd's names across the restart" "met: the same $names jobs, names, users and FILE:LINE before and after ($(cut -d' ' -f1 "$WORK/lists/before" | paste -sd' '))"
else
	verdict "tfd's names across the restart" "not met: $(diff "$WORK/lists/before" "$WORK/lists/after" | paste -sd' ')"
fi

# Start after the minute.
cron_med=$(delays cron | median) cron_max=$(delays cron | maximum)
tfd_med=$(delays tfd | median) tfd_max=$(delays tfd | maximum)
med_ratio=$(ratio "$cron_med" "$tfd_med") max_ratio=$(ratio "$cron_max" "$tfd_max")
if awk -v a="$tfd_med" -v b="$cron_med" -v c="$tfd_max" -v d="$cron_max" 'BEGIN { exit !(a <= b && c <= d) }'; then
	verdict "start after the minute" "met: tfd median $tfd_med ms, max $tfd_max ms; cron $cron_med ms, $cron_max ms ($(delays cron | wc -l) and $(delays tfd | wc -l) runs): tfd ${med_ratio}× sooner at the median, ${max_ratio}× at the max"
else
	verdict "start after the minute" "not met: tfd median $tfd_med ms, max $tfd_max ms; cron $cron_med ms, $cron_max ms"
fi

{
	printf '## cron and tfd-cron.service on the same cron.d files, %s minutes, a restart in the middle (%s)\n\n' \
		"$MINUTES" "$(date -u -d "@$START" '+%F %H:%M UTC')"
	printf 'tfd %s (%s); Debian cron %s; load average %s at the start, %s at the end; restart at %s UTC, %.1f s from the stop to both up again.\n\n' \
		"$("$TFD" --version | head -1 | awk '{ print $NF }')" "$(git rev-parse --short HEAD 2>/dev/null)" \
		"$(dpkg-query -W -f '${Version}' cron 2>/dev/null)" "$load_start" "$load_end" \
		"$(hms "$RESTART_AT")" "$(awk -v a="$restart_t0" -v b="$restart_t1" 'BEGIN { print b - a }')"
	printf '| run by run | Debian cron | tfd | same? |\n|---|---|---|---|\n'
	printf '%s\n' "${rows[@]}"
	printf '| start after the minute, median / max (ms) | %s / %s | %s / %s | ratio cron/tfd %s / %s |\n\n' \
		"$cron_med" "$cron_max" "$tfd_med" "$tfd_max" "$med_ratio" "$max_ratio"
	printf '%s\n' "${verdicts[@]}"
	printf '\ntfd'"'"'s jobs after the restart (tfdctl list --wide):\n\n```\n'
	sed 's/ *$//' "$WORK/lists/after.wide"
	printf '```\n'
} | tee "$RESULTS"

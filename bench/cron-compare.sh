#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/cron-compare.sh: the same cron.d file under Debian's cron and under
# tfd --system-crontab, side by side for MINUTES minutes (default 3), as
# root. Each line runs bench/cron-probe.sh, which records what its run sees
# (ids, groups, environment keys, directory, session, terminal, descriptors)
# and prints one line, so that both daemons mail it to the line's user. The
# script then compares, run by run, what cron's and tfd's runs saw, the
# headers of the mails each sent, and how late after the minute each
# started, and prints one markdown table (also written to RESULTS).
#
# Usage: bash bench/cron-compare.sh   (TFD=./tfd MINUTES=3
#        RESULTS=bench/results-cron.md)
# Needs: cron, exim4 (or any sendmail delivering to /var/mail), useradd.
# Touches the host: /etc/cron.d/tfd-compare, /etc/cron.d/tfd-compare-bad and
# the user tfcmp while it runs (all removed at the end); refuses to run
# while a cron daemon is running.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
TFD=${TFD:-./tfd}
MINUTES=${MINUTES:-3}
RESULTS=${RESULTS:-bench/results-cron.md}
USER_NAME=tfcmp
CRON_FILE=/etc/cron.d/tfd-compare
CRON_BAD=/etc/cron.d/tfd-compare-bad
say() { printf 'cron-compare: %s\n' "$*" >&2; }

((EUID == 0)) || { say "needs root"; exit 1; }
for tool in cron useradd /usr/sbin/sendmail; do
	command -v "$tool" >/dev/null || { say "$tool missing (.ci/install-deps)"; exit 1; }
done
if pgrep -x cron >/dev/null; then
	say "a cron daemon is running already; stop it first"
	exit 1
fi

WORK=$(mktemp -d /tmp/cron-compare.XXXXXX)
chmod 755 "$WORK"
mkdir -m 1777 "$WORK/out"
mkdir -m 755 "$WORK/tfd.d"
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	rm -f "$CRON_FILE" "$CRON_BAD"
	userdel -r "$USER_NAME" >/dev/null 2>&1
	rm -f "/var/mail/$USER_NAME"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

useradd -m -s /bin/sh "$USER_NAME" || exit 1
install -m 755 bench/cron-probe.sh "$WORK/probe.sh"
# A secret in the daemons' environment, which no run as another user may
# see (cron's own environment is not passed on; tfd's must not be either).
export TFD_COMPARE_SECRET=hunter2

# The file both read: root's and a user's line, an environment line, and
# MAILTO left unset, so that each run's output is mailed to its user.
jobs_file() {
	printf 'SHELL=/bin/sh\nCOMPARE_VAR=set-in-file\n'
	printf '* * * * * %s %s %s\n' root "$WORK/probe.sh" "$WORK/out"
	printf '* * * * * %s %s %s\n' "$USER_NAME" "$WORK/probe.sh" "$WORK/out"
}
jobs_file >"$CRON_FILE"
jobs_file >"$WORK/tfd.d/compare"
# And a package's bad file beside it (minute 61): neither runs it, and
# both run the other file (Debian's cron ignores the whole file, tfd the
# line, with a warning naming it).
printf '61 * * * * root %s %s\n' "$WORK/probe.sh" "$WORK/out" | tee "$CRON_BAD" >"$WORK/tfd.d/compare-bad"
chmod 644 "$CRON_FILE" "$CRON_BAD" "$WORK/tfd.d/compare" "$WORK/tfd.d/compare-bad"
# Mail goes to /var/mail/USER (root's may be aliased to another box):
# what each mailbox gains while the daemons run is theirs. exim delivers
# only into a box its user owns, so the new user's is left to it.
declare -A mail_before
for box in /var/mail/*; do
	[[ -f $box ]] && mail_before[$box]=$(stat -c %s "$box")
done

start=$(date +%s)
(cd / && exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 TFD_COMPARE_SECRET="$TFD_COMPARE_SECRET" cron -f -L 0 2>>"$WORK/cron.log") &
PIDS+=("$!")
# Both as a service manager starts them: in /, with a small environment
# (PATH, LANG, and the secret a unit may give).
tfd_abs=$(realpath "$TFD")
(cd / && exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 TFD_COMPARE_SECRET="$TFD_COMPARE_SECRET" \
	"$tfd_abs" --jobs "$WORK/tfd.d" --system-crontab 2>>"$WORK/tfd.log") &
PIDS+=("$!")
say "cron and tfd side by side for $MINUTES minutes ($WORK)"
# Whole minutes from the first one at least 5 s away, then 20 s for the
# last mails.
until_s=$(((start + 5) / 60 * 60 + 60 * MINUTES + 20))
sleep $((until_s - $(date +%s)))
cleanup_daemons() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	PIDS=()
}
cleanup_daemons
: >"$WORK/mail.root"
for box in /var/mail/*; do
	[[ -f $box && $box != "/var/mail/$USER_NAME" ]] || continue
	tail -c +"$((${mail_before[$box]:-0} + 1))" "$box" >>"$WORK/mail.root"
done
cp "/var/mail/$USER_NAME" "$WORK/mail.user" 2>/dev/null || : >"$WORK/mail.user"

# One record per run: out/RUNNER.USER.MINUTE, KEY=VALUE lines.
field() { sed -n "s/^$2=//p" "$1"; }
runs_of() {
	local f n=0
	for f in "$WORK/out/$1.$2."*; do [[ -e $f ]] && n=$((n + 1)); done
	printf '%d\n' "$n"
}
# The value of FIELD in every run of RUNNER as USER, distinct, joined.
values() {
	local f
	for f in "$WORK/out/$1.$2."*; do
		[[ -e $f ]] && field "$f" "$3"
	done | sort -u | paste -sd' '
}

# The header names of the mails in FILE whose body names RUNNER, distinct.
mail_headers() {
	awk -v runner="$2" '
		/^From / { if (hdr != "" && body ~ "runner=" runner) print hdr; hdr = ""; body = ""; inhdr = 1; next }
		inhdr && /^$/ { inhdr = 0; next }
		inhdr && /^[A-Za-z-]+:/ { name = $1; if (name ~ /^X-Cron-Env:/) name = name " " $2; hdr = hdr "\n" name; next }
		!inhdr { body = body $0 }
		END { if (hdr != "" && body ~ "runner=" runner) print hdr }' "$1" |
		grep -E '^(To|From|Subject|Content-Type|X-Cron-Env|Auto-Submitted|Precedence)' | sort -u | paste -sd' '
}
mail_count() { grep -c "runner=$2" "$1" 2>/dev/null; }

lateness() {
	local f
	for f in "$WORK/out/$1".*; do
		[[ -e $f ]] && field "$f" start
	done | awk '{ l = ($1 % 60) * 1000; if (l > 30000) l -= 60000; print l }' | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) { print "n/a"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.1f / %.1f / %.1f", v[1], m, v[NR] }'
}

rows=()
row() {
	local same=no
	[[ $2 == "$3" ]] && same=yes
	rows+=("| $1 | $2 | $3 | $same |")
}
for who in root "$USER_NAME"; do
	row "runs as $who (count)" "$(runs_of cron "$who")" "$(runs_of tfd "$who")"
	for key in ids groups cwd session tty fds env_keys secret; do
		row "as $who: $key" "$(values cron "$who" "$key")" "$(values tfd "$who" "$key")"
	done
done
row "mails to root (count)" "$(mail_count "$WORK/mail.root" cron)" "$(mail_count "$WORK/mail.root" tfd)"
row "mails to $USER_NAME (count)" "$(mail_count "$WORK/mail.user" cron)" "$(mail_count "$WORK/mail.user" tfd)"
row "mail headers (root)" "$(mail_headers "$WORK/mail.root" cron)" "$(mail_headers "$WORK/mail.root" tfd)"
row "mail headers ($USER_NAME)" "$(mail_headers "$WORK/mail.user" cron)" "$(mail_headers "$WORK/mail.user" tfd)"
late_cron=$(lateness cron) late_tfd=$(lateness tfd)

{
	printf '## cron and tfd --system-crontab on one cron.d file, %s minutes (%s)\n\n' "$MINUTES" "$(date -u '+%F %H:%M UTC')"
	printf '| what each run saw | Debian cron | tfd | same? |\n|---|---|---|---|\n'
	printf '%s\n' "${rows[@]}"
	printf '| start after the minute, min / median / max (ms) | %s | %s | report |\n' "$late_cron" "$late_tfd"
} | tee "$RESULTS"

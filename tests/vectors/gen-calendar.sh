#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-calendar.sh: regenerates tests/vectors/calendar.tsv, the project's own
# calendar-event vectors, from the reference oracle (systemd-analyze, systemd
# 252, as on Debian 12):
#
#   tests/vectors/gen-calendar.sh > tests/vectors/calendar.tsv
#
# Every case is run as
#
#   TZ=<tz> systemd-analyze --base-time=@<base> calendar --iterations=5 -- <input>
#
# and its elapses are written as epoch seconds, or "never" / "error", in the
# format of shared/corpus/calendar.tsv. systemd-analyze prints whole seconds
# only; for the cases marked "fraction" the script finds each elapse to the
# microsecond by bisecting --base-time (the elapse is the first base at which
# the next elapse changes), and writes it as "S.ffffff". Such cases must have
# elapses at least a second apart.
#
# A case line below is "tz<TAB>base<TAB>input[<TAB>fraction]"; "#" lines are
# copied to the output as they are.
set -eu

TAB=$(printf '\t')

# The UTC wall times that systemd-analyze prints for the elapses, as
# "YYYY-MM-DD HH:MM:SS" lines: the "(in UTC)" lines, or the elapse lines
# themselves when the local zone is UTC.
utc_lines() {
	sed -n -e 's/^ *(in UTC): [A-Za-z]* \([0-9-]* [0-9:]*\) UTC$/\1/p' \
	       -e 's/^ *Next elapse: [A-Za-z]* \([0-9-]* [0-9:]*\) UTC$/\1/p' \
	       -e 's/^ *Iter\. #[0-9]*: [A-Za-z]* \([0-9-]* [0-9:]*\) UTC$/\1/p'
}

# elapses TZ BASE INPUT ITERATIONS: the elapses after BASE as whole epoch
# seconds separated by spaces, or "never" or "error".
elapses() {
	if ! out=$(TZ=$1 systemd-analyze --base-time="@$2" calendar \
		--iterations="$4" -- "$3" 2>/dev/null); then
		echo error
		return
	fi
	case $out in
	*"Next elapse: never"*)
		echo never
		return
		;;
	esac
	printf '%s\n' "$out" | utc_lines | while read -r day time; do
		date -u -d "$day $time" +%s
	done | paste -s -d ' ' -
}

# Formats a count of microseconds as seconds with the fraction, if any.
format_us() {
	frac=$(printf '%06d' $(($1 % 1000000)) | sed 's/0*$//')
	if [ -n "$frac" ]; then
		printf '%d.%s' $(($1 / 1000000)) "$frac"
	else
		printf '%d' $(($1 / 1000000))
	fi
}

# refine TZ INPUT PREV_US SECOND: the exact elapse (in microseconds) that
# systemd shows as SECOND, the first one after PREV_US.
refine() {
	lo=$(($4 * 1000000 - 1))
	[ "$lo" -ge "$3" ] || lo=$3
	hi=$(($4 * 1000000 + 999999))
	while [ $((hi - lo)) -gt 1 ]; do
		mid=$(((lo + hi) / 2))
		if [ "$(elapses "$1" "$(format_us "$mid")" "$2" 1)" = "$4" ]; then
			lo=$mid
		else
			hi=$mid
		fi
	done
	echo "$hi"
}

# expected TZ BASE INPUT FRACTION: the expected column for one case.
expected() {
	result=$(elapses "$1" "$2" "$3" 5)
	case $result in
	never | error | "")
		echo "${result:-never}"
		return
		;;
	esac
	if [ "$4" != fraction ]; then
		echo "$result"
		return
	fi
	prev=$(($2 * 1000000))
	list=
	for second in $result; do
		prev=$(refine "$1" "$3" "$prev" "$second")
		list="$list${list:+ }$(format_us "$prev")"
	done
	echo "$list"
}

cases() {
	cat <<'EOF'
# Europe/Berlin, spring forward on 2026-03-29 (02:00 CET -> 03:00 CEST); base
# 1774738800 is that day's 00:00 CET. Wall times in the gap are skipped, not
# shifted: a daily 02:30 does not run that day, an hour field of 2 skips it.
Europe/Berlin	1774738800	*-*-* 02:30
Europe/Berlin	1774738800	*:0/20
Europe/Berlin	1774738800	*-*-* 01..03:00/30
Europe/Berlin	1774738800	2026-03-29 02:30
Europe/Berlin	1774738800	*-03-29 02:30
Europe/Berlin	1774738800	minutely
# Europe/Berlin, fall back on 2026-10-25 (03:00 CEST -> 02:00 CET); base
# 1792879200 is that day's 00:00 CEST. The repeated hour fires only once,
# also for hourly and every-20-minutes events.
Europe/Berlin	1792879200	*-*-* 02:30
Europe/Berlin	1792879200	hourly
Europe/Berlin	1792879200	*:0/20
Europe/Berlin	1792879200	*-*-* 02:*:00
# Base inside the repeated hour (02:10 CET, the second 02:10).
Europe/Berlin	1792883400	*:0/15
# America/New_York, spring forward on 2026-03-08 (02:00 EST -> 03:00 EDT) and
# fall back on 2026-11-01 (02:00 EDT -> 01:00 EST).
America/New_York	1772946000	*-*-* 02:30
America/New_York	1772946000	*:15
America/New_York	1772946000	*-*-* 01,02,03:00
America/New_York	1772946000	Sun *-*-* 02:00
America/New_York	1762056000	*-*-* 01:30
America/New_York	1762056000	*:0/20
America/New_York	1762056000	*-*-* 01:59:59
America/New_York	1762056000	hourly
# Australia/Lord_Howe moves its clocks by half an hour: 02:00 -> 02:30 on
# 2026-10-04 (base 1791034200 = 00:00 that day) and 02:00 -> 01:30 on
# 2026-04-05 (base 1775307600 = 00:00 that day).
Australia/Lord_Howe	1791034200	*-*-* 02:15
Australia/Lord_Howe	1791034200	*:0/15
Australia/Lord_Howe	1791034200	hourly
Australia/Lord_Howe	1791034200	*-*-* 02:00..03:00/10
Australia/Lord_Howe	1775307600	*-*-* 01:45
Australia/Lord_Howe	1775307600	*:0/15
Australia/Lord_Howe	1775307600	hourly
Australia/Lord_Howe	1775307600	daily
# The event's own zone overrides TZ, also across that zone's DST changes.
UTC	1791034200	*:0/15 Australia/Lord_Howe
UTC	1772946000	*-*-* 02:30 America/New_York
America/New_York	1774738800	*-*-* 02:30 Europe/Berlin
Europe/Berlin	1781526896	daily America/New_York
Australia/Lord_Howe	1781526896	Mon..Fri 09:00 Asia/Kolkata
America/New_York	1781526896	*:0/30 UTC
America/New_York	1781526896	hourly utc
Europe/Berlin	1781526896	*-*-* 12:00 Europe/Nowhere
Europe/Berlin	1781526896	*-*-* 12:00 europe/berlin
Europe/Berlin	1781526896	*-*-* 12:00 Europe//Berlin
Europe/Berlin	1781526896	*-*-* 12:00 posix/Europe/Berlin
UTC	1781526896	*-*-* 12:00 EST5EDT
# An abbreviation of the local zone (TZ) forces daylight saving off or on
# (systemd's tzname[] suffix): in summer "12:00 EST" never matches in New
# York, "12:00 EDT" does; in another zone EDT is unknown and EST is the
# zoneinfo file EST.
America/New_York	1781526896	*-*-* 12:00 EST
America/New_York	1781526896	*-*-* 12:00 edt
America/New_York	1767225600	*-*-* 12:00 EST
America/New_York	1772946000	hourly EST
Europe/Berlin	1781526896	*-*-* 12:00 CEST
Europe/Berlin	1781526896	*-*-* 12:00 EDT
Europe/Berlin	1781526896	*-*-* 12:00 EST
Australia/Lord_Howe	1775307600	*:0/15 +11
# Leap days.
UTC	1781526896	*-02-29
Europe/Berlin	1781526896	*-02-29 12:00
UTC	1781526896	Mon *-02-29
UTC	1781526896	2028-02-29 23:59:59
UTC	1781526896	2027-02-29
UTC	1781526896	*-02-28,29 06:00
UTC	4070908800	*-02-29
# Days counted from the end of the month ('~').
UTC	1781526896	*-*~01
UTC	1781526896	*-02~01
UTC	1781526896	*-02~03/2
UTC	1781526896	Fri *-*~07/1
UTC	1781526896	*-*~01..07/2
UTC	1781526896	*-*~1,15
UTC	1781526896	*-*~28
UTC	1781526896	*-*~29
UTC	1781526896	*-*~12,22,04
UTC	1781526896	*-*~23,12,22
America/New_York	1769853600	*-*~01 23:30
# Year boundaries and the last year systemd searches (2199).
UTC	1798761599	yearly
UTC	1798761598	*-12-31 23:59:59
Europe/Berlin	1798758000	*-01-01 00:00:00
Europe/Berlin	1798757999	Fri *-*-* 23:59:59
UTC	7258114800	hourly
UTC	1781526896	2199-12-31 23:59:59
UTC	7226582400	*-02-29
UTC	1781526896	2200-01-01
# Fractional seconds (microsecond precision, the seventh digit rounds).
UTC	1781526896	*-*-* 00:00:01.125..05.125	fraction
UTC	1781526896	*:*:07.5	fraction
UTC	1781526896	*:0/15:30.25	fraction
Europe/Berlin	1781526896	12:00:00.000001	fraction
UTC	1781526896	*:*:0/7.5	fraction
UTC	1781526896	2027-01-01 00:00:00.9999995	fraction
UTC	1781526896	2027-01-01 00:00:00.1234564	fraction
UTC	1781526896	*:*:1.0..3.8
UTC	1781526896	00:00:1.5..2.0
UTC	1781526896	*:*:*.5
# Repeated (fall-back) hours in other zones, from bases before, inside and
# after the fold, and a season away (issue 11 item 8). Every fold is one
# that has already happened: governments change their rules at short notice
# and tzdata follows (2026f: Cuba kept summer time past November 2026), so a
# fold still in the future when a release of tzdata was made may vanish in
# the next one, and the vectors would then test the tzdata, not tfd.
Australia/Sydney	1775307600	*-*-* 02:30
Australia/Sydney	1775307600	hourly
Australia/Sydney	1775307600	*:0/15
Australia/Sydney	1775307600	*-*-* 02:*:00
Australia/Sydney	1775320201	*-*-* 02:30
Australia/Sydney	1775320201	hourly
Australia/Sydney	1775320201	*:0/15
Australia/Sydney	1775320201	*-*-* 02:*:00
Australia/Sydney	1775323801	*-*-* 02:30
Australia/Sydney	1775323801	hourly
Australia/Sydney	1775323801	*:0/15
Australia/Sydney	1775323801	*-*-* 02:*:00
Australia/Sydney	1767531600	*-*-* 02:30
Australia/Sydney	1767531600	hourly
Australia/Sydney	1767531600	*:0/15
Australia/Sydney	1767531600	*-*-* 02:*:00
Australia/Lord_Howe	1775307600	*-*-* 01:45
Australia/Lord_Howe	1775307600	hourly
Australia/Lord_Howe	1775307600	*:0/15
Australia/Lord_Howe	1775307600	*-*-* 01:*:00
Australia/Lord_Howe	1775315701	*-*-* 01:45
Australia/Lord_Howe	1775315701	hourly
Australia/Lord_Howe	1775315701	*:0/15
Australia/Lord_Howe	1775315701	*-*-* 01:*:00
Australia/Lord_Howe	1775319301	*-*-* 01:45
Australia/Lord_Howe	1775319301	hourly
Australia/Lord_Howe	1775319301	*:0/15
Australia/Lord_Howe	1775319301	*-*-* 01:*:00
Australia/Lord_Howe	1767531600	*-*-* 01:45
Australia/Lord_Howe	1767531600	hourly
Australia/Lord_Howe	1767531600	*:0/15
Australia/Lord_Howe	1767531600	*-*-* 01:*:00
America/Havana	1762056000	*-*-* 00:30
America/Havana	1762056000	hourly
America/Havana	1762056000	*:0/15
America/Havana	1762056000	*-*-* 00:*:00
America/Havana	1762057801	*-*-* 00:30
America/Havana	1762057801	hourly
America/Havana	1762057801	*:0/15
America/Havana	1762057801	*-*-* 00:*:00
America/Havana	1762061401	*-*-* 00:30
America/Havana	1762061401	hourly
America/Havana	1762061401	*:0/15
America/Havana	1762061401	*-*-* 00:*:00
America/Havana	1754193600	*-*-* 00:30
America/Havana	1754193600	hourly
America/Havana	1754193600	*:0/15
America/Havana	1754193600	*-*-* 00:*:00
Pacific/Chatham	1775297700	*-*-* 02:50
Pacific/Chatham	1775297700	hourly
Pacific/Chatham	1775297700	*:0/15
Pacific/Chatham	1775297700	*-*-* 02:*:00
Pacific/Chatham	1775311501	*-*-* 02:50
Pacific/Chatham	1775311501	hourly
Pacific/Chatham	1775311501	*:0/15
Pacific/Chatham	1775311501	*-*-* 02:*:00
Pacific/Chatham	1775315101	*-*-* 02:50
Pacific/Chatham	1775315101	hourly
Pacific/Chatham	1775315101	*:0/15
Pacific/Chatham	1775315101	*-*-* 02:*:00
Pacific/Chatham	1767521700	*-*-* 02:50
Pacific/Chatham	1767521700	hourly
Pacific/Chatham	1767521700	*:0/15
Pacific/Chatham	1767521700	*-*-* 02:*:00
America/Sao_Paulo	1550282400	*-*-* 23:30
America/Sao_Paulo	1550282400	hourly
America/Sao_Paulo	1550282400	*:0/15
America/Sao_Paulo	1550282400	*-*-* 23:*:00
America/Sao_Paulo	1550367001	*-*-* 23:30
America/Sao_Paulo	1550367001	hourly
America/Sao_Paulo	1550367001	*:0/15
America/Sao_Paulo	1550367001	*-*-* 23:*:00
America/Sao_Paulo	1550370601	*-*-* 23:30
America/Sao_Paulo	1550370601	hourly
America/Sao_Paulo	1550370601	*:0/15
America/Sao_Paulo	1550370601	*-*-* 23:*:00
America/Sao_Paulo	1542506400	*-*-* 23:30
America/Sao_Paulo	1542506400	hourly
America/Sao_Paulo	1542506400	*:0/15
America/Sao_Paulo	1542506400	*-*-* 23:*:00
Europe/Berlin	1792879200	*-*-* 02:30
Europe/Berlin	1792879200	hourly
Europe/Berlin	1792879200	*:0/15
Europe/Berlin	1792879200	*-*-* 02:*:00
Europe/Berlin	1792891801	*-*-* 02:30
Europe/Berlin	1792891801	hourly
Europe/Berlin	1792891801	*:0/15
Europe/Berlin	1792891801	*-*-* 02:*:00
Europe/Berlin	1792895401	*-*-* 02:30
Europe/Berlin	1792895401	hourly
Europe/Berlin	1792895401	*:0/15
Europe/Berlin	1792895401	*-*-* 02:*:00
Europe/Berlin	1785103200	*-*-* 02:30
Europe/Berlin	1785103200	hourly
Europe/Berlin	1785103200	*:0/15
Europe/Berlin	1785103200	*-*-* 02:*:00
America/New_York	1762056000	*-*-* 01:30
America/New_York	1762056000	hourly
America/New_York	1762056000	*:0/15
America/New_York	1762056000	*-*-* 01:*:00
America/New_York	1762061401	*-*-* 01:30
America/New_York	1762061401	hourly
America/New_York	1762061401	*:0/15
America/New_York	1762061401	*-*-* 01:*:00
America/New_York	1793514601	*-*-* 01:30
America/New_York	1793514601	hourly
America/New_York	1793514601	*:0/15
America/New_York	1793514601	*-*-* 01:*:00
America/New_York	1754193600	*-*-* 01:30
America/New_York	1754193600	hourly
America/New_York	1754193600	*:0/15
America/New_York	1754193600	*-*-* 01:*:00
# Weekday lists and ranges, shorthands.
UTC	1781526896	Sat..Mon 10:00
UTC	1781526896	mon-wed,FRIDAY *-*-01..07 08:00
UTC	1781526896	Wed..Mon
UTC	1781526896	quarterly
UTC	1781526896	semi-annually
UTC	1781526896	bi-annually
UTC	1781526896	anually
UTC	1781526896	@1800000000
UTC	1781526896	@-1
UTC	1781526896	@ 1800000000
EOF
}

printf 'tz\tbase_time_epoch_s\tinput\texpected_next5_epoch_s\n'
printf '# Generated by tests/vectors/gen-calendar.sh from systemd-analyze %s; do not edit.\n' \
	"$(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
printf '# Elapses with a fraction are exact to the microsecond (found by bisection).\n'
cases | while IFS=$TAB read -r tz base input flag; do
	case $tz in
	'#'*)
		printf '%s\n' "$tz"
		continue
		;;
	esac
	printf '%s\t%s\t%s\t%s\n' "$tz" "$base" "$input" \
		"$(expected "$tz" "$base" "$input" "${flag:-}")"
done

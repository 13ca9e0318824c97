# SPDX-License-Identifier: MIT
# fish completion for tfd(1). Installed as
# share/fish/vendor_completions.d/tfd.fish.

# Options whose value is the next word; the command starts after them.
set -g __fish_tfd_arg_opts --name -c --clock -a --at -d --delay -i --interval \
    -n --count --for --calendar --cron --base-time -e --exec -f --format \
    --overlap --timeout --retry --retry-delay --random-delay --persist \
    --cgroup --join --user --jobs --user-crontabs --metrics --listen --fleet \
    --replica --fleet-lease --fleet-deadline --fleet-keep --on-stop --kill-after \
    --on-failure --on-success --ping --notify --notify-on

# Prints the index in (commandline -opc) of the word where the command
# starts: after "--", or the first word that is neither an option nor an
# option's value, as popt sees it. When no command has started, the word
# under the cursor starts it (index one past the end) unless it is an
# option or an option's value; then it fails.
function __fish_tfd_command_start
    set -l tokens (commandline -opc)
    set -l want_value 0
    for i in (seq 2 (count $tokens))
        set -l token $tokens[$i]
        if test $want_value -eq 1
            set want_value 0
            continue
        end
        switch $token
            case --
                echo (math $i + 1)
                return 0
            case '--*=*'
                continue
            case $__fish_tfd_arg_opts
                set want_value 1
            case '-?*'
                # A cluster such as "-qc" ends with an option that takes
                # the next word; "-n5" carries its value.
                string match -qr -- '^-[^-cadinef]*[cadinef]$' $token
                and set want_value 1
            case '*'
                echo $i
                return 0
        end
    end
    test $want_value -eq 0
    and not string match -q -- '-*' (commandline -ct)
    and echo (math (count $tokens) + 1)
end

function __fish_tfd_in_command
    __fish_tfd_command_start >/dev/null
end

# Completes the command and its arguments with the command's own
# completions, from the words that follow tfd's options.
function __fish_tfd_complete_command
    set -l tokens (commandline -opc)
    set -l start (__fish_tfd_command_start)
    or return
    set -l words
    for i in (seq $start (count $tokens))
        set -a words $tokens[$i]
    end
    __fish_complete_subcommand --commandline $words (commandline -ct)
end

function __fish_tfd_clocks
    printf '%s\t%s\n' \
        monotonic 'Time since boot, without suspend (default)' \
        realtime 'Wall-clock time' \
        boottime 'Time since boot, with suspend' \
        realtime-alarm 'Wall-clock time, wakes the system' \
        boottime-alarm 'Time since boot, wakes the system'
end

function __fish_tfd_overlap_policies
    printf '%s\t%s\n' \
        skip 'Run nothing at this wake-up (default)' \
        queue 'Run once more when the current run ends' \
        kill 'SIGTERM the old run, then start' \
        parallel 'Start another run alongside'
end

function __fish_tfd_cgroups
    set -l cur (commandline -ct)
    string match -q -- '--cgroup=*' $cur; and set cur (string replace -- '--cgroup=' '' $cur)
    if test -z "$cur"; and test -d /sys/fs/cgroup
        set cur /sys/fs/cgroup/
    end
    __fish_complete_directories $cur
end

# tfd's own options are offered only before the command; files only where
# they are wanted.
complete -c tfd -f
set -l opt -c tfd -n 'not __fish_tfd_in_command'

# Schedule
complete $opt -l name -x -d "The job's name in lines, events and metrics"
complete $opt -s c -l clock -xa '(__fish_tfd_clocks)' -d 'Clock of the timer'
complete $opt -s a -l at -x -d 'First expiration at an absolute time'
complete $opt -s d -l delay -x -d 'First expiration after a duration'
complete $opt -s i -l interval -x -d 'Period after the first expiration'
complete $opt -s n -l count -x -d 'Stop after N expirations'
complete $opt -l for -x -d 'Stop a duration after start'
complete $opt -l calendar -x -a 'minutely hourly daily weekly monthly yearly quarterly semiannually' -d 'systemd.time(7) calendar event'
complete $opt -l cron -x -a '@hourly @daily @weekly @monthly @yearly' -d '5-field cron expression'
complete $opt -l dry-run -d 'Print the next N expirations and exit'
complete $opt -l base-time -x -d 'With --dry-run, take this time as now'

# Wake-up actions
complete $opt -s e -l exec -xa '(__fish_complete_command)' -d 'Run a string with /bin/sh -c'
complete $opt -s f -l format -x -d 'Line printed per wake-up'
complete $opt -l tag-output -d "Label each line of a run's output with its job"
complete $opt -s j -l json -d 'Print one JSON object per wake-up'
complete $opt -s q -l quiet -d 'Print no tick lines'
complete $opt -l precise -d 'Trade power for timing (SCHED_FIFO, mlockall)'
complete $opt -l stats -d 'Print a summary line on stderr at exit'
complete $opt -s v -l verbose -d 'Print the timer setting on stderr'

# Runner options
complete $opt -l overlap -xa '(__fish_tfd_overlap_policies)' -d 'What to do with a run still going'
complete $opt -l timeout -x -d 'SIGTERM a run that lasts longer'
complete $opt -l retry -x -d 'Try a failing run up to N more times'
complete $opt -l retry-delay -x -d 'First wait before a retry, doubling each time'
complete $opt -s E -l exit-on-error -d 'Stop at the first run that fails'
complete $opt -l on-stop -xa 'forward wait leave' -d 'What SIGTERM and SIGINT do to the runs going'
complete $opt -l kill-after -x -d 'SIGKILL a run this long after its SIGTERM'
complete $opt -l ping -x -d 'Ping URL/start, URL, URL/fail as healthchecks.io takes them'
complete $opt -l notify -x -d 'POST each failed run\'s exit event to URL as JSON'
complete $opt -l notify-on -xa 'failure always' -d 'Which runs --notify tells of'
complete $opt -l log-runs -d 'A line on stderr for each run start and end'
complete $opt -l random-delay -x -d 'Delay each action by a random time up to this'
complete $opt -l persist -r -F -d 'Remember the last run in a file'
complete $opt -l cgroup -xa '(__fish_tfd_cgroups)' -d 'Start each run in a cgroup v2 directory'
complete $opt -l join -xa '(__fish_complete_pids)' -d 'Start each run in the namespaces of a process'
complete $opt -l user -xa '(__fish_complete_users)' -d 'Run each run as a user'
complete $opt -l on-failure -xa '(__fish_complete_command)' -d 'Shell command after a run fails'
complete $opt -l on-success -xa '(__fish_complete_command)' -d 'Shell command after a run succeeds'
complete $opt -l system-crontab -d 'Crontab lines name a user, as /etc/crontab'

# The whole process
complete $opt -l jobs -r -F -d 'Run every job of a jobs file or directory (tfd-jobs(5))'
complete $opt -l user-crontabs -xa '(__fish_complete_directories)' -d "Run each user's crontab of a spool as that user"
complete $opt -l metrics -r -F -d 'Keep a Prometheus text file current'
complete $opt -l control -F -d 'Answer tfdctl on a Unix socket (PATH after =)'
complete $opt -l listen -x -d 'Serve /metrics, /healthz, /readyz and /jobs over HTTP on [ADDR:]PORT'

# Replicas (a fleet)
complete $opt -l fleet -x -d 'Run each elapse once among replicas sharing a PostgreSQL database'
complete $opt -l replica -x -d "This replica's name"
complete $opt -l fleet-lease -x -d "A running claim's lease"
complete $opt -l fleet-deadline -x -d 'How late an elapse may still be claimed'
complete $opt -l fleet-keep -x -d 'Delete finished rows older than this'
complete $opt -l fleet-sql -d "Print the SQL that creates the fleet's tables and exit"

# Other options
complete $opt -s h -l help -d 'Print help and exit'
complete $opt -l usage -d 'Print a short usage message and exit'
complete $opt -s V -l version -d 'Print the version and exit'

# The command and its own arguments.
complete -c tfd -n __fish_tfd_in_command -xa '(__fish_tfd_complete_command)'

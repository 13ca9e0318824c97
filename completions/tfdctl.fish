# SPDX-License-Identifier: MIT
# fish completion for tfdctl(1). Installed as
# share/fish/vendor_completions.d/tfdctl.fish. Job names are the running
# tfd's (`tfdctl list --names`, which answers within 2 seconds or not at
# all). A name may come from a crontab line any user wrote: it is never
# evaluated, only printed as a candidate, which fish quotes as one word.

function __fish_tfdctl_jobs
    set -l ctl
    for w in (commandline -opc)
        string match -q -- '--control=*' $w; and set ctl $w
    end
    tfdctl $ctl --timeout=2s list --names 2>/dev/null
end

set -l cmds list status run stop pause resume reload
complete -c tfdctl -f
complete -c tfdctl -l control -r -F -d 'The socket of the tfd'
complete -c tfdctl -s j -l json -d 'Print the answer as JSON'
complete -c tfdctl -s h -l help -d 'Print help and exit'
complete -c tfdctl -l usage -d 'Print a short usage message and exit'
complete -c tfdctl -s V -l version -d 'Print the version and exit'
complete -c tfdctl -n "not __fish_seen_subcommand_from $cmds" -a list -d 'The jobs, by next elapse'
complete -c tfdctl -n "not __fish_seen_subcommand_from $cmds" -a status -d 'One job in full'
complete -c tfdctl -n "not __fish_seen_subcommand_from $cmds" -a run -d 'Run a job now'
complete -c tfdctl -n "not __fish_seen_subcommand_from $cmds" -a stop -d "End a job's runs"
complete -c tfdctl -n "not __fish_seen_subcommand_from $cmds" -a pause -d 'Run no elapse of jobs'
complete -c tfdctl -n "not __fish_seen_subcommand_from $cmds" -a resume -d 'Run their elapses again'
complete -c tfdctl -n "not __fish_seen_subcommand_from $cmds" -a reload -d 'Read the jobs files again'
complete -c tfdctl -n "__fish_seen_subcommand_from status run stop pause resume" -a '(__fish_tfdctl_jobs)'
complete -c tfdctl -n "__fish_seen_subcommand_from run" -l wait -d 'Wait for the run, exit with its status'
complete -c tfdctl -n "__fish_seen_subcommand_from pause resume" -l all -d 'Every job'

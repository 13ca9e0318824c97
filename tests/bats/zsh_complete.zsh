# SPDX-License-Identifier: MIT
# zsh -f zsh_complete.zsh DIR LINE: types LINE and TAB into an interactive
# zsh whose fpath has the completions in DIR, and prints what the terminal
# showed (the listing, or the line as completed) without escape sequences.
# Used by completion_helper.bash.
setopt extendedglob
zmodload zsh/zpty || exit 3
zpty z 'zsh -f -i'
zpty -w z "PROMPT='> '; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D; bindkey '^I' complete-word; setopt nobeep"
zpty -w z "print -r -- '<''<READY>''>'"
local line out
while zpty -r z line; do [[ $line == *'<<READY>>'* ]] && break; done
zpty -n -w z "$2"$'\t'
sleep 1
zpty -n -w z $'\C-u'
zpty -w z "print -r -- '<''<DONE>''>'"
while zpty -r z line; do
	[[ $line == *'<<DONE>>'* ]] && break
	out+=$line
done
zpty -d z
print -r -- "${${out//$'\e'\[[0-9;?]#[a-zA-Z]/}//$'\r'/}"

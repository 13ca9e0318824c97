# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by the bats files that try the zsh completions (62-control.bats,
# 80-completion.bats).

# zsh_complete LINE: what an interactive zsh with the tree's completions on
# its fpath shows when LINE and TAB are typed (zsh_complete.zsh).
zsh_complete() {
	timeout 30 zsh -f "$BATS_TEST_DIRNAME/zsh_complete.zsh" "$REPO/completions" "$1"
}

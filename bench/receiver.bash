# SPDX-License-Identifier: MIT
# bench/receiver.bash: the notification benchmarks' HTTP receiver
# (tests/notify-receiver.py), sourced by bench/notify.sh and
# bench/notify-hang.sh. start_receiver DIR [--hang] starts it with its
# port in DIR/port and its requests in DIR/requests, waits for the port
# and sets $port; the EXIT trap it sets stops it and removes DIR.

receiver=
receiver_dir=

stop_receiver() {
	[[ -z $receiver ]] || kill "$receiver" 2>/dev/null || true
	[[ -z $receiver_dir ]] || rm -rf "$receiver_dir"
}

start_receiver() {
	local i
	receiver_dir=$1
	trap stop_receiver EXIT
	python3 "$(dirname "${BASH_SOURCE[0]}")/../tests/notify-receiver.py" "${@:2}" \
		"$receiver_dir/port" "$receiver_dir/requests" &
	receiver=$!
	for ((i = 0; i < 200; i++)); do
		[[ ! -s $receiver_dir/port ]] || break
		sleep 0.05
	done
	# shellcheck disable=SC2034 # the sourcing script reads it
	port=$(<"$receiver_dir/port")
}

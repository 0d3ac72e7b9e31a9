#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# UCX between two VMs over mroce, with Debian's unmodified ucx-utils:
# ucx_perftest over ud_verbs (UCT active messages; UCP tag matching) and
# over rc_verbs (UCP tag matching, put, get), then io_demo reading and
# writing with its data check, connected through rdma_cm.  Each run must
# end cleanly, and its traffic must go over the device (its counters).
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/ucx.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

vm_rdma_up mroce
command -v ucx_perftest >/dev/null || t_give_up "ucx_perftest not installed (ucx-utils)"
# Only this device, by its IPv4 GID; vm_pair2 waits for port 18515.
export UCX_NET_DEVICES=$dev:1 UCX_IB_GID_INDEX=$gid
port=18515	# vm_ucx_perf's; io_demo takes the next
rc_tls=UCX_TLS=rc_verbs,ud_verbs

# perf NAME ENV UCT TEST [ARGS...]: ucx_perftest's TEST between the VMs,
# over UCT transport UCT ("-": over UCP, transports from ENV); the
# client's "Final:" line is the result.
perf() {
	local name=$1 env=$2 uct=$3 test=$4 both=
	shift 4
	[[ $uct == - ]] || both="-d $dev:1 -x $uct"
	vm_ucx_perf "ucx-$name" 120 "$env" "$both" "-t $test $*"
	[[ $MROCE_VM_INDEX -eq 1 ]] || return 0
	if [[ -n $ucx_final ]]; then
		echo "ucx-$name: $ucx_final"
	else
		t_fail "ucx-$name: a Final: line" "none in $(vm_pair_log "ucx-$name")"
	fi
}

# Packets of the device's connections, both ways: tx_pkts counts
# datagrams too, rx_pkts does not.
pkts() {
	echo $(($(vm_counter "$dev" tx_pkts) - $(vm_counter "$dev" datagrams_sent) +
		$(vm_counter "$dev" rx_pkts)))
}

dg0=$(vm_counter "$dev" datagrams_rcvd)
perf uct-ud-am_lat "UCX_TLS=ud_verbs" ud_verbs am_lat -n 1000
if [[ $MROCE_VM_INDEX -eq 1 ]]; then
	got=$(($(vm_counter "$dev" datagrams_rcvd) - dg0))
	t_run "ud_verbs: the 1000 round trips came as datagrams ($got)" \
		test "$got" -ge 1000
fi
perf ud-tag_lat "UCX_TLS=ud_verbs" - tag_lat -n 1000
perf ud-tag_bw "UCX_TLS=ud_verbs" - tag_bw -s 65536 -n 200

p0=$(pkts)
perf rc-tag_lat "$rc_tls" - tag_lat -n 1000
perf rc-tag_bw "$rc_tls" - tag_bw -s 65536 -n 200
perf rc-put_bw "$rc_tls" - ucp_put_bw -s 65536 -n 200
perf rc-get "$rc_tls" - ucp_get -s 65536 -n 200
if [[ $MROCE_VM_INDEX -eq 1 ]]; then
	# 1000 round trips and 3 x 200 x 64 KiB (16 packets each at MTU 4200).
	got=$(($(pkts) - p0))
	t_run "rc_verbs: the runs went over mroce's connections ($got packets)" \
		test "$got" -ge $((2000 + 3 * 200 * 16))
fi

# io_demo: random sizes, reads and writes, every byte checked (-q); the
# client connects by rdma_cm (UCX would take TCP too), and the server
# serves until it is stopped.  Its own port: ucx_perftest's last
# connection may hold the other in TIME_WAIT.
io=(io_demo -p $((port + 1)) -q -d 1024:262144)
rc_tls="$rc_tls UCX_SOCKADDR_TLS_PRIORITY=rdmacm"
p0=$(pkts)
vm_barrier io_demo
if [[ $MROCE_VM_INDEX -eq 0 ]]; then
	# shellcheck disable=SC2086 # two NAME=VALUE words
	env $rc_tls timeout 300 "${io[@]}" >"$MROCE_VM_OUT/io_demo.vm0.log" 2>&1 &
	pid=$!
	vm_wait_listening "$pid" || t_fail "io_demo server listens" "exited or not listening"
	vm_set io-listening 1
	vm_get io-done 300 >/dev/null
	t_run "io_demo server: still serving when the client is done" kill -0 "$pid"
	kill "$pid" 2>/dev/null
	wait "$pid"
	t_run "io_demo server: no assertion or error" sh -c \
		"[ -s '$MROCE_VM_OUT/io_demo.vm0.log' ] &&
		 ! grep -qE 'Assertion|ERROR|data corruption|mismatch' '$MROCE_VM_OUT/io_demo.vm0.log'"
else
	log=$MROCE_VM_OUT/io_demo.vm1.log
	vm_get io-listening 60 >/dev/null
	# shellcheck disable=SC2086
	env $rc_tls timeout 240 "${io[@]}" -o read,write -i 400 "$(vm_ip 0)" >"$log" 2>&1
	rc=$?
	vm_set io-done 1
	t_run "io_demo: 400 checked reads and writes of 1-256 KiB (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && grep -q \"Client exit with status 'OK'\" '$log'"
	grep -E '\[DEMO\] total' "$log" | tail -n 1
	got=$(($(pkts) - p0))
	t_run "io_demo went over mroce's connections ($got packets)" \
		test "$got" -ge 400
fi

t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

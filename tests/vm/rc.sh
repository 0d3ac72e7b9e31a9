#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# RC data path between two VMs over mroce, with unmodified Debian tools:
# ibv_rc_pingpong (buffers validated) and perftest's bandwidth and latency
# tests, several sizes (one packet, many packets) and multi-QP; 256 QPs
# connected through the RDMA CM (mroce-qps).
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/rc.sh [DEV_TYPE]
# DEV_TYPE is mroce (default) or rxe, so the same checks can run on rxe.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

type=${1:-mroce}
vm_rdma_up "$type"

for size in 1 1024 4096 65536; do
	vm_pair "rc_pingpong-$size" 120 ibv_rc_pingpong -d "$dev" -g "$gid" -n 100 -s "$size" -c
done

common=(-d "$dev" -x "$gid" -F --report_gbits)
vm_pair send_bw 180 ib_send_bw "${common[@]}" -s 65536 -n 200
vm_pair send_bw-8qp 180 ib_send_bw "${common[@]}" -s 4096 -n 200 -q 8
if [ "$type" = mroce ]; then
	done_before=$(vm_counter "$dev" sq_done_bytes)
	tx_before=$(($(vm_counter "$dev" tx_pkts) - $(vm_counter "$dev" retransmits)))
fi
vm_pair write_bw 180 ib_write_bw "${common[@]}" -s 65536 -n 200
if [ "$type" = mroce ]; then
	# The client's 200 writes of 64 KiB, each counted once; the server
	# posts none.
	done_bytes=$(($(vm_counter "$dev" sq_done_bytes) - done_before))
	want=$((MROCE_VM_INDEX == 1 ? 200 * 65536 : 0))
	if [ "$done_bytes" -eq "$want" ]; then
		t_ok "counters: sq_done_bytes counts the completed writes ($done_bytes)"
	else
		t_fail "counters: sq_done_bytes counts the completed writes" "$done_bytes, want $want"
	fi
fi
if [ "$type" = mroce ] && [ "$MROCE_VM_INDEX" = 1 ]; then
	# perftest asks for the active MTU (1024 at MTU 1500): the payloads
	# fill the netdev MTU instead, less 112 bytes, in 64-byte steps.
	read -r ndev_mtu </sys/class/net/eth0/mtu
	payload=$(((ndev_mtu - 112) / 64 * 64))
	per_msg=$(((65536 + payload - 1) / payload))
	# Packets sent once: DATA, plus a few HELLOs and probes.
	sent=$(($(vm_counter "$dev" tx_pkts) - $(vm_counter "$dev" retransmits) - tx_before))
	if [ "$sent" -ge $((200 * per_msg)) ] && [ "$sent" -lt $((200 * per_msg + 100)) ]; then
		t_ok "payloads fill the netdev MTU: $sent packets for 200 x 64 KiB ($per_msg per message of $payload bytes; 1024-byte payloads take 64)"
	else
		t_fail "payloads fill the netdev MTU" "$sent packets for 200 x 64 KiB, want $per_msg per message of $payload bytes"
	fi
fi
vm_pair write_bw-8qp 180 ib_write_bw "${common[@]}" -s 16384 -n 200 -q 8
vm_pair read_bw 180 ib_read_bw "${common[@]}" -s 65536 -n 200
vm_pair atomic_bw 180 ib_atomic_bw "${common[@]}" -n 500
vm_pair send_lat 180 ib_send_lat "${common[@]}" -s 2 -n 200
vm_pair write_lat 180 ib_write_lat "${common[@]}" -s 2 -n 200
vm_pair read_lat 180 ib_read_lat "${common[@]}" -s 2 -n 200

# 256 QPs to one peer through the RDMA CM, each carrying WRITEs and a
# SEND of its index, all checked at the server (mroce-qps); mroce's
# transport state is per peer: one connection for them all.
modprobe rdma_ucm
qps=$here/../verify/mroce-qps
vm_pair2 qps-256 300 "$qps -s -d $dev -n 256" "$qps -c $(vm_ip 0) -d $dev -n 256 -t 2"
if [ "$type" = mroce ]; then
	conns=$(sed -n 's/^qps: ok: .* connections \([0-9-]*\).*/\1/p' "$(vm_pair_log qps-256)")
	if [ "$conns" = 1 ]; then
		t_ok "256 QPs to one peer, one connection"
	else
		t_fail "256 QPs to one peer, one connection" "connections: '$conns'"
	fi
fi
if [ "$type" = mroce ]; then
	stats=$(rdma statistic show link "$dev/1")
	echo "$stats"
	t_run "counters: packets sent and received" sh -c \
		"echo '$stats' | grep -qE 'tx_pkts [1-9]' && echo '$stats' | grep -qE 'rx_pkts [1-9]'"
	t_run "counters: no malformed or stale packets" sh -c \
		"echo '$stats' | grep -qE 'malformed_drops 0 ' && echo '$stats' | grep -qE 'stale_epoch_drops 0 '"
fi
if [ "$type" = mroce ]; then
	# Connections and their timers must go cleanly with the module.
	vm_barrier unload
	t_run "unload with connections present" modprobe -r mroce
fi
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

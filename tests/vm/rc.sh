#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# RC data path between two VMs over mroce, with unmodified Debian tools:
# ibv_rc_pingpong (buffers validated) and perftest's bandwidth and latency
# tests, several sizes (one packet, many packets) and multi-QP.
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/rc.sh [DEV_TYPE]
# DEV_TYPE is mroce (default) or rxe, so the same checks can run on rxe.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

type=${1:-mroce}
dev=${type}0
me=$MROCE_VM_INDEX
peer_ip=$(vm_ip "$(vm_peer)")

vm_net_setup || exit 1
modprobe ib_uverbs
rdma link add "$dev" type "$type" netdev eth0 || exit 1
# GID index of this VM's IPv4 address (RoCE v2).
gid=$(for f in /sys/class/infiniband/$dev/ports/1/gids/*; do
	grep -q "0000:0000:0000:0000:0000:ffff:0a4d:0001\|0000:0000:0000:0000:0000:ffff:0a4d:0002" "$f" &&
		echo "${f##*/}"; done | head -n 1)
[ -n "$gid" ] || { t_fail "ipv4 gid" "no IPv4 GID on $dev"; t_done; exit 1; }

# pair NAME TIMEOUT CMD...: VM0 runs CMD as server, VM1 as client to VM0.
pair() {
	local name=$1 secs=$2 out=/tmp/pair.out rc
	shift 2
	vm_barrier "start-$name" || return
	if [ "$me" = 0 ]; then
		timeout "$secs" "$@" >"$out" 2>&1
	else
		sleep 1
		timeout "$secs" "$@" "$peer_ip" >"$out" 2>&1
	fi
	rc=$?
	if [ "$rc" = 0 ]; then
		t_ok "$name $(grep -E '^ *[0-9]+ +[0-9]+ ' "$out" | tail -n 1 | tr -s ' ')"
	else
		t_fail "$name" "exit $rc: $(tail -n 5 "$out" | tr '\n' ' ')"
	fi
	cp "$out" "$MROCE_VM_OUT/$name.vm$me.log" 2>/dev/null
	vm_barrier "end-$name"
}

for size in 1 1024 4096 65536; do
	pair "rc_pingpong-$size" 120 ibv_rc_pingpong -d "$dev" -g "$gid" -n 100 -s "$size" -c
done

common=(-d "$dev" -x "$gid" -F --report_gbits)
pair send_bw 180 ib_send_bw "${common[@]}" -s 65536 -n 200
pair send_bw-8qp 180 ib_send_bw "${common[@]}" -s 4096 -n 200 -q 8
pair write_bw 180 ib_write_bw "${common[@]}" -s 65536 -n 200
pair write_bw-8qp 180 ib_write_bw "${common[@]}" -s 16384 -n 200 -q 8
pair read_bw 180 ib_read_bw "${common[@]}" -s 65536 -n 200
pair atomic_bw 180 ib_atomic_bw "${common[@]}" -n 500
pair send_lat 180 ib_send_lat "${common[@]}" -s 2 -n 200
pair write_lat 180 ib_write_lat "${common[@]}" -s 2 -n 200
pair read_lat 180 ib_read_lat "${common[@]}" -s 2 -n 200

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

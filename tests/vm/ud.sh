#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Datagrams and the connection manager between two VMs, with unmodified
# Debian tools: UD queue pairs (ibv_ud_pingpong with buffer checks,
# ib_send_bw -c UD), the GSI QP carrying the kernel CM's MADs (rping over
# IPv4 and IPv6 with data validation, perftest with -R, ucmatose and
# udaddy, which set up RC and UD through librdmacm).
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/ud.sh [DEV_TYPE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

type=${1:-mroce}
vm_rdma_up "$type"
modprobe rdma_ucm
vm_gid_index "$dev" 6 >/dev/null || t_give_up "no IPv6 RoCE v2 GID on $dev"
[ "$type" = mroce ] && counted=$(vm_counters "$dev")
# The MAD layer's tracepoints query the address handle of every MAD it
# sends; the unload at the end shows whether a query leaks a GID reference.
tracefs=/sys/kernel/tracing
mountpoint -q "$tracefs" || mount -t tracefs nodev "$tracefs"
echo 1 >"$tracefs/events/ib_mad/enable" || t_give_up "cannot trace ib_mad"

# UD: one datagram per message, up to the path MTU (1024 at MTU 1500).
for size in 1 512 1024; do
	vm_pair "ud_pingpong-$size" 120 ibv_ud_pingpong -d "$dev" -g "$gid" -n 200 -s "$size" -c
done
vm_pair send_bw-ud 180 ib_send_bw -d "$dev" -x "$gid" -F --report_gbits -c UD -s 1024 -n 500

# The kernel CM over the GSI QP.
srv4=$(vm_ip 0)
srv6=$(vm_ip6 0)
vm_pair2 rping-ipv4 120 "rping -s -a $srv4 -C 50 -S 4096 -V" "rping -c -a $srv4 -C 50 -S 4096 -V"
vm_pair2 rping-ipv6 120 "rping -s -a $srv6 -C 50 -S 4096 -V" "rping -c -a $srv6 -C 50 -S 4096 -V"
vm_pair2 ucmatose-ipv4 120 "ucmatose -b $srv4 -c 4 -C 20" "ucmatose -s $srv4 -c 4 -C 20"
vm_pair2 ucmatose-ipv6 120 "ucmatose -b $srv6 -f ipv6 -c 4 -C 20" "ucmatose -s $srv6 -f ipv6 -c 4 -C 20"
vm_pair2 udaddy-ipv4 120 "udaddy -b $srv4 -c 4 -C 20" "udaddy -s $srv4 -c 4 -C 20"

# perftest with rdma_cm connection setup.
common=(-d "$dev" -R -F --report_gbits)
vm_pair write_bw-R 180 ib_write_bw "${common[@]}" -s 65536 -n 200
vm_pair send_bw-R 180 ib_send_bw "${common[@]}" -s 65536 -n 200
vm_pair read_lat-R 180 ib_read_lat "${common[@]}" -s 2 -n 200
vm_pair send_bw-R-UD 180 ib_send_bw "${common[@]}" -c UD -s 1024 -n 500

if [ "$type" = mroce ]; then
	delta=$(vm_counters "$dev" "$counted")
	echo "counters: $delta"
	t_run "counters: datagrams sent and received" sh -c \
		"echo '$delta' | grep -qE 'datagrams_sent=[1-9]' && echo '$delta' | grep -qE 'datagrams_rcvd=[1-9]'"
	t_run "counters: no malformed packets" sh -c "! echo '$delta' | grep -q malformed_drops"
	vm_barrier unload
	t_run "unload with CM state present" modprobe -r mroce
fi
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

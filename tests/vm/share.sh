#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The receiver's share (Documentation/wire-protocol.rst, "Receiver's
# share") between two VMs: VM0 receives with rx_capacity_mbps set below
# what the emulated link carries; VM1 sends two ib_write_bw flows at
# once from two addresses of its one device, so that VM0 sees two
# sending peers (a connection is per address pair).  VM0 must count two
# senders and give each half its capacity; VM1's flows must wait for
# the pace it sets, and together stay within the capacity.  Every mroce
# packet either VM receives must be ECN-capable (id IP-ECN).
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/share.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

# Well below the 0.1-0.2 Gbit/s two emulated VMs move unshaped; a hold
# (and so a measuring period) long enough for the emulator's stalls.
cap=40
hold=100000
secs=8
dev=mroce0

vm_net_setup || t_give_up "network setup"
modprobe ib_uverbs
modprobe mroce || t_give_up "modprobe mroce"
if [[ $MROCE_VM_INDEX -eq 0 ]]; then
	if ! echo "$cap" >/sys/module/mroce/parameters/rx_capacity_mbps ||
		! echo "$hold" >/sys/module/mroce/parameters/share_hold_us; then
		t_give_up "set rx_capacity_mbps and share_hold_us"
	fi
else
	# A second address: the second flow's connection.
	ip addr add 10.77.0.12/24 dev eth0 || t_give_up "second address"
fi
rdma link add "$dev" type mroce netdev eth0 || t_give_up "rdma link add $dev"
gid=$(vm_gid_index "$dev") || t_give_up "no IPv4 RoCE v2 GID on $dev"

# id IP-ECN: every packet of a connection arrives ECT(0), ACKs and probes
# too (VM1 receives only those); counted by ECN codepoint on the way in.
port=$(cat /sys/module/mroce/parameters/udp_port)
nft add table inet mroce_ecn &&
	nft add chain inet mroce_ecn in '{ type filter hook input priority 0; }' &&
	nft add counter inet mroce_ecn notect && nft add counter inet mroce_ecn ect &&
	nft add rule inet mroce_ecn in udp dport "$port" ip ecn not-ect counter name notect &&
	nft add rule inet mroce_ecn in udp dport "$port" ip ecn != not-ect counter name ect ||
	t_give_up "nftables counters by ECN codepoint"
ecn_packets() {
	nft list counter inet mroce_ecn "$1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}
ecn_check() {
	local notect ect
	notect=$(ecn_packets notect)
	ect=$(ecn_packets ect)
	t_run "every mroce packet in arrived ECN-capable ($ect ECT, $notect not)" \
		test "$ect" -gt 100 -a "$notect" -eq 0
}

# A run's average goodput in Mbit/s, as perftest reports it.
mbps() {
	awk '$1 == 65536 && NF >= 5 { v = sprintf("%.1f", $4 * 1000) }
		END { print (v == "" ? "nan" : v) }' "$1"
}

bw=(ib_write_bw -d "$dev" -F --report_gbits -s 65536 -D "$secs")
vm_barrier up 120 || t_give_up "peer not up"
if [[ $MROCE_VM_INDEX -eq 0 ]]; then
	timeout $((secs + 60)) "${bw[@]}" -x "$gid" -p 18515 >/tmp/bw1.log 2>&1 &
	s1=$!
	timeout $((secs + 60)) "${bw[@]}" -x "$gid" -p 18516 >/tmp/bw2.log 2>&1 &
	s2=$!
	sleep 1
	vm_set listening 1
	# The receiver's view while the flows run: senders counted/share given.
	looks=""
	while kill -0 "$s1" 2>/dev/null || kill -0 "$s2" 2>/dev/null; do
		looks+="$(vm_counter "$dev" share_senders)/$(vm_counter "$dev" share_level) "
		sleep 0.2
	done
	echo "$looks" >"$MROCE_VM_OUT/share.looks"
	wait "$s1"
	r1=$?
	wait "$s2"
	r2=$?
	t_run "server 1 ends cleanly (exit $r1)" test "$r1" -eq 0
	t_run "server 2 ends cleanly (exit $r2)" test "$r2" -eq 0
	ecn_check
	# While both flows run, two senders and half of the capacity each
	# (32767 / 65535); a look may fall where one of them stalled, and
	# the flows start and end apart, so only most of them.  Never more
	# senders, never less than half.
	both=$(grep -o '2/[0-9]*' <<<"$looks" | wc -l)
	halves=$(grep -o '2/32767' <<<"$looks" | wc -l)
	t_run "two senders, half the capacity each, in $halves of the $both looks with two ($looks)" \
		test "$both" -ge 5 -a $((halves * 4)) -ge $((both * 3))
	t_run "never more than two senders, nor less than half each" \
		awk -v l="$looks" 'BEGIN { n = split(l, a, " "); for (i = 1; i <= n; i++) {
			split(a[i], f, "/"); if (f[1] > 2 || (f[1] == 2 && f[2] < 32767)) exit 1 } }'
	vm_barrier flows-done 120
	# The senders go quiet: after the hold the peers are forgotten.
	sleep 2
	senders=$(vm_counter "$dev" share_senders)
	t_run "no sender counted once they stop ($senders)" test "$senders" -eq 0
	t_run "the share is all of the capacity again" \
		test "$(vm_counter "$dev" share_level)" -eq 65535
else
	g2=$(vm_gid_find "$dev" 0000:0000:0000:0000:0000:ffff:0a4d:000c) ||
		t_give_up "no GID for 10.77.0.12"
	vm_get listening 60 >/dev/null
	waits0=$(vm_counter "$dev" share_waits)
	timeout $((secs + 60)) "${bw[@]}" -x "$gid" -p 18515 "$(vm_ip 0)" >/tmp/bw1.log 2>&1 &
	c1=$!
	timeout $((secs + 60)) "${bw[@]}" -x "$g2" -p 18516 "$(vm_ip 0)" >/tmp/bw2.log 2>&1 &
	c2=$!
	wait "$c1"
	r1=$?
	wait "$c2"
	r2=$?
	cp /tmp/bw1.log /tmp/bw2.log "$MROCE_VM_OUT/" 2>/dev/null
	t_run "flow 1 ends cleanly (exit $r1)" test "$r1" -eq 0
	t_run "flow 2 ends cleanly (exit $r2)" test "$r2" -eq 0
	ecn_check
	waits=$(($(vm_counter "$dev" share_waits) - waits0))
	t_run "new packets waited for the share's pace ($waits passes)" test "$waits" -gt 0
	m1=$(mbps /tmp/bw1.log)
	m2=$(mbps /tmp/bw2.log)
	echo "flows: $m1 and $m2 Mbit/s of goodput against a capacity of $cap"
	# The pace counts headers (112 bytes a packet) and the share is a
	# bound: together at most the capacity, with a tenth for the
	# bursts at the edges; each some of it.
	t_run "together within the capacity ($m1 + $m2 <= 1.1 x $cap Mbit/s)" \
		awk -v a="$m1" -v b="$m2" -v c="$cap" 'BEGIN { exit !(a + b <= 1.1 * c) }'
	t_run "neither flow starved ($m1, $m2 >= 0.15 x $cap)" \
		awk -v a="$m1" -v b="$m2" -v c="$cap" 'BEGIN { exit !(a >= 0.15 * c && b >= 0.15 * c) }'
	vm_barrier flows-done 120
fi
t_done

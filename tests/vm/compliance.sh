#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The wire-protocol compliance suite (tests/compliance/suite.py) in one VM:
# an mroce device over one end of a veth pair, and the suite's independent
# peer, written from Documentation/wire-protocol.rst, in a network
# namespace at the other end.  Each requirement id the suite checks becomes
# one test here ("ok ID: ..." / "FAIL ID: ..."); the suite's output is kept
# in the run's output directory as compliance.log.
#
#   scripts/vm-tests compliance          (make check-compliance)
#
# Environment (optional):
#   MROCE_COMPLIANCE_CHECKS   the suite's checks to run, by name (default all)

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite=$(cd "$here/../compliance" && pwd)/suite.py
dev=mroce0
local_ip=10.88.0.1
peer_ip=10.88.0.2
log=$MROCE_VM_OUT/compliance.log

[[ -r $suite ]] || t_give_up "no $suite"
/usr/bin/python3 -c 'import pyverbs' 2>/dev/null ||
	t_give_up "python3-pyverbs is not installed"
# shellcheck source=scripts/rdma-env
. "$here/../../scripts/rdma-env" || t_give_up "no rdma-core build: run scripts/build-provider"

vm_veth_ns mpeer mv0 "$local_ip" "$peer_ip" 10.88.0.3 || t_give_up "veth"
# A veth passes mroce's GSO super-packets on whole (module parameter
# gso); the capture below is to hold the packets a NIC would put on the
# wire, so mv0 has the stack cut them first.
t_run "mv0 leaves UDP segmentation to the stack" \
	ethtool -K mv0 tx-udp-segmentation off
export MROCE_COMPLIANCE_STRANGER=10.88.0.3
t_run "ping the peer's namespace" vm_ping -c 1 -w 10 "$peer_ip"
modprobe ib_uverbs
t_run "rdma link add $dev type mroce netdev mv0" \
	rdma link add "$dev" type mroce netdev mv0 || t_give_up "no $dev"
# A second device, which shares 1000 Mbit/s among its senders, on a second
# set of addresses, two of them the peer's (a device's capacity and hold
# time are the parameters' when it is made).
vm_veth_ns mpeer mv2 10.89.0.1 10.89.0.2 10.89.0.3 || t_give_up "veth"
# Its senders stay active for 10 s after their latest packet, so that the
# count of them can be read after an ACK however slow the kernel is.
params=/sys/module/mroce/parameters
hold=$(cat $params/share_hold_us)
capacity=$(cat $params/rx_capacity_mbps)
echo 1000 >$params/rx_capacity_mbps
export MROCE_COMPLIANCE_SHARE_HOLD_US=10000000
echo $MROCE_COMPLIANCE_SHARE_HOLD_US >$params/share_hold_us
t_run "rdma link add mroce1 (rx_capacity_mbps=1000)" \
	rdma link add mroce1 type mroce netdev mv2
echo "$capacity" >$params/rx_capacity_mbps
echo "$hold" >$params/share_hold_us
export MROCE_COMPLIANCE_SHARE="mroce1 10.89.0.1 10.89.0.2 10.89.0.3"

export MROCE_COMPLIANCE_TRACE=$MROCE_VM_OUT/compliance-packets.log
export MROCE_COMPLIANCE_RAW=$MROCE_VM_OUT/compliance-raw.txt
# A capture of the whole exchange, for the dissector to decode after; IPv4
# fragments after the first carry no UDP header, so they are let in too.
pcap=$MROCE_VM_OUT/compliance.pcap
ip netns exec mpeer tcpdump -i mv0-p -U -Z root -w "$pcap" \
	'udp port 4796 or (ip and ip[6:2] & 0x1fff != 0)' \
	2>"$MROCE_VM_OUT/tcpdump.log" &
capture=$!
for ((i = 0; i < 100; i++)); do
	grep -q listening "$MROCE_VM_OUT/tcpdump.log" && break
	sleep 0.1
done
# Inside the VM's own timeout (900 s, scaled like this), so that a hung
# suite still reports.
limit=$((600 * ${MROCE_VM_SLOW:-1}))
# shellcheck disable=SC2086 # a list of check names
timeout $limit /usr/bin/python3 "$suite" "$dev" mpeer "$local_ip" "$peer_ip" \
	${MROCE_COMPLIANCE_CHECKS:-} >"$log" 2>&1
rc=$?
t_verdicts "$log" || t_fail "suite output" "$(tail -20 "$log")"
# The invariants come last: without them the suite did not finish (a
# crash, the timeout), whatever it printed before.
grep -q ' (invariants)' "$log" ||
	t_fail "suite end" "exit $rc before the invariants: $(tail -5 "$log")"

# tshark with tools/wireshark/mroce.lua decodes the live capture as the
# suite's spec layer reads it.
sleep 0.5
kill "$capture"
wait "$capture" 2>/dev/null
if ! command -v tshark >/dev/null; then
	t_skip "live capture decoded by tshark" "tshark is not installed"
else
	"$here/../compliance/decode-check" "$pcap" "$MROCE_COMPLIANCE_RAW" \
		>"$MROCE_VM_OUT/decode.log" 2>&1
	rc=$?
	t_verdicts "$MROCE_VM_OUT/decode.log" ||
		t_fail "decode-check" "$(tail -5 "$MROCE_VM_OUT/decode.log")"
	[[ $rc -eq 0 ]] || grep -q '^FAIL ' "$MROCE_VM_OUT/decode.log" ||
		t_fail "decode-check exit" "exit $rc: $(tail -5 "$MROCE_VM_OUT/decode.log")"
fi
t_run "kernel log free of warnings" sh -c \
	"! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t'"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A dead route under load, between two VMs joined by two links.  Each
# VM's RDMA address lives on a dummy netdev routed over both links (ECMP,
# L4 hash), so mroce's paths spread over them by their UDP source ports.
# tests/verify/mroce-verify moves checksummed data on 8 QPs while link 0
# silently drops everything (netem 100% loss, carrier up: routing does
# not notice) and is then repaired.  Checked: the run completes with
# every byte verified and no error; the paths caught on link 0 had their
# timed-out packets detoured and were re-rolled; after the repair, route
# probes moved them back (route_returns), and link 0 carries its share
# of the data again; then, with link 0 dead again, VM1's device restarts
# and a new transfer must complete; no kernel warnings.
#   scripts/vm run --vms 2 --links 2 --module .../mroce.ko -- tests/vm/paths.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

bin=$here/../verify/mroce-verify
dev=mroce0
me=$MROCE_VM_INDEX
# When link 0 fails and comes back, in seconds after the transfer starts.
fail_at=${PATHS_FAIL_AT:-4}
repair_at=${PATHS_REPAIR_AT:-10}

tx_bytes() { cat "/sys/class/net/$1/statistics/tx_bytes"; }

vm_net_setup || t_give_up "network setup"
vm_multipath_setup || t_give_up "multipath addresses and routes"
vm_multipath_route 2 || t_give_up "ECMP route over two links"
modprobe ib_uverbs
rdma link add "$dev" type mroce netdev dum0 || t_give_up "rdma link add $dev"
gid=$(vm_gid_index "$dev" mp) || t_give_up "no RoCE v2 GID for $(vm_mp_addr "$me")"
# The peer boots at its own pace: ping once its routes are up too.
vm_barrier routes || t_give_up "the peer never set up its routes"
t_run "peer reachable over the ECMP route" vm_ping -c 1 -w 10 "$(vm_mp_addr "$(vm_peer)")"

# A debug kernel (MROCE_VM_SLOW) moves a fraction of the data in the time.
slow=${MROCE_VM_SLOW:-1}
args=(-d "$dev" -g "$gid" -q 8 -n "${PATHS_MSGS:-$((4000 / slow))}" -S 7 -t $((300 * slow)))
[[ $me -eq 0 ]] || args+=("$(vm_mp_addr 0)")
log=$MROCE_VM_OUT/paths-verify.vm$me.log
snap=$(vm_counters "$dev")
vm_barrier start
"$bin" "${args[@]}" >"$log" 2>&1 &
pid=$!
sleep "$fail_at"
# Only if the transfer is still running, or the test would test nothing.
if kill -0 "$pid" 2>/dev/null; then
	t_ok "transfer still running at the failure"
else
	t_fail "transfer still running at the failure" "finished in under $fail_at s: raise PATHS_MSGS"
fi
t_run "link 0 black-holed" tc qdisc add dev eth0 root netem loss 100%
sleep $((repair_at - fail_at))
t_run "link 0 repaired" tc qdisc del dev eth0 root
# Route probes go out every 100 ms; the emulator may take a second or
# two to apply the repair on both ends.
sleep "${PATHS_SETTLE:-3}"
if kill -0 "$pid" 2>/dev/null; then
	t_ok "transfer still running after the repair"
else
	t_fail "transfer still running after the repair" "finished too soon: raise PATHS_MSGS"
fi
tx0=$(tx_bytes eth0)
tx1=$(tx_bytes eth1)
wait "$pid"
rc=$?
tx0=$(($(tx_bytes eth0) - tx0))
tx1=$(($(tx_bytes eth1) - tx1))
# Paths are spread evenly over the two links, so about half the bytes;
# paths left stranded on link 1 would leave link 0 only ACKs (~5%).
if [[ $((tx0 + tx1)) -lt 2000000 ]]; then
	t_fail "link 0 carries its share after the repair" \
		"only $((tx0 + tx1)) bytes sent after it: raise PATHS_MSGS"
elif [[ $((3 * tx0)) -ge $tx1 ]]; then
	t_ok "link 0 carries its share after the repair (eth0 $tx0 bytes, eth1 $tx1)"
else
	t_fail "link 0 carries its share after the repair" "eth0 $tx0 bytes, eth1 $tx1"
fi
grep -E '^verify:|MB/s checked' "$log" | sed 's/^/    /'
if [[ $rc -eq 0 ]]; then
	t_ok "mroce-verify across the failure: every byte checked, no error"
else
	t_fail "mroce-verify across the failure" "exit $rc: $(tail -n 15 "$log")"
	vm_links_report
	echo "    $dev counters: $(vm_counters "$dev" "$snap")"
fi
# Route probes are answered within their 100 ms interval; allow a few.
sleep 2
delta=$(vm_counters "$dev" "$snap")
echo "    $dev counters: $delta"
vm_set "counters$me" "$delta"
peer_delta=$(vm_get "counters$(vm_peer)")
# Which end's paths crossed link 0 depends on the hashes: judge the pair.
sum() {
	local w n=0
	for w in $delta $peer_delta; do
		[[ ${w%%=*} == "$1" ]] && n=$((n + ${w#*=}))
	done
	echo "$n"
}
for c in detoured_resends entropy_rerolls route_probes route_returns; do
	n=$(sum "$c")
	if [[ $n -gt 0 ]]; then
		t_ok "$c > 0 over both ends ($n)"
	else
		t_fail "$c > 0 over both ends" "none"
	fi
done
vm_barrier "done" 120

# A restart behind a dead route: with link 0 black-holed both ways, VM1
# deletes and adds its device (a new epoch).  The HELLOs that make the new
# connection take the paths in turn (HELLO-SPRAY), so those sent by a
# path routed over link 1 get through and a new transfer completes while
# link 0 is still dead.
t_run "link 0 black-holed again" tc qdisc add dev eth0 root netem loss 100%
vm_barrier hole-again 120
if [[ $me -eq 1 ]]; then
	relink() {
		rdma link del "$dev" && rdma link add "$dev" type mroce netdev dum0 &&
			gid=$(vm_gid_index "$dev" mp)
	}
	t_run "VM1 deletes and adds $dev" relink
fi
vm_barrier relinked 120
args=(-d "$dev" -g "$gid" -q 4 -n 50 -S 8 -p 18516 -t $((120 * slow)))
# The setup connection goes straight over link 1 (not the ECMP route,
# whose link 0 neighbour has failed by now); the GIDs stay the ECMP ones.
[[ $me -eq 0 ]] || args+=("$(vm_ip 0 1)")
log=$MROCE_VM_OUT/paths-restart.vm$me.log
if "$bin" "${args[@]}" >"$log" 2>&1; then
	t_ok "after the restart, mroce-verify completes with link 0 still dead"
else
	t_fail "after the restart, mroce-verify completes with link 0 still dead" "$(tail -n 5 "$log")"
	vm_links_report
fi
tc qdisc del dev eth0 root
vm_barrier "done"-again 120

t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

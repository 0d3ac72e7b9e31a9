#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The soak: rounds of tests/verify/mroce-verify between two VMs joined by
# two links (each VM's RDMA address on a dummy netdev, routed over both:
# ECMP by UDP source port, so mroce's paths spread over the links), for a
# bounded time.  Every round runs its own mix of netem impairments on every
# egress of both VMs (loss, reordering, duplication, corruption); one round
# in three black-holes link 0 (VM0's egress, 100% loss, carrier up) for a
# while, one in three flaps link 1 (down and up on both VMs); after every
# MROCE_SOAK_RESTART_EVERY-th round one VM, in turn, restarts its mroce
# (device delete, module reload, device add) before the next round, and
# the VM that stayed must count the peer's restart.
#
# Every round: both ends exit 0 (every byte, completion and ordering
# checked: 0 corrupt bytes, 0 unexpected completion errors); at the end,
# corruption reached the hosts (UDP checksum errors counted by the kernel)
# and no byte of it was delivered.
#
#   MROCE_SOAK_SECS           rounds start until this many seconds have
#                             passed (default 1800)
#   MROCE_SOAK_QPS            QPs per round (default 16)
#   MROCE_SOAK_MSGS           requests per QP and direction (default 300)
#   MROCE_SOAK_RESTART_EVERY  rounds between restarts (default 3)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

secs=${MROCE_SOAK_SECS:-1800}
qps=${MROCE_SOAK_QPS:-16}
msgs=${MROCE_SOAK_MSGS:-300}
restart_every=${MROCE_SOAK_RESTART_EVERY:-3}
bin=$here/../verify/mroce-verify
dev=mroce0
me=$MROCE_VM_INDEX
peer=$(vm_peer)
# The impairments of round n are mixes[n % 3], on every egress.
mixes=(
	"loss 1% delay 1ms reorder 10% 50%"
	"duplicate 2% corrupt 0.5%"
	"loss 1% duplicate 1% corrupt 0.2% delay 1ms reorder 5% 50%"
)

device_up() {
	rdma link add "$dev" type mroce netdev dum0 &&
		gid=$(vm_gid_index "$dev" mp)
}
restart() {
	rdma link del "$dev" && modprobe -r mroce && device_up
}
impair() { # NETEM-ARGS...: on every egress
	local k
	for k in 0 1; do
		tc qdisc replace dev "eth$k" root netem "$@" || return 1
	done
}
clear_impair() {
	tc qdisc del dev eth0 root 2>/dev/null
	tc qdisc del dev eth1 root 2>/dev/null
	return 0
}
# InCsumErrors: the 8th field of the second "Udp:" line of /proc/net/snmp.
csum_errors() { awk '/^Udp:/ && ++n == 2 { print $8 }' /proc/net/snmp; }
running() { kill -0 "$1" 2>/dev/null; }

vm_net_setup || t_give_up "network setup"
vm_multipath_setup || t_give_up "multipath addresses and routes"
vm_multipath_route 2 || t_give_up "ECMP route over two links"
modprobe ib_uverbs
device_up || t_give_up "rdma link add $dev"
vm_barrier routes || t_give_up "the peer never set up its routes"
t_run "peer reachable over the ECMP route" vm_ping -c 1 -w 10 "$(vm_mp_addr "$peer")"

csum0=$(csum_errors)
start=$SECONDS
rounds=0 restarts_seen=0 corrupt_rounds=0
n=0
while :; do
	# VM0 decides whether another round starts, so both agree.
	if [[ $me -eq 0 ]]; then
		go=$((SECONDS - start < secs ? 1 : 0))
		[[ $n -gt 0 ]] || go=1
		vm_set "go$n" "$go"
	else
		go=$(vm_get "go$n" 600)
	fi
	[[ $go == 1 ]] || break

	mix=${mixes[n % 3]}
	[[ $mix != *corrupt* ]] || corrupt_rounds=$((corrupt_rounds + 1))
	# shellcheck disable=SC2086 # netem's words
	impair $mix || t_fail "round $n: netem $mix"
	vm_barrier "r$n-begin" || break
	log=$MROCE_VM_OUT/soak-vm$me-$n.log
	args=(-d "$dev" -g "$gid" -q "$qps" -n "$msgs" -S $((100 + n)) -p $((18600 + n)) -t 900)
	[[ $me -eq 0 ]] || args+=("$(vm_mp_addr 0)")
	snap=$(vm_counters "$dev")
	t0=$SECONDS
	"$bin" "${args[@]}" >"$log" 2>&1 &
	pid=$!
	event=none
	sleep 3
	case $((n % 3)) in
	1)
		# A black hole: one direction of link 0 drops everything.
		if [[ $me -eq 0 ]] && running "$pid"; then
			event="link 0 black-holed for 5 s"
			tc qdisc replace dev eth0 root netem loss 100%
			sleep 5
			# shellcheck disable=SC2086
			tc qdisc replace dev eth0 root netem $mix
		fi
		;;
	2)
		# A link flap is seen by both ends, as a pulled cable is.
		if running "$pid"; then
			event="link 1 down for 2 s"
			ip link set eth1 down
			sleep 2
			ip link set eth1 up
			# The link's nexthop comes back with its address.
			sleep 1
			vm_multipath_route 2 || t_fail "round $n: ECMP route back after the flap"
		fi
		;;
	esac
	wait "$pid"
	rc=$?
	summary=$(grep -E '^verify:' "$log" | tail -n 1)
	if [[ $rc -eq 0 ]]; then
		t_ok "round $n ($mix; $event): mroce-verify $qps QPs x $msgs msgs in $((SECONDS - t0)) s"
	else
		t_fail "round $n ($mix; $event): mroce-verify" "exit $rc: $(tail -n 8 "$log")"
	fi
	echo "    $summary"
	echo "    counters: $(vm_counters "$dev" "$snap" | tr ' ' '\n' |
		grep -E '^(tx_pkts|retransmits|timeouts|spurious_timeouts|duplicate_drops|stale_epoch_drops|malformed_drops|outside_window_drops|detoured_resends|peer_restarts)=' |
		tr '\n' ' ')"
	clear_impair
	rounds=$((rounds + 1))
	vm_barrier "r$n-end" 900 || break

	# A restart between rounds: the next round's QPs must work at once, and
	# the VM that stayed counts the peer's new epoch.
	if [[ $(((n + 1) % restart_every)) -eq 0 ]]; then
		who=$(((n + 1) / restart_every % 2))
		if [[ $who -eq $me ]]; then
			t_run "round $n: VM$me restarts mroce" restart || t_give_up "no device after the restart"
		else
			restarts0=$(vm_counter "$dev" peer_restarts)
			pending_restart=1
		fi
	elif [[ ${pending_restart:-0} -eq 1 ]]; then
		pending_restart=0
		if [[ $(vm_counter "$dev" peer_restarts) -gt $restarts0 ]]; then
			restarts_seen=$((restarts_seen + 1))
			t_ok "the peer's restart before round $n counted (peer_restarts)"
		else
			t_fail "the peer's restart before round $n counted" "peer_restarts still $restarts0"
		fi
	fi
	n=$((n + 1))
done

echo "    $rounds rounds in $((SECONDS - start)) s, $corrupt_rounds with corruption"
csum=$(($(csum_errors) - csum0))
if [[ $corrupt_rounds -eq 0 ]]; then
	t_skip "corrupted packets stopped by UDP checksums" "no round with corruption"
elif [[ $csum -gt 0 ]]; then
	t_ok "corrupted packets stopped by UDP checksums ($csum), none delivered"
else
	t_fail "corrupted packets stopped by UDP checksums" "no UDP checksum error in $corrupt_rounds rounds"
fi
vm_barrier "done" 120
t_done

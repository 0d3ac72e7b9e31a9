#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A peer that loses power (Documentation/wire-protocol.rst, "Connections
# and epochs"), two VMs: VM1's pingpong client runs against VM0's server
# when VM1 loses power (the rig kills its QEMU: no module unload, no
# device delete, nothing said to the peer) and boots again.  A new
# pingpong between the two must then work, VM0's old server must end with
# an error completion, not hang, and VM0 must count the peer's restart.
#   scripts/vm run --vms 2 --module .../mroce.ko -- tests/vm/power-cut.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

me=$MROCE_VM_INDEX

vm_rdma_up mroce
if [ "${MROCE_VM_BOOT:-1}" = 1 ]; then
	# shellcheck disable=SC2046 # vm_pp_args' words
	vm_pair pingpong-before-power-cut 120 ibv_rc_pingpong $(vm_pp_args) -n 100
	vm_barrier traffic
	if [ "$me" = 0 ]; then
		restarts=$(vm_counter "$dev" peer_restarts)
		# shellcheck disable=SC2046
		timeout 300 ibv_rc_pingpong $(vm_pp_args) -n 100000000 >/tmp/old.log 2>&1 &
		old=$!
		vm_wait_listening "$old" || t_fail "old server listens"
		vm_set old-listening 1
	else
		vm_get old-listening >/dev/null
		sleep 0.5
		# shellcheck disable=SC2046
		timeout 300 ibv_rc_pingpong $(vm_pp_args) -n 100000000 "$(vm_ip 0)" >/tmp/old.log 2>&1 &
		tx0=$(vm_counter "$dev" tx_pkts)
		sleep 3
		t_run "traffic flows before the power cut" \
			sh -c "[ $(vm_counter "$dev" tx_pkts) -gt $((tx0 + 100)) ]"
		vm_power_cut
	fi
fi

# VM1 has booted again; VM0 is still in its first boot.
vm_barrier booted-again 300
start=$SECONDS
# shellcheck disable=SC2046
vm_pair pingpong-after-power-cut 120 ibv_rc_pingpong $(vm_pp_args) -n 200
echo "new pair done $((SECONDS - start)) s after both were ready"
# The same again, recovered: the emulator's speed per round trip.
# shellcheck disable=SC2046
vm_pair pingpong-recovered 120 ibv_rc_pingpong $(vm_pp_args) -n 200
# VM1's QP reaching RTR sent its new incarnation's first HELLO just before
# the pingpong's clock starts: its time beyond 200 round trips at the
# recovered speed is the recovery.
vm_pp_within pingpong-after-power-cut 1 pingpong-recovered
if [ "$me" = 0 ]; then
	vm_ends_in_error "old server ends with an error" "$old" /tmp/old.log
	t_run "the peer's restart counted" sh -c "[ $(vm_counter "$dev" peer_restarts) -gt $restarts ]"
fi
vm_barrier "done"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A peer that restarts (Documentation/wire-protocol.rst, "Connections and
# epochs"), two VMs:
#   1. under traffic: VM1's pingpong client is killed mid-run and VM1
#      reloads the module (device del, rmmod, modprobe, device add); a new
#      pingpong between the two must then work, and VM0's old server must
#      end with an error completion, not hang;
#   2. idle, the other way round: VM0 reloads, and a new pingpong works.
# Both sides check their counters: the side that stayed counts the peer's
# restart.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

me=$MROCE_VM_INDEX
pp_args() { echo "-d $dev -g $gid -s 4096"; }

# reload: what a restarted host does before its first new QP
reload() {
	rdma link del "$dev" &&
		modprobe -r mroce &&
		rdma link add "$dev" type mroce netdev eth0 &&
		gid=$(vm_gid_index "$dev")
}

vm_rdma_up mroce
# shellcheck disable=SC2046 # pp_args' words
vm_pair pingpong-before-restart 120 ibv_rc_pingpong $(pp_args) -n 100

# --- 1. VM1 restarts under traffic -----------------------------------------
vm_barrier traffic
if [ "$me" = 0 ]; then
	# shellcheck disable=SC2046
	timeout 300 ibv_rc_pingpong $(pp_args) -n 100000000 >/tmp/old.log 2>&1 &
	old=$!
	vm_wait_listening "$old" || t_fail "old server listens"
	vm_set old-listening 1
else
	vm_get old-listening >/dev/null
	sleep 0.5
	# shellcheck disable=SC2046
	timeout 300 ibv_rc_pingpong $(pp_args) -n 100000000 "$(vm_ip 0)" >/tmp/old.log 2>&1 &
	old=$!
	tx0=$(vm_counter "$dev" tx_pkts)
	sleep 3
	if kill -0 "$old" 2>/dev/null && [ "$(vm_counter "$dev" tx_pkts)" -gt $((tx0 + 100)) ]; then
		t_ok "traffic flows before the restart"
	else
		t_fail "traffic flows before the restart" "$(tail -n 3 /tmp/old.log | tr '\n' ' ')"
	fi
	# A crash: the process dies at once (its timeout wrapper with it).
	pkill -KILL -x ibv_rc_pingpong
	wait "$old" 2>/dev/null
	# Not t_run: reload sets $gid in this shell.
	if reload; then t_ok "VM1 reloads mroce"; else t_fail "VM1 reloads mroce"; fi
fi
vm_barrier reloaded 180
start=$SECONDS
# shellcheck disable=SC2046
vm_pair pingpong-after-peer-restart 120 ibv_rc_pingpong $(pp_args) -n 200
echo "new pair done $((SECONDS - start)) s after the reload"
if [ "$me" = 0 ]; then
	# The old QP spoke with VM1's old incarnation: it fails once VM1's
	# new HELLO arrives, which the new pair's connection brought.
	end=$((SECONDS + 30))
	while kill -0 "$old" 2>/dev/null && [ $SECONDS -lt $end ]; do
		sleep 0.2
	done
	if kill -0 "$old" 2>/dev/null; then
		t_fail "old server ends with an error" "still running 30 s after the new pair"
		kill "$old"
	elif wait "$old"; then
		t_fail "old server ends with an error" "it exited 0"
	else
		t_ok "old server ends with an error ($(grep -m1 -oE 'Failed status [^ ]+ [^ ]+|status [0-9]+' /tmp/old.log))"
	fi
	t_run "peer_restarts counted" sh -c "[ $(vm_counter "$dev" peer_restarts) -ge 1 ]"
fi

# --- 2. VM0 restarts, idle ---------------------------------------------------
vm_barrier idle
if [ "$me" = 0 ]; then
	if reload; then t_ok "VM0 reloads mroce"; else t_fail "VM0 reloads mroce"; fi
fi
vm_barrier reloaded-idle 180
# shellcheck disable=SC2046
vm_pair pingpong-after-vm0-restart 120 ibv_rc_pingpong $(pp_args) -n 200
if [ "$me" = 1 ]; then
	t_run "peer_restarts counted" sh -c "[ $(vm_counter "$dev" peer_restarts) -ge 1 ]"
fi
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
vm_barrier done
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A peer that restarts (Documentation/wire-protocol.rst, "Connections and
# epochs"), two VMs:
#   1. under traffic: VM1's pingpong client is killed mid-run and VM1
#      reloads the module (device del, rmmod, modprobe, device add); a new
#      pingpong between the two must then work, and VM0's old server must
#      end with an error completion, not hang;
#   2. the same with the device deleted and added again, the module loaded;
#   3. idle, the other way round: VM0 reloads, and a new pingpong works;
#   4. with a 2-s linger, the connection goes once its last QP has, on both
#      sides, and a new pingpong makes a new one;
#   5. VM1 goes silent under VM0's writes: once VM0's writer is gone, VM0
#      sends it nothing (DEAD-PEER-QUIET); VM0 deletes its device and
#      unloads the module while those writes are still in flight: all
#      are freed;
#   6. under traffic, VM1's address moves to another host (a namespace with
#      its own MAC and mroce device): VM0's old QP fails, new ones work.
# Both sides check their counters: the side that stayed counts the peer's
# restart.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

me=$MROCE_VM_INDEX

# reload: what a restarted host does before its first new QP
reload() {
	rdma link del "$dev" &&
		modprobe -r mroce &&
		rdma link add "$dev" type mroce netdev eth0 &&
		gid=$(vm_gid_index "$dev")
}

vm_rdma_up mroce
# shellcheck disable=SC2046 # vm_pp_args' words
vm_pair pingpong-before-restart 120 ibv_rc_pingpong $(vm_pp_args) -n 100

# relink: a device deleted and made again, the module staying
relink() {
	rdma link del "$dev" &&
		rdma link add "$dev" type mroce netdev eth0 &&
		gid=$(vm_gid_index "$dev")
}

# crash_restart NAME ACTION: VM1's pingpong client dies mid-run and VM1
# runs ACTION (reload or relink); a new pingpong must then work, and VM0's
# old server, whose QP spoke with VM1's old incarnation, must end with an
# error once VM1's new HELLO (brought by the new pair) arrives.
crash_restart() {
	local name=$1 action=$2 old tx0 start end restarts
	vm_barrier "traffic-$name"
	restarts=$(vm_counter "$dev" peer_restarts)
	if [ "$me" = 0 ]; then
		# shellcheck disable=SC2046
		timeout 300 ibv_rc_pingpong $(vm_pp_args) -n 100000000 >/tmp/old.log 2>&1 &
		old=$!
		vm_wait_listening "$old" || t_fail "$name: old server listens"
		vm_set "old-listening-$name" 1
	else
		vm_get "old-listening-$name" >/dev/null
		sleep 0.5
		# shellcheck disable=SC2046
		timeout 300 ibv_rc_pingpong $(vm_pp_args) -n 100000000 "$(vm_ip 0)" >/tmp/old.log 2>&1 &
		old=$!
		tx0=$(vm_counter "$dev" tx_pkts)
		sleep 3
		if kill -0 "$old" 2>/dev/null && [ "$(vm_counter "$dev" tx_pkts)" -gt $((tx0 + 100)) ]; then
			t_ok "$name: traffic flows before the restart"
		else
			t_fail "$name: traffic flows before the restart" "$(tail -n 3 /tmp/old.log | tr '\n' ' ')"
		fi
		# A crash: the process dies at once (its timeout wrapper with it).
		pkill -KILL -x ibv_rc_pingpong
		wait "$old" 2>/dev/null
		# Not t_run: the action sets $gid in this shell.
		if $action; then t_ok "$name: VM1 $action"; else t_fail "$name: VM1 $action"; fi
	fi
	vm_barrier "restarted-$name" 180
	start=$SECONDS
	# (after an address move VM1's client runs in the new host's namespace)
	vm_pair2 "$name-new-pingpong" 120 "ibv_rc_pingpong $(vm_pp_args) -n 200" \
		"${pp_prefix:-}ibv_rc_pingpong $(vm_pp_args) -n 200 $(vm_ip 0)"
	echo "$name: new pair done $((SECONDS - start)) s after the restart"
	# Its QP's RTR sent the new incarnation's first HELLO just before: its
	# time beyond 200 round trips at the speed before the restart is the
	# recovery.
	vm_pp_within "$name-new-pingpong" 1 pingpong-before-restart
	[ "$me" = 0 ] || return 0
	vm_ends_in_error "$name: old server ends with an error" "$old" /tmp/old.log
	t_run "$name: the restart counted" sh -c "[ $(vm_counter "$dev" peer_restarts) -gt $restarts ]"
}

crash_restart module-reload reload
crash_restart device-readd relink

# --- 3. VM0 restarts, idle ---------------------------------------------------
vm_barrier idle
if [ "$me" = 0 ]; then
	if reload; then t_ok "VM0 reloads mroce"; else t_fail "VM0 reloads mroce"; fi
fi
vm_barrier reloaded-idle 180
# shellcheck disable=SC2046
vm_pair pingpong-after-vm0-restart 120 ibv_rc_pingpong $(vm_pp_args) -n 200
if [ "$me" = 1 ]; then
	t_run "peer_restarts counted" sh -c "[ $(vm_counter "$dev" peer_restarts) -ge 1 ]"
fi
# --- 4. idle connections are reaped after their linger ------------------------
echo 2 >/sys/module/mroce/parameters/conn_linger_s
vm_barrier linger
reaped=$(vm_counter "$dev" connections_reaped)
# shellcheck disable=SC2046
vm_pair pingpong-before-reaping 120 ibv_rc_pingpong $(vm_pp_args) -n 100
sleep 5
t_run "no connection left 5 s after the last QP" sh -c "[ $(vm_counter "$dev" connections) = 0 ]"
t_run "the idle connection was reaped" sh -c "[ $(vm_counter "$dev" connections_reaped) -gt $reaped ]"
vm_barrier reaped
# shellcheck disable=SC2046
vm_pair pingpong-after-reaping 120 ibv_rc_pingpong $(vm_pp_args) -n 100

# --- 5. a device deleted with packets in flight to a silent peer ------------
# VM0 writes to VM1 (ib_write_bw keeps a window of writes in flight); VM1
# goes silent (netem drops its egress), so VM0's packets are never
# acknowledged.  VM0's writer dies and VM0 deletes its device and unloads
# the module while its connection still holds them.  Each packet holds its
# stream and the stream the connection: all must be freed with the device,
# or the module's packet cache is destroyed with objects in it (a kernel
# warning the rig fails on).
echo 60 >/sys/module/mroce/parameters/conn_linger_s
# (SLUB counts the free objects of its per-CPU slabs as active: shrink first)
seg_objs() {
	echo 1 >/sys/kernel/slab/mroce_seg/shrink 2>/dev/null
	awk '$1 == "mroce_seg" { print $2; f = 1 } END { if (!f) print 0 }' /proc/slabinfo
}
bw_args() { echo "-d $dev -x $gid -F -s 65536 -D 120"; }
# tx_above N: the device has sent more than N packets
tx_above() { [ "$(vm_counter "$dev" tx_pkts)" -gt "$1" ]; }
vm_barrier silent-peer
if [ "$me" = 1 ]; then
	# shellcheck disable=SC2046
	timeout 300 ib_write_bw $(bw_args) >/tmp/silent.log 2>&1 &
	old=$!
	vm_wait_listening "$old" || t_fail "silent peer: ib_write_bw server listens"
	vm_set silent-listening 1
	vm_get silent-flowing >/dev/null
	t_run "silent peer: VM1 goes silent" tc qdisc add dev eth0 root netem loss 100%
	vm_set silent-muted 1
	vm_get silent-done 180 >/dev/null
	tc qdisc del dev eth0 root
	kill -KILL "$old" 2>/dev/null
	pkill -KILL -x ib_write_bw
	wait "$old" 2>/dev/null
else
	vm_get silent-listening >/dev/null
	# shellcheck disable=SC2046
	timeout 300 ib_write_bw $(bw_args) "$(vm_ip 1)" >/tmp/silent.log 2>&1 &
	old=$!
	tx0=$(vm_counter "$dev" tx_pkts)
	# The transfer flows once 100 packets have left: within 3 s on a
	# release kernel; the debug kernel's once took longer (75 in 3 s).
	t0=$SECONDS
	wait_for 30 tx_above $((tx0 + 100))
	t_run "silent peer: VM0 writes ($(($(vm_counter "$dev" tx_pkts) - tx0)) packets after $((SECONDS - t0)) s)" \
		tx_above $((tx0 + 100))
	vm_set silent-flowing 1
	vm_get silent-muted >/dev/null
	sleep 1
	n=$(seg_objs)
	t_run "silent peer: packets in flight ($n)" test "$n" -gt 0
	pkill -KILL -x ib_write_bw
	wait "$old" 2>/dev/null
	# DEAD-PEER-QUIET: once every path's timer has expired five times in
	# a row (the RTO doubles up to 1 s: a few seconds), nothing is sent.
	sleep 6
	tx0=$(vm_counter "$dev" tx_pkts)
	sleep 5
	n=$(($(vm_counter "$dev" tx_pkts) - tx0))
	t_run "silent peer: nothing sent to it once its QPs are gone ($n packets in 5 s)" test "$n" -eq 0
	t_run "silent peer: VM0 deletes $dev" rdma link del "$dev"
	t_run "silent peer: no packet left" sh -c "[ $(seg_objs) = 0 ]"
	t_run "silent peer: VM0 unloads mroce" modprobe -r mroce
	t_run "silent peer: VM0 adds $dev again" rdma link add "$dev" type mroce netdev eth0
	gid=$(vm_gid_index "$dev")
	vm_set silent-done 1
fi
vm_barrier silent-peer-done 180

# --- 6. the peer's address moves to another host ----------------------------
# VM1 hands its address to "host C": a namespace with a macvlan of eth0
# (a MAC of its own) and an mroce device of its own, announced by a
# gratuitous ARP as a host taking over an address does.  For VM0 the peer
# at that address restarted: its old QP must fail, new ones must work.
move_address() {
	ip netns add hostc &&
		ip link add mvc link eth0 type macvlan mode bridge &&
		ip link set mvc netns hostc &&
		ip addr del "$(vm_ip 1)/24" dev eth0 &&
		ip -n hostc addr add "$(vm_ip 1)/24" dev mvc &&
		ip -n hostc link set lo up && ip -n hostc link set mvc up &&
		ip netns exec hostc rdma link add mroce_c type mroce netdev mvc &&
		dev=mroce_c && gid=$(vm_gid_index "$dev") &&
		pp_prefix="ip netns exec hostc " || return 1
	ip netns exec hostc busybox arping -U -c 2 -I mvc "$(vm_ip 1)" >/dev/null 2>&1
	return 0
}
crash_restart address-move move_address
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
vm_barrier "done"
t_done

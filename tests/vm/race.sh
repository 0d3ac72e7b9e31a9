#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Local races: tests/verify/mroce-race cycles QPs through RESET, INIT, RTR,
# RTS and ERR while other threads ring their doorbells (post_send,
# post_recv), poll, and create and destroy CQs, QPs, SRQs, MRs and MWs;
# then the same threads across link flaps, a device delete and a netdev
# unregister; then the device and the module go.  One VM:
# the QP pairs are connected through the device's own address.
#   MROCE_RACE_SECS   seconds of racing (default 20)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

secs=${MROCE_RACE_SECS:-20}
bin=$(cd "$here/../verify" && pwd)/mroce-race
dmesg_clean() { ! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t|list_(add|del) corruption'; }
qps() { rdma resource show qp 2>/dev/null | grep -c "^link $dev/" || true; }

vm_rdma_up mroce
qps_before=$(qps)
# race NAME ARGS...: mroce-race, its last line (the counts) shown.
race() {
	local name=$1 out rc
	shift
	out=$(timeout $((secs + 120)) "$bin" -d "$dev" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /'
	if [ "$rc" -eq 0 ]; then
		t_ok "$name"
	else
		t_fail "$name" "exit status $rc"
	fi
}

race "mroce-race: 2 QP pairs, $secs s" -s "$secs" -p 2
no_qp_left() { [ "$(qps)" = "$qps_before" ]; }
t_run "no QP left behind" no_qp_left
race "mroce-race: 4 QP pairs, $((secs / 2)) s" -s $((secs / 2)) -p 4

# Lifecycle under the stress: mroce-race -l runs while its device loses its
# link, has its netdev unregistered or is deleted.  Without disassociation
# (mroce's rings are vmalloc memory its own VMAs map: see the admin guide,
# "Removing a device") the IB core keeps an open device until its last user
# closes it: the removal must then complete as soon as mroce-race has
# ended, and mroce-race itself must end on time with every destroy done.
lsecs=$((secs / 2 < 6 ? 6 : secs / 2))
bg_race() { # DEV: mroce-race -l in the background, its pid in $race_pid
	timeout $((lsecs + 120)) "$bin" -d "$1" -s "$lsecs" -p 2 -l >"$MROCE_VM_OUT/race-l.out" 2>&1 &
	race_pid=$!
	sleep 2
}
bg_race_ok() { # NAME
	local rc=0
	wait "$race_pid" || rc=$?
	tail -n 3 "$MROCE_VM_OUT/race-l.out" | sed 's/^/    /'
	if [ "$rc" -eq 0 ]; then t_ok "$1"; else t_fail "$1" "exit status $rc"; fi
}
gone_within() { # DEV SECS: the device has disappeared within SECS seconds
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "/sys/class/infiniband/$1" ] || return 0
		sleep 0.1
	done
	return 1
}

# Link down and up, twice, while the threads run; then the device works.
bg_race "$dev"
for _ in 1 2; do
	ip link set eth0 down
	sleep 1
	ip link set eth0 up
	sleep 1
done
bg_race_ok "mroce-race -l across two link flaps"
race "mroce-race after the link flaps" -s 4 -p 2

# The device deleted under the threads: the delete waits for their end.
bg_race "$dev"
rdma link del "$dev" &
del_pid=$!
sleep 1
busy_del() { kill -0 "$del_pid" 2>/dev/null; }
t_run "rdma link del waits while the device is open" busy_del
refused_unload() { ! modprobe -r mroce 2>/dev/null; }
t_run "module unload refused while the device is open" refused_unload
bg_race_ok "mroce-race -l across rdma link del"
# (t_run's subshell cannot wait for this shell's children)
if wait "$del_pid"; then
	t_ok "rdma link del completes once the device is closed"
else
	t_fail "rdma link del completes once the device is closed" "exit status $?"
fi
t_run "device $dev gone" gone_within "$dev" 10

# The netdev unregistered under the threads (a veth pair; the device goes
# with its netdev once mroce-race has closed it).
ip link add vL type veth peer name vM && ip addr add 10.79.0.1/24 dev vL &&
	ip link set vL up && ip link set vM up || t_give_up "veth setup"
t_run "rdma link add vdev on vL" rdma link add vdev type mroce netdev vL
bg_race vdev
ip link del vL &
unreg_pid=$!
sleep 1
busy_unreg() { kill -0 "$unreg_pid" 2>/dev/null; }
t_run "the netdev unregister waits while the device is open" busy_unreg
bg_race_ok "mroce-race -l across the unregister of its netdev"
if wait "$unreg_pid"; then
	t_ok "ip link del vL completes"
else
	t_fail "ip link del vL completes" "exit status $?"
fi
t_run "vdev gone with its netdev" gone_within vdev 20

t_run "modprobe -r mroce" modprobe -r mroce
t_run "kernel log free of warnings" dmesg_clean
t_done

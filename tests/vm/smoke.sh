#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the VM rig itself (no mroce code involved):
#
#   scripts/vm run --vms 2 --links 2 -- tests/vm/smoke.sh
#
# Checks NIC naming and wiring (ping over every link, IPv4 and IPv6), module
# autoloading by alias (modprobe and the kernel's request_module), soft-RoCE
# (rxe) with Debian's rdma-core, and an RC ping-pong between the two VMs.

set -uo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

me=$MROCE_VM_INDEX
if [[ $MROCE_VM_COUNT -ne 2 ]]; then
	t_fail setup "needs --vms 2"
	t_done
	exit
fi
peer=$(vm_peer)

# --- links ------------------------------------------------------------------

for ((k = 0; k < MROCE_VM_LINKS; k++)); do
	t_run "eth$k has MAC 52:54:00:4d:0$me:0$k" \
		grep -qx "52:54:00:4d:0$me:0$k" "/sys/class/net/eth$k/address"
done
t_run "addresses configured" vm_net_setup
vm_barrier net-up || { t_done; exit; }
for ((k = 0; k < MROCE_VM_LINKS; k++)); do
	t_run "ping vm$peer over eth$k" vm_ping -c 2 -w 10 -I "eth$k" "$(vm_ip "$peer" "$k")"
	t_run "ping6 vm$peer over eth$k" vm_ping -6 -c 2 -w 10 -I "eth$k" "$(vm_ip6 "$peer" "$k")"
done
# Link k must reach the peer's link k and no other: with the routes of a
# /24 per link, eth1 cannot reach the peer's eth0 subnet.
if [[ $MROCE_VM_LINKS -ge 2 ]]; then
	t_run "eth1 neighbour is vm$peer's eth1" bash -c \
		"ip neigh show dev eth1 | grep -qi '52:54:00:4d:0$peer:01'"
fi

# --- module autoloading -------------------------------------------------------

t_run "rdma_rxe not loaded at boot" test ! -e /sys/module/rdma_rxe
t_run "modprobe rdma-link-rxe (alias)" modprobe rdma-link-rxe
t_run "alias loaded rdma_rxe" test -e /sys/module/rdma_rxe
t_run "modprobe -r rdma_rxe" modprobe -r rdma_rxe
# `rdma link add ... type rxe` makes the kernel request_module("rdma-link-rxe").
t_run "rdma link add rxe0 (kernel autoload)" rdma link add rxe0 type rxe netdev eth0
t_run "ibv_devices lists rxe0" bash -c "ibv_devices | grep -qw rxe0"

# --- RC ping-pong between the VMs over rxe ------------------------------------

# GID table index of our IPv4 address (::ffff:a.b.c.d) on rxe0 port 1.
gid_index() {
	local want g n a b c d
	IFS=. read -r a b c d <<<"$1"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for ((n = 0; n < 50; n++)); do
		for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
			if [[ $(cat "$g" 2>/dev/null) == "$want" ]]; then
				echo "${g##*/}"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}
if gidx=$(gid_index "$(vm_ip "$me")"); then
	t_ok "rxe0 has a GID for $(vm_ip "$me") (index $gidx)"
else
	t_fail "rxe0 GID" "no GID for $(vm_ip "$me")"
	gidx=1
fi

vm_set "gid$me" "$(cat "/sys/class/infiniband/rxe0/ports/1/gids/$gidx" 2>/dev/null)"
pgid=$(vm_get "gid$peer") && t_run "vm_get peer GID ($pgid)" test -n "$pgid"

pp=(timeout 60 ibv_rc_pingpong -d rxe0 -i 1 -g "$gidx" -n 50 -s 4096)
if [[ $me -eq 1 ]]; then
	"${pp[@]}" >/tmp/pp.out 2>&1 &
	srv=$!
	vm_barrier pp-listen
	if wait "$srv"; then
		t_ok "ibv_rc_pingpong server"
	else
		t_fail "ibv_rc_pingpong server" "$(tail -n 3 /tmp/pp.out)"
	fi
else
	vm_barrier pp-listen
	# The server may not be listening yet: retry the TCP connection.
	for ((try = 0; try < 20; try++)); do
		"${pp[@]}" "$(vm_ip "$peer")" >/tmp/pp.out 2>&1 && break
		grep -q "Couldn't connect" /tmp/pp.out || break
		sleep 0.5
	done
	if grep -q 'iters in' /tmp/pp.out; then
		t_ok "ibv_rc_pingpong client ($(grep -m1 'bytes in' /tmp/pp.out))"
	else
		t_fail "ibv_rc_pingpong client" "$(tail -n 3 /tmp/pp.out)"
	fi
fi
vm_barrier pp-done

t_run "rdma link delete rxe0" rdma link delete rxe0
t_run "ibv_devices no longer lists rxe0" bash -c "! ibv_devices | grep -qw rxe0"

vm_barrier end
t_done

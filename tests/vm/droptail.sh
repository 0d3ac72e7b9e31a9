#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Congestive loss (Documentation/wire-protocol.rst, "Congestive loss")
# between two VMs: VM0's way in is a port of 80 Mbit/s whose 64 KiB queue
# drops its tail and never marks ECN (eth0's ingress redirected to ifb0,
# a token bucket).  VM1 writes through it twice: with the reaction on,
# its windows must be cut for loss (loss_cuts) and the port must drop
# little; with it off (congestive_loss=0, which takes effect at once), no
# window is cut for loss and the port drops several times as much.
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/droptail.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

secs=8
dev=mroce0
closs=/sys/module/mroce/parameters/congestive_loss

vm_net_setup || t_give_up "network setup"
modprobe ib_uverbs
modprobe mroce || t_give_up "modprobe mroce"
rdma link add "$dev" type mroce netdev eth0 || t_give_up "rdma link add $dev"
if [[ $MROCE_VM_INDEX -eq 0 ]]; then
	vm_tail_drop_in 80mbit 64kb || t_give_up "drop-tail port on ifb0"
fi

# run ON: one ib_write_bw through the port with the reaction ON (1/0);
# on VM1 sets loss (per mille of the packets offered to the port) and cuts
# shellcheck disable=SC2154 # bw_gbps: set by vm_write_bw (lib.sh)
run() {
	local on=$1 s0 d0 s1 d1 c0
	echo "$on" >"$closs" || return 1
	[[ $MROCE_VM_INDEX -eq 1 ]] || read -r s0 d0 <<<"$(vm_tail_drop_counts)"
	c0=$(vm_counter "$dev" loss_cuts)
	vm_write_bw "$dev" "$secs" "$MROCE_VM_OUT/bw-$on.vm$MROCE_VM_INDEX.log"
	t_run "reaction $on: ib_write_bw ends cleanly" test $? -eq 0
	cuts=$(($(vm_counter "$dev" loss_cuts) - c0))
	if [[ $MROCE_VM_INDEX -eq 0 ]]; then
		read -r s1 d1 <<<"$(vm_tail_drop_counts)"
		vm_set "port$on" "$((s1 - s0)) $((d1 - d0))"
		return 0
	fi
	read -r s1 d1 <<<"$(vm_get "port$on" 60)"
	loss=$((d1 * 1000 / (s1 + d1 + 1)))
	echo "reaction $on: $bw_gbps Gb/s, port dropped $d1 of $((s1 + d1)), $cuts windows cut for loss"
}

vm_barrier up 120 || t_give_up "peer not up"
run 1
if [[ $MROCE_VM_INDEX -eq 1 ]]; then
	loss_on=$loss
	t_run "with the reaction, windows cut for loss ($cuts)" test "$cuts" -gt 0
	# 8-24 per mille measured here, once 40 (an emulator stall: its
	# goodput fell by a fifth) and once 67 (6.12, in a full make check;
	# three runs after it gave 19, 19 and 24); 80 leaves room for those.
	# The comparison with the reaction off, below, is the sharper test.
	t_run "with the reaction, the port drops little ($loss_on per mille)" \
		test "$loss_on" -lt 80
fi
run 0
if [[ $MROCE_VM_INDEX -eq 1 ]]; then
	t_run "without it, no window cut for loss ($cuts)" test "$cuts" -eq 0
	# 88-210 per mille measured here.
	t_run "without it, the port drops more ($loss per mille, against $loss_on)" \
		test "$loss" -gt $((loss_on + 30))
fi
echo 1 >"$closs"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Open MPI over UCX over mroce, one rank on each of two VMs: mpirun on
# VM0 starts VM1's daemon through tests/vm/mpi-rsh (the VMs have no ssh),
# and tests/verify/mroce-mpi-collectives runs MPI_Allreduce and
# MPI_Alltoall from 8 bytes to 2 MiB, checking every element.  The run
# must end cleanly, with its traffic on the device.
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/mpi.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

prog=$here/../verify/mroce-mpi-collectives
vm_rdma_up mroce
command -v mpirun >/dev/null || t_give_up "mpirun not installed (openmpi-bin)"
[[ -x $prog ]] || t_give_up "$prog not built: run 'make'"
export UCX_NET_DEVICES=$dev:1 UCX_IB_GID_INDEX=$gid UCX_TLS=rc_verbs,ud_verbs
p0=$(($(vm_counter "$dev" tx_pkts) + $(vm_counter "$dev" rx_pkts)))
vm_barrier up

if [[ $MROCE_VM_INDEX -eq 1 ]]; then
	# Serve mpi-rsh: each request is a command line to run here, as
	# ssh's remote shell would; its output and status go back.
	me=$(vm_ip 1)
	served=0
	end=$((SECONDS + 450))	# mpirun's timeout, and time to start it
	while [[ ! -e $MROCE_VM_SHARED/val.mpi-done ]] && ((SECONDS < end)); do
		for f in "$MROCE_VM_SHARED/rsh.$me".*.cmd; do
			[[ -e $f ]] || continue
			base=${f%.cmd}
			mv "$f" "$base.run" || continue
			served=$((served + 1))
			(
				bash -c "$(cat "$base.run")" >"$base.out" 2>&1
				echo $? >"$base.rc.tmp"
				mv "$base.rc.tmp" "$base.rc"
			) &
		done
		sleep 0.2
	done
	wait
	t_run "mpi-rsh: VM0's mpirun started its daemon here ($served)" test "$served" -ge 1
else
	log=$MROCE_VM_OUT/mpi.vm0.log
	timeout 400 mpirun --allow-run-as-root -n 2 --host "$(vm_ip 0),$(vm_ip 1)" \
		--mca plm_rsh_agent "$here/mpi-rsh" --mca oob_tcp_if_include eth0 \
		--mca pml ucx --mca osc ucx --mca btl self \
		-x UCX_NET_DEVICES -x UCX_IB_GID_INDEX -x UCX_TLS \
		"$prog" $((2 << 20)) >"$log" 2>&1
	rc=$?
	vm_set mpi-done 1
	cat "$log"
	t_run "MPI_Allreduce and MPI_Alltoall, 8 B to 2 MiB, every element checked (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && grep -q 'all results checked on 2 ranks' '$log'"
fi
# Rank 1's share: 2 MiB each way in the largest all-to-all alone.
got=$(($(vm_counter "$dev" tx_pkts) + $(vm_counter "$dev" rx_pkts) - p0))
t_run "the ranks' traffic went over mroce ($got packets)" test "$got" -ge 2000
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

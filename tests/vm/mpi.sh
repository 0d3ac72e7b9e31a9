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
[[ -x $prog ]] || t_give_up "$prog not built: install Open MPI (make deps), then make"
export UCX_NET_DEVICES=$dev:1 UCX_IB_GID_INDEX=$gid UCX_TLS=rc_verbs,ud_verbs
p0=$(($(vm_counter "$dev" tx_pkts) + $(vm_counter "$dev" rx_pkts)))
vm_mpi_pair mpi 400 "$prog" $((2 << 20))
rc=$?
if [[ $MROCE_VM_INDEX -eq 1 ]]; then
	# shellcheck disable=SC2154 # set by vm_mpi_pair
	t_run "mpi-rsh: VM0's mpirun started its daemon here ($mpi_served)" \
		test "$mpi_served" -ge 1
else
	log=$MROCE_VM_OUT/mpi.vm0.log
	cat "$log"
	t_run "MPI_Allreduce and MPI_Alltoall, 8 B to 2 MiB, every element checked (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && grep -q 'all results checked on 2 ranks' '$log'"
fi
# Rank 1's share: 2 MiB each way in the largest all-to-all alone.
got=$(($(vm_counter "$dev" tx_pkts) + $(vm_counter "$dev" rx_pkts) - p0))
t_run "the ranks' traffic went over mroce ($got packets)" test "$got" -ge 2000
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel consumers over mroce: NVMe over Fabrics (RDMA) between two VMs.
# VM0 exports a RAM disk with the in-kernel target (nvmet-rdma); VM1
# connects with the in-kernel host (nvme-rdma), writes random data with
# O_DIRECT, reads it back and compares, then disconnects.  This drives
# what kernel ULPs use and no userspace tool does: the kernel's CM over
# the GSI QP, kernel CQs polled from softirq, fast-registration regions
# (REG_MR), LOCAL_INV and SEND_WITH_INV, RDMA READ/WRITE with the local
# DMA key, and ib_drain_qp() at teardown.
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/nvme.sh [DEV_TYPE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

type=${1:-mroce}
vm_rdma_up "$type"
nqn=mroce-nvme-test
srv=$(vm_ip 0)
mib=32

if [ "$MROCE_VM_INDEX" -eq 0 ]; then
	cfs=/sys/kernel/config/nvmet
	sub=$cfs/subsystems/$nqn
	modprobe brd rd_nr=1 rd_size=$((2 * mib * 1024)) || t_give_up "brd"
	modprobe nvmet-rdma || t_give_up "nvmet-rdma"
	# configfs may have come as a module only now.
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || t_give_up "configfs"
	mkdir "$sub" && echo 1 >"$sub/attr_allow_any_host" &&
		mkdir "$sub/namespaces/1" &&
		echo /dev/ram0 >"$sub/namespaces/1/device_path" &&
		echo 1 >"$sub/namespaces/1/enable" &&
		mkdir "$cfs/ports/1" &&
		echo rdma >"$cfs/ports/1/addr_trtype" &&
		echo ipv4 >"$cfs/ports/1/addr_adrfam" &&
		echo "$srv" >"$cfs/ports/1/addr_traddr" &&
		echo 4420 >"$cfs/ports/1/addr_trsvcid" &&
		ln -s "$sub" "$cfs/ports/1/subsystems/$nqn"
	t_run "nvmet: RAM disk exported over RDMA" test -L "$cfs/ports/1/subsystems/$nqn"
	vm_barrier target-ready
	vm_barrier host-done 600
else
	vm_barrier target-ready
	modprobe nvme-rdma || t_give_up "nvme-rdma"
	# What nvme-cli's "connect" writes, without needing nvme-cli.
	t_run "nvme-rdma: connect" sh -c \
		"echo transport=rdma,traddr=$srv,trsvcid=4420,nqn=$nqn > /dev/nvme-fabrics"
	# The controller is the one of our subsystem; with native multipath
	# its namespace's block device hangs off the subsystem, so look in /dev.
	for _ in $(seq 100); do
		ctrl=$(grep -lx "$nqn" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null | head -n 1)
		blk=$(ls /dev/nvme[0-9]*n1 2>/dev/null | head -n 1)
		[ -n "$ctrl" ] && [ -b "$blk" ] && break
		sleep 0.1
	done
	if [ -b "$blk" ]; then
		t_ok "namespace $blk appeared"
		head -c $((mib << 20)) /dev/urandom >/dev/shm/data
		t_run "write ${mib} MiB (O_DIRECT)" dd if=/dev/shm/data of="$blk" bs=1M oflag=direct status=none
		t_run "read back (O_DIRECT)" dd if="$blk" of=/dev/shm/back bs=1M count=$mib iflag=direct status=none
		t_run "data read back equals data written" cmp /dev/shm/data /dev/shm/back
		# Small I/O too: in-capsule data and single-page transfers.
		t_run "4 KiB writes at scattered offsets" sh -c "
			for i in 3 17 29 101 555; do
				dd if=/dev/shm/data of=$blk bs=4096 skip=\$i seek=\$((i * 3)) count=1 oflag=direct status=none || exit 1
			done
			for i in 3 17 29 101 555; do
				dd if=$blk bs=4096 skip=\$((i * 3)) count=1 iflag=direct status=none |
					cmp - /dev/shm/data -n 4096 -i 0:\$((i * 4096)) || exit 1
			done"
		t_run "nvme-rdma: disconnect" sh -c "echo 1 > ${ctrl%/*}/delete_controller"
	else
		t_fail "namespace appeared" "no controller or block device for $nqn"
	fi
	vm_barrier host-done
fi
if [ "$type" = mroce ]; then
	echo "counters: $(vm_counters "$dev" 2>/dev/null)"
fi
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t|hung_task"'
# A failed work request or a lost queue pair makes the host reconnect and
# retry, so the data can come out right anyway: the log must show none.
t_run "no failed work request, no error recovery" sh -c \
	'! dmesg | grep -E "nvme.*(failed with status|error recovery)|nvmet.*failed"'
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Shared receive queues and asynchronous events between two VMs:
# ibv_srq_pingpong (16 RC QPs on one SRQ, buffers validated), then
# tests/verify/mroce-events on each VM: SRQ limit event, QP and CQ error
# events, the NCCL-style WRITE-with-immediate pattern on a shared CQ, and
# port events while the netdev goes down and up.
#   scripts/vm run --vms 2 --links 1 --module .../mroce.ko -- tests/vm/srq.sh [DEV_TYPE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

type=${1:-mroce}
events=$here/../verify/mroce-events
vm_rdma_up "$type"

for size in 64 4096; do
	vm_pair "srq_pingpong-$size" 180 ibv_srq_pingpong -d "$dev" -g "$gid" -n 50 -s "$size" -c
done
vm_pair srq_pingpong-events 180 ibv_srq_pingpong -d "$dev" -g "$gid" -n 50 -s 1024 -q 4 -e -c

vm_barrier events
out=$("$events" -d "$dev" -n eth0 2>&1)
rc=$?
echo "$out" | sed "s/^/    /"
echo "$out" | grep -E '^ok ' | while read -r _ name; do t_ok "events: $name"; done
echo "$out" | grep -E '^FAIL ' | while read -r _ name rest; do t_fail "events: ${name%:}" "$rest"; done
[ "$rc" -eq 0 ] || [ -n "$(echo "$out" | grep -E '^FAIL ')" ] || t_fail "events" "exit $rc: $out"
vm_barrier events-done

t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

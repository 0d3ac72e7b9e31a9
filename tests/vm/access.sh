#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Remote access enforcement between two VMs: tests/verify/mroce-access with
# VM0 as server and VM1 as client, over a soft-RDMA device on eth0.  Each
# case of the program (bad rkey, out-of-range addresses, MR and QP access
# flags, foreign PD, too long SEND, RNR, a valid WRITE, a CQ resize) becomes
# one test on each VM (both print the verdict of both sides); the program's
# detail lines ("# ...") follow in the log, and each side's full output is
# kept in the run's output directory as access-vm<i>.log.
#
#   make -C tests/verify
#   scripts/vm run --vms 2 --links 1 --timeout 600 \
#       --module build/kmod/KVER/drivers/infiniband/sw/mroce/mroce.ko -- tests/vm/access.sh
#   scripts/vm run --vms 2 --links 1 --timeout 600 \
#       --env MROCE_ACCESS_DEV_TYPE=rxe -- tests/vm/access.sh
#
# Environment (all optional):
#   MROCE_ACCESS_DEV_TYPE   rxe or mroce (default mroce; argument 1 wins)
#   MROCE_ACCESS_TIMEOUT    the program's -t, seconds (default 240)
#   MROCE_ACCESS_PORT       TCP port of its setup connection (default 18525)
#
# rxe (Debian 12, kernel 6.1), the reference, fails two cases: a WRITE to
# a QP without IBV_ACCESS_REMOTE_WRITE in its qp_access_flags completes with
# "remote invalid request error" (rxe NAKs it as an unsupported opcode), and
# a SEND longer than the receive completes with "remote operation error"
# while the receive completes with "local QP operation error".

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

type=${1:-${MROCE_ACCESS_DEV_TYPE:-mroce}}
secs=${MROCE_ACCESS_TIMEOUT:-240}
port=${MROCE_ACCESS_PORT:-18525}
bin=$(cd "$here/../verify" && pwd)/mroce-access
dev=${type}0
me=$MROCE_VM_INDEX
role=$([[ $me -eq 0 ]] && echo server || echo client)

[[ $MROCE_VM_COUNT -eq 2 ]] || t_give_up "needs --vms 2"
[[ $type == rxe || $type == mroce ]] || t_give_up "device type '$type': rxe or mroce"
[[ -x $bin ]] || t_give_up "$bin not built: run 'make -C tests/verify' on the host"
# shellcheck source=scripts/rdma-env
. "$here/../../scripts/rdma-env" || t_give_up "no rdma-core build: run scripts/build-provider"

# --- setup -------------------------------------------------------------------

t_run "addresses configured" vm_net_setup || t_give_up "no network"
vm_barrier net-up || { t_done; exit; }
t_run "ping vm$(vm_peer)" vm_ping -c 1 -w 10 "$(vm_ip "$(vm_peer)")"
modprobe ib_uverbs
t_run "rdma link add $dev type $type netdev eth0" \
	rdma link add "$dev" type "$type" netdev eth0 || t_give_up "no $dev"
vm_barrier dev-up || { t_done; exit; }

# --- the cases ---------------------------------------------------------------

args=(-d "$dev" -p "$port" -t "$secs")
[[ $me -eq 0 ]] || args+=("$(vm_ip 0)")
log=${MROCE_VM_OUT:-/tmp}/access-vm$me.log
start=$SECONDS
# The program has its own timeout (-t, and an alarm); timeout(1) is the backstop.
timeout -k 10 $((secs + 30)) "$bin" "${args[@]}" >"$log" 2>&1
rc=$?
elapsed=$((SECONDS - start))

cases=0
failed=0
summary=
while IFS= read -r line; do
	case $line in
	"ok "*)
		cases=$((cases + 1))
		t_ok "${line#ok } ($type, $role)"
		;;
	"FAIL "*)
		cases=$((cases + 1))
		failed=$((failed + 1))
		line=${line#FAIL }
		t_fail "${line%%:*} ($type, $role)" "${line#*: }"
		;;
	"access: "*)
		summary=$line
		echo "    $line"
		;;
	*)
		echo "    $line"
		;;
	esac
done <"$log"
echo "    mroce-access $role: exit status $rc, $elapsed s; $dev counters: $(vm_counters "$dev")"
# A run that ended without its verdicts (setup error, timeout, crash) fails too.
if [[ $rc -ne 0 && $failed -eq 0 ]] || [[ -z $summary ]] || ((cases == 0)); then
	t_fail "mroce-access $role ($type)" \
		"exit status $rc, $cases case verdicts, summary: ${summary:-none}"
fi

# --- teardown ----------------------------------------------------------------

vm_barrier finish $((secs + 60))
t_run "rdma link delete $dev" rdma link delete "$dev"
t_run "no kernel warnings" sh -c \
	"! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t'"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Local races: tests/verify/mroce-race cycles QPs through RESET, INIT, RTR,
# RTS and ERR while other threads ring their doorbells (post_send,
# post_recv), poll, and create and destroy CQs, QPs, SRQs, MRs and MWs;
# then the device and the module go while nothing is left behind.  One VM:
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
before=$(qps)
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
no_qp_left() { [ "$(qps)" = "$before" ]; }
t_run "no QP left behind" no_qp_left
race "mroce-race: 4 QP pairs, $((secs / 2)) s" -s $((secs / 2)) -p 4
t_run "rdma link del $dev" rdma link del "$dev"
t_run "modprobe -r mroce" modprobe -r mroce
t_run "kernel log free of warnings" dmesg_clean
t_done

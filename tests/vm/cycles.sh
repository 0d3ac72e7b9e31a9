#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Memory returns: tests/verify/mroce-cycle runs MROCE_CYCLES (default
# 10000) QP create/connect/send/destroy cycles spread over 16 peers (the
# VM's 16 IPv4 addresses, each a connection of its own), then the
# connections are reaped after a 2-s linger.  Slab usage must be back at
# its baseline: no cache may hold 500 more live objects than before (one
# per 20 cycles of 10000; aside: the checkers' own caches, kmemleak's and
# debugobjects', and vmap_area, whose freed objects 6.12 pools and purges
# lazily), and no vmalloc area of mroce's (its rings) may be left.  A
# debug kernel (MROCE_VM_SLOW) runs 1000 cycles by default: it is some
# thirty times slower here, and its kmemleak reports a leaked object
# whatever the count; a leak of one object per two cycles still passes
# the slab limit there.  One VM.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

cycles=10000
[ "${MROCE_VM_SLOW:-1}" = 1 ] || cycles=1000
cycles=${MROCE_CYCLES:-$cycles}
peers=16
bin=$(cd "$here/../verify" && pwd)/mroce-cycle

modprobe ib_uverbs
t_run "modprobe mroce conn_linger_s=2" modprobe mroce conn_linger_s=2
vm_rdma_up mroce
for ((k = 1; k < peers; k++)); do
	ip addr add "10.77.1.$k/32" dev eth0 || t_give_up "address 10.77.1.$k"
done

qps() { rdma resource show qp 2>/dev/null | grep -c "^link $dev/" || true; }
conns() { vm_counter "$dev" connections; }
reaped_all() { # within 30 s
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(conns)" = 0 ] && return 0
		sleep 0.1
	done
	echo "connections still $(conns)"
	return 1
}
# Live objects per slab cache.  Shrinking first drops empty slabs and, on a
# KASAN kernel, the quarantine of freed objects that still count as live.
slabs() {
	local f
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null
	done
	awk 'NR > 2 { print $1, $2 }' /proc/slabinfo
}
unreclaimable_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }
mroce_vmallocs() { grep -c '\[mroce\]' /proc/vmallocinfo; }

run_cycles() { # NAME N: mroce-cycle as one test, its result in the name
	local out rc
	out=$(timeout 3000 "$bin" -d "$dev" -n "$2" -m "$peers" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		t_ok "$1: ${out##*cycle: ok: }"
	else
		t_fail "$1" "exit status $rc: $(printf '%s\n' "$out" | tail -n 3)"
	fi
}

before_qps=$(qps)
# Warm up: the caches grow to their working size once.
run_cycles "mroce-cycle warm-up" 200
t_run "connections reaped after the warm-up" reaped_all
reaped0=$(vm_counter "$dev" connections_reaped)
slabs >/tmp/slab.before
kb0=$(unreclaimable_kb)
vm0=$(mroce_vmallocs)

run_cycles "mroce-cycle" "$cycles"
t_run "every connection reaped after the linger" reaped_all
reaped=$(($(vm_counter "$dev" connections_reaped) - reaped0))
more_reaped() { [ "$reaped" -ge "$peers" ]; }
t_run "$reaped connections reaped (>= $peers)" more_reaped
no_qp_left() { [ "$(qps)" = "$before_qps" ]; }
t_run "no QP left behind" no_qp_left

slabs >/tmp/slab.after
kb1=$(unreclaimable_kb)
vm1=$(mroce_vmallocs)
vmallocs_back() { [ "$vm1" -le "$vm0" ]; }
t_run "no vmalloc area of mroce left ($vm0 before, $vm1 after)" vmallocs_back
limit=500
growth=$(awk 'NR == FNR { n[$1] = $2; next }
	$1 !~ /^(kmemleak_object|debug_objects_cache|vmap_area)$/ { print $2 - n[$1], $1 }' \
	/tmp/slab.before /tmp/slab.after | sort -rn | head -n 5)
echo "    unreclaimable slab: ${kb0} kB before, ${kb1} kB after"
echo "    largest growths (objects, cache):"
printf '%s\n' "$growth" | sed 's/^/      /'
top=$(printf '%s\n' "$growth" | awk 'NR == 1 { print $1 }')
slab_back() { [ "${top:-0}" -lt "$limit" ]; }
t_run "slab back at its baseline (largest growth ${top:-0} objects < $limit)" slab_back

t_run "rdma link del $dev" rdma link del "$dev"
t_run "modprobe -r mroce" modprobe -r mroce
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# rdma-core's own test suite (pyverbs, from python3-pyverbs) against rxe
# and mroce in the same VM: rxe0 on eth0, mroce0 on eth1, so each device
# has addresses of its own for the rdma_cm tests.  Every test rxe passes
# must pass on mroce; the tallies of both are printed side by side.
#   scripts/vm run --vms 1 --links 2 --module .../mroce.ko -- tests/vm/pyverbs.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

src=/usr/share/doc/rdma-core/tests
[ -f "$src/run_tests.py" ] || t_give_up "python3-pyverbs is not installed ($src)"

vm_net_setup || t_give_up "network setup"
modprobe ib_uverbs
modprobe rdma_ucm
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev eth0 || t_give_up "rdma link add rxe0"
rdma link add mroce0 type mroce netdev eth1 || t_give_up "rdma link add mroce0"
# GIDs follow the addresses a moment after the devices appear.
for i in $(seq 50); do
	grep -qs ffff /sys/class/infiniband/rxe0/ports/1/gids/* &&
		grep -qs ffff /sys/class/infiniband/mroce0/ports/1/gids/* && break
	sleep 0.2
done

# The suite ships partly compressed; run a decompressed copy.
work=$(mktemp -d)
cp -r "$src" "$work/tests"
gunzip -f "$work"/tests/*.gz || t_give_up "cannot unpack the pyverbs suite"

for dev in rxe0 mroce0; do
	log="$MROCE_VM_OUT/pyverbs-$dev.log"
	echo "running pyverbs on $dev"
	(cd "$work" && timeout 1800 /usr/bin/python3 tests/run_tests.py --dev "$dev" -v) >"$log" 2>&1
	echo "pyverbs on $dev: exit $?, $(grep -E '^(Ran|OK|FAILED)' "$log" | tr '\n' ' ')"
done

/usr/bin/python3 "$here/pyverbs-compare.py" "$MROCE_VM_OUT/pyverbs-rxe0.log" \
	"$MROCE_VM_OUT/pyverbs-mroce0.log" | tee "$MROCE_VM_OUT/pyverbs-compare.txt"
rc=${PIPESTATUS[0]}
# The tallies and anything mroce lacks, for scripts/vm-tests to show.
grep -v '^mroce skipped' "$MROCE_VM_OUT/pyverbs-compare.txt" >"$MROCE_VM_OUT/summary.txt"
if [ "$rc" -eq 0 ]; then
	t_ok "pyverbs: mroce passes every test rxe passes"
else
	t_fail "pyverbs" "tests rxe passes fail or are skipped on mroce (see above)"
fi
t_run "kernel log free of warnings" sh -c '! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t"'
t_done

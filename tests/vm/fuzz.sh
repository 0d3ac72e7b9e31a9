#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Packet fuzzing (tests/compliance/fuzz.py) in one VM: an mroce device over
# one end of a veth pair; the fuzzer and a verifying second peer in a
# network namespace at the other end.  Then the device must go away and
# the module unload cleanly, and the kernel log must hold no report.
#
#   scripts/vm-tests fuzz-short          (100,000 packets, in make check;
#                                         a quarter on the debug kernel)
#   make fuzz                            (MROCE_FUZZ_PACKETS, 1,000,000)
#
# Environment (optional):
#   MROCE_FUZZ_PACKETS   packets to send (default 100000)
#   MROCE_FUZZ_SEED      the mutations' seed (default: the time, date +%s)

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

fuzz=$(cd "$here/../compliance" && pwd)/fuzz.py
packets=${MROCE_FUZZ_PACKETS:-100000}
seed=${MROCE_FUZZ_SEED:-$(date +%s)}
log=$MROCE_VM_OUT/fuzz.log

[[ $packets =~ ^[1-9][0-9]*$ ]] || t_give_up "MROCE_FUZZ_PACKETS: a number"
/usr/bin/python3 -c 'import pyverbs' 2>/dev/null ||
	t_give_up "python3-pyverbs is not installed"
# shellcheck source=scripts/rdma-env
. "$here/../../scripts/rdma-env" || t_give_up "no rdma-core build: run scripts/build-provider"

vm_veth_ns mfuzz mv0 10.88.0.1 10.88.0.2 10.88.0.4 || t_give_up "veth"
modprobe ib_uverbs
t_run "rdma link add mroce0 type mroce netdev mv0" \
	rdma link add mroce0 type mroce netdev mv0 || t_give_up "no mroce0"

echo "fuzz: $packets packets, seed $seed"
# Inside the VM's own timeout, scaled as it is on a slow kernel.
limit=$(((600 + packets / 200) * ${MROCE_VM_SLOW:-1}))
timeout $limit /usr/bin/python3 -X faulthandler "$fuzz" mroce0 mfuzz \
	10.88.0.1 10.88.0.2 10.88.0.4 "$packets" "$seed" >"$log" 2>&1
rc=$?
grep '^#' "$log"
t_verdicts "$log" ||
	t_fail "fuzzer output" "exit $rc (seed $seed): $(tail -20 "$log")"
# fuzz-legit is its last verdict: without it the fuzzer did not finish.
grep -qE '^(ok|FAIL) fuzz-legit' "$log" ||
	t_fail "fuzzer end" "exit $rc (seed $seed): $(tail -5 "$log")"
t_run "rdma link del mroce0" timeout 60 rdma link del mroce0
t_run "module unloads" timeout 60 modprobe -r mroce
t_run "kernel log free of warnings" sh -c \
	"! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t'"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Device lifecycle tests, run inside one VM with two NICs:
#   scripts/vm run --vms 1 --links 2 --module .../mroce.ko -- tests/vm/device.sh
# Covers module autoload, rdma link add/del, attributes seen by userspace,
# GIDs following addresses, port state following the link, netns,
# netdev removal, unload with devices present, and every bad argument.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../../scripts/rdma-env"

PORT=4796
sys=/sys/class/infiniband

dev_exists() { [ -e "$sys/$1" ]; }

# expect_fail NAME PATTERN CMD...: CMD must fail and print PATTERN
expect_fail() {
	local name=$1 pattern=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		t_fail "$name" "succeeded but must fail: $*"
	elif ! grep -qi -- "$pattern" <<<"$out"; then
		t_fail "$name" "expected '$pattern', got: $out"
	else
		t_ok "$name"
	fi
}

has_gid() { grep -qx "$2" "$sys/$1/ports/1/gids/"* 2>/dev/null; }
port_state() { cut -d' ' -f2 <"$sys/$1/ports/1/state"; }
udp_bound() { ss -Huln "sport = :$1" | grep -q .; }
dmesg_clean() { ! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t|unregister_netdevice: waiting'; }

vm_net_setup || exit 1
modprobe ib_uverbs

# --- creation and autoload -------------------------------------------------
t_run "mroce not loaded before first link add" sh -c '! grep -q "^mroce " /proc/modules'
t_run "rdma link add autoloads mroce" rdma link add mroce0 type mroce netdev eth0
t_run "module loaded by alias" grep -q "^mroce " /proc/modules
t_run "device in sysfs" dev_exists mroce0
t_run "rdma link shows netdev" sh -c 'rdma link show mroce0/1 | grep -q "netdev eth0"'
t_run "UDP port $PORT bound" udp_bound $PORT
t_run "port active" wait_for 5 sh -c "[ \"\$(cut -d' ' -f2 <$sys/mroce0/ports/1/state)\" = ACTIVE ]"
t_run "link layer Ethernet" grep -qx Ethernet "$sys/mroce0/ports/1/link_layer"
t_run "node_guid from MAC" sh -c "grep -q '5054:00' $sys/mroce0/node_guid"

# --- what unmodified userspace sees through the provider -------------------
t_run "ibv_devices lists mroce0" sh -c 'ibv_devices | grep -qw mroce0'
devinfo=$(ibv_devinfo -v -d mroce0 2>&1)
echo "$devinfo" | sed -n '1,12p'
t_run "ibv_devinfo: PORT_ACTIVE" grep -q 'state:.*PORT_ACTIVE' <<<"$devinfo"
t_run "ibv_devinfo: Ethernet link layer" grep -q 'link_layer:.*Ethernet' <<<"$devinfo"
t_run "ibv_devinfo: max_pd" grep -qE 'max_pd:[[:space:]]+65536' <<<"$devinfo"
t_run "ibv_devinfo: active_mtu 1024 at MTU 1500" grep -q 'active_mtu:.*1024' <<<"$devinfo"
t_run "ibv_devinfo: IPv4 GID, RoCE v2" grep -q '::ffff:10.77.0.1, RoCE v2' <<<"$devinfo"
t_run "PD alloc/free through the provider" /usr/bin/python3 - <<'PY'
from pyverbs.device import Context
from pyverbs.pd import PD
with Context(name='mroce0') as ctx:
    pds = [PD(ctx) for _ in range(16)]
    for pd in pds:
        pd.close()
PY
# rdma -dd res show cq: completions pending and the notification armed,
# what a consumer stuck in ibv_get_cq_event() needs to see.  On the way:
# receives flush when the QP enters ERR, and so does one posted after.
t_run "rdma -dd res show cq: pending completions and arming" timeout 60 /usr/bin/python3 - <<'PY'
import subprocess
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ, CompChannel
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.mr import MR
from pyverbs.wr import SGE, RecvWR
import pyverbs.enums as e

def show():
    out = subprocess.run(['rdma', '-dd', 'res', 'show', 'cq', 'dev', 'mroce0'],
                         check=True, capture_output=True, text=True).stdout
    mine = [l.split() for l in out.splitlines() if 'comm python3' in l]
    assert len(mine) == 1, out
    f = mine[0]
    assert 'drv_pending' in f and 'drv_armed' in f, out
    return int(f[f.index('drv_pending') + 1]), f[f.index('drv_armed') + 1]

def expect(want, what):
    got = show()
    assert got == want, f'{what}: want {want}, got {got}'

with Context(name='mroce0') as ctx:
    pd = PD(ctx)
    ch = CompChannel(ctx)
    cq = CQ(ctx, 16, None, ch)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=8)))
    qp.to_init(QPAttr(port_num=1))
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    sge = SGE(mr.buf, 64, mr.lkey)
    expect((0, 'no'), 'new CQ')

    def post_in_err(wr_id, want, what):
        """A receive posted in ERR completes flushed and raises the event."""
        qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge]))
        print(f'waiting for the event: {what}', flush=True)
        ch.get_cq_event(cq)
        cq.ack_events(1)
        expect(want, what)

    for i in range(5):
        qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[sge]))
    qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
    expect((5, 'no'), 'five receives flushed')
    cq.req_notify()
    expect((5, 'next'), 'armed with five pending')
    n, wcs = cq.poll(2)
    assert n == 2 and all(w.status == e.IBV_WC_WR_FLUSH_ERR for w in wcs), wcs
    expect((3, 'next'), 'two polled')
    post_in_err(9, (4, 'no'), 'a new completion fired the event')
    cq.req_notify(solicited_only=True)
    expect((4, 'solicited'), 'armed for solicited')
    post_in_err(10, (5, 'no'), 'a completion in error is solicited')
    n, wcs = cq.poll(8)
    assert [w.wr_id for w in wcs] == [2, 3, 4, 9, 10], wcs
    assert all(w.status == e.IBV_WC_WR_FLUSH_ERR for w in wcs), wcs
    expect((0, 'no'), 'drained')
PY
# A QP on an SRQ moved to ERR before it is connected: its receives stay
# in the SRQ, and it reports Last WQE Reached.
t_run "QP on an SRQ: INIT to ERR, twice across a reset: Last WQE Reached" timeout 60 /usr/bin/python3 - <<'PY'
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
import pyverbs.enums as e

with Context(name='mroce0') as ctx:
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=8, max_sge=1)))
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=0)))
    for i in range(2):
        qp.to_init(QPAttr(port_num=1))
        qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
        print(f'{i}: waiting for Last WQE Reached', flush=True)
        ev = ctx.get_async_event()
        assert ev.event_type == e.IBV_EVENT_QP_LAST_WQE_REACHED, ev.event_type
        ev.ack()
        n, _ = cq.poll(4)
        assert n == 0, n
        qp.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
PY

# --- GIDs follow the netdev's addresses ------------------------------------
t_run "IPv4 GID present" wait_for 5 has_gid mroce0 0000:0000:0000:0000:0000:ffff:0a4d:0001
ip addr add 10.77.9.9/24 dev eth0
t_run "added IPv4 address becomes a GID" wait_for 5 has_gid mroce0 0000:0000:0000:0000:0000:ffff:0a4d:0909
ip addr del 10.77.9.9/24 dev eth0
t_run "removed IPv4 address leaves the GID table" wait_for 5 sh -c "! grep -qx 0000:0000:0000:0000:0000:ffff:0a4d:0909 $sys/mroce0/ports/1/gids/*"
ip -6 addr add fd77::9/64 dev eth0 nodad
t_run "added IPv6 address becomes a GID" wait_for 5 has_gid mroce0 fd77:0000:0000:0000:0000:0000:0000:0009

# --- port state and MTU follow the link ------------------------------------
ip link set eth0 down
t_run "link down -> port DOWN" wait_for 5 sh -c "[ \"\$(cut -d' ' -f2 <$sys/mroce0/ports/1/state)\" = DOWN ]"
ip link set eth0 up
t_run "link up -> port ACTIVE" wait_for 5 sh -c "[ \"\$(cut -d' ' -f2 <$sys/mroce0/ports/1/state)\" = ACTIVE ]"
ip link set eth0 mtu 9000
t_run "MTU 9000 -> active_mtu 4096" sh -c 'ibv_devinfo -d mroce0 | grep -q "active_mtu:.*4096"'
ip link set eth0 mtu 1500

# --- bad arguments get clear errors ----------------------------------------
expect_fail "duplicate name refused" "exists" rdma link add mroce0 type mroce netdev eth1
expect_fail "netdev already bound refused" "exists" rdma link add mroce9 type mroce netdev eth0
expect_fail "missing netdev refused" "no such device" rdma link add mroce9 type mroce netdev nosuch0
expect_fail "non-Ethernet netdev refused" "invalid argument" rdma link add mroce9 type mroce netdev lo
t_run "no device left behind by refusals" sh -c "! [ -e $sys/mroce9 ]"
t_run "dmesg names the bound netdev" sh -c 'dmesg | grep -q "eth0 is already bound"'

# --- several devices, rxe beside mroce --------------------------------------
t_run "second device on eth1" rdma link add mroce1 type mroce netdev eth1
t_run "both listed by ibv_devices" sh -c 'ibv_devices | grep -qw mroce0 && ibv_devices | grep -qw mroce1'
t_run "rxe on the same netdev as mroce1" rdma link add rxe0 type rxe netdev eth1
t_run "rxe's 4791 and mroce's $PORT both bound" sh -c "ss -Huln | grep -q ':4791 ' && ss -Huln | grep -q ':$PORT '"
t_run "rdma link del rxe0" rdma link del rxe0
t_run "rdma link del mroce1" rdma link del mroce1
t_run "mroce1 gone" sh -c "! [ -e $sys/mroce1 ]"
expect_fail "del of a missing device refused" "wrong device name" rdma link del mroce1

# --- any device name: the provider matches hca_type, not the name ---------
t_run "mroce device named rdma7" rdma link add rdma7 type mroce netdev eth1
t_run "hca_type reads mroce" grep -qx mroce "$sys/rdma7/hca_type"
t_run "ibv_devinfo opens rdma7" sh -c 'ibv_devinfo -d rdma7 | grep -q "state:.*PORT_ACTIVE"'
t_run "PD through the provider on rdma7" /usr/bin/python3 -c "
from pyverbs.device import Context
from pyverbs.pd import PD
with Context(name='rdma7') as ctx:
    PD(ctx).close()"
t_run "rdma link del rdma7" rdma link del rdma7
t_run "rxe device named mroce5" rdma link add mroce5 type rxe netdev eth1
t_run "mroce5 has no hca_type of mroce's" sh -c "! grep -qx mroce $sys/mroce5/hca_type 2>/dev/null"
# A provider speaking the wrong ABI to the kernel could not move data.
rxe_gid=$(grep -l 'RoCE v2' $sys/mroce5/ports/1/gid_attrs/types/* 2>/dev/null |
	while read -r f; do
		grep -qx '0000:0000:0000:0000:0000:ffff:0a4d:0101' \
			"$sys/mroce5/ports/1/gids/${f##*/}" && echo "${f##*/}"
	done | head -n 1)
pp=(timeout 60 ibv_rc_pingpong -d mroce5 -g "${rxe_gid:-0}" -n 20 -s 4096)
"${pp[@]}" >/tmp/pp-server.log 2>&1 &
server=$!
sleep 2
t_run "the rxe provider, not mroce's, moves data on mroce5" "${pp[@]}" 127.0.0.1
# wait in this shell: t_run's subshell is not the server's parent.
if wait "$server"; then
	t_ok "pingpong server on mroce5"
else
	t_fail "pingpong server on mroce5" "$(tail -n 3 /tmp/pp-server.log | tr '\n' ' ')"
fi
t_run "rdma link del mroce5" rdma link del mroce5

# --- netdev removal ---------------------------------------------------------
ip link add dum0 type dummy
ip link set dum0 up
t_run "device on a dummy netdev" rdma link add mroced type mroce netdev dum0
ip link del dum0
t_run "netdev removal removes the device" wait_for 10 sh -c "! [ -e $sys/mroced ]"

# --- network namespaces -----------------------------------------------------
ip netns add mns1
ip link add vA type veth peer name vB
ip link set vB netns mns1
ip -n mns1 link set vB up
t_run "device over a netdev in another netns" ip netns exec mns1 rdma link add mrocens type mroce netdev vB
t_run "socket bound inside that netns" ip netns exec mns1 sh -c "ss -Huln 'sport = :$PORT' | grep -q ."
t_run "netns deletion removes the device" sh -c "ip netns del mns1 && $(declare -f wait_for); wait_for 10 sh -c '! [ -e $sys/mrocens ]'"
ip link del vA 2>/dev/null

ip netns add mns2
ip link add vC type veth peer name vD
ip link set vD netns mns2
ip -n mns2 link set vD up
ip netns exec mns2 /usr/bin/python3 -c "
import socket, time, os
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', $PORT))
open('/tmp/portheld', 'w').close()
time.sleep(60)" &
holder=$!
wait_for 10 test -e /tmp/portheld
expect_fail "UDP port taken in the netns refused" "address already in use" ip netns exec mns2 rdma link add mrocebusy type mroce netdev vD
kill "$holder"; wait "$holder" 2>/dev/null
ip netns del mns2

# --- module unload with devices present, parameters -------------------------
rdma link add mroce1 type mroce netdev eth1
t_run "unload with two devices present" modprobe -r mroce
t_run "devices gone after unload" sh -c "! [ -e $sys/mroce0 ] && ! [ -e $sys/mroce1 ]"
t_run "port released after unload" sh -c "! ss -Huln 'sport = :$PORT' | grep -q ."
expect_fail "udp_port=0 refused" "invalid argument" modprobe mroce udp_port=0
t_run "reload with udp_port=5000" modprobe mroce udp_port=5000
t_run "device after reload" rdma link add mroce0 type mroce netdev eth0
t_run "UDP port 5000 bound" udp_bound 5000
t_run "modprobe -r mroce" modprobe -r mroce

# --- the connection limit ----------------------------------------------------
t_run "reload with max_conns=2" modprobe mroce max_conns=2
t_run "device for the limit" rdma link add mroce0 type mroce netdev eth0
gidx=$(vm_gid_index mroce0)
# The peers need not exist, but their addresses must resolve (RTR looks up
# the destination MAC).
for peer in 91 92 93; do
	ip neigh replace "10.77.0.$peer" lladdr 52:54:00:4d:01:00 dev eth0 nud permanent
done
# Three RC QPs moved to RTR towards three peers (no traffic is needed: RTR
# makes the connection): the third is refused with ENOSPC.
t_run "a third peer is refused with ENOSPC at max_conns=2" /usr/bin/python3 - "$gidx" <<'PY'
import errno, sys
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
import pyverbs.enums as e

with Context(name='mroce0') as ctx:
    pd, cq = PD(ctx), CQ(ctx, 16)
    results = []
    for peer in (0x5b, 0x5c, 0x5d):
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                               cap=QPCap(max_send_wr=4, max_recv_wr=4)))
        attr = QPAttr(port_num=1)
        attr.dest_qp_num = 0x100
        gr = GlobalRoute(dgid=GID('0000:0000:0000:0000:0000:ffff:0a4d:%04x' % peer),
                         sgid_index=int(sys.argv[1]), hop_limit=64)
        attr.ah_attr = AHAttr(is_global=1, port_num=1, gr=gr)
        try:
            qp.to_rtr(attr)
            results.append(0)
        except PyverbsRDMAError as err:
            results.append(err.error_code)
    print('RTR results:', results)
    sys.exit(0 if results == [0, 0, errno.ENOSPC] else 1)
PY
t_run "connections counter reads 2" sh -c "[ \"\$(cat $sys/mroce0/ports/1/hw_counters/connections)\" = 2 ]"
t_run "the kernel log names the limit" sh -c 'dmesg | grep -q "limit (module parameter max_conns)"'
t_run "final unload" modprobe -r mroce

t_run "kernel log free of warnings" dmesg_clean
t_done

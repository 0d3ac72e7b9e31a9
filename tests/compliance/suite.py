#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The wire-protocol compliance suite: a live mroce device against a peer.

The device (DEV, over a netdev with address LOCAL in this network
namespace) is driven by ordinary verbs calls (pyverbs); the peer, in
network namespace NETNS with address PEER, is tests/compliance/
mroce_peer.py, written from Documentation/wire-protocol.rst.  Each check
tests the statements of one or more of the spec's requirement ids and
prints, per id, "ok ID: what" or "FAIL ID: what: why"; at the end, the
statements every packet the device sent must meet are checked over all of
them, and each id of the spec's requirements index that no check covers is
printed as "untested ID".  Checks run in order on one connection; a check
that needs a queue pair makes its own.

    suite.py DEV NETNS LOCAL PEER [CHECK...]
"""

import os
import random
import re
import struct
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mroce_wire as w                                         # noqa: E402
from mroce_peer import Peer, ECT0, CE                          # noqa: E402

from pyverbs.addr import AH, AHAttr, GID, GlobalRoute          # noqa: E402
from pyverbs.cq import CQ                                      # noqa: E402
from pyverbs.device import Context                             # noqa: E402
from pyverbs.mr import MR, MW, MWBind, MWBindInfo              # noqa: E402
from pyverbs.pd import PD                                      # noqa: E402
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr           # noqa: E402
from pyverbs.wr import RecvWR, SendWR, SGE                     # noqa: E402
import pyverbs.enums as e                                      # noqa: E402

ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
SYS = '/sys/class/infiniband/%s/ports/1/hw_counters/'
PARAM = '/sys/module/mroce/parameters/'
MTU = 1024
# HELLOs the device sends each time (HELLO-COPIES).
HELLO_COPIES = 3


class Fail(Exception):
    pass


def check(cond, why):
    if not cond:
        raise Fail(why)


class Device:
    """The mroce device under test, through verbs."""

    def __init__(self, name, local, peer):
        self.name = name
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 1024)
        self.mr = MR(self.pd, 1 << 20, ACCESS)
        self.peer_gid = '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' % \
            tuple(int(x) for x in peer.split('.'))
        self.sgid = self._gid_index(local)
        base = '/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/' % name
        with open(base + str(self.sgid)) as f:
            self.netdev = f.read().strip()
        with open('/sys/class/net/%s/mtu' % self.netdev) as f:
            mtu = int(f.read())
        # The payload of a full packet ("Largest header"): path MTU 1024 is
        # the active MTU of a 1500-byte netdev, so the netdev's MTU rules.
        self.seg = min(4096, (mtu - 112) // 64 * 64)
        self.qps = []

    def _gid_index(self, local):
        want = '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' % \
            tuple(int(x) for x in local.split('.'))
        base = '/sys/class/infiniband/%s/ports/1/' % self.name
        for _ in range(100):
            for i in sorted(os.listdir(base + 'gids'), key=int):
                with open(base + 'gids/' + i) as f:
                    if f.read().strip() != want:
                        continue
                try:
                    with open(base + 'gid_attrs/types/' + i) as f:
                        if 'RoCE v2' in f.read():
                            return int(i)
                except OSError:
                    pass
            time.sleep(0.1)
        raise Fail('no RoCE v2 GID for %s on %s' % (local, self.name))

    def counter(self, name):
        with open(SYS % self.name + name) as f:
            return int(f.read())

    def delta(self, name, before, want, secs=2.0):
        """The counter's rise since @before, once it reaches @want."""
        end = time.monotonic() + secs
        while self.counter(name) - before < want and \
                time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.05)
        return self.counter(name) - before

    def expect_delta(self, name, before, want):
        got = self.delta(name, before, want)
        check(got == want, '%s +%d, want +%d' % (name, got, want))

    def rc_qp(self, dest_qpn, qp_type=e.IBV_QPT_RC, rnr_timer=12,
              rnr_retry=7):
        qp = QP(self.pd, QPInitAttr(qp_type=qp_type, scq=self.cq,
                                    rcq=self.cq,
                                    cap=QPCap(max_send_wr=64, max_recv_wr=64,
                                              max_send_sge=1,
                                              max_recv_sge=1)))
        attr = QPAttr(port_num=1)
        attr.qp_access_flags = ACCESS
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = dest_qpn
        attr.min_rnr_timer = rnr_timer
        attr.max_dest_rd_atomic = 4
        attr.max_rd_atomic = 4
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = rnr_retry
        gr = GlobalRoute(dgid=GID(self.peer_gid), sgid_index=self.sgid,
                         hop_limit=64)
        attr.ah_attr = AHAttr(is_global=1, port_num=1, gr=gr)
        qp.to_rts(attr)
        self.qps.append(qp)
        return qp

    def ud_qp(self, qkey):
        qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq,
                                    rcq=self.cq,
                                    cap=QPCap(max_send_wr=16, max_recv_wr=16,
                                              max_send_sge=1,
                                              max_recv_sge=1)))
        attr = QPAttr(port_num=1)
        attr.qkey = qkey
        qp.to_rts(attr)
        self.qps.append(qp)
        return qp

    def ah(self):
        gr = GlobalRoute(dgid=GID(self.peer_gid), sgid_index=self.sgid,
                         hop_limit=64)
        return AH(self.pd, attr=AHAttr(is_global=1, port_num=1, gr=gr))

    def state(self, qp):
        attr, _ = qp.query(e.IBV_QP_STATE)
        return attr.qp_state

    def read(self, off, n):
        return self.mr.read(n, off)

    def write(self, off, data):
        self.mr.write(data, len(data), off)

    def sge(self, off, n):
        return SGE(self.mr.buf + off, n, self.mr.lkey)

    def post_recv(self, qp, off, n, wr_id=0):
        qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[self.sge(off, n)]))

    def post_send(self, qp, opcode, off, n, wr_id=0, imm=0, rkey=0, va=0,
                  flags=e.IBV_SEND_SIGNALED):
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1,
                    sg=[self.sge(off, n)], send_flags=flags, imm_data=imm)
        if va or rkey:
            wr.set_wr_rdma(rkey, va)
        qp.post_send(wr)

    def poll(self, n=1, secs=10.0):
        got = []
        end = time.monotonic() + secs
        while len(got) < n and time.monotonic() < end:
            k, wcs = self.cq.poll(n - len(got))
            got += wcs[:k]
            if not k:
                time.sleep(0.001)
        check(len(got) == n, '%d of %d completions within %.0f s'
              % (len(got), n, secs))
        return got


class Suite:
    def __init__(self, dev, netns, local, peer):
        self.dev = Device(dev, local, peer)
        self.p = Peer(netns, peer, local)
        self.results = []
        self.next_qpn = 0x100
        self.streams = {}           # our QPN -> next msn
        # A device with a capacity to share, with one or two peers:
        # "DEV LOCAL PEER [PEER2]".
        self.share = self.share2 = None
        if os.environ.get('MROCE_COMPLIANCE_SHARE'):
            d2, l2, p2, *more = os.environ['MROCE_COMPLIANCE_SHARE'].split()
            self.share = (Device(d2, l2, p2), Peer(netns, p2, l2))
            if more:
                self.share2 = (Device(d2, l2, more[0]),
                               Peer(netns, more[0], l2))
        # A third address of the peer's, to which the device has no
        # connection.
        self.stranger = None
        if os.environ.get('MROCE_COMPLIANCE_STRANGER'):
            self.stranger = Peer(netns,
                                 os.environ['MROCE_COMPLIANCE_STRANGER'],
                                 local)

    def qpn(self):
        self.next_qpn += 1
        return self.next_qpn

    def pair(self, **kw):
        """A device RC QP and the peer's QPN it is connected to."""
        q = self.qpn()
        qp = self.dev.rc_qp(q, **kw)
        self.streams[q] = 0
        return qp, q

    def msn(self, q):
        m = self.streams[q]
        self.streams[q] = m + 1
        return m

    def paths(self):
        return self.p.npaths

    def send_all(self, pkts, **kw):
        for pk in pkts:
            self.p.send(pk, **kw)

    def record_of(self, q, pred=lambda r: True, secs=5.0, path=None):
        """The first ACK stream record for our QPN @q satisfying pred."""
        found = []

        def match(g):
            if g.pkt.type != w.ACK or (path is not None and
                                       g.pkt.path != path):
                return False
            for r in g.pkt.records:
                if r.qpn == q and pred(r):
                    found.append(r)
                    return True
            return False
        self.p.expect(match, secs, 'ACK record of QPN %#x' % q, keep=True)
        return found[0]


CHECKS = []


def spec(*ids):
    """Register a check of the statements of requirement @ids."""
    def reg(fn):
        CHECKS.append((fn.__name__, ids, fn.__doc__.strip().split('\n')[0],
                       fn))
        return fn
    return reg


# --- connections and epochs --------------------------------------------------

@spec('HELLO-FORMAT', 'IP-ECN', 'HELLO-SPRAY', 'HELLO-RESEND', 'HELLO-COPIES',
      'ENC-PORT', 'ENC-SPORT')
def hello(s):
    """the device says HELLO when a QP reaches RTR, repeats it, sprays it"""
    s.p.answer_hello = False
    try:
        s.pair()
        hellos = []
        while len(hellos) < 4 * HELLO_COPIES:
            g = s.p.expect(lambda g: g.pkt.type == w.HELLO, 5.0,
                           'HELLO %d' % (len(hellos) + 1))
            hellos.append(g)
    finally:
        # The other checks need the connection, whatever this one finds.
        s.p.answer_hello = True
        s.p.npaths = s.p.dev_epoch and s.p.log[-1].pkt.paths or s.p.npaths
        s.p.hello()
    for g in hellos:
        pk = g.pkt
        check(pk.reserved_nibble == 0 and pk.path == 0 and pk.psn == 0 and
              pk.flags == 0, 'HELLO header: %r' % pk)
        check(pk.dst_epoch == 0 and pk.src_epoch != 0,
              'epochs %#x/%#x' % (pk.src_epoch, pk.dst_epoch))
        check(1 <= pk.paths <= 64, 'paths %d' % pk.paths)
        check(g.tos & 3 == ECT0, 'HELLO sent with ECN bits %d' % (g.tos & 3))
        check(49152 <= g.sport <= 65535, 'source port %d' % g.sport)
    ports = [g.sport for g in hellos]
    if hellos[0].pkt.paths > 1:
        check(all(a != b for a, b in zip(ports, ports[1:])),
              'consecutive HELLOs from one port: %s' % ports)
    # Each time, its copies at once: within a few packets' time of each
    # other, where the waits between times are a minimum RTO or more.
    with open(PARAM + 'min_rto_us') as f:
        rto = int(f.read()) / 1e6
    rounds = [hellos[i:i + HELLO_COPIES]
              for i in range(0, len(hellos), HELLO_COPIES)]
    # (One round may meet an emulator stall: one HELLO each time spreads
    # every round over a minimum RTO or more.)
    spread = [r[-1].t - r[0].t for r in rounds]
    check(sum(x >= rto / 2 for x in spread) <= 1,
          'copies of one HELLO %s ms apart' % [round(x * 1e3, 2) for x in spread])
    want = min(HELLO_COPIES, hellos[0].pkt.paths)
    check(all(len({g.sport for g in r}) == want for r in rounds),
          'ports of each time\'s copies: %s, want %d different'
          % ([[g.sport for g in r] for r in rounds], want))
    # The waits double from the minimum RTO, up to 20 ms.  Arrival times
    # stand for send times: allow for a late first send and late timers,
    # and for one emulator stall (a timer never fires early, so the lower
    # bounds hold for every gap; the upper one for all but the longest).
    gaps = [b[0].t - a[0].t for a, b in zip(rounds, rounds[1:])]
    waits = [min(rto * 2 ** i, 0.020) for i in range(len(gaps))]
    low = [0.5] + [0.75] * (len(gaps) - 1)
    late = [g > max(4 * x, 0.05) for g, x in zip(gaps, waits)]
    check(all(k * x <= g for g, x, k in zip(gaps, waits, low)) and
          sum(late) <= 1 and max(gaps) <= 0.5,
          'HELLO gaps %s ms, waits %s ms' % (
              [round(g * 1e3, 2) for g in gaps],
              [round(x * 1e3, 2) for x in waits]))
    s.p.drain()
    s.p.pump(0.3)
    more = [g for g in s.p.pending if g.pkt and g.pkt.type == w.HELLO]
    check(not more, '%d HELLOs after the answer' % len(more))
    s.p.drain()


@spec('HELLO-REPLY')
def hello_reply(s):
    """a HELLO that does not name the device's epoch is answered with one"""
    s.p.hello(dst_epoch=0)
    g = s.p.expect(lambda g: g.pkt.type == w.HELLO, 2.0, 'answering HELLO')
    check(g.pkt.dst_epoch == s.p.epoch and
          g.pkt.src_epoch == s.p.dev_epoch,
          'answer has epochs %#x/%#x' % (g.pkt.src_epoch, g.pkt.dst_epoch))
    s.p.hello()
    s.p.pump(0.3)
    check(not [g for g in s.p.pending if g.pkt and g.pkt.type == w.HELLO],
          'a HELLO with the right dst_epoch was answered')
    s.p.drain()


@spec('EPOCH-CHECK')
def epochs(s):
    """DATA of another epoch pair is dropped and counted"""
    qp, q = s.pair()
    s.dev.write(0, bytes(64))
    before = s.dev.counter('stale_epoch_drops')
    for src, dst in ((s.p.epoch ^ 1, s.p.dev_epoch),
                     (s.p.epoch, s.p.dev_epoch ^ 1), (s.p.epoch, 0)):
        pk = s.p.data(0, psn=s.p.snd_nxt[0], opcode=w.WRITE, dst_qpn=qp.qp_num,
                      src_qpn=q, msn=0, msg_len=64, payload=b'\xee' * 64,
                      va=s.dev.mr.buf, rkey=s.dev.mr.rkey, flags=w.F_ACK_REQ)
        pk.src_epoch, pk.dst_epoch = src, dst
        s.p.send(pk, epochs=False)
    s.p.pump(0.3)
    s.dev.expect_delta('stale_epoch_drops', before, 3)
    check(s.dev.read(0, 64) == bytes(64), 'a stale packet was placed')
    check(not [g for g in s.p.pending if g.pkt and g.pkt.type == w.ACK
               and g.pkt.path == 0], 'a stale packet was acknowledged')
    s.p.drain()


# --- header checks -----------------------------------------------------------

@spec('HDR-DROP', 'HDR-EPOCH', 'DATA-BOUNDS', 'DATA-READ-OFFSET',
      'DATA-ATOMIC-ALIGN')
def header_drops(s):
    """bad version, type, path id and every truncation: dropped, counted"""
    good = w.Pkt(w.HELLO, paths=s.p.npaths, src_epoch=s.p.epoch,
                 dst_epoch=s.p.dev_epoch).build()
    bad = [bytes([v]) + good[1:] for v in (0x00, 0x10, 0x30, 0xf0)]
    bad += [good[:1] + bytes([6]) + good[2:], good[:1] + bytes([0]) + good[2:],
            good[:3] + bytes([64]) + good[4:],
            good[:3] + bytes([255]) + good[4:]]
    # Every length short of a type's fixed part, and of the common header.
    for typ, n in w.FIXED_LEN.items():
        hdr = bytes([w.VERSION << 4, typ]) + good[2:16]
        body = bytes(n - 16)
        if typ == w.DATA:
            body = struct.pack('!IIBBHIII', 1, 1, w.READ_RESP, 0, 0, 0, 0, 0)
        bad += [(hdr + body)[:k] for k in range(16, n)]
    bad += [good[:k] for k in range(16)]
    # HDR-EPOCH: an epoch of 0 in any connection packet.
    bad.append(w.Pkt(w.HELLO, paths=1, src_epoch=0,
                     dst_epoch=s.p.dev_epoch).build())
    # DATA-BOUNDS, DATA-READ-OFFSET, DATA-ATOMIC-ALIGN.
    qpn = s.dev.qps[0].qp_num
    for kw in (dict(opcode=w.WRITE, msg_len=100, offset=60,
                    payload=bytes(41)),
               dict(opcode=w.READ_REQ, msg_len=100, offset=8),
               dict(opcode=w.FETCH_ADD, msg_len=8, va=s.dev.mr.buf + 4)):
        pk = w.Pkt(w.DATA, path=5, psn=s.p.snd_nxt[5], dst_qpn=qpn,
                   src_qpn=1, src_epoch=s.p.epoch, dst_epoch=s.p.dev_epoch,
                   **kw)
        bad.append(pk.build())
    missed = []
    for i, b in enumerate(bad):
        before = s.dev.counter('malformed_drops')
        s.p.send_raw(b)
        if s.dev.delta('malformed_drops', before, 1, secs=1.0) != 1:
            missed.append('%d: %s' % (i, b[:48].hex()))
    s.p.pump(0.2)
    check(not missed, 'not counted as malformed: %s' % '; '.join(missed))
    check(not s.p.pending, 'answered a malformed packet: %r' % s.p.pending)


@spec('HDR-RESERVED-IGNORE')
def reserved(s):
    """reserved bits set by the peer are ignored"""
    qp, q = s.pair()
    data = os.urandom(512)
    pk = s.p.data(1, opcode=w.WRITE, dst_qpn=qp.qp_num | 0xab000000,
                  src_qpn=q | 0xcd000000, msn=s.msn(q), msg_len=len(data),
                  payload=data, va=s.dev.mr.buf + 4096, rkey=s.dev.mr.rkey,
                  flags=w.F_ACK_REQ, reserved_nibble=0xf, _r0=0xffff,
                  _r=0xffffffff)
    s.p.send(pk)
    s.record_of(q, lambda r: r.msn_done == 1)
    check(s.dev.read(4096, 512) == data, 'data not placed')
    s.p.drain()


# --- placement and acknowledgement -------------------------------------------

@spec('PLACE-OFFSET', 'PLACE-WRITE', 'ACK-CUM', 'ACK-RECORD')
def write_out_of_order(s):
    """a WRITE's segments, reversed over all paths, are placed by offset"""
    qp, q = s.pair()
    data = os.urandom(8 * MTU)
    s.dev.write(8192, bytes(len(data)))
    m = s.msn(q)
    pkts = s.p.message(lambda i: i % s.paths(), w.WRITE, qp.qp_num, q, m,
                       data, MTU, order=list(range(7, -1, -1)),
                       va=s.dev.mr.buf + 8192, rkey=s.dev.mr.rkey)
    for pk in pkts:
        pk.flags = w.F_ACK_REQ
    s.send_all(pkts)
    r = s.record_of(q, lambda r: r.msn_done == m + 1, secs=5)
    check(r.nak == w.NAK_NONE, 'NAK %d' % r.nak)
    check(s.dev.read(8192, len(data)) == data, 'bytes differ')
    for path in range(s.paths()):
        g = s.p.ack_of(path, lambda g: g.pkt.psn == s.p.snd_nxt[path])
        check(g.pkt.sack == 0, 'path %d SACK %#x with nothing missing'
              % (path, g.pkt.sack))
    s.p.drain()


@spec('ACK-SACK', 'PLACE-OFFSET')
def sack_after_loss(s):
    """the SACK after a chosen loss pattern names exactly what arrived"""
    qp, q = s.pair()
    path = 1
    k = s.p.snd_nxt[path]
    data = os.urandom(6 * MTU)
    m = s.msn(q)
    pkts = s.p.message(lambda i: path, w.WRITE, qp.qp_num, q, m, data, MTU,
                       va=s.dev.mr.buf + 65536, rkey=s.dev.mr.rkey)
    for i in (0, 2, 3, 5):
        pkts[i].flags = w.F_ACK_REQ
        s.p.send(pkts[i])
    g = s.p.ack_of(path, lambda g: g.pkt.sack == 0b1011 or
                   g.pkt.psn != k + 1 or g.pkt.sack & ~0b1011, 5)
    check(g.pkt.psn == k + 1 and g.pkt.sack == 0b1011,
          'ACK cum %d sack %#x, want cum %d sack 0xb'
          % (g.pkt.psn - k, g.pkt.sack, 1))
    for i in (1, 4):
        pkts[i].flags = w.F_ACK_REQ
        s.p.send(pkts[i])
    s.record_of(q, lambda r: r.msn_done == m + 1)
    g = s.p.ack_of(path, lambda g: g.pkt.psn == k + 6)
    check(g.pkt.sack == 0, 'SACK %#x after the holes were filled'
          % g.pkt.sack)
    check(s.dev.read(65536, len(data)) == data, 'bytes differ')
    s.p.drain()


@spec('ACK-DUP', 'PATH-DUP')
def duplicate(s):
    """a duplicate is answered at once and not placed again"""
    qp, q = s.pair()
    m = s.msn(q)
    data = os.urandom(256)
    pk = s.p.data(2, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q, msn=m,
                  msg_len=256, payload=data, va=s.dev.mr.buf + 128 * 1024,
                  rkey=s.dev.mr.rkey, flags=w.F_ACK_REQ)
    s.p.send(pk)
    s.record_of(q, lambda r: r.msn_done == m + 1)
    s.p.drain()
    before = s.dev.counter('duplicate_drops')
    pk.payload = b'\x5a' * 256
    pk.flags = 0
    s.p.send(pk)
    g = s.p.ack_of(2, secs=2.0)
    check(g.pkt.psn == s.p.snd_nxt[2], 'ACK cum %d, want %d'
          % (g.pkt.psn, s.p.snd_nxt[2]))
    s.dev.expect_delta('duplicate_drops', before, 1)
    check(s.dev.read(128 * 1024, 256) == data, 'duplicate placed again')
    s.p.drain()


@spec('PATH-WINDOW-RX')
def window_edge(s):
    """the receive window covers cum and the 256 sequences after it"""
    qp, q = s.pair()
    path = 3
    c = s.p.snd_nxt[path]
    before = s.dev.counter('outside_window_drops')
    base = 160 * 1024

    def one(psn, off):
        m = s.msn(q)
        s.p.send(s.p.data(path, psn=psn, opcode=w.WRITE, dst_qpn=qp.qp_num,
                          src_qpn=q, msn=m, msg_len=8, payload=b'x' * 8,
                          va=s.dev.mr.buf + base + off, rkey=s.dev.mr.rkey,
                          flags=w.F_ACK_REQ))
    one((c + 256) & 0xffffffff, 0)
    g = s.p.ack_of(path, secs=2.0)
    check(g.pkt.psn == c and g.pkt.sack == 1 << 255,
          'cum+256: ACK cum %d sack %#x' % (g.pkt.psn - c, g.pkt.sack))
    s.p.drain()
    one((c + 257) & 0xffffffff, 8)
    s.p.pump(0.3)
    s.dev.expect_delta('outside_window_drops', before, 1)
    # Fill the window so that the path's sequence space goes on from c+257.
    m0 = s.streams[q]
    s.streams[q] = 0
    for psn in range(c, c + 256):
        one(psn & 0xffffffff, 16)
    s.streams[q] = m0
    s.p.snd_nxt[path] = (c + 257) & 0xffffffff
    g = s.p.ack_of(path, lambda g: g.pkt.psn == s.p.snd_nxt[path], 5.0)
    s.p.drain()


# --- the device as requester -------------------------------------------------

@spec('CC-IW', 'DATA-ACKREQ', 'IP-ECN', 'DATA-FORMAT')
def device_write(s):
    """the device's WRITE: fields, first flight, completion on msn_done"""
    qp, q = s.pair()
    n = 40 * MTU
    s.dev.write(0, os.urandom(n))
    va, rkey = 0x7f0012340000, 0x1234
    s.dev.post_send(qp, e.IBV_WR_RDMA_WRITE, 0, n, wr_id=7, rkey=rkey, va=va)
    s.p.pump(0.5)
    first = [g for g in s.p.pending if g.pkt and g.pkt.type == w.DATA]
    per_path = {}
    for g in first:
        per_path.setdefault(g.pkt.path, set()).add(g.pkt.psn)
    npaths = s.p.npaths
    iw = -(-16 // npaths)
    check(first, 'no DATA within 0.5 s')
    check(all(len(v) <= iw for v in per_path.values()),
          'first flight %s, more than %d on a path'
          % ({k: len(v) for k, v in per_path.items()}, iw))
    s.p.auto_ack = True
    for g in first:
        s.p.ack(g.pkt.path)
    got = {}
    seg = s.dev.seg
    end = time.monotonic() + 20
    while sum(map(len, got.values())) < n and time.monotonic() < end:
        g = s.p.expect(lambda g: g.pkt.type == w.DATA, 10, 'DATA')
        pk = g.pkt
        check(g.tos & 3 == ECT0, 'DATA with ECN bits %d' % (g.tos & 3))
        check(pk.opcode == w.WRITE and pk.va == va and pk.rkey == rkey and
              pk.msg_len == n and pk.msn == 0 and pk.dst_qpn == q and
              pk.src_qpn == qp.qp_num and pk.gen == 0,
              'DATA fields: %r' % pk)
        check(pk.offset % seg == 0 and
              len(pk.payload) == min(seg, n - pk.offset),
              'segment at %d of %d bytes, want %d-byte segments'
              % (pk.offset, len(pk.payload), seg))
        got[pk.offset] = pk.payload
        if pk.offset + len(pk.payload) == n:
            check(pk.flags & w.F_ACK_REQ, 'last packet without ACK_REQ')
    check(b''.join(got[k] for k in sorted(got)) == s.dev.read(0, n),
          'payload differs from the MR')
    s.p.records[q] = w.Record(qp.qp_num, 1)
    for path in range(npaths):
        s.p.ack(path)
    wc = s.dev.poll()[0]
    check(wc.status == e.IBV_WC_SUCCESS and wc.wr_id == 7,
          'completion status %d wr_id %d' % (wc.status, wc.wr_id))
    del s.p.records[q]
    s.p.auto_ack = False
    s.p.drain()


@spec('PATH-EXACT')
def exact_resend(s):
    """a lost packet is sent again: same path, sequence, offset and bytes"""
    qp, q = s.pair()
    n = 12 * MTU
    s.dev.write(0, os.urandom(n))
    s.dev.post_send(qp, e.IBV_WR_RDMA_WRITE, 0, n, wr_id=8, rkey=5, va=4096)
    s.p.pump(0.5)
    first = [g.pkt for g in s.p.pending if g.pkt and g.pkt.type == w.DATA]
    s.p.pending = []
    check(first, 'no DATA')
    lost = first[0]
    # Forget it, and acknowledge everything else as it comes.
    rx = s.p.rx[lost.path]
    rx.above.discard(lost.psn)
    if rx.cum == (lost.psn + 1) & 0xffffffff and not rx.above:
        rx.cum = lost.psn
    elif not w.seq_before(lost.psn, rx.cum):
        pass
    else:
        rx.above |= set(range(lost.psn + 1, rx.cum))
        rx.cum = lost.psn
    s.p.auto_ack = True
    for path in {pk.path for pk in first}:
        s.p.ack(path)
    g = s.p.expect(lambda g: g.pkt.type == w.DATA and
                   g.pkt.path == lost.path and g.pkt.psn == lost.psn,
                   10, 'the resend of path %d psn %d' % (lost.path, lost.psn))
    check(g.pkt.offset == lost.offset and g.pkt.payload == lost.payload and
          g.pkt.msn == lost.msn and g.pkt.opcode == lost.opcode,
          'resend differs: %r vs %r' % (g.pkt, lost))
    s.p.records[q] = w.Record(qp.qp_num, 1)
    for path in range(s.p.npaths):
        s.p.ack(path)
    wc = s.dev.poll()[0]
    check(wc.status == e.IBV_WC_SUCCESS, 'completion status %d' % wc.status)
    del s.p.records[q]
    s.p.auto_ack = False
    s.p.drain()


@spec('DATA-IMM')
def imm_byte_order(s):
    """immediate data travels in the order its bytes have in the request"""
    qp, q = s.pair()
    imm = 0x11223344
    s.dev.write(0, b'imm!')
    s.dev.post_send(qp, e.IBV_WR_SEND_WITH_IMM, 0, 4, wr_id=9, imm=imm)
    g = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q,
                   5, 'SEND_IMM')
    s.p.ack(g.pkt.path)
    want = struct.pack('=I', imm)
    check(g.pkt.opcode == w.SEND_IMM, 'opcode %d' % g.pkt.opcode)
    s.p.records[q] = w.Record(qp.qp_num, 1)
    s.p.ack(g.pkt.path)
    s.dev.poll()
    del s.p.records[q]
    check(g.pkt.imm == want, 'imm on the wire %s, posted bytes %s'
          % (g.pkt.imm.hex(), want.hex()))
    # And back: the peer's bytes reach the completion as they were sent.
    s.dev.post_recv(qp, 0, 64, wr_id=10)
    m = s.msn(q)
    pk = s.p.data(0, opcode=w.SEND_IMM, dst_qpn=qp.qp_num, src_qpn=q, msn=m,
                  msg_len=3, payload=b'abc', ssn=0, imm=b'\xa1\xb2\xc3\xd4',
                  flags=w.F_ACK_REQ)
    s.p.send(pk)
    wc = s.dev.poll()[0]
    check(wc.status == e.IBV_WC_SUCCESS and wc.byte_len == 3,
          'receive status %d len %d' % (wc.status, wc.byte_len))
    got = struct.pack('=I', wc.imm_data)
    check(got == b'\xa1\xb2\xc3\xd4', 'completion imm bytes %s, sent a1b2c3d4'
          % got.hex())
    s.p.drain()


# --- READ and atomics --------------------------------------------------------

@spec('PLACE-READ', 'DATA-READ-RESP')
def read(s):
    """READ_REQ is answered with READ_RESP packets of the MR's bytes"""
    qp, q = s.pair()
    n = 5000
    data = os.urandom(n)
    s.dev.write(200000, data)
    m = s.msn(q)
    s.p.auto_ack = True
    s.p.send(s.p.data(0, opcode=w.READ_REQ, dst_qpn=qp.qp_num, src_qpn=q,
                      msn=m, msg_len=n, va=s.dev.mr.buf + 200000,
                      rkey=s.dev.mr.rkey, flags=w.F_ACK_REQ))
    got = {}
    while sum(len(v) for v in got.values()) < n:
        g = s.p.expect(lambda g: g.pkt.type == w.DATA and
                       g.pkt.dst_qpn == q, 5, 'READ_RESP')
        pk = g.pkt
        check(pk.opcode == w.READ_RESP and pk.msn == m and pk.msg_len == n,
              'response fields %r' % pk)
        got[pk.offset] = pk.payload
        if pk.offset + len(pk.payload) == n:
            check(pk.flags & w.F_ACK_REQ, 'last response without ACK_REQ')
    check(b''.join(got[k] for k in sorted(got)) == data, 'bytes differ')
    s.p.auto_ack = False
    s.p.drain()


@spec('PLACE-ATOMIC', 'DATA-ATOMIC-ONCE')
def atomics(s):
    """an atomic runs once; its response is resent, not recomputed"""
    qp, q = s.pair()
    off = 300000
    s.dev.write(off, struct.pack('=Q', 100))
    m = s.msn(q)
    pk = s.p.data(1, opcode=w.FETCH_ADD, dst_qpn=qp.qp_num, src_qpn=q, msn=m,
                  msg_len=8, va=s.dev.mr.buf + off, rkey=s.dev.mr.rkey,
                  add=5, flags=w.F_ACK_REQ)
    s.p.send(pk)
    g1 = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q,
                    5, 'ATOMIC_RESP')
    check(g1.pkt.opcode == w.ATOMIC_RESP and g1.pkt.orig == 100 and
          g1.pkt.msn == m, 'response %r' % g1.pkt)
    # The request again (its ACK lost), and no ACK for the response.
    s.p.send(pk)
    g2 = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q,
                    10, 'the response sent again')
    check(g2.pkt.path == g1.pkt.path and g2.pkt.psn == g1.pkt.psn and
          g2.pkt.orig == 100, 'resent response %r' % g2.pkt)
    check(struct.unpack('=Q', s.dev.read(off, 8))[0] == 105,
          'memory %d, want 105' % struct.unpack('=Q', s.dev.read(off, 8))[0])
    s.p.ack(g1.pkt.path)
    m = s.msn(q)
    s.p.send(s.p.data(2, opcode=w.CMP_SWAP, dst_qpn=qp.qp_num, src_qpn=q,
                      msn=m, msg_len=8, va=s.dev.mr.buf + off,
                      rkey=s.dev.mr.rkey, compare=105, swap=7,
                      flags=w.F_ACK_REQ))
    g = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q and
                   g.pkt.msn == m, 5, 'CMP_SWAP response')
    s.p.ack(g.pkt.path)
    check(g.pkt.orig == 105, 'CMP_SWAP found %d' % g.pkt.orig)
    check(struct.unpack('=Q', s.dev.read(off, 8))[0] == 7, 'swap not done')
    s.p.drain()


# --- RNR and errors ----------------------------------------------------------

@spec('RNR-NAK', 'RNR-GEN', 'PLACE-SEND')
def rnr(s):
    """a SEND with no receive posted is NAKed RNR; a newer generation lands"""
    qp, q = s.pair(rnr_timer=14)
    m = s.msn(q)
    data = os.urandom(3000)
    pkts = s.p.message(lambda i: i % s.paths(), w.SEND, qp.qp_num, q, m,
                       data, MTU, ssn=0)
    before = s.dev.counter('rnr_naks_sent')
    s.send_all(pkts)
    r = s.record_of(q, lambda r: r.nak == w.NAK_RNR)
    check(r.nak_msn == m and r.nak_gen == 0 and r.rnr_timer == 14,
          'RNR record %r' % r)
    s.dev.expect_delta('rnr_naks_sent', before, 1)
    s.dev.post_recv(qp, 400000, 4096, wr_id=11)
    # Generation 2's first packet, then all of generation 1, older than
    # the latest seen: dropped.  Then the rest of generation 2.
    g2 = s.p.message(lambda i: i % s.paths(), w.SEND, qp.qp_num, q, m,
                     data, MTU, ssn=0, gen=2)
    g1 = s.p.message(lambda i: i % s.paths(), w.SEND, qp.qp_num, q, m,
                     data, MTU, ssn=0, gen=1)
    drops = s.dev.counter('stream_drops')
    s.p.send(g2[0])
    s.send_all(g1)
    s.dev.expect_delta('stream_drops', drops, len(g1))
    s.send_all(g2[1:])
    wc = s.dev.poll()[0]
    check(wc.status == e.IBV_WC_SUCCESS and wc.byte_len == len(data) and
          wc.wr_id == 11, 'receive status %d len %d' % (wc.status,
                                                        wc.byte_len))
    check(s.dev.read(400000, len(data)) == data, 'bytes differ')
    s.p.drain()


@spec('ERR-ACCESS', 'ERR-REPEAT')
def remote_access(s):
    """a WRITE with a bad rkey: NAK REMOTE_ACCESS, nothing written"""
    qp, q = s.pair()
    s.dev.write(500000, bytes(64))
    m = s.msn(q)
    s.p.send(s.p.data(0, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q, msn=m,
                      msg_len=64, payload=b'\xff' * 64,
                      va=s.dev.mr.buf + 500000, rkey=s.dev.mr.rkey ^ 0x80,
                      flags=w.F_ACK_REQ))
    r = s.record_of(q, lambda r: r.nak != w.NAK_NONE)
    check(r.nak == w.NAK_REMOTE_ACCESS and r.nak_msn == m and
          r.msn_done == m, 'record %r' % r)
    check(s.dev.read(500000, 64) == bytes(64), 'bytes written')
    check(s.dev.state(qp) == e.IBV_QPS_ERR, 'QP state %d' % s.dev.state(qp))
    s.p.send(w.Pkt(w.PROBE, path=1, qpn=qp.qp_num))
    r = s.record_of(q, path=1)
    check(r.nak == w.NAK_REMOTE_ACCESS and r.nak_msn == m,
          'NAK not repeated: %r' % r)
    s.p.drain()


@spec('PLACE-WRITE-MR')
def write_mr(s):
    """a WRITE past its MR or into one without remote write: NAKed, unwritten"""
    ro = MR(s.dev.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE |
            e.IBV_ACCESS_REMOTE_READ)
    try:
        ro.write(bytes(4096), 4096, 0)
        end = (1 << 20) - 32
        s.dev.write(end, bytes(32))
        for va, rkey, what in ((s.dev.mr.buf + end, s.dev.mr.rkey,
                                'past the end'),
                               (ro.buf, ro.rkey, 'no remote write')):
            qp, q = s.pair()
            m = s.msn(q)
            s.p.send(s.p.data(0, opcode=w.WRITE, dst_qpn=qp.qp_num,
                              src_qpn=q, msn=m, msg_len=64,
                              payload=b'\xee' * 64, va=va, rkey=rkey,
                              flags=w.F_ACK_REQ))
            r = s.record_of(q, lambda r: r.nak != w.NAK_NONE)
            check(r.nak == w.NAK_REMOTE_ACCESS and r.nak_msn == m,
                  '%s: record %r' % (what, r))
        check(s.dev.read(end, 32) == bytes(32), 'the region\'s end written')
        check(ro.read(4096, 0) == bytes(4096),
              'a region without remote write written')
    finally:
        s.p.drain()
        ro.close()


@spec('PLACE-ZERO')
def zero_length(s):
    """zero-length WRITE and READ_REQ: rkey 0 and va 0 unchecked, done"""
    qp, q = s.pair()
    try:
        m = s.msn(q)
        s.p.send(s.p.data(0, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q,
                          msn=m, msg_len=0, payload=b'', va=0, rkey=0,
                          flags=w.F_ACK_REQ))
        r = s.record_of(q, lambda r: r.msn_done == m + 1 or
                        r.nak != w.NAK_NONE)
        check(r.nak == w.NAK_NONE and r.msn_done == m + 1,
              'WRITE: record %r' % r)
        m = s.msn(q)
        s.p.auto_ack = True
        s.p.send(s.p.data(1, opcode=w.READ_REQ, dst_qpn=qp.qp_num,
                          src_qpn=q, msn=m, msg_len=0, va=0, rkey=0,
                          flags=w.F_ACK_REQ))
        g = s.p.expect(lambda g: g.pkt.type == w.DATA and
                       g.pkt.dst_qpn == q, 5, 'READ_RESP')
        check(g.pkt.opcode == w.READ_RESP and g.pkt.msn == m and
              g.pkt.msg_len == 0 and not g.pkt.payload,
              'READ: response %r' % g.pkt)
        check(s.dev.state(qp) != e.IBV_QPS_ERR, 'QP in error')
    finally:
        s.p.auto_ack = False
        s.p.drain()


@spec('PLACE-WRITE-MW')
def write_mw(s):
    """WRITEs via windows: placed in range; NAKed past it or via another QP"""
    mr = MR(s.dev.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
    windows = []
    try:
        mr.write(bytes(8192), 8192, 0)

        def write(qp, q, va, rkey, data):
            m = s.msn(q)
            s.p.send(s.p.data(0, opcode=w.WRITE, dst_qpn=qp.qp_num,
                              src_qpn=q, msn=m, msg_len=len(data),
                              payload=data, va=va, rkey=rkey,
                              flags=w.F_ACK_REQ))
            return s.record_of(q, lambda r: r.msn_done == m + 1 or
                               r.nak != w.NAK_NONE)

        # Type 1: bound by ibv_bind_mw, over the region's first 4 KiB.
        qp, q = s.pair()
        mw1 = MW(s.dev.pd, e.IBV_MW_TYPE_1)
        windows.append(mw1)
        qp.bind_mw(mw1, MWBind(MWBindInfo(mr, mr.buf, 4096,
                                          e.IBV_ACCESS_REMOTE_WRITE),
                               e.IBV_SEND_SIGNALED))
        wc = s.dev.poll()[0]
        check(wc.status == e.IBV_WC_SUCCESS, 'type 1 bind: status %d'
              % wc.status)
        r = write(qp, q, mr.buf + 100, mw1.rkey, b'\x11' * 64)
        check(r.nak == w.NAK_NONE, 'in a type 1 window: %r' % r)
        r = write(qp, q, mr.buf + 4096 - 32, mw1.rkey, b'\x12' * 64)
        check(r.nak == w.NAK_REMOTE_ACCESS, 'past a type 1 window: %r' % r)
        # Type 2: bound by a BIND_MW work request of one queue pair.
        qp, q = s.pair()
        other, oq = s.pair()
        mw2 = MW(s.dev.pd, e.IBV_MW_TYPE_2)
        windows.append(mw2)
        # set_bind_wr() binds the window's key with its low byte + 1.
        rkey = (mw2.rkey & ~0xff) | ((mw2.rkey + 1) & 0xff)
        wr = SendWR(wr_id=50, opcode=e.IBV_WR_BIND_MW,
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_bind_wr(mw2, MWBindInfo(mr, mr.buf + 4096, 4096,
                                       e.IBV_ACCESS_REMOTE_WRITE))
        qp.post_send(wr)
        wc = s.dev.poll()[0]
        check(wc.status == e.IBV_WC_SUCCESS, 'type 2 bind: status %d'
              % wc.status)
        r = write(qp, q, mr.buf + 4096, rkey, b'\x21' * 64)
        check(r.nak == w.NAK_NONE, 'in a type 2 window: %r' % r)
        r = write(other, oq, mr.buf + 4096 + 64, rkey, b'\x22' * 64)
        check(r.nak == w.NAK_REMOTE_ACCESS,
              'a type 2 window through another QP: %r' % r)
        want = bytearray(8192)
        want[100:164] = b'\x11' * 64
        want[4096:4160] = b'\x21' * 64
        check(mr.read(8192, 0) == bytes(want),
              'the region holds other bytes than the accepted WRITEs')
    finally:
        s.p.drain()
        for mw in windows:
            mw.close()
        mr.close()


# --- probes, ports, ECN, share -----------------------------------------------

@spec('PROBE-ACK', 'PROBE-ROUTE', 'ACK-PORT')
def probes(s):
    """PROBE gets an ACK at once; ROUTE on its port; ACKs follow DATA's port"""
    qp, q = s.pair()
    s.p.send(w.Pkt(w.PROBE, path=3, qpn=qp.qp_num))
    r = s.record_of(q, path=3, secs=2)
    check(r.msn_done == 0, 'record %r' % r)
    s.p.send(w.Pkt(w.PROBE, path=2, qpn=0xffffffff, flags=w.F_ROUTE),
             sport=51111)
    g = s.p.ack_of(2, lambda g: g.pkt.flags & w.F_ROUTE, secs=2)
    check(g.sport == 51111, 'ROUTE answer from port %d' % g.sport)
    m = s.msn(q)
    s.p.send(s.p.data(2, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q, msn=m,
                      msg_len=8, payload=b'p' * 8, va=s.dev.mr.buf,
                      rkey=s.dev.mr.rkey, flags=w.F_ACK_REQ), sport=52222)
    g = s.p.ack_of(2, lambda g: not g.pkt.flags & w.F_ROUTE, secs=2)
    check(g.sport == 52222, 'ACK of the path from port %d, DATA came from '
          '52222' % g.sport)
    s.p.drain()


@spec('ACK-PORT-MOVE')
def ack_port_move(s):
    """a duplicate, on the path's port or a detour's, moves that port's ACKs"""
    qp, q = s.pair()
    path = 1

    def write(sport, pk=None):
        if pk is None:
            pk = s.p.data(path, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q,
                          msn=s.msn(q), msg_len=8, payload=b'm' * 8,
                          va=s.dev.mr.buf, rkey=s.dev.mr.rkey,
                          flags=w.F_ACK_REQ)
        s.p.send(pk, sport=sport)
        g = s.p.ack_of(path, lambda g: g.pkt.psn == s.p.snd_nxt[path], secs=2)
        s.p.drain()
        return pk, g.sport

    pk, port = write(52222)
    check(port == 52222, 'ACK from port %d, DATA came from 52222' % port)
    _, moved = write(52222, pk)
    check(moved != 52222 and 49152 <= moved <= 65535,
          'ACK of a duplicate on an unchanged port from port %d' % moved)
    _, port = write(52222)
    check(port == moved, 'ACK from port %d after the move to %d: DATA on the '
          'old port brought it back' % (port, moved))
    pk, port = write(53333)
    check(port == 53333, 'ACK from port %d, DATA came from a new port 53333'
          % port)
    _, moved = write(54444, pk)
    check(moved != 54444 and 49152 <= moved <= 65535,
          'ACK of a duplicate on a new port (a detour) from port %d' % moved)
    _, port = write(54444)
    check(port == moved, 'ACK from port %d after the move to %d' % (port, moved))


@spec('ACK-CE')
def ce_echo(s):
    """the ACK's ce_count counts the DATA packets that arrived CE"""
    qp, q = s.pair()
    path = 0
    s.p.send(s.p.data(path, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q,
                      msn=s.msn(q), msg_len=8, payload=b'c' * 8,
                      va=s.dev.mr.buf, rkey=s.dev.mr.rkey, flags=w.F_ACK_REQ))
    c0 = s.p.ack_of(path).pkt.ce_count
    before = s.dev.counter('ecn_marked_rcvd')
    for i in range(5):
        s.p.send(s.p.data(path, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q,
                          msn=s.msn(q), msg_len=8, payload=b'c' * 8,
                          va=s.dev.mr.buf, rkey=s.dev.mr.rkey,
                          flags=w.F_ACK_REQ), tos=CE if i % 2 == 0 else ECT0)
    want = (c0 + 3) & 0xffff
    g = s.p.ack_of(path, lambda g: g.pkt.psn == s.p.snd_nxt[path])
    check(g.pkt.ce_count == want, 'ce_count %d, want %d'
          % (g.pkt.ce_count, want))
    s.dev.expect_delta('ecn_marked_rcvd', before, 3)
    s.p.drain()


@spec('SHARE-ACK', 'SHARE-LEVEL')
def share_ack(s):
    """ACKs carry capacity and share: 0/65535 without one, set with one"""
    qp, q = s.pair()
    s.p.send(s.p.data(1, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q,
                      msn=s.msn(q), msg_len=8, payload=b's' * 8,
                      va=s.dev.mr.buf, rkey=s.dev.mr.rkey, flags=w.F_ACK_REQ))
    a = s.p.ack_of(1).pkt
    check(a.capacity == 0 and a.share == 65535,
          'no share: capacity %d share %d' % (a.capacity, a.share))
    # The second device was made with rx_capacity_mbps=1000.
    check(s.share, 'no second device (MROCE_COMPLIANCE_SHARE)')
    dev, peer = s.share
    qp2 = dev.rc_qp(0x900)
    peer.connect()
    peer.send(peer.data(1, opcode=w.WRITE, dst_qpn=qp2.qp_num, src_qpn=0x900,
                        msn=0, msg_len=8, payload=b's' * 8, va=dev.mr.buf,
                        rkey=dev.mr.rkey, flags=w.F_ACK_REQ))
    a = peer.ack_of(1).pkt
    check(a.capacity == 1000, 'capacity %d, want 1000' % a.capacity)
    # One active peer: its level is the whole capacity.
    check(a.share == 65535, 'share %d with one sender, want 65535' % a.share)
    check(dev.counter('share_senders') == 1, 'share_senders %d'
          % dev.counter('share_senders'))
    peer.drain()
    s.p.drain()


@spec('SHARE-PACE')
def share_pace(s):
    """the device paces new DATA to the share the peer's ACKs give"""
    qp, q = s.pair()
    n = 36 * 1024
    s.p.capacity, s.p.share = 100, 655      # 100 Mbit/s x 1% = 1 Mbit/s
    for path in range(s.p.npaths):
        s.p.ack(path)
    s.p.auto_ack = True
    s.dev.post_send(qp, e.IBV_WR_RDMA_WRITE, 0, n, wr_id=12, rkey=1, va=0)
    seen, times = {}, []
    while sum(seen.values()) < n:
        g = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q,
                       30, 'DATA (%d of %d bytes)' % (sum(seen.values()), n))
        if g.pkt.offset not in seen:
            seen[g.pkt.offset] = len(g.pkt.payload)
            times.append(g.t)
    s.p.capacity, s.p.share = 0, 0xffff
    s.p.records[q] = w.Record(qp.qp_num, 1)
    for path in range(s.p.npaths):
        s.p.ack(path)
    s.dev.poll()
    del s.p.records[q]
    s.p.auto_ack = False
    secs = times[-1] - times[0]
    # Each packet after the first at 1 Mbit/s, less two of burst.
    want = (len(times) - 3) * (s.dev.seg + 112) * 8 / 1e6
    check(secs >= 0.8 * want, '%d packets in %.3f s at a 1 Mbit/s share, '
          'want at least %.3f s' % (len(times), secs, 0.8 * want))
    s.p.drain()


@spec('SHARE-ACTIVE-FIRST', 'SHARE-ACTIVE')
def share_first(s):
    """counted from a sender's first ACK; past the hold, only with a hole"""
    check(s.share2, 'no second peer of the second device '
          '(MROCE_COMPLIANCE_SHARE)')
    dev, peer = s.share
    dev3, peer3 = s.share2
    qa = dev.rc_qp(0x901)
    if not peer.dev_epoch:
        peer.connect()
    # Sender A keeps a packet missing (it holds one back), so it is
    # active and never satisfied: with B too, the level is half.
    kw = dict(opcode=w.WRITE, dst_qpn=qa.qp_num, src_qpn=0x901, msg_len=8,
              payload=b'a' * 8, va=dev.mr.buf + 64, rkey=dev.mr.rkey,
              flags=w.F_ACK_REQ)
    held = peer.data(2, msn=0, **kw)
    peer.send(peer.data(2, msn=1, **kw))
    peer.ack_of(2, lambda g: g.pkt.sack)
    try:
        qb = dev3.rc_qp(0x902)
        peer3.connect()
        # The device judges A at its next scan, half a hold time away.
        hold = int(os.environ.get('MROCE_COMPLIANCE_SHARE_HOLD_US', 1000))
        time.sleep(hold / 2e6 * 1.2 + 0.1)
        peer3.send(peer3.data(1, opcode=w.WRITE, dst_qpn=qb.qp_num,
                              src_qpn=0x902, msn=0, msg_len=8,
                              payload=b'b' * 8, va=dev3.mr.buf,
                              rkey=dev3.mr.rkey, flags=w.F_ACK_REQ))
        a = peer3.ack_of(1).pkt
        check(a.share <= 32768, 'share %d in the first ACK of a second '
              'sender, want at most 32768 (half)' % a.share)
        check(dev.counter('share_senders') == 2, 'share_senders %d'
              % dev.counter('share_senders'))
        # B is done and has nothing missing: a hold time later, and the
        # scan after it, it is no longer active; A, with its hole, is.
        time.sleep(hold * 1.5 / 1e6 + 2)
        check(dev.counter('share_senders') == 1, 'share_senders %d a hold '
              'time after the second sender\'s last packet, want 1 (the '
              'first, with a packet missing)' % dev.counter('share_senders'))
    finally:
        peer.send(held)
        peer.ack_of(2, lambda g: g.pkt.psn == peer.snd_nxt[2])
        peer.drain()
        peer3.drain()


# --- datagrams ---------------------------------------------------------------

@spec('DGRAM-RX', 'DGRAM-DROP', 'DGRAM-TX', 'DGRAM-IGNORE', 'IP-ECN')
def datagrams(s):
    """DATAGRAM in and out of a UD QP; a wrong Q_Key is dropped, counted"""
    qp = s.dev.ud_qp(0x1111)
    s.dev.post_recv(qp, 600000, 2048, wr_id=20)
    payload = os.urandom(300)
    before = s.dev.counter('datagram_drops')
    s.p.send(w.Pkt(w.DATAGRAM, dst_qpn=qp.qp_num, src_qpn=0x77, qkey=0x2222,
                   payload=b'bad'), tos=0)
    # Path, epochs and sequence are ignored in a DATAGRAM (DGRAM-IGNORE).
    s.p.send(w.Pkt(w.DATAGRAM, dst_qpn=qp.qp_num, src_qpn=0x77, qkey=0x1111,
                   payload=payload, flags=w.F_IMM, imm=b'\x01\x02\x03\x04',
                   path=63, psn=0x12345678, src_epoch=0xdeadbeef,
                   dst_epoch=0x1234), tos=0)
    wc = s.dev.poll()[0]
    check(wc.status == e.IBV_WC_SUCCESS and wc.byte_len == 340 and
          wc.src_qp == 0x77, 'receive status %d len %d src_qp %#x'
          % (wc.status, wc.byte_len, wc.src_qp))
    check(struct.pack('=I', wc.imm_data) == b'\x01\x02\x03\x04',
          'imm %#x' % wc.imm_data)
    buf = s.dev.read(600000, 340)
    check(buf[:20] == bytes(20) and buf[20] >> 4 == 4 and
          buf[32:36] == bytes(int(x) for x in s.p.local.split('.')),
          'network header %s' % buf[:40].hex())
    check(buf[40:] == payload, 'payload differs')
    s.dev.expect_delta('datagram_drops', before, 1)
    s.dev.write(0, b'datagram out')
    wr = SendWR(wr_id=21, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[s.dev.sge(0, 12)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_ud(s.dev.ah(), 0x99, 0x3333)
    qp.post_send(wr)
    g = s.p.expect(lambda g: g.pkt.type == w.DATAGRAM, 5, 'DATAGRAM')
    pk = g.pkt
    check(pk.dst_qpn == 0x99 and pk.src_qpn == qp.qp_num and
          pk.qkey == 0x3333 and pk.payload == b'datagram out' and
          pk.path == 0 and pk.psn == 0 and pk.src_epoch == 0 and
          pk.dst_epoch == 0, 'DATAGRAM %r' % pk)
    check(g.tos & 3 == 0, 'DATAGRAM sent with ECN bits %d' % (g.tos & 3))
    s.dev.poll()
    s.p.drain()


@spec('DGRAM-MTU')
def datagram_mtu(s):
    """a UD send longer than the path MTU fails locally and sends nothing"""
    port = s.dev.ctx.query_port(1)
    mtu = 128 << port.active_mtu            # IB's MTU enum: 1 is 256 bytes
    qp = s.dev.ud_qp(0x4444)
    s.p.drain()
    for wr_id, n in ((40, mtu + 1), (41, mtu)):
        wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[s.dev.sge(0, n)], send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(s.dev.ah(), 0x99, 0x3333)
        qp.post_send(wr)
        wc = s.dev.poll()[0]
        if n > mtu:
            check(wc.wr_id == 40 and wc.status == e.IBV_WC_LOC_LEN_ERR,
                  '%d bytes at MTU %d: status %d' % (n, mtu, wc.status))
            s.p.pump(0.3)
            sent = [g for g in s.p.pending
                    if g.pkt and g.pkt.type == w.DATAGRAM]
            check(not sent, 'a DATAGRAM of %d bytes went out'
                  % len(sent[0].pkt.payload) if sent else '')
            # A failed UD send leaves the send queue in error (SQE).
            qp = s.dev.ud_qp(0x4444)
        else:
            check(wc.status == e.IBV_WC_SUCCESS, '%d bytes at MTU %d: '
                  'status %d' % (n, mtu, wc.status))
            g = s.p.expect(lambda g: g.pkt.type == w.DATAGRAM, 5, 'DATAGRAM')
            check(len(g.pkt.payload) == mtu, 'payload of %d bytes'
                  % len(g.pkt.payload))
    s.p.drain()


@spec('PLACE-DROP')
def place_drop(s):
    """DATA for no such QP, or from the wrong source QP: dropped, counted"""
    qp, q = s.pair()
    s.dev.write(700000, bytes(16))
    before = s.dev.counter('stream_drops')
    for dst, src in ((qp.qp_num + 1000, q), (qp.qp_num, q + 1)):
        s.p.send(s.p.data(4, opcode=w.WRITE, dst_qpn=dst, src_qpn=src, msn=0,
                          msg_len=16, payload=b'\x11' * 16,
                          va=s.dev.mr.buf + 700000, rkey=s.dev.mr.rkey,
                          flags=w.F_ACK_REQ))
    s.dev.expect_delta('stream_drops', before, 2)
    check(s.dev.read(700000, 16) == bytes(16), 'a dropped packet was placed')
    # Recorded by the path all the same: acknowledged, never resent.
    s.p.ack_of(4, lambda g: g.pkt.psn == s.p.snd_nxt[4], secs=2)
    s.p.drain()


@spec('HELLO-UNSOLICITED')
def unsolicited_hello(s):
    """a HELLO from an address with no connection: dropped, counted"""
    check(s.stranger, 'no third address (MROCE_COMPLIANCE_STRANGER)')
    before = s.dev.counter('no_conn_drops')
    conns = s.dev.counter('connections')
    s.stranger.hello(dst_epoch=0)
    s.dev.expect_delta('no_conn_drops', before, 1)
    s.stranger.pump(0.3)
    check(not s.stranger.pending, 'answered: %r' % s.stranger.pending)
    check(s.dev.counter('connections') == conns, 'a connection was made')


@spec('EPOCH-LEARN')
def epoch_learn(s):
    """a DATA naming the device's epoch teaches it the peer's, no HELLO"""
    check(s.stranger, 'no third address (MROCE_COMPLIANCE_STRANGER)')
    p = s.stranger
    dev = Device(s.dev.name, p.remote, p.local)
    p.answer_hello = False
    try:
        qp = dev.rc_qp(0x903)
        p.connect()                 # reads the device's epoch, says nothing
        data = os.urandom(32)
        p.send(p.data(0, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=0x903,
                      msn=0, msg_len=len(data), payload=data,
                      va=dev.mr.buf, rkey=dev.mr.rkey, flags=w.F_ACK_REQ))
        a = p.ack_of(0).pkt
        check(a.dst_epoch == p.epoch, 'ACK to epoch %#x, want %#x'
              % (a.dst_epoch, p.epoch))
        check(dev.read(0, len(data)) == data, 'the WRITE was not placed')
    finally:
        p.answer_hello = True
        p.drain()
        for qp in dev.qps:
            qp.close()


@spec('CONN-REAP')
def conn_reap(s):
    """an idle connection is freed after its linger; the next has a new epoch"""
    check(s.stranger, 'no third address (MROCE_COMPLIANCE_STRANGER)')
    p = s.stranger
    dev = Device(s.dev.name, p.remote, p.local)
    with open(PARAM + 'conn_linger_s') as f:
        linger = f.read().strip()
    try:
        qp = dev.rc_qp(0x904)
        if not p.dev_epoch:
            p.connect()
        old = p.dev_epoch
        reaped = s.dev.counter('connections_reaped')
        conns = s.dev.counter('connections')
        # The linger counts from when the last stream leaves.
        with open(PARAM + 'conn_linger_s', 'w') as f:
            f.write('1')
        qp.close()
        s.dev.delta('connections_reaped', reaped, 1, secs=5.0)
        check(s.dev.counter('connections_reaped') == reaped + 1,
              'no connection reaped 5 s after its last stream left')
        check(s.dev.counter('connections') == conns - 1, 'connections %d, '
              'want %d' % (s.dev.counter('connections'), conns - 1))
        # Gone: the old epochs reach no connection.
        before = s.dev.counter('no_conn_drops')
        p.send(p.data(0, opcode=w.SEND, dst_qpn=1, src_qpn=0x904, msn=0,
                      msg_len=8, payload=b'r' * 8, flags=w.F_ACK_REQ))
        s.dev.expect_delta('no_conn_drops', before, 1)
        dev.rc_qp(0x905)
        g = p.expect(lambda g: g.pkt.type == w.HELLO, 5.0, 'HELLO')
        check(g.pkt.src_epoch != old and g.pkt.dst_epoch == 0,
              'the new connection says HELLO with epochs %#x/%#x, the old '
              'had %#x' % (g.pkt.src_epoch, g.pkt.dst_epoch, old))
    finally:
        with open(PARAM + 'conn_linger_s', 'w') as f:
            f.write(linger)
        p.drain()
        for qp in dev.qps:
            qp.close()


@spec('DATA-PAYLOAD-MAX')
def payload_max(s):
    """a 4096-byte payload is placed whatever the path MTU"""
    qp, q = s.pair()
    data = os.urandom(4096)
    m = s.msn(q)
    s.p.send(s.p.data(6, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q, msn=m,
                      msg_len=8192, offset=4096, payload=data,
                      va=s.dev.mr.buf + 720000, rkey=s.dev.mr.rkey))
    s.p.send(s.p.data(6, opcode=w.WRITE, dst_qpn=qp.qp_num, src_qpn=q, msn=m,
                      msg_len=8192, offset=0, payload=data[::-1],
                      va=s.dev.mr.buf + 720000, rkey=s.dev.mr.rkey,
                      flags=w.F_ACK_REQ))
    s.record_of(q, lambda r: r.msn_done == m + 1)
    check(s.dev.read(720000, 8192) == data[::-1] + data, 'bytes differ')
    s.p.drain()


def nak_device(s, qp, q, nak, rnr_timer=0, secs=5, gen=0):
    """Let the device's message of generation @gen reach the peer; NAK it."""
    g = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q and
                   g.pkt.gen == gen, secs, 'DATA of generation %d' % gen)
    pk = g.pkt
    s.p.records[q] = w.Record(qp.qp_num, pk.msn, nak_msn=pk.msn, nak=nak,
                              nak_gen=pk.gen, rnr_timer=rnr_timer)
    s.p.ack(pk.path)
    del s.p.records[q]
    return pk


@spec('RNR-RESEND')
def rnr_resend(s):
    """after an RNR NAK the device sends the whole message again, gen + 1"""
    qp, q = s.pair()
    s.dev.write(0, os.urandom(3000))
    s.p.auto_ack = True
    s.dev.post_send(qp, e.IBV_WR_SEND, 0, 3000, wr_id=40)
    first = nak_device(s, qp, q, w.NAK_RNR, rnr_timer=1)  # 0.01 ms
    got = {}
    while sum(map(len, got.values())) < 3000:
        g = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q
                       and g.pkt.gen == first.gen + 1, 10,
                       'the message again with gen %d' % (first.gen + 1))
        check(g.pkt.msn == first.msn and g.pkt.opcode == w.SEND,
              'resent %r' % g.pkt)
        got[g.pkt.offset] = g.pkt.payload
    check(b''.join(got[k] for k in sorted(got)) == s.dev.read(0, 3000),
          'resent bytes differ')
    s.p.records[q] = w.Record(qp.qp_num, first.msn + 1)
    for path in range(s.p.npaths):
        s.p.ack(path)
    wc = s.dev.poll()[0]
    check(wc.status == e.IBV_WC_SUCCESS and wc.wr_id == 40,
          'completion status %d' % wc.status)
    del s.p.records[q]
    s.p.drain()


@spec('RNR-RETRY')
def rnr_retry(s):
    """rnr_retry NAKs and no more: the request fails, RNR retry exceeded"""
    qp, q = s.pair(rnr_retry=1)
    s.p.auto_ack = True
    s.dev.post_send(qp, e.IBV_WR_SEND, 0, 100, wr_id=41)
    for gen in range(2):
        nak_device(s, qp, q, w.NAK_RNR, rnr_timer=1, gen=gen)
    wc = s.dev.poll(secs=5)[0]
    check(wc.status == e.IBV_WC_RNR_RETRY_EXC_ERR and wc.wr_id == 41,
          'completion status %d, want RNR retry exceeded' % wc.status)
    s.p.drain()


@spec('ERR-FATAL', 'ERR-ORDER')
def fatal_nak(s):
    """a REMOTE_ACCESS NAK fails the request and moves the QP to error"""
    qp, q = s.pair()
    s.p.auto_ack = True
    s.dev.post_send(qp, e.IBV_WR_RDMA_WRITE, 0, 100, wr_id=42, rkey=9, va=64)
    pk = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q, 5,
                    'DATA').pkt
    # msn_done past the message too: the NAK must win (ERR-ORDER).
    s.p.records[q] = w.Record(qp.qp_num, pk.msn + 1, nak_msn=pk.msn,
                              nak=w.NAK_REMOTE_ACCESS, nak_gen=pk.gen)
    s.p.ack(pk.path)
    del s.p.records[q]
    wc = s.dev.poll()[0]
    check(wc.status == e.IBV_WC_REM_ACCESS_ERR and wc.wr_id == 42,
          'completion status %d, want remote access error' % wc.status)
    end = time.monotonic() + 2
    while s.dev.state(qp) != e.IBV_QPS_ERR and time.monotonic() < end:
        time.sleep(0.02)
    check(s.dev.state(qp) == e.IBV_QPS_ERR, 'QP state %d' % s.dev.state(qp))
    s.p.drain()


# --- restart (last: it fails the streams that heard from the peer) -----------

@spec('EPOCH-RESTART')
def restart(s):
    """a new epoch in a HELLO: streams that heard fail, sequences restart"""
    heard, q1 = s.pair()
    s.p.send(w.Pkt(w.PROBE, path=0, qpn=heard.qp_num))
    s.p.send(s.p.data(0, opcode=w.WRITE, dst_qpn=heard.qp_num, src_qpn=q1,
                      msn=s.msn(q1), msg_len=8, payload=b'r' * 8,
                      va=s.dev.mr.buf, rkey=s.dev.mr.rkey, flags=w.F_ACK_REQ))
    s.record_of(q1, lambda r: r.msn_done == 1)
    before = s.dev.counter('peer_restarts')
    s.p.epoch = random.randrange(1, 1 << 32)
    s.p.snd_nxt = [0] * w.MAX_PATHS
    s.p.rx = [type(s.p.rx[0])() for _ in s.p.rx]
    s.p.hello(dst_epoch=0)
    g = s.p.expect(lambda g: g.pkt.type == w.HELLO, 2, 'answering HELLO')
    check(g.pkt.dst_epoch == s.p.epoch, 'answer names epoch %#x, not %#x'
          % (g.pkt.dst_epoch, s.p.epoch))
    s.dev.expect_delta('peer_restarts', before, 1)
    end = time.monotonic() + 5
    while s.dev.state(heard) != e.IBV_QPS_ERR and time.monotonic() < end:
        time.sleep(0.05)
    check(s.dev.state(heard) == e.IBV_QPS_ERR, 'a stream that heard lives on')
    fresh, q2 = s.pair()
    s.dev.write(0, b'after')
    s.p.auto_ack = True
    s.dev.post_send(fresh, e.IBV_WR_RDMA_WRITE, 0, 5, wr_id=30, rkey=1, va=0)
    g = s.p.expect(lambda g: g.pkt.type == w.DATA and g.pkt.dst_qpn == q2, 5,
                   'DATA after the restart')
    check(g.pkt.psn == 0, 'first DATA after the restart has psn %d'
          % g.pkt.psn)
    s.p.records[q2] = w.Record(fresh.qp_num, 1)
    s.p.ack(g.pkt.path)
    wc = [c for c in s.dev.poll(1) if c.wr_id == 30]
    check(wc and wc[0].status == e.IBV_WC_SUCCESS, 'WRITE after restart')
    s.p.auto_ack = False


# --- invariants over everything the device sent ------------------------------

def invariants(s):
    """What every packet the device sent during the run must satisfy: the
    ids' statements and, per id, the packets that break them."""
    bad = {'HDR-RESERVED-ZERO': [], 'IP-ECN': [], 'DATA-BOUNDS': [],
           'ENC-SPORT': [], 'DGRAM-TX': []}
    for g in s.p.log:
        pk = g.pkt
        if pk is None:
            bad['HDR-RESERVED-ZERO'].append('unparsable packet %s'
                                            % g.raw[:16].hex())
            continue
        r = w.reserved_set(pk)
        if r:
            bad['HDR-RESERVED-ZERO'].append('%s: %s' % (pk.name, ', '.join(r)))
        ecn = g.tos & 3
        if ecn != (0 if pk.type == w.DATAGRAM else ECT0):
            bad['IP-ECN'].append('%s sent with ECN bits %d' % (pk.name, ecn))
        if pk.type == w.DATA and pk.offset + len(pk.payload) > pk.msg_len:
            bad['DATA-BOUNDS'].append('DATA past its message: %r' % pk)
        if not 49152 <= g.sport <= 65535:
            bad['ENC-SPORT'].append('%s from port %d' % (pk.name, g.sport))
        if pk.type == w.DATAGRAM and (pk.path or pk.psn or pk.src_epoch or
                                      pk.dst_epoch):
            bad['DGRAM-TX'].append('DATAGRAM header: %r' % pk)
    return bad


SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                    'Documentation', 'wire-protocol.rst')


# Ids another program of tests/vm/compliance.sh checks.
ELSEWHERE = {'ENC-CSUM-IPV4': 'decode-check, over the capture'}


def spec_ids():
    """The ids of the spec's requirements index, in order."""
    with open(SPEC) as f:
        text = f.read()
    index = text[text.index('\nRequirements index\n'):]
    return re.findall(r'^([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+) ', index, re.M)


def main():
    dev, netns, local, peer = sys.argv[1:5]
    only = set(sys.argv[5:])
    index = spec_ids()
    named = {i for _, c, _, _ in CHECKS for i in c}
    unknown = sorted(named - set(index))
    if unknown:
        print('FAIL SPEC-IDS: checks name ids the spec does not have: %s'
              % ' '.join(unknown), flush=True)
        return 1
    s = Suite(dev, netns, local, peer)
    failed = 0
    for name, ids, what, fn in CHECKS:
        if only and name not in only and name != 'hello':
            continue
        t0 = time.monotonic()
        try:
            fn(s)
            verdict, why = 'ok', ''
        except (Fail, TimeoutError) as err:
            verdict, why = 'FAIL', ': ' + str(err)
        except Exception:
            verdict = 'FAIL'
            why = ': ' + traceback.format_exc().strip().replace('\n', ' | ')
        # What a check that failed half way left set must not reach the
        # next.
        s.p.reset_answers()
        s.p.drain()
        failed += verdict != 'ok'
        for i in ids:
            print('%s %s: %s (%s, %.1f s)%s' % (verdict, i, what, name,
                                                time.monotonic() - t0, why),
                  flush=True)
    trace = os.environ.get('MROCE_COMPLIANCE_TRACE')
    if trace:
        with open(trace, 'w') as f:
            for g in s.p.log:
                f.write('%.6f %r\n' % (g.t, g))
    # Every payload the peer sent and received, for tests/compliance/
    # decode-check to find in a capture.
    raw = os.environ.get('MROCE_COMPLIANCE_RAW')
    if raw:
        with open(raw, 'w') as f:
            for g in s.p.log:
                f.write('rx %s\n' % g.raw.hex())
            for b in s.p.sent_log:
                f.write('tx %s\n' % b.hex())
    n = len(s.p.log)
    bad = invariants(s)
    for i, why in bad.items():
        print('%s %s: every packet the device sent (%d) (invariants)%s'
              % ('FAIL' if why else 'ok', i, n,
                 ': ' + '; '.join(why[:5]) if why else ''), flush=True)
    if not only:
        for i in index:
            if i not in named and i not in bad and i not in ELSEWHERE:
                print('untested %s: no check of this suite' % i, flush=True)
    return 1 if failed or any(bad.values()) else 0


if __name__ == '__main__':
    sys.exit(main())

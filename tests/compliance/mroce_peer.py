# SPDX-License-Identifier: GPL-2.0-only
"""An mroce endpoint in userspace, from Documentation/wire-protocol.rst.

A Peer speaks mroce over UDP sockets opened in a network namespace of its
own, towards a live mroce device in another.  It keeps the little state a
test needs to drive the device exactly: its epoch and the device's, a next
sequence per path for what it sends, and per path what it received (its
cumulative sequence, SACK bits and CE count) for the ACKs it sends.  It
answers the device's HELLOs and, when told to, acknowledges its DATA; all
else is the test's to decide, packet by packet.
"""

import ctypes
import os
import random
import select
import socket
import struct
import time

import mroce_wire as w

CLONE_NEWNET = 0x40000000
IP_RECVTOS = getattr(socket, 'IP_RECVTOS', 13)
SO_TIMESTAMPNS = getattr(socket, 'SO_TIMESTAMPNS', 35)
ECT0, CE = 2, 3


def in_netns(name, fn):
    """Run fn() inside network namespace @name (its sockets stay there)."""
    libc = ctypes.CDLL(None, use_errno=True)
    here = os.open('/proc/self/ns/net', os.O_RDONLY)
    there = os.open('/run/netns/' + name, os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), 'setns ' + name)
        try:
            return fn()
        finally:
            if libc.setns(here, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), 'setns back')
    finally:
        os.close(here)
        os.close(there)


class Rx:
    """What this end received on one path of the device's."""

    def __init__(self):
        self.cum = 0
        self.above = set()
        self.ce = 0
        self.sport = None

    def record(self, psn):
        """Record @psn; False when it is a duplicate."""
        if w.seq_before(psn, self.cum) or psn in self.above:
            return False
        self.above.add(psn)
        while self.cum in self.above:
            self.above.discard(self.cum)
            self.cum = (self.cum + 1) & 0xffffffff
        return True

    def sack(self):
        bits = 0
        for psn in self.above:
            d = (psn - self.cum - 1) & 0xffffffff
            if d < w.SACK_BITS:
                bits |= 1 << d
        return bits


class Got:
    """A received datagram: the parsed packet (or None) and how it came."""

    def __init__(self, raw, sport, dport, tos, t):
        self.raw, self.sport, self.dport, self.tos, self.t = \
            raw, sport, dport, tos, t
        try:
            self.pkt = w.parse(raw)
        except w.Malformed:
            self.pkt = None

    def __repr__(self):
        return 'Got(sport=%d tos=%#x %r)' % (self.sport, self.tos, self.pkt)


class Peer:
    """The userspace end of one connection to the device at @remote."""

    def __init__(self, netns, local, remote, npaths=4, port=w.UDP_PORT):
        self.local, self.remote, self.port = local, remote, port
        self.npaths = npaths
        self.epoch = random.randrange(1, 1 << 32)
        self.dev_epoch = 0
        self.snd_nxt = [0] * w.MAX_PATHS
        self.rx = [Rx() for _ in range(w.MAX_PATHS)]
        self.answer_hello = True
        self.reset_answers()
        self.log = []               # every Got, in arrival order
        self.pending = []           # received, not yet taken by a test
        self.sent = 0
        self.sent_log = []          # every packet sent, if keep_sent
        self.keep_sent = True
        self.ports = [50000 + i for i in range(w.MAX_PATHS)]
        self.rsock = in_netns(netns, self._rsock)
        self.tx = {}
        self.netns = netns

    def _rsock(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.setsockopt(socket.IPPROTO_IP, IP_RECVTOS, 1)
        # Arrival times from the kernel: this process may read them late.
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        s.bind((self.local, self.port))
        return s

    def _txsock(self, sport):
        s = self.tx.get(sport)
        if s is None:
            def mk():
                t = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                t.bind((self.local, sport))
                return t
            s = self.tx[sport] = in_netns(self.netns, mk)
        return s

    def close(self):
        self.rsock.close()
        for s in self.tx.values():
            s.close()

    # --- sending -----------------------------------------------------------

    def send_raw(self, raw, sport=None, tos=ECT0, path=0):
        s = self._txsock(sport if sport is not None else self.ports[path])
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        s.sendto(raw, (self.remote, self.port))
        self.sent += 1
        if self.keep_sent:
            self.sent_log.append(raw)

    def send(self, pkt, sport=None, tos=ECT0, epochs=True):
        """Send @pkt; DATA/ACK/PROBE get the current epochs if @epochs."""
        if epochs and pkt.type in (w.DATA, w.ACK, w.PROBE):
            pkt.src_epoch, pkt.dst_epoch = self.epoch, self.dev_epoch
        self.send_raw(pkt.build(), sport, tos, pkt.path)
        return pkt

    def hello(self, dst_epoch=None, src_epoch=None, sport=None):
        p = w.Pkt(w.HELLO, paths=self.npaths,
                  src_epoch=self.epoch if src_epoch is None else src_epoch,
                  dst_epoch=self.dev_epoch if dst_epoch is None else dst_epoch)
        return self.send(p, sport=sport, epochs=False)

    def data(self, path, psn=None, **kw):
        """A DATA packet on @path with the next sequence unless @psn."""
        if psn is None:
            psn = self.snd_nxt[path]
            self.snd_nxt[path] = (psn + 1) & 0xffffffff
        return w.Pkt(w.DATA, path=path, psn=psn, **kw)

    def ack(self, path, records=None, sport=None, flags=0, send=True):
        """The ACK of @path (a path of the device's) as this end has it."""
        rx = self.rx[path]
        recs = list(self.records.values()) if records is None else records
        p = w.Pkt(w.ACK, path=path, psn=rx.cum, sack=rx.sack(),
                  ce_count=rx.ce & 0xffff, share=self.share,
                  capacity=self.capacity, records=recs, flags=flags)
        if sport is None:
            sport = rx.sport
        return self.send(p, sport=sport) if send else p

    def message(self, path_of, opcode, dst_qpn, src_qpn, msn, data, mtu=1024,
                order=None, **ext):
        """The DATA packets of one message, one per @mtu bytes.

        @path_of(i) gives the path of segment i; @order, a permutation of
        the segments, the order they are built in (sequence numbers are
        taken in that order).  The last segment asks for an ACK.
        """
        n = max(1, -(-len(data) // mtu))
        order = list(range(n)) if order is None else order
        pkts = []
        for i in order:
            seg = data[i * mtu:(i + 1) * mtu]
            p = self.data(path_of(i), opcode=opcode, dst_qpn=dst_qpn,
                          src_qpn=src_qpn, msn=msn, msg_len=len(data),
                          offset=i * mtu, payload=seg,
                          flags=w.F_ACK_REQ if i == n - 1 else 0, **ext)
            pkts.append(p)
        return pkts

    # --- receiving ---------------------------------------------------------

    def _read(self, timeout):
        r, _, _ = select.select([self.rsock], [], [], max(timeout, 0))
        if not r:
            return None
        raw, anc, _, addr = self.rsock.recvmsg(65536, 128)
        tos, t = 0, time.time()
        for level, typ, data in anc:
            if level == socket.IPPROTO_IP and typ == socket.IP_TOS:
                tos = data[0]
            elif level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack('qq', data[:16])
                t = sec + nsec / 1e9
        g = Got(raw, addr[1], self.port, tos, t)
        self.log.append(g)
        self._react(g)
        return g

    def _react(self, g):
        p = g.pkt
        if p is None:
            return
        if p.type == w.HELLO:
            if not self.dev_epoch or p.src_epoch != self.dev_epoch:
                self.dev_epoch = p.src_epoch
            if self.answer_hello and p.dst_epoch != self.epoch:
                self.hello()
        elif p.type == w.DATA and p.dst_epoch == self.epoch \
                and p.src_epoch == self.dev_epoch:
            rx = self.rx[p.path]
            rx.sport = g.sport
            p.new = rx.record(p.psn)
            if g.tos & 3 == CE:
                rx.ce += 1
            if self.auto_ack:
                self.ack(p.path)

    def pump(self, secs):
        """Receive (and react) for @secs; the packets go to pending."""
        end = time.monotonic() + secs
        while True:
            g = self._read(end - time.monotonic())
            if g is None:
                return
            self.pending.append(g)

    def expect(self, pred, secs=5.0, what='a packet', keep=False):
        """The first pending or arriving packet for which pred(g) holds.

        The packet found is taken from the pending ones unless @keep.
        """
        end = time.monotonic() + secs
        while True:
            for i, g in enumerate(self.pending):
                if g.pkt is not None and pred(g):
                    return g if keep else self.pending.pop(i)
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError('no %s within %.1f s' % (what, secs))
            g = self._read(left)
            if g is not None:
                self.pending.append(g)

    def reset_answers(self):
        """Acknowledge only when told, give no share, report no stream."""
        self.records = {}           # our QPN -> Record to report in ACKs
        self.auto_ack = False
        self.capacity, self.share = 0, 0xffff

    def drain(self):
        self.pump(0)
        self.pending = []

    def ack_of(self, path, pred=lambda g: True, secs=5.0):
        return self.expect(lambda g: g.pkt.type == w.ACK and
                           g.pkt.path == path and pred(g), secs,
                           'ACK of path %d' % path)

    def connect(self, secs=10.0):
        """Wait for the device's HELLO and answer it: epochs known.

        The copies sent with it (HELLO-COPIES) are answered and dropped:
        a later wait for a HELLO must not take one of them.
        """
        g = self.expect(lambda g: g.pkt.type == w.HELLO, secs, 'HELLO')
        self.pump(0.05)
        self.pending = [x for x in self.pending
                        if not (x.pkt and x.pkt.type == w.HELLO and
                                x.pkt.src_epoch == g.pkt.src_epoch)]
        return self.dev_epoch


def be_u32(b):
    return struct.unpack('!I', b)[0]

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fuzz a live mroce device with packets of the spec's layers.

    fuzz.py DEV NETNS LOCAL FUZZER LEGIT COUNT [SEED]

The fuzzer (address FUZZER in network namespace NETNS) opens a connection
to the device DEV (address LOCAL) like any peer, so its packets carry the
connection's epochs and reach past the header checks into the paths and
streams: templates of every packet type and opcode aimed at its real
queue pairs and memory, then mutated (fields at their boundary values,
truncation, flipped bytes, garbage bodies, forged queue pairs, keys,
messages, offsets and ACKs).  Beside it a second peer (address LEGIT)
writes and reads back verified data through the same device every few
thousand packets.  The device's memory regions sit between sentinel pages.

Prints "ok NAME: ..." or "FAIL NAME: ..." lines:
  fuzz-accounted   every packet the device received is counted: by a
                   connection (rx_pkts) or as a drop (malformed_drops,
                   no_conn_drops, datagram counters), or by the kernel's
                   backlog drops
  fuzz-sentinels   no byte outside the remote-writable region changed
  fuzz-legit       every write/read-back round of the other peer verified
"""

import ctypes
import mmap
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mroce_wire as w                                         # noqa: E402
from mroce_peer import Peer, CE                                # noqa: E402
from suite import Device, ACCESS                               # noqa: E402

from pyverbs.mr import MR                                      # noqa: E402
from pyverbs.wr import RecvWR, SGE                             # noqa: E402
import pyverbs.enums as e                                      # noqa: E402

PAGE = 4096
REGION = 64 * 1024          # remote-writable: what the fuzzer may change
LOCAL_ONLY = 16 * 1024      # registered without remote access
LEGIT = 64 * 1024

# Values at the edges of a field of each width.
EDGES = {
    8: [0, 1, 0x7f, 0x80, 0xfe, 0xff],
    16: [0, 1, 0x7fff, 0x8000, 0xfffe, 0xffff],
    24: [0, 1, 0x7fffff, 0x800000, 0xffffff],
    32: [0, 1, 0xff, 0x100, 0xffffff, 0x1000000, 0x7fffffff, 0x80000000,
         0xfffffffe, 0xffffffff],
    64: [0, 1, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff],
}
WIDTH = {'flags': 8, 'path': 8, 'opcode': 8, 'gen': 8, 'paths': 16,
         'ce_count': 16, 'share': 16, 'capacity': 24, 'va': 64, 'swap': 64,
         'compare': 64, 'add': 64, 'orig': 64, 'reserved_nibble': 4}


def softnet_drops():
    n = 0
    with open('/proc/net/softnet_stat') as f:
        for line in f:
            n += int(line.split()[1], 16)
    return n


COUNTED = ('rx_pkts', 'malformed_drops', 'no_conn_drops', 'datagrams_rcvd',
           'datagram_drops')
# How far past the connection lookup the fuzz got (reported, not summed).
DEEPER = ('stale_epoch_drops', 'duplicate_drops', 'outside_window_drops',
          'stream_drops', 'rnr_naks_sent', 'peer_restarts')


class Fuzz:
    def __init__(self, dev, netns, local, fuzzer, legit, seed):
        self.rng = random.Random(seed)
        self.dev = Device(dev, local, fuzzer)
        self.mem = mmap.mmap(-1, 6 * PAGE + REGION + LOCAL_ONLY)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.mem))
        self.mem[:] = b'\xa5' * len(self.mem)
        self.a_off = 2 * PAGE
        self.b_off = self.a_off + REGION + 2 * PAGE
        self.mr_a = MR(self.dev.pd, REGION, ACCESS,
                       address=self.base + self.a_off)
        self.mr_b = MR(self.dev.pd, LOCAL_ONLY, e.IBV_ACCESS_LOCAL_WRITE,
                       address=self.base + self.b_off)
        self.f = Peer(netns, fuzzer, local, npaths=8)
        self.f.keep_sent = False
        self.f.rsock.setblocking(False)
        self.qps = []
        for i in range(4):
            qp = self.dev.rc_qp(0x400 + i)
            self.qps.append((qp, 0x400 + i))
        self.uc = self.dev.rc_qp(0x480, qp_type=e.IBV_QPT_UC)
        self.qps.append((self.uc, 0x480))
        self.ud = self.dev.ud_qp(0x5151)
        self.next_q = 0x480
        self.replaced = 0
        self.holes = []
        self.taken = None
        self.f.connect()
        self.f.pump(0.2)
        self.repost()
        # The legit peer: its own device-side memory and queue pair.
        self.legit_dev = Device(dev, local, legit)
        self.l = Peer(netns, legit, local, npaths=8)
        self.lqp = self.legit_dev.rc_qp(0x600)
        self.l.connect()
        self.lmsn = 0
        self.sent = 0
        self.kinds = {}
        self.legit_ok = self.legit_bad = 0
        self.legit_why = []

    # --- the device's receives ---------------------------------------------

    def repost(self):
        """Keep the fuzzed queue pairs alive, with receives into region A.

        A fatal NAK moves a queue pair to the error state, where every
        later packet of it stops at the stream; a new one takes its place,
        so that the fuzz keeps reaching placement.
        """
        while True:
            k, _ = self.dev.cq.poll(64)
            if not k:
                break
        for i, (qp, q) in enumerate(self.qps):
            if self.dev.state(qp) == e.IBV_QPS_ERR:
                kind = qp.qp_type
                qp.close()
                self.next_q += 1
                self.qps[i] = (self.dev.rc_qp(self.next_q, qp_type=kind),
                               self.next_q)
                self.replaced += 1
        for qp, _ in self.qps + [(self.ud, 0)]:
            for _ in range(8):
                off = self.rng.randrange(0, REGION - 2048)
                try:
                    qp.post_recv(RecvWR(num_sge=1, sg=[
                        SGE(self.mr_a.buf + off, 2048, self.mr_a.lkey)]))
                except Exception:   # noqa: BLE001 (a full queue: enough)
                    break

    # --- templates -----------------------------------------------------------

    def template(self):
        r = self.rng
        f = self.f
        qp, q = r.choice(self.qps)
        path = r.randrange(f.npaths)
        kind = r.choice(('data', 'data', 'data', 'ack', 'probe', 'hello',
                         'dgram'))
        if kind == 'data':
            op = r.randrange(1, 11)
            m = w.Pkt(w.DATA, opcode=op)
            m.path = path
            m.psn = self.psn(path)
            m.dst_qpn, m.src_qpn = qp.qp_num, q
            m.msn = r.randrange(0, 80)
            m.gen = r.choice((0, 0, 0, 1))
            n = r.choice((0, 8, 64, 1000, 1344, 4096))
            m.msg_len = n + r.choice((0, 0, 100, 5000))
            m.offset = r.randrange(0, max(1, m.msg_len - n + 1))
            m.payload = os.urandom(n)
            m.va = self.mr_a.buf + r.randrange(0, REGION) & ~7
            m.rkey = r.choice((self.mr_a.rkey, self.mr_a.rkey,
                               self.mr_b.rkey, self.mr_b.lkey))
            m.ssn = r.randrange(0, 40)
            m.imm = os.urandom(4)
            m.inv_rkey = r.choice((self.mr_a.rkey, self.mr_b.rkey))
            m.add = m.swap = m.compare = m.orig = r.getrandbits(64)
            if op in (w.READ_REQ, w.CMP_SWAP, w.FETCH_ADD, w.ATOMIC_RESP):
                m.payload = b''
                m.offset = 0
                if op != w.READ_REQ:
                    m.msg_len = 8
            m.flags = r.choice((0, w.F_ACK_REQ))
        elif kind == 'ack':
            m = w.Pkt(w.ACK, path=path, psn=r.randrange(0, 1 << 32) if
                      r.random() < 0.2 else f.rx[path].cum +
                      r.randrange(-3, 300), sack=r.getrandbits(256),
                      ce_count=r.randrange(1 << 16), share=r.randrange(1 << 16),
                      capacity=r.randrange(1 << 24))
            m.psn &= 0xffffffff
            m.records = [w.Record(r.choice(self.qps)[0].qp_num,
                                  r.randrange(0, 100), r.randrange(0, 100),
                                  r.randrange(0, 5), r.randrange(0, 3),
                                  r.randrange(0, 32))
                         for _ in range(r.randrange(0, 5))]
            m.flags = r.choice((0, w.F_ROUTE))
        elif kind == 'probe':
            m = w.Pkt(w.PROBE, path=path, qpn=r.choice(
                (qp.qp_num, 0xffffffff, r.getrandbits(32))),
                flags=r.choice((0, w.F_ROUTE)))
        elif kind == 'hello':
            m = w.Pkt(w.HELLO, paths=f.npaths)
        else:
            m = w.Pkt(w.DATAGRAM, dst_qpn=self.ud.qp_num,
                      src_qpn=r.randrange(1 << 24), qkey=r.choice(
                          (0x5151, 0x5151, r.getrandbits(32))),
                      imm=os.urandom(4), flags=r.choice((0, w.F_IMM)),
                      payload=os.urandom(r.choice((0, 10, 300, 2000))))
        if m.type != w.DATAGRAM:
            m.src_epoch, m.dst_epoch = f.epoch, f.dev_epoch
        return m

    def psn(self, path):
        """Mostly the next sequence; sometimes anywhere in or out of window."""
        r = self.rng
        x = r.random()
        if x < 0.7:
            p = self.f.snd_nxt[path]
            self.f.snd_nxt[path] = (p + 1) & 0xffffffff
            self.taken = (path, p)
            return p
        if x < 0.9:
            return (self.f.snd_nxt[path] + r.randrange(-300, 300)) & 0xffffffff
        return r.getrandbits(32)

    # --- mutations -----------------------------------------------------------

    def fill(self):
        """Send a valid packet for each sequence a mutation may have spent.

        A sequence whose packet was dropped before its path recorded it is
        a hole, and a path with a hole stops 256 sequences later: every
        packet after that is outside the window.  A DATA packet for no
        queue pair fills it (the path records it, the stream drops it); if
        the packet got through, this one is a duplicate.
        """
        for path, psn in self.holes:
            self.f.send(w.Pkt(w.DATA, path=path, psn=psn, opcode=w.SEND,
                              dst_qpn=0xfffff0, src_qpn=1),
                        sport=self.f.ports[path])
        self.holes = []

    def mutate(self, m):
        r = self.rng
        how = r.choice(('valid', 'field', 'field', 'field', 'truncate',
                        'flip', 'garbage', 'forge'))
        if how == 'field':
            names = [k for k in vars(m) if k not in
                     ('payload', 'records', 'version', 'type') and
                     not k.startswith('_')]
            if r.random() > 0.05 or m.type == w.HELLO:
                names = [k for k in names if 'epoch' not in k]
            k = r.choice(names)
            v = getattr(m, k)
            if isinstance(v, bytes):
                setattr(m, k, os.urandom(len(v)))
            else:
                bits = WIDTH.get(k, 32)
                cand = EDGES.get(bits, [0, 15]) + [r.getrandbits(bits),
                                                    (v + 1) % (1 << bits),
                                                    (v - 1) % (1 << bits)]
                setattr(m, k, r.choice(cand) % (1 << bits))
            raw = m.build()
        elif how == 'truncate':
            raw = m.build()
            raw = raw[:r.randrange(0, len(raw))]
        elif how == 'flip':
            raw = bytearray(m.build())
            for _ in range(r.randrange(1, 9)):
                i = r.randrange(len(raw))
                if 4 <= i < 12 and (r.random() < 0.9 or
                                    m.type == w.HELLO):
                    continue
                raw[i] = r.randrange(256)
            raw = bytes(raw)
        elif how == 'garbage':
            raw = m.build()[:12 + r.randrange(0, 5)] + \
                os.urandom(r.randrange(0, 200))
        elif how == 'forge':
            if m.type == w.DATA:
                m.dst_qpn = r.choice((m.dst_qpn + r.randrange(-3, 4),
                                      r.getrandbits(24), 0, 1)) & 0xffffffff
                m.rkey = r.choice((m.rkey + r.randrange(-3, 4),
                                   r.getrandbits(32), 0)) & 0xffffffff
                end = self.mr_a.buf + REGION
                m.va = r.choice((end - r.randrange(0, 64), end,
                                 self.mr_a.buf - r.randrange(1, 64),
                                 self.base + r.randrange(len(self.mem)),
                                 r.getrandbits(64))) & (1 << 64) - 1
                m.msn = r.choice((m.msn + r.randrange(-100, 100),
                                  r.getrandbits(32))) & 0xffffffff
                m.offset = r.choice((m.msg_len, m.msg_len + 1,
                                     r.getrandbits(32),
                                     0xffffffff)) & 0xffffffff
            elif m.type == w.ACK:
                m.psn = r.getrandbits(32)
                m.sack = (1 << 256) - 1
            raw = m.build()
        else:
            raw = m.build()
        self.kinds[how] = self.kinds.get(how, 0) + 1
        return raw

    # --- the other peer ------------------------------------------------------

    def legit_round(self):
        """The legit peer writes random bytes and reads them back."""
        l, d = self.l, self.legit_dev
        n = self.rng.randrange(1, 6000)
        data = os.urandom(n)
        off = self.rng.randrange(0, LEGIT - n)
        va = d.mr.buf + off
        q = 0x600
        try:
            m = self.lmsn
            self.lmsn += 2
            for pk in l.message(lambda i: i % l.npaths, w.WRITE,
                                self.lqp.qp_num, q, m, data, 1024, va=va,
                                rkey=d.mr.rkey):
                l.send(pk)
            l.auto_ack = True
            l.send(l.data(0, opcode=w.READ_REQ, dst_qpn=self.lqp.qp_num,
                          src_qpn=q, msn=m + 1, msg_len=n, va=va,
                          rkey=d.mr.rkey, flags=w.F_ACK_REQ))
            got = {}
            while sum(map(len, got.values())) < n:
                g = l.expect(lambda g: g.pkt.type == w.DATA and
                             g.pkt.opcode == w.READ_RESP and
                             g.pkt.msn == m + 1, 10, 'READ_RESP')
                got[g.pkt.offset] = g.pkt.payload
            back = b''.join(got[k] for k in sorted(got))
            if back != data:
                raise ValueError('read back differs')
            self.legit_ok += 1
        except Exception as err:    # noqa: BLE001 (a verdict, not a crash)
            self.legit_bad += 1
            self.legit_why.append(str(err))
        l.auto_ack = False
        l.drain()

    # --- the run -------------------------------------------------------------

    def drain_fuzzer(self):
        while True:
            try:
                self.f.rsock.recv(65536)
            except BlockingIOError:
                return

    def run(self, count):
        before = {c: self.dev.counter(c) for c in COUNTED + DEEPER}
        sn0 = softnet_drops()
        lsent0, fsent0 = self.l.sent, self.f.sent
        t0 = time.monotonic()
        for i in range(count):
            self.taken = None
            m = self.template()
            raw = self.mutate(m)
            if self.taken:
                self.holes.append(self.taken)
            tos = CE if self.rng.random() < 0.05 else 2
            sport = self.f.ports[self.rng.randrange(8)] \
                if self.rng.random() < 0.9 else 49152 + self.rng.randrange(64)
            self.f.send_raw(raw, sport=sport, tos=tos)
            self.sent += 1
            if i % 256 == 255:
                self.fill()
                self.drain_fuzzer()
            if i % 5000 == 4999:
                self.repost()
                self.legit_round()
        secs = time.monotonic() - t0
        self.legit_round()
        # Read the counters once the device has taken in everything: when
        # two readings 0.2 s apart agree (a slow kernel takes longer).
        after, end = None, time.monotonic() + 30
        while time.monotonic() < end:
            time.sleep(0.2)
            self.drain_fuzzer()
            now = {c: self.dev.counter(c) for c in COUNTED + DEEPER}
            if now == after:
                break
            after = now
        delta = {c: after[c] - before[c] for c in COUNTED + DEEPER}
        sn = softnet_drops() - sn0
        sent = self.l.sent - lsent0 + self.f.sent - fsent0
        return secs, delta, sn, sent, sum(delta[c] for c in COUNTED)

    def sentinels(self):
        bad = []
        mem = bytes(self.mem)
        for name, lo, hi in (('below A', 0, self.a_off),
                             ('between A and B', self.a_off + REGION,
                              self.b_off),
                             ('B (no remote access)', self.b_off,
                              self.b_off + LOCAL_ONLY),
                             ('above B', self.b_off + LOCAL_ONLY, len(mem))):
            changed = sum(1 for b in mem[lo:hi] if b != 0xa5)
            if changed:
                bad.append('%s: %d bytes changed' % (name, changed))
        return bad


def main():
    dev, netns, local, fuzzer, legit, count = sys.argv[1:7]
    count = int(count)
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    fz = Fuzz(dev, netns, local, fuzzer, legit, seed)
    secs, delta, sn, total, arrived = fz.run(count)
    print('# %d fuzz packets in %.1f s (%.0f/s), seed %d; mutations %s'
          % (fz.sent, secs, fz.sent / secs, seed,
             ' '.join('%s=%d' % kv for kv in sorted(fz.kinds.items()))))
    print('# counted at the device: %s; backlog drops %d; %d packets sent in '
          'all' % (' '.join('%s=%d' % (c, delta[c]) for c in COUNTED), sn,
                   total))
    print('# of those, past the connection lookup: %s; %d queue pairs '
          'replaced after errors' % (' '.join('%s=%d' % (c, delta[c])
                                             for c in DEEPER), fz.replaced))
    ok = True

    def verdict(name, good, what):
        nonlocal ok
        ok &= good
        print('%s %s: %s' % ('ok' if good else 'FAIL', name, what), flush=True)
    # Every packet sent is counted by the device or was dropped in the
    # backlog before it (softnet_stat counts both directions' drops, so
    # its part is an upper bound).
    verdict('fuzz-accounted', arrived <= total <= arrived + sn,
            '%d sent by the two peers, %d counted at the device, %d backlog '
            'drops' % (total, arrived, sn))
    bad = fz.sentinels()
    verdict('fuzz-sentinels', not bad, '; '.join(bad) or
            'nothing outside the remote-writable region changed')
    verdict('fuzz-legit', fz.legit_bad == 0 and fz.legit_ok > 0,
            '%d rounds verified, %d failed%s' % (
                fz.legit_ok, fz.legit_bad,
                ': ' + '; '.join(fz.legit_why[:3]) if fz.legit_why else ''))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())

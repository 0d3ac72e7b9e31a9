# SPDX-License-Identifier: GPL-2.0-only
"""mroce packets, built and parsed from Documentation/wire-protocol.rst.

This is the second implementation's wire layer: it is written from the
spec's tables, not from the module's code, so that where the two disagree
the compliance suite sees it.  Every packet is a Pkt with the common
header's fields and the fields of its type; build() makes the UDP payload,
parse() reads one (raising Malformed for what the spec says a receiver
drops).
"""

import struct

VERSION = 2
UDP_PORT = 4796

DATA, ACK, HELLO, PROBE, DATAGRAM = 1, 2, 3, 4, 5
TYPE_NAMES = {DATA: 'DATA', ACK: 'ACK', HELLO: 'HELLO', PROBE: 'PROBE',
              DATAGRAM: 'DATAGRAM'}

F_ACK_REQ = 1 << 0
F_SOLICITED = 1 << 1
F_IMM = 1 << 2
F_ROUTE = 1 << 3

SEND, SEND_IMM, SEND_INV, WRITE, WRITE_IMM, READ_REQ, READ_RESP, \
    CMP_SWAP, FETCH_ADD, ATOMIC_RESP = range(1, 11)

NAK_NONE, NAK_RNR, NAK_REMOTE_ACCESS, NAK_INVALID_REQUEST, \
    NAK_REMOTE_OPERATION = range(5)

COMMON = struct.Struct('!BBBBIII')          # 16 bytes
STREAM = struct.Struct('!IIBBHIII')         # 24 bytes, at offset 16
RECORD = struct.Struct('!IIIBBBB')          # 16 bytes per stream record
HDR_LEN = 16
DATA_HDR = 40
SACK_BITS = 256
MAX_PATHS = 64
MAX_PAYLOAD = 4096

# The operation extensions (at offset 40): field names and formats in order.
EXT = {
    SEND: (('ssn', 'I'), ('_r', 'I')),
    SEND_IMM: (('ssn', 'I'), ('imm', '4s')),
    SEND_INV: (('ssn', 'I'), ('inv_rkey', 'I')),
    WRITE: (('va', 'Q'), ('rkey', 'I'), ('_r', 'I')),
    WRITE_IMM: (('va', 'Q'), ('rkey', 'I'), ('imm', '4s'), ('ssn', 'I'),
                ('_r', 'I')),
    READ_REQ: (('va', 'Q'), ('rkey', 'I'), ('_r', 'I')),
    READ_RESP: (),
    CMP_SWAP: (('va', 'Q'), ('rkey', 'I'), ('_r', 'I'), ('swap', 'Q'),
               ('compare', 'Q')),
    FETCH_ADD: (('va', 'Q'), ('rkey', 'I'), ('_r', 'I'), ('add', 'Q')),
    ATOMIC_RESP: (('orig', 'Q'),),
}
EXT_STRUCT = {op: struct.Struct('!' + ''.join(f for _, f in fields))
              for op, fields in EXT.items()}

# Each type's fixed length: what a receiver drops a shorter packet for.
FIXED_LEN = {DATA: DATA_HDR, ACK: 56, HELLO: 24, PROBE: 24, DATAGRAM: 32}


class Malformed(ValueError):
    """A packet the spec says its receiver drops as malformed."""


class Record:
    """One 16-byte stream record of an ACK."""

    def __init__(self, qpn, msn_done, nak_msn=0, nak=NAK_NONE, nak_gen=0,
                 rnr_timer=0, _r=0):
        self.qpn, self.msn_done = qpn, msn_done
        self.nak_msn, self.nak, self.nak_gen = nak_msn, nak, nak_gen
        self.rnr_timer = rnr_timer
        self._r = _r                # the reserved byte, as received

    def __repr__(self):
        return ('Record(qpn=%#x msn_done=%d nak=%d nak_msn=%d gen=%d rnr=%d)'
                % (self.qpn, self.msn_done, self.nak, self.nak_msn,
                   self.nak_gen, self.rnr_timer))


class Pkt:
    """A packet: the common header plus the fields of its type."""

    def __init__(self, type, **kw):
        self.version = VERSION
        self.type = type
        self.flags = 0
        self.path = 0
        self.src_epoch = 0
        self.dst_epoch = 0
        self.psn = 0
        self.payload = b''
        self.reserved_nibble = 0
        if type == DATA:
            self.dst_qpn = self.src_qpn = 0
            self.opcode, self.gen, self.msn = SEND, 0, 0
            self.msg_len = self.offset = 0
            for name, fmt in EXT[kw.get('opcode', SEND)]:
                setattr(self, name, b'\0' * 4 if fmt == '4s' else 0)
        elif type == ACK:
            self.sack = 0                   # bit i: cum + 1 + i received
            self.ce_count = 0
            self.share = 0xffff
            self.capacity = 0
            self.records = []
        elif type == HELLO:
            self.paths = 1
        elif type == PROBE:
            self.qpn = 0xffffffff
        elif type == DATAGRAM:
            self.dst_qpn = self.src_qpn = self.qkey = 0
            self.imm = b'\0' * 4
        for k, v in kw.items():
            setattr(self, k, v)

    @property
    def name(self):
        return TYPE_NAMES.get(self.type, 'type%d' % self.type)

    def __repr__(self):
        skip = ('payload',)
        f = ' '.join('%s=%r' % (k, v) for k, v in sorted(vars(self).items())
                     if k not in skip and not k.startswith('_'))
        return '<%s %s len=%d>' % (self.name, f, len(self.payload))

    def acked(self, psn):
        """ACK: whether it reports sequence @psn received."""
        d = (psn - self.psn) & 0xffffffff
        if d >= 0x80000000:
            return True
        return d >= 1 and d <= SACK_BITS and bool(self.sack >> (d - 1) & 1)

    def build(self):
        head = COMMON.pack(self.version << 4 | self.reserved_nibble,
                           self.type, self.flags, self.path, self.src_epoch,
                           self.dst_epoch, self.psn)
        if self.type == DATA:
            # Reserved fields are 0 unless a test sets _r0 or _r.
            body = STREAM.pack(self.dst_qpn, self.src_qpn, self.opcode,
                               self.gen, getattr(self, '_r0', 0), self.msn,
                               self.msg_len, self.offset)
            ext = EXT.get(self.opcode)
            if ext:
                body += EXT_STRUCT[self.opcode].pack(
                    *[getattr(self, n, 0) for n, _ in ext])
        elif self.type == ACK:
            body = self.sack.to_bytes(32, 'little')
            body += struct.pack('!HHB', self.ce_count & 0xffff, self.share,
                                len(self.records))
            body += self.capacity.to_bytes(3, 'big')
            for r in self.records:
                body += RECORD.pack(r.qpn, r.msn_done, r.nak_msn, r.nak,
                                    r.nak_gen, r.rnr_timer, 0)
        elif self.type == HELLO:
            body = struct.pack('!HHI', self.paths, 0, 0)
        elif self.type == PROBE:
            body = struct.pack('!II', self.qpn, 0)
        elif self.type == DATAGRAM:
            body = struct.pack('!III4s', self.dst_qpn, self.src_qpn,
                               self.qkey, self.imm)
        else:
            body = b''
        return head + body + self.payload


def parse(b):
    """Parse one UDP payload into a Pkt; Malformed if a receiver drops it."""
    if len(b) < HDR_LEN:
        raise Malformed('shorter than the common header')
    ver, type, flags, path, src, dst, psn = COMMON.unpack_from(b)
    if ver >> 4 != VERSION:
        raise Malformed('version %d' % (ver >> 4))
    if type not in FIXED_LEN:
        raise Malformed('type %d' % type)
    if path >= MAX_PATHS:
        raise Malformed('path %d' % path)
    if len(b) < FIXED_LEN[type]:
        raise Malformed('%s of %d bytes' % (TYPE_NAMES[type], len(b)))
    if src == 0 and type != DATAGRAM:
        raise Malformed('%s with src_epoch 0' % TYPE_NAMES[type])
    p = Pkt(type, flags=flags, path=path, src_epoch=src, dst_epoch=dst,
            psn=psn, reserved_nibble=ver & 0xf)
    if type == DATA:
        (p.dst_qpn, p.src_qpn, p.opcode, p.gen, p._r0, p.msn, p.msg_len,
         p.offset) = STREAM.unpack_from(b, 16)
        if p.opcode not in EXT:
            raise Malformed('opcode %d' % p.opcode)
        st = EXT_STRUCT[p.opcode]
        if len(b) < DATA_HDR + st.size:
            raise Malformed('DATA opcode %d of %d bytes' % (p.opcode, len(b)))
        for (n, _), v in zip(EXT[p.opcode], st.unpack_from(b, DATA_HDR)):
            setattr(p, n, v)
        p.payload = b[DATA_HDR + st.size:]
    elif type == ACK:
        p.sack = int.from_bytes(b[16:48], 'little')
        p.ce_count, p.share, n = struct.unpack_from('!HHB', b, 48)
        p.capacity = int.from_bytes(b[53:56], 'big')
        if len(b) < 56 + 16 * n:
            raise Malformed('ACK with %d records in %d bytes' % (n, len(b)))
        p.records = [Record(*RECORD.unpack_from(b, 56 + 16 * i))
                     for i in range(n)]
        p.payload = b[56 + 16 * n:]
    elif type == HELLO:
        p.paths, p._r0, p._r1 = struct.unpack_from('!HHI', b, 16)
    elif type == PROBE:
        p.qpn, p._r0 = struct.unpack_from('!II', b, 16)
    elif type == DATAGRAM:
        p.dst_qpn, p.src_qpn, p.qkey, p.imm = struct.unpack_from('!III4s', b,
                                                                 16)
        p.payload = b[32:]
    return p


def reserved_set(p):
    """The reserved fields of @p that are not zero (HDR-RESERVED-ZERO)."""
    bad = ['%s=%#x' % (n, getattr(p, n)) for n in ('reserved_nibble', '_r0',
                                                   '_r1', '_r')
           if getattr(p, n, 0)]
    if p.type in (DATA, DATAGRAM):
        bad += ['%s=%#x' % (n, getattr(p, n)) for n in ('dst_qpn', 'src_qpn')
                if getattr(p, n) >> 24]
    if p.type == ACK:
        bad += ['record %#x reserved=%#x' % (r.qpn, r._r)
                for r in p.records if r._r or r.qpn >> 24]
    return bad


def seq_before(a, b):
    """Serial-number order of 32-bit sequence and message numbers."""
    return (a - b) & 0xffffffff >= 0x80000000

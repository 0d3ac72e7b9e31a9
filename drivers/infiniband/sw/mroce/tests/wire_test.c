// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the mroce wire format (wire.c): every header type
 * survives a build/parse round trip, and malformed input is rejected.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "../compat.h"
#include "../wire.h"

#define BUF_LEN	2048
#define SMALL	256

static void fill_common(struct mroce_pkt *p, u8 type)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->flags = MROCE_F_ACK_REQ;
	p->path = 63;
	p->src_epoch = 0x11223344;
	p->dst_epoch = 0xa0b0c0d0;
	p->psn = 0xfffffff0;
}

static void expect_common(struct kunit *test, const struct mroce_pkt *a,
			  const struct mroce_pkt *b)
{
	KUNIT_EXPECT_EQ(test, a->type, b->type);
	KUNIT_EXPECT_EQ(test, a->flags, b->flags);
	KUNIT_EXPECT_EQ(test, a->path, b->path);
	KUNIT_EXPECT_EQ(test, a->src_epoch, b->src_epoch);
	KUNIT_EXPECT_EQ(test, a->dst_epoch, b->dst_epoch);
	KUNIT_EXPECT_EQ(test, a->psn, b->psn);
}

/* Build a DATA packet for @op with every field of its extension set. */
static size_t build_data(u8 *buf, u8 op, u32 payload, struct mroce_pkt *p)
{
	size_t len;

	fill_common(p, MROCE_PKT_DATA);
	p->dst_qpn = 0x123456;
	p->src_qpn = 0xabcdef;
	p->opcode = op;
	p->gen = 7;
	p->msn = 0x80000001;
	p->ssn = mroce_op_has_ssn(op) ? 0x55667788 : 0;
	p->imm = (op == MROCE_OP_SEND_IMM || op == MROCE_OP_SEND_INV ||
		  op == MROCE_OP_WRITE_IMM) ? 0xdeadbeef : 0;
	if (op >= MROCE_OP_WRITE && op != MROCE_OP_READ_RESP &&
	    op != MROCE_OP_ATOMIC_RESP) {
		p->va = 0x0123456789abcde0ULL;
		p->rkey = 0x1357;
	}
	if (mroce_op_is_atomic(op) || op == MROCE_OP_ATOMIC_RESP) {
		p->swap_add = 0xfedcba9876543210ULL;
		p->msg_len = 8;
	} else {
		p->msg_len = 100000;
		p->offset = payload ? 4096 : 0;
	}
	if (op == MROCE_OP_CMP_SWAP)
		p->compare = 0x0f0f0f0f0f0f0f0fULL;
	if (op == MROCE_OP_READ_REQ)
		p->offset = 0;
	p->payload_len = payload;
	len = mroce_wire_build(buf, p);
	memset(buf + len, 0x5a, payload);
	return len;
}

static void data_round_trip_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mroce_pkt in, out;
	u8 op;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (op = MROCE_OP_SEND; op <= MROCE_OP_MAX; op++) {
		u32 payload = mroce_op_has_payload(op) ? 1024 : 0;
		size_t len = build_data(buf, op, payload, &in);

		KUNIT_EXPECT_EQ(test, len, MROCE_DATA_HDR_LEN + mroce_wire_ext_len(op));
		KUNIT_EXPECT_LE(test, len, op <= MROCE_OP_READ_RESP ?
				MROCE_DATA_HDR_MAX : MROCE_DATA_HDR_LEN + 32);
		KUNIT_EXPECT_EQ(test, mroce_wire_hdr_len(buf, len), (int)len);
		KUNIT_ASSERT_EQ_MSG(test, mroce_wire_parse(buf, len, len + payload, &out),
				    0, "opcode %u", op);
		expect_common(test, &in, &out);
		KUNIT_EXPECT_EQ(test, out.hdr_len, len);
		KUNIT_EXPECT_EQ(test, out.dst_qpn, in.dst_qpn);
		KUNIT_EXPECT_EQ(test, out.src_qpn, in.src_qpn);
		KUNIT_EXPECT_EQ(test, out.opcode, op);
		KUNIT_EXPECT_EQ(test, out.gen, in.gen);
		KUNIT_EXPECT_EQ(test, out.msn, in.msn);
		KUNIT_EXPECT_EQ(test, out.msg_len, in.msg_len);
		KUNIT_EXPECT_EQ(test, out.offset, in.offset);
		KUNIT_EXPECT_EQ(test, out.payload_len, payload);
		KUNIT_EXPECT_EQ(test, out.ssn, in.ssn);
		KUNIT_EXPECT_EQ(test, out.imm, in.imm);
		KUNIT_EXPECT_EQ(test, out.va, in.va);
		KUNIT_EXPECT_EQ(test, out.rkey, in.rkey);
		KUNIT_EXPECT_EQ(test, out.swap_add, in.swap_add);
		KUNIT_EXPECT_EQ(test, out.compare, in.compare);
	}
}

static void data_wire_layout_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mroce_pkt p;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	build_data(buf, MROCE_OP_WRITE_IMM, 0, &p);
	/* Spot-check big-endian placement against the spec's offsets. */
	KUNIT_EXPECT_EQ(test, buf[0], MROCE_WIRE_VERSION << 4);
	KUNIT_EXPECT_EQ(test, buf[1], MROCE_PKT_DATA);
	KUNIT_EXPECT_EQ(test, buf[3], 63);
	KUNIT_EXPECT_EQ(test, buf[4], 0x11);
	KUNIT_EXPECT_EQ(test, buf[12], 0xff);
	KUNIT_EXPECT_EQ(test, buf[17], 0x12);	/* dst_qpn 0x123456 */
	KUNIT_EXPECT_EQ(test, buf[24], MROCE_OP_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, buf[25], 7);
	KUNIT_EXPECT_EQ(test, buf[28], 0x80);	/* msn */
	KUNIT_EXPECT_EQ(test, buf[40], 0x01);	/* va */
	KUNIT_EXPECT_EQ(test, buf[51], 0x57);	/* rkey low byte */
	KUNIT_EXPECT_EQ(test, buf[52], 0xde);	/* imm */
	KUNIT_EXPECT_EQ(test, buf[56], 0x55);	/* ssn */
	KUNIT_EXPECT_EQ(test, buf[60] | buf[61] | buf[62] | buf[63], 0);
}

static void ack_round_trip_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mroce_ack_stream rec, back;
	struct mroce_pkt in, out;
	u8 sack[MROCE_SACK_BITS / 8];
	unsigned int i;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < sizeof(sack); i++)
		sack[i] = i * 37;
	fill_common(&in, MROCE_PKT_ACK);
	in.sack = sack;
	in.ce_count = 0xfffe;
	in.share = 0x8000;
	in.capacity = 0xabcdef;
	in.nstreams = MROCE_ACK_MAX_STREAMS;
	len = mroce_wire_build(buf, &in);
	KUNIT_EXPECT_EQ(test, len, MROCE_ACK_HDR_LEN + 64 * 16);
	/* "ACK": share at 50, nstreams at 52, capacity at 53, big-endian. */
	KUNIT_EXPECT_EQ(test, buf[50], 0x80);
	KUNIT_EXPECT_EQ(test, buf[51], 0x00);
	KUNIT_EXPECT_EQ(test, buf[52], MROCE_ACK_MAX_STREAMS);
	KUNIT_EXPECT_EQ(test, buf[53], 0xab);
	KUNIT_EXPECT_EQ(test, buf[54], 0xcd);
	KUNIT_EXPECT_EQ(test, buf[55], 0xef);
	for (i = 0; i < in.nstreams; i++) {
		rec = (struct mroce_ack_stream) {
			.qpn = i + 0x100, .msn_done = ~i, .nak_msn = i * 3,
			.nak = i % (MROCE_NAK_MAX + 1), .nak_gen = i,
			.rnr_timer = i % 32,
		};
		mroce_wire_put_stream(buf, i, &rec);
	}
	KUNIT_EXPECT_EQ(test, mroce_wire_hdr_len(buf, MROCE_ACK_HDR_LEN), (int)len);
	KUNIT_ASSERT_EQ(test, mroce_wire_parse(buf, len, len, &out), 0);
	expect_common(test, &in, &out);
	KUNIT_EXPECT_EQ(test, memcmp(out.sack, sack, sizeof(sack)), 0);
	KUNIT_EXPECT_EQ(test, out.ce_count, 0xfffe);
	KUNIT_EXPECT_EQ(test, out.share, 0x8000);
	KUNIT_EXPECT_EQ(test, out.capacity, 0xabcdef);
	KUNIT_ASSERT_EQ(test, out.nstreams, MROCE_ACK_MAX_STREAMS);
	for (i = 0; i < out.nstreams; i++) {
		mroce_wire_ack_stream(&out, i, &back);
		KUNIT_EXPECT_EQ(test, back.qpn, i + 0x100);
		KUNIT_EXPECT_EQ(test, back.msn_done, ~i);
		KUNIT_EXPECT_EQ(test, back.nak_msn, i * 3);
		KUNIT_EXPECT_EQ(test, back.nak, i % (MROCE_NAK_MAX + 1));
		KUNIT_EXPECT_EQ(test, back.nak_gen, i);
		KUNIT_EXPECT_EQ(test, back.rnr_timer, i % 32);
	}
}

static void control_round_trip_test(struct kunit *test)
{
	u8 buf[64] = {};
	struct mroce_pkt in, out;
	size_t len;

	fill_common(&in, MROCE_PKT_HELLO);
	in.psn = 0;
	in.paths = 8;
	len = mroce_wire_build(buf, &in);
	KUNIT_EXPECT_EQ(test, len, MROCE_HELLO_LEN);
	KUNIT_ASSERT_EQ(test, mroce_wire_parse(buf, len, len, &out), 0);
	expect_common(test, &in, &out);
	KUNIT_EXPECT_EQ(test, out.paths, 8);

	fill_common(&in, MROCE_PKT_PROBE);
	in.flags = MROCE_F_ROUTE;
	in.probe_qpn = 0x00abcdef;
	len = mroce_wire_build(buf, &in);
	KUNIT_EXPECT_EQ(test, len, MROCE_PROBE_LEN);
	/* A route probe: flag ROUTE is bit 3 of byte 2. */
	KUNIT_EXPECT_EQ(test, buf[2], 0x08);
	KUNIT_ASSERT_EQ(test, mroce_wire_parse(buf, len, len, &out), 0);
	expect_common(test, &in, &out);
	KUNIT_EXPECT_EQ(test, out.flags, MROCE_F_ROUTE);
	KUNIT_EXPECT_EQ(test, out.probe_qpn, 0x00abcdef);
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len - 1, len - 1, &out), -EINVAL);
}

static void datagram_round_trip_test(struct kunit *test)
{
	static const u8 body[16] = {
		0x00, 0x00, 0x00, 0x01,	/* dst_qpn */
		0x00, 0x12, 0x34, 0x56,	/* src_qpn */
		0x80, 0x01, 0x00, 0x00,	/* qkey */
		0xde, 0xad, 0xbe, 0xef,	/* imm */
	};
	u8 buf[64] = {};
	struct mroce_pkt in = {}, out;
	size_t len;

	in.type = MROCE_PKT_DATAGRAM;
	in.flags = MROCE_F_IMM | MROCE_F_SOLICITED;
	in.dst_qpn = 1;
	in.src_qpn = 0xff123456;	/* high byte is reserved */
	in.qkey = 0x80010000;
	in.imm = 0xdeadbeef;
	len = mroce_wire_build(buf, &in);
	KUNIT_ASSERT_EQ(test, len, MROCE_DGRAM_HDR_LEN);
	KUNIT_EXPECT_EQ(test, buf[1], MROCE_PKT_DATAGRAM);
	KUNIT_EXPECT_EQ(test, memcmp(buf + MROCE_HDR_LEN, body, sizeof(body)), 0);

	/* 20 payload bytes follow the header. */
	KUNIT_ASSERT_EQ(test, mroce_wire_parse(buf, len, len + 20, &out), 0);
	expect_common(test, &in, &out);
	KUNIT_EXPECT_EQ(test, out.dst_qpn, 1);
	KUNIT_EXPECT_EQ(test, out.src_qpn, 0x123456);
	KUNIT_EXPECT_EQ(test, out.qkey, 0x80010000);
	KUNIT_EXPECT_EQ(test, out.imm, 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, out.hdr_len, MROCE_DGRAM_HDR_LEN);
	KUNIT_EXPECT_EQ(test, out.payload_len, 20);

	/* Without the IMM flag the field goes out as zero. */
	in.flags = 0;
	mroce_wire_build(buf, &in);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + 28), 0);
	/* A cut body is refused. */
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len - 1, len - 1, &out), -EINVAL);
}

/*
 * A valid packet with one byte changed (@at, set to @val, or OR-ed with
 * @or) and/or its lengths shortened or stretched must be refused.
 */
struct reject_case {
	const char *what;
	u8 op;
	u32 payload;
	int at;		/* byte to change, -1 for none */
	u8 val;
	u8 or;
	int hdr_delta;	/* added to the contiguous header length */
	int pkt_delta;	/* added to the packet length */
	int pkt_fixed;	/* if non-zero: the packet length */
};

static const struct reject_case reject_cases[] = {
	{ "version 1", MROCE_OP_SEND, 64, 0, 0x10 },
	{ "version 3", MROCE_OP_SEND, 64, 0, 0x30 },
	{ "type 9", MROCE_OP_SEND, 64, 1, 9 },
	{ "path 64", MROCE_OP_SEND, 64, 3, 64 },
	{ "opcode 0", MROCE_OP_SEND, 64, 24, 0 },
	{ "opcode 11", MROCE_OP_SEND, 64, 24, 11 },
	{ "truncated WRITE_IMM", MROCE_OP_WRITE_IMM, 0, -1, .hdr_delta = -1,
	  .pkt_delta = -1 },
	{ "truncated CMP_SWAP", MROCE_OP_CMP_SWAP, 0, -1, .hdr_delta = -1,
	  .pkt_delta = -1 },
	{ "common header cut", MROCE_OP_SEND, 0, -1, .pkt_fixed = 15 },
	{ "offset past msg_len", MROCE_OP_WRITE, 64, 36, 0x7f },
	{ "payload past msg_len", MROCE_OP_SEND, 64, -1, .pkt_delta = 100000 },
	{ "header past packet", MROCE_OP_SEND, 0, -1, .pkt_delta = -1 },
	{ "READ_REQ with payload", MROCE_OP_READ_REQ, 0, -1, .pkt_delta = 1 },
	{ "ATOMIC_RESP with payload", MROCE_OP_ATOMIC_RESP, 0, -1, .pkt_delta = 1 },
	{ "misaligned atomic", MROCE_OP_FETCH_ADD, 0, 47, .or = 4 },
	{ "atomic msg_len 16", MROCE_OP_CMP_SWAP, 0, 35, 16 },
	{ "READ_REQ offset 1", MROCE_OP_READ_REQ, 0, 39, 1 },
};

static void data_reject_test(struct kunit *test)
{
	const struct reject_case *c;
	u8 buf[SMALL];
	struct mroce_pkt p;
	size_t len, pkt_len;

	for (c = reject_cases; c < reject_cases + ARRAY_SIZE(reject_cases); c++) {
		len = build_data(buf, c->op, c->payload, &p);
		pkt_len = len + c->payload + c->pkt_delta;
		len += c->hdr_delta;
		if (c->pkt_fixed) {
			len = c->pkt_fixed;
			pkt_len = c->pkt_fixed;
		}
		if (c->at >= 0)
			buf[c->at] = c->or ? buf[c->at] | c->or : c->val;
		KUNIT_EXPECT_EQ_MSG(test, mroce_wire_parse(buf, len, pkt_len, &p),
				    -EINVAL, "%s", c->what);
	}
}

static void empty_packet_of_nonempty_message_test(struct kunit *test)
{
	u8 buf[SMALL];
	struct mroce_pkt p;
	size_t len;

	/* A zero-length message is one empty packet... */
	len = build_data(buf, MROCE_OP_WRITE_IMM, 0, &p);
	memset(buf + 32, 0, 8);		/* msg_len 0, offset 0 */
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len, len, &p), 0);
	KUNIT_EXPECT_EQ(test, p.msg_len, 0);
	/* ...but a packet of a non-empty message must carry bytes. */
	buf[35] = 10;
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len, len, &p), -EINVAL);
}

static void control_reject_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	u8 sack[MROCE_SACK_BITS / 8] = {};
	struct mroce_ack_stream rec = { .nak = MROCE_NAK_MAX + 1 };
	struct mroce_pkt p;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fill_common(&p, MROCE_PKT_ACK);
	p.sack = sack;
	p.nstreams = 1;
	len = mroce_wire_build(buf, &p);
	mroce_wire_put_stream(buf, 0, &rec);
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len, len, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len - 1, len - 1, &p), -EINVAL);

	buf[MROCE_HDR_LEN + offsetof(struct mroce_ack_hdr, nstreams)] = 65;
	KUNIT_EXPECT_EQ(test, mroce_wire_hdr_len(buf, MROCE_ACK_HDR_LEN), -EINVAL);

	fill_common(&p, MROCE_PKT_HELLO);
	p.paths = 0;
	len = mroce_wire_build(buf, &p);
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len, len, &p), -EINVAL);
	p.type = MROCE_PKT_HELLO;
	p.paths = MROCE_MAX_PATHS + 1;
	len = mroce_wire_build(buf, &p);
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len, len, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len - 1, len - 1, &p), -EINVAL);
}

/* A source epoch of 0 is malformed but in a DATAGRAM (id HDR-EPOCH). */
static void epoch_zero_test(struct kunit *test)
{
	static const u8 types[] = { MROCE_PKT_DATA, MROCE_PKT_ACK,
				    MROCE_PKT_HELLO, MROCE_PKT_PROBE };
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	u8 sack[MROCE_SACK_BITS / 8] = {};
	struct mroce_pkt p;
	unsigned int i;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		fill_common(&p, types[i]);
		p.sack = sack;
		p.paths = 1;
		p.opcode = MROCE_OP_SEND;
		len = mroce_wire_build(buf, &p);
		KUNIT_EXPECT_EQ_MSG(test, mroce_wire_parse(buf, len, len, &p), 0,
				    "type %u", types[i]);
		put_unaligned_be32(0, buf + 4);
		KUNIT_EXPECT_EQ_MSG(test, mroce_wire_parse(buf, len, len, &p),
				    -EINVAL, "type %u", types[i]);
	}
	fill_common(&p, MROCE_PKT_DATAGRAM);
	p.src_epoch = 0;
	len = mroce_wire_build(buf, &p);
	KUNIT_EXPECT_EQ(test, mroce_wire_parse(buf, len, len, &p), 0);
}

static void hdr_len_grows_test(struct kunit *test)
{
	u8 buf[SMALL];
	struct mroce_pkt p;

	build_data(buf, MROCE_OP_CMP_SWAP, 0, &p);
	KUNIT_EXPECT_EQ(test, mroce_wire_hdr_len(buf, 0), (int)MROCE_HDR_LEN);
	KUNIT_EXPECT_EQ(test, mroce_wire_hdr_len(buf, MROCE_HDR_LEN),
			(int)MROCE_DATA_HDR_LEN);
	KUNIT_EXPECT_EQ(test, mroce_wire_hdr_len(buf, MROCE_DATA_HDR_LEN),
			(int)MROCE_DATA_HDR_LEN + 32);
}

/*
 * Random bytes must never be read outside the packet, and whatever the
 * parser accepts must be self-consistent.
 */
static void garbage_test(struct kunit *test)
{
	struct rnd_state rnd;
	u8 *buf = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
	struct mroce_pkt p;
	unsigned int i, accepted = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 20000; i++) {
		size_t pkt_len = prandom_u32_state(&rnd) % 200;
		int need;

		prandom_bytes_state(&rnd, buf, pkt_len);
		/* Half the time, make the common header plausible. */
		if (i & 1 && pkt_len >= 2) {
			buf[0] = MROCE_WIRE_VERSION << 4;
			buf[1] = 1 + prandom_u32_state(&rnd) % 5;
			if (pkt_len >= 25)
				buf[24] = prandom_u32_state(&rnd) % 12;
		}
		need = mroce_wire_hdr_len(buf, pkt_len);
		if (need < 0 || need > pkt_len)
			continue;
		if (mroce_wire_parse(buf, need, pkt_len, &p))
			continue;
		accepted++;
		KUNIT_EXPECT_LE(test, p.hdr_len, pkt_len);
		KUNIT_EXPECT_LT(test, p.path, MROCE_MAX_PATHS);
		if (p.type == MROCE_PKT_DATA || p.type == MROCE_PKT_DATAGRAM) {
			KUNIT_EXPECT_EQ(test, p.hdr_len + p.payload_len, pkt_len);
			KUNIT_EXPECT_LE(test, (u64)p.offset + p.payload_len,
					(u64)p.msg_len);
		}
	}
	/* The plausible half must reach every branch, not bounce at the top. */
	KUNIT_EXPECT_GT(test, accepted, 100U);
}

static struct kunit_case mroce_wire_cases[] = {
	KUNIT_CASE(data_round_trip_test),
	KUNIT_CASE(data_wire_layout_test),
	KUNIT_CASE(ack_round_trip_test),
	KUNIT_CASE(control_round_trip_test),
	KUNIT_CASE(datagram_round_trip_test),
	KUNIT_CASE(data_reject_test),
	KUNIT_CASE(empty_packet_of_nonempty_message_test),
	KUNIT_CASE(control_reject_test),
	KUNIT_CASE(epoch_zero_test),
	KUNIT_CASE(hdr_len_grows_test),
	KUNIT_CASE(garbage_test),
	{}
};

static struct kunit_suite mroce_wire_suite = {
	.name = "mroce-wire",
	.test_cases = mroce_wire_cases,
};

kunit_test_suite(mroce_wire_suite);

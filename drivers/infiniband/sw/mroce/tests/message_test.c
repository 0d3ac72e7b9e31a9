// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a stream's message state (message.c), as
 * Documentation/wire-protocol.rst, "Placement" and "RNR", states it: the
 * responder's window (which packets are placed, in which generation, and
 * when msn_done may pass a message) and the requester's messages (cut
 * into packets, sent again after an RNR NAK, completed by a READ's
 * response).
 */
#include <kunit/test.h>

#include "../message.h"

#define W	MROCE_STREAM_WINDOW

static struct mroce_rmsg win[W];

static struct mroce_pkt pkt(u8 opcode, u32 msn, u8 gen, u32 len, u32 offset,
			    u32 payload)
{
	return (struct mroce_pkt){
		.type = MROCE_PKT_DATA,
		.opcode = opcode,
		.msn = msn,
		.gen = gen,
		.msg_len = len,
		.offset = offset,
		.payload_len = payload,
		.ssn = msn + 100,
	};
}

/* Place @p whole if the window takes it; true if it completed a message. */
static bool place(u32 done, struct mroce_pkt p)
{
	struct mroce_rmsg *m = mroce_rmsg_accept(win, done, &p);

	return m && mroce_rmsg_placed(m, p.payload_len);
}

/*
 * Packets of two messages arrive interleaved and out of order; msn_done
 * passes the first only when it is whole, then the second.
 */
static void window_order_test(struct kunit *test)
{
	struct mroce_pkt p = pkt(MROCE_OP_SEND, 0, 0, 3000, 0, 1000);
	struct mroce_rmsg *m;

	memset(win, 0, sizeof(win));
	KUNIT_EXPECT_NULL(test, mroce_rmsg_oldest(win, 0));
	/* Message 1, one packet, arrives first and is complete at once. */
	KUNIT_EXPECT_TRUE(test, place(0, pkt(MROCE_OP_SEND, 1, 0, 1000, 0, 1000)));
	m = mroce_rmsg_accept(win, 0, &p);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_EXPECT_TRUE(test, m->recv);
	KUNIT_EXPECT_EQ(test, m->ssn, 100);
	KUNIT_EXPECT_FALSE(test, mroce_rmsg_placed(m, 1000));
	KUNIT_EXPECT_FALSE(test, place(0, pkt(MROCE_OP_SEND, 0, 0, 3000, 2000, 1000)));

	/* Message 1 is complete, but message 0 is not: msn_done waits. */
	m = mroce_rmsg_oldest(win, 0);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_EXPECT_EQ(test, m->state, MROCE_RMSG_ACTIVE);
	KUNIT_EXPECT_EQ(test, win[1].state, MROCE_RMSG_DONE);

	KUNIT_EXPECT_TRUE(test, place(0, pkt(MROCE_OP_SEND, 0, 0, 3000, 1000, 1000)));
	m = mroce_rmsg_oldest(win, 0);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_EXPECT_EQ(test, m->state, MROCE_RMSG_DONE);
	m->state = MROCE_RMSG_FREE;
	m = mroce_rmsg_oldest(win, 1);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_EXPECT_EQ(test, m->state, MROCE_RMSG_DONE);
	m->state = MROCE_RMSG_FREE;
	KUNIT_EXPECT_NULL(test, mroce_rmsg_oldest(win, 2));

	/* A zero-length message is complete with its only packet. */
	KUNIT_EXPECT_TRUE(test, place(2, pkt(MROCE_OP_WRITE, 2, 0, 0, 0, 0)));
}

/* id PLACE-DROP: complete messages, and beyond the window, are dropped. */
static void window_bounds_test(struct kunit *test)
{
	struct mroce_pkt p;

	memset(win, 0, sizeof(win));
	p = pkt(MROCE_OP_WRITE, 9, 0, 100, 0, 100);
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 10, &p));
	p = pkt(MROCE_OP_WRITE, 10 + W, 0, 100, 0, 100);
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 10, &p));
	p = pkt(MROCE_OP_WRITE, 10 + W - 1, 0, 100, 0, 100);
	KUNIT_EXPECT_NOT_NULL(test, mroce_rmsg_accept(win, 10, &p));
	/* Sequence numbers wrap. */
	p = pkt(MROCE_OP_WRITE, 3, 0, 100, 0, 100);
	KUNIT_EXPECT_NOT_NULL(test, mroce_rmsg_accept(win, U32_MAX - 5, &p));

	/* A message's packets agree on its length and opcode. */
	memset(win, 0, sizeof(win));
	KUNIT_EXPECT_FALSE(test, place(0, pkt(MROCE_OP_WRITE, 0, 0, 2000, 0, 1000)));
	p = pkt(MROCE_OP_WRITE, 0, 0, 3000, 1000, 1000);
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 0, &p));
	p = pkt(MROCE_OP_SEND, 0, 0, 2000, 1000, 1000);
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 0, &p));
	/* Complete, it takes no more packets. */
	KUNIT_EXPECT_TRUE(test, place(0, pkt(MROCE_OP_WRITE, 0, 0, 2000, 1000, 1000)));
	p = pkt(MROCE_OP_WRITE, 0, 0, 2000, 1000, 1000);
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 0, &p));
}

/*
 * ids RNR-NAK, RNR-GEN: a generation NAKed RNR is dropped, the next one
 * starts the message over, an older one is dropped.
 */
static void generation_test(struct kunit *test)
{
	struct mroce_pkt p = pkt(MROCE_OP_SEND, 0, 0, 2000, 0, 1000);
	struct mroce_rmsg *m;

	memset(win, 0, sizeof(win));
	m = mroce_rmsg_accept(win, 0, &p);
	KUNIT_ASSERT_NOT_NULL(test, m);
	m->rnr = true;
	p.offset = 1000;
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 0, &p));

	p = pkt(MROCE_OP_SEND, 0, 1, 2000, 1000, 1000);
	p.flags = MROCE_F_SOLICITED;
	KUNIT_EXPECT_PTR_EQ(test, mroce_rmsg_accept(win, 0, &p), m);
	KUNIT_EXPECT_FALSE(test, m->rnr);
	KUNIT_EXPECT_EQ(test, m->gen, 1);
	KUNIT_EXPECT_TRUE(test, m->solicited);
	KUNIT_EXPECT_FALSE(test, mroce_rmsg_placed(m, 1000));

	p = pkt(MROCE_OP_SEND, 0, 0, 2000, 0, 1000);
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 0, &p));
	/* Generations wrap at 256: 0 is newer than 255, and starts over. */
	m->gen = 255;
	m->rnr = true;
	KUNIT_EXPECT_EQ(test, m->placed, 1000);
	p.gen = 0;
	KUNIT_EXPECT_PTR_EQ(test, mroce_rmsg_accept(win, 0, &p), m);
	KUNIT_EXPECT_EQ(test, m->gen, 0);
	KUNIT_EXPECT_EQ(test, m->placed, 0);
	KUNIT_EXPECT_FALSE(test, m->rnr);
}

/* ids PLACE-READ, PLACE-ATOMIC: a request is recorded, then dropped. */
static void request_test(struct kunit *test)
{
	struct mroce_pkt p = pkt(MROCE_OP_READ_REQ, 0, 0, 4096, 0, 0);
	struct mroce_rmsg *m;

	memset(win, 0, sizeof(win));
	p.va = 0x1000;
	p.rkey = 7;
	p.swap_add = 5;
	p.compare = 9;
	m = mroce_rmsg_accept(win, 0, &p);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_EXPECT_FALSE(test, m->recv);
	mroce_rmsg_request(m, &p);
	KUNIT_EXPECT_EQ(test, m->state, MROCE_RMSG_REQUEST);
	KUNIT_EXPECT_EQ(test, m->va, 0x1000);
	KUNIT_EXPECT_EQ(test, m->rkey, 7);
	KUNIT_EXPECT_EQ(test, m->swap_add, 5);
	KUNIT_EXPECT_EQ(test, m->compare, 9);
	KUNIT_EXPECT_PTR_EQ(test, mroce_rmsg_oldest(win, 0), m);
	KUNIT_EXPECT_NULL(test, mroce_rmsg_accept(win, 0, &p));
}

/* A message is cut into packets of the MTU; a request into one, empty. */
static void cut_test(struct kunit *test)
{
	struct mroce_smsg m;
	u32 off;

	mroce_smsg_init(&m, 5, 2, 2500, 3);
	KUNIT_EXPECT_EQ(test, mroce_smsg_cut(&m, 1024, false, &off), 1024);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_PENDING);
	KUNIT_EXPECT_EQ(test, mroce_smsg_cut(&m, 1024, false, &off), 1024);
	KUNIT_EXPECT_EQ(test, off, 1024);
	KUNIT_EXPECT_EQ(test, mroce_smsg_cut(&m, 1024, false, &off), 452);
	KUNIT_EXPECT_EQ(test, off, 2048);
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_SENT);

	mroce_smsg_init(&m, 6, 0, 0, 3);
	KUNIT_EXPECT_EQ(test, mroce_smsg_cut(&m, 1024, false, &off), 0);
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_SENT);

	/* A READ of 8 KiB: one request packet, then its response's bytes. */
	mroce_smsg_init(&m, 7, 0, 8192, 3);
	KUNIT_EXPECT_EQ(test, mroce_smsg_cut(&m, 1024, true, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, m.sent, 0);	/* a request sent is not a byte */
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_SENT);
	KUNIT_EXPECT_FALSE(test, mroce_smsg_placed(&m, 4096));
	KUNIT_EXPECT_TRUE(test, mroce_smsg_placed(&m, 4096));
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_DONE);
}

/* ids RNR-RESEND, RNR-RETRY. */
static void rnr_test(struct kunit *test)
{
	struct mroce_smsg m;
	u32 off;

	mroce_smsg_init(&m, 1, 1, 2048, 1);
	mroce_smsg_cut(&m, 1024, false, &off);
	mroce_smsg_cut(&m, 1024, false, &off);
	KUNIT_EXPECT_TRUE(test, mroce_smsg_rnr(&m, 100, 640));
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_RNR_WAIT);
	KUNIT_EXPECT_FALSE(test, mroce_smsg_resume(&m, 739));
	KUNIT_EXPECT_TRUE(test, mroce_smsg_resume(&m, 740));
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_PENDING);
	KUNIT_EXPECT_EQ(test, m.gen, 1);
	KUNIT_EXPECT_EQ(test, mroce_smsg_cut(&m, 1024, false, &off), 1024);
	KUNIT_EXPECT_EQ(test, off, 0);
	mroce_smsg_cut(&m, 1024, false, &off);
	/* The one retry is spent. */
	KUNIT_EXPECT_FALSE(test, mroce_smsg_rnr(&m, 800, 640));
	KUNIT_EXPECT_EQ(test, m.state, MROCE_SMSG_DONE);

	/* 7 retries without limit. */
	mroce_smsg_init(&m, 2, 2, 10, 7);
	m.state = MROCE_SMSG_SENT;
	KUNIT_EXPECT_TRUE(test, mroce_smsg_rnr(&m, 0, 10));
	KUNIT_EXPECT_EQ(test, m.rnr_left, 7);
	KUNIT_EXPECT_FALSE(test, mroce_smsg_resume(&m, 9));
}

/* A record's msn_done counts only forward, and not past what was sent. */
static void progress_test(struct kunit *test)
{
	u32 done = 10;

	KUNIT_EXPECT_FALSE(test, mroce_msg_progress(&done, 20, 10));
	KUNIT_EXPECT_FALSE(test, mroce_msg_progress(&done, 20, 9));
	KUNIT_EXPECT_FALSE(test, mroce_msg_progress(&done, 20, 21));
	KUNIT_EXPECT_EQ(test, done, 10);
	KUNIT_EXPECT_TRUE(test, mroce_msg_progress(&done, 20, 20));
	KUNIT_EXPECT_EQ(test, done, 20);
	done = U32_MAX;
	KUNIT_EXPECT_TRUE(test, mroce_msg_progress(&done, 3, 2));
	KUNIT_EXPECT_EQ(test, done, 2);
}

static struct kunit_case mroce_message_cases[] = {
	KUNIT_CASE(window_order_test),
	KUNIT_CASE(window_bounds_test),
	KUNIT_CASE(generation_test),
	KUNIT_CASE(request_test),
	KUNIT_CASE(cut_test),
	KUNIT_CASE(rnr_test),
	KUNIT_CASE(progress_test),
	{}
};

static struct kunit_suite mroce_message_suite = {
	.name = "mroce-message",
	.test_cases = mroce_message_cases,
};

kunit_test_suite(mroce_message_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for mroce's path logic (path.c): the receive window with
 * gaps, duplicates and wrap-around, selective-ACK loss detection, the
 * RTT estimator, timeouts, ECN window decrease, and a lossy channel in
 * which every packet must arrive exactly once.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "../path.h"

static struct mroce_rxwin *new_rxwin(struct kunit *test, u32 cum)
{
	struct mroce_rxwin *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->cum = cum;
	return w;
}

static struct mroce_txpath *new_txpath(struct kunit *test)
{
	struct mroce_txpath *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	mroce_txpath_init(tp, 100, 0);
	return tp;
}

static void rx_in_order_test(struct kunit *test)
{
	struct mroce_rxwin *w = new_rxwin(test, 0);
	u32 psn;

	for (psn = 0; psn < 1000; psn++) {
		KUNIT_ASSERT_EQ(test, mroce_rxwin_check(w, psn), MROCE_RX_NEW);
		KUNIT_EXPECT_TRUE(test, mroce_rxwin_record(w, psn));
	}
	KUNIT_EXPECT_EQ(test, w->cum, 1000);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(w->map, MROCE_SACK_BITS));
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 999), MROCE_RX_DUP);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 0), MROCE_RX_DUP);
}

static void rx_gaps_and_dups_test(struct kunit *test)
{
	struct mroce_rxwin *w = new_rxwin(test, 100);

	KUNIT_EXPECT_FALSE(test, mroce_rxwin_record(w, 102));
	KUNIT_EXPECT_FALSE(test, mroce_rxwin_record(w, 103));
	KUNIT_EXPECT_FALSE(test, mroce_rxwin_record(w, 105));
	KUNIT_EXPECT_EQ(test, w->cum, 100);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 102), MROCE_RX_DUP);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 101), MROCE_RX_NEW);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 104), MROCE_RX_NEW);

	/* Filling 100 moves the cumulative point only to the next hole. */
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_record(w, 100));
	KUNIT_EXPECT_EQ(test, w->cum, 101);
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_record(w, 101));
	KUNIT_EXPECT_EQ(test, w->cum, 104);
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_record(w, 104));
	KUNIT_EXPECT_EQ(test, w->cum, 106);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(w->map, MROCE_SACK_BITS));
}

static void rx_window_edge_test(struct kunit *test)
{
	struct mroce_rxwin *w = new_rxwin(test, 5000);

	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 5000 + 256), MROCE_RX_NEW);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 5000 + 257), MROCE_RX_OUTSIDE);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 5000U + 0x7fffffffU), MROCE_RX_OUTSIDE);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 4999), MROCE_RX_DUP);
	KUNIT_EXPECT_FALSE(test, mroce_rxwin_record(w, 5000 + 257));
	KUNIT_EXPECT_TRUE(test, bitmap_empty(w->map, MROCE_SACK_BITS));

	/* A full window collapses in one step when its hole is filled. */
	for (u32 psn = 5001; psn <= 5256; psn++)
		mroce_rxwin_record(w, psn);
	KUNIT_EXPECT_TRUE(test, bitmap_full(w->map, MROCE_SACK_BITS));
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_record(w, 5000));
	KUNIT_EXPECT_EQ(test, w->cum, 5257);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(w->map, MROCE_SACK_BITS));
}

static void rx_wraparound_test(struct kunit *test)
{
	struct mroce_rxwin *w = new_rxwin(test, 0xfffffffe);

	KUNIT_EXPECT_FALSE(test, mroce_rxwin_record(w, 1));
	KUNIT_EXPECT_FALSE(test, mroce_rxwin_record(w, 0xffffffff));
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 1), MROCE_RX_DUP);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 0), MROCE_RX_NEW);
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_record(w, 0xfffffffe));
	KUNIT_EXPECT_EQ(test, w->cum, 0);
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_record(w, 0));
	KUNIT_EXPECT_EQ(test, w->cum, 2);
	KUNIT_EXPECT_EQ(test, mroce_rxwin_check(w, 0xfffffffe), MROCE_RX_DUP);
}

static void rx_sack_encoding_test(struct kunit *test)
{
	struct mroce_rxwin *w = new_rxwin(test, 10);
	u8 sack[MROCE_SACK_BITS / 8];
	unsigned int i;

	mroce_rxwin_record(w, 11);	/* bit 0 */
	mroce_rxwin_record(w, 19);	/* bit 8 */
	mroce_rxwin_record(w, 10 + 256);	/* bit 255 */
	mroce_rxwin_sack(w, sack);
	KUNIT_EXPECT_EQ(test, sack[0], 0x01);
	KUNIT_EXPECT_EQ(test, sack[1], 0x01);
	KUNIT_EXPECT_EQ(test, sack[31], 0x80);
	for (i = 2; i < 31; i++)
		KUNIT_EXPECT_EQ(test, sack[i], 0);
}

static void count_acked(void *ctx, void *arg)
{
	unsigned int *counts = arg;

	counts[(uintptr_t)ctx]++;
}

static void tx_cumulative_ack_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[11] = {};
	u8 sack[32] = {};
	u32 lost[8];
	uintptr_t i;

	for (i = 1; i <= 10; i++)
		KUNIT_EXPECT_EQ(test, mroce_txpath_send(tp, 1000 + i, (void *)i), i - 1);
	KUNIT_EXPECT_EQ(test, mroce_txpath_inflight(tp), 10);
	KUNIT_ASSERT_EQ(test, mroce_txpath_ack(tp, 1500, 10, sack, 0, count_acked,
					       counts, lost, 8, &res), 0);
	KUNIT_EXPECT_EQ(test, res.acked, 10);
	KUNIT_EXPECT_EQ(test, res.lost, 0);
	KUNIT_EXPECT_EQ(test, res.rtt_us, 490);	/* newest packet, sent at 1010 */
	KUNIT_EXPECT_EQ(test, tp->una, 10);
	for (i = 1; i <= 10; i++)
		KUNIT_EXPECT_EQ(test, counts[i], 1);
	/* A repeated ACK changes nothing; an ACK of unsent data is refused. */
	mroce_txpath_ack(tp, 1600, 10, sack, 0, count_acked, counts, lost, 8, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 0);
	KUNIT_EXPECT_EQ(test, mroce_txpath_ack(tp, 1600, 11, sack, 0, count_acked,
					       counts, lost, 8, &res), -EINVAL);
}

static void tx_selective_loss_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[11] = {};
	u8 sack[32] = {};
	u32 lost[8];
	uintptr_t i;

	for (i = 1; i <= 10; i++)
		mroce_txpath_send(tp, 1000 + i, (void *)i);
	/* psn 3 missing, 4..9 received: bits 0..5 after cum 3. */
	sack[0] = 0x3f;
	mroce_txpath_ack(tp, 1500, 3, sack, 0, count_acked, counts, lost, 8, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 9);
	KUNIT_ASSERT_EQ(test, res.lost, 1);
	KUNIT_EXPECT_EQ(test, lost[0], 3);
	KUNIT_EXPECT_EQ(test, tp->una, 3);
	KUNIT_EXPECT_EQ(test, counts[4], 0);
	KUNIT_EXPECT_EQ(test, mroce_txpath_slot(tp, 3)->state, MROCE_SLOT_LOST);
	KUNIT_EXPECT_EQ(test, tp->lost, 1);

	/* The same ACK again does not report the loss twice. */
	mroce_txpath_ack(tp, 1510, 3, sack, 0, count_acked, counts, lost, 8, &res);
	KUNIT_EXPECT_EQ(test, res.lost, 0);

	mroce_txpath_resent(tp, 3, 1520, false);
	memset(sack, 0, sizeof(sack));
	mroce_txpath_ack(tp, 2000, 10, sack, 0, count_acked, counts, lost, 8, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	/* Karn: a resent packet gives no RTT sample. */
	KUNIT_EXPECT_EQ(test, res.rtt_us, 0);
	KUNIT_EXPECT_EQ(test, tp->una, 10);
	for (i = 1; i <= 10; i++)
		KUNIT_EXPECT_EQ(test, counts[i], 1);
}

static void tx_room_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 lost[1];
	unsigned int i;

	KUNIT_EXPECT_EQ(test, mroce_txpath_room(tp), MROCE_CWND_INIT);
	for (i = 0; i < MROCE_CWND_INIT; i++)
		mroce_txpath_send(tp, 0, NULL);
	KUNIT_EXPECT_EQ(test, mroce_txpath_room(tp), 0);

	/* A large window is still bounded by the receiver's 256 packets. */
	tp->cc.cwnd = 10000;
	KUNIT_EXPECT_EQ(test, mroce_txpath_room(tp), MROCE_WINDOW - MROCE_CWND_INIT);
	while (mroce_txpath_room(tp))
		mroce_txpath_send(tp, 0, NULL);
	KUNIT_EXPECT_EQ(test, mroce_txpath_inflight(tp), MROCE_WINDOW);
	/* SACKing all but the first leaves the span full: no room. */
	memset(sack, 0xff, sizeof(sack));
	mroce_txpath_ack(tp, 10, 0, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, mroce_txpath_room(tp), 0);
}

static void rtt_estimator_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);

	KUNIT_EXPECT_EQ(test, tp->rto_us, MROCE_RTO_INIT_US);
	mroce_rtt_sample(tp, 1000);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, 1000);
	KUNIT_EXPECT_EQ(test, tp->rttvar_us, 500);
	KUNIT_EXPECT_EQ(test, tp->rto_us, 3000);
	mroce_rtt_sample(tp, 2000);
	KUNIT_EXPECT_EQ(test, tp->rttvar_us, (3 * 500 + 1000) / 4);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, (7 * 1000 + 2000) / 8);
	/* The floor holds for tiny RTTs. */
	for (int i = 0; i < 50; i++)
		mroce_rtt_sample(tp, 1);
	KUNIT_EXPECT_EQ(test, tp->rto_us, 100);
}

static void tx_timeout_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	u32 psn[4];

	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 0);
	KUNIT_EXPECT_EQ(test, mroce_txpath_timeout(tp, 1000000, 0, psn, 4), 0);
	mroce_txpath_send(tp, 0, NULL);
	mroce_txpath_send(tp, 10, NULL);
	mroce_txpath_send(tp, 20, NULL);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), MROCE_RTO_INIT_US);
	KUNIT_EXPECT_EQ(test, mroce_txpath_timeout(tp, MROCE_RTO_INIT_US - 1, 0, psn, 4), 0);
	/* The first expiry gives up only the oldest packet... */
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, MROCE_RTO_INIT_US, 0, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, psn[0], 0);
	KUNIT_EXPECT_EQ(test, tp->backoff, 1);
	/* ...and halves the window. */
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, MROCE_CWND_INIT / 2);
	KUNIT_EXPECT_EQ(test, mroce_txpath_slot(tp, 0)->expiries, 1);
	KUNIT_EXPECT_EQ(test, mroce_txpath_slot(tp, 1)->state, MROCE_SLOT_INFLIGHT);

	/* Resent at T: next expiry after a doubled RTO; psn 1 is older now. */
	mroce_txpath_resent(tp, 0, MROCE_RTO_INIT_US, false);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 10 + 2 * MROCE_RTO_INIT_US);
	/*
	 * A second expiry in a row while another path got a packet sent
	 * after psn 0 through: the route is dead, everything still on it is
	 * due again, and the window collapses.
	 */
	KUNIT_EXPECT_FALSE(test, tp->dead);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 10 + 2 * MROCE_RTO_INIT_US, 1, psn, 4), 3);
	KUNIT_EXPECT_TRUE(test, tp->dead);
	KUNIT_EXPECT_EQ(test, psn[0], 1);
	KUNIT_EXPECT_EQ(test, psn[1], 0);
	KUNIT_EXPECT_EQ(test, psn[2], 2);
	KUNIT_EXPECT_EQ(test, tp->backoff, 2);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 1);
	KUNIT_EXPECT_EQ(test, tp->cc.ssthresh, MROCE_CWND_INIT / 2);
	KUNIT_EXPECT_EQ(test, tp->lost_pending, 3);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 0);
	KUNIT_EXPECT_EQ(test, mroce_txpath_rto(tp), 4 * MROCE_RTO_INIT_US);
	/* Backoff is capped. */
	tp->backoff = 40;
	KUNIT_EXPECT_EQ(test, mroce_txpath_rto(tp), MROCE_RTO_MAX_US);
}

/*
 * Packets of a dead route are sent by other paths' routes (detoured).
 * Their acknowledgment shows the peer alive, which stops the timer from
 * backing off further, but only delivery over the path's own route ends
 * the timeout episode.
 */
static void detour_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 psn[4], lost[1];
	u64 t = MROCE_RTO_INIT_US;

	mroce_txpath_send(tp, 0, NULL);
	mroce_txpath_send(tp, 0, NULL);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 0, psn, 4), 1);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 2 * t, 1, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, tp->backoff, 2);
	KUNIT_EXPECT_TRUE(test, tp->dead);
	KUNIT_EXPECT_EQ(test, tp->lost_pending, 2);
	mroce_txpath_resent(tp, 0, 2 * t, true);
	mroce_txpath_resent(tp, 1, 2 * t, true);
	KUNIT_EXPECT_TRUE(test, mroce_txpath_slot(tp, 1)->detour);

	/* A detoured packet is acknowledged: backoff falls back to 1. */
	sack[0] = 0x01;
	mroce_txpath_ack(tp, 2 * t + 500, 0, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	KUNIT_EXPECT_EQ(test, tp->backoff, 1);
	KUNIT_EXPECT_TRUE(test, tp->heard);
	KUNIT_EXPECT_TRUE(test, tp->dead);
	/* A detoured packet is not on the dead route: it only expires alone. */
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 10 * t, 0, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, psn[0], 0);
	mroce_txpath_resent(tp, 0, 10 * t, true);
	memset(sack, 0, sizeof(sack));
	mroce_txpath_ack(tp, 10 * t + 500, 2, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, tp->backoff, 1);

	/* A new packet over the path's own route gets through: healthy. */
	mroce_txpath_send(tp, 11 * t, NULL);
	KUNIT_EXPECT_FALSE(test, mroce_txpath_slot(tp, 2)->detour);
	mroce_txpath_ack(tp, 11 * t + 500, 3, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, tp->backoff, 0);
	KUNIT_EXPECT_FALSE(test, tp->dead);
	KUNIT_EXPECT_EQ(test, res.rtt_us, 500);
}

/*
 * A path whose psn 0 (sent at 1) was acknowledged at 5, an RTT of 4, and
 * whose psns 1 and 2 (sent at 10 and 20) are still out.
 */
static struct mroce_txpath *silent_after_one(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 lost[1];

	mroce_txpath_send(tp, 1, NULL);
	mroce_txpath_ack(tp, 5, 1, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, tp->delivered_us, 1);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, 4);
	mroce_txpath_send(tp, 10, NULL);
	mroce_txpath_send(tp, 20, NULL);
	return tp;
}

/*
 * A first expiry is taken for a dead route when other paths delivered a
 * packet sent more than this path's RTT after the expired one while this
 * path delivered nothing sent since, and another of its packets waits:
 * the whole flight is due at once.  Without that evidence only the
 * expired packet is.
 */
static void dead_route_evidence_test(struct kunit *test)
{
	struct mroce_txpath *tp = silent_after_one(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 psn[4], lost[1];
	u64 t = 10 + mroce_txpath_rto(tp);

	/* Others delivered a packet sent at 14, within an RTT: maybe late. */
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 14, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, tp->backoff, 1);
	KUNIT_EXPECT_EQ(test, psn[0], 1);

	/* One sent at 15 covers psn 1 only: psn 2 may still get through. */
	tp = silent_after_one(test);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 15, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, tp->backoff, 1);

	/* One sent at 21: more than an RTT after psn 1, and after psn 2. */
	tp = silent_after_one(test);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 21, psn, 4), 2);
	KUNIT_EXPECT_EQ(test, psn[0], 1);
	KUNIT_EXPECT_EQ(test, psn[1], 2);
	KUNIT_EXPECT_EQ(test, tp->backoff, 2);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 1);
	KUNIT_EXPECT_EQ(test, tp->cc.ssthresh, max(tp->cc.undo_cwnd / 2, 2U));

	/*
	 * The path's own route delivered psn 1: psn 0 alone was lost.  (An
	 * RTT that varies this much keeps it from being overdue, PATH-RACK,
	 * before its RTO.)
	 */
	tp = new_txpath(test);
	mroce_rtt_sample(tp, 1000);
	mroce_txpath_send(tp, 10, NULL);
	mroce_txpath_send(tp, 20, NULL);
	mroce_txpath_send(tp, 25, NULL);
	sack[0] = 0x01;		/* nothing cumulatively; psn 1 selectively */
	mroce_txpath_ack(tp, 30, 0, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, tp->delivered_us, 20);
	t = 10 + mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 1000, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, tp->backoff, 1);

	/*
	 * The route delivered a packet sent in the same microsecond as
	 * psn 1 (many share one): psn 1 and psn 2, sent after it, are
	 * missing, and the evidence holds.
	 */
	tp = silent_after_one(test);
	mroce_txpath_slot(tp, 1)->xmit_us = 1;
	mroce_txpath_slot(tp, 1)->first_us = 1;
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 1 + mroce_txpath_rto(tp),
						   21, psn, 4), 2);
	KUNIT_EXPECT_TRUE(test, tp->dead);

	/* A lone packet in flight: nothing else says the route is dead. */
	tp = new_txpath(test);
	mroce_txpath_send(tp, 10, NULL);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 10 + MROCE_RTO_INIT_US, 1000, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, tp->backoff, 1);

	/* The evidence at 21 again, but psn 1 left by the port before 15. */
	tp = silent_after_one(test);
	mroce_txpath_new_route(tp, 15);
	t = 10 + mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 21, psn, 4), 1);
	KUNIT_EXPECT_FALSE(test, tp->dead);
	mroce_txpath_resent(tp, psn[0], t, false);
	/* psn 2, sent after the move, is evidence when it expires. */
	t = 20 + mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 21, psn, 4), 2);
	KUNIT_EXPECT_EQ(test, psn[0], 2);
	KUNIT_EXPECT_TRUE(test, tp->dead);
}

/*
 * Repeated expiries while nothing is heard from the peer on any path (a
 * stall) are ordinary ones: one packet each, the window halving, the
 * route kept, until the MROCE_BLIND_EXPIRIES-th.  A detoured packet's
 * acknowledgment, or another path's delivery of a packet sent an RTT
 * after the episode began, finds the route dead at the next expiry.
 */
static void silent_peer_test(struct kunit *test)
{
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	unsigned int i, n;
	u8 sack[32] = {};
	u32 psn[4], lost[1];
	struct mroce_txpath *tp;
	u64 t;

	tp = silent_after_one(test);	/* srtt 4; psn 1 and 2 sent at 10, 20 */
	t = 10;
	for (i = 1; i < MROCE_BLIND_EXPIRIES; i++) {
		t += mroce_txpath_rto(tp);
		/* Others delivered a packet sent an RTT after psn 1: no more. */
		n = mroce_txpath_timeout(tp, t, 14, psn, 4);
		KUNIT_ASSERT_EQ_MSG(test, n, 1, "expiry %u", i);
		KUNIT_EXPECT_FALSE_MSG(test, tp->dead, "expiry %u", i);
		KUNIT_EXPECT_EQ(test, tp->backoff, i);
		mroce_txpath_resent(tp, psn[0], t, false);
	}
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 2U);
	/* The last one: the route is taken for dead without evidence. */
	KUNIT_EXPECT_EQ(test, tp->lost_pending, 0);
	t += mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 14, psn, 4), 2);
	KUNIT_EXPECT_TRUE(test, tp->dead);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 1);
	KUNIT_EXPECT_EQ(test, tp->lost_pending, 2);

	/* Another path delivers a packet sent at 15: dead at the second. */
	tp = silent_after_one(test);
	t = 10 + mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 14, psn, 4), 1);
	mroce_txpath_resent(tp, psn[0], t, false);
	t += mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 15, psn, 4), 2);
	KUNIT_EXPECT_TRUE(test, tp->dead);

	/* The detoured resend of psn 1 is acknowledged: dead at the next. */
	tp = silent_after_one(test);
	t = 10 + mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 0, psn, 4), 1);
	mroce_txpath_resent(tp, psn[0], t, true);
	mroce_txpath_ack(tp, t + 4, 2, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	KUNIT_EXPECT_TRUE(test, tp->heard);
	t += mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 0, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, psn[0], 2);
	KUNIT_EXPECT_TRUE(test, tp->dead);
	/* Sent again, then the path moves: its expiry finds nothing dead. */
	mroce_txpath_resent(tp, 2, t, false);
	mroce_txpath_new_route(tp, t + 1);
	t += mroce_txpath_rto(tp);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 0, psn, 4), 1);
	KUNIT_EXPECT_FALSE(test, tp->dead);
}

/*
 * A timeout whose first transmission is then acknowledged sooner than a
 * resend could be was premature: the window cut is undone and the RTT
 * estimator learns the packet's whole delay.
 */
static void spurious_timeout_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 lost[1], psn[1], cwnd, srtt;
	u64 t;

	/* An estimator that believes in 1 ms. */
	mroce_txpath_send(tp, 10, NULL);
	mroce_txpath_ack(tp, 1010, 1, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_ASSERT_EQ(test, tp->srtt_us, 1000);
	cwnd = tp->cc.cwnd;
	srtt = tp->srtt_us;

	mroce_txpath_send(tp, 2000, NULL);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 2000 + tp->rto_us, 0, psn, 1), 1);
	KUNIT_EXPECT_LT(test, tp->cc.cwnd, cwnd);
	mroce_txpath_resent(tp, psn[0], 2000 + tp->rto_us, false);
	/* The original's ACK, 100 us after the resend. */
	mroce_txpath_ack(tp, 2100 + tp->rto_us, 2, sack, 0, count_acked, counts,
			 lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.spurious, 1);
	KUNIT_EXPECT_GE(test, tp->cc.cwnd, cwnd);	/* restored (and grown) */
	KUNIT_EXPECT_GT(test, tp->srtt_us, srtt);

	/* A resend acknowledged a whole RTT later was needed: no undo. */
	mroce_txpath_send(tp, 100000, NULL);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 100000 + tp->rto_us, 0, psn, 1), 1);
	cwnd = tp->cc.cwnd;
	mroce_txpath_resent(tp, psn[0], 100000 + tp->rto_us, false);
	mroce_txpath_ack(tp, 100000 + tp->rto_us + 2 * tp->srtt_us, 3, sack, 0,
			 count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.spurious, 0);
	KUNIT_EXPECT_LE(test, tp->cc.cwnd, cwnd + 1);	/* the cut stays */

	/*
	 * A detoured resend acknowledged quickly: its route may be faster
	 * than the path's own, so that proves nothing of the original.
	 */
	srtt = tp->srtt_us;
	mroce_txpath_send(tp, 200000, NULL);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 200000 + tp->rto_us, 0, psn, 1), 1);
	mroce_txpath_resent(tp, psn[0], 200000 + tp->rto_us, true);
	mroce_txpath_ack(tp, 200100 + tp->rto_us, 4, sack, 0, count_acked,
			 counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.spurious, 0);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, srtt);

	/* First sent on a route the path has left since: the same. */
	mroce_txpath_send(tp, 300000, NULL);
	t = 300000 + mroce_txpath_rto(tp);	/* backed off: the detour only heard */
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, t, 0, psn, 1), 1);
	mroce_txpath_new_route(tp, t);
	mroce_txpath_resent(tp, psn[0], t, false);
	mroce_txpath_ack(tp, t + 100, 5, sack, 0, count_acked, counts, lost, 1,
			 &res);
	KUNIT_EXPECT_EQ(test, res.spurious, 0);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, srtt);
}

/*
 * PATH-RTO-KARN: a first RTO shorter than the round trip (RTT-HELLO's,
 * from an answer that met no queue).  Each packet times out before its
 * ACK, which then gives no sample; the RTO must keep the doubling, or it
 * never learns the round trip.
 */
static void karn_rto_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 lost[1], psn[1];

	tp->rto_us = 300;	/* as mroce_paths_hello_rto() sets it */

	/* Sent at 0, resent at its expiry, acknowledged at the RTT, 500. */
	mroce_txpath_send(tp, 0, NULL);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 300, 0, psn, 1), 1);
	mroce_txpath_resent(tp, psn[0], 300, false);
	mroce_txpath_ack(tp, 500, 1, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.rtt_us, 0);
	KUNIT_EXPECT_EQ(test, tp->backoff, 0);
	KUNIT_EXPECT_EQ(test, tp->rto_us, 600);

	/* The next one is acknowledged before its RTO: a sample at last. */
	mroce_txpath_send(tp, 1000, NULL);
	KUNIT_EXPECT_EQ(test, mroce_txpath_timeout(tp, 1500, 0, psn, 1), 0);
	mroce_txpath_ack(tp, 1500, 2, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, 500);

	/* An ACK that also covers a packet sent once: its sample sets the RTO. */
	mroce_txpath_send(tp, 10000, NULL);
	mroce_txpath_send(tp, 10000 + mroce_txpath_rto(tp), NULL);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 10000 + mroce_txpath_rto(tp),
						   0, psn, 1), 1);
	mroce_txpath_resent(tp, psn[0], 10000 + tp->rto_us, false);
	mroce_txpath_ack(tp, 10000 + tp->rto_us + 500, 4, sack, 0, count_acked,
			 counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.rtt_us, 500);
	KUNIT_EXPECT_EQ(test, tp->rto_us, 500 + 4 * tp->rttvar_us);
}

static void ecn_decrease_once_per_window_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 lost[1];
	unsigned int i;

	tp->cc.cwnd = 64;
	for (i = 0; i < 40; i++)
		mroce_txpath_send(tp, i, NULL);
	/* Every packet marked: the fraction is 1, the window halves. */
	mroce_txpath_ack(tp, 100, 10, sack, 10, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_TRUE(test, res.congested);
	KUNIT_EXPECT_EQ(test, tp->cc.alpha, MROCE_ALPHA_ONE);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 32);
	/* More marks within the same window: no second cut. */
	mroce_txpath_ack(tp, 110, 20, sack, 15, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_FALSE(test, res.congested);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 32);
	/*
	 * Once the window sent at the cut is acknowledged, a cut is allowed,
	 * by half the average: 15 of its 30 packets were marked, so alpha
	 * moves 1/16 of the way from 1 to 1/2, and 32 loses 32 * 31/64.
	 */
	mroce_txpath_ack(tp, 120, 40, sack, 25, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_TRUE(test, res.congested);
	KUNIT_EXPECT_EQ(test, tp->cc.alpha, MROCE_ALPHA_ONE / 32 * 31);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 32 - 15);
	/* Without marks the window grows again (congestion avoidance). */
	for (i = 0; i < 17; i++)
		mroce_txpath_send(tp, 130, NULL);
	mroce_txpath_ack(tp, 140, 57, sack, 25, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 18);
	/* A reordered ACK with an older count is no news. */
	mroce_txpath_ack(tp, 150, 57, sack, 24, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_FALSE(test, res.congested);
	KUNIT_EXPECT_EQ(test, tp->ce_seen, 25);
}

/*
 * Send @windows windows of @n packets, each acknowledged by one ACK that
 * reports @marks new CE marks.
 */
static void ecn_windows(struct kunit *test, struct mroce_txpath *tp,
			unsigned int windows, unsigned int n, u16 marks)
{
	unsigned int counts[1] = {};
	struct mroce_ack_result res;
	u8 sack[32] = {};
	u32 lost[1];
	unsigned int w, i;

	for (w = 0; w < windows; w++) {
		for (i = 0; i < n; i++)
			mroce_txpath_send(tp, w, NULL);
		mroce_txpath_ack(tp, w + 1, tp->nxt, sack, tp->ce_seen + marks,
				 count_acked, counts, lost, 1, &res);
		KUNIT_ASSERT_EQ(test, counts[0], (w + 1) * n);
		KUNIT_EXPECT_EQ(test, res.congested, marks > 0);
	}
}

/*
 * The window responds to how much of it is marked, not just to a mark:
 * a queue that marks one packet in a hundred costs a few percent, one
 * that marks all of them halves the window.
 */
static void ecn_proportional_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	u32 one = MROCE_ALPHA_ONE;

	/* One mark per 100-packet window: alpha falls from 1 towards 1%. */
	ecn_windows(test, tp, 64, 100, 1);
	KUNIT_EXPECT_GT(test, tp->cc.alpha, one / 100);
	KUNIT_EXPECT_LT(test, tp->cc.alpha, one / 25);
	tp->cc.cwnd = 200;
	ecn_windows(test, tp, 1, 100, 1);
	KUNIT_EXPECT_GE(test, tp->cc.cwnd, 200 - 200 / 25);
	KUNIT_EXPECT_LT(test, tp->cc.cwnd, 200);

	/* Every packet marked: alpha climbs back towards 1. */
	tp = new_txpath(test);
	ecn_windows(test, tp, 64, 100, 0);
	KUNIT_EXPECT_LT(test, tp->cc.alpha, one / 50);
	ecn_windows(test, tp, 80, 100, 100);
	KUNIT_EXPECT_GT(test, tp->cc.alpha, one - one / 50);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 1);
}

/*
 * An RTT sample more than the delay target above the path's base RTT
 * marks the packets its ACK acknowledges, as CE would; the base is the
 * smallest sample of the last 10 seconds.
 */
static void delay_marks_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 lost[1], cwnd;
	u64 t = 1;		/* a send time of 0 means none */

	/* Off (target 0): even a huge sample marks nothing. */
	mroce_txpath_send(tp, 1, NULL);
	mroce_txpath_ack(tp, 900000, 1, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_NE(test, res.rtt_us, 0);
	KUNIT_EXPECT_EQ(test, res.delayed, 0);
	KUNIT_EXPECT_FALSE(test, res.congested);

	tp = new_txpath(test);
	mroce_txpath_init(tp, 100, 1000);
	/* The first sample, 500 us, is the base. */
	mroce_txpath_send(tp, t, NULL);
	mroce_txpath_ack(tp, t + 500, 1, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.delayed, 0);
	KUNIT_EXPECT_EQ(test, tp->cc.min_rtt_us, 500);
	/* Exactly the target above it: no mark. */
	t = 1000;
	mroce_txpath_send(tp, t, NULL);
	mroce_txpath_send(tp, t, NULL);
	mroce_txpath_ack(tp, t + 1500, 3, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 2);
	KUNIT_EXPECT_EQ(test, res.delayed, 0);
	KUNIT_EXPECT_FALSE(test, res.congested);
	/* Above it: both packets of the ACK marked, the window cut. */
	t = 3000;
	cwnd = tp->cc.cwnd;
	mroce_txpath_send(tp, t, NULL);
	mroce_txpath_send(tp, t, NULL);
	mroce_txpath_ack(tp, t + 1501, 5, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.delayed, 2);
	KUNIT_EXPECT_TRUE(test, res.congested);
	KUNIT_EXPECT_LT(test, tp->cc.cwnd, cwnd);
	/* Ten seconds on, the base is taken anew from the next sample. */
	t = 11000000;
	mroce_txpath_send(tp, t, NULL);
	mroce_txpath_ack(tp, t + 1600, 6, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.delayed, 0);
	KUNIT_EXPECT_EQ(test, tp->cc.min_rtt_us, 1600);
	/* So it is on a new route, whose base may be longer. */
	mroce_txpath_new_route(tp, t);
	t += 10000;
	mroce_txpath_send(tp, t, NULL);
	mroce_txpath_ack(tp, t + 5000, 7, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.delayed, 0);
	KUNIT_EXPECT_EQ(test, tp->cc.min_rtt_us, 5000);
}

/*
 * Back on a route it had left, a path carries new packets at once with
 * the window it had there before the failure (never a smaller one), and
 * grows it as before.
 */
static void route_back_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 lost[1], i;

	tp->cc.cwnd = 4;
	tp->cc.ssthresh = 4;
	for (i = 0; i < 4; i++)
		mroce_txpath_send(tp, 10, NULL);
	mroce_txpath_ack(tp, 20, 4, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 5);	/* congestion avoidance */

	tp->backoff = 2;	/* an episode on the route it leaves */
	tp->dead = true;
	mroce_txpath_route_back(tp, 3);
	KUNIT_EXPECT_EQ(test, tp->backoff, 0);
	KUNIT_EXPECT_FALSE(test, tp->dead);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 5);	/* not smaller */
	mroce_txpath_route_back(tp, 12);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 12);
	for (i = 0; i < 12; i++)
		mroce_txpath_send(tp, 30, NULL);
	KUNIT_EXPECT_EQ(test, mroce_txpath_room(tp), 0);
	mroce_txpath_ack(tp, 40, 16, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 12);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 13);	/* additive, as before */
	mroce_txpath_route_back(tp, 1000);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, MROCE_WINDOW);
}

/*
 * A sender and a receiver joined by an ordered channel that drops data
 * and ACKs at random.  Every packet must be processed exactly once and
 * acknowledged exactly once, and only lost packets may be sent again
 * (apart from timeouts, whose ACK may have been the one lost).
 */
#define SIM_PKTS	3000
#define SIM_DELAY	50
#define SIM_QLEN	1024

struct sim_q {
	u32 psn[SIM_QLEN];
	u32 id[SIM_QLEN];
	u64 at[SIM_QLEN];
	u8 sack[SIM_QLEN][MROCE_SACK_BITS / 8];
	unsigned int head, tail;
};

struct sim {
	struct mroce_txpath tp;
	struct mroce_rxwin rw;
	struct sim_q data, acks;
	unsigned int processed[SIM_PKTS + 1];
	unsigned int acked[SIM_PKTS + 1];
	u32 redo[SIM_QLEN];
	unsigned int nredo;
	struct rnd_state rnd;
	unsigned int loss_permille;
	unsigned int data_drops, resends, timeouts;
};

static bool sim_drop(struct sim *s)
{
	return prandom_u32_state(&s->rnd) % 1000 < s->loss_permille;
}

static void sim_put_data(struct sim *s, u32 psn, u64 now)
{
	struct sim_q *q = &s->data;

	if (sim_drop(s)) {
		s->data_drops++;
		return;
	}
	q->psn[q->tail % SIM_QLEN] = psn;
	q->id[q->tail % SIM_QLEN] = (uintptr_t)mroce_txpath_slot(&s->tp, psn)->ctx;
	q->at[q->tail % SIM_QLEN] = now + SIM_DELAY;
	q->tail++;
}

static void sim_run(struct kunit *test, unsigned int loss_permille)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mroce_ack_result res;
	unsigned int i, n, next_id = 1;
	u64 now = 0;
	u32 lost[32], psn;

	KUNIT_ASSERT_NOT_NULL(test, s);
	mroce_txpath_init(&s->tp, 200, 0);
	s->loss_permille = loss_permille;
	prandom_seed_state(&s->rnd, loss_permille);

	while (now < 60ULL * 1000 * 1000) {
		now += 5;
		for (i = 0; i < s->nredo; i++) {
			/* Only packets found lost are sent again, once each. */
			KUNIT_ASSERT_EQ_MSG(test, mroce_txpath_slot(&s->tp, s->redo[i])->state,
					    MROCE_SLOT_LOST, "psn %u", s->redo[i]);
			mroce_txpath_resent(&s->tp, s->redo[i], now, false);
			s->resends++;
			sim_put_data(s, s->redo[i], now);
		}
		s->nredo = 0;
		while (next_id <= SIM_PKTS && mroce_txpath_room(&s->tp)) {
			psn = mroce_txpath_send(&s->tp, now, (void *)(uintptr_t)next_id++);
			sim_put_data(s, psn, now);
		}

		while (s->data.head != s->data.tail &&
		       s->data.at[s->data.head % SIM_QLEN] <= now) {
			struct sim_q *q = &s->data;
			unsigned int k = q->head++ % SIM_QLEN;

			if (mroce_rxwin_check(&s->rw, q->psn[k]) == MROCE_RX_NEW) {
				mroce_rxwin_record(&s->rw, q->psn[k]);
				s->processed[q->id[k]]++;
			}
			if (sim_drop(s))
				continue;
			k = s->acks.tail++ % SIM_QLEN;
			s->acks.psn[k] = s->rw.cum;
			s->acks.at[k] = now + SIM_DELAY;
			mroce_rxwin_sack(&s->rw, s->acks.sack[k]);
		}

		while (s->acks.head != s->acks.tail &&
		       s->acks.at[s->acks.head % SIM_QLEN] <= now) {
			unsigned int k = s->acks.head++ % SIM_QLEN;

			KUNIT_ASSERT_EQ(test, mroce_txpath_ack(&s->tp, now, s->acks.psn[k],
							       s->acks.sack[k], 0, count_acked,
							       s->acked, lost, ARRAY_SIZE(lost),
							       &res), 0);
			for (i = 0; i < res.lost; i++)
				s->redo[s->nredo++] = lost[i];
		}

		n = mroce_txpath_timeout(&s->tp, now, 0, s->redo + s->nredo,
					 ARRAY_SIZE(s->redo) - s->nredo);
		s->timeouts += n;
		s->nredo += n;
		if (next_id > SIM_PKTS && s->tp.una == s->tp.nxt)
			break;
	}

	KUNIT_ASSERT_EQ_MSG(test, s->tp.una, SIM_PKTS, "loss %u permille", loss_permille);
	for (i = 1; i <= SIM_PKTS; i++) {
		KUNIT_ASSERT_EQ_MSG(test, s->processed[i], 1, "packet %u", i);
		KUNIT_ASSERT_EQ_MSG(test, s->acked[i], 1, "packet %u", i);
	}
	KUNIT_EXPECT_GE(test, s->resends, s->data_drops);
	KUNIT_EXPECT_LE(test, s->resends, s->data_drops + s->timeouts);
	kunit_info(test, "loss %u/1000: %u data drops, %u resends, %u timeouts, %llu us",
		   loss_permille, s->data_drops, s->resends, s->timeouts, now);
}

static void lossy_channel_test(struct kunit *test)
{
	sim_run(test, 0);
	sim_run(test, 10);
	sim_run(test, 100);
	sim_run(test, 300);
}

static bool keep_odd(void *ctx, void *arg)
{
	return (uintptr_t)ctx & 1;
}

/*
 * A peer restart: the outstanding packets of streams that live on become
 * the first sequences of the path, in their old order, waiting to be sent;
 * the others are given up; the acknowledged ones were given up already.
 * Every packet is handed back exactly once, and the RTT stays.
 */
static void restart_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	unsigned int *counts = kunit_kzalloc(test, 352 * sizeof(*counts), GFP_KERNEL);
	u32 *lost = kunit_kzalloc(test, MROCE_WINDOW * sizeof(*lost), GFP_KERNEL);
	u32 *psns = kunit_kzalloc(test, MROCE_WINDOW * sizeof(*psns), GFP_KERNEL);
	struct mroce_ack_result res;
	u8 sack[32] = {};
	unsigned int n, i;
	u32 srtt, psn;

	KUNIT_ASSERT_NOT_NULL(test, counts);
	KUNIT_ASSERT_NOT_NULL(test, lost);
	KUNIT_ASSERT_NOT_NULL(test, psns);
	/* ctx = psn + 1; the window wraps: psns 200 to 349 stay outstanding. */
	for (psn = 0; psn < 250; psn++)
		mroce_txpath_send(tp, 1000, (void *)(uintptr_t)(psn + 1));
	mroce_txpath_ack(tp, 1400, 200, sack, 0, count_acked, counts, lost,
			 MROCE_WINDOW, &res);
	for (psn = 250; psn < 350; psn++)
		mroce_txpath_send(tp, 1500, (void *)(uintptr_t)(psn + 1));
	/* 210 and 211 selectively acknowledged (bits 9 and 10 after cum). */
	sack[1] = 0x06;
	mroce_txpath_ack(tp, 1600, 200, sack, 0, count_acked, counts, lost,
			 MROCE_WINDOW, &res);
	KUNIT_ASSERT_EQ(test, tp->una, 200);
	srtt = tp->srtt_us;
	KUNIT_ASSERT_NE(test, srtt, 0);

	n = mroce_txpath_restart(tp, keep_odd, count_acked, counts, psns);
	/* Kept: even psns of 200..349 (odd ctx) but 210. */
	KUNIT_ASSERT_EQ(test, n, 74);
	KUNIT_EXPECT_EQ(test, tp->una, 0);
	KUNIT_EXPECT_EQ(test, tp->nxt, 74);
	KUNIT_EXPECT_EQ(test, tp->lost_pending, 74);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, srtt);
	psn = 200;
	for (i = 0; i < n; i++, psn += 2) {
		if (psn == 210)
			psn += 2;
		KUNIT_EXPECT_EQ(test, psns[i], i);
		KUNIT_EXPECT_EQ(test, mroce_txpath_slot(tp, i)->state, MROCE_SLOT_LOST);
		KUNIT_EXPECT_PTR_EQ(test, mroce_txpath_slot(tp, i)->ctx,
				    (void *)(uintptr_t)(psn + 1));
	}
	/* Nothing else of the old sequence space is left. */
	for (i = n; i < MROCE_WINDOW; i++) {
		KUNIT_EXPECT_PTR_EQ(test, mroce_txpath_slot(tp, i)->ctx, NULL);
		KUNIT_EXPECT_EQ(test, mroce_txpath_slot(tp, i)->state, MROCE_SLOT_FREE);
	}

	/*
	 * Sent again and acknowledged in the new space: each once.  The
	 * first resend, into an empty network, is a sign of life
	 * (PATH-SILENT); the others are not.
	 */
	for (i = 0; i < n; i++)
		mroce_txpath_resent(tp, i, 2000 + i, false);
	KUNIT_EXPECT_EQ(test, tp->progress_us, 2000);
	memset(sack, 0, sizeof(sack));
	mroce_txpath_ack(tp, 2400, n, sack, 0, count_acked, counts, lost,
			 MROCE_WINDOW, &res);
	KUNIT_EXPECT_EQ(test, res.acked, n);
	KUNIT_EXPECT_EQ(test, tp->una, n);
	for (i = 1; i <= 350; i++)
		KUNIT_EXPECT_EQ_MSG(test, counts[i], 1, "ctx %u", i);
}

/* The receiver's ACK rule and the ACK it builds (wire-protocol.rst, "Receiver"). */
static void rx_ack_rule_test(struct kunit *test)
{
	struct mroce_rxwin *w = new_rxwin(test, 100);
	u8 sack[MROCE_SACK_BITS / 8];
	struct mroce_pkt pkt;

	KUNIT_EXPECT_FALSE(test, mroce_rxwin_data(w, 100, false, false));
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_data(w, 101, true, false));	/* second */
	KUNIT_EXPECT_EQ(test, w->ce_count, 1);
	mroce_rxwin_ack(w, 5, sack, &pkt);
	KUNIT_EXPECT_EQ(test, w->unacked, 0);
	KUNIT_EXPECT_EQ(test, pkt.type, MROCE_PKT_ACK);
	KUNIT_EXPECT_EQ(test, pkt.path, 5);
	KUNIT_EXPECT_EQ(test, pkt.psn, 102);
	KUNIT_EXPECT_EQ(test, pkt.ce_count, 1);
	KUNIT_EXPECT_EQ(test, pkt.share, 0xffff);
	KUNIT_EXPECT_PTR_EQ(test, pkt.sack, (const u8 *)sack);

	/* Asked for, or out of order: at once, even as the first. */
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_data(w, 102, false, true));
	mroce_rxwin_ack(w, 5, sack, &pkt);
	KUNIT_EXPECT_TRUE(test, mroce_rxwin_data(w, 104, false, false));
	mroce_rxwin_ack(w, 5, sack, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.psn, 103);
	KUNIT_EXPECT_EQ(test, sack[0], 1);	/* 104 is bit 0 past cum 103 */
	/* Filling the hole moves cum in order: the first of a pair again. */
	KUNIT_EXPECT_FALSE(test, mroce_rxwin_data(w, 103, false, false));
	KUNIT_EXPECT_EQ(test, w->cum, 105);
}

/*
 * PATH-RACK: a hole too close to the highest acknowledged sequence for
 * the 3-packet rule is lost once it is overdue: the smoothed RTT and
 * the larger of a quarter of it and the RTT variance after it was sent.
 * Its resend is judged only by packets sent after it.
 */
static void rack_test(struct kunit *test)
{
	struct mroce_txpath *tp = new_txpath(test);
	struct mroce_ack_result res;
	unsigned int counts[6] = {};
	u8 sack[32] = {};
	u32 lost[8], wait, cwnd, srtt;
	bool probe;
	uintptr_t i;

	mroce_rtt_sample(tp, 100);	/* srtt 100, rttvar 50 */
	for (i = 0; i < 5; i++)
		mroce_txpath_send(tp, 1000 + i, (void *)i);
	/* psn 3 missing, psn 4 received: bit 0 after cum 3. */
	sack[0] = 0x01;
	KUNIT_ASSERT_EQ(test, mroce_txpath_ack(tp, 1100, 3, sack, 0, count_acked,
					       counts, lost, 8, &res), 0);
	KUNIT_EXPECT_EQ(test, res.acked, 4);
	KUNIT_EXPECT_EQ(test, res.lost, 0);
	/* The ACK's sample moved the estimate: 96 us for psn 4. */
	wait = tp->srtt_us + max(tp->srtt_us / 4, tp->rttvar_us);
	KUNIT_EXPECT_EQ(test, wait, 99 + 38);
	/* Sooner than the tail probe (1004 + 2 x 99) and the RTO. */
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 1003 + wait);
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, 1002 + wait, lost, 8, &probe), 0);
	cwnd = tp->cc.cwnd;
	KUNIT_ASSERT_EQ(test, mroce_txpath_recover(tp, 1003 + wait, lost, 8, &probe), 1);
	KUNIT_EXPECT_FALSE(test, probe);
	KUNIT_EXPECT_EQ(test, lost[0], 3);
	KUNIT_EXPECT_EQ(test, mroce_txpath_slot(tp, 3)->state, MROCE_SLOT_LOST);
	KUNIT_EXPECT_EQ(test, tp->lost, 1);
	/* Neither backs the timer off nor touches the window. */
	KUNIT_EXPECT_EQ(test, tp->backoff, 0);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, cwnd);

	/* Resent: only the tail probe and the RTO are left to watch it. */
	mroce_txpath_resent(tp, 3, 1160, false);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 1160 + 2 * 99);
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, 1159 + 2 * 99, lost, 8, &probe), 0);
	/*
	 * Acknowledged 40 us after its resend, under half the RTT: it was
	 * late, not lost, but how late is the reordering allowance's to
	 * judge, not the RTT estimator's (PATH-RTT-LATE).
	 */
	memset(sack, 0, sizeof(sack));
	srtt = tp->srtt_us;
	mroce_txpath_ack(tp, 1200, 5, sack, 0, count_acked, counts, lost, 8, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, srtt);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, counts[i], 1);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 0);

	/* An ACK-time check finds the same: an overdue hole is lost at once. */
	for (i = 0; i < 5; i++)
		mroce_txpath_send(tp, 2000 + i, (void *)i);
	/* psn 5 missing, 6 received; the ACK comes 200 us after psn 5 went. */
	sack[0] = 0x01;
	mroce_txpath_ack(tp, 2200, 5, sack, 0, count_acked, counts, lost, 8, &res);
	KUNIT_ASSERT_EQ(test, res.lost, 1);
	KUNIT_EXPECT_EQ(test, lost[0], 5);
}

/*
 * The path's timer is due at @t for a tail probe, not before, and the
 * probe resends @psn, by another route if @reroute; it is sent at @t.
 */
static void expect_probe(struct kunit *test, struct mroce_txpath *tp, u64 t,
			 u32 psn, bool reroute)
{
	u32 psns[4];
	bool probe;

	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), t);
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, t - 1, psns, 4, &probe), 0);
	KUNIT_ASSERT_EQ(test, mroce_txpath_recover(tp, t, psns, 4, &probe), 1);
	KUNIT_EXPECT_TRUE(test, probe);
	KUNIT_EXPECT_EQ(test, psns[0], psn);
	KUNIT_EXPECT_EQ(test, (unsigned int)mroce_txpath_slot(tp, psn)->reroute,
			(unsigned int)reroute);
	mroce_txpath_resent(tp, psn, t, false);
}

/*
 * PATH-RTT-LATE: a tail probe's packet acknowledged sooner after the
 * probe than half the RTT was only late, and its delay is an RTT sample,
 * which Karn's rule would drop; the later probes wait the longer for
 * it.  Acknowledged a whole RTT after the probe, the probe is what got
 * through; probed after the time rule found it lost, the time rule's
 * resend may be: neither gives a sample.
 */
static void late_probe_test(struct kunit *test)
{
	struct mroce_txpath *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct mroce_ack_result res;
	unsigned int counts[5] = {};
	u8 sack[32] = {};
	u32 psns[4], cwnd;
	bool probe;
	u64 t;

	KUNIT_ASSERT_NOT_NULL(test, tp);
	mroce_txpath_init(tp, 1000, 0);
	mroce_txpath_send(tp, 1, (void *)0);
	mroce_txpath_ack(tp, 101, 1, sack, 0, count_acked, counts, psns, 4, &res);
	KUNIT_ASSERT_EQ(test, tp->srtt_us, 100);	/* rttvar 50 */
	cwnd = tp->cc.cwnd;

	mroce_txpath_send(tp, 1000, (void *)1);
	expect_probe(test, tp, 1200, 1, false);
	/* The first transmission's ACK, 30 us after the probe: 230 us. */
	mroce_txpath_ack(tp, 1230, 2, sack, 0, count_acked, counts, psns, 4, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	KUNIT_EXPECT_EQ(test, res.rtt_us, 0);	/* not a sample by Karn's rule */
	KUNIT_EXPECT_EQ(test, res.spurious, 0);	/* no timeout to undo */
	KUNIT_EXPECT_EQ(test, tp->srtt_us, (7 * 100 + 230) / 8);
	KUNIT_EXPECT_EQ(test, tp->rttvar_us, (3 * 50 + 130) / 4);
	KUNIT_EXPECT_GE(test, tp->cc.cwnd, cwnd);	/* not cut */

	/* The next probe waits two of the new RTTs; its ACK comes one later. */
	mroce_txpath_send(tp, 2000, (void *)2);
	expect_probe(test, tp, 2000 + 2 * 116, 2, false);
	mroce_txpath_ack(tp, 2000 + 3 * 116, 3, sack, 0, count_acked, counts,
			 psns, 4, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, 116);

	/* psn 3 is passed by psn 4 (an RTT of 116 us: rttvar 52) ... */
	mroce_txpath_send(tp, 3000, (void *)3);
	mroce_txpath_send(tp, 3001, (void *)4);
	sack[0] = 0x01;
	mroce_txpath_ack(tp, 3117, 3, sack, 0, count_acked, counts, psns, 4, &res);
	KUNIT_ASSERT_EQ(test, tp->srtt_us, 116);
	KUNIT_ASSERT_EQ(test, tp->rttvar_us, 52);
	/* ... found lost by the time rule, resent, probed, acknowledged. */
	t = 3000 + 116 + 52;
	KUNIT_ASSERT_EQ(test, mroce_txpath_recover(tp, t, psns, 4, &probe), 1);
	KUNIT_EXPECT_FALSE(test, probe);
	KUNIT_EXPECT_EQ(test, psns[0], 3);
	mroce_txpath_resent(tp, 3, t, false);
	expect_probe(test, tp, t + 2 * 116, 3, false);
	memset(sack, 0, sizeof(sack));
	mroce_txpath_ack(tp, t + 2 * 116 + 10, 5, sack, 0, count_acked, counts,
			 psns, 4, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	KUNIT_EXPECT_EQ(test, tp->srtt_us, 116);
	KUNIT_EXPECT_EQ(test, counts[3] + counts[4], 2);
}

/*
 * PATH-TLP: a flight whose last transmission has drawn no ACK for two
 * smoothed RTTs sends its newest packet again, MROCE_TLP_MAX times until
 * an ACK acknowledges something or the path takes another route (after
 * MROCE_TLP_QUEUED of them, only while other paths deliver; otherwise
 * blind ones, tail_probe_blind_test()), not while a packet found lost
 * waits to go, without backing off or cutting the window.
 */
static void tail_probe_test(struct kunit *test)
{
	struct mroce_txpath *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct mroce_ack_result res;
	unsigned int counts[4] = {};
	u8 sack[32] = {};
	u32 psns[4], cwnd;
	unsigned int k;
	bool probe;
	u64 t;

	KUNIT_ASSERT_NOT_NULL(test, tp);
	mroce_txpath_init(tp, 1000, 0);	/* a floor well above the RTT */
	/* No RTT measured: nothing but the RTO. */
	mroce_txpath_send(tp, 1, (void *)0);
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, 50000, psns, 4, &probe), 0);
	KUNIT_EXPECT_FALSE(test, probe);
	mroce_txpath_ack(tp, 101, 1, sack, 0, count_acked, counts, psns, 4, &res);
	KUNIT_ASSERT_EQ(test, res.rtt_us, 100);	/* srtt 100, RTO 1000 */

	mroce_txpath_send(tp, 1000, (void *)1);
	mroce_txpath_send(tp, 1010, (void *)2);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 1010 + 200);
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, 1209, psns, 4, &probe), 0);
	cwnd = tp->cc.cwnd;
	KUNIT_ASSERT_EQ(test, mroce_txpath_recover(tp, 1210, psns, 4, &probe), 1);
	KUNIT_EXPECT_TRUE(test, probe);
	KUNIT_EXPECT_EQ(test, psns[0], 2);	/* the newest */
	KUNIT_EXPECT_FALSE(test, mroce_txpath_slot(tp, 2)->reroute);
	KUNIT_EXPECT_EQ(test, mroce_txpath_slot(tp, 2)->state, MROCE_SLOT_LOST);
	KUNIT_EXPECT_EQ(test, tp->lost, 0);	/* not known lost */
	KUNIT_EXPECT_EQ(test, tp->backoff, 0);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, cwnd);
	/* No second probe while the first waits to go. */
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, 1210, psns, 4, &probe), 0);
	mroce_txpath_resent(tp, 2, 1210, false);

	/*
	 * Each probe unanswered: the next, two RTTs after it; past
	 * MROCE_TLP_QUEUED, only once other paths delivered a packet sent
	 * after the latest (a queue they all wait in would not); without
	 * that, a blind one four RTTs on (past the RTO, at 2000, the second
	 * time).
	 */
	for (k = 1, t = 1210; k < MROCE_TLP_MAX; k++) {
		if (k >= MROCE_TLP_QUEUED) {
			tp->others_us = t;
			KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp),
					min(t + 400, 1000ULL + 1000));
			KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, t + 200, psns,
								   4, &probe), 0);
			tp->others_us = t + 1;
		}
		t += 200;
		/* Every second probe tries another route. */
		expect_probe(test, tp, t, 2, k % 2);
		KUNIT_EXPECT_EQ(test, tp->backoff, 0);
		KUNIT_EXPECT_EQ(test, tp->cc.cwnd, cwnd);
	}
	KUNIT_ASSERT_LT(test, t, 1000 + 1000);
	/* PATH-TLP's numbers: two probes two RTTs apart, four with the evidence. */
	KUNIT_EXPECT_EQ(test, tp->probes, 4);
	KUNIT_EXPECT_EQ(test, MROCE_TLP_QUEUED, 2U);

	/*
	 * MROCE_TLP_MAX probes: then only the RTO of the oldest, psn 1, or
	 * a blind probe, four RTTs on (after the RTO here).
	 */
	KUNIT_EXPECT_EQ(test, tp->blind, 0);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 1000 + 1000);
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, 1999, psns, 4, &probe), 0);
	KUNIT_EXPECT_FALSE(test, probe);

	/* An ACK that acknowledges something re-arms it for the next flight. */
	mroce_txpath_ack(tp, t + 40, 3, sack, 0, count_acked, counts, psns, 4, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 2);
	KUNIT_EXPECT_EQ(test, counts[1], 1);
	KUNIT_EXPECT_EQ(test, counts[2], 1);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 0);
	mroce_txpath_send(tp, t + 90, (void *)3);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp),
			t + 90 + 2 * (u64)tp->srtt_us);

	/* A new route's flight has its probes, whatever the old one used. */
	tp->blind = MROCE_TLP_MAX - MROCE_TLP_QUEUED;
	tp->probes = MROCE_TLP_MAX + tp->blind;
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp),
			t + 90 + (u64)mroce_txpath_rto(tp));
	mroce_txpath_new_route(tp, t + 190);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp),
			t + 90 + 2 * (u64)tp->srtt_us);
}

/*
 * PATH-TLP without the other paths' evidence, as at the end of a
 * collective's step, when every path is idle: after MROCE_TLP_QUEUED
 * probes two RTTs apart, two blind ones four and eight RTTs on.  Evidence
 * that comes later still has its own probes, two RTTs after the path
 * fell silent: the blind ones did not spend them.
 */
static void tail_probe_blind_test(struct kunit *test)
{
	static const u64 wait[] = { 200, 200, 400, 800 };
	struct mroce_txpath *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct mroce_ack_result res;
	unsigned int counts[4] = {};
	u8 sack[32] = {};
	u32 psns[4];
	unsigned int k;
	bool probe;
	u64 t;

	KUNIT_ASSERT_NOT_NULL(test, tp);
	mroce_txpath_init(tp, 5000, 0);	/* an RTO past every probe */
	mroce_txpath_send(tp, 1, (void *)0);
	mroce_txpath_ack(tp, 101, 1, sack, 0, count_acked, counts, psns, 4, &res);
	KUNIT_ASSERT_EQ(test, tp->srtt_us, 100);
	mroce_txpath_send(tp, 1000, (void *)1);

	for (k = 0, t = 1000; k < ARRAY_SIZE(wait); k++) {
		t += wait[k];
		expect_probe(test, tp, t, 1, k % 2);
	}
	KUNIT_EXPECT_EQ(test, tp->probes, 4);
	KUNIT_EXPECT_EQ(test, tp->blind, 2);
	/* No blind probe left. */
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, t + 4000, psns, 4, &probe), 0);
	KUNIT_EXPECT_FALSE(test, probe);

	/*
	 * Another path delivers a packet sent since: the path is silent since
	 * its latest probe, and has two probes more.
	 */
	tp->others_us = t + 1;
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), t + 200);
	KUNIT_ASSERT_EQ(test, mroce_txpath_recover(tp, t + 200, psns, 4, &probe), 1);
	KUNIT_EXPECT_TRUE(test, probe);
	mroce_txpath_resent(tp, 1, t + 200, false);
	tp->others_us = t + 201;
	KUNIT_ASSERT_EQ(test, mroce_txpath_recover(tp, t + 400, psns, 4, &probe), 1);
	mroce_txpath_resent(tp, 1, t + 400, false);
	tp->others_us = t + 401;
	KUNIT_EXPECT_EQ(test, mroce_txpath_recover(tp, t + 4000, psns, 4, &probe), 0);
	KUNIT_EXPECT_EQ(test, tp->probes, 6);

	/* An ACK that acknowledges something gives the next flight all. */
	mroce_txpath_ack(tp, t + 450, 2, sack, 0, count_acked, counts, psns, 4, &res);
	KUNIT_EXPECT_EQ(test, tp->probes, 0);
	KUNIT_EXPECT_EQ(test, tp->blind, 0);
}

/*
 * id PATH-DEAD-DETOUR: a detoured packet gets through while a packet the
 * path sent on its own route more than an RTT before it is still
 * missing: the route is dead at once, not at the RTO.
 */
static void dead_by_detour_test(struct kunit *test)
{
	struct mroce_txpath *tp = silent_after_one(test);	/* srtt 4 */
	struct mroce_ack_result res;
	unsigned int counts[1] = {};
	u8 sack[32] = {};
	u32 psn[4], lost[1];

	/* psn 2 sent again by another route at 14: an RTT after psn 1. */
	mroce_txpath_resent(tp, 2, 14, true);
	sack[0] = 0x01;		/* cum 1: psn 2 selectively */
	mroce_txpath_ack(tp, 30, 1, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 1);
	KUNIT_EXPECT_FALSE(test, tp->failed);

	/* At 15, more than an RTT after psn 1: the route is dead. */
	tp = silent_after_one(test);
	mroce_txpath_resent(tp, 2, 15, true);
	mroce_txpath_ack(tp, 30, 1, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_TRUE(test, tp->failed);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 10);
	KUNIT_ASSERT_EQ(test, mroce_txpath_timeout(tp, 30, 0, psn, 4), 1);
	KUNIT_EXPECT_EQ(test, psn[0], 1);
	KUNIT_EXPECT_TRUE(test, tp->dead);
	KUNIT_EXPECT_FALSE(test, tp->failed);
	KUNIT_EXPECT_EQ(test, tp->cc.cwnd, 1);

	/* The path's own route delivered psn 1 too: nothing dead. */
	tp = silent_after_one(test);
	mroce_txpath_resent(tp, 2, 15, true);
	sack[0] = 0;
	mroce_txpath_ack(tp, 30, 3, sack, 0, count_acked, counts, lost, 1, &res);
	KUNIT_EXPECT_EQ(test, res.acked, 2);
	KUNIT_EXPECT_FALSE(test, tp->failed);
}

/*
 * id PATH-SILENT: a path that keeps sending but hears nothing back for
 * two RTTs while another path delivers a packet sent later probes then,
 * by another route, however recent its latest transmission.
 */
static void silent_probe_test(struct kunit *test)
{
	struct mroce_txpath *tp = silent_after_one(test);	/* srtt 4 */
	u32 psns[4];
	bool probe;

	KUNIT_EXPECT_EQ(test, tp->progress_us, 10);
	mroce_txpath_send(tp, 30, NULL);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 30 + 8);
	KUNIT_EXPECT_FALSE(test, mroce_txpath_silent(tp, 100));

	tp->others_us = 11;
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 10 + 8);
	KUNIT_EXPECT_FALSE(test, mroce_txpath_silent(tp, 17));
	KUNIT_EXPECT_TRUE(test, mroce_txpath_silent(tp, 18));
	KUNIT_ASSERT_EQ(test, mroce_txpath_recover(tp, 31, psns, 4, &probe), 1);
	KUNIT_EXPECT_TRUE(test, probe);
	KUNIT_EXPECT_EQ(test, psns[0], 3);
	KUNIT_EXPECT_TRUE(test, mroce_txpath_slot(tp, 3)->reroute);
	/* The probe is a sign of life: the next waits two RTTs after it. */
	KUNIT_EXPECT_FALSE(test, mroce_txpath_silent(tp, 38));
	mroce_txpath_resent(tp, 3, 31, true);
	KUNIT_EXPECT_FALSE(test, mroce_txpath_slot(tp, 3)->reroute);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(tp), 31 + 8);
}

static struct kunit_case mroce_path_cases[] = {
	KUNIT_CASE(rx_ack_rule_test),
	KUNIT_CASE(rx_in_order_test),
	KUNIT_CASE(rx_gaps_and_dups_test),
	KUNIT_CASE(rx_window_edge_test),
	KUNIT_CASE(rx_wraparound_test),
	KUNIT_CASE(rx_sack_encoding_test),
	KUNIT_CASE(tx_cumulative_ack_test),
	KUNIT_CASE(tx_selective_loss_test),
	KUNIT_CASE(tx_room_test),
	KUNIT_CASE(rtt_estimator_test),
	KUNIT_CASE(tx_timeout_test),
	KUNIT_CASE(rack_test),
	KUNIT_CASE(tail_probe_test),
	KUNIT_CASE(tail_probe_blind_test),
	KUNIT_CASE(dead_by_detour_test),
	KUNIT_CASE(silent_probe_test),
	KUNIT_CASE(detour_test),
	KUNIT_CASE(silent_peer_test),
	KUNIT_CASE(dead_route_evidence_test),
	KUNIT_CASE(spurious_timeout_test),
	KUNIT_CASE(late_probe_test),
	KUNIT_CASE(karn_rto_test),
	KUNIT_CASE(ecn_decrease_once_per_window_test),
	KUNIT_CASE(ecn_proportional_test),
	KUNIT_CASE(delay_marks_test),
	KUNIT_CASE(route_back_test),
	KUNIT_CASE(restart_test),
	KUNIT_CASE(lossy_channel_test),
	{}
};

static struct kunit_suite mroce_path_suite = {
	.name = "mroce-path",
	.test_cases = mroce_path_cases,
};

kunit_test_suite(mroce_path_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for mroce's congestion control (cc.c), driven through its
 * hooks alone, as path.c drives it: growth, ECN and delay marks, timeouts
 * with and without a dead route, undo of a spurious timeout, a route
 * change and return, a restart of the sequence space, and congestive
 * loss told from random loss.  path_test.c
 * covers the same behaviour as seen through a path's ACKs.
 */
#include <kunit/test.h>

#include "../cc.h"

/* An ACK of @acked packets, @ce of them marked, the path at [una, nxt). */
static bool ack(struct mroce_cc *cc, u32 una, u32 nxt, unsigned int acked,
		unsigned int ce, u32 rtt_us, u64 now_us)
{
	struct mroce_cc_ack a = {
		.now_us = now_us, .una = una, .nxt = nxt, .rtt_us = rtt_us,
		.acked = acked, .ce = ce,
	};
	unsigned int delayed;

	return mroce_cc_on_ack(cc, &a, &delayed);
}

static void growth_test(struct kunit *test)
{
	struct mroce_cc cc;

	mroce_cc_init(&cc, 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd, MROCE_CWND_INIT);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, MROCE_CWND_MAX);
	KUNIT_EXPECT_EQ(test, cc.alpha, MROCE_ALPHA_ONE);

	/* Slow start: one packet more per packet acknowledged. */
	KUNIT_EXPECT_FALSE(test, ack(&cc, 10, 20, 10, 0, 100, 1000));
	KUNIT_EXPECT_EQ(test, cc.cwnd, MROCE_CWND_INIT + 10);

	/* Above the threshold: one packet more per window acknowledged. */
	cc.ssthresh = cc.cwnd;
	ack(&cc, 30, 60, cc.cwnd - 1, 0, 100, 2000);
	KUNIT_EXPECT_EQ(test, cc.cwnd, MROCE_CWND_INIT + 10);
	ack(&cc, 31, 60, 1, 0, 100, 2100);
	KUNIT_EXPECT_EQ(test, cc.cwnd, MROCE_CWND_INIT + 11);

	/* Never beyond the path's window. */
	cc.ssthresh = MROCE_CWND_MAX;
	ack(&cc, 1000, 1000, 1000, 0, 100, 3000);
	KUNIT_EXPECT_EQ(test, cc.cwnd, MROCE_CWND_MAX);
}

static void ecn_once_per_window_test(struct kunit *test)
{
	struct mroce_cc cc;

	mroce_cc_init(&cc, 0);
	cc.cwnd = 64;
	/* alpha starts at 1: the first mark halves the window. */
	KUNIT_EXPECT_TRUE(test, ack(&cc, 1, 64, 1, 1, 100, 1000));
	KUNIT_EXPECT_EQ(test, cc.cwnd, 32);
	KUNIT_EXPECT_EQ(test, cc.recover, 64);
	/* Marks for data sent before the cut do not cut again. */
	KUNIT_EXPECT_FALSE(test, ack(&cc, 40, 70, 1, 1, 100, 1100));
	KUNIT_EXPECT_EQ(test, cc.cwnd, 32);
	/* Once the window sent at the cut is acknowledged, they do. */
	KUNIT_EXPECT_TRUE(test, ack(&cc, 64, 80, 1, 1, 100, 1200));
	KUNIT_EXPECT_LT(test, cc.cwnd, 32);
	KUNIT_EXPECT_FALSE(test, cc.undo_valid);
}

static void delay_marks_test(struct kunit *test)
{
	struct mroce_cc_ack a = { .una = 1, .nxt = 20, .acked = 4 };
	struct mroce_cc cc;
	unsigned int delayed;

	mroce_cc_init(&cc, 1000);
	a.now_us = 1000;
	a.rtt_us = 500;
	KUNIT_EXPECT_FALSE(test, mroce_cc_on_ack(&cc, &a, &delayed));
	KUNIT_EXPECT_EQ(test, delayed, 0);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_us, 500);
	/* Within the target above the base RTT: no mark. */
	a.rtt_us = 1500;
	mroce_cc_on_ack(&cc, &a, &delayed);
	KUNIT_EXPECT_EQ(test, delayed, 0);
	/* Beyond it: every packet of the ACK counts as marked. */
	a.rtt_us = 1501;
	KUNIT_EXPECT_TRUE(test, mroce_cc_on_ack(&cc, &a, &delayed));
	KUNIT_EXPECT_EQ(test, delayed, 4);
	/* A new route forgets its base RTT. */
	mroce_cc_on_new_route(&cc);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_us, 0);

	/* Without a target, delay is no signal. */
	mroce_cc_init(&cc, 0);
	a.rtt_us = 1000000;
	mroce_cc_on_ack(&cc, &a, &delayed);
	KUNIT_EXPECT_EQ(test, delayed, 0);
}

static void timeout_and_undo_test(struct kunit *test)
{
	struct mroce_cc cc;

	mroce_cc_init(&cc, 0);
	cc.cwnd = 40;
	mroce_cc_on_timeout(&cc, 100, true, false);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 20);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 20);
	KUNIT_EXPECT_EQ(test, mroce_cc_episode_cwnd(&cc), 40);
	/* A second expiry of the episode halves again, keeps the undo. */
	mroce_cc_on_timeout(&cc, 100, false, false);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 10);
	KUNIT_EXPECT_EQ(test, mroce_cc_episode_cwnd(&cc), 40);
	/* It was premature: the window before the episode comes back. */
	mroce_cc_on_spurious_timeout(&cc);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 40);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, MROCE_CWND_MAX);
	/* Only once. */
	cc.cwnd = 5;
	mroce_cc_on_spurious_timeout(&cc);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 5);

	/* A dead route: one packet, and slow start up to half the old one. */
	cc.cwnd = 30;
	mroce_cc_on_timeout(&cc, 200, true, true);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 1);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 15);
	KUNIT_EXPECT_EQ(test, cc.recover, 200);
}

static void route_back_test(struct kunit *test)
{
	struct mroce_cc cc;

	mroce_cc_init(&cc, 0);
	cc.cwnd = 3;
	mroce_cc_on_route_back(&cc, 50);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 50);
	/* A larger window already earned stays; the maximum holds. */
	mroce_cc_on_route_back(&cc, 10);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 50);
	mroce_cc_on_route_back(&cc, 10 * MROCE_CWND_MAX);
	KUNIT_EXPECT_EQ(test, cc.cwnd, MROCE_CWND_MAX);
}

static void restart_test(struct kunit *test)
{
	struct mroce_cc cc;

	mroce_cc_init(&cc, 1000);
	ack(&cc, 1, 50, 1, 0, 700, 1000);
	cc.cwnd = 77;
	cc.alpha = MROCE_ALPHA_ONE / 8;
	mroce_cc_on_timeout(&cc, 5000, true, false);
	mroce_cc_restart(&cc);
	/* Sequence-relative state goes; the network's measure stays. */
	KUNIT_EXPECT_EQ(test, cc.recover, 0);
	KUNIT_EXPECT_EQ(test, cc.alpha_end, 0);
	KUNIT_EXPECT_FALSE(test, cc.undo_valid);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 38);
	KUNIT_EXPECT_EQ(test, cc.alpha, MROCE_ALPHA_ONE / 8);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_us, 700);
	/* A mark right after the restart acts: sequence 0 is not before 0. */
	KUNIT_EXPECT_TRUE(test, ack(&cc, 0, 10, 1, 1, 700, 2000));
}

/* Epochs of 128 packets, @lost[k] of epoch k lost: the verdicts. */
static void epochs(struct mroce_lossmon *lm, const u8 *lost, unsigned int n,
		   unsigned int *congestive)
{
	enum mroce_loss_verdict v;
	unsigned int k;

	*congestive = 0;
	for (k = 0; k < n; k++) {
		mroce_lossmon_lost(lm, lost[k]);
		v = mroce_lossmon_acked(lm, MROCE_LOSS_EPOCH_PKTS - lost[k] - 1);
		/* One packet short of the epoch: it goes on. */
		if (v != MROCE_LOSS_COUNTING)
			return;
		v = mroce_lossmon_acked(lm, 1);
		*congestive += v == MROCE_LOSS_CONGESTIVE;
	}
}

/*
 * CC-LOSS: loss at a steady 10% is random from the start, and the floor
 * learns it; on a link that loses nothing else, the floor sinks, a
 * burst of six passes for random and one of eight after it is
 * congestive; bursts that come back again and again stay congestive,
 * however many.
 */
static void lossmon_test(struct kunit *test)
{
	static const u8 steady[] = { 13, 12, 13, 14, 11, 13, 12, 14, 12, 14 };
	static const u8 quiet[] = { 0 };
	struct mroce_lossmon lm;
	unsigned int k, c;
	u8 bursts[64];

	mroce_lossmon_init(&lm);
	KUNIT_EXPECT_EQ(test, lm.floor, MROCE_LOSS_FLOOR_INIT);
	for (k = 0; k < 10; k++) {
		epochs(&lm, steady, ARRAY_SIZE(steady), &c);
		KUNIT_EXPECT_EQ(test, c, 0);
	}
	/* 12.8 of 128: 0.1 of MROCE_ALPHA_ONE, within a few percent */
	KUNIT_EXPECT_GT(test, lm.floor, MROCE_ALPHA_ONE / 11);
	KUNIT_EXPECT_LT(test, lm.floor, MROCE_ALPHA_ONE / 9);
	KUNIT_EXPECT_EQ(test, lm.hold, 0);

	mroce_lossmon_init(&lm);
	for (k = 0; k < 40; k++)
		epochs(&lm, quiet, 1, &c);
	KUNIT_EXPECT_LT(test, lm.floor, MROCE_ALPHA_ONE / 1000);
	bursts[0] = 6;
	epochs(&lm, bursts, 1, &c);
	KUNIT_EXPECT_EQ(test, c, 0);
	bursts[0] = 8;
	epochs(&lm, bursts, 1, &c);
	KUNIT_EXPECT_EQ(test, c, 1);
	KUNIT_EXPECT_EQ(test, lm.hold, MROCE_LOSS_HOLD_EPOCHS);
	/* The hold runs out over quiet epochs. */
	for (k = 0; k < MROCE_LOSS_HOLD_EPOCHS; k++) {
		KUNIT_EXPECT_NE(test, lm.hold, 0);
		epochs(&lm, quiet, 1, &c);
	}
	KUNIT_EXPECT_EQ(test, lm.hold, 0);

	/* A queue overflowing every fourth epoch, a quarter of it lost. */
	for (k = 0; k < ARRAY_SIZE(bursts); k++)
		bursts[k] = k % 4 ? 0 : 32;
	epochs(&lm, bursts, ARRAY_SIZE(bursts), &c);
	KUNIT_EXPECT_EQ(test, c, ARRAY_SIZE(bursts) / 4);
	KUNIT_EXPECT_LT(test, lm.floor, MROCE_ALPHA_ONE / 16);

	/* The epoch counts lost packets too; it ends at 128 in all. */
	mroce_lossmon_init(&lm);
	mroce_lossmon_lost(&lm, 60);
	KUNIT_EXPECT_EQ(test, mroce_lossmon_acked(&lm, 67), MROCE_LOSS_COUNTING);
	KUNIT_EXPECT_EQ(test, mroce_lossmon_acked(&lm, 1), MROCE_LOSS_CONGESTIVE);
	/* The floor learns the bound, 2 x (128 / 8 + 3), not the 60 lost. */
	KUNIT_EXPECT_EQ(test, lm.floor, MROCE_LOSS_FLOOR_INIT * 7 / 8 +
			(38 * MROCE_ALPHA_ONE / 128) / 8);
}

/*
 * CC-LOSS's reaction on a path: half the window, once per window of
 * data; then growth shared among the connection's paths.
 */
static void congestive_loss_test(struct kunit *test)
{
	struct mroce_cc cc;

	mroce_cc_init(&cc, 0);
	KUNIT_EXPECT_EQ(test, cc.ai_paths, 1);
	cc.cwnd = 41;
	KUNIT_EXPECT_TRUE(test, mroce_cc_on_congestive_loss(&cc, 10, 60));
	KUNIT_EXPECT_EQ(test, cc.cwnd, 21);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 21);
	/* Not again for the packets sent before the cut, nor for a mark. */
	KUNIT_EXPECT_FALSE(test, mroce_cc_on_congestive_loss(&cc, 59, 70));
	KUNIT_EXPECT_FALSE(test, ack(&cc, 59, 70, 1, 1, 0, 1000));
	KUNIT_EXPECT_EQ(test, cc.cwnd, 21);
	KUNIT_EXPECT_TRUE(test, mroce_cc_on_congestive_loss(&cc, 60, 70));
	KUNIT_EXPECT_EQ(test, cc.cwnd, 11);
	cc.cwnd = 1;
	mroce_cc_on_congestive_loss(&cc, 70, 71);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 1);

	/* Four paths: four windows of ACKs for one packet more. */
	cc.cwnd = 10;
	cc.ssthresh = 10;
	cc.ai_paths = 4;
	ack(&cc, 71, 80, 39, 0, 0, 2000);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 10);
	ack(&cc, 71, 80, 1, 0, 0, 2000);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 11);
}

static struct kunit_case mroce_cc_cases[] = {
	KUNIT_CASE(growth_test),
	KUNIT_CASE(ecn_once_per_window_test),
	KUNIT_CASE(delay_marks_test),
	KUNIT_CASE(timeout_and_undo_test),
	KUNIT_CASE(route_back_test),
	KUNIT_CASE(restart_test),
	KUNIT_CASE(lossmon_test),
	KUNIT_CASE(congestive_loss_test),
	{}
};

static struct kunit_suite mroce_cc_suite = {
	.name = "mroce-cc",
	.test_cases = mroce_cc_cases,
};

kunit_test_suite(mroce_cc_suite);

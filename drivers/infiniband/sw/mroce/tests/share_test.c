// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the receiver's share (share.c: who is active, the
 * max-min level) and the sender's pacer that honours it (cc.c), as
 * Documentation/wire-protocol.rst, "Receiver's share", states them.
 */
#include <kunit/test.h>

#include "../cc.h"
#include "../share.h"

#define CAP	8000	/* Mbit/s: 1000 bytes a microsecond */
#define HOLD	100	/* us; the period is 50 */

static void activate(struct mroce_share *sh, struct mroce_share_peer *p,
		     u64 now, u32 bytes)
{
	if (mroce_share_rx(p, now, bytes, false))
		mroce_share_activate(sh, p, now);
}

/* Measure @n peers; bit i of @holes: peer i has a packet missing. */
static void scan_holes(struct mroce_share *sh, struct mroce_share_peer *p,
		       unsigned int n, u64 now, unsigned long holes)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		mroce_share_scan_peer(sh, &p[i], now, holes & BIT(i));
	mroce_share_scan_end(sh, now);
}

static void scan(struct mroce_share *sh, struct mroce_share_peer *p,
		 unsigned int n, u64 now)
{
	scan_holes(sh, p, n, now, 0);
}

/* id SHARE-ACTIVE: a sender counts from its first packet, at once. */
static void arrivals_test(struct kunit *test)
{
	struct mroce_share_peer p[4] = {};
	struct mroce_share sh;
	unsigned int i;

	mroce_share_init(&sh, CAP, HOLD);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE);
	KUNIT_EXPECT_FALSE(test, mroce_share_scan_due(&sh, 5000));
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_TRUE(test, mroce_share_rx(&p[i], 1000 + i, 1000, false));
		mroce_share_activate(&sh, &p[i], 1000 + i);
		KUNIT_EXPECT_EQ(test, sh.nactive, i + 1);
		KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / (i + 1));
		/* Its next packet finds it active: no lock of the whole. */
		KUNIT_EXPECT_FALSE(test, mroce_share_rx(&p[i], 1010 + i, 1000, false));
	}
	KUNIT_EXPECT_EQ(test, p[0].bytes, 2000);
	/* The period began with the first sender. */
	KUNIT_EXPECT_FALSE(test, mroce_share_scan_due(&sh, 1049));
	KUNIT_EXPECT_TRUE(test, mroce_share_scan_due(&sh, 1050));
}

/* A sender silent for the hold time gives its share back. */
static void departure_test(struct kunit *test)
{
	struct mroce_share_peer p[2] = {};
	struct mroce_share sh;

	mroce_share_init(&sh, CAP, HOLD);
	activate(&sh, &p[0], 1000, 50000);
	activate(&sh, &p[1], 1000, 50000);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 2);
	/* Both sent at their share for the whole period: neither is satisfied. */
	activate(&sh, &p[0], 1040, 50000);
	activate(&sh, &p[1], 1040, 50000);
	scan(&sh, p, 2, 1050);
	KUNIT_EXPECT_EQ(test, sh.nactive, 2);
	KUNIT_EXPECT_EQ(test, sh.nsat, 0);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 2);
	KUNIT_EXPECT_EQ(test, p[0].bytes, 0);

	/* p[1] goes quiet; at 1140 its last packet (1040) is 100 us old. */
	activate(&sh, &p[0], 1100, 25000);
	scan(&sh, p, 2, 1140);
	KUNIT_EXPECT_EQ(test, sh.nactive, 2);
	activate(&sh, &p[0], 1150, 50000);
	scan(&sh, p, 2, 1141 + 50);
	KUNIT_EXPECT_FALSE(test, p[1].active);
	KUNIT_EXPECT_EQ(test, sh.nactive, 1);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE);

	/* Back again: it counts at its first packet. */
	activate(&sh, &p[1], 1200, 1000);
	KUNIT_EXPECT_TRUE(test, p[1].active);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 2);

	/* A packet newer than the scan's clock (it arrived during the scan). */
	activate(&sh, &p[0], 1300, 1000);
	activate(&sh, &p[1], 1300, 1000);
	scan(&sh, p, 2, 1299);
	KUNIT_EXPECT_EQ(test, sh.nactive, 2);
	KUNIT_EXPECT_TRUE(test, p[0].active);
	KUNIT_EXPECT_TRUE(test, p[1].active);
}

/*
 * A sender with a packet missing is waiting to resend it: it stays
 * active past the hold time and is never taken for limited elsewhere,
 * so the others are not given its part only to overrun the receiver
 * when it comes back.
 */
static void missing_packet_test(struct kunit *test)
{
	struct mroce_share_peer p[2] = {};
	struct mroce_share sh;

	mroce_share_init(&sh, CAP, HOLD);
	activate(&sh, &p[0], 1000, 0);
	activate(&sh, &p[1], 1000, 0);
	activate(&sh, &p[0], 1049, 30000);
	activate(&sh, &p[1], 1001, 100);
	/* p[1] sent little, but has a hole: not satisfied. */
	scan_holes(&sh, p, 2, 1050, BIT(1));
	KUNIT_EXPECT_FALSE(test, p[1].satisfied);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 2);
	/* Silent for 200 us, still with its hole: still active. */
	activate(&sh, &p[0], 1200, 30000);
	scan_holes(&sh, p, 2, 1201, BIT(1));
	KUNIT_EXPECT_TRUE(test, p[1].active);
	KUNIT_EXPECT_EQ(test, sh.nactive, 2);
	/* The hole filled: the hold applies again, and it has passed. */
	activate(&sh, &p[0], 1250, 30000);
	scan(&sh, p, 2, 1251);
	KUNIT_EXPECT_FALSE(test, p[1].active);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE);
}

/* id SHARE-LEVEL: what a sender limited elsewhere leaves goes to the rest. */
static void max_min_test(struct kunit *test)
{
	struct mroce_share_peer p[3] = {};
	struct mroce_share sh;
	u32 rate;

	mroce_share_init(&sh, CAP, HOLD);
	activate(&sh, &p[0], 1000, 0);
	activate(&sh, &p[1], 1000, 0);
	activate(&sh, &p[2], 1000, 0);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 3);
	/* In 50 us, p[0] sends 1000 bytes (2% of the capacity), the others 15000. */
	activate(&sh, &p[0], 1049, 1000);
	activate(&sh, &p[1], 1049, 15000);
	activate(&sh, &p[2], 1049, 15000);
	scan(&sh, p, 3, 1050);
	rate = 1000ULL * 8 * MROCE_SHARE_ONE / 50 / CAP;
	KUNIT_EXPECT_TRUE(test, p[0].satisfied);
	KUNIT_EXPECT_EQ(test, p[0].rate, rate);
	KUNIT_EXPECT_FALSE(test, p[1].satisfied);
	KUNIT_EXPECT_EQ(test, sh.nsat, 1);
	KUNIT_EXPECT_EQ(test, sh.level, (MROCE_SHARE_ONE - rate) / 2);

	/* p[0] wants more now: everyone is back to a third. */
	activate(&sh, &p[0], 1099, 15000);
	activate(&sh, &p[1], 1099, 15000);
	activate(&sh, &p[2], 1099, 15000);
	scan(&sh, p, 3, 1100);
	KUNIT_EXPECT_EQ(test, sh.nsat, 0);
	KUNIT_EXPECT_EQ(test, sh.sat_rate, 0);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 3);

	/* A sender that joined during the period is not judged by it. */
	mroce_share_forget(&sh, &p[2]);
	KUNIT_EXPECT_EQ(test, sh.nactive, 2);
	activate(&sh, &p[2], 1140, 10);
	activate(&sh, &p[0], 1149, 15000);
	activate(&sh, &p[1], 1149, 15000);
	scan(&sh, p, 3, 1150);
	KUNIT_EXPECT_FALSE(test, p[2].satisfied);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 3);

	/* Every sender limited elsewhere: no one is held below 1/n. */
	activate(&sh, &p[0], 1199, 100);
	activate(&sh, &p[1], 1199, 100);
	activate(&sh, &p[2], 1199, 100);
	scan(&sh, p, 3, 1200);
	KUNIT_EXPECT_EQ(test, sh.nsat, 3);
	KUNIT_EXPECT_GE(test, sh.level, MROCE_SHARE_ONE / 3);
	KUNIT_EXPECT_LE(test, sh.level, MROCE_SHARE_ONE);

	/* Every peer forgotten: the counts are back to nothing. */
	mroce_share_forget(&sh, &p[0]);
	mroce_share_forget(&sh, &p[1]);
	mroce_share_forget(&sh, &p[2]);
	mroce_share_forget(&sh, &p[2]);
	KUNIT_EXPECT_EQ(test, sh.nactive, 0);
	KUNIT_EXPECT_EQ(test, sh.nsat, 0);
	KUNIT_EXPECT_EQ(test, sh.sat_rate, 0);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE);
}

/* id SHARE-PACE: the share's rate, in bursts of a base RTT's worth. */
static void pacer_test(struct kunit *test)
{
	struct mroce_pacer pc = {};
	unsigned int sent = 0, burst = 0;
	u64 t;

	/* No share given, or all of it: no bound. */
	mroce_pacer_set(&pc, MROCE_SHARE_ONE / 2, 0, 10, 1000, 0);
	KUNIT_EXPECT_TRUE(test, mroce_pacer_room(&pc));
	mroce_pacer_set(&pc, MROCE_SHARE_ONE, CAP, 10, 1000, 0);
	KUNIT_EXPECT_TRUE(test, mroce_pacer_room(&pc));
	KUNIT_EXPECT_EQ(test, mroce_pacer_due(&pc), 0);

	/* Half of 8 Gbit/s in 1000-byte packets: one every 2 us. */
	mroce_pacer_set(&pc, MROCE_SHARE_ONE / 2, CAP, 10, 1000, 1000);
	mroce_pacer_refill(&pc, 1000);
	while (mroce_pacer_room(&pc)) {
		mroce_pacer_spend(&pc);
		burst++;
	}
	/* A full bucket is half of 10 us at the link's rate: 5 packets less a hair. */
	KUNIT_EXPECT_EQ(test, burst, 4);
	KUNIT_EXPECT_EQ(test, mroce_pacer_due(&pc), 1001);
	for (t = 1001; t <= 2000; t++) {
		mroce_pacer_refill(&pc, t);
		KUNIT_EXPECT_EQ(test, mroce_pacer_due(&pc), 0);
		while (mroce_pacer_room(&pc)) {
			mroce_pacer_spend(&pc);
			sent++;
		}
		KUNIT_EXPECT_GT(test, mroce_pacer_due(&pc), t);
	}
	KUNIT_EXPECT_GE(test, sent, 499);
	KUNIT_EXPECT_LE(test, sent, 501);

	/* A smaller share takes effect at the next packet. */
	mroce_pacer_set(&pc, MROCE_SHARE_ONE / 8, CAP, 10, 1000, 2000);
	sent = 0;
	for (t = 2001; t <= 3000; t++) {
		mroce_pacer_refill(&pc, t);
		while (mroce_pacer_room(&pc)) {
			mroce_pacer_spend(&pc);
			sent++;
		}
	}
	KUNIT_EXPECT_GE(test, sent, 124);
	KUNIT_EXPECT_LE(test, sent, 127);

	/*
	 * Idle credit is capped at the burst: an idle sender (a pass that
	 * found nothing to send, then none for a second) cannot flood.
	 */
	mroce_pacer_refill(&pc, 3001);
	mroce_pacer_refill(&pc, 1000000);
	burst = 0;
	while (mroce_pacer_room(&pc)) {
		mroce_pacer_spend(&pc);
		burst++;
	}
	KUNIT_EXPECT_EQ(test, burst, 2);

	/*
	 * Resends go at once but take their credit, as a debt: three of
	 * them at 1/8 of 8 Gbit/s (a packet per 8 us) hold new packets back
	 * for their three packets' time, and the new one's own.
	 */
	mroce_pacer_charge(&pc);
	mroce_pacer_charge(&pc);
	mroce_pacer_charge(&pc);
	KUNIT_EXPECT_EQ(test, pc.debt, 3 * pc.cost);
	KUNIT_EXPECT_FALSE(test, mroce_pacer_room(&pc));
	KUNIT_EXPECT_EQ(test, mroce_pacer_due(&pc), 1000000 + 33);
	mroce_pacer_refill(&pc, 1000032);
	KUNIT_EXPECT_EQ(test, pc.debt, 0);
	KUNIT_EXPECT_FALSE(test, mroce_pacer_room(&pc));
	mroce_pacer_refill(&pc, 1000033);
	KUNIT_EXPECT_TRUE(test, mroce_pacer_room(&pc));

	/* The debt is bounded: a window's worth of resends at most. */
	for (burst = 0; burst < 2 * MROCE_CWND_MAX; burst++)
		mroce_pacer_charge(&pc);
	KUNIT_EXPECT_EQ(test, pc.debt, (u64)MROCE_CWND_MAX * pc.cost);

	/* The share lifted: no bound, no wait. */
	mroce_pacer_set(&pc, MROCE_SHARE_ONE, CAP, 10, 1000, 1000001);
	KUNIT_EXPECT_TRUE(test, mroce_pacer_room(&pc));
	KUNIT_EXPECT_EQ(test, mroce_pacer_due(&pc), 0);
}

static unsigned int pacer_drain(struct mroce_pacer *pc)
{
	unsigned int n = 0;

	while (mroce_pacer_room(pc)) {
		mroce_pacer_spend(pc);
		n++;
	}
	return n;
}

/*
 * id SHARE-PACE: a packet that waited for credit keeps what accrued
 * until its pass came, however late the host ran it (10 ms at most).
 */
static void pacer_late_test(struct kunit *test)
{
	struct mroce_pacer pc = {};
	unsigned int n;
	u64 due;

	/* 1/8 of 8 Gbit/s in 1000-byte packets: one every 8 us. */
	mroce_pacer_set(&pc, MROCE_SHARE_ONE / 8, CAP, 10, 1000, 1000);
	KUNIT_EXPECT_EQ(test, pacer_drain(&pc), 2);
	due = mroce_pacer_due(&pc);
	KUNIT_EXPECT_GT(test, due, 1000);

	/*
	 * The pass comes 800 us late, an ACK in between: the packet it was
	 * due for and the 100 of the time it was late.
	 */
	mroce_pacer_set(&pc, MROCE_SHARE_ONE / 8, CAP, 10, 1000, due + 400);
	mroce_pacer_refill(&pc, due + 800);
	n = pacer_drain(&pc);
	KUNIT_EXPECT_GE(test, n, 100);
	KUNIT_EXPECT_LE(test, n, 101);

	/* A second late: 10 ms' worth at most. */
	due = mroce_pacer_due(&pc);
	mroce_pacer_refill(&pc, due + 1000000);
	n = pacer_drain(&pc);
	KUNIT_EXPECT_GE(test, n, 1249);
	KUNIT_EXPECT_LE(test, n, 1251);

	/* A pass on time: one packet, as before. */
	due = mroce_pacer_due(&pc);
	mroce_pacer_refill(&pc, due);
	KUNIT_EXPECT_EQ(test, pacer_drain(&pc), 1);
}

/*
 * A sender whose packets arrive CE-marked is held back by congestion,
 * not by what it wants: it is not satisfied, and its part is not given
 * to the others (whose queue marks it).
 */
static void ce_marked_test(struct kunit *test)
{
	struct mroce_share_peer p[2] = {};
	struct mroce_share sh;

	mroce_share_init(&sh, CAP, HOLD);
	activate(&sh, &p[0], 1000, 0);
	activate(&sh, &p[1], 1000, 0);
	/* p[0] sends 2% of the capacity, one packet of it marked. */
	KUNIT_EXPECT_FALSE(test, mroce_share_rx(&p[0], 1020, 500, true));
	activate(&sh, &p[0], 1049, 500);
	activate(&sh, &p[1], 1049, 30000);
	scan(&sh, p, 2, 1050);
	KUNIT_EXPECT_FALSE(test, p[0].satisfied);
	KUNIT_EXPECT_EQ(test, sh.level, MROCE_SHARE_ONE / 2);
	/* The mark was the period's: unmarked, the same rate is satisfied. */
	KUNIT_EXPECT_FALSE(test, p[0].ce);
	activate(&sh, &p[0], 1099, 1000);
	activate(&sh, &p[1], 1099, 30000);
	scan(&sh, p, 2, 1100);
	KUNIT_EXPECT_TRUE(test, p[0].satisfied);
	KUNIT_EXPECT_GT(test, sh.level, MROCE_SHARE_ONE / 2);
}

static struct kunit_case mroce_share_cases[] = {
	KUNIT_CASE(arrivals_test),
	KUNIT_CASE(departure_test),
	KUNIT_CASE(missing_packet_test),
	KUNIT_CASE(max_min_test),
	KUNIT_CASE(ce_marked_test),
	KUNIT_CASE(pacer_test),
	KUNIT_CASE(pacer_late_test),
	{}
};

static struct kunit_suite mroce_share_suite = {
	.name = "mroce-share",
	.test_cases = mroce_share_cases,
};

kunit_test_suite(mroce_share_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for path choice and entropy (multipath.c): which path
 * carries a new packet or a detour, when the peer counts as silent, and
 * the ports paths take as routes fail and come back, with a next hop a
 * path fled shunned until something proves it works again.  The host's
 * routing is a table here: each port leads to the plane it names.
 */
#include <kunit/test.h>

#include "../multipath.h"

#define NPATHS	4
#define PLANE_A	0x100000001ULL
#define PLANE_B	0x200000001ULL
#define PLANE_C	0x300000001ULL

/**
 * struct fake_host - the routing and randomness a test gives its paths
 * @ps: the paths under test
 * @path: their storage
 * @sports: the ports random_sport() hands out, in turn
 * @nsports: entries of @sports
 * @next: the next of them
 * @moved: bit i set: path i was told it moved
 * @full: bit i set: path i's device takes no packet now
 */
struct fake_host {
	struct mroce_paths ps;
	struct mroce_path path[NPATHS];
	const u16 *sports;
	unsigned int nsports;
	unsigned int next;
	unsigned long moved;
	unsigned long full;
};

/* Ports 1xxxx lead to plane A, 2xxxx to B, 3xxxx to C, others unknown. */
static u64 fake_route_plane(struct mroce_paths *ps, u16 sport)
{
	switch (sport / 10000) {
	case 1:
		return PLANE_A;
	case 2:
		return PLANE_B;
	case 3:
		return PLANE_C;
	}
	return 0;
}

static u16 fake_random_sport(struct mroce_paths *ps)
{
	struct fake_host *h = container_of(ps, struct fake_host, ps);

	return h->sports[h->next++ % h->nsports];
}

static void fake_moved(struct mroce_paths *ps, unsigned int i)
{
	container_of(ps, struct fake_host, ps)->moved |= BIT(i);
}

static bool fake_egress_room(struct mroce_paths *ps, unsigned int i)
{
	return !(container_of(ps, struct fake_host, ps)->full & BIT(i));
}

static const struct mroce_paths_ops fake_ops = {
	.route_plane = fake_route_plane,
	.random_sport = fake_random_sport,
	.moved = fake_moved,
	.egress_room = fake_egress_room,
};

static struct fake_host *host_alloc(struct kunit *test)
{
	static const u16 none[] = { 50000 };
	struct fake_host *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	mroce_paths_init(&h->ps, h->path, NPATHS, &fake_ops, 0, false);
	h->sports = none;
	h->nsports = 1;
	for (i = 0; i < NPATHS; i++) {
		mroce_paths_init_path(&h->ps, i, 100, MROCE_RTO_INIT_US, 0);
		h->path[i].sport = 50000 + i;
	}
	return h;
}

static void acked_nothing(void *ctx, void *arg)
{
}

/* @path left @from at @when for @to, as mroce_paths_reroll() leaves it. */
static void fled(struct mroce_path *path, u64 from, u64 to, u64 when)
{
	path->home_sport = path->sport;
	path->home_plane = from;
	path->home_left_us = when;
	path->sport++;
	path->plane = to;
}

/*
 * Path 0 leaves A at t=1000 while path 1 stays there: A is shunned as
 * long as path 1 has delivered nothing sent after 1000 (A itself broke),
 * and no longer once it has (what broke was path 0's reverse route).
 */
static void reverse_failure_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;

	h->path[1].plane = PLANE_A;
	h->path[2].plane = PLANE_B;
	h->path[3].plane = PLANE_B;
	h->path[1].tx.delivered_us = 900;
	fled(&h->path[0], PLANE_A, PLANE_B, 1000);

	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));
	KUNIT_EXPECT_FALSE(test, mroce_paths_plane_fled(ps, PLANE_B));
	KUNIT_EXPECT_FALSE(test, mroce_paths_plane_fled(ps, PLANE_C));

	/* Sent exactly when path 0 left: not after, no proof. */
	h->path[1].tx.delivered_us = 1000;
	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));
	h->path[1].tx.delivered_us = 1001;
	KUNIT_EXPECT_FALSE(test, mroce_paths_plane_fled(ps, PLANE_A));

	/* Delivery over another next hop proves nothing of A. */
	h->path[1].tx.delivered_us = 900;
	h->path[2].tx.delivered_us = 5000;
	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));
}

/*
 * Every path fled A (a dead next hop): nothing is left on it to prove
 * it, so it stays shunned until the paths return; the proof must also
 * postdate the latest path to leave.
 */
static void dead_plane_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;

	h->path[2].plane = PLANE_B;
	h->path[3].plane = PLANE_C;
	h->path[2].tx.delivered_us = 9000;
	h->path[3].tx.delivered_us = 9000;
	fled(&h->path[0], PLANE_A, PLANE_B, 1000);
	fled(&h->path[1], PLANE_A, PLANE_C, 3000);
	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));

	/* A path moved onto A with only older deliveries: still shunned. */
	h->path[3].plane = PLANE_A;
	h->path[3].tx.delivered_us = 2000;
	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));
	h->path[3].tx.delivered_us = 3500;
	KUNIT_EXPECT_FALSE(test, mroce_paths_plane_fled(ps, PLANE_A));
	h->path[3].plane = PLANE_C;

	/* A path with no port (never used) proves nothing. */
	h->path[2].sport = 0;
	h->path[2].plane = PLANE_A;
	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));
	h->path[2].sport = 50002;
	h->path[2].plane = PLANE_B;

	/* One returns (its probe answered): the other still shuns A. */
	h->path[0].home_sport = 0;
	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));
	h->path[1].home_sport = 0;
	KUNIT_EXPECT_FALSE(test, mroce_paths_plane_fled(ps, PLANE_A));
}

/* random_sport() hands out @ports, in turn, from the first. */
static void draw(struct fake_host *h, const u16 *ports, unsigned int n)
{
	h->sports = ports;
	h->nsports = n;
	h->next = 0;
}

/*
 * ids ACK-PORT, ACK-PORT-MOVE: a path's ACKs follow its DATA's port; a
 * duplicate moves them to a port of a next hop neither the ACKs' nor the
 * DATA's port leads to, and not one the connection's paths fled if
 * another will do; the move holds for DATA on that port, a detour in
 * between or not.
 */
static void ack_port_test(struct kunit *test)
{
	static const u16 b[] = { 10000, 10001, 20001 };
	static const u16 fled_c[] = { 10002, 20002, 30001, 10003 };
	static const u16 own[] = { 10000, 30001, 10007, 30002 };
	static const u16 unknown[] = { 50000, 50001 };
	static const u16 c[] = { 30005 };
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	struct mroce_rxwin rx = {};

	mroce_paths_ack_port(ps, &rx, 10000, false);
	KUNIT_EXPECT_EQ(test, rx.sport, 10000);
	KUNIT_EXPECT_EQ(test, rx.data_sport, 10000);
	KUNIT_EXPECT_EQ(test, h->next, 0);

	/* Not the same port, nor its next hop A: B's 20001. */
	draw(h, b, ARRAY_SIZE(b));
	mroce_paths_ack_port(ps, &rx, 10000, true);
	KUNIT_EXPECT_EQ(test, rx.sport, 20001);
	mroce_paths_ack_port(ps, &rx, 10000, false);
	KUNIT_EXPECT_EQ(test, rx.sport, 20001);

	/* A detour's DATA, then the path's own again: the move holds. */
	mroce_paths_ack_port(ps, &rx, 30000, false);
	KUNIT_EXPECT_EQ(test, rx.sport, 30000);
	mroce_paths_ack_port(ps, &rx, 10000, false);
	KUNIT_EXPECT_EQ(test, rx.sport, 20001);

	/*
	 * Lost again: neither B (the ACKs') nor A (the DATA's); C was fled,
	 * but no other next hop is offered: C rather than A or B.
	 */
	fled(&h->path[0], PLANE_C, PLANE_A, 1000);
	draw(h, fled_c, ARRAY_SIZE(fled_c));
	mroce_paths_ack_port(ps, &rx, 10000, true);
	KUNIT_EXPECT_EQ(test, rx.sport, 30001);
	KUNIT_EXPECT_EQ(test, h->next, MROCE_PORT_CANDIDATES);

	/* Only their own next hops on offer: any other port. */
	draw(h, own, ARRAY_SIZE(own));
	mroce_paths_ack_port(ps, &rx, 10000, true);
	KUNIT_EXPECT_EQ(test, rx.sport, 10007);

	/* The sender moved the path: its ACKs follow. */
	mroce_paths_ack_port(ps, &rx, 20009, false);
	KUNIT_EXPECT_EQ(test, rx.sport, 20009);
	KUNIT_EXPECT_EQ(test, rx.data_sport, 20009);

	/*
	 * A duplicate on a new port (a detour's): the ACK of its first copy
	 * was lost too, so that port's ACKs move as well.
	 */
	draw(h, c, ARRAY_SIZE(c));
	mroce_paths_ack_port(ps, &rx, 10005, true);
	KUNIT_EXPECT_EQ(test, rx.sport, 30005);
	KUNIT_EXPECT_EQ(test, rx.data_sport, 10005);
	mroce_paths_ack_port(ps, &rx, 10005, false);
	KUNIT_EXPECT_EQ(test, rx.sport, 30005);

	/* Ports of no known next hop: the first other port. */
	draw(h, unknown, ARRAY_SIZE(unknown));
	mroce_paths_ack_port(ps, &rx, 50000, false);
	mroce_paths_ack_port(ps, &rx, 50000, true);
	KUNIT_EXPECT_EQ(test, rx.sport, 50001);
}

/*
 * id PATH-RETRY: a packet's expiries count against its queue pair's retry
 * count only while the peer is silent (no ACK acknowledged anything since
 * the packet was last sent); with the peer answering, only
 * MROCE_EXPIRIES_MAX of them end it.
 */
static void retry_count_test(struct kunit *test)
{
	static u8 sack[MROCE_SACK_BITS / 8];
	struct mroce_pkt pkt = { .type = MROCE_PKT_ACK, .path = 1,
				 .sack = sack, .share = MROCE_SHARE_ONE };
	struct fake_host *h = host_alloc(test);
	struct mroce_ack_result res;
	struct mroce_txslot *slot;
	struct mroce_expiry ex;
	unsigned int i;
	u64 t = 0;

	/* Silent: retry_cnt 0 allows 7 expiries, 7 allows 56. */
	mroce_paths_send(&h->ps, 0, t, NULL);
	slot = mroce_txpath_slot(&h->path[0].tx, 0);
	for (i = 1; i <= 7 * 8 + 1; i++) {
		t += mroce_txpath_rto(&h->path[0].tx);
		KUNIT_ASSERT_TRUE(test, mroce_paths_expire(&h->ps, 0, t, 0, &ex));
		h->path[0].nresend = 0;
		mroce_paths_resent(&h->ps, 0, 0, t, 0);
		KUNIT_EXPECT_EQ(test, (unsigned int)slot->silent, i);
		KUNIT_EXPECT_EQ(test, mroce_txslot_exhausted(slot, 0),
				i > 7 ? MROCE_SLOT_RETRIES_EXCEEDED : MROCE_SLOT_RETRYING);
		KUNIT_EXPECT_EQ(test, mroce_txslot_exhausted(slot, 7),
				i > 7 * 8 ? MROCE_SLOT_RETRIES_EXCEEDED : MROCE_SLOT_RETRYING);
	}

	/* Path 1 gets a packet acknowledged between the expiries of path 0's. */
	h = host_alloc(test);
	t = 0;
	mroce_paths_send(&h->ps, 0, t, NULL);
	slot = mroce_txpath_slot(&h->path[0].tx, 0);
	for (i = 1; i <= MROCE_EXPIRIES_MAX; i++) {
		KUNIT_EXPECT_EQ(test, mroce_txslot_exhausted(slot, 0), MROCE_SLOT_RETRYING);
		pkt.psn = mroce_paths_send(&h->ps, 1, t + 1, NULL) + 1;
		KUNIT_ASSERT_EQ(test, mroce_paths_ack(&h->ps, 1, t + 2, &pkt,
						      acked_nothing, NULL,
						      &res), 0);
		KUNIT_ASSERT_EQ(test, res.acked, 1);
		t += mroce_txpath_rto(&h->path[0].tx);
		KUNIT_ASSERT_TRUE(test, mroce_paths_expire(&h->ps, 0, t, 0, &ex));
		h->path[0].nresend = 0;
		mroce_paths_resent(&h->ps, 0, 0, t, 0);
	}
	KUNIT_EXPECT_EQ(test, slot->expiries, MROCE_EXPIRIES_MAX);
	KUNIT_EXPECT_EQ(test, (unsigned int)slot->silent, 0);
	KUNIT_EXPECT_EQ(test, mroce_txslot_exhausted(slot, 7),
			MROCE_SLOT_EXPIRIES_EXCEEDED);

	/* An ACK before the packet's latest transmission says nothing of it. */
	pkt.psn = mroce_paths_send(&h->ps, 1, t, NULL) + 1;
	KUNIT_ASSERT_EQ(test, mroce_paths_ack(&h->ps, 1, t, &pkt, acked_nothing,
					      NULL, &res), 0);
	t += 1;
	mroce_paths_send(&h->ps, 2, t, NULL);
	slot = mroce_txpath_slot(&h->path[2].tx, 0);
	t += mroce_txpath_rto(&h->path[2].tx);
	KUNIT_ASSERT_TRUE(test, mroce_paths_expire(&h->ps, 2, t, 0, &ex));
	KUNIT_EXPECT_EQ(test, (unsigned int)slot->silent, 1);
}

/*
 * id CC-IW: a connection's paths share its initial window; each starts
 * with its part, rounded up, and with the initial RTO asked for.
 */
static void initial_window_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_path *path = kunit_kcalloc(test, 3, sizeof(*path), GFP_KERNEL);
	struct mroce_paths ps;
	unsigned int i, sum = 0;

	KUNIT_ASSERT_NOT_NULL(test, path);
	for (i = 0; i < NPATHS; i++)
		sum += h->path[i].tx.cc.cwnd;
	KUNIT_EXPECT_EQ(test, sum, MROCE_CWND_INIT);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, MROCE_RTO_INIT_US);

	mroce_paths_init(&ps, path, 3, &fake_ops, 0, false);
	for (i = 0; i < 3; i++) {
		mroce_paths_init_path(&ps, i, 2000, 0, 0);
		KUNIT_EXPECT_EQ(test, path[i].tx.cc.cwnd, 6);
		/* No initial RTO: the floor. */
		KUNIT_EXPECT_EQ(test, path[i].tx.rto_us, 2000);
	}
	mroce_paths_init(&ps, path, 1, &fake_ops, 0, false);
	mroce_paths_init_path(&ps, 0, 100, 500, 0);
	KUNIT_EXPECT_EQ(test, path[0].tx.cc.cwnd, MROCE_CWND_INIT);
	KUNIT_EXPECT_EQ(test, path[0].tx.rto_us, 500);
}

/* New packets: the most room, equal paths in turn, never a backed-off one. */
static void pick_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	unsigned int i, seen = 0;

	for (i = 0; i < NPATHS; i++)
		seen |= BIT(mroce_paths_pick(ps));
	KUNIT_EXPECT_EQ(test, seen, BIT(NPATHS) - 1);

	/* Path 1 has less room than the others: never the first choice. */
	mroce_txpath_send(&h->path[1].tx, 10, NULL);
	for (i = 0; i < 2 * NPATHS; i++)
		KUNIT_EXPECT_NE(test, mroce_paths_pick(ps), 1);

	/* Two expiries in a row: only its own resends. */
	h->path[0].tx.backoff = 2;
	h->path[2].tx.backoff = 2;
	h->path[3].tx.backoff = 2;
	for (i = 0; i < NPATHS; i++)
		KUNIT_EXPECT_EQ(test, mroce_paths_pick(ps), 1);
	h->path[1].tx.backoff = 3;
	KUNIT_EXPECT_EQ(test, mroce_paths_pick(ps), -1);
}

/* A path whose device is full waits; the others carry on without it. */
static void egress_full_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	unsigned int i;

	h->full = BIT(0) | BIT(2);
	for (i = 0; i < 2 * NPATHS; i++) {
		int id = mroce_paths_pick(ps);

		KUNIT_EXPECT_TRUE(test, id == 1 || id == 3);
	}
	h->full = BIT(NPATHS) - 1;
	KUNIT_EXPECT_EQ(test, mroce_paths_pick(ps), -1);
	/* Nothing was spent: the next pick, with room, gets a path. */
	h->full = 0;
	KUNIT_EXPECT_GE(test, mroce_paths_pick(ps), 0);
}

/*
 * The route of a resend: its own for a loss a SACK or the time rule
 * found, another path's for an expired packet or a probe that asks
 * (PATH-TLP).  Detours: another path that delivers, in turn; of those,
 * one that delivered a packet sent since the resent packet, then one on
 * another next hop; the own route if none delivers.
 */
static void detour_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	struct mroce_txslot slot = { .xmit_us = 1000 };
	unsigned int i, seen = 0;

	/* No RTT measured anywhere: nothing is known to deliver. */
	slot.expiries = 1;
	KUNIT_EXPECT_EQ(test, mroce_paths_resend_route(ps, 0, &slot), 0);
	for (i = 0; i < NPATHS; i++)
		h->path[i].tx.srtt_us = 100;
	h->path[2].tx.backoff = 1;
	for (i = 0; i < 2 * NPATHS; i++)
		seen |= BIT(mroce_paths_resend_route(ps, 0, &slot));
	KUNIT_EXPECT_EQ(test, seen, BIT(1) | BIT(3));

	/* A loss on a route that delivers goes by that route. */
	slot.expiries = 0;
	KUNIT_EXPECT_EQ(test, mroce_paths_resend_route(ps, 0, &slot), 0);
	slot.reroute = 1;
	KUNIT_EXPECT_NE(test, mroce_paths_resend_route(ps, 0, &slot), 0);

	/* Path 3 delivered a packet sent since: always it. */
	h->path[3].tx.delivered_us = 1000;
	for (i = 0; i < 2 * NPATHS; i++)
		KUNIT_EXPECT_EQ(test, mroce_paths_resend_route(ps, 0, &slot), 3);

	/* Neither did: not path 1, on path 0's next hop. */
	h->path[3].tx.delivered_us = 999;
	h->path[0].plane = PLANE_A;
	h->path[1].plane = PLANE_A;
	h->path[3].plane = PLANE_B;
	for (i = 0; i < 2 * NPATHS; i++)
		KUNIT_EXPECT_EQ(test, mroce_paths_resend_route(ps, 0, &slot), 3);
}

/*
 * A path silent while others deliver (PATH-SILENT), or on a next hop
 * another path fled, takes a new packet only when it has none out.
 */
static void held_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	struct mroce_txpath *tx = &h->path[1].tx;
	unsigned int i;

	for (i = 0; i < NPATHS; i++)
		h->path[i].tx.cc.cwnd = 1;
	tx->cc.cwnd = 8;
	tx->srtt_us = 10;
	mroce_paths_send(ps, 1, 100, NULL);
	tx->others_us = 150;	/* another path delivered one sent later */
	mroce_paths_pass(ps, 119);
	KUNIT_EXPECT_EQ(test, mroce_paths_pick(ps), 1);
	mroce_paths_pass(ps, 120);
	KUNIT_EXPECT_EQ(test, ps->held, BIT_ULL(1));
	for (i = 0; i < 2 * NPATHS; i++)
		KUNIT_EXPECT_NE(test, mroce_paths_pick(ps), 1);

	/* Without the others' evidence it is only waiting in a queue. */
	tx->others_us = 100;
	mroce_paths_pass(ps, 120);
	KUNIT_EXPECT_EQ(test, mroce_paths_pick(ps), 1);

	/* On a next hop another path fled: the same. */
	tx->others_us = 0;
	h->path[1].plane = PLANE_A;
	fled(&h->path[0], PLANE_A, PLANE_B, 50);
	mroce_paths_pass(ps, 120);
	KUNIT_EXPECT_EQ(test, ps->held, BIT_ULL(1));
	KUNIT_EXPECT_NE(test, mroce_paths_pick(ps), 1);
}

/* DEAD-PEER-QUIET: every path holding packets expired five times. */
static void silent_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;

	KUNIT_EXPECT_TRUE(test, mroce_paths_silent(ps));	/* nothing in flight */
	mroce_txpath_send(&h->path[0].tx, 10, NULL);
	mroce_txpath_send(&h->path[2].tx, 10, NULL);
	h->path[0].tx.backoff = MROCE_BLIND_EXPIRIES;
	h->path[2].tx.backoff = MROCE_BLIND_EXPIRIES - 1;
	KUNIT_EXPECT_FALSE(test, mroce_paths_silent(ps));
	h->path[2].tx.backoff = MROCE_BLIND_EXPIRIES;
	h->path[3].tx.backoff = 0;	/* nothing in flight: no say */
	KUNIT_EXPECT_TRUE(test, mroce_paths_silent(ps));

	h->path[1].tx.delivered_us = 700;
	h->path[3].tx.delivered_us = 900;
	KUNIT_EXPECT_EQ(test, mroce_paths_delivered(ps), 900);
}

/*
 * Path 0's route on plane A is found dead: it moves to the least loaded
 * plane that is not A, probes its old port, and returns once the probe
 * is answered, with the window it had there.
 */
static void reroll_and_return_test(struct kunit *test)
{
	/* A (refused: the dead plane), B (2 paths there), C (1), C. */
	static const u16 sports[] = { 10001, 20001, 30001, 30002 };
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	struct mroce_path *p0 = &h->path[0];

	h->sports = sports;
	h->nsports = ARRAY_SIZE(sports);
	p0->sport = 10000;
	p0->plane = PLANE_A;
	h->path[1].sport = 20000;
	h->path[1].plane = PLANE_B;
	h->path[2].sport = 20002;
	h->path[2].plane = PLANE_B;
	h->path[3].sport = 30000;
	h->path[3].plane = PLANE_C;
	p0->tx.cc.cwnd = 40;
	mroce_txpath_send(&p0->tx, 0, NULL);
	mroce_cc_on_timeout(&p0->tx.cc, p0->tx.nxt, true, true);

	mroce_paths_reroll(ps, 0, 1000);
	KUNIT_EXPECT_EQ(test, p0->home_sport, 10000);
	KUNIT_EXPECT_EQ(test, p0->home_plane, PLANE_A);
	KUNIT_EXPECT_EQ(test, p0->home_cwnd, 40);
	KUNIT_EXPECT_EQ(test, p0->plane, PLANE_C);
	KUNIT_EXPECT_EQ(test, p0->sport / 10000, 3);
	KUNIT_EXPECT_EQ(test, p0->rerolls, 1);
	KUNIT_EXPECT_EQ(test, h->moved, BIT(0));
	KUNIT_EXPECT_TRUE(test, mroce_paths_plane_fled(ps, PLANE_A));

	/* Probes: every MROCE_HOME_PROBE_US, until MROCE_HOME_KEEP_US. */
	KUNIT_EXPECT_FALSE(test, mroce_paths_probe_due(ps, 0, 1000));
	KUNIT_EXPECT_TRUE(test, mroce_paths_probe_due(ps, 0,
						      1000 + MROCE_HOME_PROBE_US));
	KUNIT_EXPECT_FALSE(test, mroce_paths_probe_due(ps, 0,
						       1001 + MROCE_HOME_PROBE_US));
	KUNIT_EXPECT_FALSE(test, mroce_paths_probe_due(ps, 1, 1000000));

	/* Answered: home again, with its old window. */
	p0->tx.cc.cwnd = 2;
	h->moved = 0;
	KUNIT_EXPECT_TRUE(test, mroce_paths_return(ps, 0, 5000));
	KUNIT_EXPECT_EQ(test, p0->sport, 10000);
	KUNIT_EXPECT_EQ(test, p0->plane, PLANE_A);
	KUNIT_EXPECT_EQ(test, p0->home_sport, 0);
	KUNIT_EXPECT_EQ(test, p0->tx.cc.cwnd, 40);
	KUNIT_EXPECT_EQ(test, h->moved, BIT(0));
	KUNIT_EXPECT_FALSE(test, mroce_paths_plane_fled(ps, PLANE_A));

	/* Given up after MROCE_HOME_KEEP_US without an answer. */
	mroce_paths_reroll(ps, 0, 10000);
	KUNIT_EXPECT_FALSE(test, mroce_paths_probe_due(ps, 0,
						       10000 + MROCE_HOME_KEEP_US));
	KUNIT_EXPECT_EQ(test, p0->home_sport, 0);
}

/* An answer over another next hop than the one that failed: stay. */
static void return_elsewhere_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_path *p0 = &h->path[0];

	p0->home_sport = 20000;	/* leads to B now */
	p0->home_plane = PLANE_A;
	p0->sport = 30000;
	p0->plane = PLANE_C;
	KUNIT_EXPECT_FALSE(test, mroce_paths_return(&h->ps, 0, 100));
	KUNIT_EXPECT_EQ(test, p0->sport, 30000);
	KUNIT_EXPECT_EQ(test, h->moved, 0);
}

/*
 * Idle paths on a crowded next hop move to one with at least two paths
 * fewer than their own (others counted): of four on A, one moves to B;
 * a second would leave A with one fewer only.
 */
static void spread_test(struct kunit *test)
{
	static const u16 sports[] = { 20005, 20006, 20007, 20008 };
	struct fake_host *h = host_alloc(test);
	unsigned int i, on_b = 0;

	h->sports = sports;
	h->nsports = ARRAY_SIZE(sports);
	for (i = 0; i < NPATHS; i++)
		h->path[i].sport = 10000 + i;	/* all on A */
	mroce_txpath_send(&h->path[3].tx, 0, NULL);
	mroce_paths_spread(&h->ps, 100);
	for (i = 0; i < NPATHS; i++)
		on_b += h->path[i].plane == PLANE_B;
	KUNIT_EXPECT_EQ(test, on_b, 1);
	KUNIT_EXPECT_EQ(test, h->path[3].plane, PLANE_A);	/* busy: stays */
	KUNIT_EXPECT_EQ(test, hweight_long(h->moved), 1);
	KUNIT_EXPECT_EQ(test, h->path[0].plane, PLANE_B);
}

/* An ACK of path @i: everything before @cum, and the @sack_bits after it. */
static int ack(struct fake_host *h, unsigned int i, u64 now, u32 cum,
	       unsigned int sack_bits, struct mroce_ack_result *res)
{
	static u8 sack[MROCE_SACK_BITS / 8];
	struct mroce_pkt pkt = { .type = MROCE_PKT_ACK, .path = i, .psn = cum,
				 .sack = sack };
	unsigned int b;

	memset(sack, 0, sizeof(sack));
	for (b = 0; b < sack_bits; b++)
		sack[b / 8] |= 1U << (b % 8);
	return mroce_paths_ack(&h->ps, i, now, &pkt, acked_nothing, NULL, res);
}

/*
 * PATH-RTO-SEED: a path's RTT sample is the RTT estimate and RTO of
 * every path without one of its own, so their tail probes work; a path
 * with its own keeps it, and a seeded path's first sample replaces the
 * seed.  Losses an ACK finds join the path's resend list.
 */
static void rto_seed_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_ack_result res;
	unsigned int i;

	for (i = 0; i < NPATHS; i++)
		KUNIT_EXPECT_EQ(test, h->path[i].tx.rto_us, MROCE_RTO_INIT_US);
	/* An ACK of a sequence never sent changes nothing. */
	KUNIT_EXPECT_EQ(test, ack(h, 1, 1000, 1, 0, &res), -EINVAL);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, MROCE_RTO_INIT_US);

	mroce_txpath_send(&h->path[1].tx, 1000, NULL);
	KUNIT_ASSERT_EQ(test, ack(h, 1, 1050, 1, 0, &res), 0);
	KUNIT_EXPECT_EQ(test, res.rtt_us, 50);
	/* What path 1 delivered is the others' evidence (PATH-TLP), not its. */
	KUNIT_EXPECT_EQ(test, h->path[0].tx.others_us, 1000);
	KUNIT_EXPECT_EQ(test, h->path[3].tx.others_us, 1000);
	KUNIT_EXPECT_EQ(test, h->path[1].tx.others_us, 0);
	/* 50 + 4 * 25, above the floor of 100 */
	KUNIT_EXPECT_EQ(test, h->path[1].tx.rto_us, 150);
	for (i = 0; i < NPATHS; i++) {
		KUNIT_EXPECT_EQ(test, h->path[i].tx.rto_us, 150);
		KUNIT_EXPECT_EQ(test, h->path[i].tx.srtt_us, 50);
		KUNIT_EXPECT_EQ(test, h->path[i].tx.seeded, i != 1);
	}
	/* Path 0's first packet: its tail probe is due after 2 x 50. */
	mroce_txpath_send(&h->path[0].tx, 2000, NULL);
	KUNIT_EXPECT_EQ(test, mroce_txpath_deadline(&h->path[0].tx), 2100);

	/* Path 2's own sample: 300 + 4 * 150. */
	mroce_txpath_send(&h->path[2].tx, 3000, NULL);
	KUNIT_ASSERT_EQ(test, ack(h, 2, 3300, 1, 0, &res), 0);
	KUNIT_EXPECT_EQ(test, h->path[1].tx.others_us, 3000);
	KUNIT_EXPECT_EQ(test, h->path[2].tx.others_us, 1000);
	KUNIT_EXPECT_EQ(test, h->path[2].tx.rto_us, 900);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, 900);
	KUNIT_EXPECT_EQ(test, h->path[3].tx.rto_us, 900);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.srtt_us, 300);
	KUNIT_EXPECT_EQ(test, h->path[1].tx.rto_us, 150);
	KUNIT_EXPECT_EQ(test, h->path[1].tx.srtt_us, 50);

	/* Path 0's own sample, 1320: the seed is no part of its estimate. */
	KUNIT_ASSERT_EQ(test, ack(h, 0, 3320, 1, 0, &res), 0);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.srtt_us, 1320);
	KUNIT_EXPECT_FALSE(test, h->path[0].tx.seeded);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, 1320 + 4 * 660);
	KUNIT_EXPECT_EQ(test, h->path[2].tx.rto_us, 900);

	/* Sequences 1-4 of path 1 arrive, 0 does not: it is due again. */
	for (i = 0; i < 5; i++)
		mroce_txpath_send(&h->path[1].tx, 4000 + i, NULL);
	KUNIT_ASSERT_EQ(test, ack(h, 1, 4100, 1, 4, &res), 0);
	KUNIT_EXPECT_EQ(test, res.lost, 1);
	KUNIT_ASSERT_EQ(test, h->path[1].nresend, 1);
	KUNIT_EXPECT_EQ(test, h->path[1].resend[0], 1);
}

/*
 * RTT-HELLO: three HELLO round trips are the RTO of every path without
 * an RTT estimate, if shorter; no smoothed RTT comes of it; once a path
 * has sampled the RTT, every path keeps the RTO that sample gave it (its
 * own or PATH-RTO-SEED's).  HELLO-RESEND and HELLO-COPIES: when HELLOs
 * go again, and how many.
 */
static void hello_rto_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_hello hello = {};
	struct mroce_ack_result res;
	unsigned int i;

	mroce_paths_hello_rto(&h->ps, 40);
	for (i = 0; i < NPATHS; i++) {
		KUNIT_EXPECT_EQ(test, h->path[i].tx.rto_us, 120);
		KUNIT_EXPECT_EQ(test, h->path[i].tx.srtt_us, 0);
	}
	/* Longer than the RTO the paths have: no change. */
	mroce_paths_hello_rto(&h->ps, 400);
	KUNIT_EXPECT_EQ(test, h->path[3].tx.rto_us, 120);

	/* Path 1's sample (300 + 4 * 150) is every path's RTO now. */
	h = host_alloc(test);
	mroce_txpath_send(&h->path[1].tx, 1000, NULL);
	KUNIT_ASSERT_EQ(test, ack(h, 1, 1300, 1, 0, &res), 0);
	mroce_paths_hello_rto(&h->ps, 40);
	KUNIT_EXPECT_EQ(test, h->path[1].tx.rto_us, 900);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, 900);

	/* Within the bounds: the floor (100 us here), and 1 s. */
	h = host_alloc(test);
	mroce_paths_hello_rto(&h->ps, 10);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, 100);
	h = host_alloc(test);
	mroce_paths_hello_rto(&h->ps, 0);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, 100);
	mroce_paths_hello_rto(&h->ps, U64_MAX);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, 100);

	/* HELLO-RESEND: the minimum RTO, doubling, at most 20 ms. */
	KUNIT_EXPECT_EQ(test, mroce_paths_hello_wait(&h->ps, 1), 100);
	KUNIT_EXPECT_EQ(test, mroce_paths_hello_wait(&h->ps, 2), 200);
	KUNIT_EXPECT_EQ(test, mroce_paths_hello_wait(&h->ps, 8), 12800);
	KUNIT_EXPECT_EQ(test, mroce_paths_hello_wait(&h->ps, 9), MROCE_HELLO_US);
	KUNIT_EXPECT_EQ(test, mroce_paths_hello_wait(&h->ps, 255), MROCE_HELLO_US);

	/* HELLO-COPIES: each time, three at once; then the waits above. */
	h = host_alloc(test);
	KUNIT_EXPECT_EQ(test, mroce_hello_due(&hello, &h->ps, 1000), 3);
	KUNIT_EXPECT_EQ(test, hello.sent_us, 1000);
	KUNIT_EXPECT_EQ(test, mroce_hello_due(&hello, &h->ps, 1000), 0);
	KUNIT_EXPECT_EQ(test, mroce_hello_due(&hello, &h->ps, 1099), 0);
	KUNIT_EXPECT_EQ(test, mroce_hello_due(&hello, &h->ps, 1100), 3);
	KUNIT_EXPECT_EQ(test, mroce_hello_due(&hello, &h->ps, 1299), 0);
	KUNIT_EXPECT_EQ(test, mroce_hello_due(&hello, &h->ps, 1300), 3);
	KUNIT_EXPECT_EQ(test, hello.due_us, 1700);
	/* The answer times the paths' first RTO from the latest. */
	mroce_hello_heard(&hello, &h->ps, 1340);
	KUNIT_EXPECT_EQ(test, hello.sent_us, 0);
	KUNIT_EXPECT_EQ(test, h->path[0].tx.rto_us, 120);
}

/*
 * The send pass's timers: the earliest expiry or route probe of any
 * path, and each expiry's packets queued once, on its own path.
 */
static void expire_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	struct mroce_expiry ex;
	u32 psn;

	KUNIT_EXPECT_EQ(test, mroce_paths_deadline(ps), 0);
	h->path[3].tx.rto_us = 500;
	psn = mroce_txpath_send(&h->path[3].tx, 1000, NULL);
	KUNIT_EXPECT_EQ(test, mroce_paths_deadline(ps), 1500);
	h->path[1].home_sport = 40000;
	h->path[1].home_probe_us = 1200;
	KUNIT_EXPECT_EQ(test, mroce_paths_deadline(ps), 1200);

	KUNIT_EXPECT_FALSE(test, mroce_paths_expire(ps, 3, 1499, 0, &ex));
	KUNIT_EXPECT_FALSE(test, mroce_paths_expire(ps, 0, 1500, 0, &ex));
	KUNIT_ASSERT_TRUE(test, mroce_paths_expire(ps, 3, 1500, 0, &ex));
	KUNIT_EXPECT_TRUE(test, ex.first);
	KUNIT_EXPECT_FALSE(test, ex.dead);
	KUNIT_ASSERT_EQ(test, ex.n, 1);
	KUNIT_EXPECT_EQ(test, ex.due[0], psn);
	KUNIT_EXPECT_PTR_EQ(test, ex.due, (const u32 *)h->path[3].resend);
	KUNIT_EXPECT_EQ(test, h->path[3].nresend, 1);
	/* A timeout's packets are not the loss monitor's (CC-LOSS). */
	KUNIT_EXPECT_EQ(test, ps->lossmon.lost, 0);
	/* Due again, not yet resent: no second expiry. */
	KUNIT_EXPECT_FALSE(test, mroce_paths_expire(ps, 3, 1600, 0, &ex));
	KUNIT_EXPECT_EQ(test, mroce_paths_deadline(ps), 1200);
}

/*
 * SHARE-PACE through the paths: an ACK's share paces the connection's
 * new packets over all its paths together; the wait is a deadline of
 * the send pass; an ACK that gives no share lifts the bound.
 */
static void share_pace_test(struct kunit *test)
{
	struct fake_host *h = host_alloc(test);
	struct mroce_paths *ps = &h->ps;
	static u8 sack[MROCE_SACK_BITS / 8];
	struct mroce_pkt pkt = { .type = MROCE_PKT_ACK, .path = 0, .psn = 1,
				 .sack = sack, .share = MROCE_SHARE_ONE / 2,
				 .capacity = 8000 };
	struct mroce_ack_result res;
	unsigned int sent = 0;
	int id;

	ps->pkt_bytes = 1000;
	KUNIT_ASSERT_EQ(test, mroce_paths_pick(ps), 0);
	mroce_paths_send(ps, 0, 1000, NULL);
	/* Half of 8 Gbit/s, a 10-us base RTT: bursts of 5 packets less a hair. */
	KUNIT_ASSERT_EQ(test, mroce_paths_ack(ps, 0, 1010, &pkt, acked_nothing,
					      NULL, &res), 0);
	KUNIT_EXPECT_EQ(test, ps->base_rtt_us, 10);
	mroce_paths_pass(ps, 1010);
	while ((id = mroce_paths_pick(ps)) >= 0) {
		mroce_paths_send(ps, id, 1010, NULL);
		sent++;
	}
	KUNIT_EXPECT_EQ(test, sent, 4);
	/* Over several paths, though they have room for 16: one pace for all. */
	for (id = 0, sent = 0; id < NPATHS; id++)
		sent += !!mroce_txpath_inflight(&h->path[id].tx);
	KUNIT_EXPECT_GE(test, sent, 3);
	KUNIT_EXPECT_EQ(test, mroce_paths_deadline(ps), 1011);
	mroce_paths_pass(ps, 1011);
	KUNIT_EXPECT_GE(test, mroce_paths_pick(ps), 0);

	/* No share given: no bound, no wait. */
	pkt.psn = 1;
	pkt.capacity = 0;
	pkt.share = MROCE_SHARE_ONE;
	KUNIT_ASSERT_EQ(test, mroce_paths_ack(ps, 0, 1012, &pkt, acked_nothing,
					      NULL, &res), 0);
	mroce_paths_pass(ps, 1012);
	for (sent = 0; sent < 10; sent++) {
		id = mroce_paths_pick(ps);
		KUNIT_ASSERT_GE(test, id, 0);
		mroce_paths_send(ps, id, 1012, NULL);
	}
}

/*
 * CC-LOSS through the paths: an epoch of 128 packets whose losses pass
 * the floor's bound halves every path's window, not only the lossy
 * one's, and their growth is shared among them; with the reaction off
 * (module parameter congestive_loss), the same epoch cuts nothing.
 */
static void congestive_loss_test(struct kunit *test)
{
	static u8 sack[MROCE_SACK_BITS / 8];
	struct mroce_pkt pkt = { .type = MROCE_PKT_ACK, .path = 0, .psn = 0,
				 .sack = sack, .share = MROCE_SHARE_ONE };
	struct mroce_ack_result res;
	struct fake_host *h;
	unsigned int i, b;
	bool on;

	/* Sequences 0-39 lost, 40-127 acknowledged: bits 39-126. */
	memset(sack, 0, sizeof(sack));
	for (b = 39; b < 127; b++)
		sack[b / 8] |= 1U << (b % 8);
	for (on = false; ; on = true) {
		h = host_alloc(test);
		h->ps.loss_cc = on;
		for (i = 0; i < 128; i++)
			mroce_txpath_send(&h->path[0].tx, 1000, NULL);
		KUNIT_ASSERT_EQ(test, mroce_paths_ack(&h->ps, 0, 1100, &pkt,
						      acked_nothing, NULL,
						      &res), 0);
		KUNIT_EXPECT_EQ(test, res.acked, 88);
		KUNIT_EXPECT_EQ(test, res.lost, 40);
		/* 40 > 2 x (128 / 8 + 3): congestive; the epoch starts over. */
		KUNIT_EXPECT_EQ(test, res.loss_cuts, on ? NPATHS : 0);
		KUNIT_EXPECT_EQ(test, h->ps.lossmon.acked + h->ps.lossmon.lost, 0);
		for (i = 0; i < NPATHS; i++) {
			/* Path 0 grew first, in slow start, by what it acked. */
			u32 cwnd = MROCE_CWND_INIT / NPATHS + (i ? 0 : 88);

			KUNIT_EXPECT_EQ(test, h->path[i].tx.cc.cwnd,
					on ? cwnd - cwnd / 2 : cwnd);
			KUNIT_EXPECT_EQ(test, h->path[i].tx.cc.ai_paths,
					on ? NPATHS : 1);
		}
		if (on)
			break;
	}
}

static struct kunit_case mroce_multipath_cases[] = {
	KUNIT_CASE(reverse_failure_test),
	KUNIT_CASE(dead_plane_test),
	KUNIT_CASE(ack_port_test),
	KUNIT_CASE(initial_window_test),
	KUNIT_CASE(retry_count_test),
	KUNIT_CASE(pick_test),
	KUNIT_CASE(egress_full_test),
	KUNIT_CASE(detour_test),
	KUNIT_CASE(held_test),
	KUNIT_CASE(silent_test),
	KUNIT_CASE(reroll_and_return_test),
	KUNIT_CASE(return_elsewhere_test),
	KUNIT_CASE(spread_test),
	KUNIT_CASE(rto_seed_test),
	KUNIT_CASE(hello_rto_test),
	KUNIT_CASE(expire_test),
	KUNIT_CASE(share_pace_test),
	KUNIT_CASE(congestive_loss_test),
	{}
};

static struct kunit_suite mroce_multipath_suite = {
	.name = "mroce-multipath",
	.test_cases = mroce_multipath_cases,
};

kunit_test_suite(mroce_multipath_suite);

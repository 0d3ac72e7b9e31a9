// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a connection's choice of next hops (conn.c): a next hop
 * a path fled stays shunned until something proves it works again.  The
 * connection is built by hand; no route is looked up.
 */
#include <kunit/test.h>

#include "../transport.h"

#define NPATHS	4
/* Next-hop keys as mroce_route_plane() makes them. */
#define PLANE_A	mroce_plane_key(1, 1)
#define PLANE_B	mroce_plane_key(2, 1)
#define PLANE_C	mroce_plane_key(3, 1)

static struct mroce_conn *conn_alloc(struct kunit *test)
{
	struct mroce_conn *conn;
	unsigned int i;

	conn = kunit_kzalloc(test, struct_size(conn, path, NPATHS), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, conn);
	conn->npaths = NPATHS;
	for (i = 0; i < NPATHS; i++)
		conn->path[i].sport = 50000 + i;
	return conn;
}

/* @path left @from at @when for @to, as mroce_path_reroll() leaves it. */
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
	struct mroce_conn *conn = conn_alloc(test);

	conn->path[1].plane = PLANE_A;
	conn->path[2].plane = PLANE_B;
	conn->path[3].plane = PLANE_B;
	conn->path[1].tx.delivered_us = 900;
	fled(&conn->path[0], PLANE_A, PLANE_B, 1000);

	KUNIT_EXPECT_TRUE(test, mroce_conn_plane_fled(conn, PLANE_A));
	KUNIT_EXPECT_FALSE(test, mroce_conn_plane_fled(conn, PLANE_B));
	KUNIT_EXPECT_FALSE(test, mroce_conn_plane_fled(conn, PLANE_C));

	/* Sent exactly when path 0 left: not after, no proof. */
	conn->path[1].tx.delivered_us = 1000;
	KUNIT_EXPECT_TRUE(test, mroce_conn_plane_fled(conn, PLANE_A));
	conn->path[1].tx.delivered_us = 1001;
	KUNIT_EXPECT_FALSE(test, mroce_conn_plane_fled(conn, PLANE_A));

	/* Delivery over another next hop proves nothing of A. */
	conn->path[1].tx.delivered_us = 900;
	conn->path[2].tx.delivered_us = 5000;
	KUNIT_EXPECT_TRUE(test, mroce_conn_plane_fled(conn, PLANE_A));
}

/*
 * Every path fled A (a dead next hop): nothing is left on it to prove
 * it, so it stays shunned until the paths return; the proof must also
 * postdate the latest path to leave.
 */
static void dead_plane_test(struct kunit *test)
{
	struct mroce_conn *conn = conn_alloc(test);

	conn->path[2].plane = PLANE_B;
	conn->path[3].plane = PLANE_C;
	conn->path[2].tx.delivered_us = 9000;
	conn->path[3].tx.delivered_us = 9000;
	fled(&conn->path[0], PLANE_A, PLANE_B, 1000);
	fled(&conn->path[1], PLANE_A, PLANE_C, 3000);
	KUNIT_EXPECT_TRUE(test, mroce_conn_plane_fled(conn, PLANE_A));

	/* A path moved onto A with only older deliveries: still shunned. */
	conn->path[3].plane = PLANE_A;
	conn->path[3].tx.delivered_us = 2000;
	KUNIT_EXPECT_TRUE(test, mroce_conn_plane_fled(conn, PLANE_A));
	conn->path[3].tx.delivered_us = 3500;
	KUNIT_EXPECT_FALSE(test, mroce_conn_plane_fled(conn, PLANE_A));
	conn->path[3].plane = PLANE_C;

	/* A path with no port (never used) proves nothing. */
	conn->path[2].sport = 0;
	conn->path[2].plane = PLANE_A;
	KUNIT_EXPECT_TRUE(test, mroce_conn_plane_fled(conn, PLANE_A));
	conn->path[2].sport = 50002;
	conn->path[2].plane = PLANE_B;

	/* One returns (its probe answered): the other still shuns A. */
	conn->path[0].home_sport = 0;
	KUNIT_EXPECT_TRUE(test, mroce_conn_plane_fled(conn, PLANE_A));
	conn->path[1].home_sport = 0;
	KUNIT_EXPECT_FALSE(test, mroce_conn_plane_fled(conn, PLANE_A));
}

static struct kunit_case mroce_conn_cases[] = {
	KUNIT_CASE(reverse_failure_test),
	KUNIT_CASE(dead_plane_test),
	{}
};

static struct kunit_suite mroce_conn_suite = {
	.name = "mroce_conn",
	.test_cases = mroce_conn_cases,
};

kunit_test_suite(mroce_conn_suite);

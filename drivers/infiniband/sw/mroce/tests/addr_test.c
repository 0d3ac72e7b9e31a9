// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for mroce's address and MTU helpers (addr.c).
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>

#include "../addr.h"

static void mtu_from_netdev_test(struct kunit *test)
{
	/* Each IB MTU needs its payload plus the encapsulation overhead. */
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(1500), IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(9000), IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(4096 + MROCE_ENCAP_OVERHEAD),
			IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(4096 + MROCE_ENCAP_OVERHEAD - 1),
			IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(2048 + MROCE_ENCAP_OVERHEAD),
			IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(512 + MROCE_ENCAP_OVERHEAD),
			IB_MTU_512);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(256 + MROCE_ENCAP_OVERHEAD),
			IB_MTU_256);
	/* Too small for the smallest IB MTU: no usable path MTU. */
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(256 + MROCE_ENCAP_OVERHEAD - 1), 0);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(68), 0);
	KUNIT_EXPECT_EQ(test, mroce_mtu_from_netdev(0), 0);
}

static void payload_from_netdev_test(struct kunit *test)
{
	/* 1500 - 112 = 1388, down to a multiple of 64. */
	KUNIT_EXPECT_EQ(test, mroce_payload_from_netdev(1500), 1344);
	KUNIT_EXPECT_EQ(test, mroce_payload_from_netdev(1344 + MROCE_ENCAP_OVERHEAD), 1344);
	KUNIT_EXPECT_EQ(test, mroce_payload_from_netdev(1344 + MROCE_ENCAP_OVERHEAD - 1), 1280);
	/* Never below what the IB MTU of the same netdev carries... */
	KUNIT_EXPECT_GE(test, mroce_payload_from_netdev(2048 + MROCE_ENCAP_OVERHEAD), 2048);
	/* ...nor above MROCE_MAX_PAYLOAD. */
	KUNIT_EXPECT_EQ(test, mroce_payload_from_netdev(9000), MROCE_MAX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, mroce_payload_from_netdev(256 + MROCE_ENCAP_OVERHEAD), 256);
	KUNIT_EXPECT_EQ(test, mroce_payload_from_netdev(256 + MROCE_ENCAP_OVERHEAD - 1), 0);
	KUNIT_EXPECT_EQ(test, mroce_payload_from_netdev(0), 0);
}

static void gid_v4mapped_test(struct kunit *test)
{
	union ib_gid gid = { .raw = { [10] = 0xff, [11] = 0xff,
				      10, 77, 0, 2 } };
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	KUNIT_ASSERT_EQ(test, mroce_gid_to_sockaddr(&gid, &ss), 0);
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0x0a4d0002U);
	KUNIT_EXPECT_EQ(test, sin->sin_port, 0);
}

static void gid_v6_test(struct kunit *test)
{
	union ib_gid gid = { .raw = { 0xfd, 0x77, [15] = 0x01 } };
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	KUNIT_ASSERT_EQ(test, mroce_gid_to_sockaddr(&gid, &ss), 0);
	KUNIT_EXPECT_EQ(test, sin6->sin6_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, memcmp(&sin6->sin6_addr, gid.raw, sizeof(gid.raw)), 0);
}

static void gid_unspecified_test(struct kunit *test)
{
	union ib_gid gid = {};
	struct sockaddr_storage ss;

	KUNIT_EXPECT_EQ(test, mroce_gid_to_sockaddr(&gid, &ss), -EINVAL);
}

static void sockaddr_round_trip_test(struct kunit *test)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(0xc0a80101),
	};
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_addr.s6_addr = { 0xfe, 0x80, [14] = 0x12, 0x34 },
	};
	struct sockaddr_storage back;
	union ib_gid gid;

	KUNIT_ASSERT_EQ(test, mroce_sockaddr_to_gid((struct sockaddr *)&sin, &gid), 0);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_v4mapped((struct in6_addr *)gid.raw));
	KUNIT_ASSERT_EQ(test, mroce_gid_to_sockaddr(&gid, &back), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&back, &sin, sizeof(sin)), 0);

	KUNIT_ASSERT_EQ(test, mroce_sockaddr_to_gid((struct sockaddr *)&sin6, &gid), 0);
	KUNIT_ASSERT_EQ(test, mroce_gid_to_sockaddr(&gid, &back), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&back, &sin6, sizeof(sin6)), 0);
}

static void sockaddr_bad_family_test(struct kunit *test)
{
	struct sockaddr sa = { .sa_family = AF_UNIX };
	union ib_gid gid;

	KUNIT_EXPECT_EQ(test, mroce_sockaddr_to_gid(&sa, &gid), -EAFNOSUPPORT);
}

static struct kunit_case mroce_addr_cases[] = {
	KUNIT_CASE(mtu_from_netdev_test),
	KUNIT_CASE(payload_from_netdev_test),
	KUNIT_CASE(gid_v4mapped_test),
	KUNIT_CASE(gid_v6_test),
	KUNIT_CASE(gid_unspecified_test),
	KUNIT_CASE(sockaddr_round_trip_test),
	KUNIT_CASE(sockaddr_bad_family_test),
	{}
};

static struct kunit_suite mroce_addr_suite = {
	.name = "mroce-addr",
	.test_cases = mroce_addr_cases,
};

kunit_test_suite(mroce_addr_suite);

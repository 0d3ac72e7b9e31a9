// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address and MTU helpers.
 *
 * RoCE-style GIDs are IPv6 addresses; an IPv4 address is carried as an
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d).  The transport needs the
 * plain socket address to route a path, so the conversion lives here.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>

#include "addr.h"

/**
 * mroce_mtu_from_netdev() - path MTU a netdev can carry
 * @ndev_mtu: the netdev's MTU in bytes (IP packet size)
 *
 * Return: the largest IB MTU whose payload still fits in one frame after
 * mroce's encapsulation, or 0 when not even IB_MTU_256 fits.
 */
enum ib_mtu mroce_mtu_from_netdev(unsigned int ndev_mtu)
{
	enum ib_mtu mtu;

	if (ndev_mtu < MROCE_ENCAP_OVERHEAD + 256)
		return 0;

	for (mtu = IB_MTU_4096; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) + MROCE_ENCAP_OVERHEAD <= ndev_mtu)
			break;
	return mtu;
}

/**
 * mroce_payload_from_netdev() - largest payload a netdev carries per packet
 * @ndev_mtu: the netdev's MTU in bytes (IP packet size)
 *
 * IB MTUs are powers of two: at the common MTU of 1500 the largest one
 * that fits (1024) leaves a quarter of every frame unused, which costs
 * link bandwidth and, per packet, CPU.  Queue pairs that take the
 * device's MTU send payloads of this size instead (see
 * mroce_stream_create()).
 *
 * Return: the netdev MTU less mroce's encapsulation, rounded down to a
 * multiple of 64 bytes (packets of a message placed at a 64-byte
 * boundary so start on one) and at most MROCE_MAX_PAYLOAD, or 0 when
 * not even 256 bytes fit.
 */
u32 mroce_payload_from_netdev(unsigned int ndev_mtu)
{
	if (ndev_mtu < MROCE_ENCAP_OVERHEAD + 256)
		return 0;
	return min_t(u32, round_down(ndev_mtu - MROCE_ENCAP_OVERHEAD, 64),
		     MROCE_MAX_PAYLOAD);
}

/**
 * mroce_gid_to_sockaddr() - socket address named by a RoCE GID
 * @gid: GID from the port's table or an address handle
 * @addr: filled with a sockaddr_in (IPv4-mapped GID) or sockaddr_in6
 *
 * The port number of @addr is left zero.
 *
 * Return: 0, or -EINVAL for the unspecified GID, which names no host.
 */
int mroce_gid_to_sockaddr(const union ib_gid *gid,
			  struct sockaddr_storage *addr)
{
	const struct in6_addr *a6 = (const struct in6_addr *)gid->raw;

	memset(addr, 0, sizeof(*addr));
	if (ipv6_addr_any(a6))
		return -EINVAL;

	if (ipv6_addr_v4mapped(a6)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)addr;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = a6->s6_addr32[3];
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *a6;
	}
	return 0;
}

/**
 * mroce_sockaddr_to_gid() - RoCE GID naming a socket address
 * @addr: an AF_INET or AF_INET6 socket address
 * @gid: filled with the GID (IPv4 becomes IPv4-mapped)
 *
 * Return: 0, or -EAFNOSUPPORT for any other family.
 */
int mroce_sockaddr_to_gid(const struct sockaddr *addr, union ib_gid *gid)
{
	switch (addr->sa_family) {
	case AF_INET:
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
				       (struct in6_addr *)gid->raw);
		return 0;
	case AF_INET6:
		memcpy(gid->raw, &((const struct sockaddr_in6 *)addr)->sin6_addr,
		       sizeof(gid->raw));
		return 0;
	default:
		return -EAFNOSUPPORT;
	}
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address and MTU helpers shared by the verbs and transport layers.
 * Nothing here touches a device, so KUnit tests it directly.
 */
#ifndef MROCE_ADDR_H
#define MROCE_ADDR_H

#include <linux/socket.h>
#include <rdma/ib_verbs.h>

#include "wire.h"

enum ib_mtu mroce_mtu_from_netdev(unsigned int ndev_mtu);
u32 mroce_payload_from_netdev(unsigned int ndev_mtu);

int mroce_gid_to_sockaddr(const union ib_gid *gid,
			  struct sockaddr_storage *addr);
int mroce_sockaddr_to_gid(const struct sockaddr *addr, union ib_gid *gid);

#endif /* MROCE_ADDR_H */

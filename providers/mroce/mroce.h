/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Userspace provider for the mroce soft-RDMA device.
 */
#ifndef MROCE_H
#define MROCE_H

#include <stdint.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <rdma/mroce-abi.h>
#include <kernel-abi/mroce-abi.h>

/*
 * Wrapper for GET_CONTEXT: no driver request payload, and the core response
 * followed by struct mroce_alloc_ucontext_resp.  The macro also checks at
 * compile time that the kernel struct adds no implicit padding.
 */
DECLARE_DRV_CMD(umroce_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, mroce_alloc_ucontext_resp);

struct mroce_device {
	struct verbs_device ibv_dev;
	/* uverbs ABI the kernel advertised for this device (sysfs/netlink). */
	uint32_t abi_version;
};

struct mroce_context {
	struct verbs_context ibv_ctx;
	/*
	 * Transport parameters the kernel reported when the context was
	 * created; the data path (later) needs them to size inline sends and
	 * to build address handles for the right UDP port.
	 */
	uint16_t udp_port;
	uint32_t max_inline;
};

static inline struct mroce_device *to_mdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct mroce_device, ibv_dev.device);
}

static inline struct mroce_context *to_mctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct mroce_context, ibv_ctx.context);
}

#endif /* MROCE_H */

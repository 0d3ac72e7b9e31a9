/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Userspace provider for the mroce soft-RDMA device.
 */
#ifndef MROCE_H
#define MROCE_H

#include <pthread.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <rdma/mroce-abi.h>
#include <kernel-abi/mroce-abi.h>

#include "mroce_ring.h"

/*
 * Wrapper for GET_CONTEXT: no driver request payload, and the core response
 * followed by struct mroce_alloc_ucontext_resp.  The macro also checks at
 * compile time that the kernel struct adds no implicit padding.
 */
DECLARE_DRV_CMD(umroce_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, mroce_alloc_ucontext_resp);

/*
 * CQ and QP creation send no driver data and get the ring descriptions
 * back.  RESIZE_CQ answers with the same layout as CREATE_CQ: the kernel
 * builds a new ring and describes it the same way.
 */
DECLARE_DRV_CMD(umroce_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		empty, mroce_create_cq_resp);
DECLARE_DRV_CMD(umroce_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		empty, mroce_create_cq_resp);
DECLARE_DRV_CMD(umroce_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		empty, mroce_create_qp_resp);

struct mroce_device {
	struct verbs_device ibv_dev;
	/* uverbs ABI the kernel advertised for this device (sysfs/netlink). */
	uint32_t abi_version;
};

struct mroce_context {
	struct verbs_context ibv_ctx;
	/*
	 * Transport parameters the kernel reported when the context was
	 * created.  max_inline is the device-wide ceiling; each QP gets its
	 * own limit from create_qp, which is what post_send enforces.
	 * udp_port is for building UD address handles (later).
	 */
	uint16_t udp_port;
	uint32_t max_inline;
};

struct mroce_cq {
	struct ibv_cq ibv_cq;
	/*
	 * Serialises pollers with each other and with resize_cq, which
	 * replaces @ring.  ring.map is NULL if a resize left the CQ without
	 * a mapping (the kernel had switched rings but mmap() failed).
	 */
	pthread_spinlock_t lock;
	struct mroce_ring ring;
};

/* One work queue of a QP: its ring and its lock. */
struct mroce_wq {
	/*
	 * Separate locks for the send and the receive queue: ibv_post_send()
	 * and ibv_post_recv() on one QP may run in parallel (the verbs API
	 * allows it) and they never touch the same ring.
	 */
	pthread_spinlock_t lock;
	struct mroce_ring ring;	/* ring.map NULL: no such queue (SRQ) */
};

struct mroce_qp {
	struct ibv_qp ibv_qp;
	struct mroce_wq sq;
	struct mroce_wq rq;
	/*
	 * What post_send/post_recv accept: the capabilities the kernel
	 * granted, checked at create time to fit the rings' strides.
	 */
	struct mroce_sq_limits sq_limits;
	uint32_t rq_max_sge;
};

static inline struct mroce_device *to_mdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct mroce_device, ibv_dev.device);
}

static inline struct mroce_context *to_mctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct mroce_context, ibv_ctx.context);
}

static inline struct mroce_cq *to_mcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct mroce_cq, ibv_cq);
}

static inline struct mroce_qp *to_mqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct mroce_qp, ibv_qp);
}

#endif /* MROCE_H */

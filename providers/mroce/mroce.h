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
DECLARE_DRV_CMD(umroce_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		empty, mroce_create_cq_resp);
DECLARE_DRV_CMD(umroce_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		empty, mroce_create_cq_resp);
DECLARE_DRV_CMD(umroce_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		empty, mroce_create_qp_resp);
DECLARE_DRV_CMD(umroce_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, mroce_create_ah_resp);
DECLARE_DRV_CMD(umroce_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		empty, mroce_create_srq_resp);

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
	 * udp_port is the port the kernel's transport listens on.
	 */
	uint16_t udp_port;
	uint32_t max_inline;
};

struct mroce_cq {
	struct verbs_cq vcq;
	/*
	 * Serialises pollers with each other and with resize_cq, which
	 * replaces @ring.  ring.map is NULL if a resize left the CQ without
	 * a mapping (the kernel had switched rings but mmap() failed).
	 * An extended poll holds it from start_poll to end_poll.
	 */
	pthread_spinlock_t lock;
	struct mroce_ring ring;
	/* Extended polling: the cursor and the completion under it. */
	uint32_t cur;
	uint32_t prod;
	bool pending;
	struct ibv_wc cur_wc;
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

/*
 * Work requests an extended QP (ibv_wr_start() ... ibv_wr_complete()) has
 * built so far: plain ibv_send_wr, posted by the same code as
 * ibv_post_send() when the batch completes, so both APIs check and encode
 * alike.  Storage for one SQ ring's worth, allocated at create time.
 */
struct mroce_wr_batch {
	struct ibv_send_wr *wr;
	struct ibv_sge *sge;	/* sge_per_wr per request */
	uint8_t *inl;		/* max_inline bytes per request */
	uint32_t sge_per_wr;
	uint32_t max;		/* requests the storage holds */
	uint32_t n;		/* requests built */
	int err;		/* first error of the batch */
};

struct mroce_qp {
	struct verbs_qp vqp;
	struct mroce_wq sq;
	struct mroce_wq rq;
	struct mroce_wr_batch batch;
	atomic_bool reset;	/* in RESET: posting fails with EINVAL */
	/*
	 * What post_send/post_recv accept: the capabilities the kernel
	 * granted, checked at create time to fit the rings' strides.
	 */
	struct mroce_sq_limits sq_limits;
	uint32_t rq_max_sge;
};

/* A shared receive queue: a receive ring any attached QP consumes. */
struct mroce_srq {
	struct ibv_srq ibv_srq;
	struct mroce_wq rq;
	uint32_t max_sge;
};

static inline struct mroce_srq *to_msrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct mroce_srq, ibv_srq);
}

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
	return container_of(ibcq, struct mroce_cq, vcq.cq);
}

static inline struct mroce_qp *to_mqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct mroce_qp, vqp.qp);
}

/* cq_ex.c */
int mroce_cq_ex_init(struct mroce_cq *cq, const struct ibv_cq_init_attr_ex *attr);

/* qp_ex.c */
int mroce_qp_ex_init(struct mroce_qp *qp, const struct ibv_qp_init_attr_ex *attr);
void mroce_qp_ex_cleanup(struct mroce_qp *qp);
int mroce_post_sq(struct mroce_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr, bool locked);

#endif /* MROCE_H */

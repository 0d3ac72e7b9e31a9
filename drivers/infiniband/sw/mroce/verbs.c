// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verbs entry points: user contexts, protection domains, address handles,
 * and the table that wires every verb to its implementation (CQs in cq.c,
 * MRs in mr.c, QPs in qp.c, rings in ring.c).
 */
#include <rdma/mroce-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "transport.h"

void mroce_verbs_init(struct mroce_dev *mdev)
{
	atomic_set(&mdev->cq_count, 0);
	atomic_set(&mdev->qp_count, 0);
	atomic_set(&mdev->mr_count, 0);
	atomic_set(&mdev->ah_count, 0);
	xa_init_flags(&mdev->qps, XA_FLAGS_ALLOC);
	spin_lock_init(&mdev->atomic_lock);
	mroce_mr_init(mdev);
	mroce_conn_init(mdev);
}

void mroce_verbs_cleanup(struct mroce_dev *mdev)
{
	mroce_conn_cleanup(mdev);
	mroce_mr_cleanup(mdev);
	WARN_ON(!xa_empty(&mdev->qps));
	xa_destroy(&mdev->qps);
}

static int mroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct mroce_alloc_ucontext_resp resp = {
		.abi_version = MROCE_UVERBS_ABI_VERSION,
		.udp_port = mroce_udp_port,
		.max_inline = MROCE_MAX_INLINE,
	};

	if (!ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

static void mroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

static int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);

	if (atomic_inc_return(&mdev->pd_count) > MROCE_MAX_PD) {
		atomic_dec(&mdev->pd_count);
		return -ENOMEM;
	}
	return 0;
}

static int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_mdev(ibpd->device)->pd_count);
	return 0;
}

static int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibah->device);
	struct mroce_ah *ah = container_of(ibah, struct mroce_ah, ibah);

	if (!(rdma_ah_get_ah_flags(init->ah_attr) & IB_AH_GRH))
		return -EINVAL;
	if (atomic_inc_return(&mdev->ah_count) > MROCE_MAX_AH) {
		atomic_dec(&mdev->ah_count);
		return -ENOMEM;
	}
	rdma_copy_ah_attr(&ah->attr, init->ah_attr);
	return 0;
}

static int mroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct mroce_ah *ah = container_of(ibah, struct mroce_ah, ibah);

	rdma_copy_ah_attr(attr, &ah->attr);
	return 0;
}

static int mroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mroce_ah *ah = container_of(ibah, struct mroce_ah, ibah);

	rdma_destroy_ah_attr(&ah->attr);
	atomic_dec(&to_mdev(ibah->device)->ah_count);
	return 0;
}

const struct ib_device_ops mroce_verbs_ops = {
	.alloc_pd = mroce_alloc_pd,
	.alloc_ucontext = mroce_alloc_ucontext,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq,
	.create_qp = mroce_create_qp,
	.create_user_ah = mroce_create_ah,
	.dealloc_pd = mroce_dealloc_pd,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.dereg_mr = mroce_dereg_mr,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.get_dma_mr = mroce_get_dma_mr,
	.mmap = mroce_mmap,
	.mmap_free = mroce_mmap_free,
	.modify_qp = mroce_modify_qp,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.query_ah = mroce_query_ah,
	.query_qp = mroce_query_qp,
	.reg_user_mr = mroce_reg_user_mr,
	.req_notify_cq = mroce_req_notify_cq,
	.resize_cq = mroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};

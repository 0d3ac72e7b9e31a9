// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verbs objects: user contexts and protection domains.
 *
 * Queue pairs, completion queues and memory regions belong to the data
 * path and are not implemented yet.  The RDMA core requires their entry
 * points, so they exist and refuse with -EOPNOTSUPP; query_device
 * advertises zero of each, which tells well-behaved consumers before they
 * ask.
 */
#include <rdma/mroce-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "mroce.h"

struct mroce_ucontext {
	struct ib_ucontext ibuc;
};

struct mroce_pd {
	struct ib_pd ibpd;
};

struct mroce_cq {
	struct ib_cq ibcq;
};

struct mroce_qp {
	struct ib_qp ibqp;
};

static int mroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct mroce_alloc_ucontext_resp resp = {
		.abi_version = MROCE_UVERBS_ABI_VERSION,
		.udp_port = mroce_udp_port,
		.max_inline = 0,
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

static int mroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return 0;
}

static int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	return 0;
}

static int mroce_req_notify_cq(struct ib_cq *ibcq,
			       enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

static int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int attr_mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return 0;
}

static int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops mroce_verbs_ops = {
	.alloc_pd = mroce_alloc_pd,
	.alloc_ucontext = mroce_alloc_ucontext,
	.create_cq = mroce_create_cq,
	.create_qp = mroce_create_qp,
	.dealloc_pd = mroce_dealloc_pd,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.dereg_mr = mroce_dereg_mr,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.get_dma_mr = mroce_get_dma_mr,
	.modify_qp = mroce_modify_qp,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.reg_user_mr = mroce_reg_user_mr,
	.req_notify_cq = mroce_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};

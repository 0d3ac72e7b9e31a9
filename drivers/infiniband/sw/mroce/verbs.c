// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verbs entry points: user contexts, protection domains, address handles,
 * and the table that wires every verb to its implementation (CQs in cq.c,
 * MRs in mr.c, QPs in qp.c, rings in ring.c).
 */
#include <net/ipv6.h>
#include <rdma/mroce-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "engine.h"
#include "transport.h"

void mroce_verbs_init(struct mroce_dev *mdev)
{
	atomic_set(&mdev->cq_count, 0);
	atomic_set(&mdev->qp_count, 0);
	atomic_set(&mdev->mr_count, 0);
	atomic_set(&mdev->ah_count, 0);
	atomic_set(&mdev->srq_count, 0);
	atomic_set(&mdev->mw_count, 0);
	xa_init_flags(&mdev->qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&mdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	spin_lock_init(&mdev->atomic_lock);
	mroce_mr_init(mdev);
	mroce_conn_init(mdev);
	mdev->engine = &mroce_sw_engine;
}

void mroce_verbs_cleanup(struct mroce_dev *mdev)
{
	mroce_conn_cleanup(mdev);
	mroce_mr_cleanup(mdev);
	WARN_ON(!xa_empty(&mdev->qps));
	xa_destroy(&mdev->qps);
	WARN_ON(!xa_empty(&mdev->ahs));
	xa_destroy(&mdev->ahs);
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

	if (!atomic_add_unless(&mdev->pd_count, 1, MROCE_MAX_PD))
		return -ENOMEM;
	return 0;
}

static int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_mdev(ibpd->device)->pd_count);
	return 0;
}

/*
 * The AH table.  Kernel consumers create and destroy address handles in
 * any context, interrupts off included (the CM frees its MADs' handles
 * under an irq-safe lock), so its lock is irq-safe everywhere; only a
 * sleepable create may allocate with GFP_KERNEL, the lock dropped.
 */
static int mroce_ah_insert(struct mroce_dev *mdev, struct mroce_ah *ah,
			   struct mroce_av *av, bool sleepable)
{
	unsigned long flags;
	int err;

	if (sleepable)
		return xa_alloc_cyclic_irq(&mdev->ahs, &ah->num, av, xa_limit_32b,
					   &mdev->ah_next, GFP_KERNEL);
	xa_lock_irqsave(&mdev->ahs, flags);
	err = __xa_alloc_cyclic(&mdev->ahs, &ah->num, av, xa_limit_32b,
				&mdev->ah_next, GFP_ATOMIC);
	xa_unlock_irqrestore(&mdev->ahs, flags);
	return err;
}

static void mroce_ah_remove(struct mroce_dev *mdev, struct mroce_ah *ah)
{
	unsigned long flags;

	xa_lock_irqsave(&mdev->ahs, flags);
	__xa_erase(&mdev->ahs, ah->num);
	xa_unlock_irqrestore(&mdev->ahs, flags);
}

/*
 * An address handle names an IP destination; the route is looked up when
 * a datagram is sent, like the connection's paths do.  The number goes
 * back to userspace, whose send requests name the handle by it.
 */
static int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibah->device);
	struct mroce_ah *ah = to_mah(ibah);
	bool sleepable = init->flags & RDMA_CREATE_AH_SLEEPABLE;
	const struct ib_global_route *grh;
	struct mroce_create_ah_resp resp = {};
	struct mroce_av *av;
	int err;

	if (!(rdma_ah_get_ah_flags(init->ah_attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(init->ah_attr);
	if (!grh->sgid_attr ||
	    ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw) !=
	    ipv6_addr_v4mapped((const struct in6_addr *)grh->sgid_attr->gid.raw))
		return -EINVAL;
	if (!atomic_add_unless(&mdev->ah_count, 1, MROCE_MAX_AH))
		return -ENOMEM;
	av = kzalloc(sizeof(*av), sleepable ? GFP_KERNEL : GFP_ATOMIC);
	if (!av) {
		err = -ENOMEM;
		goto err_count;
	}
	av->pd = ibah->pd;
	memcpy(&av->laddr, grh->sgid_attr->gid.raw, sizeof(av->laddr));
	memcpy(&av->raddr, grh->dgid.raw, sizeof(av->raddr));
	err = mroce_ah_insert(mdev, ah, av, sleepable);
	if (err < 0)
		goto err_av;
	ah->av = av;
	rdma_copy_ah_attr(&ah->attr, init->ah_attr);

	if (udata) {
		resp.ah_num = ah->num;
		err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_num;
	}
	return 0;

err_num:
	rdma_destroy_ah_attr(&ah->attr);
	mroce_ah_remove(mdev, ah);
err_av:
	kfree(av);
err_count:
	atomic_dec(&mdev->ah_count);
	return err;
}

/*
 * rdma_query_ah()'s callers (the MAD layer's response matching and its
 * tracepoints) never release the attribute, so it must not hold a
 * reference to the source GID entry: it would leak one per query.
 */
static int mroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_mah(ibah)->attr;
	attr->grh.sgid_attr = NULL;
	return 0;
}

static int mroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mroce_dev *mdev = to_mdev(ibah->device);
	struct mroce_ah *ah = to_mah(ibah);

	mroce_ah_remove(mdev, ah);
	/* A send may still be reading it. */
	kfree_rcu(ah->av, rcu);
	rdma_destroy_ah_attr(&ah->attr);
	atomic_dec(&mdev->ah_count);
	return 0;
}

const struct ib_device_ops mroce_verbs_ops = {
	.alloc_mr = mroce_alloc_mr,
	.alloc_mw = mroce_alloc_mw,
	.alloc_pd = mroce_alloc_pd,
	.alloc_ucontext = mroce_alloc_ucontext,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq,
	.create_qp = mroce_create_qp,
	.create_srq = mroce_create_srq,
	.create_user_ah = mroce_create_ah,
	.dealloc_mw = mroce_dealloc_mw,
	.dealloc_pd = mroce_dealloc_pd,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.dereg_mr = mroce_dereg_mr,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.destroy_srq = mroce_destroy_srq,
	.fill_res_cq_entry = mroce_fill_res_cq_entry,
	.get_dma_mr = mroce_get_dma_mr,
	.map_mr_sg = mroce_map_mr_sg,
	.mmap = mroce_mmap,
	.mmap_free = mroce_mmap_free,
	.modify_qp = mroce_modify_qp,
	.modify_srq = mroce_modify_srq,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.post_srq_recv = mroce_post_srq_recv,
	.query_ah = mroce_query_ah,
	.query_qp = mroce_query_qp,
	.query_srq = mroce_query_srq,
	.reg_user_mr = mroce_reg_user_mr,
	.req_notify_cq = mroce_req_notify_cq,
	.resize_cq = mroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, mroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};

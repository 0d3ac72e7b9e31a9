// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared receive queues.  An SRQ is a receive ring like a QP's, consumed
 * by every QP attached to it: a message takes the oldest posted receive
 * when its first packet arrives (RC) or when it arrives (UD), under the
 * SRQ's lock, since its QPs receive on any CPU at once.  Crossing below
 * the armed limit raises IB_EVENT_SRQ_LIMIT_REACHED once.
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "transport.h"

static u32 srq_stride(u32 sge)
{
	return ALIGN(sizeof(struct mroce_recv_wqe) + sge * sizeof(struct mroce_sge), 16);
}

static int mroce_srq_expose(struct mroce_srq *srq, struct ib_udata *udata)
{
	struct mroce_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
	struct mroce_create_srq_resp resp = {
		.mmap_size = srq->rq->size,
		.entries = srq->rq->entries,
		.stride = srq->rq->stride,
	};
	int err;

	err = mroce_ring_expose(srq->rq, &uctx->ibuc, &resp.mmap_offset);
	if (!err)
		err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	return err;
}

int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibsrq->device);
	struct mroce_srq *srq = to_msrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > MROCE_MAX_SRQ_WR ||
	    attr->max_sge > MROCE_MAX_SGE)
		return -EINVAL;
	if (!atomic_add_unless(&mdev->srq_count, 1, MROCE_MAX_SRQ))
		return -ENOMEM;
	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->post_lock);
	srq->user = !!udata;
	srq->max_sge = max_t(u32, attr->max_sge, 1);
	srq->rq = mroce_ring_alloc(roundup_pow_of_two(attr->max_wr),
				   srq_stride(srq->max_sge));
	if (!srq->rq) {
		err = -ENOMEM;
		goto err_count;
	}
	/* The limit is armed by modify_srq only (IB spec 11.2.3). */
	srq->limit = 0;
	attr->max_wr = srq->rq->entries;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = 0;
	if (udata) {
		err = mroce_srq_expose(srq, udata);
		if (err)
			goto err_ring;
	}
	return 0;

err_ring:
	mroce_ring_put(srq->rq);
err_count:
	atomic_dec(&mdev->srq_count);
	return err;
}

int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_msrq(ibsrq);

	/* Resizing is not offered (no IB_DEVICE_SRQ_RESIZE). */
	if (mask & ~IB_SRQ_LIMIT)
		return -EINVAL;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->rq->entries)
			return -EINVAL;
		spin_lock_bh(&srq->lock);
		srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->lock);
	}
	return 0;
}

int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);

	attr->max_wr = srq->rq->entries;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_msrq(ibsrq);

	mroce_ring_put(srq->rq);
	atomic_dec(&to_mdev(ibsrq->device)->srq_count);
	return 0;
}

int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	unsigned long flags;
	int err;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->post_lock, flags);
	err = mroce_ring_post_recv(srq->rq, srq->max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&srq->post_lock, flags);
	return err;
}

/**
 * mroce_srq_take() - take the oldest receive posted to an SRQ
 * @srq: the shared receive queue
 * @r: filled with a checked copy of the receive
 *
 * Context: any; takes the SRQ's lock.
 * Return: 0; -EAGAIN when none is posted (the sender is told RNR);
 * -EINVAL when the entry is malformed (it is consumed, and the message
 * fails).
 */
int mroce_srq_take(struct mroce_srq *srq, struct mroce_rwqe *r)
{
	bool event = false;
	unsigned long flags;
	int err;
	u32 prod;

	spin_lock_irqsave(&srq->lock, flags);
	prod = mroce_ring_producer(srq->rq);
	if (srq->done == prod) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return -EAGAIN;
	}
	err = mroce_rwqe_load(mroce_ring_entry(srq->rq, srq->done), srq->max_sge, r);
	mroce_ring_consumed(srq->rq, ++srq->done);
	if (srq->limit && prod - srq->done < srq->limit) {
		srq->limit = 0;		/* one event per arming */
		event = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (event && srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	return err;
}

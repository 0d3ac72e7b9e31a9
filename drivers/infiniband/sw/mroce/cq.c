// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion queues: a ring of struct mroce_cqe that the transport fills
 * and either userspace (through the mmapped ring) or a kernel consumer
 * (through poll_cq) drains.
 */
#include <linux/log2.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/* Publish @ring to the CQ's user context and tell userspace where it is. */
static int mroce_cq_expose(struct ib_udata *udata, struct mroce_ring *ring,
			   struct mroce_create_cq_resp *resp)
{
	struct mroce_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);

	resp->mmap_size = ring->size;
	resp->entries = ring->entries;
	return mroce_ring_expose(ring, &uctx->ibuc, &resp->mmap_offset);
}

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct mroce_create_cq_attrs *attrs)
{
	struct ib_udata *udata = mroce_create_cq_udata(attrs);
	struct mroce_dev *mdev = to_mdev(ibcq->device);
	struct mroce_cq *cq = to_mcq(ibcq);
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > MROCE_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (!atomic_add_unless(&mdev->cq_count, 1, MROCE_MAX_CQ))
		return -ENOMEM;

	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	cq->ring = mroce_ring_alloc(roundup_pow_of_two(attr->cqe + 1),
				    sizeof(struct mroce_cqe));
	if (!cq->ring) {
		err = -ENOMEM;
		goto err_count;
	}
	ibcq->cqe = cq->ring->entries - 1;
	if (udata) {
		struct mroce_create_cq_resp resp = {};

		err = mroce_cq_expose(udata, cq->ring, &resp);
		if (!err)
			err = ib_copy_to_udata(udata, &resp,
					       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_ring;
	}
	return 0;

err_ring:
	mroce_ring_put(cq->ring);
err_count:
	atomic_dec(&mdev->cq_count);
	return err;
}

int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mcq(ibcq);

	mroce_ring_put(cq->ring);
	atomic_dec(&to_mdev(ibcq->device)->cq_count);
	return 0;
}

/**
 * mroce_cq_post() - add a completion
 * @cq: the CQ
 * @cqe: the completion
 * @solicited: the completion is of a message with the solicited bit
 *
 * A completion in error also fires a solicited-only notification.
 *
 * Return: 0, or -ENOSPC when the ring is full: the CQ overflowed, which
 * is reported to the consumer as IB_EVENT_CQ_ERR.
 */
int mroce_cq_post(struct mroce_cq *cq, const struct mroce_cqe *cqe,
		  bool solicited)
{
	struct mroce_ring_hdr *hdr;
	bool event = false;
	unsigned long flags;
	u32 prod;

	spin_lock_irqsave(&cq->lock, flags);
	hdr = cq->ring->hdr;
	prod = hdr->producer;
	if (cq->overflow || prod - READ_ONCE(hdr->consumer) >= cq->ring->entries) {
		bool first = !cq->overflow;

		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first && cq->ibcq.event_handler) {
			struct ib_event ev = {
				.device = cq->ibcq.device,
				.element.cq = &cq->ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		return -ENOSPC;
	}
	memcpy(mroce_ring_entry(cq->ring, prod), cqe, sizeof(*cqe));
	mroce_ring_publish(cq->ring, prod + 1);

	/* ibv_req_notify_cq(3): a completion in error counts as solicited */
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || cqe->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		event = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	/* Outside the lock: a kernel handler may poll the CQ right away. */
	if (event && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

static void mroce_cqe_to_wc(struct mroce_dev *mdev, const struct mroce_cqe *cqe,
			    struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = xa_load(&mdev->qps, cqe->qp_num);
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = cqe->port_num;
	wc->network_hdr_type = cqe->network_hdr_type;
	if (cqe->wc_flags & MROCE_WC_F_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (cqe->wc_flags & MROCE_WC_F_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)cqe->imm_data;
	} else if (cqe->wc_flags & MROCE_WC_F_WITH_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->imm_data;
	}
}

int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mroce_dev *mdev = to_mdev(ibcq->device);
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_ring_hdr *hdr;
	unsigned long flags;
	u32 cons, prod;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	hdr = cq->ring->hdr;
	cons = hdr->consumer;
	prod = hdr->producer;
	while (n < num_entries && cons != prod) {
		mroce_cqe_to_wc(mdev, mroce_ring_entry(cq->ring, cons), &wc[n++]);
		cons++;
	}
	WRITE_ONCE(hdr->consumer, cons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_ring_hdr *hdr;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* Both bits (which ib_req_notify_cq() forbids) arm for any completion. */
	if (flags & IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED;
	hdr = cq->ring->hdr;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    READ_ONCE(hdr->consumer) != hdr->producer)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/**
 * mroce_fill_res_cq_entry() - a CQ's state for "rdma -dd res show cq"
 * @msg: the netlink message being filled
 * @ibcq: the CQ
 *
 * drv_pending counts completions added and not yet polled; drv_armed is the
 * notification requested and not yet fired.  A consumer asleep in
 * ibv_get_cq_event() while completions are pending and the CQ is armed
 * waits for a new completion: arming signals new completions only.
 *
 * Return: 0, or -EMSGSIZE when the message is full.
 */
int mroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	static const char * const armed[] = {
		[0] = "no",
		[IB_CQ_SOLICITED] = "solicited",
		[IB_CQ_NEXT_COMP] = "next",
	};
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_ring_hdr *hdr;
	struct nlattr *table;
	unsigned long flags;
	bool overflow;
	u32 pending;
	u8 notify;

	spin_lock_irqsave(&cq->lock, flags);
	hdr = cq->ring->hdr;
	pending = hdr->producer - READ_ONCE(hdr->consumer);
	notify = cq->notify;
	overflow = cq->overflow;
	spin_unlock_irqrestore(&cq->lock, flags);

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "pending", pending) ||
	    rdma_nl_put_driver_string(msg, "armed",
				      notify < ARRAY_SIZE(armed) ?
				      armed[notify] : "?") ||
	    rdma_nl_put_driver_u32(msg, "overflow", overflow)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mroce_create_cq_resp resp = {};
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_ring *ring, *old;
	u32 cons, prod, n, i;
	unsigned long flags;
	int err;

	if (cqe < 1 || cqe > MROCE_MAX_CQE)
		return -EINVAL;
	ring = mroce_ring_alloc(roundup_pow_of_two(cqe + 1),
				sizeof(struct mroce_cqe));
	if (!ring)
		return -ENOMEM;
	if (udata) {
		/* Tell userspace before switching, so a failure changes nothing. */
		err = mroce_cq_expose(udata, ring, &resp);
		if (!err)
			err = ib_copy_to_udata(udata, &resp,
					       min(udata->outlen, sizeof(resp)));
		if (err) {
			mroce_ring_put(ring);
			return err;
		}
	}

	/* Move the unconsumed completions to the front of the new ring. */
	spin_lock_irqsave(&cq->lock, flags);
	old = cq->ring;
	cons = READ_ONCE(old->hdr->consumer);
	prod = old->hdr->producer;
	n = prod - cons;
	if (n > ring->entries - 1) {
		spin_unlock_irqrestore(&cq->lock, flags);
		mroce_ring_put(ring);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		memcpy(mroce_ring_entry(ring, i), mroce_ring_entry(old, cons + i),
		       sizeof(struct mroce_cqe));
	ring->hdr->producer = n;
	cq->ring = ring;
	ibcq->cqe = ring->entries - 1;
	spin_unlock_irqrestore(&cq->lock, flags);

	mroce_ring_put(old);
	return 0;
}

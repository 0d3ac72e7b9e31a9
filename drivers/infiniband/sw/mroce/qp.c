// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queue pairs: creation, the IB state machine, and posting from kernel
 * consumers.  What moves a QP's packets is the device's transport engine
 * (engine.h), which this file calls at each change of state and at each
 * doorbell.
 */
#include <linux/log2.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "addr.h"
#include "engine.h"
#include "transport.h"

static u32 sq_stride(u32 sge, u32 inline_len)
{
	return ALIGN(sizeof(struct mroce_send_wqe) +
		     max_t(u32, sge * sizeof(struct mroce_sge), inline_len), 64);
}

static u32 rq_stride(u32 sge)
{
	return ALIGN(sizeof(struct mroce_recv_wqe) + sge * sizeof(struct mroce_sge), 16);
}

static int mroce_qp_check_cap(struct ib_qp_cap *cap, bool has_srq)
{
	if (cap->max_send_wr > MROCE_MAX_QP_WR || cap->max_send_sge > MROCE_MAX_SGE ||
	    cap->max_inline_data > MROCE_MAX_INLINE)
		return -EINVAL;
	if (!has_srq && (cap->max_recv_wr > MROCE_MAX_QP_WR ||
			 cap->max_recv_sge > MROCE_MAX_SGE))
		return -EINVAL;
	return 0;
}

static int mroce_qp_expose(struct mroce_qp *qp, struct ib_udata *udata)
{
	struct mroce_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
	struct mroce_create_qp_resp resp = {
		.sq_mmap_size = qp->sq->size,
		.sq_entries = qp->sq->entries,
		.sq_stride = qp->sq->stride,
		.max_inline = qp->max_inline,
	};
	int err;

	err = mroce_ring_expose(qp->sq, &uctx->ibuc, &resp.sq_mmap_offset);
	/* Without a receive ring (SRQ) the offset stays 0. */
	if (!err && qp->rq) {
		resp.rq_mmap_size = qp->rq->size;
		resp.rq_entries = qp->rq->entries;
		resp.rq_stride = qp->rq->stride;
		err = mroce_ring_expose(qp->rq, &uctx->ibuc, &resp.rq_mmap_offset);
	}
	if (!err)
		err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	return err;
}

int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibqp->device);
	struct mroce_qp *qp = to_mqp(ibqp);
	struct ib_qp_cap *cap = &init->cap;
	u32 qpn;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:		/* carried by the same reliable stream */
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* The RDMA core's own, one per port. */
		if (udata || init->port_num != MROCE_PORT)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	err = mroce_qp_check_cap(cap, !!init->srq);
	if (err)
		return err;
	if (!atomic_add_unless(&mdev->qp_count, 1, MROCE_MAX_QP))
		return -ENOMEM;

	mutex_init(&qp->mutex);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->stream_lock);
	spin_lock_init(&qp->rq_lock);
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	qp->state = IB_QPS_RESET;
	qp->user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_send_sge = max_t(u32, cap->max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, cap->max_recv_sge, 1);
	qp->max_inline = cap->max_inline_data;

	qp->sq = mroce_ring_alloc(roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1)),
				  sq_stride(qp->max_send_sge, qp->max_inline));
	if (!init->srq)
		qp->rq = mroce_ring_alloc(roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 1)),
					  rq_stride(qp->max_recv_sge));
	if (!qp->sq || (!init->srq && !qp->rq)) {
		err = -ENOMEM;
		goto err_rings;
	}
	qp->sq->hdr->flags = MROCE_RING_F_DOORBELL;
	/* What the rings can hold: report it back, as verbs expects. */
	qp->max_inline = qp->sq->stride - sizeof(struct mroce_send_wqe);
	qp->max_inline = min_t(u32, qp->max_inline, MROCE_MAX_INLINE);
	cap->max_send_wr = qp->sq->entries;
	cap->max_send_sge = qp->max_send_sge;
	if (qp->rq) {
		cap->max_recv_wr = qp->rq->entries;
		cap->max_recv_sge = qp->max_recv_sge;
	} else {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		qp->max_recv_sge = 0;
	}
	cap->max_inline_data = qp->max_inline;

	if (!mroce_qp_is_ud(qp) && !udata) {
		qp->sq_reg = kvcalloc(qp->sq->entries, sizeof(*qp->sq_reg), GFP_KERNEL);
		if (!qp->sq_reg) {
			err = -ENOMEM;
			goto err_rings;
		}
	}
	err = mdev->engine->qp_create(qp);
	if (err)
		goto err_rings;

	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		err = xa_insert_bh(&mdev->qps, qpn, qp, GFP_KERNEL);
	} else {
		err = xa_alloc_cyclic_bh(&mdev->qps, &qpn, qp,
					 XA_LIMIT(2, MROCE_QPN_MASK),
					 &mdev->qp_next, GFP_KERNEL);
	}
	if (err < 0)
		goto err_engine;
	ibqp->qp_num = qpn;

	if (udata) {
		err = mroce_qp_expose(qp, udata);
		if (err)
			goto err_qpn;
	}
	return 0;

err_qpn:
	xa_erase_bh(&mdev->qps, qpn);
err_engine:
	mdev->engine->qp_destroy(qp);
err_rings:
	kvfree(qp->sq_reg);
	mroce_ring_put(qp->sq);
	mroce_ring_put(qp->rq);
	atomic_dec(&mdev->qp_count);
	return err;
}

/**
 * mroce_qp_get() - find a queue pair by number and hold it
 * @mdev: the device
 * @qpn: its number
 *
 * For the receive path, in any context.  The reference keeps the QP from
 * being destroyed (destroy_qp waits for it), not from changing state.
 *
 * Return: the QP, or NULL.
 */
struct mroce_qp *mroce_qp_get(struct mroce_dev *mdev, u32 qpn)
{
	struct mroce_qp *qp;
	unsigned long flags;

	/* Under the table lock: destroy removes the entry before it waits. */
	xa_lock_irqsave(&mdev->qps, flags);
	qp = xa_load(&mdev->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&mdev->qps, flags);
	return qp;
}

void mroce_qp_put(struct mroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/* Raise an asynchronous event on @qp (any context). */
void mroce_qp_event(struct mroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* The completion opcode of a send queue work request. */
enum ib_wc_opcode mroce_send_wc_opcode(u32 opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/**
 * mroce_qp_flush_sq() - complete requests still in the send ring with a
 *	flush error
 * @qp: the queue pair, in the error state
 * @from: the first request not yet consumed
 *
 * Return: the new consumer index, also published in the ring.
 */
u32 mroce_qp_flush_sq(struct mroce_qp *qp, u32 from)
{
	struct mroce_cq *cq = to_mcq(qp->ibqp.send_cq);
	u32 prod = mroce_ring_producer_from(qp->sq, from);

	for (; from != prod; from++) {
		struct mroce_send_wqe *wqe = mroce_ring_entry(qp->sq, from);
		struct mroce_cqe cqe = {
			.wr_id = READ_ONCE(wqe->wr_id),
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = mroce_send_wc_opcode(READ_ONCE(wqe->opcode)),
			.qp_num = qp->ibqp.qp_num,
			.port_num = MROCE_PORT,
		};

		mroce_cq_post(cq, &cqe, false);
	}
	mroce_ring_consumed(qp->sq, from);
	return from;
}

/**
 * mroce_qp_flush_rq() - complete posted receives with a flush error
 * @qp: the queue pair, in the error state
 * @from: the first receive not yet consumed
 *
 * Also sets the receive ring's MROCE_RING_F_DOORBELL: userspace's later
 * receives must reach the kernel to complete (struct mroce_ring_hdr).
 *
 * Return: the new consumer index, also published in the ring.
 */
u32 mroce_qp_flush_rq(struct mroce_qp *qp, u32 from)
{
	struct mroce_cq *cq = to_mcq(qp->ibqp.recv_cq);
	u32 prod;

	if (!qp->rq)
		return from;	/* the SRQ's receives stay there */
	/* after the state's store: the doorbell's kick reads the state */
	smp_store_release(&qp->rq->hdr->flags, MROCE_RING_F_DOORBELL);
	/* flag store before the producer load (mroce_ring_needs_doorbell()) */
	smp_mb();
	prod = mroce_ring_producer_from(qp->rq, from);
	for (; from != prod; from++) {
		struct mroce_recv_wqe *wqe = mroce_ring_entry(qp->rq, from);
		struct mroce_cqe cqe = {
			.wr_id = READ_ONCE(wqe->wr_id),
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = IB_WC_RECV,
			.qp_num = qp->ibqp.qp_num,
			.port_num = MROCE_PORT,
		};

		mroce_cq_post(cq, &cqe, false);
	}
	mroce_ring_consumed(qp->rq, from);
	return from;
}

/* Resolve the path's GIDs into the addresses the connection is keyed by. */
static int mroce_qp_set_av(struct mroce_qp *qp, struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (!grh->sgid_attr || grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	if (ipv6_addr_any((const struct in6_addr *)grh->dgid.raw))
		return -EINVAL;
	/* Both ends IPv4 (mapped) or both IPv6. */
	if (ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw) !=
	    ipv6_addr_v4mapped((const struct in6_addr *)grh->sgid_attr->gid.raw))
		return -EINVAL;
	memcpy(&qp->laddr, grh->sgid_attr->gid.raw, sizeof(qp->laddr));
	memcpy(&qp->raddr, grh->dgid.raw, sizeof(qp->raddr));
	return 0;
}

static int mroce_qp_check_attr(struct mroce_qp *qp, struct ib_qp_attr *attr,
			       int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != MROCE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_CAP) && mroce_qp_check_cap(&attr->cap, false))
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > MROCE_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_RELAXED_ORDERING)))
		return -EINVAL;
	return 0;
}

static void mroce_qp_copy_attr(struct mroce_qp *qp, struct ib_qp_attr *attr,
			       int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_AV)
		rdma_replace_ah_attr(&a->ah_attr, &attr->ah_attr);
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
}

/*
 * Back to a fresh QP: rings empty, no transport state.  A doorbell racing
 * with this flushes a ring only in ERR, and looks at the state again
 * under the ring's lock: it sees RESET, or the ring before it is emptied.
 */
static void mroce_qp_reset(struct mroce_qp *qp)
{
	unsigned long flags;

	to_mdev(qp->ibqp.device)->engine->qp_reset(qp);
	WRITE_ONCE(qp->state, IB_QPS_RESET);
	spin_lock_irqsave(&qp->sq_lock, flags);
	memset(qp->sq->hdr, 0, MROCE_RING_HDR_SIZE);
	/* Nothing is looking at the send queue: posts must ring. */
	qp->sq->hdr->flags = MROCE_RING_F_DOORBELL;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (qp->rq) {
		spin_lock_irqsave(&qp->rq_lock, flags);
		memset(qp->rq->hdr, 0, MROCE_RING_HDR_SIZE);
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
}

int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	const struct mroce_engine_ops *engine = to_mdev(ibqp->device)->engine;
	struct mroce_qp *qp = to_mqp(ibqp);
	enum ib_qp_state cur, next;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->mutex);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	err = -EINVAL;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		goto out;
	err = mroce_qp_check_attr(qp, attr, mask);
	if (err)
		goto out;
	if (mask & IB_QP_AV) {
		err = mroce_qp_set_av(qp, &attr->ah_attr);
		if (err)
			goto out;
	}
	mroce_qp_copy_attr(qp, attr, mask);

	if (next == IB_QPS_RESET) {
		mroce_qp_reset(qp);
	} else if (next == IB_QPS_RTR && cur == IB_QPS_INIT) {
		err = engine->qp_connect(qp);
		if (err)
			goto out;
	}
	engine->qp_set_state(qp, next);
	err = 0;
out:
	mutex_unlock(&qp->mutex);
	return err;
}

int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct mroce_qp *qp = to_mqp(ibqp);

	/*
	 * A plain copy: callers of query_qp do not release the source GID
	 * reference, so the QP lends its own.
	 */
	mutex_lock(&qp->mutex);
	*attr = qp->attr;
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->cap.max_send_wr = qp->sq->entries;
	attr->cap.max_recv_wr = qp->rq ? qp->rq->entries : 0;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->path_mig_state = IB_MIG_MIGRATED;
	mutex_unlock(&qp->mutex);

	memset(init, 0, sizeof(*init));
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibqp->device);
	struct mroce_qp *qp = to_mqp(ibqp);

	/* First out of the table, so no receiver finds it any more. */
	xa_erase_bh(&mdev->qps, ibqp->qp_num);
	mroce_qp_put(qp);
	wait_for_completion(&qp->released);

	mutex_lock(&qp->mutex);
	mroce_qp_reset(qp);
	mutex_unlock(&qp->mutex);
	mdev->engine->qp_destroy(qp);
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	kvfree(qp->sq_reg);
	mroce_ring_put(qp->sq);
	mroce_ring_put(qp->rq);
	atomic_dec(&mdev->qp_count);
	return 0;
}

static int mroce_wr_to_wqe(struct mroce_qp *qp, const struct ib_send_wr *wr,
			   u32 slot)
{
	struct mroce_send_wqe *wqe = mroce_ring_entry(qp->sq, slot);
	struct mroce_sge *sge = (void *)(wqe + 1);
	int i;

	if (wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe->send_flags |= MROCE_SEND_F_FENCE;
	if (wr->send_flags & IB_SEND_SIGNALED)
		wqe->send_flags |= MROCE_SEND_F_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe->send_flags |= MROCE_SEND_F_SOLICITED;
	if (wr->send_flags & IB_SEND_INLINE)
		return -EINVAL;	/* kernel consumers pass lkeys */

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm_data = (__force u32)wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->imm_data = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}
	if (qp->sq_reg)
		qp->sq_reg[slot & (qp->sq->entries - 1)] = NULL;
	switch (wr->opcode) {
	case IB_WR_LOCAL_INV:
		return 0;
	case IB_WR_REG_MR:
		/* The ring has no room for the region: it waits beside it. */
		if (!qp->sq_reg)
			return -EINVAL;
		qp->sq_reg[slot & (qp->sq->entries - 1)] = reg_wr(wr)->mr;
		wqe->wr.bind.new_rkey = reg_wr(wr)->key;
		wqe->wr.bind.access = reg_wr(wr)->access;
		return 0;
	default:
		break;
	}
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		break;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		break;
	default:
		return -EINVAL;
	}
	if (mroce_qp_is_ud(qp)) {
		/* Datagrams are SENDs, addressed by the AH. */
		if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
			return -EINVAL;
		wqe->wr.ud.ah = to_mah(ud_wr(wr)->ah)->num;
		wqe->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
	}
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_ring_hdr *hdr = qp->sq->hdr;
	unsigned long flags;
	int err = 0;
	u32 prod;

	/* A user QP's work requests are in its ring: this is the doorbell. */
	if (qp->user)
		goto kick;

	spin_lock_irqsave(&qp->sq_lock, flags);
	prod = hdr->producer;
	for (; wr; wr = wr->next) {
		if (prod - READ_ONCE(hdr->consumer) >= qp->sq->entries) {
			err = -ENOMEM;
			break;
		}
		err = mroce_wr_to_wqe(qp, wr, prod);
		if (err)
			break;
		prod++;
	}
	mroce_ring_publish(qp->sq, prod);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
kick:
	to_mdev(ibqp->device)->engine->sq_kick(qp);
	return err;
}

/**
 * mroce_rwqe_load() - copy and check a receive from its ring entry
 * @wqe: the entry (userspace may be writing the ring meanwhile)
 * @max_sge: scatter list length the queue allows
 * @r: filled with the copy; @r->len saturates at U32_MAX
 *
 * Return: 0, or -EINVAL when the entry claims more SGEs than allowed
 * (then only @r->wr_id is meaningful and nothing beyond it was read).
 */
int mroce_rwqe_load(const struct mroce_recv_wqe *wqe, u32 max_sge,
		    struct mroce_rwqe *r)
{
	u32 i;

	r->wr_id = READ_ONCE(wqe->wr_id);
	r->num_sge = READ_ONCE(wqe->num_sge);
	if (r->num_sge > max_sge)
		return -EINVAL;
	memcpy(r->sge, wqe + 1, r->num_sge * sizeof(r->sge[0]));
	r->len = 0;
	for (i = 0; i < r->num_sge; i++)
		r->len = min_t(u64, (u64)r->len + r->sge[i].length, U32_MAX);
	return 0;
}

/**
 * mroce_ring_post_recv() - write kernel receive requests into a ring
 * @ring: a QP's receive ring or an SRQ's
 * @max_sge: scatter list length the queue was created with
 * @wr: the requests
 * @bad_wr: set to the first request not posted
 *
 * The caller serialises posters of @ring.
 * Return: 0, -EINVAL (too many SGEs) or -ENOMEM (ring full).
 */
int mroce_ring_post_recv(struct mroce_ring *ring, u32 max_sge,
			 const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct mroce_ring_hdr *hdr = ring->hdr;
	u32 prod = hdr->producer;
	int err = 0, i;

	for (; wr; wr = wr->next) {
		struct mroce_recv_wqe *wqe = mroce_ring_entry(ring, prod);
		struct mroce_sge *sge = (void *)(wqe + 1);

		if (wr->num_sge > max_sge) {
			err = -EINVAL;
			break;
		}
		if (prod - READ_ONCE(hdr->consumer) >= ring->entries) {
			err = -ENOMEM;
			break;
		}
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		prod++;
	}
	mroce_ring_publish(ring, prod);
	if (err)
		*bad_wr = wr;
	return err;
}

int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	unsigned long flags;
	int err;

	/* A user QP's receives are in its ring: no WRs is the doorbell. */
	if (qp->user && qp->rq && !wr) {
		to_mdev(ibqp->device)->engine->rq_kick(qp);
		return 0;
	}
	/* A QP on an SRQ has no receive queue. */
	if (qp->user || !qp->rq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	err = mroce_ring_post_recv(qp->rq, qp->max_recv_sge, wr, bad_wr);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	to_mdev(ibqp->device)->engine->rq_kick(qp);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queue pairs: creation, the IB state machine, and posting from kernel
 * consumers.  A QP's transport state is its stream (stream.c), created
 * when the QP reaches RTR and attached to the connection to its peer.
 */
#include <linux/log2.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "addr.h"
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
		.rq_mmap_size = qp->rq->size,
		.sq_entries = qp->sq->entries,
		.rq_entries = qp->rq->entries,
		.sq_stride = qp->sq->stride,
		.rq_stride = qp->rq->stride,
		.max_inline = qp->max_inline,
	};
	int err;

	err = mroce_ring_expose(qp->sq, &uctx->ibuc, &resp.sq_mmap_offset);
	if (!err)
		err = mroce_ring_expose(qp->rq, &uctx->ibuc, &resp.rq_mmap_offset);
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

	if (init->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (init->srq || init->create_flags)
		return -EOPNOTSUPP;
	err = mroce_qp_check_cap(cap, false);
	if (err)
		return err;
	if (atomic_inc_return(&mdev->qp_count) > MROCE_MAX_QP) {
		err = -ENOMEM;
		goto err_count;
	}

	mutex_init(&qp->mutex);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = IB_QPS_RESET;
	qp->user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_send_sge = max_t(u32, cap->max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, cap->max_recv_sge, 1);
	qp->max_inline = cap->max_inline_data;

	qp->sq = mroce_ring_alloc(roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1)),
				  sq_stride(qp->max_send_sge, qp->max_inline));
	qp->rq = mroce_ring_alloc(roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 1)),
				  rq_stride(qp->max_recv_sge));
	if (!qp->sq || !qp->rq) {
		err = -ENOMEM;
		goto err_rings;
	}
	qp->sq->hdr->flags = MROCE_RING_F_DOORBELL;
	/* What the rings can hold: report it back, as verbs expects. */
	qp->max_inline = qp->sq->stride - sizeof(struct mroce_send_wqe);
	qp->max_inline = min_t(u32, qp->max_inline, MROCE_MAX_INLINE);
	cap->max_send_wr = qp->sq->entries;
	cap->max_recv_wr = qp->rq->entries;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = qp->max_inline;

	err = xa_alloc_cyclic(&mdev->qps, &qpn, qp, XA_LIMIT(2, MROCE_QPN_MASK),
			      &mdev->qp_next, GFP_KERNEL);
	if (err < 0)
		goto err_rings;
	ibqp->qp_num = qpn;

	if (udata) {
		err = mroce_qp_expose(qp, udata);
		if (err)
			goto err_qpn;
	}
	return 0;

err_qpn:
	xa_erase(&mdev->qps, qpn);
err_rings:
	mroce_ring_put(qp->sq);
	mroce_ring_put(qp->rq);
err_count:
	atomic_dec(&mdev->qp_count);
	return err;
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

/* Back to a fresh QP: rings empty, no transport state. */
static void mroce_qp_reset(struct mroce_qp *qp)
{
	if (qp->stream) {
		mroce_stream_detach(qp->stream);
		mroce_stream_put(qp->stream);
		WRITE_ONCE(qp->stream, NULL);
	}
	memset(qp->sq->hdr, 0, MROCE_RING_HDR_SIZE);
	memset(qp->rq->hdr, 0, MROCE_RING_HDR_SIZE);
	/* Nothing is looking at the send queue: posts must ring. */
	qp->sq->hdr->flags = MROCE_RING_F_DOORBELL;
}

static int mroce_qp_to_rtr(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = to_mdev(qp->ibqp.device);
	struct mroce_stream *s;
	struct mroce_conn *conn;
	int err;

	s = mroce_stream_create(qp);
	if (!s)
		return -ENOMEM;
	conn = mroce_conn_get(mdev, &qp->laddr, &qp->raddr, true);
	if (IS_ERR(conn)) {
		mroce_stream_put(s);
		return PTR_ERR(conn);
	}
	err = mroce_stream_attach(s, conn);
	mroce_conn_put(conn);
	if (err) {
		mroce_stream_put(s);
		return err;
	}
	WRITE_ONCE(qp->stream, s);
	return 0;
}

/* Change qp->state, under the connection lock when the transport reads it. */
static void mroce_qp_set_state(struct mroce_qp *qp, enum ib_qp_state state)
{
	struct mroce_conn *conn;

	if (!qp->stream) {
		WRITE_ONCE(qp->state, state);
		return;
	}
	conn = qp->stream->conn;
	spin_lock_bh(&conn->lock);
	WRITE_ONCE(qp->state, state);
	if (state == IB_QPS_ERR)
		mroce_stream_fail(qp->stream, IB_WC_WR_FLUSH_ERR);
	spin_unlock_bh(&conn->lock);
	/* Requests posted before RTS may go now. */
	if (state == IB_QPS_RTS)
		mroce_stream_sq_kick(qp->stream);
}

int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	enum ib_qp_state cur, next;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->mutex);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	err = -EINVAL;
	if (!ib_modify_qp_is_ok(cur, next, IB_QPT_RC, mask))
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
		err = mroce_qp_to_rtr(qp);
		if (err)
			goto out;
	}
	mroce_qp_set_state(qp, next);
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
	attr->cap.max_recv_wr = qp->rq->entries;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->path_mig_state = IB_MIG_MIGRATED;
	mutex_unlock(&qp->mutex);

	memset(init, 0, sizeof(*init));
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->qp_type = IB_QPT_RC;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibqp->device);
	struct mroce_qp *qp = to_mqp(ibqp);

	mutex_lock(&qp->mutex);
	mroce_qp_reset(qp);
	mutex_unlock(&qp->mutex);
	xa_erase(&mdev->qps, ibqp->qp_num);
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	mroce_ring_put(qp->sq);
	mroce_ring_put(qp->rq);
	atomic_dec(&mdev->qp_count);
	return 0;
}

static int mroce_wr_to_wqe(struct mroce_qp *qp, const struct ib_send_wr *wr,
			   struct mroce_send_wqe *wqe)
{
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
		wqe->imm_data = wr->ex.invalidate_rkey;
		break;
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
	struct mroce_stream *stream;
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
		err = mroce_wr_to_wqe(qp, wr, mroce_ring_entry(qp->sq, prod));
		if (err)
			break;
		prod++;
	}
	mroce_ring_publish(qp->sq, prod);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
kick:
	/*
	 * Posting may happen in atomic context; the stream only changes in
	 * modify_qp, which verbs forbids running concurrently with posting.
	 */
	stream = READ_ONCE(qp->stream);
	if (stream)
		mroce_stream_sq_kick(stream);
	return err;
}

int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_ring_hdr *hdr = qp->rq->hdr;
	unsigned long flags;
	int err = 0, i;
	u32 prod;

	if (qp->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	prod = hdr->producer;
	for (; wr; wr = wr->next) {
		struct mroce_recv_wqe *wqe = mroce_ring_entry(qp->rq, prod);
		struct mroce_sge *sge = (void *)(wqe + 1);

		if (wr->num_sge > qp->max_recv_sge) {
			err = -EINVAL;
			break;
		}
		if (prod - READ_ONCE(hdr->consumer) >= qp->rq->entries) {
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
	mroce_ring_publish(qp->rq, prod);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The responder side of a stream: it places each packet at its final
 * address the moment it arrives, tracks how much of each message is
 * placed, completes receives in message order, executes READs and
 * atomics exactly once, in order, and queues their responses; its
 * errors and RNR waits go back to the requester as NAKs.
 *
 * Everything here runs under the connection's lock.
 */
#include "stream.h"

/**
 * mroce_stream_rq_kick() - receives were posted (a kernel QP's, or a user
 *	QP's doorbell in the error state)
 * @s: its stream
 *
 * After the stream failed they complete at once, flushed, so that a
 * consumer draining the QP (ib_drain_rq()) sees its marker complete.
 */
void mroce_stream_rq_kick(struct mroce_stream *s)
{
	spin_lock_bh(&s->conn->lock);
	if (s->qp && s->error && s->qp->rq)
		s->rq_done = mroce_qp_flush_rq(s->qp, s->rq_done);
	spin_unlock_bh(&s->conn->lock);
}

/**
 * mroce_resp_flush_srq() - flush the receives a failed stream took from its SRQ
 * @s: the stream
 *
 * The receives that messages in the window took complete with a flush
 * error; the rest stay in the SRQ for its other QPs.  The QP's consumer
 * learns that no more will come (IB_EVENT_QP_LAST_WQE_REACHED).
 */
void mroce_resp_flush_srq(struct mroce_stream *s)
{
	struct mroce_qp *qp = s->qp;
	unsigned int i;

	for (i = 0; i < MROCE_STREAM_WINDOW; i++) {
		struct mroce_rmsg *m = &s->rmsg[i];
		struct mroce_cqe cqe = {
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = IB_WC_RECV,
			.qp_num = s->qpn,
		};

		if (m->state == MROCE_RMSG_FREE || !m->recv || !m->recv_loaded)
			continue;
		cqe.wr_id = s->rwq[m->ssn & (s->rq_entries - 1)].wr_id;
		mroce_stream_post_cqe(to_mcq(qp->ibqp.recv_cq), &cqe, false);
		m->state = MROCE_RMSG_FREE;
	}
	mroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/**
 * mroce_resp_free() - drop a queued READ or atomic response
 * @resp: the response, on its stream's queue
 */
void mroce_resp_free(struct mroce_resp *resp)
{
	list_del(&resp->node);
	if (resp->mr)
		mroce_mr_put(resp->mr);
	kfree(resp);
}

/**
 * mroce_resp_next_seg() - the next packet of a response the stream owes
 * @s: the stream
 *
 * Responses go before the stream's own requests (mroce_stream_next_seg()).
 *
 * Return: the packet's descriptor, NULL if no response is owed, or
 * ERR_PTR(-ENOMEM).
 */
struct mroce_seg *mroce_resp_next_seg(struct mroce_stream *s)
{
	struct mroce_resp *resp;
	struct mroce_seg *seg;
	u32 n;

	resp = list_first_entry_or_null(&s->resp_q, struct mroce_resp, node);
	if (!resp)
		return NULL;
	seg = mroce_seg_alloc(s, resp->atomic ? MROCE_OP_ATOMIC_RESP :
					      MROCE_OP_READ_RESP, resp->msn);
	if (!seg)
		return ERR_PTR(-ENOMEM);
	seg->hdr.msg_len = resp->len;
	seg->hdr.offset = resp->sent;
	if (resp->atomic) {
		seg->hdr.swap_add = resp->orig;
		seg->hdr.flags = MROCE_F_ACK_REQ;
		mroce_resp_free(resp);
		return seg;
	}
	if (!resp->len) {
		/* A zero-length READ is answered by one empty response. */
		seg->hdr.flags = MROCE_F_ACK_REQ;
		mroce_resp_free(resp);
		return seg;
	}
	n = min(s->mtu, resp->len - resp->sent);
	seg->hdr.payload_len = n;
	kref_get(&resp->mr->ref);
	seg->mr = resp->mr;
	seg->src_va = resp->va + resp->sent;
	resp->sent += n;
	if (resp->sent == resp->len) {
		seg->hdr.flags = MROCE_F_ACK_REQ;
		mroce_resp_free(resp);
	}
	return seg;
}

static void stream_report(struct mroce_stream *s)
{
	s->report.qpn = s->dest_qpn;
	s->report.msn_done = s->rcv_done;
	if (list_empty(&s->ack_node))
		list_add_tail(&s->ack_node, &s->conn->ack_streams);
}

static void stream_nak(struct mroce_stream *s, struct mroce_rmsg *m, u8 nak)
{
	s->report.nak = nak;
	s->report.nak_msn = m->msn;
	s->report.nak_gen = m->gen;
	s->report.rnr_timer = s->qp ? s->qp->attr.min_rnr_timer : 0;
	stream_report(s);
}

/* Load the receive matched by @ssn, if it is posted. */
static struct mroce_rwqe *stream_recv(struct mroce_stream *s, u32 ssn, bool *bad)
{
	struct mroce_qp *qp = s->qp;
	struct mroce_rwqe *r = &s->rwq[ssn & (s->rq_entries - 1)];
	u32 prod;

	*bad = false;
	if (qp->ibqp.srq) {
		/* Any posted receive will do; ssn only names the slot. */
		int err = mroce_srq_take(to_msrq(qp->ibqp.srq), r);

		*bad = err == -EINVAL;
		return err ? NULL : r;
	}
	prod = mroce_ring_producer(qp->rq);
	if (!mroce_seq_before(ssn, prod) || ssn - s->rq_done >= s->rq_entries)
		return NULL;
	if (mroce_rwqe_load(mroce_ring_entry(qp->rq, ssn), qp->max_recv_sge, r)) {
		*bad = true;
		return NULL;
	}
	return r;
}

static void stream_run_request(struct mroce_stream *s, struct mroce_rmsg *m);

/* A responder error: raise the QP event, NAK @m, and give it @status. */
static void stream_rx_error(struct mroce_stream *s, struct mroce_rmsg *m,
			    u8 nak, enum ib_wc_status status)
{
	mroce_qp_event(s->qp, nak == MROCE_NAK_REMOTE_ACCESS ?
			      IB_EVENT_QP_ACCESS_ERR : IB_EVENT_QP_REQ_ERR);
	stream_nak(s, m, nak);
	m->status = status;
}

/* Complete messages that are done, in order. */
static void stream_advance(struct mroce_stream *s)
{
	struct mroce_qp *qp = s->qp;
	bool moved = false;

	for (;;) {
		struct mroce_rmsg *m = mroce_rmsg_oldest(s->rmsg, s->rcv_done);

		if (!m)
			break;
		if (m->state == MROCE_RMSG_REQUEST) {
			stream_run_request(s, m);
			if (s->error)
				break;
		}
		if (m->state != MROCE_RMSG_DONE)
			break;
		/*
		 * SEND_INV invalidates only now, in order: packets of earlier
		 * WRITEs with the same key may arrive after its own, by other
		 * paths, and must still find the key valid.
		 */
		if (m->opcode == MROCE_OP_SEND_INV && m->status == IB_WC_SUCCESS &&
		    mroce_invalidate(qp, m->imm, true))
			stream_rx_error(s, m, MROCE_NAK_INVALID_REQUEST,
					IB_WC_LOC_QP_OP_ERR);
		if (m->recv) {
			struct mroce_rwqe *r = &s->rwq[m->ssn & (s->rq_entries - 1)];
			struct mroce_cqe cqe = {
				.wr_id = r->wr_id,
				.status = m->status,
				.byte_len = m->len,
				.qp_num = s->qpn,
				.src_qp = s->dest_qpn,
				.opcode = m->opcode == MROCE_OP_WRITE_IMM ?
					  IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV,
				.wc_flags = MROCE_WC_F_GRH,
			};

			if (m->opcode == MROCE_OP_SEND_IMM || m->opcode == MROCE_OP_WRITE_IMM) {
				cqe.wc_flags |= MROCE_WC_F_WITH_IMM;
				cqe.imm_data = mroce_imm_from_wire(m->imm);
			} else if (m->opcode == MROCE_OP_SEND_INV) {
				cqe.wc_flags |= MROCE_WC_F_WITH_INV;
				cqe.imm_data = m->imm;
			}
			mroce_stream_post_cqe(to_mcq(qp->ibqp.recv_cq), &cqe, m->solicited);
			s->rq_done = m->ssn + 1;
			if (qp->rq)
				mroce_ring_consumed(qp->rq, s->rq_done);
		}
		m->state = MROCE_RMSG_FREE;
		if (m->status != IB_WC_SUCCESS) {
			/*
			 * msn_done stays before the failed message, so the NAK
			 * is the only news the requester gets of it.
			 */
			mroce_stream_fail(s, IB_WC_WR_FLUSH_ERR);
			break;
		}
		s->rcv_done++;
		moved = true;
	}
	if (moved)
		stream_report(s);
}

/* Fatal responder error: NAK the message, fail the QP after reporting. */
static void stream_rx_fatal(struct mroce_stream *s, struct mroce_rmsg *m,
			    u8 nak, enum ib_wc_status status)
{
	stream_rx_error(s, m, nak, status);
	if (m->recv) {
		/* The receive completes in error, in order. */
		m->state = MROCE_RMSG_DONE;
		stream_advance(s);
	} else {
		mroce_stream_fail(s, IB_WC_WR_FLUSH_ERR);
	}
}

/*
 * The region a remote access of @len bytes reaches (PLACE-WRITE-MR and
 * the like), referenced; ERR_PTR(-EACCES) if it is not allowed.  A
 * zero-length READ or WRITE reaches no memory: only the queue pair's
 * access flags are checked, not its rkey (PLACE-ZERO), and the result is
 * NULL.
 */
static struct mroce_mr *stream_rkey(struct mroce_stream *s, u32 rkey, u64 va,
				    u64 len, int access)
{
	struct mroce_qp *qp = s->qp;
	struct mroce_mr *mr;

	if ((qp->attr.qp_access_flags & access) != access)
		return ERR_PTR(-EACCES);
	if (!len)	/* never an atomic: wire.c takes only msg_len 8 for them */
		return NULL;
	mr = mroce_rkey_get(qp, rkey, va, len, access);
	return mr ?: ERR_PTR(-EACCES);
}

static void stream_run_atomic(struct mroce_stream *s, struct mroce_rmsg *m,
			      struct mroce_mr *mr, struct mroce_resp *resp)
{
	struct mroce_dev *mdev = to_mdev(s->qp->ibqp.device);
	struct page *page;
	u64 *word;

	spin_lock(&mdev->atomic_lock);
	word = mroce_mr_atomic_ptr(mr, m->va, &page);
	resp->orig = *word;
	if (m->opcode == MROCE_OP_FETCH_ADD)
		*word = resp->orig + m->swap_add;
	else if (resp->orig == m->compare)
		*word = m->swap_add;
	if (page)
		kunmap_local(word);
	spin_unlock(&mdev->atomic_lock);
}

/*
 * Execute a READ or atomic and queue its response.  It runs only once
 * every earlier message of the stream is complete, so it sees their
 * effects, as IB ordering requires.
 */
static void stream_run_request(struct mroce_stream *s, struct mroce_rmsg *m)
{
	bool atomic = mroce_op_is_atomic(m->opcode);
	struct mroce_resp *resp;
	struct mroce_mr *mr;

	mr = stream_rkey(s, m->rkey, m->va, m->len,
			 atomic ? IB_ACCESS_REMOTE_ATOMIC : IB_ACCESS_REMOTE_READ);
	if (IS_ERR(mr)) {
		stream_rx_fatal(s, m, MROCE_NAK_REMOTE_ACCESS, IB_WC_REM_ACCESS_ERR);
		return;
	}
	resp = kzalloc(sizeof(*resp), GFP_ATOMIC);
	if (!resp) {
		if (mr)
			mroce_mr_put(mr);
		stream_rx_fatal(s, m, MROCE_NAK_REMOTE_OPERATION, IB_WC_REM_OP_ERR);
		return;
	}
	resp->msn = m->msn;
	resp->atomic = atomic;
	resp->len = m->len;
	if (atomic) {
		stream_run_atomic(s, m, mr, resp);
		mroce_mr_put(mr);
	} else if (resp->len) {
		resp->va = m->va;
		resp->mr = mr;
	}
	list_add_tail(&resp->node, &s->resp_q);
	mroce_stream_want_tx(s);
	m->placed = m->len;
	m->state = MROCE_RMSG_DONE;
}

/* A packet that writes into memory: SEND*, WRITE*. */
static void stream_rx_place(struct mroce_stream *s, struct mroce_rmsg *m,
			    const struct mroce_pkt *pkt, const u8 *payload)
{
	struct mroce_rwqe *r = NULL;
	struct mroce_mr *mr;
	bool bad;

	/* The receive is copied and checked once, by the message's first packet. */
	if (m->recv && !m->recv_loaded) {
		r = stream_recv(s, m->ssn, &bad);
		if (bad) {
			stream_rx_fatal(s, m, MROCE_NAK_REMOTE_OPERATION, IB_WC_LOC_QP_OP_ERR);
			return;
		}
		if (!r) {
			/* No receive posted for it: this message waits, others go on. */
			m->rnr = true;
			mroce_count(s->conn->mdev, MROCE_CNT_RNR_NAKS_SENT, 1);
			stream_nak(s, m, MROCE_NAK_RNR);
			return;
		}
		if (pkt->opcode != MROCE_OP_WRITE_IMM && m->len > r->len) {
			stream_rx_fatal(s, m, MROCE_NAK_INVALID_REQUEST, IB_WC_LOC_LEN_ERR);
			return;
		}
		m->recv_loaded = true;
	}
	if (m->recv)
		r = &s->rwq[m->ssn & (s->rq_entries - 1)];

	if (pkt->opcode == MROCE_OP_WRITE || pkt->opcode == MROCE_OP_WRITE_IMM) {
		mr = stream_rkey(s, pkt->rkey, pkt->va, pkt->msg_len,
				 IB_ACCESS_REMOTE_WRITE);
		if (IS_ERR(mr)) {
			stream_rx_fatal(s, m, MROCE_NAK_REMOTE_ACCESS, IB_WC_REM_ACCESS_ERR);
			return;
		}
		if (mr) {
			if (pkt->payload_len)
				mroce_mr_copy(mr, pkt->va + pkt->offset,
					      (void *)payload, pkt->payload_len,
					      true);
			mroce_mr_put(mr);
		}
	} else if (pkt->payload_len &&
		   mroce_stream_scatter(s, r->sge, r->num_sge, pkt->offset,
					payload, pkt->payload_len)) {
		stream_rx_fatal(s, m, MROCE_NAK_REMOTE_OPERATION, IB_WC_LOC_PROT_ERR);
		return;
	}

	mroce_rmsg_placed(m, pkt->payload_len);
}

/**
 * mroce_stream_rx() - handle a recorded DATA packet of this stream
 * @s: the stream
 * @pkt: the parsed packet
 * @payload: its payload, @pkt->payload_len bytes
 *
 * Return: false if the stream dropped it (Documentation/wire-protocol.rst,
 * id PLACE-DROP: the caller counts it).
 */
bool mroce_stream_rx(struct mroce_stream *s, const struct mroce_pkt *pkt,
		     const u8 *payload)
{
	struct mroce_qp *qp = s->qp;
	enum ib_qp_state state;
	struct mroce_rmsg *m;

	lockdep_assert_held(&s->conn->lock);
	if (!qp || s->error || pkt->src_qpn != s->dest_qpn)
		return false;
	s->heard = true;
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS && state != IB_QPS_SQD)
		return false;

	if (pkt->opcode == MROCE_OP_READ_RESP || pkt->opcode == MROCE_OP_ATOMIC_RESP)
		return mroce_req_rx_response(s, pkt, payload);

	m = mroce_rmsg_accept(s->rmsg, s->rcv_done, pkt);
	if (!m)
		return false;

	if (pkt->opcode == MROCE_OP_READ_REQ || mroce_op_is_atomic(pkt->opcode)) {
		if (s->qp->ibqp.qp_type == IB_QPT_UC) {
			/* Answered by a NAK: not a drop (id PLACE-DROP). */
			stream_rx_fatal(s, m, MROCE_NAK_INVALID_REQUEST,
					IB_WC_REM_INV_REQ_ERR);
			return true;
		}
		mroce_rmsg_request(m, pkt);
	} else {
		stream_rx_place(s, m, pkt, payload);
	}
	if (!s->error && m->state != MROCE_RMSG_ACTIVE)
		stream_advance(s);
	return true;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The requester side of a stream: it numbers the messages of its send
 * queue, cuts them into packets for the connection's paths, places the
 * responses to its READs and atomics, and completes work requests in
 * posting order as the peer reports progress (or NAKs, or the peer goes
 * silent and is probed).
 *
 * Everything here runs under the connection's lock.
 */
#include "stream.h"

/* IB-encoded minimum RNR NAK timer (5 bits) in microseconds, IB spec 9.7.5.2.8. */
static const u32 rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static bool op_consumes_recv(u32 opcode)
{
	return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ||
	       opcode == IB_WR_SEND_WITH_INV || opcode == IB_WR_RDMA_WRITE_WITH_IMM;
}

/* Executed by the local device: no message, no packet. */
static bool op_is_local(u32 opcode)
{
	return opcode == IB_WR_LOCAL_INV || opcode == IB_WR_BIND_MW ||
	       opcode == IB_WR_REG_MR;
}

static bool op_is_rd_atomic(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ || opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

static u8 wire_opcode(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
		return MROCE_OP_SEND;
	case IB_WR_SEND_WITH_IMM:
		return MROCE_OP_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		return MROCE_OP_SEND_INV;
	case IB_WR_RDMA_WRITE:
		return MROCE_OP_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return MROCE_OP_WRITE_IMM;
	case IB_WR_RDMA_READ:
		return MROCE_OP_READ_REQ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return MROCE_OP_CMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return MROCE_OP_FETCH_ADD;
	default:
		return 0;
	}
}

/*
 * The request carrying message @msn, and its slot.  Messages map to slots
 * one to one, so the first guess is right unless local operations (which
 * carry no message) sit between; then look.
 */
static struct mroce_swqe *swqe_of_msn(struct mroce_stream *s, u32 msn,
				      u32 *index)
{
	struct mroce_swqe *w;
	u32 i;

	if (s->sq_done == s->sq_fetch)
		return NULL;
	i = s->sq_done + (msn - mroce_swqe_at(s, s->sq_done)->msg.msn);
	if (mroce_seq_before(i, s->sq_fetch) && !mroce_seq_before(i, s->sq_done)) {
		w = mroce_swqe_at(s, i);
		if (w->msg.msn == msn && !op_is_local(w->wqe.opcode))
			goto found;
	}
	for (i = s->sq_done; i != s->sq_fetch; i++) {
		w = mroce_swqe_at(s, i);
		if (w->msg.msn == msn && !op_is_local(w->wqe.opcode))
			goto found;
		if (mroce_seq_before(msn, w->msg.msn))
			break;
	}
	return NULL;
found:
	*index = i;
	return w;
}

/* Execute a local operation of the send queue. */
static enum ib_wc_status stream_local_op(struct mroce_stream *s,
					 struct mroce_swqe *w, u32 index)
{
	struct mroce_qp *qp = s->qp;

	switch (w->wqe.opcode) {
	case IB_WR_BIND_MW:
		if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
			return IB_WC_LOC_QP_OP_ERR;
		return mroce_mw_bind(qp, &w->wqe);
	case IB_WR_LOCAL_INV:
		return mroce_invalidate(qp, w->wqe.imm_data, false) ?
		       IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
	default:
		/* REG_MR: kernel consumers only, who left the region aside. */
		if (!qp->sq_reg || !qp->sq_reg[index & (s->sq_entries - 1)])
			return IB_WC_LOC_QP_OP_ERR;
		return mroce_fast_reg(qp, qp->sq_reg[index & (s->sq_entries - 1)],
				      w->wqe.wr.bind.new_rkey, w->wqe.wr.bind.access);
	}
}

/*
 * How long a stream waits for progress before probing: long enough that
 * a busy connection, whose completions lag by a few RTOs, is not probed.
 */
static u64 stream_probe_us(struct mroce_stream *s)
{
	u64 t = MROCE_PROBE_MIN_US;
	unsigned int i;

	for (i = 0; i < s->conn->paths.n; i++)
		t = max_t(u64, t, 2 * mroce_txpath_rto(&s->conn->path[i].tx));
	return t;
}

/* The stream waits for its peer from @now_us: a probe is due after. */
static void stream_wait_from(struct mroce_stream *s, u64 now_us)
{
	s->wait_since_us = now_us;
	mroce_stream_due(s, now_us + stream_probe_us(s));
}

/*
 * Completions and the peer's progress let requests go that waited for
 * them (the message window, a fence, the read limit, room in the table
 * for those still in the ring).  A stream with no such request has
 * nothing to send: its doorbell brings it back.
 */
static void stream_want_tx_if_pending(struct mroce_stream *s)
{
	if (s->sq_seg != s->sq_fetch ||
	    mroce_ring_producer(s->qp->sq) != s->sq_fetch)
		mroce_stream_want_tx(s);
}

/**
 * mroce_req_complete() - complete the send requests that are done
 * @s: the stream
 *
 * In posting order: a request done after one still in progress waits for
 * it.  A request that failed moves the queue pair to the error state.
 */
void mroce_req_complete(struct mroce_stream *s)
{
	struct mroce_qp *qp = s->qp;
	enum ib_wc_status err = IB_WC_SUCCESS;

	if (!qp)
		return;
	while (s->sq_done != s->sq_fetch) {
		struct mroce_swqe *w = mroce_swqe_at(s, s->sq_done);
		struct mroce_cqe cqe = {};

		if (w->msg.state != MROCE_SMSG_DONE)
			break;
		if (op_is_rd_atomic(w->wqe.opcode))
			s->rd_atomic--;
		if (qp->sig_all || (w->wqe.send_flags & MROCE_SEND_F_SIGNALED) ||
		    w->status != IB_WC_SUCCESS) {
			cqe.wr_id = w->wqe.wr_id;
			cqe.status = w->status;
			cqe.opcode = mroce_send_wc_opcode(w->wqe.opcode);
			cqe.byte_len = w->msg.len;
			cqe.qp_num = s->qpn;
			mroce_stream_post_cqe(to_mcq(qp->ibqp.send_cq), &cqe, false);
		}
		if (w->status == IB_WC_SUCCESS)
			/* The requester's goodput, as the benchmarks read it. */
			mroce_count(to_mdev(qp->ibqp.device),
				    MROCE_CNT_SQ_DONE_BYTES, w->msg.len);
		else if (err == IB_WC_SUCCESS)
			err = w->status;
		s->sq_done++;
		mroce_ring_consumed(qp->sq, s->sq_done);
	}
	if (mroce_seq_before(s->sq_seg, s->sq_done))
		s->sq_seg = s->sq_done;
	stream_want_tx_if_pending(s);
	/* The progress probe measures from the last completion. */
	if (s->sq_done == s->sq_fetch)
		s->wait_since_us = 0;
	else
		stream_wait_from(s, mroce_now_us());
	if (err != IB_WC_SUCCESS)
		mroce_stream_fail(s, IB_WC_WR_FLUSH_ERR);
}

/**
 * mroce_req_flush() - flush the send queue of a stream in error
 * @s: the stream
 *
 * Every request copied into the stream or still only in the ring
 * completes with IB_WC_WR_FLUSH_ERR.
 */
void mroce_req_flush(struct mroce_stream *s)
{
	struct mroce_qp *qp = s->qp;
	struct mroce_cq *cq = to_mcq(qp->ibqp.send_cq);
	u32 prod = mroce_ring_producer(qp->sq);

	/* Copied requests first, then those still only in the ring. */
	while (s->sq_done != prod && mroce_seq_before(s->sq_done, s->sq_fetch)) {
		struct mroce_swqe *w = mroce_swqe_at(s, s->sq_done);
		struct mroce_cqe cqe = {
			.status = IB_WC_WR_FLUSH_ERR,
			.qp_num = s->qpn,
			.wr_id = w->wqe.wr_id,
			.opcode = mroce_send_wc_opcode(w->wqe.opcode),
		};

		mroce_stream_post_cqe(cq, &cqe, false);
		s->sq_done++;
	}
	s->sq_done = mroce_qp_flush_sq(qp, s->sq_done);
	s->sq_fetch = s->sq_done;
	s->sq_seg = s->sq_done;
}

/* Copy one send request out of the ring and check it. */
static enum ib_wc_status stream_fetch_one(struct mroce_stream *s,
					  struct mroce_swqe *w)
{
	struct mroce_qp *qp = s->qp;
	const struct mroce_send_wqe *ring = mroce_ring_entry(qp->sq, s->sq_fetch);
	u64 len = 0;
	u32 i;

	memcpy(&w->wqe, ring, sizeof(w->wqe));
	w->status = IB_WC_SUCCESS;
	if (op_is_local(w->wqe.opcode)) {
		/* Done now; it carries no message, so the next one's number. */
		mroce_smsg_init(&w->msg, s->snd_msn, 0, 0, 0);
		w->status = stream_local_op(s, w, s->sq_fetch);
		w->msg.state = MROCE_SMSG_DONE;
		return w->status;
	}
	mroce_smsg_init(&w->msg, s->snd_msn++,
			op_consumes_recv(w->wqe.opcode) ? s->snd_ssn++ : 0, 0,
			qp->attr.rnr_retry);

	if (!wire_opcode(w->wqe.opcode))
		return IB_WC_LOC_QP_OP_ERR;
	/* UC has SENDs and WRITEs only (IB spec 9.7.4). */
	if (qp->ibqp.qp_type == IB_QPT_UC &&
	    (op_is_rd_atomic(w->wqe.opcode) || w->wqe.opcode == IB_WR_SEND_WITH_INV))
		return IB_WC_LOC_QP_OP_ERR;
	if (w->wqe.send_flags & MROCE_SEND_F_INLINE) {
		if (w->wqe.inline_len > qp->max_inline ||
		    op_is_rd_atomic(w->wqe.opcode))
			return IB_WC_LOC_LEN_ERR;
		memcpy(w->inline_data, ring + 1, w->wqe.inline_len);
		w->msg.len = w->wqe.inline_len;
		w->wqe.num_sge = 0;
		return IB_WC_SUCCESS;
	}
	if (w->wqe.num_sge > qp->max_send_sge)
		return IB_WC_LOC_LEN_ERR;
	memcpy(w->sge, ring + 1, w->wqe.num_sge * sizeof(struct mroce_sge));
	for (i = 0; i < w->wqe.num_sge; i++)
		len += w->sge[i].length;
	if (len > 1U << 31)
		return IB_WC_LOC_LEN_ERR;
	w->msg.len = len;
	if (w->wqe.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    w->wqe.opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		if (w->wqe.num_sge != 1 || w->sge[0].length < sizeof(u64) ||
		    !IS_ALIGNED(w->wqe.wr.atomic.remote_addr, sizeof(u64)))
			return IB_WC_LOC_LEN_ERR;
		w->msg.len = sizeof(u64);
	}
	return IB_WC_SUCCESS;
}

/* Pull newly posted send requests into the stream. */
static void stream_fetch(struct mroce_stream *s)
{
	struct mroce_qp *qp = s->qp;
	u32 prod;

	if (!qp || s->error || READ_ONCE(qp->state) != IB_QPS_RTS)
		return;
	/* While we are here, posts need no doorbell. */
	WRITE_ONCE(qp->sq->hdr->flags, 0);
	for (;;) {
		prod = mroce_ring_producer(qp->sq);
		while (s->sq_fetch != prod && s->sq_fetch - s->sq_done < s->sq_entries) {
			struct mroce_swqe *w = mroce_swqe_at(s, s->sq_fetch);
			enum ib_wc_status st = stream_fetch_one(s, w);

			s->sq_fetch++;
			if (st != IB_WC_SUCCESS) {
				w->msg.state = MROCE_SMSG_DONE;
				w->status = st;
				mroce_req_complete(s);
				return;
			}
			/* A local operation may complete at once. */
			if (w->msg.state == MROCE_SMSG_DONE)
				mroce_req_complete(s);
		}
		if (s->sq_fetch != prod)
			return;	/* table full: completions bring us back */
		/*
		 * Going idle: ask for the doorbell, then look once more, so a
		 * post that missed the flag is not missed by us either.  The
		 * full barrier pairs with the one userspace issues between
		 * publishing its producer index and reading the flag.
		 */
		WRITE_ONCE(qp->sq->hdr->flags, MROCE_RING_F_DOORBELL);
		/* flag store before the producer load; see above */
		smp_mb();
		if (READ_ONCE(qp->sq->hdr->producer) == prod)
			return;
		WRITE_ONCE(qp->sq->hdr->flags, 0);
	}
}

/**
 * mroce_stream_sq_kick() - the send queue has new requests
 * @s: the stream
 *
 * Context: any; a user QP's requests may be sent from here, in process
 * context (mroce_conn_send()).
 */
void mroce_stream_sq_kick(struct mroce_stream *s)
{
	struct mroce_conn *conn = s->conn;
	bool user;

	spin_lock_bh(&conn->lock);
	/* A doorbell that raced a reset finds the stream detached. */
	if (!s->qp) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	user = s->qp->user;
	if (s->error)
		mroce_req_flush(s);
	else
		mroce_stream_want_tx(s);
	spin_unlock_bh(&conn->lock);
	/*
	 * A user QP's doorbell is a system call of its own; a kernel ULP may
	 * post holding a lock its completion handler takes, and a pass can
	 * complete requests.
	 */
	if (user)
		mroce_conn_send(conn);
	else
		mroce_conn_kick(conn);
}

/* May the request at @index start now? (fence, read/atomic limit, window) */
static bool stream_may_start(struct mroce_stream *s, u32 index,
			     struct mroce_swqe *w)
{
	struct mroce_qp *qp = s->qp;
	u32 i;

	if (!mroce_seq_before(w->msg.msn, s->remote_done + MROCE_STREAM_WINDOW))
		return false;
	if (w->msg.sent || w->msg.gen)
		return true;	/* already started */
	if (op_is_rd_atomic(w->wqe.opcode) &&
	    s->rd_atomic >= max_t(u32, qp->attr.max_rd_atomic, 1))
		return false;
	if (w->wqe.send_flags & MROCE_SEND_F_FENCE)
		for (i = s->sq_done; i != index; i++)
			if (op_is_rd_atomic(mroce_swqe_at(s, i)->wqe.opcode) &&
			    mroce_swqe_at(s, i)->msg.state != MROCE_SMSG_DONE)
				return false;
	return true;
}

/* Fill in the request fields of a packet at @offset, @n bytes, of @w. */
static void seg_fill_request(struct mroce_seg *seg, struct mroce_swqe *w,
			     u32 offset, u32 n)
{
	struct mroce_pkt *h = &seg->hdr;

	h->gen = w->msg.gen;
	h->msg_len = w->msg.len;
	h->offset = offset;
	h->payload_len = n;
	h->ssn = w->msg.ssn;
	/* SEND_INV's extension carries an rkey, a number, not immediate data. */
	h->imm = w->wqe.opcode == IB_WR_SEND_WITH_INV ? w->wqe.imm_data :
		 mroce_imm_to_wire(w->wqe.imm_data);
	switch (w->wqe.opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		h->va = w->wqe.wr.rdma.remote_addr;
		h->rkey = w->wqe.wr.rdma.rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		h->compare = w->wqe.wr.atomic.compare_add;
		h->swap_add = w->wqe.wr.atomic.swap;
		h->va = w->wqe.wr.atomic.remote_addr;
		h->rkey = w->wqe.wr.atomic.rkey;
		break;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		h->swap_add = w->wqe.wr.atomic.compare_add;
		h->va = w->wqe.wr.atomic.remote_addr;
		h->rkey = w->wqe.wr.atomic.rkey;
		break;
	}
	/* Its last packet asks for an ACK. */
	if (w->msg.state == MROCE_SMSG_SENT) {
		h->flags |= MROCE_F_ACK_REQ;
		if (w->wqe.send_flags & MROCE_SEND_F_SOLICITED)
			h->flags |= MROCE_F_SOLICITED;
	}
}

/**
 * mroce_stream_next_seg() - cut the stream's next packet
 * @s: the stream
 * @now_us: current time
 * @segp: set to the packet's descriptor, or NULL
 *
 * Return: 0 with a packet; -ENODATA when the stream has nothing to send
 * now; -ENOMEM when it has but the descriptor could not be allocated.
 */
int mroce_stream_next_seg(struct mroce_stream *s, u64 now_us,
			  struct mroce_seg **segp)
{
	struct mroce_seg *seg;
	u32 i;

	lockdep_assert_held(&s->conn->lock);
	*segp = NULL;
	if (!s->qp || s->error)
		return -ENODATA;
	seg = mroce_resp_next_seg(s);
	if (IS_ERR(seg))
		return PTR_ERR(seg);
	if (seg) {
		*segp = seg;
		return 0;
	}
	stream_fetch(s);
	if (READ_ONCE(s->qp->state) != IB_QPS_RTS)
		return -ENODATA;

	for (i = s->sq_seg; i != s->sq_fetch; i++) {
		struct mroce_swqe *w = mroce_swqe_at(s, i);
		u32 n, offset;

		mroce_smsg_resume(&w->msg, now_us);
		if (w->msg.state != MROCE_SMSG_PENDING) {
			/*
			 * Cut whole: only an RNR NAK makes it PENDING again,
			 * and that moves sq_seg back to it.  Skipped once, not
			 * walked by every pass (256 QPs with 32 WRITEs each).
			 */
			if (i == s->sq_seg && w->msg.state != MROCE_SMSG_RNR_WAIT)
				s->sq_seg = i + 1;
			continue;
		}
		if (!stream_may_start(s, i, w))
			return -ENODATA;

		seg = mroce_seg_alloc(s, wire_opcode(w->wqe.opcode), w->msg.msn);
		if (!seg)
			return -ENOMEM;
		if (!w->msg.sent && !w->msg.gen && op_is_rd_atomic(w->wqe.opcode))
			s->rd_atomic++;
		n = mroce_smsg_cut(&w->msg, s->mtu,
				   op_is_rd_atomic(w->wqe.opcode), &offset);
		seg_fill_request(seg, w, offset, n);
		seg->sq_index = i;
		if (!s->wait_since_us)
			stream_wait_from(s, now_us);
		*segp = seg;
		return 0;
	}
	return -ENODATA;
}

/* Gather @len bytes at @offset of a request's payload. */
static int gather(struct mroce_stream *s, struct mroce_swqe *w, u32 offset,
		  u8 *buf, u32 len)
{
	if (w->wqe.send_flags & MROCE_SEND_F_INLINE) {
		memcpy(buf, w->inline_data + offset, len);
		return 0;
	}
	return mroce_sge_copy(s->qp->ibqp.pd, w->sge, w->wqe.num_sge, offset, buf,
			      len, false);
}

/**
 * mroce_stream_fill() - write a packet's payload
 * @seg: the packet
 * @payload: room for @seg->hdr.payload_len bytes
 *
 * A packet sent again after its message completed, or cut from a
 * generation since superseded, carries zeros: the receiver drops it
 * unread (Documentation/wire-protocol.rst, "Placement").
 */
void mroce_stream_fill(struct mroce_seg *seg, void *payload)
{
	struct mroce_stream *s = seg->stream;
	u32 len = seg->hdr.payload_len;
	struct mroce_swqe *w;

	if (!len)
		return;
	if (seg->mr) {
		mroce_mr_copy(seg->mr, seg->src_va, payload, len, false);
		return;
	}
	w = s->qp ? mroce_swqe_at(s, seg->sq_index) : NULL;
	if (!w || s->error || w->msg.msn != seg->hdr.msn || w->msg.gen != seg->hdr.gen ||
	    w->msg.state == MROCE_SMSG_DONE ||
	    !mroce_seq_before(seg->sq_index, s->sq_fetch) ||
	    mroce_seq_before(seg->sq_index, s->sq_done)) {
		memset(payload, 0, len);
		return;
	}
	if (gather(s, w, seg->hdr.offset, payload, len)) {
		memset(payload, 0, len);
		w->msg.state = MROCE_SMSG_DONE;
		w->status = IB_WC_LOC_PROT_ERR;
		mroce_req_complete(s);
	}
}

/**
 * mroce_stream_seg_expired() - a packet timed out once more than allowed
 * @seg: the packet
 *
 * Its work request fails with "transport retry counter exceeded".
 *
 * Return: true if that failed a work request or the stream.
 */
bool mroce_stream_seg_expired(struct mroce_seg *seg)
{
	struct mroce_stream *s = seg->stream;
	struct mroce_swqe *w;

	if (!s->qp || s->error)
		return false;
	if (!seg->mr && seg->hdr.opcode != MROCE_OP_ATOMIC_RESP) {
		/*
		 * A request packet: the peer's progress already covers a
		 * message it completed, so only a pending one fails.
		 */
		if (mroce_seq_before(seg->hdr.msn, s->remote_done))
			return false;
		w = mroce_swqe_at(s, seg->sq_index);
		if (w->msg.msn == seg->hdr.msn && w->msg.state != MROCE_SMSG_DONE) {
			w->msg.state = MROCE_SMSG_DONE;
			w->status = IB_WC_RETRY_EXC_ERR;
			mroce_req_complete(s);
			return true;
		}
	}
	mroce_stream_fail(s, IB_WC_WR_FLUSH_ERR);
	return true;
}

/**
 * mroce_req_rx_response() - a packet of a response to one of our requests
 * @s: the stream
 * @pkt: a READ or atomic response
 * @payload: its payload
 *
 * Placed into the request's local scatter list; the request is done once
 * every byte is.  A response that fits no outstanding request is dropped.
 *
 * Return: false if it was dropped.
 */
bool mroce_req_rx_response(struct mroce_stream *s, const struct mroce_pkt *pkt,
			   const u8 *payload)
{
	struct mroce_swqe *w;
	bool is_read;
	u32 index;

	w = swqe_of_msn(s, pkt->msn, &index);
	if (!w)
		return false;
	is_read = w->wqe.opcode == IB_WR_RDMA_READ;
	if (pkt->opcode == MROCE_OP_READ_RESP)
		is_read = !is_read;	/* true now means: wrong response type */
	if (w->msg.msn != pkt->msn || w->msg.state == MROCE_SMSG_DONE ||
	    !op_is_rd_atomic(w->wqe.opcode) || pkt->msg_len != w->msg.len || is_read)
		return false;

	if (pkt->opcode == MROCE_OP_ATOMIC_RESP) {
		u64 orig = pkt->swap_add;

		if (mroce_stream_scatter(s, w->sge, 1, 0, (const u8 *)&orig, sizeof(orig)))
			w->status = IB_WC_LOC_PROT_ERR;
		w->msg.state = MROCE_SMSG_DONE;
	} else {
		if (pkt->payload_len &&
		    mroce_stream_scatter(s, w->sge, w->wqe.num_sge, pkt->offset,
					 payload, pkt->payload_len)) {
			w->status = IB_WC_LOC_PROT_ERR;
			w->msg.state = MROCE_SMSG_DONE;
		} else {
			mroce_smsg_placed(&w->msg, pkt->payload_len);
		}
	}
	mroce_req_complete(s);
	return true;
}

/**
 * mroce_stream_progress() - apply a stream record of an ACK from the peer
 * @s: the stream
 * @rec: the record
 * @now_us: current time
 */
void mroce_stream_progress(struct mroce_stream *s,
			   const struct mroce_ack_stream *rec, u64 now_us)
{
	u32 i;

	lockdep_assert_held(&s->conn->lock);
	if (!s->qp || s->error)
		return;
	s->heard = true;
	/* The NAK first: a message it fails must not complete as a success. */
	if (rec->nak != MROCE_NAK_NONE) {
		u32 index;
		struct mroce_swqe *w = swqe_of_msn(s, rec->nak_msn, &index);

		if (w && w->msg.gen == rec->nak_gen && w->msg.state == MROCE_SMSG_SENT) {
			switch (rec->nak) {
			case MROCE_NAK_RNR:
				mroce_count(s->conn->mdev, MROCE_CNT_RNR_NAKS_RCVD, 1);
				if (!mroce_smsg_rnr(&w->msg, now_us,
						    rnr_timer_us[rec->rnr_timer & 31])) {
					w->status = IB_WC_RNR_RETRY_EXC_ERR;
					break;
				}
				s->rnr_wait = true;
				mroce_stream_due(s, w->msg.resume_us);
				if (mroce_seq_before(index, s->sq_seg))
					s->sq_seg = index;
				break;
			case MROCE_NAK_REMOTE_ACCESS:
				w->msg.state = MROCE_SMSG_DONE;
				w->status = IB_WC_REM_ACCESS_ERR;
				break;
			case MROCE_NAK_INVALID_REQUEST:
				w->msg.state = MROCE_SMSG_DONE;
				w->status = IB_WC_REM_INV_REQ_ERR;
				break;
			default:
				w->msg.state = MROCE_SMSG_DONE;
				w->status = IB_WC_REM_OP_ERR;
				break;
			}
		}
	}
	if (mroce_msg_progress(&s->remote_done, s->snd_msn, rec->msn_done)) {
		/* SENDs and WRITEs complete when the peer has placed them. */
		for (i = s->sq_done; i != s->sq_fetch; i++) {
			struct mroce_swqe *w = mroce_swqe_at(s, i);

			if (!mroce_seq_before(w->msg.msn, s->remote_done))
				break;
			if (w->msg.state == MROCE_SMSG_SENT && !op_is_rd_atomic(w->wqe.opcode))
				w->msg.state = MROCE_SMSG_DONE;
		}
	}

	/* Lists the stream too if the progress lets a request go. */
	mroce_req_complete(s);
}

/**
 * mroce_stream_deadline() - when the stream needs the timer
 * @s: the stream
 *
 * Return: the earliest of an RNR resend and a progress probe, or 0.
 */
u64 mroce_stream_deadline(struct mroce_stream *s)
{
	u64 t = 0;
	u32 i;

	lockdep_assert_held(&s->conn->lock);
	if (!s->qp || s->error)
		return 0;
	/* The requests are walked only while one may wait out an RNR NAK. */
	for (i = s->sq_seg; s->rnr_wait && i != s->sq_fetch; i++) {
		struct mroce_swqe *w = mroce_swqe_at(s, i);

		if (w->msg.state == MROCE_SMSG_RNR_WAIT && (!t || w->msg.resume_us < t))
			t = w->msg.resume_us;
	}
	s->rnr_wait = t != 0;
	if (s->wait_since_us && s->sq_done != s->sq_fetch) {
		u64 probe = s->wait_since_us + stream_probe_us(s);

		if (!t || probe < t)
			t = probe;
	}
	return t;
}

/**
 * mroce_stream_timer() - the stream's deadline passed
 * @s: the stream
 * @now_us: current time
 *
 * Return: true if the stream wants its peer probed for progress.
 */
bool mroce_stream_timer(struct mroce_stream *s, u64 now_us)
{
	lockdep_assert_held(&s->conn->lock);
	if (!s->qp || s->error)
		return false;
	mroce_stream_want_tx(s);
	if (s->wait_since_us && s->sq_done != s->sq_fetch &&
	    now_us >= s->wait_since_us + stream_probe_us(s)) {
		s->wait_since_us = now_us;
		return true;
	}
	return false;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streams: the part of the transport that belongs to one RC queue pair.
 *
 * As requester a stream numbers the messages of its send queue, cuts them
 * into packets for the connection's paths, and completes work requests in
 * posting order as the peer reports progress.  As responder it places
 * each packet at its final address the moment it arrives, tracks how much
 * of each message is placed, and completes receives in message order.
 *
 * Everything here runs under the connection's lock.
 */
#include <linux/slab.h>
#include <rdma/ib_pack.h>

#include "transport.h"

static struct kmem_cache *mroce_seg_cache;

/* IB-encoded minimum RNR NAK timer (5 bits) in microseconds, IB spec 9.7.5.2.8. */
static const u32 rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

int mroce_stream_init_cache(void)
{
	/* Its own, so that a test can count the packets held. */
	mroce_seg_cache = KMEM_CACHE(mroce_seg, MROCE_SLAB_OWN);
	return mroce_seg_cache ? 0 : -ENOMEM;
}

void mroce_stream_exit_cache(void)
{
	kmem_cache_destroy(mroce_seg_cache);
}

static struct mroce_swqe *swqe_at(struct mroce_stream *s, u32 index)
{
	return &s->swq[index & (s->sq_entries - 1)];
}

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
	i = s->sq_done + (msn - swqe_at(s, s->sq_done)->msn);
	if (mroce_seq_before(i, s->sq_fetch) && !mroce_seq_before(i, s->sq_done)) {
		w = swqe_at(s, i);
		if (w->msn == msn && !op_is_local(w->wqe.opcode))
			goto found;
	}
	for (i = s->sq_done; i != s->sq_fetch; i++) {
		w = swqe_at(s, i);
		if (w->msn == msn && !op_is_local(w->wqe.opcode))
			goto found;
		if (mroce_seq_before(msn, w->msn))
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

struct mroce_stream *mroce_stream_create(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = to_mdev(qp->ibqp.device);
	struct mroce_stream *s;
	enum ib_mtu mtu;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->sq_entries = qp->sq->entries;
	/* With an SRQ, the receives of the messages in the window. */
	s->rq_entries = qp->rq ? qp->rq->entries : MROCE_STREAM_WINDOW;
	s->swq = kvcalloc(s->sq_entries, sizeof(*s->swq), GFP_KERNEL);
	s->rwq = kvcalloc(s->rq_entries, sizeof(*s->rwq), GFP_KERNEL);
	if (!s->swq || !s->rwq) {
		kvfree(s->swq);
		kvfree(s->rwq);
		kfree(s);
		return NULL;
	}
	kref_init(&s->ref);
	INIT_LIST_HEAD(&s->conn_node);
	INIT_LIST_HEAD(&s->tx_node);
	INIT_LIST_HEAD(&s->ack_node);
	INIT_LIST_HEAD(&s->resp_q);
	s->qp = qp;
	s->qpn = qp->ibqp.qp_num;
	s->dest_qpn = qp->attr.dest_qp_num;
	/*
	 * A path MTU below the device's is the application's word on the
	 * path.  One at or above it (or none) asks for what the link
	 * carries: payloads that fill the netdev MTU.
	 */
	mtu = READ_ONCE(mdev->active_mtu);
	if (qp->attr.path_mtu && qp->attr.path_mtu < mtu)
		s->mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	else
		s->mtu = READ_ONCE(mdev->link_payload);
	s->retry_cnt = qp->attr.retry_cnt;
	/* Ring indices carry on from where the QP's rings are. */
	s->sq_fetch = READ_ONCE(qp->sq->hdr->consumer);
	s->sq_done = s->sq_fetch;
	s->sq_seg = s->sq_fetch;
	if (qp->rq)
		s->rq_done = READ_ONCE(qp->rq->hdr->consumer);
	return s;
}

static void mroce_resp_free(struct mroce_resp *resp)
{
	list_del(&resp->node);
	if (resp->mr)
		mroce_mr_put(resp->mr);
	kfree(resp);
}

static void mroce_stream_release(struct kref *ref)
{
	struct mroce_stream *s = container_of(ref, struct mroce_stream, ref);

	kvfree(s->swq);
	kvfree(s->rwq);
	if (s->conn)
		mroce_conn_put(s->conn);
	kfree(s);
}

void mroce_stream_get(struct mroce_stream *s)
{
	kref_get(&s->ref);
}

void mroce_stream_put(struct mroce_stream *s)
{
	kref_put(&s->ref, mroce_stream_release);
}

int mroce_stream_attach(struct mroce_stream *s, struct mroce_conn *conn)
{
	kref_get(&conn->ref);
	spin_lock_bh(&conn->lock);
	s->conn = conn;
	conn->idle_us = 0;
	list_add_tail(&s->conn_node, &conn->streams);
	mroce_conn_spread(conn);
	spin_unlock_bh(&conn->lock);
	mroce_conn_kick(conn);	/* says HELLO if the peer is new */
	return 0;
}

void mroce_stream_detach(struct mroce_stream *s)
{
	struct mroce_conn *conn = s->conn;
	struct mroce_resp *resp, *tmp;

	spin_lock_bh(&conn->lock);
	list_del_init(&s->conn_node);
	list_del_init(&s->tx_node);
	list_del_init(&s->ack_node);
	list_for_each_entry_safe(resp, tmp, &s->resp_q, node)
		mroce_resp_free(resp);
	/* Packets in flight keep the stream, but no longer its QP. */
	s->qp = NULL;
	if (list_empty(&conn->streams))
		mroce_conn_idle(conn);
	spin_unlock_bh(&conn->lock);
}

static void stream_want_tx(struct mroce_stream *s)
{
	if (list_empty(&s->tx_node))
		list_add_tail(&s->tx_node, &s->conn->tx_streams);
}

static void stream_report(struct mroce_stream *s)
{
	s->report.qpn = s->dest_qpn;
	s->report.msn_done = s->rcv_done;
	if (list_empty(&s->ack_node))
		list_add_tail(&s->ack_node, &s->conn->ack_streams);
}

static void stream_post_cqe(struct mroce_cq *cq, struct mroce_cqe *cqe,
			    bool solicited)
{
	cqe->port_num = MROCE_PORT;
	cqe->network_hdr_type = RDMA_NETWORK_ROCE_V1;
	mroce_cq_post(cq, cqe, solicited);
}

/* Complete send work requests that are done, in posting order. */
static void stream_complete_sends(struct mroce_stream *s)
{
	struct mroce_qp *qp = s->qp;
	enum ib_wc_status err = IB_WC_SUCCESS;

	if (!qp)
		return;
	while (s->sq_done != s->sq_fetch) {
		struct mroce_swqe *w = swqe_at(s, s->sq_done);
		struct mroce_cqe cqe = {};

		if (w->state != MROCE_SWQE_DONE)
			break;
		if (op_is_rd_atomic(w->wqe.opcode))
			s->rd_atomic--;
		if (qp->sig_all || (w->wqe.send_flags & MROCE_SEND_F_SIGNALED) ||
		    w->status != IB_WC_SUCCESS) {
			cqe.wr_id = w->wqe.wr_id;
			cqe.status = w->status;
			cqe.opcode = mroce_send_wc_opcode(w->wqe.opcode);
			cqe.byte_len = w->len;
			cqe.qp_num = s->qpn;
			stream_post_cqe(to_mcq(qp->ibqp.send_cq), &cqe, false);
		}
		if (w->status == IB_WC_SUCCESS)
			/* The requester's goodput, as the benchmarks read it. */
			mroce_count(to_mdev(qp->ibqp.device),
				    MROCE_CNT_SQ_DONE_BYTES, w->len);
		else if (err == IB_WC_SUCCESS)
			err = w->status;
		s->sq_done++;
		mroce_ring_consumed(qp->sq, s->sq_done);
		/* Room in the queue, or fences and read limits lifted. */
		stream_want_tx(s);
	}
	if (mroce_seq_before(s->sq_seg, s->sq_done))
		s->sq_seg = s->sq_done;
	/* The progress probe measures from the last completion. */
	s->wait_since_us = s->sq_done == s->sq_fetch ? 0 : mroce_now_us();
	if (err != IB_WC_SUCCESS)
		mroce_stream_fail(s, IB_WC_WR_FLUSH_ERR);
}

static void flush_send_ring(struct mroce_stream *s)
{
	struct mroce_qp *qp = s->qp;
	struct mroce_cq *cq = to_mcq(qp->ibqp.send_cq);
	u32 prod = mroce_ring_producer(qp->sq);

	/* Copied requests first, then those still only in the ring. */
	while (s->sq_done != prod && mroce_seq_before(s->sq_done, s->sq_fetch)) {
		struct mroce_swqe *w = swqe_at(s, s->sq_done);
		struct mroce_cqe cqe = {
			.status = IB_WC_WR_FLUSH_ERR,
			.qp_num = s->qpn,
			.wr_id = w->wqe.wr_id,
			.opcode = mroce_send_wc_opcode(w->wqe.opcode),
		};

		stream_post_cqe(cq, &cqe, false);
		s->sq_done++;
	}
	s->sq_done = mroce_qp_flush_sq(qp, s->sq_done);
	s->sq_fetch = s->sq_done;
	s->sq_seg = s->sq_done;
}

/**
 * mroce_stream_rq_kick() - receives were posted to a kernel QP
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

/*
 * An SRQ's receives that messages in the window took complete with a
 * flush error; the rest stay in the SRQ for its other QPs.  The QP's
 * consumer learns that no more will come (IB_EVENT_QP_LAST_WQE_REACHED).
 */
static void flush_srq_receives(struct mroce_stream *s)
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
		stream_post_cqe(to_mcq(qp->ibqp.recv_cq), &cqe, false);
		m->state = MROCE_RMSG_FREE;
	}
	mroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/**
 * mroce_stream_fail() - move the queue pair to the error state and flush
 * @s: the stream
 * @status: status of the work requests flushed (IB_WC_WR_FLUSH_ERR)
 *
 * Work requests already complete keep their status; every other posted
 * request completes with @status.  Requests posted later are flushed as
 * the doorbell reports them.
 */
void mroce_stream_fail(struct mroce_stream *s, enum ib_wc_status status)
{
	struct mroce_qp *qp = s->qp;
	struct mroce_resp *resp, *tmp;
	u32 i;

	if (!qp)
		return;
	if (!s->error) {
		s->error = true;
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		if (status != IB_WC_WR_FLUSH_ERR)
			mroce_qp_event(qp, IB_EVENT_QP_FATAL);
	}
	list_for_each_entry_safe(resp, tmp, &s->resp_q, node)
		mroce_resp_free(resp);
	/* Finished ones complete normally, in order, then the rest flush. */
	for (i = s->sq_done; i != s->sq_fetch; i++) {
		struct mroce_swqe *w = swqe_at(s, i);

		if (w->state != MROCE_SWQE_DONE) {
			w->state = MROCE_SWQE_DONE;
			w->status = status;
		}
	}
	stream_complete_sends(s);
	flush_send_ring(s);
	if (qp->rq)
		s->rq_done = mroce_qp_flush_rq(qp, s->rq_done);
	else
		flush_srq_receives(s);
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
	w->state = MROCE_SWQE_PENDING;
	w->status = IB_WC_SUCCESS;
	w->sent = 0;
	w->placed = 0;
	w->gen = 0;
	w->rnr_left = qp->attr.rnr_retry;
	if (op_is_local(w->wqe.opcode)) {
		/* Done now; it carries no message, so the next one's number. */
		w->msn = s->snd_msn;
		w->ssn = 0;
		w->len = 0;
		w->status = stream_local_op(s, w, s->sq_fetch);
		w->state = MROCE_SWQE_DONE;
		return w->status;
	}
	w->msn = s->snd_msn++;
	w->ssn = op_consumes_recv(w->wqe.opcode) ? s->snd_ssn++ : 0;

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
		w->len = w->wqe.inline_len;
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
	w->len = len;
	if (w->wqe.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    w->wqe.opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		if (w->wqe.num_sge != 1 || w->sge[0].length < sizeof(u64) ||
		    !IS_ALIGNED(w->wqe.wr.atomic.remote_addr, sizeof(u64)))
			return IB_WC_LOC_LEN_ERR;
		w->len = sizeof(u64);
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
			struct mroce_swqe *w = swqe_at(s, s->sq_fetch);
			enum ib_wc_status st = stream_fetch_one(s, w);

			s->sq_fetch++;
			if (st != IB_WC_SUCCESS) {
				w->state = MROCE_SWQE_DONE;
				w->status = st;
				stream_complete_sends(s);
				return;
			}
			/* A local operation may complete at once. */
			if (w->state == MROCE_SWQE_DONE)
				stream_complete_sends(s);
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
 */
void mroce_stream_sq_kick(struct mroce_stream *s)
{
	struct mroce_conn *conn = s->conn;

	spin_lock_bh(&conn->lock);
	/* A doorbell that raced a reset finds the stream detached. */
	if (!s->qp) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	if (s->error)
		flush_send_ring(s);
	else
		stream_want_tx(s);
	spin_unlock_bh(&conn->lock);
	mroce_conn_kick(conn);
}

static struct mroce_seg *seg_alloc(struct mroce_stream *s, u8 opcode, u32 msn)
{
	struct mroce_seg *seg = kmem_cache_zalloc(mroce_seg_cache, GFP_ATOMIC);

	if (!seg)
		return NULL;
	kref_get(&s->ref);
	seg->stream = s;
	seg->hdr.type = MROCE_PKT_DATA;
	seg->hdr.dst_qpn = s->dest_qpn;
	seg->hdr.src_qpn = s->qpn;
	seg->hdr.opcode = opcode;
	seg->hdr.msn = msn;
	return seg;
}

/* Next packet of a READ or atomic response, if one is owed. */
static struct mroce_seg *stream_resp_seg(struct mroce_stream *s)
{
	struct mroce_resp *resp;
	struct mroce_seg *seg;
	u32 n;

	resp = list_first_entry_or_null(&s->resp_q, struct mroce_resp, node);
	if (!resp)
		return NULL;
	seg = seg_alloc(s, resp->atomic ? MROCE_OP_ATOMIC_RESP : MROCE_OP_READ_RESP,
			resp->msn);
	if (!seg)
		return NULL;
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

/* May the request at @index start now? (fence, read/atomic limit, window) */
static bool stream_may_start(struct mroce_stream *s, u32 index,
			     struct mroce_swqe *w)
{
	struct mroce_qp *qp = s->qp;
	u32 i;

	if (!mroce_seq_before(w->msn, s->remote_done + MROCE_STREAM_WINDOW))
		return false;
	if (w->sent || w->gen)
		return true;	/* already started */
	if (op_is_rd_atomic(w->wqe.opcode) &&
	    s->rd_atomic >= max_t(u32, qp->attr.max_rd_atomic, 1))
		return false;
	if (w->wqe.send_flags & MROCE_SEND_F_FENCE)
		for (i = s->sq_done; i != index; i++)
			if (op_is_rd_atomic(swqe_at(s, i)->wqe.opcode) &&
			    swqe_at(s, i)->state != MROCE_SWQE_DONE)
				return false;
	return true;
}

static void seg_fill_request(struct mroce_seg *seg, struct mroce_swqe *w, u32 n)
{
	struct mroce_pkt *h = &seg->hdr;

	h->gen = w->gen;
	h->msg_len = w->len;
	h->offset = w->sent;
	h->payload_len = n;
	h->ssn = w->ssn;
	h->imm = w->wqe.imm_data;
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
	if (h->opcode == MROCE_OP_READ_REQ || mroce_op_is_atomic(h->opcode))
		h->payload_len = 0;
	if (h->opcode == MROCE_OP_READ_REQ || mroce_op_is_atomic(h->opcode) ||
	    w->sent + n == w->len) {
		h->flags |= MROCE_F_ACK_REQ;
		if (w->wqe.send_flags & MROCE_SEND_F_SOLICITED)
			h->flags |= MROCE_F_SOLICITED;
	}
}

/**
 * mroce_stream_next_seg() - cut the stream's next packet
 * @s: the stream
 * @now_us: current time
 * @segp: set to the packet's descriptor, or NULL when the stream has
 *	nothing to send now
 *
 * Return: true if the stream may have more to send.
 */
bool mroce_stream_next_seg(struct mroce_stream *s, u64 now_us,
			   struct mroce_seg **segp)
{
	struct mroce_seg *seg;
	u32 i;

	lockdep_assert_held(&s->conn->lock);
	*segp = NULL;
	if (!s->qp || s->error)
		return false;
	seg = stream_resp_seg(s);
	if (seg) {
		*segp = seg;
		return true;
	}
	stream_fetch(s);
	if (READ_ONCE(s->qp->state) != IB_QPS_RTS)
		return false;

	for (i = s->sq_seg; i != s->sq_fetch; i++) {
		struct mroce_swqe *w = swqe_at(s, i);
		u32 n;

		if (w->state == MROCE_SWQE_RNR_WAIT && w->resume_us <= now_us) {
			w->state = MROCE_SWQE_PENDING;
			w->sent = 0;
			w->gen++;
		}
		if (w->state != MROCE_SWQE_PENDING)
			continue;
		if (!stream_may_start(s, i, w))
			return false;

		seg = seg_alloc(s, wire_opcode(w->wqe.opcode), w->msn);
		if (!seg)
			return false;
		if (!w->sent && !w->gen && op_is_rd_atomic(w->wqe.opcode))
			s->rd_atomic++;
		n = min(s->mtu, w->len - w->sent);
		seg_fill_request(seg, w, n);
		seg->sq_index = i;
		if (seg->hdr.payload_len)
			w->sent += n;
		if (!seg->hdr.payload_len || w->sent == w->len)
			w->state = MROCE_SWQE_SENT;
		if (!s->wait_since_us)
			s->wait_since_us = now_us;
		*segp = seg;
		return true;
	}
	return false;
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

/* Scatter @len bytes to @offset of a local scatter list. */
static int scatter(struct mroce_stream *s, const struct mroce_sge *sges,
		   u32 nsge, u32 offset, const u8 *buf, u32 len)
{
	return mroce_sge_copy(s->qp->ibqp.pd, sges, nsge, offset, (u8 *)buf, len,
			      true);
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
	w = s->qp ? swqe_at(s, seg->sq_index) : NULL;
	if (!w || s->error || w->msn != seg->hdr.msn || w->gen != seg->hdr.gen ||
	    w->state == MROCE_SWQE_DONE ||
	    !mroce_seq_before(seg->sq_index, s->sq_fetch) ||
	    mroce_seq_before(seg->sq_index, s->sq_done)) {
		memset(payload, 0, len);
		return;
	}
	if (gather(s, w, seg->hdr.offset, payload, len)) {
		memset(payload, 0, len);
		w->state = MROCE_SWQE_DONE;
		w->status = IB_WC_LOC_PROT_ERR;
		stream_complete_sends(s);
	}
}

/**
 * mroce_stream_seg_acked() - a path acknowledged a packet: forget it
 * @ctx: the packet's struct mroce_seg
 * @arg: unused
 */
void mroce_stream_seg_acked(void *ctx, void *arg)
{
	struct mroce_seg *seg = ctx;

	if (!seg)
		return;
	if (seg->mr)
		mroce_mr_put(seg->mr);
	mroce_stream_put(seg->stream);
	kmem_cache_free(mroce_seg_cache, seg);
}

/**
 * mroce_stream_seg_expired() - a packet timed out once more than allowed
 * @seg: the packet
 *
 * Its work request fails with "transport retry counter exceeded".
 */
void mroce_stream_seg_expired(struct mroce_seg *seg)
{
	struct mroce_stream *s = seg->stream;
	struct mroce_swqe *w;

	if (!s->qp || s->error)
		return;
	if (!seg->mr && seg->hdr.opcode != MROCE_OP_ATOMIC_RESP) {
		/*
		 * A request packet: the peer's progress already covers a
		 * message it completed, so only a pending one fails.
		 */
		if (mroce_seq_before(seg->hdr.msn, s->remote_done))
			return;
		w = swqe_at(s, seg->sq_index);
		if (w->msn == seg->hdr.msn && w->state != MROCE_SWQE_DONE) {
			w->state = MROCE_SWQE_DONE;
			w->status = IB_WC_RETRY_EXC_ERR;
			stream_complete_sends(s);
			return;
		}
	}
	mroce_stream_fail(s, IB_WC_WR_FLUSH_ERR);
}

/**
 * mroce_stream_lookup() - the stream of local queue pair @qpn on @conn
 * @conn: the connection, locked
 * @qpn: the queue pair number
 *
 * Return: the stream, or NULL.
 */
struct mroce_stream *mroce_stream_lookup(struct mroce_conn *conn, u32 qpn)
{
	struct mroce_stream *s;

	lockdep_assert_held(&conn->lock);
	list_for_each_entry(s, &conn->streams, conn_node)
		if (s->qpn == qpn)
			return s;
	return NULL;
}

/* ---- responder ---- */

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
		struct mroce_rmsg *m = &s->rmsg[s->rcv_done % MROCE_STREAM_WINDOW];

		if (m->msn != s->rcv_done)
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
				cqe.imm_data = m->imm;
			} else if (m->opcode == MROCE_OP_SEND_INV) {
				cqe.wc_flags |= MROCE_WC_F_WITH_INV;
				cqe.imm_data = m->imm;
			}
			stream_post_cqe(to_mcq(qp->ibqp.recv_cq), &cqe, m->solicited);
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

static struct mroce_mr *stream_rkey(struct mroce_stream *s, u32 rkey, u64 va,
				    u64 len, int access)
{
	struct mroce_qp *qp = s->qp;

	if ((qp->attr.qp_access_flags & access) != access)
		return NULL;
	return mroce_rkey_get(qp, rkey, va, len, access);
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
	if (!mr) {
		stream_rx_fatal(s, m, MROCE_NAK_REMOTE_ACCESS, IB_WC_REM_ACCESS_ERR);
		return;
	}
	resp = kzalloc(sizeof(*resp), GFP_ATOMIC);
	if (!resp) {
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
	} else if (!resp->len) {
		mroce_mr_put(mr);
	} else {
		resp->va = m->va;
		resp->mr = mr;
	}
	list_add_tail(&resp->node, &s->resp_q);
	stream_want_tx(s);
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
		if (!mr) {
			stream_rx_fatal(s, m, MROCE_NAK_REMOTE_ACCESS, IB_WC_REM_ACCESS_ERR);
			return;
		}
		if (pkt->payload_len)
			mroce_mr_copy(mr, pkt->va + pkt->offset, (void *)payload,
				      pkt->payload_len, true);
		mroce_mr_put(mr);
	} else if (pkt->payload_len &&
		   scatter(s, r->sge, r->num_sge, pkt->offset, payload,
			   pkt->payload_len)) {
		stream_rx_fatal(s, m, MROCE_NAK_REMOTE_OPERATION, IB_WC_LOC_PROT_ERR);
		return;
	}

	m->placed += pkt->payload_len;
	if (m->placed == m->len)
		m->state = MROCE_RMSG_DONE;
}

/* Responses to our READs and atomics. */
static void stream_rx_response(struct mroce_stream *s, const struct mroce_pkt *pkt,
			       const u8 *payload)
{
	struct mroce_swqe *w;
	bool is_read;
	u32 index;

	w = swqe_of_msn(s, pkt->msn, &index);
	if (!w)
		return;
	is_read = w->wqe.opcode == IB_WR_RDMA_READ;
	if (pkt->opcode == MROCE_OP_READ_RESP)
		is_read = !is_read;	/* true now means: wrong response type */
	if (w->msn != pkt->msn || w->state == MROCE_SWQE_DONE ||
	    !op_is_rd_atomic(w->wqe.opcode) || pkt->msg_len != w->len || is_read)
		return;

	if (pkt->opcode == MROCE_OP_ATOMIC_RESP) {
		u64 orig = pkt->swap_add;

		if (scatter(s, w->sge, 1, 0, (const u8 *)&orig, sizeof(orig)))
			w->status = IB_WC_LOC_PROT_ERR;
		w->state = MROCE_SWQE_DONE;
	} else {
		if (pkt->payload_len &&
		    scatter(s, w->sge, w->wqe.num_sge, pkt->offset, payload,
			    pkt->payload_len)) {
			w->status = IB_WC_LOC_PROT_ERR;
			w->state = MROCE_SWQE_DONE;
		} else {
			w->placed += pkt->payload_len;
			if (w->placed == w->len)
				w->state = MROCE_SWQE_DONE;
		}
	}
	stream_complete_sends(s);
}

/**
 * mroce_stream_rx() - handle a recorded DATA packet of this stream
 * @s: the stream
 * @pkt: the parsed packet
 * @payload: its payload, @pkt->payload_len bytes
 */
void mroce_stream_rx(struct mroce_stream *s, const struct mroce_pkt *pkt,
		     const u8 *payload)
{
	struct mroce_qp *qp = s->qp;
	enum ib_qp_state state;
	struct mroce_rmsg *m;
	u32 d;

	lockdep_assert_held(&s->conn->lock);
	if (!qp || s->error || pkt->src_qpn != s->dest_qpn)
		return;
	s->heard = true;
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS && state != IB_QPS_SQD)
		return;

	if (pkt->opcode == MROCE_OP_READ_RESP || pkt->opcode == MROCE_OP_ATOMIC_RESP) {
		stream_rx_response(s, pkt, payload);
		return;
	}

	d = pkt->msn - s->rcv_done;
	if (d >= MROCE_STREAM_WINDOW)
		return;		/* complete already, or beyond the window */
	m = &s->rmsg[pkt->msn % MROCE_STREAM_WINDOW];
	if (m->state == MROCE_RMSG_FREE || m->msn != pkt->msn) {
		memset(m, 0, sizeof(*m));
		m->msn = pkt->msn;
		m->len = pkt->msg_len;
		m->gen = pkt->gen;
		m->opcode = pkt->opcode;
		m->recv = mroce_op_has_ssn(pkt->opcode);
		m->ssn = pkt->ssn;
		m->imm = pkt->imm;
		m->state = MROCE_RMSG_ACTIVE;
	}
	if (m->state == MROCE_RMSG_DONE || m->state == MROCE_RMSG_REQUEST ||
	    (s8)(pkt->gen - m->gen) < 0)
		return;
	if (pkt->gen != m->gen) {
		/* The sender started the message over after an RNR NAK. */
		m->gen = pkt->gen;
		m->placed = 0;
		m->rnr = false;
	}
	if (m->rnr || pkt->msg_len != m->len || pkt->opcode != m->opcode)
		return;
	if (pkt->flags & MROCE_F_SOLICITED)
		m->solicited = true;

	if (pkt->opcode == MROCE_OP_READ_REQ || mroce_op_is_atomic(pkt->opcode)) {
		if (s->qp->ibqp.qp_type == IB_QPT_UC) {
			stream_rx_fatal(s, m, MROCE_NAK_INVALID_REQUEST,
					IB_WC_REM_INV_REQ_ERR);
			return;
		}
		m->va = pkt->va;
		m->rkey = pkt->rkey;
		m->swap_add = pkt->swap_add;
		m->compare = pkt->compare;
		m->state = MROCE_RMSG_REQUEST;
	} else {
		stream_rx_place(s, m, pkt, payload);
	}
	if (!s->error && m->state != MROCE_RMSG_ACTIVE)
		stream_advance(s);
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

		if (w && w->gen == rec->nak_gen && w->state == MROCE_SWQE_SENT) {
			switch (rec->nak) {
			case MROCE_NAK_RNR:
				mroce_count(s->conn->mdev, MROCE_CNT_RNR_NAKS_RCVD, 1);
				if (!w->rnr_left) {
					w->state = MROCE_SWQE_DONE;
					w->status = IB_WC_RNR_RETRY_EXC_ERR;
					break;
				}
				if (w->rnr_left != 7)
					w->rnr_left--;
				w->state = MROCE_SWQE_RNR_WAIT;
				w->resume_us = now_us + rnr_timer_us[rec->rnr_timer & 31];
				if (mroce_seq_before(index, s->sq_seg))
					s->sq_seg = index;
				break;
			case MROCE_NAK_REMOTE_ACCESS:
				w->state = MROCE_SWQE_DONE;
				w->status = IB_WC_REM_ACCESS_ERR;
				break;
			case MROCE_NAK_INVALID_REQUEST:
				w->state = MROCE_SWQE_DONE;
				w->status = IB_WC_REM_INV_REQ_ERR;
				break;
			default:
				w->state = MROCE_SWQE_DONE;
				w->status = IB_WC_REM_OP_ERR;
				break;
			}
		}
	}
	if (mroce_seq_before(s->remote_done, rec->msn_done) &&
	    !mroce_seq_before(s->snd_msn, rec->msn_done)) {
		s->remote_done = rec->msn_done;
		/* SENDs and WRITEs complete when the peer has placed them. */
		for (i = s->sq_done; i != s->sq_fetch; i++) {
			struct mroce_swqe *w = swqe_at(s, i);

			if (!mroce_seq_before(w->msn, s->remote_done))
				break;
			if (w->state == MROCE_SWQE_SENT && !op_is_rd_atomic(w->wqe.opcode))
				w->state = MROCE_SWQE_DONE;
		}
		stream_want_tx(s);
	}

	stream_complete_sends(s);
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
	for (i = s->sq_seg; i != s->sq_fetch; i++) {
		struct mroce_swqe *w = swqe_at(s, i);

		if (w->state == MROCE_SWQE_RNR_WAIT && (!t || w->resume_us < t))
			t = w->resume_us;
	}
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
	stream_want_tx(s);
	if (s->wait_since_us && s->sq_done != s->sq_fetch &&
	    now_us >= s->wait_since_us + stream_probe_us(s)) {
		s->wait_since_us = now_us;
		return true;
	}
	return false;
}

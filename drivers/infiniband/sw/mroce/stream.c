// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streams: the part of the transport that belongs to one RC queue pair.
 * A stream is a requester (requester.c) and a responder (responder.c);
 * this file holds what both share: the stream's life with its queue pair
 * and connection, the error state that flushes both sides, the packet
 * descriptors both send, and completions.
 *
 * Everything here runs under the connection's lock.
 */
#include <linux/slab.h>
#include <rdma/ib_pack.h>

#include "stream.h"

static struct kmem_cache *mroce_seg_cache;

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
	s->rmsg = kvcalloc(MROCE_STREAM_WINDOW, sizeof(*s->rmsg), GFP_KERNEL);
	if (!s->swq || !s->rwq || !s->rmsg) {
		kvfree(s->swq);
		kvfree(s->rwq);
		kvfree(s->rmsg);
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

static void mroce_stream_release(struct kref *ref)
{
	struct mroce_stream *s = container_of(ref, struct mroce_stream, ref);

	kvfree(s->swq);
	kvfree(s->rwq);
	kvfree(s->rmsg);
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
	int err;

	spin_lock_bh(&conn->lock);
	err = xa_insert(&conn->stream_xa, s->qpn, s, GFP_ATOMIC);
	if (err) {
		spin_unlock_bh(&conn->lock);
		return err;
	}
	kref_get(&conn->ref);
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
	xa_erase(&conn->stream_xa, s->qpn);
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

/**
 * mroce_stream_post_cqe() - post a completion of one of the stream's queues
 * @cq: the queue's completion queue
 * @cqe: the completion; its port and network header type are set here
 * @solicited: the completion is solicited (it may raise an event)
 */
void mroce_stream_post_cqe(struct mroce_cq *cq, struct mroce_cqe *cqe,
			   bool solicited)
{
	cqe->port_num = MROCE_PORT;
	cqe->network_hdr_type = RDMA_NETWORK_ROCE_V1;
	mroce_cq_post(cq, cqe, solicited);
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
		struct mroce_swqe *w = mroce_swqe_at(s, i);

		if (w->msg.state != MROCE_SMSG_DONE) {
			w->msg.state = MROCE_SMSG_DONE;
			w->status = status;
		}
	}
	mroce_req_complete(s);
	mroce_req_flush(s);
	if (qp->rq)
		s->rq_done = mroce_qp_flush_rq(qp, s->rq_done);
	else
		mroce_resp_flush_srq(s);
}

/**
 * mroce_seg_alloc() - a descriptor for one DATA packet of the stream
 * @s: the stream; the descriptor holds a reference to it
 * @opcode: the packet's wire opcode
 * @msn: the message it belongs to
 *
 * The packet's context on its path until acknowledged
 * (mroce_stream_seg_acked()).
 *
 * Return: the descriptor, or NULL if out of memory.
 */
struct mroce_seg *mroce_seg_alloc(struct mroce_stream *s, u8 opcode, u32 msn)
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
 * mroce_stream_scatter() - write bytes into a local scatter list
 * @s: the stream, whose PD the list's keys must belong to
 * @sges: the list
 * @nsge: its entries
 * @offset: where in the list's bytes to start
 * @buf: the bytes
 * @len: how many
 *
 * Return: 0, or negative if the list does not cover them or a key is
 * not valid for a local write.
 */
int mroce_stream_scatter(struct mroce_stream *s, const struct mroce_sge *sges,
			 u32 nsge, u32 offset, const u8 *buf, u32 len)
{
	return mroce_sge_copy(s->qp->ibqp.pd, sges, nsge, offset, (u8 *)buf, len,
			      true);
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
	lockdep_assert_held(&conn->lock);
	return xa_load(&conn->stream_xa, qpn);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a stream's two sides.
 *
 * The responder (responder.c): packets of several messages arrive out of
 * order and are placed at once, but receives complete strictly in message
 * order; a message without a posted receive is RNR NAKed alone; a WRITE
 * with a bad rkey is NAKed and writes nothing.
 *
 * The requester (requester.c): a WRITE is cut into packets that carry its
 * bytes and completes once the peer reports it placed; a READ's response
 * is placed out of order and completes it, and a SEND done after it waits
 * for it; RNR NAKs resend after the peer's timer until the retry count is
 * spent; a NAK fails its request and flushes the rest.
 *
 * The test builds a device, PD, CQ and QP by hand (no registration, no
 * network), posts to the rings as the provider does, and calls the
 * stream's entry points as the connection's send and receive paths do.
 */
#include <kunit/test.h>

#include "../transport.h"

#define BUF	4096

struct fixture {
	struct kunit *test;
	struct mroce_dev *mdev;
	struct mroce_pd *pd;
	struct mroce_cq *cq;
	struct mroce_qp *qp;
	struct mroce_conn *conn;
	struct mroce_stream *s;
	struct ib_mr *mr;
	u8 *buf[4];
};

static void fixture_init(struct kunit *test, struct fixture *f)
{
	int i;

	f->test = test;
	f->mdev = kunit_kzalloc(test, sizeof(*f->mdev), GFP_KERNEL);
	f->pd = kunit_kzalloc(test, sizeof(*f->pd), GFP_KERNEL);
	f->cq = kunit_kzalloc(test, sizeof(*f->cq), GFP_KERNEL);
	f->qp = kunit_kzalloc(test, sizeof(*f->qp), GFP_KERNEL);
	f->conn = kunit_kzalloc(test, sizeof(*f->conn), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->mdev);
	KUNIT_ASSERT_NOT_NULL(test, f->pd);
	KUNIT_ASSERT_NOT_NULL(test, f->cq);
	KUNIT_ASSERT_NOT_NULL(test, f->qp);
	KUNIT_ASSERT_NOT_NULL(test, f->conn);

	mroce_verbs_init(f->mdev);
	f->mdev->active_mtu = IB_MTU_1024;
	f->mdev->link_payload = 1024;	/* as the netdev's MTU sets it */
	f->pd->ibpd.device = &f->mdev->ibdev;

	spin_lock_init(&f->cq->lock);
	f->cq->ring = mroce_ring_alloc(64, sizeof(struct mroce_cqe));
	KUNIT_ASSERT_NOT_NULL(test, f->cq->ring);
	f->cq->ibcq.device = &f->mdev->ibdev;

	f->qp->ibqp.device = &f->mdev->ibdev;
	f->qp->ibqp.pd = &f->pd->ibpd;
	f->qp->ibqp.send_cq = &f->cq->ibcq;
	f->qp->ibqp.recv_cq = &f->cq->ibcq;
	f->qp->ibqp.qp_num = 17;
	f->qp->sq = mroce_ring_alloc(16, 128);
	f->qp->rq = mroce_ring_alloc(16, 32);
	KUNIT_ASSERT_NOT_NULL(test, f->qp->sq);
	KUNIT_ASSERT_NOT_NULL(test, f->qp->rq);
	f->qp->max_recv_sge = 1;
	f->qp->max_send_sge = 1;
	f->qp->attr.dest_qp_num = 42;
	f->qp->attr.path_mtu = IB_MTU_1024;
	f->qp->attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	f->qp->state = IB_QPS_RTS;

	INIT_LIST_HEAD(&f->conn->streams);
	INIT_LIST_HEAD(&f->conn->tx_streams);
	INIT_LIST_HEAD(&f->conn->ack_streams);
	kref_init(&f->conn->ref);
	f->conn->mdev = f->mdev;
	f->s = mroce_stream_create(f->qp);
	KUNIT_ASSERT_NOT_NULL(test, f->s);
	f->s->conn = f->conn;

	/* One region over the test buffers; a DMA MR takes kernel addresses. */
	f->mr = mroce_get_dma_mr(&f->pd->ibpd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->mr));
	f->mr->device = &f->mdev->ibdev;	/* as the RDMA core does */
	for (i = 0; i < ARRAY_SIZE(f->buf); i++) {
		f->buf[i] = kunit_kzalloc(test, BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->buf[i]);
	}
}

static void fixture_exit(struct fixture *f)
{
	f->s->conn = NULL;	/* not a real connection: nothing to put */
	mroce_stream_put(f->s);
	mroce_dereg_mr(f->mr, NULL);
	rcu_barrier();
	mroce_ring_put(f->qp->sq);
	mroce_ring_put(f->qp->rq);
	mroce_ring_put(f->cq->ring);
	mroce_verbs_cleanup(f->mdev);
}

static void post_recv(struct fixture *f, unsigned int i)
{
	struct mroce_ring *rq = f->qp->rq;
	u32 prod = rq->hdr->producer;
	struct mroce_recv_wqe *wqe = mroce_ring_entry(rq, prod);
	struct mroce_sge *sge = (void *)(wqe + 1);

	wqe->wr_id = 100 + i;
	wqe->num_sge = 1;
	sge->addr = (uintptr_t)f->buf[i];
	sge->length = BUF;
	sge->lkey = f->mr->lkey;
	mroce_ring_publish(rq, prod + 1);
}

/* Deliver bytes [@off, @off + @len) of SEND @msn (@msg_len long). */
static void send_pkt(struct fixture *f, u32 msn, u32 msg_len, u32 off, u32 len)
{
	u8 payload[1024];
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_DATA,
		.dst_qpn = 17,
		.src_qpn = 42,
		.opcode = MROCE_OP_SEND,
		.msn = msn,
		.ssn = msn,
		.msg_len = msg_len,
		.offset = off,
		.payload_len = len,
	};
	u32 i;

	for (i = 0; i < len; i++)
		payload[i] = (u8)(msn * 31 + off + i);
	mroce_stream_rx(f->s, &pkt, payload);
}

static unsigned int cqes(struct fixture *f)
{
	return f->cq->ring->hdr->producer;
}

static struct mroce_cqe *cqe(struct fixture *f, unsigned int i)
{
	return mroce_ring_entry(f->cq->ring, i);
}

static void expect_placed(struct kunit *test, struct fixture *f, u32 msn,
			  u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (f->buf[msn][i] != (u8)(msn * 31 + i)) {
			KUNIT_FAIL(test, "message %u byte %u wrong", msn, i);
			return;
		}
}

static void in_order_completion_test(struct kunit *test)
{
	struct fixture f;

	fixture_init(test, &f);
	post_recv(&f, 0);
	post_recv(&f, 1);
	post_recv(&f, 2);

	/* Message 2 complete first, then half of 1: placed, not completed. */
	send_pkt(&f, 2, 1500, 1024, 476);
	send_pkt(&f, 2, 1500, 0, 1024);
	send_pkt(&f, 1, 2000, 1024, 976);
	KUNIT_EXPECT_EQ(test, cqes(&f), 0);
	expect_placed(test, &f, 2, 1500);

	/* Message 0 (one packet) completes: only its receive. */
	send_pkt(&f, 0, 700, 0, 700);
	KUNIT_ASSERT_EQ(test, cqes(&f), 1);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->wr_id, 100);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->byte_len, 700);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->src_qp, 42);

	/* (Duplicates never get here: the path window drops them.) */
	/* The rest of 1 completes 1 and then 2, in order. */
	send_pkt(&f, 1, 2000, 0, 1024);
	KUNIT_ASSERT_EQ(test, cqes(&f), 3);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->wr_id, 101);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->byte_len, 2000);
	KUNIT_EXPECT_EQ(test, cqe(&f, 2)->wr_id, 102);
	KUNIT_EXPECT_EQ(test, cqe(&f, 2)->byte_len, 1500);
	expect_placed(test, &f, 0, 700);
	expect_placed(test, &f, 1, 2000);
	KUNIT_EXPECT_EQ(test, f.s->rcv_done, 3);
	KUNIT_EXPECT_EQ(test, f.s->report.msn_done, 3);
	KUNIT_EXPECT_EQ(test, f.qp->rq->hdr->consumer, 3);
	fixture_exit(&f);
}

static void rnr_one_message_test(struct kunit *test)
{
	struct fixture f;

	fixture_init(test, &f);
	post_recv(&f, 0);

	/* Message 1 has no receive: NAKed, nothing placed... */
	send_pkt(&f, 1, 100, 0, 100);
	KUNIT_EXPECT_EQ(test, f.s->report.nak, MROCE_NAK_RNR);
	KUNIT_EXPECT_EQ(test, f.s->report.nak_msn, 1);
	KUNIT_EXPECT_EQ(test, f.buf[1][0], 0);
	/* ...while message 0 still lands and completes. */
	send_pkt(&f, 0, 100, 0, 100);
	KUNIT_ASSERT_EQ(test, cqes(&f), 1);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->wr_id, 100);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->status, IB_WC_SUCCESS);

	/* The resend (next generation) finds the receive posted since. */
	post_recv(&f, 1);
	{
		u8 payload[100];
		struct mroce_pkt pkt = {
			.type = MROCE_PKT_DATA, .dst_qpn = 17, .src_qpn = 42,
			.opcode = MROCE_OP_SEND, .msn = 1, .ssn = 1, .gen = 1,
			.msg_len = 100, .payload_len = 100,
		};
		u32 i;

		for (i = 0; i < 100; i++)
			payload[i] = (u8)(31 + i);
		mroce_stream_rx(f.s, &pkt, payload);
	}
	KUNIT_ASSERT_EQ(test, cqes(&f), 2);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->wr_id, 101);
	expect_placed(test, &f, 1, 100);
	fixture_exit(&f);
}

static void send_longer_than_receive_test(struct kunit *test)
{
	struct fixture f;

	fixture_init(test, &f);
	post_recv(&f, 0);
	send_pkt(&f, 0, 100, 0, 100);
	post_recv(&f, 1);
	/* Message 1 needs 5000 bytes; its receive has BUF (4096). */
	send_pkt(&f, 1, 5000, 0, 1000);
	KUNIT_EXPECT_EQ(test, f.s->report.nak, MROCE_NAK_INVALID_REQUEST);
	KUNIT_EXPECT_EQ(test, f.s->report.nak_msn, 1);
	/* Progress stops before the failed message: only the NAK tells. */
	KUNIT_EXPECT_EQ(test, f.s->report.msn_done, 1);
	KUNIT_ASSERT_EQ(test, cqes(&f), 2);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->wr_id, 101);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->status, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, f.qp->state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, f.buf[1][0], 0);
	fixture_exit(&f);
}

static void bad_rkey_writes_nothing_test(struct kunit *test)
{
	struct fixture f;
	u8 payload[64];
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_DATA, .dst_qpn = 17, .src_qpn = 42,
		.opcode = MROCE_OP_WRITE, .msn = 0, .msg_len = 64,
		.payload_len = 64,
	};
	u8 *zero = kunit_kzalloc(test, BUF, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, zero);
	fixture_init(test, &f);
	memset(payload, 0xee, sizeof(payload));
	pkt.va = (uintptr_t)f.buf[0];
	pkt.rkey = f.mr->rkey ^ 0x80;	/* right index, wrong key byte */
	mroce_stream_rx(f.s, &pkt, payload);
	KUNIT_EXPECT_EQ(test, f.s->report.nak, MROCE_NAK_REMOTE_ACCESS);
	KUNIT_EXPECT_EQ(test, memcmp(f.buf[0], zero, BUF), 0);
	KUNIT_EXPECT_EQ(test, f.qp->state, IB_QPS_ERR);

	/* Once in error, even a valid key writes nothing. */
	pkt.rkey = f.mr->rkey;
	pkt.msn = 1;
	mroce_stream_rx(f.s, &pkt, payload);
	KUNIT_EXPECT_EQ(test, memcmp(f.buf[0], zero, BUF), 0);
	fixture_exit(&f);
}

/* ---- requester ---- */

#define REMOTE_VA	0x10000ULL
#define REMOTE_RKEY	0x5501

/* Post a signaled @opcode of @len bytes at buf[@b] (remote: REMOTE_VA). */
static void post_send(struct fixture *f, u32 opcode, unsigned int b, u32 len,
		      u64 wr_id)
{
	struct mroce_ring *sq = f->qp->sq;
	u32 prod = sq->hdr->producer;
	struct mroce_send_wqe *wqe = mroce_ring_entry(sq, prod);
	struct mroce_sge *sge = (void *)(wqe + 1);

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	wqe->send_flags = MROCE_SEND_F_SIGNALED;
	wqe->num_sge = 1;
	wqe->wr.rdma.remote_addr = REMOTE_VA;
	wqe->wr.rdma.rkey = REMOTE_RKEY;
	sge->addr = (uintptr_t)f->buf[b];
	sge->length = len;
	sge->lkey = f->mr->lkey;
	mroce_ring_publish(sq, prod + 1);
}

/* The requester's next packet at @now, as the send work cuts it. */
static struct mroce_seg *cut(struct fixture *f, u64 now)
{
	struct mroce_seg *seg;
	int err = mroce_stream_next_seg(f->s, now, &seg);

	/* No allocation fails here: a packet, or nothing to send. */
	KUNIT_EXPECT_EQ(f->test, err, seg ? 0 : -ENODATA);
	return seg;
}

/* An ACK's stream record: @msn_done placed, and a NAK of @nak_msn. */
static void progress(struct fixture *f, u32 msn_done, u8 nak, u32 nak_msn,
		     u8 nak_gen, u64 now)
{
	struct mroce_ack_stream rec = {
		.qpn = 17, .msn_done = msn_done, .nak = nak,
		.nak_msn = nak_msn, .nak_gen = nak_gen, .rnr_timer = 1,
	};

	mroce_stream_progress(f->s, &rec, now);
}

static void write_cut_and_completed_test(struct kunit *test)
{
	static const u32 len[] = { 1024, 1024, 452 };
	struct mroce_seg *seg[3];
	struct fixture f;
	u8 payload[1024];
	unsigned int i;

	fixture_init(test, &f);
	f.s->mtu = 1024;
	for (i = 0; i < 2500; i++)
		f.buf[0][i] = (u8)(7 * i + 3);
	post_send(&f, IB_WR_RDMA_WRITE, 0, 2500, 77);

	for (i = 0; i < 3; i++) {
		seg[i] = cut(&f, 1000);
		KUNIT_ASSERT_NOT_NULL(test, seg[i]);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.opcode, MROCE_OP_WRITE);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.dst_qpn, 42);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.src_qpn, 17);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.msn, 0);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.msg_len, 2500);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.offset, i * 1024);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.payload_len, len[i]);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.va, REMOTE_VA);
		KUNIT_EXPECT_EQ(test, seg[i]->hdr.rkey, REMOTE_RKEY);
		/* Only the message's last packet asks for an ACK. */
		KUNIT_EXPECT_EQ(test, !!(seg[i]->hdr.flags & MROCE_F_ACK_REQ), i == 2);
		mroce_stream_fill(seg[i], payload);
		KUNIT_EXPECT_EQ(test, memcmp(payload, f.buf[0] + i * 1024, len[i]), 0);
	}
	KUNIT_EXPECT_NULL(test, cut(&f, 1000));
	/* Sent is not done: the peer has not said it placed the bytes. */
	KUNIT_EXPECT_EQ(test, cqes(&f), 0);

	progress(&f, 1, MROCE_NAK_NONE, 0, 0, 1100);
	KUNIT_ASSERT_EQ(test, cqes(&f), 1);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->wr_id, 77);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->byte_len, 2500);
	KUNIT_EXPECT_EQ(test, f.qp->sq->hdr->consumer, 1);

	/* Sent again after its message completed, a packet carries zeros. */
	memset(payload, 0xff, sizeof(payload));
	mroce_stream_fill(seg[1], payload);
	KUNIT_EXPECT_NULL(test, memchr_inv(payload, 0, sizeof(payload)));
	for (i = 0; i < 3; i++)
		mroce_stream_seg_acked(seg[i], NULL);
	fixture_exit(&f);
}

/*
 * The peer's progress lists the stream for a send pass only when a
 * request waits to go: otherwise a pass would find nothing.
 */
static void progress_lists_only_pending_test(struct kunit *test)
{
	struct mroce_seg *seg;
	struct fixture f;

	fixture_init(test, &f);
	post_send(&f, IB_WR_RDMA_WRITE, 0, 100, 90);
	seg = cut(&f, 1000);
	KUNIT_ASSERT_NOT_NULL(test, seg);
	KUNIT_EXPECT_NULL(test, cut(&f, 1000));
	progress(&f, 1, MROCE_NAK_NONE, 0, 0, 1100);
	KUNIT_EXPECT_EQ(test, cqes(&f), 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&f.s->tx_node));
	mroce_stream_seg_acked(seg, NULL);

	/* Posted while the first was out: the ring holds one not fetched. */
	post_send(&f, IB_WR_RDMA_WRITE, 0, 100, 91);
	seg = cut(&f, 1200);
	KUNIT_ASSERT_NOT_NULL(test, seg);
	post_send(&f, IB_WR_RDMA_WRITE, 1, 100, 92);
	progress(&f, 2, MROCE_NAK_NONE, 0, 0, 1300);
	KUNIT_EXPECT_EQ(test, cqes(&f), 2);
	KUNIT_EXPECT_FALSE(test, list_empty(&f.s->tx_node));
	mroce_stream_seg_acked(seg, NULL);
	seg = cut(&f, 1400);
	KUNIT_ASSERT_NOT_NULL(test, seg);
	KUNIT_EXPECT_EQ(test, seg->hdr.msn, 2);
	mroce_stream_seg_acked(seg, NULL);
	list_del_init(&f.s->tx_node);
	fixture_exit(&f);
}

static void read_response_completes_in_order_test(struct kunit *test)
{
	struct mroce_seg *rd, *snd;
	struct fixture f;
	u8 payload[1024];
	u32 i;

	fixture_init(test, &f);
	f.s->mtu = 1024;
	post_send(&f, IB_WR_RDMA_READ, 1, 1500, 80);
	post_send(&f, IB_WR_SEND, 2, 100, 81);

	rd = cut(&f, 1000);
	snd = cut(&f, 1000);
	KUNIT_ASSERT_NOT_NULL(test, rd);
	KUNIT_ASSERT_NOT_NULL(test, snd);
	KUNIT_EXPECT_EQ(test, rd->hdr.opcode, MROCE_OP_READ_REQ);
	KUNIT_EXPECT_EQ(test, rd->hdr.payload_len, 0);
	KUNIT_EXPECT_EQ(test, rd->hdr.msg_len, 1500);
	KUNIT_EXPECT_TRUE(test, rd->hdr.flags & MROCE_F_ACK_REQ);
	KUNIT_EXPECT_EQ(test, snd->hdr.opcode, MROCE_OP_SEND);
	KUNIT_EXPECT_EQ(test, snd->hdr.msn, 1);

	/* The SEND is placed, but the READ before it has no answer yet. */
	progress(&f, 2, MROCE_NAK_NONE, 0, 0, 1100);
	KUNIT_EXPECT_EQ(test, cqes(&f), 0);

	/* The response's packets, last first. */
	for (i = 0; i < 2; i++) {
		u32 off = i ? 0 : 1024, n = i ? 1024 : 476, k;
		struct mroce_pkt pkt = {
			.type = MROCE_PKT_DATA, .dst_qpn = 17, .src_qpn = 42,
			.opcode = MROCE_OP_READ_RESP, .msn = 0, .msg_len = 1500,
			.offset = off, .payload_len = n,
		};

		for (k = 0; k < n; k++)
			payload[k] = (u8)(off + k + 5);
		mroce_stream_rx(f.s, &pkt, payload);
		KUNIT_EXPECT_EQ(test, cqes(&f), i ? 2 : 0);
	}
	KUNIT_ASSERT_EQ(test, cqes(&f), 2);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->wr_id, 80);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->byte_len, 1500);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->wr_id, 81);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->opcode, IB_WC_SEND);
	for (i = 0; i < 1500; i++)
		if (f.buf[1][i] != (u8)(i + 5)) {
			KUNIT_FAIL(test, "READ byte %u wrong", i);
			break;
		}
	mroce_stream_seg_acked(rd, NULL);
	mroce_stream_seg_acked(snd, NULL);
	fixture_exit(&f);
}

static void rnr_retry_then_exceeded_test(struct kunit *test)
{
	struct mroce_seg *seg, *again;
	struct fixture f;

	fixture_init(test, &f);
	f.s->mtu = 1024;
	f.qp->attr.rnr_retry = 1;
	post_send(&f, IB_WR_SEND, 0, 100, 90);
	seg = cut(&f, 1000);
	KUNIT_ASSERT_NOT_NULL(test, seg);
	KUNIT_EXPECT_EQ(test, seg->hdr.gen, 0);

	/* RNR timer code 1 is 10 us: the message waits that long. */
	progress(&f, 0, MROCE_NAK_RNR, 0, 0, 2000);
	KUNIT_EXPECT_EQ(test, mroce_stream_deadline(f.s), 2010);
	KUNIT_EXPECT_NULL(test, cut(&f, 2005));
	again = cut(&f, 2010);
	KUNIT_ASSERT_NOT_NULL(test, again);
	KUNIT_EXPECT_EQ(test, again->hdr.gen, 1);
	KUNIT_EXPECT_EQ(test, again->hdr.offset, 0);
	KUNIT_EXPECT_EQ(test, cqes(&f), 0);

	/* A NAK of the old generation is stale; of the new one, final. */
	progress(&f, 0, MROCE_NAK_RNR, 0, 0, 2020);
	KUNIT_EXPECT_EQ(test, cqes(&f), 0);
	progress(&f, 0, MROCE_NAK_RNR, 0, 1, 2030);
	KUNIT_ASSERT_EQ(test, cqes(&f), 1);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->wr_id, 90);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->status, IB_WC_RNR_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, f.qp->state, IB_QPS_ERR);
	mroce_stream_seg_acked(seg, NULL);
	mroce_stream_seg_acked(again, NULL);
	fixture_exit(&f);
}

static void nak_fails_and_flushes_test(struct kunit *test)
{
	struct mroce_seg *a, *b;
	struct fixture f;

	fixture_init(test, &f);
	f.s->mtu = 1024;
	post_send(&f, IB_WR_RDMA_WRITE, 0, 100, 95);
	post_send(&f, IB_WR_RDMA_WRITE, 1, 100, 96);
	a = cut(&f, 1000);
	b = cut(&f, 1000);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);

	progress(&f, 0, MROCE_NAK_REMOTE_ACCESS, 0, 0, 1100);
	KUNIT_ASSERT_EQ(test, cqes(&f), 2);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->wr_id, 95);
	KUNIT_EXPECT_EQ(test, cqe(&f, 0)->status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->wr_id, 96);
	KUNIT_EXPECT_EQ(test, cqe(&f, 1)->status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, f.qp->state, IB_QPS_ERR);
	/* In error, the stream cuts nothing more. */
	KUNIT_EXPECT_NULL(test, cut(&f, 1200));
	mroce_stream_seg_acked(a, NULL);
	mroce_stream_seg_acked(b, NULL);
	fixture_exit(&f);
}

static struct kunit_case mroce_stream_cases[] = {
	KUNIT_CASE(in_order_completion_test),
	KUNIT_CASE(rnr_one_message_test),
	KUNIT_CASE(send_longer_than_receive_test),
	KUNIT_CASE(bad_rkey_writes_nothing_test),
	KUNIT_CASE(write_cut_and_completed_test),
	KUNIT_CASE(progress_lists_only_pending_test),
	KUNIT_CASE(read_response_completes_in_order_test),
	KUNIT_CASE(rnr_retry_then_exceeded_test),
	KUNIT_CASE(nak_fails_and_flushes_test),
	{}
};

static struct kunit_suite mroce_stream_suite = {
	.name = "mroce-stream",
	.test_cases = mroce_stream_cases,
};

kunit_test_suite(mroce_stream_suite);

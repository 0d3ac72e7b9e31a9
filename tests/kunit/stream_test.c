// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the responder side of a stream (stream.c): packets of
 * several messages arrive out of order and are placed at once, but
 * receives complete strictly in message order; a message without a
 * posted receive is RNR NAKed alone; a WRITE with a bad rkey is NAKed and
 * writes nothing.
 *
 * The test builds a device, PD, CQ and QP by hand (no registration, no
 * network) and hands packets straight to mroce_stream_rx().
 */
#include <kunit/test.h>

#include "../transport.h"

#define BUF	4096

struct fixture {
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

static struct kunit_case mroce_stream_cases[] = {
	KUNIT_CASE(in_order_completion_test),
	KUNIT_CASE(rnr_one_message_test),
	KUNIT_CASE(send_longer_than_receive_test),
	KUNIT_CASE(bad_rkey_writes_nothing_test),
	{}
};

static struct kunit_suite mroce_stream_suite = {
	.name = "mroce-stream",
	.test_cases = mroce_stream_cases,
};

kunit_test_suite(mroce_stream_suite);

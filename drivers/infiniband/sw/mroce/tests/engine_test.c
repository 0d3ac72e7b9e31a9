// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the engine seam (engine.h), from the verbs side.
 *
 * A recording engine stands in for the software one: the queue pair
 * verbs (create, modify, post, destroy) run unchanged over it, and each
 * test checks what they asked of the engine and in which order, and that
 * an engine's refusal reaches the caller with the queue pair unchanged.
 */
#include <kunit/test.h>

#include "../engine.h"
#include "../transport.h"

enum ev_op { EV_CREATE, EV_DESTROY, EV_CONNECT, EV_RESET, EV_STATE, EV_SQ, EV_RQ };

struct ev {
	enum ev_op op;
	enum ib_qp_state state;	/* EV_STATE only */
};

static struct {
	struct ev ev[32];
	unsigned int n;
	int connect_err;
} rec;

static void rec_add(enum ev_op op, enum ib_qp_state state)
{
	if (rec.n < ARRAY_SIZE(rec.ev))
		rec.ev[rec.n] = (struct ev){ .op = op, .state = state };
	rec.n++;
}

static int rec_qp_create(struct mroce_qp *qp)
{
	rec_add(EV_CREATE, 0);
	return 0;
}

static void rec_qp_destroy(struct mroce_qp *qp)
{
	rec_add(EV_DESTROY, 0);
}

static int rec_qp_connect(struct mroce_qp *qp)
{
	rec_add(EV_CONNECT, 0);
	return rec.connect_err;
}

static void rec_qp_reset(struct mroce_qp *qp)
{
	rec_add(EV_RESET, 0);
}

static void rec_qp_set_state(struct mroce_qp *qp, enum ib_qp_state state)
{
	rec_add(EV_STATE, state);
	WRITE_ONCE(qp->state, state);
}

static void rec_sq_kick(struct mroce_qp *qp)
{
	rec_add(EV_SQ, 0);
}

static void rec_rq_kick(struct mroce_qp *qp)
{
	rec_add(EV_RQ, 0);
}

static const struct mroce_engine_ops rec_engine = {
	.name = "recording",
	.qp_create = rec_qp_create,
	.qp_destroy = rec_qp_destroy,
	.qp_connect = rec_qp_connect,
	.qp_reset = rec_qp_reset,
	.qp_set_state = rec_qp_set_state,
	.sq_kick = rec_sq_kick,
	.rq_kick = rec_rq_kick,
};

struct fixture {
	struct mroce_dev *mdev;
	struct mroce_qp *qp;
};

static void fixture_init(struct kunit *test, struct fixture *f,
			 enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	memset(&rec, 0, sizeof(rec));
	f->mdev = kunit_kzalloc(test, sizeof(*f->mdev), GFP_KERNEL);
	f->qp = kunit_kzalloc(test, sizeof(*f->qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->mdev);
	KUNIT_ASSERT_NOT_NULL(test, f->qp);
	mroce_verbs_init(f->mdev);
	KUNIT_EXPECT_PTR_EQ(test, f->mdev->engine, &mroce_sw_engine);
	f->mdev->engine = &rec_engine;

	f->qp->ibqp.device = &f->mdev->ibdev;
	f->qp->ibqp.qp_type = type;	/* as the RDMA core sets it */
	KUNIT_ASSERT_EQ(test, mroce_create_qp(&f->qp->ibqp, &init, NULL), 0);
	KUNIT_EXPECT_EQ(test, rec.n, 1);
	KUNIT_EXPECT_EQ(test, rec.ev[0].op, EV_CREATE);
	rec.n = 0;
}

static void fixture_exit(struct kunit *test, struct fixture *f)
{
	rec.n = 0;
	KUNIT_EXPECT_EQ(test, mroce_destroy_qp(&f->qp->ibqp, NULL), 0);
	/* Reset before destroy: the engine drops its state first. */
	KUNIT_EXPECT_EQ(test, rec.n, 2);
	KUNIT_EXPECT_EQ(test, rec.ev[0].op, EV_RESET);
	KUNIT_EXPECT_EQ(test, rec.ev[1].op, EV_DESTROY);
	mroce_verbs_cleanup(f->mdev);
}

static int modify(struct fixture *f, enum ib_qp_state state, int mask)
{
	struct ib_qp_attr attr = {
		.qp_state = state,
		.port_num = MROCE_PORT,
		.qkey = 0x11111111,
	};

	return mroce_modify_qp(&f->qp->ibqp, &attr, mask | IB_QP_STATE, NULL);
}

static void expect_state_ev(struct kunit *test, unsigned int i,
			    enum ib_qp_state state)
{
	KUNIT_EXPECT_EQ(test, rec.ev[i].op, EV_STATE);
	KUNIT_EXPECT_EQ(test, rec.ev[i].state, state);
}

/*
 * Through the states a UD QP takes (RC's RTR needs a resolved GID): each
 * move is one state change, INIT to RTR connects first, RESET resets.
 * A transition IB forbids reaches no engine at all.
 */
static void state_changes_test(struct kunit *test)
{
	struct fixture f;

	fixture_init(test, &f, IB_QPT_UD);

	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_RTS, IB_QP_SQ_PSN), -EINVAL);
	KUNIT_EXPECT_EQ(test, rec.n, 0);

	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_INIT,
				     IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY), 0);
	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_RTR, 0), 0);
	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_RTS, IB_QP_SQ_PSN), 0);
	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_ERR, 0), 0);
	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_RESET, 0), 0);
	KUNIT_ASSERT_EQ(test, rec.n, 7);
	expect_state_ev(test, 0, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, rec.ev[1].op, EV_CONNECT);
	expect_state_ev(test, 2, IB_QPS_RTR);
	expect_state_ev(test, 3, IB_QPS_RTS);
	expect_state_ev(test, 4, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, rec.ev[5].op, EV_RESET);
	expect_state_ev(test, 6, IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, f.qp->state, IB_QPS_RESET);

	fixture_exit(test, &f);
}

/* An engine that cannot connect leaves the QP in INIT, and says why. */
static void connect_refused_test(struct kunit *test)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct fixture f;

	fixture_init(test, &f, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_INIT,
				     IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY), 0);
	rec.n = 0;
	rec.connect_err = -ENETUNREACH;
	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_RTR, 0), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, rec.n, 1);
	KUNIT_EXPECT_EQ(test, rec.ev[0].op, EV_CONNECT);
	KUNIT_EXPECT_EQ(test, mroce_query_qp(&f.qp->ibqp, &attr, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_INIT);

	rec.connect_err = 0;
	KUNIT_EXPECT_EQ(test, modify(&f, IB_QPS_RTR, 0), 0);
	fixture_exit(test, &f);
}

static void sge_wr(struct ib_sge *sge, void *buf, u32 len)
{
	sge->addr = (uintptr_t)buf;
	sge->length = len;
	sge->lkey = 0;
}

/*
 * Each post is one doorbell however many requests it carries, the
 * requests are in the ring before it rings, and a full ring still rings
 * for what did fit.
 */
static void doorbells_test(struct kunit *test)
{
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_wr;
	struct ib_send_wr wr[5] = {};
	struct ib_recv_wr rwr[2] = {};
	struct ib_sge sge;
	struct fixture f;
	u8 buf[64];
	int i;

	fixture_init(test, &f, IB_QPT_RC);
	sge_wr(&sge, buf, sizeof(buf));
	for (i = 0; i < ARRAY_SIZE(wr); i++) {
		wr[i].wr_id = 10 + i;
		wr[i].opcode = IB_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < ARRAY_SIZE(wr) ? &wr[i + 1] : NULL;
	}

	/* Two requests, one doorbell. */
	wr[1].next = NULL;
	KUNIT_EXPECT_EQ(test, mroce_post_send(&f.qp->ibqp, wr, &bad_wr), 0);
	KUNIT_EXPECT_EQ(test, rec.n, 1);
	KUNIT_EXPECT_EQ(test, rec.ev[0].op, EV_SQ);
	KUNIT_EXPECT_EQ(test, f.qp->sq->hdr->producer, 2);
	KUNIT_EXPECT_EQ(test, ((struct mroce_send_wqe *)
			       mroce_ring_entry(f.qp->sq, 1))->wr_id, 11);

	/* Three more into the two free slots: -ENOMEM at the third. */
	KUNIT_EXPECT_EQ(test, mroce_post_send(&f.qp->ibqp, &wr[2], &bad_wr), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad_wr, &wr[4]);
	KUNIT_EXPECT_EQ(test, f.qp->sq->hdr->producer, 4);
	KUNIT_EXPECT_EQ(test, rec.n, 2);
	KUNIT_EXPECT_EQ(test, rec.ev[1].op, EV_SQ);

	rwr[0].wr_id = 20;
	rwr[0].sg_list = &sge;
	rwr[0].num_sge = 1;
	rwr[0].next = &rwr[1];
	rwr[1] = rwr[0];
	rwr[1].wr_id = 21;
	rwr[1].next = NULL;
	KUNIT_EXPECT_EQ(test, mroce_post_recv(&f.qp->ibqp, rwr, &bad_rwr), 0);
	KUNIT_EXPECT_EQ(test, f.qp->rq->hdr->producer, 2);
	KUNIT_EXPECT_EQ(test, rec.n, 3);
	KUNIT_EXPECT_EQ(test, rec.ev[2].op, EV_RQ);

	fixture_exit(test, &f);
}

static void hw_vendor_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, mroce_engine_hw_vendor("ionic"), "AMD Pensando");
	KUNIT_EXPECT_NULL(test, mroce_engine_hw_vendor("virtio_net"));
	KUNIT_EXPECT_NULL(test, mroce_engine_hw_vendor("ionic2"));
	KUNIT_EXPECT_NULL(test, mroce_engine_hw_vendor(NULL));
}

static struct kunit_case mroce_engine_cases[] = {
	KUNIT_CASE(state_changes_test),
	KUNIT_CASE(connect_refused_test),
	KUNIT_CASE(doorbells_test),
	KUNIT_CASE(hw_vendor_test),
	{}
};

static struct kunit_suite mroce_engine_suite = {
	.name = "mroce-engine",
	.test_cases = mroce_engine_cases,
};

kunit_test_suite(mroce_engine_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The software engine: the verbs layer's requests (engine.h) carried out
 * by the stream of a connected queue pair (stream.c, attached to the
 * connection to its peer in conn.c) or by the datagram side (ud.c).
 */
#include <linux/string.h>

#include "engine.h"
#include "transport.h"

/*
 * The QP's stream, referenced, or NULL.  uverbs runs post_send and
 * post_recv (the doorbells) beside modify_qp on the same QP, so a doorbell
 * must not use qp->stream unreferenced: a concurrent move to RESET
 * detaches and releases it.  The caller puts it.
 */
static struct mroce_stream *sw_stream_get(struct mroce_qp *qp)
{
	struct mroce_stream *s;
	unsigned long flags;

	spin_lock_irqsave(&qp->stream_lock, flags);
	s = qp->stream;
	if (s)
		mroce_stream_get(s);
	spin_unlock_irqrestore(&qp->stream_lock, flags);
	return s;
}

static void sw_stream_set(struct mroce_qp *qp, struct mroce_stream *s)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->stream_lock, flags);
	qp->stream = s;
	spin_unlock_irqrestore(&qp->stream_lock, flags);
}

static int sw_qp_create(struct mroce_qp *qp)
{
	return mroce_qp_is_ud(qp) ? mroce_ud_init(qp) : 0;
}

static void sw_qp_destroy(struct mroce_qp *qp)
{
	if (mroce_qp_is_ud(qp))
		mroce_ud_cleanup(qp);
}

static int sw_qp_connect(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = to_mdev(qp->ibqp.device);
	struct mroce_stream *s;
	struct mroce_conn *conn;
	int err;

	/* Datagrams need no connection: each carries its own address. */
	if (mroce_qp_is_ud(qp))
		return 0;
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
	sw_stream_set(qp, s);
	return 0;
}

static void sw_qp_reset(struct mroce_qp *qp)
{
	struct mroce_stream *s = qp->stream;

	if (mroce_qp_is_ud(qp))
		mroce_ud_set_state(qp, IB_QPS_RESET);
	if (s) {
		/* No doorbell takes it from here on; those that did hold it. */
		sw_stream_set(qp, NULL);
		mroce_stream_detach(s);
		mroce_stream_put(s);
	}
}

static void sw_sq_kick(struct mroce_qp *qp)
{
	struct mroce_stream *s;
	unsigned long flags;

	if (mroce_qp_is_ud(qp)) {
		mroce_ud_sq_kick(qp);
		return;
	}
	s = sw_stream_get(qp);
	if (s) {
		mroce_stream_sq_kick(s);
		mroce_stream_put(s);
	} else if (READ_ONCE(qp->state) == IB_QPS_ERR) {
		/*
		 * Failed before it had a stream: flush here (ib_drain_sq()).
		 * The state again under the lock: a reset empties the ring
		 * under it (mroce_qp_reset()).
		 */
		spin_lock_irqsave(&qp->sq_lock, flags);
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			mroce_qp_flush_sq(qp, READ_ONCE(qp->sq->hdr->consumer));
		spin_unlock_irqrestore(&qp->sq_lock, flags);
	}
}

/*
 * Receives are taken from the ring when a message needs one; only those
 * posted to a QP in the error state (by a kernel post_recv, or the user's
 * doorbell, which the provider makes only then) need the engine at once: they
 * complete flushed, so a consumer draining the QP (ib_drain_rq()) sees
 * its marker complete.  Whoever consumes the ring flushes: the stream,
 * the datagram side, or for a QP that failed before it had either, this.
 */
static void sw_rq_kick(struct mroce_qp *qp)
{
	struct mroce_stream *s;
	unsigned long flags;

	if (READ_ONCE(qp->state) != IB_QPS_ERR)
		return;
	s = sw_stream_get(qp);
	if (s) {
		mroce_stream_rq_kick(s);
		mroce_stream_put(s);
	} else if (mroce_qp_is_ud(qp)) {
		/* As in sw_sq_kick(); a reset sets RESET under this lock. */
		spin_lock_irqsave(&qp->ud_lock, flags);
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			qp->rq_done = mroce_qp_flush_rq(qp, qp->rq_done);
		spin_unlock_irqrestore(&qp->ud_lock, flags);
	} else if (qp->rq) {
		spin_lock_irqsave(&qp->rq_lock, flags);
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			mroce_qp_flush_rq(qp, READ_ONCE(qp->rq->hdr->consumer));
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
}

/* Change qp->state, under the connection lock when the transport reads it. */
static void sw_qp_set_state(struct mroce_qp *qp, enum ib_qp_state state)
{
	struct mroce_conn *conn;

	if (mroce_qp_is_ud(qp)) {
		mroce_ud_set_state(qp, state);
		return;
	}
	if (!qp->stream) {
		WRITE_ONCE(qp->state, state);
		/*
		 * Nothing consumes the rings yet: flush what is posted now.
		 * On an SRQ, the receives stay there (IBA's Last WQE Reached).
		 */
		if (state == IB_QPS_ERR) {
			sw_sq_kick(qp);
			sw_rq_kick(qp);
			if (!qp->rq)
				mroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
		}
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

const struct mroce_engine_ops mroce_sw_engine = {
	.name = "software",
	.qp_create = sw_qp_create,
	.qp_destroy = sw_qp_destroy,
	.qp_connect = sw_qp_connect,
	.qp_reset = sw_qp_reset,
	.qp_set_state = sw_qp_set_state,
	.sq_kick = sw_sq_kick,
	.rq_kick = sw_rq_kick,
};

/*
 * Netdev drivers of NICs that can run a transport like mroce's in
 * hardware.  The driver has no way to hand it QPs yet, so on them the
 * software engine runs and the log says so.
 */
static const struct {
	const char *driver;
	const char *vendor;
} mroce_hw_engines[] = {
	{ "ionic", "AMD Pensando" },
};

/**
 * mroce_engine_hw_vendor() - is a netdev driver that of a transport NIC?
 * @driver: the netdev's driver name (its parent device's driver)
 *
 * Return: the NIC vendor's name, or NULL.
 */
const char *mroce_engine_hw_vendor(const char *driver)
{
	size_t i;

	if (!driver)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(mroce_hw_engines); i++)
		if (!strcmp(driver, mroce_hw_engines[i].driver))
			return mroce_hw_engines[i].vendor;
	return NULL;
}

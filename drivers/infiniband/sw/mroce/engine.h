/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The seam between the verbs objects and the transport engine.
 *
 * The verbs layer (qp.c and its neighbours) owns what the RDMA core and
 * userspace see: the queue pair's number, attributes and IB state, its
 * rings and their doorbells.  The engine owns everything that moves
 * packets for it: mroce's software engine is the stream, connection and
 * datagram code; a NIC running the transport would implement the same
 * operations with its own queues.  Documentation/architecture.rst, "The
 * engine seam", states the contract.
 */
#ifndef MROCE_ENGINE_H
#define MROCE_ENGINE_H

#include <rdma/ib_verbs.h>

struct mroce_qp;

/**
 * struct mroce_engine_ops - what the verbs layer asks of a transport engine
 * @name: shown in the kernel log when a device is created
 * @qp_create: a new queue pair has its rings and type but no number yet
 *	(process context, may sleep).  Return 0 or a negative errno that
 *	create_qp returns.
 * @qp_destroy: undo @qp_create; the queue pair is out of the device's
 *	table, no receiver holds it, and @qp_reset has run.
 * @qp_connect: INIT to RTR: the attributes (addresses, destination QPN,
 *	PSNs) are final; attach the queue pair to its transport.  Return 0
 *	or a negative errno; the queue pair then stays in INIT.
 * @qp_reset: back to a fresh queue pair: detach it and drop all
 *	transport state.  The verbs layer empties the rings afterwards.
 * @qp_set_state: the IB state changes to @state (modify_qp, after
 *	@qp_connect or @qp_reset where they apply).  The engine stores it in
 *	qp->state, under whatever lock its transport reads it with; moving to
 *	IB_QPS_ERR flushes outstanding work with IB_WC_WR_FLUSH_ERR.
 * @sq_kick: the send queue's producer index moved (post_send, or the
 *	user's doorbell).  Any context that may take a BH spinlock.
 * @rq_kick: receives were posted to a kernel queue pair, or a user queue
 *	pair in the error state rang its receive doorbell.  Same context as
 *	@sq_kick.
 *
 * @qp_create and @qp_destroy have the queue pair to themselves; modify_qp
 * and destroy_qp call @qp_connect, @qp_reset and @qp_set_state under the
 * queue pair's mutex.  The kicks can run beside any of them, and beside
 * each other.
 */
struct mroce_engine_ops {
	const char *name;
	int (*qp_create)(struct mroce_qp *qp);
	void (*qp_destroy)(struct mroce_qp *qp);
	int (*qp_connect)(struct mroce_qp *qp);
	void (*qp_reset)(struct mroce_qp *qp);
	void (*qp_set_state)(struct mroce_qp *qp, enum ib_qp_state state);
	void (*sq_kick)(struct mroce_qp *qp);
	void (*rq_kick)(struct mroce_qp *qp);
};

extern const struct mroce_engine_ops mroce_sw_engine;

const char *mroce_engine_hw_vendor(const char *driver);

#endif /* MROCE_ENGINE_H */

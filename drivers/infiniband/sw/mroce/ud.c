// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unreliable datagrams: UD queue pairs and the GSI queue pair (QP1) that
 * carries the connection manager's MADs.  Each message is one DATAGRAM
 * packet (Documentation/wire-protocol.rst): no connection, no
 * acknowledgment, no retransmission.
 *
 * Sends run in a work item per queue pair, in process context, because
 * kernel consumers post from atomic context and routing wants BHs enabled
 * around it.  Receives run in the softirq that took the packet, under the
 * queue pair's ud_lock.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <net/ip.h>

#include "transport.h"

#define MROCE_GRH_LEN		40
/*
 * A UD queue pair's receive reports the frame's type in its SL as
 * ConnectX adapters do to their users for RoCE (bit 3: a UDP header; bits
 * 2-0: 1 IPv6, 2 IPv4), since RoCE carries no SL.  Consumers written for
 * them rely on it: UCX's ud_verbs reads the L3 type there to find the
 * destination address in the first 40 bytes, and drops every IPv4
 * datagram if SL says IPv6.  The GSI QP's receives report 0: the CM may
 * take a receive's SL into a path.
 */
#define MROCE_UD_SL_UDP		0x8
#define MROCE_UD_SL_IPV6	0x1
#define MROCE_UD_SL_IPV4	0x2
#define MROCE_QKEY_FROM_QP	0x80000000	/* use the QP's Q_Key */

static void ud_tx_work(struct work_struct *work);

/**
 * mroce_ud_init() - set up the datagram side of a new UD or GSI queue pair
 * @qp: the queue pair, not yet visible
 *
 * Return: 0 or -ENOMEM.
 */
int mroce_ud_init(struct mroce_qp *qp)
{
	qp->ud_wqe = kmalloc(qp->sq->stride, GFP_KERNEL);
	if (!qp->ud_wqe)
		return -ENOMEM;
	spin_lock_init(&qp->ud_lock);
	INIT_WORK(&qp->ud_work, ud_tx_work);
	/* Every post rings: datagram queues are short and sparse. */
	qp->sq->hdr->flags = MROCE_RING_F_DOORBELL;
	return 0;
}

/* Once the queue pair is out of the table and its state is RESET. */
void mroce_ud_cleanup(struct mroce_qp *qp)
{
	cancel_work_sync(&qp->ud_work);
	kfree(qp->ud_wqe);
	qp->ud_wqe = NULL;
}

void mroce_ud_sq_kick(struct mroce_qp *qp)
{
	queue_work(mroce_wq, &qp->ud_work);
}

/**
 * mroce_ud_set_state() - change the state of a UD or GSI queue pair
 * @qp: the queue pair; modify_qp holds its mutex, the send work moves it
 *	to ERR on a local error
 * @state: the new state
 *
 * RESET stops the send work and rewinds the receive side; ERR flushes
 * the receives now and the sends from the work.
 */
void mroce_ud_set_state(struct mroce_qp *qp, enum ib_qp_state state)
{
	if (state == IB_QPS_RESET)
		cancel_work_sync(&qp->ud_work);
	spin_lock_bh(&qp->ud_lock);
	WRITE_ONCE(qp->state, state);
	if (state == IB_QPS_RESET)
		qp->rq_done = 0;
	else if (state == IB_QPS_ERR)
		qp->rq_done = mroce_qp_flush_rq(qp, qp->rq_done);
	spin_unlock_bh(&qp->ud_lock);
	if (state == IB_QPS_RTS || state == IB_QPS_ERR)
		mroce_ud_sq_kick(qp);
}

/* Payload bytes of a request, looking no further than the QP allows. */
static u32 wqe_len(const struct mroce_qp *qp, const struct mroce_send_wqe *wqe)
{
	const struct mroce_sge *sge = (const void *)(wqe + 1);
	u64 len = 0;
	u32 i;

	if (wqe->send_flags & MROCE_SEND_F_INLINE)
		return wqe->inline_len;
	for (i = 0; i < min(wqe->num_sge, qp->max_send_sge); i++)
		len += sge[i].length;
	return min_t(u64, len, U32_MAX);
}

/* The UDP source port of a pair of queue pairs: fixed, spread over ECMP. */
static u16 ud_sport(u32 src_qpn, u32 dst_qpn)
{
	return 49152 + (jhash_2words(src_qpn, dst_qpn, 0) & 0x3fff);
}

/* Build and send the datagram of @wqe; the IB status of the attempt. */
static enum ib_wc_status ud_send_one(struct mroce_qp *qp,
				     const struct mroce_send_wqe *wqe)
{
	struct mroce_dev *mdev = to_mdev(qp->ibqp.device);
	u32 mtu = ib_mtu_enum_to_int(READ_ONCE(mdev->active_mtu));
	u32 len = wqe_len(qp, wqe);
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_DATAGRAM,
		.dst_qpn = wqe->wr.ud.remote_qpn & MROCE_QPN_MASK,
		.src_qpn = qp->ibqp.qp_num,
		.qkey = wqe->wr.ud.remote_qkey,
	};
	const struct mroce_av *av;
	struct in6_addr laddr, raddr;
	bool found = false;
	struct sk_buff *skb;
	u8 *payload;

	if (wqe->opcode != IB_WR_SEND && wqe->opcode != IB_WR_SEND_WITH_IMM)
		return IB_WC_LOC_QP_OP_ERR;
	if (wqe->num_sge > qp->max_send_sge ||
	    ((wqe->send_flags & MROCE_SEND_F_INLINE) && len > qp->max_inline))
		return IB_WC_LOC_QP_OP_ERR;
	if (len > mtu)
		return IB_WC_LOC_LEN_ERR;

	/* The AH may be destroyed meanwhile: copy what is needed under RCU. */
	rcu_read_lock();
	av = xa_load(&mdev->ahs, wqe->wr.ud.ah);
	if (av && av->pd == qp->ibqp.pd) {
		laddr = av->laddr;
		raddr = av->raddr;
		found = true;
	}
	rcu_read_unlock();
	if (!found)
		return IB_WC_LOC_QP_OP_ERR;

	if (pkt.qkey & MROCE_QKEY_FROM_QP)
		pkt.qkey = qp->attr.qkey;
	if (wqe->opcode == IB_WR_SEND_WITH_IMM) {
		pkt.flags |= MROCE_F_IMM;
		pkt.imm = mroce_imm_to_wire(wqe->imm_data);
	}
	if (wqe->send_flags & MROCE_SEND_F_SOLICITED)
		pkt.flags |= MROCE_F_SOLICITED;

	skb = mroce_alloc_skb(MROCE_DGRAM_HDR_LEN + len, 0, false);
	if (!skb)
		return IB_WC_LOC_QP_OP_ERR;
	mroce_wire_build(skb_put(skb, MROCE_DGRAM_HDR_LEN), &pkt);
	payload = skb_put(skb, len);
	if (wqe->send_flags & MROCE_SEND_F_INLINE) {
		memcpy(payload, wqe + 1, len);
	} else if (mroce_sge_copy(qp->ibqp.pd, (const void *)(wqe + 1),
				  wqe->num_sge, 0, payload, len, false)) {
		kfree_skb(skb);
		return IB_WC_LOC_PROT_ERR;
	}
	/* A datagram lost on the way is lost: that is UD's contract. */
	if (!mroce_xmit_one(mdev, skb, &laddr, &raddr,
			    ud_sport(pkt.src_qpn, pkt.dst_qpn)))
		mroce_count(mdev, MROCE_CNT_DGRAM_TX, 1);
	return IB_WC_SUCCESS;
}

static void ud_complete_send(struct mroce_qp *qp, u64 wr_id, u32 len,
			     enum ib_wc_status status)
{
	struct mroce_cqe cqe = {
		.wr_id = wr_id,
		.status = status,
		.opcode = IB_WC_SEND,
		.byte_len = len,
		.qp_num = qp->ibqp.qp_num,
		.port_num = MROCE_PORT,
	};

	mroce_cq_post(to_mcq(qp->ibqp.send_cq), &cqe, false);
}

/*
 * Send what is queued, in order.  RTS sends; ERR flushes; in the other
 * states requests wait for RTS.  A request that fails moves the queue pair
 * to the error state, as a local error does in IB.
 */
static void ud_tx_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, ud_work);
	struct mroce_ring *sq = qp->sq;
	struct mroce_send_wqe *wqe = qp->ud_wqe;
	unsigned int budget = MROCE_UD_TX_BUDGET;
	u32 cons = READ_ONCE(sq->hdr->consumer);

	while (budget--) {
		enum ib_qp_state state = READ_ONCE(qp->state);
		enum ib_wc_status status;
		bool signaled;

		if (cons == mroce_ring_producer(sq))
			return;
		if (state != IB_QPS_RTS && state != IB_QPS_ERR)
			return;
		memcpy(wqe, mroce_ring_entry(sq, cons), sq->stride);
		signaled = qp->sig_all || (wqe->send_flags & MROCE_SEND_F_SIGNALED);
		status = state == IB_QPS_ERR ? IB_WC_WR_FLUSH_ERR : ud_send_one(qp, wqe);
		if (signaled || status != IB_WC_SUCCESS)
			ud_complete_send(qp, wqe->wr_id, wqe_len(qp, wqe), status);
		mroce_ring_consumed(sq, ++cons);
		if (status != IB_WC_SUCCESS && state == IB_QPS_RTS) {
			mroce_ud_set_state(qp, IB_QPS_ERR);
			mroce_qp_event(qp, IB_EVENT_QP_FATAL);
		}
	}
	/* Budget spent: let other work run, then go on. */
	mroce_ud_sq_kick(qp);
}

/* The 40 bytes a datagram receive starts with: the packet's IP header. */
static u8 ud_grh(const struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, MROCE_GRH_LEN);
	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph = (struct iphdr *)(grh + MROCE_GRH_LEN -
						     sizeof(*iph));

		memcpy(iph, ip_hdr(skb), sizeof(*iph));
		/* Options are not carried: the header is rewritten without. */
		iph->ihl = 5;
		iph->check = 0;
		iph->check = ip_fast_csum(iph, iph->ihl);
		return RDMA_NETWORK_IPV4;
	}
	memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
	return RDMA_NETWORK_IPV6;
}

/*
 * Take the oldest posted receive: 0, -EAGAIN if there is none, -EINVAL if
 * it is malformed (it is consumed and completes in error).
 */
static int ud_take_recv(struct mroce_qp *qp, struct mroce_rwqe *r)
{
	const struct mroce_recv_wqe *wqe;

	if (qp->ibqp.srq)
		return mroce_srq_take(to_msrq(qp->ibqp.srq), r);
	if (qp->rq_done == mroce_ring_producer(qp->rq))
		return -EAGAIN;
	wqe = mroce_ring_entry(qp->rq, qp->rq_done);
	qp->rq_done++;
	return mroce_rwqe_load(wqe, qp->max_recv_sge, r);
}

/**
 * mroce_ud_rx() - deliver a received DATAGRAM packet
 * @mdev: the device that owns the destination address
 * @skb: the packet, linear, data at the mroce header
 * @pkt: its parsed header
 *
 * Called in softirq context under RCU.  Whatever cannot be delivered is
 * dropped and counted.
 */
void mroce_ud_rx(struct mroce_dev *mdev, struct sk_buff *skb,
		 const struct mroce_pkt *pkt)
{
	const u8 *payload = skb->data + pkt->hdr_len;
	struct mroce_cqe cqe = {};
	u8 grh[MROCE_GRH_LEN];
	struct mroce_rwqe r;
	struct mroce_qp *qp;
	int err;

	qp = mroce_qp_get(mdev, pkt->dst_qpn);
	if (!qp)
		goto drop;
	if (!mroce_qp_is_ud(qp))
		goto drop_put;

	spin_lock(&qp->ud_lock);
	if ((qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS) ||
	    pkt->qkey != qp->attr.qkey) {
		spin_unlock(&qp->ud_lock);
		goto drop_put;
	}
	err = ud_take_recv(qp, &r);
	if (err == -EAGAIN) {
		spin_unlock(&qp->ud_lock);
		goto drop_put;
	}

	cqe.wr_id = r.wr_id;
	cqe.opcode = IB_WC_RECV;
	cqe.qp_num = qp->ibqp.qp_num;
	cqe.src_qp = pkt->src_qpn;
	cqe.port_num = MROCE_PORT;
	cqe.wc_flags = MROCE_WC_F_GRH;
	cqe.byte_len = MROCE_GRH_LEN + pkt->payload_len;
	if (pkt->flags & MROCE_F_IMM) {
		cqe.wc_flags |= MROCE_WC_F_WITH_IMM;
		cqe.imm_data = mroce_imm_from_wire(pkt->imm);
	}
	cqe.network_hdr_type = ud_grh(skb, grh);
	if (qp->ibqp.qp_type == IB_QPT_UD)
		cqe.sl = MROCE_UD_SL_UDP |
			 (cqe.network_hdr_type == RDMA_NETWORK_IPV4 ?
			  MROCE_UD_SL_IPV4 : MROCE_UD_SL_IPV6);
	if (err)
		cqe.status = IB_WC_LOC_QP_OP_ERR;
	else if (cqe.byte_len > r.len)
		cqe.status = IB_WC_LOC_LEN_ERR;
	else if (mroce_sge_copy(qp->ibqp.pd, r.sge, r.num_sge, 0, grh,
				MROCE_GRH_LEN, true) ||
		 mroce_sge_copy(qp->ibqp.pd, r.sge, r.num_sge, MROCE_GRH_LEN,
				(u8 *)payload, pkt->payload_len, true))
		cqe.status = IB_WC_LOC_PROT_ERR;
	if (qp->rq)
		mroce_ring_consumed(qp->rq, qp->rq_done);
	mroce_cq_post(to_mcq(qp->ibqp.recv_cq), &cqe,
		      pkt->flags & MROCE_F_SOLICITED);
	spin_unlock(&qp->ud_lock);
	mroce_count(mdev, MROCE_CNT_DGRAM_RX, 1);
	mroce_qp_put(qp);
	return;

drop_put:
	mroce_qp_put(qp);
drop:
	mroce_count(mdev, MROCE_CNT_DGRAM_DROPS, 1);
}

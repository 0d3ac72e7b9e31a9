// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receiving: every datagram to mroce's UDP port lands here in softirq
 * context.  It is parsed, matched to its connection by address and epoch,
 * recorded in its path's window (so it is processed at most once), handed
 * to its stream for placement, and acknowledged.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <net/udp.h>
#include <rdma/ib_cache.h>

#include "trace.h"
#include "transport.h"

/* The mroce device that owns local address @laddr in @net, under RCU. */
static struct mroce_dev *mroce_dev_by_addr(struct net *net,
					   const struct in6_addr *laddr)
{
	const struct ib_gid_attr *attr;
	struct mroce_dev *mdev;
	union ib_gid gid;

	memcpy(gid.raw, laddr, sizeof(gid.raw));
	list_for_each_entry_rcu(mdev, &mroce_devs, list) {
		if (READ_ONCE(mdev->net) != net)
			continue;
		attr = rdma_find_gid_by_port(&mdev->ibdev, &gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP, MROCE_PORT,
					     NULL);
		if (!IS_ERR(attr)) {
			rdma_put_gid_attr(attr);
			return mdev;
		}
	}
	return NULL;
}

/* A packet of a stream that lives on goes to the peer's new incarnation. */
static bool restart_keeps(void *ctx, void *arg)
{
	const struct mroce_seg *seg = ctx;

	/* A detached stream's queue pair is gone: its packets are too. */
	return seg->stream->qp && !seg->stream->error;
}

/*
 * The peer restarted (Documentation/wire-protocol.rst, "Connections and
 * epochs"): streams that spoke with its old incarnation fail, as its
 * queue pairs are gone; a stream that has not heard from the peer yet was
 * set up for the new one, and what it sent is sent again.
 */
static void rx_restart(struct mroce_conn *conn)
{
	struct mroce_stream *s;

	list_for_each_entry(s, &conn->streams, conn_node) {
		if (s->heard)
			mroce_stream_fail(s, IB_WC_WR_FLUSH_ERR);
	}
	mroce_conn_restart_paths(conn, restart_keeps);
	mroce_count(conn->mdev, MROCE_CNT_PEER_RESTARTS, 1);
}

/*
 * A packet to this incarnation: the peer heard our HELLO.  Its round trip
 * gives the paths their first RTO (id RTT-HELLO), and its source epoch is
 * the peer's if none is known yet (id EPOCH-LEARN).
 */
static void rx_heard(struct mroce_conn *conn, const struct mroce_pkt *pkt)
{
	mroce_hello_heard(&conn->hello, &conn->paths, mroce_now_us());
	if (!conn->peer_epoch && pkt->type != MROCE_PKT_HELLO)
		conn->peer_epoch = pkt->src_epoch;
}

/* A HELLO: learn the peer's epoch, notice its restart, answer it. */
static struct sk_buff *rx_hello(struct mroce_conn *conn,
				const struct mroce_pkt *pkt)
{
	if (conn->peer_epoch && conn->peer_epoch != pkt->src_epoch)
		rx_restart(conn);
	if (conn->peer_epoch != pkt->src_epoch) {
		conn->peer_epoch = pkt->src_epoch;
		mroce_conn_kick(conn);
	}
	if (pkt->dst_epoch != conn->epoch)
		return mroce_build_hello(conn);
	return NULL;
}

/*
 * A packet with ACK_REQ, the tail of what its sender had to send on the
 * path, is acknowledged at once: its sender waits for that ACK, and no
 * later packet of the path is on its way to share it.  Any other ACK due
 * is left to the ACK tasklet, which runs once the softirq has processed
 * all the packets it received: one ACK per path then covers every packet
 * that arrived together, not every second one.
 */
static struct sk_buff *rx_data(struct mroce_conn *conn,
			       const struct mroce_pkt *pkt,
			       const u8 *payload, bool ce, u16 sport)
{
	struct mroce_rxwin *rx = &conn->rx[pkt->path];
	enum mroce_rx_verdict verdict = mroce_rxwin_check(rx, pkt->psn);
	struct mroce_stream *s;
	bool due;

	mroce_paths_ack_port(&conn->paths, rx, sport, verdict == MROCE_RX_DUP);
	switch (verdict) {
	case MROCE_RX_NEW:
		break;
	case MROCE_RX_DUP:
		/* Its ACK was lost or is late: say again what we have. */
		mroce_count(conn->mdev, MROCE_CNT_DUPLICATES, 1);
		return mroce_build_ack(conn, pkt->path, NULL, 0);
	default:
		mroce_count(conn->mdev, MROCE_CNT_OUTSIDE_WINDOW, 1);
		return NULL;
	}
	due = mroce_rxwin_data(rx, pkt->psn, ce, pkt->flags & MROCE_F_ACK_REQ);
	mroce_share_data(conn, pkt->payload_len, ce, mroce_now_us());
	if (ce)
		mroce_count(conn->mdev, MROCE_CNT_ECN_MARKED, 1);

	s = mroce_stream_lookup(conn, pkt->dst_qpn);
	if (!s || !mroce_stream_rx(s, pkt, payload))
		mroce_count(conn->mdev, MROCE_CNT_STREAM_DROPS, 1);

	if (pkt->flags & MROCE_F_ACK_REQ) {
		struct sk_buff *ack = mroce_build_ack(conn, pkt->path, NULL, 0);

		if (ack)
			return ack;
	}
	if (due || !list_empty(&conn->ack_streams))
		__set_bit(pkt->path, conn->ack_due);
	return NULL;
}

/* Return: true if the ACK's path still has packets out or to resend. */
static bool rx_ack(struct mroce_conn *conn, const struct mroce_pkt *pkt,
		   u16 sport)
{
	struct mroce_path *path = NULL;
	struct mroce_ack_result res;
	u64 now = mroce_now_us();
	unsigned int i;

	if (pkt->path < conn->paths.n) {
		path = &conn->path[pkt->path];
		conn->paths.loss_cc = mroce_conn_loss_cc();
		if (!mroce_paths_ack(&conn->paths, pkt->path, now, pkt,
				     mroce_stream_seg_acked, NULL, &res)) {
			for (i = path->nresend - res.lost; i < path->nresend; i++)
				trace_mroce_lost(conn, pkt->path, path->resend[i]);
			mroce_count(conn->mdev, MROCE_CNT_LOST, res.lost);
			mroce_count_path(conn->mdev, pkt->path, MROCE_PCNT_SACK_GAPS, res.lost);
			mroce_count(conn->mdev, MROCE_CNT_SPURIOUS, res.spurious);
			mroce_count(conn->mdev, MROCE_CNT_DELAY_MARKS, res.delayed);
			mroce_count(conn->mdev, MROCE_CNT_LOSS_CUTS, res.loss_cuts);
			if (res.congested) {
				mroce_count(conn->mdev, MROCE_CNT_ECN_ECHOED, 1);
				mroce_count_path(conn->mdev, pkt->path,
						 MROCE_PCNT_ECN_CUTS, 1);
			}
		}
		/* The route this path left works again: spread out as before. */
		if ((pkt->flags & MROCE_F_ROUTE) && path->home_sport &&
		    sport == path->home_sport)
			mroce_path_return(conn, pkt->path, now);
	}
	for (i = 0; i < pkt->nstreams; i++) {
		struct mroce_ack_stream rec;
		struct mroce_stream *s;

		mroce_wire_ack_stream(pkt, i, &rec);
		s = mroce_stream_lookup(conn, rec.qpn);
		if (s)
			mroce_stream_progress(s, &rec, now);
	}
	return path && (mroce_txpath_inflight(&path->tx) || path->nresend);
}

static int mroce_rx(struct net *net, struct sk_buff *skb,
		    const struct in6_addr *laddr, const struct in6_addr *raddr,
		    bool ce, u16 sport)
{
	struct sk_buff *reply = NULL;
	struct mroce_conn *conn;
	struct mroce_dev *mdev;
	struct mroce_pkt pkt;
	bool ack, kick, out = false;

	rcu_read_lock();
	mdev = mroce_dev_by_addr(net, laddr);
	if (!mdev) {
		rcu_read_unlock();
		return -ENODEV;
	}
	if (mroce_wire_parse(skb->data, skb->len, skb->len, &pkt)) {
		mroce_count(mdev, MROCE_CNT_MALFORMED, 1);
		rcu_read_unlock();
		return -EINVAL;
	}
	if (pkt.type == MROCE_PKT_DATAGRAM) {
		mroce_ud_rx(mdev, skb, &pkt);
		rcu_read_unlock();
		return 0;
	}
	conn = mroce_conn_lookup_rcu(mdev, laddr, raddr);
	if (conn && !kref_get_unless_zero(&conn->ref))
		conn = NULL;
	/* Connections start on our side only, when a local QP reaches RTR. */
	if (!conn)
		mroce_count(mdev, MROCE_CNT_NO_CONN, 1);
	rcu_read_unlock();
	if (!conn)
		return -ENOENT;

	spin_lock(&conn->lock);
	mroce_count(conn->mdev, MROCE_CNT_RX_PKTS, 1);
	if (pkt.dst_epoch == conn->epoch)
		rx_heard(conn, &pkt);
	if (pkt.type == MROCE_PKT_HELLO) {
		reply = rx_hello(conn, &pkt);
	} else if (pkt.src_epoch != conn->peer_epoch ||
		   pkt.dst_epoch != conn->epoch || !conn->peer_epoch) {
		/* From or to an earlier incarnation: not ours. */
		mroce_count(conn->mdev, MROCE_CNT_STALE_EPOCH, 1);
	} else if (pkt.type == MROCE_PKT_DATA) {
		reply = rx_data(conn, &pkt, skb->data + pkt.hdr_len, ce, sport);
	} else if (pkt.type == MROCE_PKT_ACK) {
		out = rx_ack(conn, &pkt, sport);
	} else if (pkt.type == MROCE_PKT_PROBE) {
		reply = mroce_build_ack(conn, pkt.path,
					mroce_stream_lookup(conn, pkt.probe_qpn),
					pkt.flags & MROCE_F_ROUTE ? sport : 0);
	}
	/*
	 * A pass sends what is owed (requests and responses, which an ACK
	 * may let go, resends) and arms the timer for packets still out.
	 * An ACK that leaves its path none owes no pass, only the timer's
	 * new deadline; the ACKs owed leave from the ACK tasklet.  The round
	 * trip of a small ping-pong then wakes no send work.
	 */
	kick = out || (pkt.type != MROCE_PKT_DATA && pkt.type != MROCE_PKT_ACK) ||
	       !list_empty(&conn->tx_streams);
	ack = !bitmap_empty(conn->ack_due, MROCE_MAX_PATHS);
	if (!kick && pkt.type == MROCE_PKT_ACK)
		mroce_conn_rearm(conn);
	spin_unlock(&conn->lock);

	if (kick)
		mroce_conn_kick(conn);
	if (ack)
		tasklet_schedule(&conn->ack_tasklet);
	if (reply) {
		struct sk_buff_head q;

		__skb_queue_head_init(&q);
		__skb_queue_tail(&q, reply);
		mroce_xmit_queue(conn, &q);
	}
	mroce_conn_put(conn);
	return 0;
}

/**
 * mroce_udp_recv() - encap_rcv of mroce's UDP sockets
 * @sk: the socket
 * @skb: the datagram, data at the UDP header
 *
 * Return: 0: the datagram was consumed (processed or dropped).
 */
int mroce_udp_recv(struct sock *sk, struct sk_buff *skb)
{
	struct in6_addr laddr, raddr;
	u16 sport;
	bool ce;

	if (skb_linearize(skb) || skb->len < sizeof(struct udphdr))
		goto drop;
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		ipv6_addr_set_v4mapped(iph->daddr, &laddr);
		ipv6_addr_set_v4mapped(iph->saddr, &raddr);
		ce = INET_ECN_is_ce(iph->tos);
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		laddr = ip6h->daddr;
		raddr = ip6h->saddr;
		ce = INET_ECN_is_ce(ipv6_get_dsfield(ip6h));
	}
	sport = ntohs(udp_hdr(skb)->source);
	__skb_pull(skb, sizeof(struct udphdr));
	mroce_rx(sock_net(sk), skb, &laddr, &raddr, ce, sport);
drop:
	kfree_skb(skb);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sending: the per-connection send work, which handles expired timers,
 * sends lost packets again and spreads new packets of all streams over
 * the paths with room; and the routines that build and transmit packets.
 *
 * Packets are built under the connection lock and transmitted after it
 * is released.  Each path routes with its own UDP source port in the flow
 * key, so the host's ECMP picks each path's next hop independently.
 */
#include <linux/skbuff.h>
#include <net/inet_ecn.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "trace.h"
#include "transport.h"

/*
 * Which path a queued skb belongs to, whose route it takes (another
 * path's for a detoured resend), whether it carries data, and a source
 * port to use instead of the route's (0: the route's): for an ACK, with
 * its own cached route, or for a route probe and its answer, uncached.
 */
struct mroce_skb_cb {
	u8 path;
	u8 route;
	bool data;
	bool nocache;
	u16 sport;
};

#define MROCE_CB(skb) ((struct mroce_skb_cb *)(skb)->cb)

/**
 * mroce_alloc_skb() - allocate a packet with room for the tunnel headers
 * @len: bytes of mroce headers and payload
 * @path: the path it goes out on (connection packets)
 * @data: it is a DATA packet (sent ECN-capable)
 *
 * Return: the skb, empty, or NULL.
 */
struct sk_buff *mroce_alloc_skb(unsigned int len, unsigned int path, bool data)
{
	unsigned int room = LL_MAX_HEADER + sizeof(struct ipv6hdr) +
			    sizeof(struct udphdr);
	struct sk_buff *skb = alloc_skb(room + len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_reserve(skb, room);
	MROCE_CB(skb)->path = path;
	MROCE_CB(skb)->route = path;
	MROCE_CB(skb)->data = data;
	MROCE_CB(skb)->nocache = false;
	MROCE_CB(skb)->sport = 0;
	return skb;
}

static void set_epochs(struct mroce_conn *conn, struct mroce_pkt *pkt)
{
	pkt->src_epoch = conn->epoch;
	pkt->dst_epoch = conn->peer_epoch;
}

/*
 * A pass's DATA packets of one path and route leave as one UDP GSO
 * super-packet: one trip through UDP, IP and the qdisc for the batch,
 * which the stack (or the NIC) cuts into the same packets at the device.
 */
static bool mroce_gso = true;
module_param_named(gso, mroce_gso, bool, 0644);
MODULE_PARM_DESC(gso,
		 "Send a pass's packets of one path as one UDP GSO super-packet (default Y)");

/*
 * The most one batch carries: the UDP length and the IPv4 total length
 * are 16 bits, and each segment after the first is one page fragment.
 */
#define MROCE_GSO_MAX_BYTES	(U16_MAX - sizeof(struct iphdr) - sizeof(struct udphdr))

/*
 * Room for one more packet of @len bytes at the end of @skb, a batch of
 * DATA for @route, as its last GSO segment; or NULL.  Every segment but
 * the last has the first's size (the linear part's), so a shorter packet
 * ends the batch.
 */
static void *gso_append(struct sk_buff *skb, unsigned int route,
			unsigned int len)
{
	struct skb_shared_info *si = skb_shinfo(skb);
	unsigned int seg_len = skb_headlen(skb);
	struct page *page;
	void *buf;

	if (!READ_ONCE(mroce_gso) || MROCE_CB(skb)->route != route ||
	    skb->len != (si->nr_frags + 1) * seg_len || len > seg_len ||
	    si->nr_frags >= MAX_SKB_FRAGS ||
	    skb->len + len > MROCE_GSO_MAX_BYTES)
		return NULL;
	buf = netdev_alloc_frag(len);
	if (!buf)
		return NULL;	/* the packet takes an skb of its own */
	page = virt_to_head_page(buf);
	skb_add_rx_frag(skb, si->nr_frags, page, buf - page_address(page),
			len, len);
	if (si->nr_frags == 1) {
		/* The UDP header goes right before the data; see udp_set_csum(). */
		si->gso_type = SKB_GSO_UDP_L4;
		si->gso_size = seg_len;
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
		skb->csum_offset = offsetof(struct udphdr, check);
	}
	si->gso_segs = si->nr_frags + 1;
	return buf;
}

/* The mroce header of the last packet of @skb, a batch of DATA. */
static struct mroce_hdr *last_hdr(struct sk_buff *skb)
{
	struct skb_shared_info *si = skb_shinfo(skb);

	if (!si->nr_frags)
		return (struct mroce_hdr *)skb->data;
	return skb_frag_address(&si->frags[si->nr_frags - 1]);
}

/*
 * Build the DATA packet for @seg with sequence @psn on @path, to go by
 * @route's port: as one more segment of the pass's last batch of @path,
 * or in a new skb queued on @q.
 *
 * Return: 0, or -ENOMEM.
 */
static int build_data(struct mroce_conn *conn, struct sk_buff_head *q,
		      unsigned int path, unsigned int route,
		      struct mroce_seg *seg, u32 psn)
{
	unsigned int hlen = MROCE_DATA_HDR_LEN + mroce_wire_ext_len(seg->hdr.opcode);
	unsigned int len = hlen + seg->hdr.payload_len;
	struct sk_buff *skb = conn->tx_tail[path];
	void *buf = NULL;

	if (skb)
		buf = gso_append(skb, route, len);
	if (!buf) {
		skb = mroce_alloc_skb(len, path, true);
		if (!skb)
			return -ENOMEM;
		MROCE_CB(skb)->route = route;
		buf = skb_put(skb, len);
		__skb_queue_tail(q, skb);
		conn->tx_tail[path] = skb;
	}
	seg->hdr.path = path;
	seg->hdr.psn = psn;
	set_epochs(conn, &seg->hdr);
	mroce_wire_build(buf, &seg->hdr);
	mroce_stream_fill(seg, buf + hlen);
	return 0;
}

/**
 * mroce_build_ack() - an ACK of one of the peer's paths
 * @conn: the connection, locked
 * @path: the path id
 * @probed: a stream whose record must be included, or NULL
 * @route_sport: the UDP source port of the route PROBE it answers, or 0
 *
 * Also reports every stream on the connection's list of unreported
 * progress, up to the record limit of one ACK; while records are left
 * over, the path still owes an ACK.  The answer to a route probe goes
 * back with the probe's port, not the path's.
 *
 * Return: the packet, or NULL.
 */
struct sk_buff *mroce_build_ack(struct mroce_conn *conn, unsigned int path,
				struct mroce_stream *probed, u16 route_sport)
{
	struct mroce_rxwin *rx = &conn->rx[path];
	u8 sack[MROCE_SACK_BITS / 8];
	struct mroce_stream *s, *tmp;
	struct mroce_pkt pkt;
	struct sk_buff *skb;
	unsigned int n = 0;
	void *buf;

	lockdep_assert_held(&conn->lock);
	list_for_each_entry(s, &conn->ack_streams, ack_node)
		if (++n == MROCE_ACK_MAX_STREAMS)
			break;
	if (probed && list_empty(&probed->ack_node) && n < MROCE_ACK_MAX_STREAMS)
		n++;
	else
		probed = NULL;

	skb = mroce_alloc_skb(MROCE_ACK_HDR_LEN + n * sizeof(struct mroce_stream_rec),
			      path, false);
	if (!skb)
		return NULL;
	/* Back the way the path's data came, ids ACK-PORT, ACK-PORT-MOVE. */
	MROCE_CB(skb)->sport = route_sport ?: rx->sport;
	MROCE_CB(skb)->nocache = route_sport;
	mroce_rxwin_ack(rx, path, sack, &pkt);
	mroce_share_ack(conn, &pkt);
	pkt.flags = route_sport ? MROCE_F_ROUTE : 0;
	set_epochs(conn, &pkt);
	pkt.nstreams = n;
	buf = skb_put(skb, MROCE_ACK_HDR_LEN + n * sizeof(struct mroce_stream_rec));
	mroce_wire_build(buf, &pkt);

	n = 0;
	if (probed) {
		probed->report.qpn = probed->dest_qpn;
		probed->report.msn_done = probed->rcv_done;
		mroce_wire_put_stream(buf, n++, &probed->report);
	}
	list_for_each_entry_safe(s, tmp, &conn->ack_streams, ack_node) {
		if (n == pkt.nstreams)
			break;
		mroce_wire_put_stream(buf, n++, &s->report);
		/*
		 * An RNR NAK is said once (the sender resends on its own
		 * timer); a fatal one stays in the record, so probes repeat it.
		 */
		if (s->report.nak == MROCE_NAK_RNR)
			s->report.nak = MROCE_NAK_NONE;
		list_del_init(&s->ack_node);
	}
	if (list_empty(&conn->ack_streams))
		__clear_bit(path, conn->ack_due);
	return skb;
}

/*
 * An allocation failed in this pass (or in the ACK tasklet, which then
 * queues the send work): what it was for stays due, and tx_arm() brings
 * the next pass soon (nothing else may: an ACK or a resend has no timer
 * of its own).
 */
static void tx_nomem(struct mroce_conn *conn)
{
	conn->tx_nomem = true;
	mroce_count(conn->mdev, MROCE_CNT_TX_NOMEM, 1);
}

/*
 * The ACKs the receive path left due: one per path, more while stream
 * records are left over (an ACK carries MROCE_ACK_MAX_STREAMS).
 *
 * Return: false if an allocation failed (what it was for is still due).
 */
static bool tx_acks(struct mroce_conn *conn, struct sk_buff_head *q)
{
	struct sk_buff *skb;
	unsigned int p;

	for_each_set_bit(p, conn->ack_due, MROCE_MAX_PATHS) {
		do {
			skb = mroce_build_ack(conn, p, NULL, 0);
			if (!skb) {
				tx_nomem(conn);
				return false;
			}
			__skb_queue_tail(q, skb);
		} while (test_bit(p, conn->ack_due));
	}
	return true;
}

/**
 * mroce_ack_tasklet() - send the ACKs the received packets left owed
 * @t: the connection's @ack_tasklet
 *
 * The receive path schedules it from its softirq; it runs once that
 * softirq run has processed every packet it received, so one ACK per
 * path covers them all (Documentation/wire-protocol.rst, "Paths:
 * Receiver"), and no send work is woken for it.  An ACK it cannot
 * allocate stays owed, and the tasklet has the send work run a pass.
 */
void mroce_ack_tasklet(struct tasklet_struct *t)
{
	struct mroce_conn *conn = from_tasklet(conn, t, ack_tasklet);
	struct sk_buff_head q;
	bool sent;

	__skb_queue_head_init(&q);
	spin_lock(&conn->lock);
	sent = tx_acks(conn, &q);
	spin_unlock(&conn->lock);

	mroce_xmit_queue(conn, &q);
	if (!sent)
		mroce_conn_kick(conn);
}

/**
 * mroce_build_hello() - a HELLO carrying both epochs as known
 * @conn: the connection, locked
 *
 * Each HELLO takes the next path's route (HELLO-SPRAY in the spec).
 *
 * Return: the packet, or NULL.
 */
struct sk_buff *mroce_build_hello(struct mroce_conn *conn)
{
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_HELLO,
		.paths = conn->paths.n,
	};
	struct sk_buff *skb = mroce_alloc_skb(MROCE_HELLO_LEN,
					      conn->paths.rr++ % conn->paths.n, false);

	lockdep_assert_held(&conn->lock);
	if (!skb)
		return NULL;
	set_epochs(conn, &pkt);
	mroce_wire_build(skb_put(skb, MROCE_HELLO_LEN), &pkt);
	return skb;
}

/* A PROBE of @path; with @route_sport, a route probe sent with that port. */
static struct sk_buff *build_probe(struct mroce_conn *conn, unsigned int path,
				   u32 qpn, u16 route_sport)
{
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_PROBE,
		.path = path,
		.probe_qpn = qpn,
		.flags = route_sport ? MROCE_F_ROUTE : 0,
	};
	struct sk_buff *skb = mroce_alloc_skb(MROCE_PROBE_LEN, path, false);

	if (!skb)
		return NULL;
	MROCE_CB(skb)->sport = route_sport;
	MROCE_CB(skb)->nocache = route_sport;
	set_epochs(conn, &pkt);
	mroce_wire_build(skb_put(skb, MROCE_PROBE_LEN), &pkt);
	return skb;
}

/* One flow: the addresses and UDP source port a packet travels with. */
struct mroce_flow {
	const struct in6_addr *laddr;
	const struct in6_addr *raddr;
	u16 sport;
	struct dst_cache *cache;	/* the flow's cached route, or NULL */
	u8 ecn;
};

/*
 * The route of @f, from its cache if it has one (and then cached); @fl4
 * is filled in, @saddr gets the source address.  Referenced, or ERR_PTR.
 */
static struct rtable *route4(struct sock *sk, const struct mroce_flow *f,
			     struct flowi4 *fl4, __be32 *saddr)
{
	struct rtable *rt = NULL;

	*fl4 = (struct flowi4){
		.flowi4_proto = IPPROTO_UDP,
		.daddr = f->raddr->s6_addr32[3],
		.saddr = f->laddr->s6_addr32[3],
		.fl4_sport = htons(f->sport),
		.fl4_dport = htons(mroce_udp_port),
	};
	if (f->cache)
		rt = dst_cache_get_ip4(f->cache, saddr);
	if (!rt) {
		rt = ip_route_output_key(sock_net(sk), fl4);
		if (IS_ERR(rt))
			return rt;
		*saddr = fl4->saddr;
		if (f->cache)
			dst_cache_set_ip4(f->cache, &rt->dst, *saddr);
	}
	return rt;
}

static int xmit4(struct sock *sk, struct sk_buff *skb,
		 const struct mroce_flow *f)
{
	struct flowi4 fl4;
	struct rtable *rt;
	__be32 saddr;

	rt = route4(sk, f, &fl4, &saddr);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	udp_tunnel_xmit_skb(rt, sk, skb, saddr, fl4.daddr, f->ecn,
			    ip4_dst_hoplimit(&rt->dst), htons(IP_DF),
			    fl4.fl4_sport, fl4.fl4_dport, false, false);
	return 0;
}

#if IS_ENABLED(CONFIG_IPV6)
/* As route4(), for IPv6. */
static struct dst_entry *route6(struct sock *sk, const struct mroce_flow *f,
				struct flowi6 *fl6, struct in6_addr *saddr)
{
	struct dst_entry *dst = NULL;

	*fl6 = (struct flowi6){
		.flowi6_proto = IPPROTO_UDP,
		.daddr = *f->raddr,
		.saddr = *f->laddr,
		.fl6_sport = htons(f->sport),
		.fl6_dport = htons(mroce_udp_port),
	};
	if (f->cache)
		dst = dst_cache_get_ip6(f->cache, saddr);
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(sock_net(sk), sk, fl6, NULL);
		if (IS_ERR(dst))
			return dst;
		*saddr = fl6->saddr;
		if (f->cache)
			dst_cache_set_ip6(f->cache, dst, saddr);
	}
	return dst;
}
#endif

static int xmit6(struct sock *sk, struct sk_buff *skb,
		 const struct mroce_flow *f)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct in6_addr saddr;
	struct dst_entry *dst;
	struct flowi6 fl6;

	dst = route6(sk, f, &fl6, &saddr);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	/*
	 * No tunnel netdev: a device given here has its per-CPU tunnel stats
	 * updated, which a plain netdev such as dst->dev does not have (6.1
	 * writes through its NULL tstats, 6.12 warns).  The IPv4 path counts
	 * only into skb->dev, which mroce's skbs leave NULL.
	 */
	udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &saddr, &fl6.daddr, f->ecn,
			     ip6_dst_hoplimit(dst), 0, fl6.fl6_sport,
			     fl6.fl6_dport, false);
	return 0;
#else
	return -EAFNOSUPPORT;
#endif
}

/**
 * mroce_route_plane() - which local next hop a flow of a connection takes
 * @conn: the connection
 * @sport: the flow's UDP source port
 *
 * On a host whose routing spreads the peer's address over several next
 * hops (ECMP hashing L4 ports: one per plane of a multi-plane fabric),
 * the source port picks the plane; this says which one.
 *
 * Return: a key naming the output device and gateway, or 0 if the flow
 * has no route.
 */
u64 mroce_route_plane(struct mroce_conn *conn, u16 sport)
{
	const struct mroce_flow f = {
		.laddr = &conn->laddr,
		.raddr = &conn->raddr,
		.sport = sport,
	};
	struct sock *sk;
	u64 key = 0;

	rcu_read_lock();
	sk = mroce_socket_sk(conn->mdev, !conn->ipv4);
	if (sk && conn->ipv4) {
		struct flowi4 fl4;
		struct rtable *rt;
		__be32 saddr;

		rt = route4(sk, &f, &fl4, &saddr);
		if (!IS_ERR(rt)) {
			key = mroce_plane_key(rt->dst.dev->ifindex,
					      rt->rt_gw_family == AF_INET ?
					      be32_to_cpu(rt->rt_gw4) : 0);
			ip_rt_put(rt);
		}
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (sk && !conn->ipv4) {
		struct in6_addr saddr;
		struct dst_entry *dst;
		struct flowi6 fl6;

		dst = route6(sk, &f, &fl6, &saddr);
		if (!IS_ERR(dst)) {
			key = mroce_plane_key(dst->dev->ifindex,
					      ipv6_addr_hash(rt6_nexthop((struct rt6_info *)dst,
									 &fl6.daddr)));
			dst_release(dst);
		}
	}
#endif
	rcu_read_unlock();
	return key;
}

/* Route and send @skb on @f; BHs off, under RCU.  Consumes @skb. */
static int xmit_flow(struct sock *sk, struct sk_buff *skb,
		     const struct mroce_flow *f)
{
	int err = -ENODEV;

	if (sk)
		err = ipv6_addr_v4mapped(f->raddr) ? xmit4(sk, skb, f) :
						     xmit6(sk, skb, f);
	/* No route: the packet is lost; for DATA, timers send it again. */
	if (err)
		kfree_skb(skb);
	return err;
}

/**
 * mroce_xmit_one() - send one packet outside any connection
 * @mdev: the sending device
 * @skb: the packet, data at the mroce header; consumed
 * @laddr: source address
 * @raddr: destination address
 * @sport: UDP source port
 *
 * Context: process or softirq context.
 * Return: 0, or the routing error (the packet is dropped).
 */
int mroce_xmit_one(struct mroce_dev *mdev, struct sk_buff *skb,
		   const struct in6_addr *laddr, const struct in6_addr *raddr,
		   u16 sport)
{
	struct mroce_flow f = {
		.laddr = laddr,
		.raddr = raddr,
		.sport = sport,
	};
	int err;

	local_bh_disable();	/* the per-cpu route caches need it */
	rcu_read_lock();
	err = xmit_flow(mroce_socket_sk(mdev, !ipv6_addr_v4mapped(raddr)), skb, &f);
	rcu_read_unlock();
	local_bh_enable();
	if (!err)
		mroce_count(mdev, MROCE_CNT_TX_PKTS, 1);
	return err;
}

/**
 * mroce_xmit_queue() - transmit queued packets of a connection
 * @conn: the connection, not locked
 * @q: the packets; emptied
 */
void mroce_xmit_queue(struct mroce_conn *conn, struct sk_buff_head *q)
{
	struct sk_buff *skb;
	struct sock *sk;

	local_bh_disable();	/* the per-cpu route caches need it */
	rcu_read_lock();
	sk = mroce_socket_sk(conn->mdev, !conn->ipv4);
	while ((skb = __skb_dequeue(q))) {
		unsigned int id = MROCE_CB(skb)->path % conn->paths.n;
		unsigned int route = MROCE_CB(skb)->route % conn->paths.n;
		/* xmit_flow() consumes @skb */
		unsigned int segs = skb_shinfo(skb)->gso_segs ?: 1;
		bool data = MROCE_CB(skb)->data;
		struct mroce_path_dst *dst = &conn->dst[id];
		struct mroce_flow f = {
			.laddr = &conn->laddr,
			.raddr = &conn->raddr,
			.sport = conn->path[route].sport,
			.cache = &conn->dst[route].dst,
			/* Control packets too: "ECN" in the spec's "IP" */
			.ecn = INET_ECN_ECT_0,
		};

		if (MROCE_CB(skb)->sport && MROCE_CB(skb)->nocache) {
			f.sport = MROCE_CB(skb)->sport;
			f.cache = NULL;
		} else if (MROCE_CB(skb)->sport) {
			f.sport = MROCE_CB(skb)->sport;
			f.cache = &dst->ack;
			/*
			 * Unlocked: racing senders may briefly use a route
			 * looked up for the other port; it still leads to the
			 * peer, and the reset makes the next lookup right.
			 */
			if (READ_ONCE(dst->ack_sport) != f.sport) {
				dst_cache_reset(&dst->ack);
				WRITE_ONCE(dst->ack_sport, f.sport);
			}
		}

		if (!xmit_flow(sk, skb, &f)) {
			mroce_count(conn->mdev, MROCE_CNT_TX_PKTS, segs);
			if (segs > 1)
				mroce_count(conn->mdev, MROCE_CNT_TX_GSO, 1);
			if (data)
				mroce_count_path(conn->mdev, id,
						 MROCE_PCNT_TX_PKTS, segs);
		}
	}
	rcu_read_unlock();
	local_bh_enable();
}

/*
 * Losses found by the clock before the RTO (mroce_txpath_recover()):
 * overdue packets are SACK gaps found by time, a tail probe is counted
 * as one.
 */
static void tx_recover(struct mroce_conn *conn, unsigned int i, u64 now)
{
	struct mroce_path *path = &conn->path[i];
	unsigned int n, k;
	bool probe;

	n = mroce_paths_recover(&conn->paths, i, now, &probe);
	if (!n)
		return;
	if (probe) {
		mroce_count(conn->mdev, MROCE_CNT_TAIL_PROBES, 1);
		n--;
	}
	for (k = path->nresend - n - probe; k < path->nresend - probe; k++)
		trace_mroce_lost(conn, i, path->resend[k]);
	mroce_count(conn->mdev, MROCE_CNT_LOST, n);
	mroce_count_path(conn->mdev, i, MROCE_PCNT_SACK_GAPS, n);
}

/*
 * Expired retransmission timers: queue what is due again; a path whose
 * route is found dead moves to a new port.
 */
static void tx_timeouts(struct mroce_conn *conn, u64 now)
{
	/* Evidence of a dead route; see mroce_txpath_timeout() in path.c. */
	u64 delivered = mroce_paths_delivered(&conn->paths);
	struct mroce_expiry ex;
	unsigned int i, k;

	for (i = 0; i < conn->paths.n; i++) {
		struct mroce_path *path = &conn->path[i];

		tx_recover(conn, i, now);
		while (mroce_paths_expire(&conn->paths, i, now, delivered, &ex)) {
			mroce_count(conn->mdev, MROCE_CNT_TIMEOUTS, 1);
			mroce_count_path(conn->mdev, i, MROCE_PCNT_TIMEOUTS, 1);
			trace_mroce_timeout(conn, i, ex.due[0]);
			if (ex.first && ex.dead)
				mroce_count(conn->mdev, MROCE_CNT_DEAD_AT_FIRST, 1);
			else if (!ex.first && !ex.dead)
				mroce_count(conn->mdev, MROCE_CNT_SILENT_TIMEOUTS, 1);
			/* The new route may be no better: keep trying others. */
			if (ex.dead)
				mroce_path_reroll(conn, i, now);
			for (k = 0; k < ex.n; k++) {
				struct mroce_txslot *slot = mroce_txpath_slot(&path->tx, ex.due[k]);
				struct mroce_seg *seg = slot->ctx;
				enum mroce_slot_retry why;

				if (!seg)
					continue;
				why = mroce_txslot_exhausted(slot, seg->stream->retry_cnt);
				if (why == MROCE_SLOT_RETRYING || !mroce_stream_seg_expired(seg))
					continue;
				mroce_count(conn->mdev,
					    why == MROCE_SLOT_RETRIES_EXCEEDED ?
					    MROCE_CNT_RETRIES_EXCEEDED :
					    MROCE_CNT_EXPIRIES_EXCEEDED, 1);
			}
		}
	}
}

/*
 * Route probes: a path moved off a dead route asks, now and then, whether
 * its old port works again (the answer comes back in rx_ack()).
 */
static void tx_route_probes(struct mroce_conn *conn, u64 now,
			    struct sk_buff_head *q)
{
	unsigned int i;

	for (i = 0; i < conn->paths.n; i++) {
		struct sk_buff *skb;

		if (!mroce_paths_probe_due(&conn->paths, i, now))
			continue;
		skb = build_probe(conn, i, MROCE_PROBE_NO_QPN,
				  conn->path[i].home_sport);
		if (skb) {
			__skb_queue_tail(q, skb);
			mroce_count(conn->mdev, MROCE_CNT_ROUTE_PROBES, 1);
		}
	}
}

/*
 * The streams' timers (RNR resends, progress probes), once the earliest
 * may be due: a walk over every stream, so not one per pass.
 *
 * Return: true if it walked; tx_stream_due() then sets the next bound.
 */
static bool tx_stream_timers(struct mroce_conn *conn, u64 now,
			     struct sk_buff_head *q)
{
	struct mroce_stream *s;
	struct sk_buff *skb;
	u64 d;

	if (!conn->stream_due || conn->stream_due > now)
		return false;
	list_for_each_entry(s, &conn->streams, conn_node) {
		d = mroce_stream_deadline(s);
		if (d && d <= now && mroce_stream_timer(s, now)) {
			skb = build_probe(conn, conn->paths.rr++ % conn->paths.n,
					  s->dest_qpn, 0);
			mroce_count(conn->mdev, MROCE_CNT_PROBES, 1);
			if (skb)
				__skb_queue_tail(q, skb);
		}
	}
	return true;
}

/*
 * After the pass has sent what the timers released (an RNR-waiting
 * request resumes in tx_new()), the earliest deadline left is the bound.
 */
static void tx_stream_due(struct mroce_conn *conn)
{
	struct mroce_stream *s;
	u64 next = 0, d;

	list_for_each_entry(s, &conn->streams, conn_node) {
		d = mroce_stream_deadline(s);
		if (d && (!next || d < next))
			next = d;
	}
	conn->stream_due = next;
}

static unsigned int tx_resends(struct mroce_conn *conn, u64 now,
			       struct sk_buff_head *q, unsigned int budget)
{
	unsigned int i, sent = 0;

	for (i = 0; i < conn->paths.n; i++) {
		struct mroce_path *path = &conn->path[i];
		unsigned int k, route;

		for (k = 0; k < path->nresend && sent < budget; k++) {
			u32 psn = path->resend[k];
			struct mroce_txslot *slot = mroce_txpath_slot(&path->tx, psn);

			if (slot->state != MROCE_SLOT_LOST)
				continue;	/* acknowledged meanwhile */
			route = mroce_paths_resend_route(&conn->paths, i, slot);
			if (build_data(conn, q, i, route, slot->ctx, psn)) {
				tx_nomem(conn);	/* stays LOST and listed */
				break;
			}
			if (route != i)
				mroce_count(conn->mdev, MROCE_CNT_DETOURS, 1);
			mroce_paths_resent(&conn->paths, i, psn, now, route);
			mroce_count(conn->mdev, MROCE_CNT_RETRANSMITS, 1);
			mroce_count_path(conn->mdev, i, MROCE_PCNT_RETRANSMITS, 1);
			trace_mroce_retransmit(conn, i, psn);
			sent++;
		}
		/* Keep what the budget did not reach for the next pass. */
		memmove(path->resend, path->resend + k,
			(path->nresend - k) * sizeof(path->resend[0]));
		path->nresend -= k;
	}
	return sent;
}

static unsigned int tx_new(struct mroce_conn *conn, u64 now,
			   struct sk_buff_head *q, unsigned int budget)
{
	unsigned int sent = 0;

	while (sent < budget && !list_empty(&conn->tx_streams)) {
		int id = mroce_paths_pick(&conn->paths);
		struct mroce_stream *s;
		struct mroce_seg *seg;
		u32 psn;
		int err;

		if (id < 0) {
			if (conn->paths.pacer.blocked)
				mroce_count(conn->mdev, MROCE_CNT_SHARE_WAITS, 1);
			break;
		}
		s = list_first_entry(&conn->tx_streams, struct mroce_stream, tx_node);
		/* Round robin over streams, one packet each. */
		list_move_tail(&s->tx_node, &conn->tx_streams);
		/*
		 * A stream with nothing to send now leaves the list; progress,
		 * completions, timers and the doorbell put it back.
		 */
		err = mroce_stream_next_seg(s, now, &seg);
		if (err == -ENOMEM) {
			tx_nomem(conn);	/* the stream stays listed */
			break;
		}
		if (err) {
			list_del_init(&s->tx_node);
			continue;
		}
		psn = mroce_paths_send(&conn->paths, id, now, seg);
		if (build_data(conn, q, id, id, seg, psn))
			tx_nomem(conn);	/* sent as lost: its path's timer resends it */
		sent++;
	}
	return sent;
}

/*
 * The last DATA packet this pass puts on each path asks for an ACK: the
 * receiver acknowledges every second packet of a path, so a path's odd
 * last packet would otherwise wait for the retransmission timer (spread
 * over many paths, most messages leave such a tail on some path).
 */
static void ack_req_tails(struct mroce_conn *conn)
{
	unsigned int i;

	for (i = 0; i < conn->paths.n; i++)
		if (conn->tx_tail[i])
			last_hdr(conn->tx_tail[i])->flags |= MROCE_F_ACK_REQ;
}

static bool conn_has_live_stream(struct mroce_conn *conn)
{
	struct mroce_stream *s;

	list_for_each_entry(s, &conn->streams, conn_node)
		if (!s->error)
			return true;
	return false;
}

static void tx_arm(struct mroce_conn *conn, u64 now)
{
	bool live = conn_has_live_stream(conn);
	/* Documentation/wire-protocol.rst, id DEAD-PEER-QUIET */
	bool quiet = !live && mroce_paths_silent(&conn->paths);
	u64 t = 0, d;

	if (!conn->peer_epoch && live)
		t = conn->hello.due_us;
	d = quiet ? 0 : mroce_paths_deadline(&conn->paths);
	if (d && (!t || d < t))
		t = d;
	d = conn->stream_due;
	if (d && (!t || d < t))
		t = d;
	if (conn->tx_nomem) {
		conn->tx_nomem = false;
		d = now + MROCE_TX_NOMEM_US;
		if (!t || d < t)
			t = d;
	}
	if (conn->dying)
		return;
	/* Nothing is due: a timer left armed would wake an empty pass. */
	if (!t) {
		hrtimer_try_to_cancel(&conn->timer);
		return;
	}
	hrtimer_start(&conn->timer, ns_to_ktime((t > now ? t - now : 1) * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
}

/**
 * mroce_conn_rearm() - arm the connection's timer for what is due
 * @conn: the connection, locked
 *
 * For an ACK that owes no send pass: the timer armed for the packets it
 * acknowledged would otherwise wake an empty one.
 */
void mroce_conn_rearm(struct mroce_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	tx_arm(conn, mroce_now_us());
}

/*
 * The HELLOs due while the peer's epoch is unknown.  One that could not
 * be allocated is as good as lost: the next time HELLOs are due covers
 * it (tx_nomem()'s early pass would find nothing due).
 */
static void tx_hellos(struct mroce_conn *conn, u64 now, struct sk_buff_head *q)
{
	unsigned int n = mroce_hello_due(&conn->hello, &conn->paths, now);
	struct sk_buff *skb;

	while (n--) {
		skb = mroce_build_hello(conn);
		if (!skb) {
			mroce_count(conn->mdev, MROCE_CNT_TX_NOMEM, 1);
			break;
		}
		__skb_queue_tail(q, skb);
	}
}

/* One send pass: what is due, then new packets, up to the budget. */
static void tx_pass(struct mroce_conn *conn)
{
	unsigned int budget = MROCE_TX_BUDGET;
	struct sk_buff_head q;
	u64 now = mroce_now_us();
	bool more = false, walked;

	__skb_queue_head_init(&q);
	spin_lock_bh(&conn->lock);
	if (!conn->peer_epoch) {
		/* Until the peer's epoch is known, only HELLO may be sent. */
		if (conn_has_live_stream(conn))
			tx_hellos(conn, now, &q);
		goto arm;
	}

	mroce_paths_pass(&conn->paths, now);
	tx_acks(conn, &q);
	tx_timeouts(conn, now);
	tx_route_probes(conn, now, &q);
	walked = tx_stream_timers(conn, now, &q);
	budget -= tx_resends(conn, now, &q, budget);
	budget -= tx_new(conn, now, &q, budget);
	if (walked)
		tx_stream_due(conn);
	more = !budget;
	ack_req_tails(conn);
	/* The skbs are @q's, and leave with it. */
	memset(conn->tx_tail, 0, conn->paths.n * sizeof(conn->tx_tail[0]));
arm:
	tx_arm(conn, now);
	spin_unlock_bh(&conn->lock);

	mroce_xmit_queue(conn, &q);
	if (more)
		mroce_conn_kick(conn);
}

/*
 * One pass at a time per connection, whoever runs it (the send work or a
 * doorbell's caller), so packets leave in the order passes built them.
 * Whoever finds a pass running leaves MROCE_TX_AGAIN to its runner, who
 * queues the send work when it ends; set before the claim, it cannot be
 * missed.  Cleared once claimed, before the pass takes the lock: what the
 * setter changed, the pass sees.
 */
static bool tx_pass_begin(struct mroce_conn *conn)
{
	set_bit(MROCE_TX_AGAIN, &conn->tx_flags);
	if (test_and_set_bit_lock(MROCE_TX_RUNNING, &conn->tx_flags))
		return false;
	clear_bit(MROCE_TX_AGAIN, &conn->tx_flags);
	return true;
}

static void tx_pass_end(struct mroce_conn *conn)
{
	clear_bit_unlock(MROCE_TX_RUNNING, &conn->tx_flags);
	smp_mb__after_atomic();	/* the release before the look; see above */
	if (test_bit(MROCE_TX_AGAIN, &conn->tx_flags))
		mroce_conn_kick(conn);
}

/* A send pass, unless one is running: then its runner has the work run one. */
static void tx_run(struct mroce_conn *conn)
{
	if (tx_pass_begin(conn)) {
		tx_pass(conn);
		tx_pass_end(conn);
	}
}

void mroce_tx_work(struct work_struct *work)
{
	tx_run(container_of(work, struct mroce_conn, tx_work));
}

/**
 * mroce_conn_send() - run a send pass from the caller, or have one run
 * @conn: the connection, not locked
 *
 * A doorbell's packets leave from the posting call itself when no pass is
 * running, rather than after the send work wakes (which took 30-74 us
 * under emulation, README "Latency against rxe, measured").  Outside
 * process context, or with interrupts off, the send work runs it.
 */
void mroce_conn_send(struct mroce_conn *conn)
{
	if (!in_task() || irqs_disabled()) {
		mroce_conn_kick(conn);
		return;
	}
	tx_run(conn);
}

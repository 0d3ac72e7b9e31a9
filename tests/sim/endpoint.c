// SPDX-License-Identifier: GPL-2.0-only
/*
 * A simulated host's transport over the module's protocol core; see
 * endpoint.h.  The send pass follows mroce_tx_work() (send.c) and the
 * receive side rx_data()/rx_ack() (receive.c): each step names the
 * function it mirrors.
 */
#include <stdio.h>
#include <stdlib.h>

#include "message.h"
#include "multipath.h"
#include "share.h"
#include "wire.h"

#include "endpoint.h"

#define SIM_QPN		1	/* every host's one queue pair */
#define SIM_RKEY	0x1234
/* Header room of a queued packet: the largest the endpoint builds. */
#define SIM_HDR_MAX	64
static_assert(MROCE_DATA_HDR_MAX <= SIM_HDR_MAX);
static_assert(MROCE_ACK_HDR_LEN <= SIM_HDR_MAX);

struct sim_msg;

/* One DATA packet's worth of a message: the ctx of its txpath slot. */
struct sim_seg {
	struct sim_msg *msg;
	u32 offset;
	u32 len;
};

/* A WRITE posted to a peer, cut into packets as paths have room. */
struct sim_msg {
	struct sim_msg *next;
	u64 cookie;
	struct mroce_smsg s;
	u32 acked;		/* bytes acknowledged */
};

/*
 * The messages arriving from a peer: the stream's window (message.c) and,
 * to check that no packet is placed twice, which packets each has placed.
 */
struct sim_rwin {
	struct mroce_rmsg msg[MROCE_STREAM_WINDOW];
	unsigned long *map[MROCE_STREAM_WINDOW];	/* bit i: packet i placed */
	u32 done;				/* msn_done */
};

/* A packet built by a pass, sent when the pass ends (ack_req_tails()). */
struct sim_out {
	u16 sport;
	u8 path;
	bool data;
	unsigned int hlen;
	unsigned int payload;
	u8 hdr[SIM_HDR_MAX];
};

struct sim_conn {
	struct sim_ep *ep;
	unsigned int peer;
	struct mroce_paths paths;
	struct mroce_path *path;
	struct mroce_rxwin rx[MROCE_MAX_PATHS];
	u64 ack_due;			/* bit i: path i owes an ACK */
	struct sim_msg *head, *tail;	/* messages not yet acknowledged */
	struct sim_msg *cut;		/* the first with bytes left to cut */
	u32 next_msn;
	struct mroce_share_peer rxshare;	/* the peer as a sender to us */
	struct sim_rwin *rwin;		/* allocated by the first DATA */
	u64 armed_us;
	bool established;	/* the peer's epoch is known */
	struct mroce_hello hello;	/* until established */
};

struct sim_ep {
	unsigned int id;
	unsigned int nhosts;
	struct sim_ep_config cfg;
	const struct sim_ep_ops *ops;
	void *host;
	struct sim_conn **conn;
	struct mroce_share share;
	struct sim_ep_stats st;
	struct sim_out *out;
	unsigned int nout;
	unsigned int maxout;
	/* new DATA in @out, per NIC (the route's plane, 1-based) */
	unsigned int pass_new[SIM_MAX_PLANES + 1];
	/* NICs found full this pass: they stay so until it ends */
	unsigned int pass_full;
	u64 outstanding;
	u64 now;
};

static u64 conn_route_plane(struct mroce_paths *ps, u16 sport)
{
	struct sim_conn *c = container_of(ps, struct sim_conn, paths);

	return c->ep->ops->route_plane(c->ep->host, c->peer, sport);
}

static u16 conn_random_sport(struct mroce_paths *ps)
{
	struct sim_conn *c = container_of(ps, struct sim_conn, paths);

	return c->ep->ops->random_sport(c->ep->host);
}

/* The simulator caches no routes: nothing goes stale. */
static void conn_path_moved(struct mroce_paths *ps, unsigned int i)
{
}

/* The NIC a path's port leads to, as sim_ep.pass_new counts them. */
static unsigned int nic_of(const struct mroce_path *path)
{
	return min_t(u64, path->plane, SIM_MAX_PLANES);
}

/*
 * Whether path @i's NIC has room in its ring, counting the new packets
 * this pass built for it: they go out when the pass ends.
 */
static bool conn_egress_room(struct mroce_paths *ps, unsigned int i)
{
	struct sim_conn *c = container_of(ps, struct sim_conn, paths);
	unsigned int plane = nic_of(&ps->path[i]);
	struct sim_ep *ep = c->ep;

	if (ep->pass_full & BIT(plane))
		return false;
	if (ep->ops->nic_room(ep->host, c->peer, plane, ep->pass_new[plane]))
		return true;
	ep->pass_full |= BIT(plane);
	ep->st.nic_full++;
	return false;
}

static const struct mroce_paths_ops sim_paths_ops = {
	.route_plane = conn_route_plane,
	.random_sport = conn_random_sport,
	.moved = conn_path_moved,
	.egress_room = conn_egress_room,
};

/* Epochs are fixed: hosts do not restart in the simulator (yet). */
static u32 epoch_of(unsigned int host)
{
	return host + 1;
}

/* mroce_conn_alloc() */
static struct sim_conn *conn_get(struct sim_ep *ep, unsigned int peer)
{
	struct sim_conn *c = ep->conn[peer];
	unsigned int i;

	if (c)
		return c;
	c = sim_xcalloc(1, sizeof(*c));
	c->ep = ep;
	c->peer = peer;
	c->path = sim_xcalloc(ep->cfg.paths, sizeof(*c->path));
	mroce_paths_init(&c->paths, c->path, ep->cfg.paths, &sim_paths_ops,
			 ep->cfg.mtu + MROCE_ENCAP_OVERHEAD,
			 ep->cfg.congestive_loss);
	for (i = 0; i < c->paths.n; i++) {
		mroce_paths_init_path(&c->paths, i, ep->cfg.min_rto_us,
				      ep->cfg.init_rto_us ?: MROCE_RTO_INIT_US,
				      ep->cfg.delay_target_us);
		mroce_paths_choose_port(&c->paths, i, 0);
	}
	ep->st.conns++;
	ep->conn[peer] = c;
	return c;
}

static struct sim_out *out_next(struct sim_ep *ep)
{
	if (ep->nout == ep->maxout) {
		fprintf(stderr, "sim: send pass overflow\n");
		exit(1);
	}
	return &ep->out[ep->nout++];
}

static void out_flush(struct sim_conn *c)
{
	struct sim_ep *ep = c->ep;
	int tail[MROCE_MAX_PATHS];
	unsigned int i;

	/* ack_req_tails(): each path's last DATA packet asks for an ACK. */
	for (i = 0; i < MROCE_MAX_PATHS; i++)
		tail[i] = -1;
	for (i = 0; i < ep->nout; i++)
		if (ep->out[i].data)
			tail[ep->out[i].path] = i;
	for (i = 0; i < MROCE_MAX_PATHS; i++)
		if (tail[i] >= 0)
			((struct mroce_hdr *)ep->out[tail[i]].hdr)->flags |=
				MROCE_F_ACK_REQ;
	for (i = 0; i < ep->nout; i++) {
		struct sim_out *o = &ep->out[i];

		/* Every packet of a connection is ECN-capable (IP-ECN). */
		ep->ops->xmit(ep->host, c->peer, o->sport, o->hdr, o->hlen,
			      o->payload, true);
	}
	ep->nout = 0;
	memset(ep->pass_new, 0, sizeof(ep->pass_new));
	ep->pass_full = 0;
}

/* build_data() */
static void queue_data(struct sim_conn *c, unsigned int path, u16 sport,
		       const struct sim_seg *seg, u32 psn)
{
	struct sim_out *o = out_next(c->ep);
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_DATA,
		.path = path,
		.psn = psn,
		.src_epoch = epoch_of(c->ep->id),
		.dst_epoch = epoch_of(c->peer),
		.opcode = MROCE_OP_WRITE,
		.dst_qpn = SIM_QPN,
		.src_qpn = SIM_QPN,
		.msn = seg->msg->s.msn,
		.msg_len = seg->msg->s.len,
		.offset = seg->offset,
		.payload_len = seg->len,
		.va = 0x10000000ULL + seg->offset,
		.rkey = SIM_RKEY,
	};

	o->sport = sport;
	o->path = path;
	o->data = true;
	o->payload = seg->len;
	o->hlen = mroce_wire_build(o->hdr, &pkt);
	c->ep->st.tx_data++;
}

/* mroce_build_ack() */
static void queue_ack(struct sim_conn *c, unsigned int path, u16 route_sport)
{
	struct mroce_rxwin *rx = &c->rx[path];
	u8 sack[MROCE_SACK_BITS / 8];
	struct sim_out *o = out_next(c->ep);
	struct mroce_pkt pkt;

	mroce_rxwin_ack(rx, path, sack, &pkt);
	if (c->ep->share.capacity_mbps) {
		pkt.share = c->ep->share.level;
		pkt.capacity = c->ep->share.capacity_mbps;
	}
	pkt.flags = route_sport ? MROCE_F_ROUTE : 0;
	pkt.src_epoch = epoch_of(c->ep->id);
	pkt.dst_epoch = epoch_of(c->peer);
	o->sport = route_sport ?: rx->sport;
	o->path = path;
	o->data = false;
	o->payload = 0;
	o->hlen = mroce_wire_build(o->hdr, &pkt);
	c->ack_due &= ~BIT_ULL(path);
}

/* mroce_build_hello(): each HELLO takes the next path's route */
static void queue_hello(struct sim_conn *c, bool answer)
{
	struct sim_out *o = out_next(c->ep);
	unsigned int path = c->paths.rr++ % c->paths.n;
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_HELLO,
		.paths = c->paths.n,
		.src_epoch = epoch_of(c->ep->id),
		.dst_epoch = answer ? epoch_of(c->peer) : 0,
	};

	o->sport = c->path[path].sport;
	o->path = path;
	o->data = false;
	o->payload = 0;
	o->hlen = mroce_wire_build(o->hdr, &pkt);
}

/* build_probe(), for a route probe of a path's home port */
static void queue_probe(struct sim_conn *c, unsigned int path, u16 sport)
{
	struct sim_out *o = out_next(c->ep);
	struct mroce_pkt pkt = {
		.type = MROCE_PKT_PROBE,
		.flags = MROCE_F_ROUTE,
		.path = path,
		.probe_qpn = MROCE_PROBE_NO_QPN,
		.src_epoch = epoch_of(c->ep->id),
		.dst_epoch = epoch_of(c->peer),
	};

	o->sport = sport;
	o->path = path;
	o->data = false;
	o->payload = 0;
	o->hlen = mroce_wire_build(o->hdr, &pkt);
}

static void seg_acked(void *ctx, void *arg)
{
	struct sim_seg *seg = ctx;
	struct sim_msg *m = seg->msg;
	struct sim_conn *c = arg;

	m->acked += seg->len;
	free(seg);
	/* Messages complete in posting order, as work requests do. */
	while (c->head && c->head->s.state == MROCE_SMSG_SENT &&
	       c->head->acked == c->head->s.len) {
		m = c->head;
		c->head = m->next;
		if (!c->head)
			c->tail = NULL;
		c->ep->st.msgs_completed++;
		c->ep->outstanding--;
		c->ep->ops->completed(c->ep->host, c->peer, m->cookie,
				      c->ep->now);
		free(m);
	}
}

/* tx_timeouts() */
static void tx_timeouts(struct sim_conn *c, u64 now)
{
	u64 delivered = mroce_paths_delivered(&c->paths);
	struct mroce_expiry ex;
	unsigned int i, n;
	bool probe;

	for (i = 0; i < c->paths.n; i++) {
		n = mroce_paths_recover(&c->paths, i, now, &probe);
		c->ep->st.lost += n - probe;
		c->ep->st.tail_probes += probe;
		while (mroce_paths_expire(&c->paths, i, now, delivered, &ex)) {
			c->ep->st.timeouts++;
			if (ex.dead) {
				mroce_paths_reroll(&c->paths, i, now);
				c->ep->st.rerolls++;
			}
		}
	}
}

/* tx_route_probes() */
static void tx_route_probes(struct sim_conn *c, u64 now)
{
	unsigned int i;

	for (i = 0; i < c->paths.n; i++)
		if (mroce_paths_probe_due(&c->paths, i, now))
			queue_probe(c, i, c->path[i].home_sport);
}

/* tx_resends() */
static void tx_resends(struct sim_conn *c, u64 now)
{
	unsigned int i, k;

	for (i = 0; i < c->paths.n; i++) {
		struct mroce_path *path = &c->path[i];

		for (k = 0; k < path->nresend; k++) {
			u32 psn = path->resend[k];
			struct mroce_txslot *slot = mroce_txpath_slot(&path->tx, psn);
			unsigned int route;

			if (slot->state != MROCE_SLOT_LOST)
				continue;	/* acknowledged meanwhile */
			route = mroce_paths_resend_route(&c->paths, i, slot);
			queue_data(c, i, c->path[route].sport, slot->ctx, psn);
			mroce_paths_resent(&c->paths, i, psn, now, route);
			c->ep->st.retransmits++;
		}
		path->nresend = 0;
	}
}

/* tx_new(), with mroce_stream_next_seg() reduced to cutting WRITEs */
static void tx_new(struct sim_conn *c, u64 now)
{
	while (c->cut) {
		struct sim_msg *m = c->cut;
		struct sim_seg *seg;
		u32 psn;
		int id;

		/* The peer's window holds the messages after the oldest. */
		if (m->s.msn - c->head->s.msn >= MROCE_STREAM_WINDOW)
			break;
		id = mroce_paths_pick(&c->paths);
		if (id < 0) {
			c->ep->st.paced += c->paths.pacer.blocked;
			break;
		}
		seg = sim_xcalloc(1, sizeof(*seg));
		seg->msg = m;
		seg->len = mroce_smsg_cut(&m->s, c->ep->cfg.mtu, false,
					  &seg->offset);
		if (m->s.state == MROCE_SMSG_SENT)
			c->cut = m->next;
		psn = mroce_paths_send(&c->paths, id, now, seg);
		queue_data(c, id, c->path[id].sport, seg, psn);
		c->ep->pass_new[nic_of(&c->path[id])]++;
	}
}

/* tx_arm() */
static void tx_arm(struct sim_conn *c)
{
	u64 t = c->established ? mroce_paths_deadline(&c->paths) :
				 c->head ? c->hello.due_us : 0;

	if (t != c->armed_us) {
		c->armed_us = t;
		c->ep->ops->arm(c->ep->host, c->peer, t);
	}
}

/* mroce_tx_work() */
static void conn_pass(struct sim_conn *c, u64 now)
{
	if (!c->established) {
		/* Until the peer's epoch is known, only HELLO may be sent. */
		if (c->head) {
			unsigned int n = mroce_hello_due(&c->hello, &c->paths,
							 now);

			while (n--)
				queue_hello(c, false);
		}
		out_flush(c);
		tx_arm(c);
		return;
	}
	mroce_paths_pass(&c->paths, now);
	tx_timeouts(c, now);
	tx_route_probes(c, now);
	while (c->ack_due)
		queue_ack(c, __builtin_ctzll(c->ack_due), 0);
	tx_resends(c, now);
	tx_new(c, now);
	out_flush(c);
	tx_arm(c);
}

static void *ep_create(unsigned int id, unsigned int nhosts,
		       const struct sim_ep_config *cfg,
		       const struct sim_ep_ops *ops, void *host)
{
	struct sim_ep *ep = sim_xcalloc(1, sizeof(*ep));

	ep->id = id;
	ep->nhosts = nhosts;
	ep->cfg = *cfg;
	ep->cfg.paths = clamp(cfg->paths, 1U, (unsigned int)MROCE_MAX_PATHS);
	ep->ops = ops;
	ep->host = host;
	ep->conn = sim_xcalloc(nhosts, sizeof(*ep->conn));
	mroce_share_init(&ep->share, cfg->capacity_mbps, cfg->share_hold_us);
	/* A pass sends at most a window per path, and an ACK and a probe. */
	ep->maxout = ep->cfg.paths * (MROCE_WINDOW + 2) + MROCE_MAX_PATHS;
	ep->out = sim_xcalloc(ep->maxout, sizeof(*ep->out));
	return ep;
}

static void ep_destroy(void *arg)
{
	struct sim_ep *ep = arg;
	unsigned int i, k;

	for (i = 0; i < ep->nhosts; i++) {
		struct sim_conn *c = ep->conn[i];
		struct sim_msg *m;

		if (!c)
			continue;
		for (k = 0; k < c->paths.n; k++) {
			struct mroce_txpath *tx = &c->path[k].tx;
			u32 psn;

			for (psn = tx->una; psn != tx->nxt; psn++) {
				struct mroce_txslot *slot = mroce_txpath_slot(tx, psn);

				if (slot->state != MROCE_SLOT_ACKED)
					free(slot->ctx);
			}
		}
		while ((m = c->head)) {
			c->head = m->next;
			free(m);
		}
		for (k = 0; c->rwin && k < MROCE_STREAM_WINDOW; k++)
			free(c->rwin->map[k]);
		free(c->rwin);
		free(c->path);
		free(c);
	}
	free(ep->conn);
	free(ep->out);
	free(ep);
}

static void ep_post(void *arg, unsigned int dst, uint64_t len,
		    uint64_t cookie, uint64_t now_us)
{
	struct sim_ep *ep = arg;
	struct sim_conn *c = conn_get(ep, dst);
	struct sim_msg *m = sim_xcalloc(1, sizeof(*m));

	ep->now = now_us;
	m->cookie = cookie;
	mroce_smsg_init(&m->s, c->next_msn++, 0, len, 0);
	if (c->tail)
		c->tail->next = m;
	else
		c->head = m;
	c->tail = m;
	if (!c->cut)
		c->cut = m;
	ep->outstanding++;
	conn_pass(c, now_us);
}

/*
 * Place a DATA packet's payload as responder.c does.  A message is
 * delivered once all its bytes are placed, as a collective library that
 * watches its buffers sees it; msn_done passes complete messages in
 * order, as the module's receive completions do.
 */
static void place(struct sim_conn *c, const struct mroce_pkt *pkt, u64 now)
{
	unsigned int mtu = c->ep->cfg.mtu, bit = pkt->offset / mtu;
	unsigned int npkts = (pkt->msg_len + mtu - 1) / mtu;
	struct sim_rwin *w;
	unsigned long **map;
	struct mroce_rmsg *m;

	if (!c->rwin)
		c->rwin = sim_xcalloc(1, sizeof(*c->rwin));
	w = c->rwin;
	m = mroce_rmsg_accept(w->msg, w->done, pkt);
	if (!m) {
		c->ep->st.stream_drops++;
		return;
	}
	map = &w->map[pkt->msn % MROCE_STREAM_WINDOW];
	if (!*map)
		*map = sim_xcalloc(BITS_TO_LONGS(npkts), sizeof(unsigned long));
	if (test_bit(bit, *map)) {
		c->ep->st.placed_twice += pkt->payload_len;
		return;
	}
	set_bit(bit, *map);
	c->ep->st.bytes_placed += pkt->payload_len;
	c->ep->ops->placed(c->ep->host, c->peer, pkt->payload_len, now);
	if (!mroce_rmsg_placed(m, pkt->payload_len))
		return;
	free(*map);
	*map = NULL;
	c->ep->st.msgs_delivered++;
	c->ep->ops->delivered(c->ep->host, c->peer, m->len, now);
	while ((m = mroce_rmsg_oldest(w->msg, w->done)) &&
	       m->state == MROCE_RMSG_DONE) {
		m->state = MROCE_RMSG_FREE;
		w->done++;
	}
}

/* rx_data() */
static void rx_data(struct sim_conn *c, const struct mroce_pkt *pkt, bool ce,
		    u16 sport, u64 now)
{
	struct mroce_rxwin *rx = &c->rx[pkt->path];
	enum mroce_rx_verdict verdict = mroce_rxwin_check(rx, pkt->psn);

	mroce_paths_ack_port(&c->paths, rx, sport, verdict == MROCE_RX_DUP);
	switch (verdict) {
	case MROCE_RX_NEW:
		break;
	case MROCE_RX_DUP:
		c->ep->st.duplicates++;
		queue_ack(c, pkt->path, 0);
		return;
	default:
		c->ep->st.outside++;
		return;
	}
	if (mroce_rxwin_data(rx, pkt->psn, ce, pkt->flags & MROCE_F_ACK_REQ))
		c->ack_due |= BIT_ULL(pkt->path);
	if (mroce_share_rx(&c->rxshare, now, pkt->payload_len, ce))
		mroce_share_activate(&c->ep->share, &c->rxshare, now);
	c->ep->st.rx_data++;
	place(c, pkt, now);
}

/* rx_ack() */
static void rx_ack(struct sim_conn *c, const struct mroce_pkt *pkt, u16 sport,
		   u64 now)
{
	struct mroce_path *path;
	struct mroce_ack_result res;

	if (pkt->path >= c->paths.n)
		return;
	path = &c->path[pkt->path];
	if (!mroce_paths_ack(&c->paths, pkt->path, now, pkt, seg_acked, c,
			     &res)) {
		c->ep->st.lost += res.lost;
		c->ep->st.ecn_cuts += res.congested;
		c->ep->st.loss_cuts += res.loss_cuts;
	}
	if ((pkt->flags & MROCE_F_ROUTE) && path->home_sport &&
	    sport == path->home_sport &&
	    mroce_paths_return(&c->paths, pkt->path, now))
		c->ep->st.returns++;
}

/* rx_hello(); epochs are fixed, so no restart */
static void rx_hello(struct sim_conn *c, const struct mroce_pkt *pkt)
{
	c->established = true;
	if (pkt->dst_epoch != epoch_of(c->ep->id))
		queue_hello(c, true);
}

/* The module's share work, run here as packets arrive. */
static void share_scan(struct sim_ep *ep, u64 now)
{
	unsigned int i;

	if (!mroce_share_scan_due(&ep->share, now))
		return;
	for (i = 0; i < ep->nhosts; i++) {
		struct sim_conn *c = ep->conn[i];

		if (c)
			mroce_share_scan_peer(&ep->share, &c->rxshare, now,
					      c->rxshare.active &&
					      mroce_rxwin_hole(c->rx,
							       MROCE_MAX_PATHS));
	}
	mroce_share_scan_end(&ep->share, now);
}

static void ep_rx(void *arg, unsigned int src, const void *buf,
		  unsigned int hdr_avail, unsigned int pkt_len, bool ce,
		  uint16_t sport, uint64_t now_us)
{
	struct sim_ep *ep = arg;
	struct sim_conn *c;
	struct mroce_pkt pkt;

	ep->now = now_us;
	if (mroce_wire_parse(buf, hdr_avail, pkt_len, &pkt) ||
	    (pkt.dst_epoch != epoch_of(ep->id) &&
	     !(pkt.type == MROCE_PKT_HELLO && !pkt.dst_epoch)) ||
	    pkt.src_epoch != epoch_of(src)) {
		ep->st.malformed++;
		return;
	}
	c = conn_get(ep, src);
	/* The peer heard our HELLO (id RTT-HELLO, EPOCH-LEARN). */
	if (pkt.dst_epoch == epoch_of(ep->id)) {
		mroce_hello_heard(&c->hello, &c->paths, now_us);
		c->established = true;
	}
	share_scan(ep, now_us);
	switch (pkt.type) {
	case MROCE_PKT_HELLO:
		rx_hello(c, &pkt);
		break;
	case MROCE_PKT_DATA:
		rx_data(c, &pkt, ce, sport, now_us);
		break;
	case MROCE_PKT_ACK:
		rx_ack(c, &pkt, sport, now_us);
		break;
	case MROCE_PKT_PROBE:
		/* Answered at once; a route probe's back by its own port. */
		queue_ack(c, pkt.path,
			  pkt.flags & MROCE_F_ROUTE ? sport : 0);
		break;
	default:
		ep->st.malformed++;
		return;
	}
	conn_pass(c, now_us);
}

static void ep_timer(void *arg, unsigned int peer, uint64_t now_us)
{
	struct sim_ep *ep = arg;
	struct sim_conn *c = ep->conn[peer];

	if (!c)
		return;
	ep->now = now_us;
	c->armed_us = 0;
	conn_pass(c, now_us);
}

static const struct sim_ep_stats *ep_counters(const void *ep)
{
	return &((const struct sim_ep *)ep)->st;
}

static uint64_t ep_outstanding(const void *ep)
{
	return ((const struct sim_ep *)ep)->outstanding;
}

const struct sim_transport sim_mroce = {
	.name = "mroce",
	.create = ep_create,
	.destroy = ep_destroy,
	.post = ep_post,
	.rx = ep_rx,
	.timer = ep_timer,
	.counters = ep_counters,
	.outstanding = ep_outstanding,
	.max_hdr = SIM_HDR_MAX,
	.data_hdr = MROCE_DATA_HDR_LEN + 16,	/* WRITE's extension */
};

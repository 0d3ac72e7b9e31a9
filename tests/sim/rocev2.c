// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's reference: a model of RoCEv2 as NICs run it, to set
 * mroce's results beside.  One queue pair per peer on one path (its UDP
 * source port fixed, so ECMP keeps it on one route), packets in PSN
 * order, the responder accepting only the next PSN and NAKing the first
 * packet past a gap, the requester going back to the NAKed PSN (or, on
 * its timeout, to the oldest unacknowledged one) and sending everything
 * from there again.  Its rate follows DCQCN (Zhu et al., SIGCOMM 2015):
 * the responder answers CE-marked packets with a CNP at most every
 * 50 us; a CNP cuts the rate by alpha / 2; every 55 us without one,
 * alpha decays and the rate climbs back (fast recovery, then additive).
 *
 * It is a model, not an implementation of the RoCEv2 wire: its headers
 * have RoCEv2's sizes (BTH + RETH + ICRC for data, BTH + AETH + ICRC for
 * ACKs) and carry only what the model needs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define DATA_HDR	32
#define ACK_HDR		20
#define MAX_HDR		32
#define QP_WINDOW	4096	/* packets in flight per queue pair */
#define CNP_GAP_US	50
#define DCQCN_T_US	55
#define DCQCN_G		(1.0 / 256)
#define DCQCN_FR_STEPS	5
#define RATE_AI_FRAC	0.005	/* additive step, of the line rate */
#define RATE_MIN_FRAC	0.001
#define RTO_US_MIN	1000	/* the NIC's local ACK timeout */

enum { T_DATA = 1, T_ACK, T_NAK, T_CNP };

struct rmsg {
	struct rmsg *next;
	u64 cookie;
	u32 msn, len, sent, acked;
};

struct rpkt {
	struct rmsg *msg;
	u32 offset, len;
};

struct rqp {
	struct rep *ep;
	unsigned int peer;
	u16 sport;
	/* requester */
	struct rmsg *head, *tail, *cut;
	u32 next_msn;
	u32 una, nxt, ptr;	/* oldest unacked, next new, next to send */
	struct rpkt ring[QP_WINDOW];
	u64 progress_us;	/* last ACK that moved una, or first send */
	double rate, target, alpha, credit;
	u64 last_tick_us, dcqcn_us;
	unsigned int steps;
	bool cnp_seen;
	/* responder */
	u32 epsn;
	bool nak_sent;
	u32 unacked;
	u64 last_cnp_us;
	u32 rmsn_placed;	/* bytes of the message in progress */
	u64 armed_us;
};

struct rep {
	unsigned int id, nhosts;
	struct sim_ep_config cfg;
	const struct sim_ep_ops *ops;
	void *host;
	struct rqp **qp;
	struct sim_ep_stats st;
	u64 outstanding;
	double line_bps;
};

static void put32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static u32 get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static struct rqp *qp_get(struct rep *ep, unsigned int peer)
{
	struct rqp *q = ep->qp[peer];

	if (q)
		return q;
	q = sim_xcalloc(1, sizeof(*q));
	q->ep = ep;
	q->peer = peer;
	q->sport = ep->ops->random_sport(ep->host);
	q->rate = ep->line_bps;
	q->target = ep->line_bps;
	q->alpha = 1;
	ep->qp[peer] = q;
	ep->st.conns++;
	return q;
}

static void xmit(struct rqp *q, u8 type, u32 psn, const struct rpkt *pk)
{
	u8 hdr[MAX_HDR] = { type };

	put32(hdr + 4, psn);
	if (pk) {
		put32(hdr + 8, pk->msg->msn);
		put32(hdr + 12, pk->offset);
		put32(hdr + 16, pk->msg->len);
		put32(hdr + 20, pk->len);
	}
	q->ep->ops->xmit(q->ep->host, q->peer, q->sport, hdr,
			 type == T_DATA ? DATA_HDR : ACK_HDR,
			 pk ? pk->len : 0, type == T_DATA);
}

static double pkt_bits(u32 len)
{
	return (len + DATA_HDR + 30) * 8.0;
}

/* DCQCN's timer: alpha decays, the rate recovers, every DCQCN_T_US. */
static void dcqcn_tick(struct rqp *q, u64 now)
{
	double line = q->ep->line_bps;

	while (now >= q->dcqcn_us + DCQCN_T_US) {
		q->dcqcn_us += DCQCN_T_US;
		if (q->cnp_seen) {
			q->cnp_seen = false;
			continue;
		}
		q->alpha *= 1 - DCQCN_G;
		if (++q->steps > DCQCN_FR_STEPS)
			q->target = q->target + RATE_AI_FRAC * line < line ?
				    q->target + RATE_AI_FRAC * line : line;
		q->rate = (q->rate + q->target) / 2;
	}
}

static void send_pass(struct rqp *q, u64 now)
{
	u64 t = 0;

	dcqcn_tick(q, now);
	/* Go back N after a silence of a whole timeout. */
	if (q->una != q->nxt && now >= q->progress_us + q->ep->cfg.min_rto_us) {
		q->ep->st.timeouts++;
		q->ptr = q->una;
		q->progress_us = now;
	}
	/* Pacing by credit: the rate's worth of bits since the last pass. */
	q->credit += q->rate * (now - q->last_tick_us) / 1e6;
	q->last_tick_us = now;
	for (;;) {
		struct rpkt *pk;

		if (q->ptr == q->nxt) {
			struct rmsg *m = q->cut;

			if (!m || q->nxt - q->una >= QP_WINDOW)
				break;
			pk = &q->ring[q->nxt % QP_WINDOW];
			pk->msg = m;
			pk->offset = m->sent;
			pk->len = m->len - m->sent < q->ep->cfg.mtu ?
				  m->len - m->sent : q->ep->cfg.mtu;
			if (q->credit < pkt_bits(pk->len))
				break;
			m->sent += pk->len;
			if (m->sent == m->len)
				q->cut = m->next;
			if (q->una == q->nxt)
				q->progress_us = now;
			q->nxt++;
		} else {
			pk = &q->ring[q->ptr % QP_WINDOW];
			if (q->credit < pkt_bits(pk->len))
				break;
			q->ep->st.retransmits++;
		}
		q->credit -= pkt_bits(pk->len);
		xmit(q, T_DATA, q->ptr, pk);
		q->ep->st.tx_data++;
		q->ptr++;
	}
	/* Credit does not pile up while there is nothing to send. */
	if (q->ptr == q->nxt && !q->cut && q->credit > 0)
		q->credit = 0;

	if (q->ptr != q->nxt || q->cut)
		t = now + 1;	/* paced: come back in a microsecond */
	else if (q->una != q->nxt)
		t = q->progress_us + q->ep->cfg.min_rto_us;
	if (q->una != q->nxt || q->cut || q->rate < q->ep->line_bps) {
		u64 d = q->dcqcn_us + DCQCN_T_US;

		if (!t || d < t)
			t = d;
	}
	if (t != q->armed_us) {
		q->armed_us = t;
		q->ep->ops->arm(q->ep->host, q->peer, t);
	}
}

static void *r_create(unsigned int id, unsigned int nhosts,
		      const struct sim_ep_config *cfg,
		      const struct sim_ep_ops *ops, void *host)
{
	struct rep *ep = sim_xcalloc(1, sizeof(*ep));

	ep->id = id;
	ep->nhosts = nhosts;
	ep->cfg = *cfg;
	if (ep->cfg.min_rto_us < RTO_US_MIN)
		ep->cfg.min_rto_us = RTO_US_MIN;
	ep->ops = ops;
	ep->host = host;
	ep->line_bps = cfg->gbps * 1e9;
	ep->qp = sim_xcalloc(nhosts, sizeof(*ep->qp));
	return ep;
}

static void r_destroy(void *arg)
{
	struct rep *ep = arg;
	unsigned int i;

	for (i = 0; i < ep->nhosts; i++) {
		struct rqp *q = ep->qp[i];
		struct rmsg *m;

		if (!q)
			continue;
		while ((m = q->head)) {
			q->head = m->next;
			free(m);
		}
		free(q);
	}
	free(ep->qp);
	free(ep);
}

static void r_post(void *arg, unsigned int dst, uint64_t len, uint64_t cookie,
		   uint64_t now)
{
	struct rep *ep = arg;
	struct rqp *q = qp_get(ep, dst);
	struct rmsg *m = sim_xcalloc(1, sizeof(*m));

	m->cookie = cookie;
	m->msn = q->next_msn++;
	m->len = len;
	if (q->tail)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
	if (!q->cut)
		q->cut = m;
	ep->outstanding++;
	if (!q->last_tick_us)
		q->last_tick_us = now;
	if (!q->dcqcn_us)
		q->dcqcn_us = now;
	send_pass(q, now);
}

/* The requester: @psn and everything before it are acknowledged. */
static void acked(struct rqp *q, u32 upto, u64 now)
{
	while ((int32_t)(upto - q->una) > 0) {
		struct rpkt *pk = &q->ring[q->una % QP_WINDOW];
		struct rmsg *m = pk->msg;

		m->acked += pk->len;
		q->una++;
		q->progress_us = now;
		while (q->head && q->head->acked == q->head->len &&
		       q->head->sent == q->head->len) {
			m = q->head;
			q->head = m->next;
			if (!q->head)
				q->tail = NULL;
			q->ep->st.msgs_completed++;
			q->ep->outstanding--;
			q->ep->ops->completed(q->ep->host, q->peer, m->cookie, now);
			free(m);
		}
	}
	if ((int32_t)(q->ptr - q->una) < 0)
		q->ptr = q->una;
}

static void r_rx(void *arg, unsigned int src, const void *buf,
		 unsigned int hdr_avail, unsigned int pkt_len, bool ce,
		 uint16_t sport, uint64_t now)
{
	struct rep *ep = arg;
	struct rqp *q = qp_get(ep, src);
	const u8 *h = buf;
	u32 psn, len, msg_len;

	if (hdr_avail < ACK_HDR) {
		ep->st.malformed++;
		return;
	}
	psn = get32(h + 4);
	switch (h[0]) {
	case T_DATA:
		len = get32(h + 20);
		msg_len = get32(h + 16);
		if (psn != q->epsn) {
			if ((int32_t)(psn - q->epsn) > 0) {
				ep->st.outside++;
				if (!q->nak_sent) {
					q->nak_sent = true;
					xmit(q, T_NAK, q->epsn, NULL);
				}
			} else {
				ep->st.duplicates++;
				xmit(q, T_ACK, q->epsn, NULL);
			}
			break;
		}
		q->epsn++;
		q->nak_sent = false;
		ep->st.rx_data++;
		ep->st.bytes_placed += len;
		ep->ops->placed(ep->host, src, len, now);
		/* In order, so a message's packets arrive in offset order. */
		q->rmsn_placed += len;
		if (q->rmsn_placed >= msg_len) {
			q->rmsn_placed = 0;
			ep->st.msgs_delivered++;
			ep->ops->delivered(ep->host, src, msg_len, now);
		}
		if (ce && now >= q->last_cnp_us + CNP_GAP_US) {
			q->last_cnp_us = now;
			xmit(q, T_CNP, 0, NULL);
		}
		if (++q->unacked >= 4 || !q->rmsn_placed) {
			q->unacked = 0;
			xmit(q, T_ACK, q->epsn, NULL);
		}
		break;
	case T_ACK:
		acked(q, psn, now);
		send_pass(q, now);
		break;
	case T_NAK:
		acked(q, psn, now);
		ep->st.lost++;
		q->ptr = psn;	/* go back N */
		send_pass(q, now);
		break;
	case T_CNP:
		ep->st.ecn_cuts++;
		q->target = q->rate;
		q->rate *= 1 - q->alpha / 2;
		if (q->rate < RATE_MIN_FRAC * ep->line_bps)
			q->rate = RATE_MIN_FRAC * ep->line_bps;
		q->alpha = (1 - DCQCN_G) * q->alpha + DCQCN_G;
		q->steps = 0;
		q->cnp_seen = true;
		break;
	default:
		ep->st.malformed++;
	}
}

static void r_timer(void *arg, unsigned int peer, uint64_t now)
{
	struct rep *ep = arg;
	struct rqp *q = ep->qp[peer];

	if (!q)
		return;
	q->armed_us = 0;
	send_pass(q, now);
}

static const struct sim_ep_stats *r_counters(const void *ep)
{
	return &((const struct rep *)ep)->st;
}

static uint64_t r_outstanding(const void *ep)
{
	return ((const struct rep *)ep)->outstanding;
}

const struct sim_transport sim_rocev2 = {
	.name = "rocev2",
	.create = r_create,
	.destroy = r_destroy,
	.post = r_post,
	.rx = r_rx,
	.timer = r_timer,
	.counters = r_counters,
	.outstanding = r_outstanding,
	.max_hdr = MAX_HDR,
	.data_hdr = DATA_HDR,
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Path choice and entropy: new packets go to the path with the most
 * room; a packet whose timer expired detours over a path that delivers;
 * a path whose route is found dead takes a new source port, and takes
 * its old one back once a route probe shows it works again.
 *
 * A path's port picks its route twice: the host's routing (with several
 * next hops to the peer, the local "plane") and the fabric's ECMP.  The
 * host's choice is visible (&mroce_paths_ops.route_plane), the fabric's
 * is not, so ports spread the paths evenly over the local next hops and
 * are otherwise random.
 */
#include <linux/math.h>
#include <linux/minmax.h>

#include "compat.h"
#include "multipath.h"

/**
 * mroce_paths_init() - a new connection's paths
 * @ps: the paths
 * @path: @n path records, zeroed; the caller initializes each one's send
 *	side (mroce_paths_init_path()) and port (mroce_paths_choose_port())
 * @n: their number
 * @ops: the host's routing
 * @pkt_bytes: bytes of a full DATA packet, headers included
 * @loss_cc: congestive loss cuts windows (id CC-LOSS)
 */
void mroce_paths_init(struct mroce_paths *ps, struct mroce_path *path,
		      unsigned int n, const struct mroce_paths_ops *ops,
		      u32 pkt_bytes, bool loss_cc)
{
	ps->path = path;
	ps->n = n;
	ps->ops = ops;
	ps->pkt_bytes = pkt_bytes;
	ps->loss_cc = loss_cc;
	mroce_lossmon_init(&ps->lossmon);
}

/**
 * mroce_paths_init_path() - the send side of a new connection's path @i
 * @ps: the paths (mroce_paths_init())
 * @i: the path
 * @min_rto_us: floor of its retransmission timeout
 * @init_rto_us: its timeout until an RTT is measured (at least @min_rto_us)
 * @delay_target_us: queueing delay that counts as a congestion mark, or 0
 *
 * The path starts with its part of the connection's initial window (id
 * CC-IW): a connection, not each of its paths, is what a peer sees
 * arrive, and many paths' windows at once would overrun the queue in
 * front of a receiver that many senders start towards together.
 */
void mroce_paths_init_path(struct mroce_paths *ps, unsigned int i,
			   u32 min_rto_us, u32 init_rto_us, u32 delay_target_us)
{
	struct mroce_txpath *tx = &ps->path[i].tx;

	mroce_txpath_init(tx, min_rto_us, delay_target_us);
	tx->rto_us = max(init_rto_us, min_rto_us);
	tx->cc.cwnd = DIV_ROUND_UP(MROCE_CWND_INIT, ps->n);
}

/*
 * An epoch of the connection's packets may end: if its loss was
 * congestive, every path halves its window, and the paths grow as one
 * while the connection's loss stays suspect (id CC-LOSS).
 */
static unsigned int paths_epoch(struct mroce_paths *ps, unsigned int acked)
{
	enum mroce_loss_verdict v = mroce_lossmon_acked(&ps->lossmon, acked);
	unsigned int j, cuts = 0;

	if (v == MROCE_LOSS_COUNTING)
		return 0;
	for (j = 0; j < ps->n; j++) {
		struct mroce_txpath *tx = &ps->path[j].tx;

		if (ps->loss_cc && v == MROCE_LOSS_CONGESTIVE &&
		    mroce_cc_on_congestive_loss(&tx->cc, tx->una, tx->nxt))
			cuts++;
		tx->cc.ai_paths = ps->loss_cc && ps->lossmon.hold ? ps->n : 1;
	}
	return cuts;
}

/**
 * mroce_paths_ack() - apply an ACK of path @i
 * @ps: the paths
 * @i: the ACK's path, below @ps->n
 * @now_us: current time
 * @pkt: the parsed ACK
 * @acked: called with the ctx of each packet newly acknowledged
 * @arg: passed to @acked
 * @res: filled with what the ACK did (mroce_txpath_ack())
 *
 * Packets found lost join the path's resend list; their sequences are
 * the last @res->lost entries.  An RTT sample also becomes the RTT
 * estimate of the paths without one of their own (id PATH-RTO-SEED), the
 * receiver's share paces the paths' new packets (id SHARE-PACE), the
 * other paths learn what this one delivered (&mroce_txpath.others_us, for
 * their tail probes, id PATH-TLP), and the ACK may end an epoch whose
 * loss was congestive (id CC-LOSS).
 *
 * Return: 0, or -EINVAL for an ACK of sequences never sent (ignored).
 */
int mroce_paths_ack(struct mroce_paths *ps, unsigned int i, u64 now_us,
		    const struct mroce_pkt *pkt,
		    void (*acked)(void *ctx, void *arg), void *arg,
		    struct mroce_ack_result *res)
{
	struct mroce_path *path = &ps->path[i];
	unsigned int j;
	int err;

	err = mroce_txpath_ack(&path->tx, now_us, pkt->psn, pkt->sack,
			       pkt->ce_count, acked, arg,
			       path->resend + path->nresend,
			       MROCE_WINDOW - path->nresend, res);
	if (err)
		return err;
	path->nresend += res->lost;
	if (res->acked)
		ps->heard_us = now_us;
	mroce_lossmon_lost(&ps->lossmon, res->lost);
	res->loss_cuts = paths_epoch(ps, res->acked);
	for (j = 0; res->acked && j < ps->n; j++)
		if (j != i)
			ps->path[j].tx.others_us = max(ps->path[j].tx.others_us,
						       path->tx.delivered_us);
	if (res->rtt_us) {
		for (j = 0; j < ps->n; j++)
			mroce_txpath_seed(&ps->path[j].tx, &path->tx);
		if (!ps->base_rtt_us || res->rtt_us <= ps->base_rtt_us ||
		    now_us - ps->base_rtt_stamp_us > MROCE_MIN_RTT_WIN_US) {
			ps->base_rtt_us = res->rtt_us;
			ps->base_rtt_stamp_us = now_us;
		}
	}
	mroce_pacer_set(&ps->pacer, pkt->share, pkt->capacity, ps->base_rtt_us,
			ps->pkt_bytes, now_us);
	return 0;
}

/**
 * mroce_paths_recover() - the losses path @i's clock finds before its RTO
 * @ps: the paths
 * @i: the path
 * @now_us: current time
 * @probe: set if the last packet found is a tail probe
 *
 * The packets (mroce_txpath_recover()) join the path's resend list, as
 * an ACK's losses do.  Called on each pass, before mroce_paths_expire().
 *
 * Return: their number; they are the last entries of the list.
 */
unsigned int mroce_paths_recover(struct mroce_paths *ps, unsigned int i,
				 u64 now_us, bool *probe)
{
	struct mroce_path *path = &ps->path[i];
	unsigned int n;

	*probe = false;
	if (path->nresend >= MROCE_WINDOW)
		return 0;
	n = mroce_txpath_recover(&path->tx, now_us, path->resend + path->nresend,
				 MROCE_WINDOW - path->nresend, probe);
	path->nresend += n;
	mroce_lossmon_lost(&ps->lossmon, n - *probe);
	return n;
}

/**
 * mroce_paths_expire() - handle one expiry of path @i's timer, if due
 * @ps: the paths
 * @i: the path
 * @now_us: current time
 * @delivered_us: mroce_paths_delivered(), taken before the first call
 *	of a pass: the evidence of a dead route (mroce_txpath_timeout())
 * @ex: filled with what the expiry did
 *
 * The packets due again join the path's resend list; each one's expiry
 * is silent if no ACK acknowledged anything since the packet was last
 * sent (id PATH-RETRY).  Called until it returns false, so that several
 * expiries due at once (a dead route's packets, backed-off ones) are all
 * handled in one pass.
 *
 * Return: true if the timer had expired (and @ex is filled).
 */
bool mroce_paths_expire(struct mroce_paths *ps, unsigned int i, u64 now_us,
			u64 delivered_us, struct mroce_expiry *ex)
{
	struct mroce_path *path = &ps->path[i];
	u32 *due = path->resend + path->nresend;
	struct mroce_txslot *slot;
	unsigned int k;

	if (path->nresend >= MROCE_WINDOW)
		return false;
	ex->first = !path->tx.backoff;
	ex->n = mroce_txpath_timeout(&path->tx, now_us, delivered_us, due,
				     MROCE_WINDOW - path->nresend);
	if (!ex->n)
		return false;
	ex->due = due;
	ex->dead = path->tx.dead;
	for (k = 0; k < ex->n; k++) {
		slot = mroce_txpath_slot(&path->tx, due[k]);
		if (ps->heard_us <= slot->xmit_us &&
		    slot->silent < MROCE_SLOT_SILENT_MAX)
			slot->silent++;
	}
	/* Not the loss monitor's: a dead route is no congestion (CC-LOSS). */
	path->nresend += ex->n;
	return true;
}

/**
 * mroce_paths_deadline() - when the paths next need the send pass
 * @ps: the paths
 *
 * Return: the earliest retransmission timer, route probe or end of a
 * wait for the share's credit, 0 if none.
 */
u64 mroce_paths_deadline(const struct mroce_paths *ps)
{
	u64 t = mroce_pacer_due(&ps->pacer), d;
	unsigned int i;

	for (i = 0; i < ps->n; i++) {
		d = mroce_txpath_deadline(&ps->path[i].tx);
		if (d && (!t || d < t))
			t = d;
		d = ps->path[i].home_sport ? ps->path[i].home_probe_us : 0;
		if (d && (!t || d < t))
			t = d;
	}
	return t;
}

/**
 * mroce_paths_hello_wait() - how long a HELLO waits for its answer
 * @ps: the paths
 * @sent: times HELLOs went so far, this one included
 *
 * Id HELLO-RESEND: the minimum RTO, doubling each time, at most
 * MROCE_HELLO_US.
 *
 * Return: microseconds.
 */
u32 mroce_paths_hello_wait(const struct mroce_paths *ps, unsigned int sent)
{
	u64 wait = ps->path[0].tx.min_rto_us;

	if (sent > 1)
		wait <<= min(sent - 1, 16U);
	return min_t(u64, max_t(u64, wait, 1), MROCE_HELLO_US);
}

/**
 * mroce_paths_hello_rto() - the paths' first RTO from the HELLO's round trip
 * @ps: the paths
 * @rtt_us: from the latest HELLO sent to the peer's answer
 *
 * Id RTT-HELLO: what a first RTT sample would make the RTO (three times
 * the sample, within the RTO's bounds) becomes the RTO of each path that
 * has no RTT estimate yet (its own or a seed), if shorter.  Not the smoothed RTT: the HELLO
 * met no queue, and the first flight's packets may (the probes timed by
 * the smoothed RTT would fire early).
 */
void mroce_paths_hello_rto(struct mroce_paths *ps, u64 rtt_us)
{
	u64 rto = 3 * max_t(u64, min_t(u64, rtt_us, MROCE_RTO_MAX_US), 1);
	unsigned int i;

	for (i = 0; i < ps->n; i++) {
		struct mroce_txpath *tx = &ps->path[i].tx;

		if (!tx->srtt_us)
			tx->rto_us = min_t(u64, tx->rto_us,
					   clamp_t(u64, rto, tx->min_rto_us,
						   MROCE_RTO_MAX_US));
	}
}

/**
 * mroce_hello_due() - how many HELLOs with dst_epoch 0 go now
 * @h: the connection's HELLOs
 * @ps: its paths
 * @now_us: current time
 *
 * None before @h->due_us; then MROCE_HELLO_COPIES at once (id
 * HELLO-COPIES), which the caller sends by the paths' ports in turn
 * (HELLO-SPRAY), and the next are due a wait later (HELLO-RESEND).
 *
 * Return: the number to send.
 */
unsigned int mroce_hello_due(struct mroce_hello *h,
			     const struct mroce_paths *ps, u64 now_us)
{
	if (now_us < h->due_us)
		return 0;
	if (h->sent < U8_MAX)
		h->sent++;
	h->due_us = now_us + mroce_paths_hello_wait(ps, h->sent);
	h->sent_us = now_us;
	return MROCE_HELLO_COPIES;
}

/**
 * mroce_hello_heard() - a packet addressed to this end's epoch came
 * @h: the connection's HELLOs
 * @ps: its paths
 * @now_us: current time
 *
 * The peer heard a HELLO: the first such packet times the paths' first
 * RTO (id RTT-HELLO).
 */
void mroce_hello_heard(struct mroce_hello *h, struct mroce_paths *ps,
		       u64 now_us)
{
	if (!h->sent_us)
		return;
	mroce_paths_hello_rto(ps, now_us - h->sent_us);
	h->sent_us = 0;
}

/**
 * mroce_paths_pass() - a send pass begins
 * @ps: the paths
 * @now_us: current time
 *
 * Refills the share's credit and finds the paths held back from new
 * packets (&mroce_paths.held) for the pass.
 */
void mroce_paths_pass(struct mroce_paths *ps, u64 now_us)
{
	bool fled = false;
	unsigned int i;

	mroce_pacer_refill(&ps->pacer, now_us);
	ps->held = 0;
	for (i = 0; i < ps->n; i++) {
		if (mroce_txpath_silent(&ps->path[i].tx, now_us))
			ps->held |= BIT_ULL(i);
		if (ps->path[i].home_sport)
			fled = true;
	}
	for (i = 0; fled && i < ps->n; i++)
		if (ps->path[i].plane &&
		    mroce_paths_plane_fled(ps, ps->path[i].plane))
			ps->held |= BIT_ULL(i);
}

/**
 * mroce_paths_pick() - the path for the next new packet
 * @ps: the paths
 *
 * The one with the most room; equal ones take turns.  A path that timed
 * out twice in a row (its route dead, or the peer silent) only carries
 * its own resends, one held (&mroce_paths.held) a new packet only when
 * it has none out, and one whose device is full (&mroce_paths_ops.
 * egress_room) none for now.  None while the receiver's share holds new
 * packets back (id SHARE-PACE).
 *
 * Return: the path's index, or -1 if none has room.
 */
int mroce_paths_pick(struct mroce_paths *ps)
{
	unsigned int i, best_room = 0, start = ps->rr++;
	int best = -1;

	if (!mroce_pacer_room(&ps->pacer))
		return -1;
	for (i = 0; i < ps->n; i++) {
		unsigned int p = (start + i) % ps->n;
		const struct mroce_txpath *tx = &ps->path[p].tx;
		unsigned int room = mroce_txpath_room(tx);

		if ((ps->held & BIT_ULL(p)) && mroce_txpath_inflight(tx))
			continue;
		if (tx->backoff >= 2 || room <= best_room ||
		    (ps->ops->egress_room && !ps->ops->egress_room(ps, p)))
			continue;
		best_room = room;
		best = p;
	}
	return best;
}

/**
 * mroce_paths_send() - give a new packet path @i's next sequence number
 * @ps: the paths
 * @i: the path mroce_paths_pick() chose
 * @now_us: current time
 * @ctx: the caller's handle for the packet (mroce_txpath_send())
 *
 * Return: the packet's sequence number.
 */
u32 mroce_paths_send(struct mroce_paths *ps, unsigned int i, u64 now_us,
		     void *ctx)
{
	mroce_pacer_spend(&ps->pacer);
	return mroce_txpath_send(&ps->path[i].tx, now_us, ctx);
}

/**
 * mroce_paths_resent() - a lost packet of path @i was sent again
 * @ps: the paths
 * @i: its path
 * @psn: its sequence number
 * @now_us: current time
 * @route: the path whose port it took (mroce_paths_detour()), or @i
 */
void mroce_paths_resent(struct mroce_paths *ps, unsigned int i, u32 psn,
			u64 now_us, unsigned int route)
{
	mroce_pacer_charge(&ps->pacer);
	mroce_txpath_resent(&ps->path[i].tx, psn, now_us, route != i);
}

/*
 * The route for a resend that avoids its path's own: that of another
 * path which delivers (no timeout pending, an RTT sample of its own, not
 * a seed), the candidates taking turns.  Preferred: one that has had a
 * packet sent at or after @sent_us acknowledged, then one on another
 * local next hop than @self's.  A route that failed with @self's (its
 * plane) need not have a timeout of its own yet, and would lose the
 * packet again.
 */
static unsigned int detour(struct mroce_paths *ps, unsigned int self,
			   u64 sent_us)
{
	unsigned int i, p, score, best = self, best_score = 0;
	const struct mroce_path *path;

	for (i = 0; i < ps->n; i++) {
		p = (ps->detour_rr + i) % ps->n;
		path = &ps->path[p];
		if (p == self || path->tx.backoff || !path->tx.srtt_us ||
		    path->tx.seeded)
			continue;
		score = 1 + 2 * (path->tx.delivered_us >= sent_us) +
			(!path->plane || path->plane != ps->path[self].plane);
		if (score > best_score) {
			best = p;
			best_score = score;
		}
	}
	if (best != self)
		ps->detour_rr = best + 1;
	return best;
}

/**
 * mroce_paths_resend_route() - the route for a resend of path @i
 * @ps: the paths
 * @i: the packet's path
 * @slot: the packet, found lost
 *
 * A packet lost to a SACK gap or the time rule was lost on a route that
 * delivers, and goes again by its own; one whose timer expired may have
 * been lost to a dead one, and a tail probe may ask whether another
 * route delivers (Documentation/wire-protocol.rst, "Paths", id
 * PATH-TLP): they are detoured.
 *
 * Return: the path whose port the packet travels with; @i if none.
 */
unsigned int mroce_paths_resend_route(struct mroce_paths *ps, unsigned int i,
				      const struct mroce_txslot *slot)
{
	if (!slot->expiries && !slot->reroute)
		return i;
	return detour(ps, i, slot->xmit_us);
}

/**
 * mroce_paths_delivered() - the newest delivery of any path
 * @ps: the paths
 *
 * Return: the send time of the newest packet, sent once, that any path
 * got acknowledged: the evidence mroce_txpath_timeout() weighs.
 */
u64 mroce_paths_delivered(const struct mroce_paths *ps)
{
	u64 delivered = 0;
	unsigned int i;

	for (i = 0; i < ps->n; i++)
		delivered = max(delivered, ps->path[i].tx.delivered_us);
	return delivered;
}

/**
 * mroce_paths_silent() - whether the peer has stopped answering
 * @ps: the paths
 *
 * Return: true if every path with packets in flight has expired
 * MROCE_BLIND_EXPIRIES times in a row (DEAD-PEER-QUIET).
 */
bool mroce_paths_silent(const struct mroce_paths *ps)
{
	unsigned int i;

	for (i = 0; i < ps->n; i++)
		if (mroce_txpath_deadline(&ps->path[i].tx) &&
		    ps->path[i].tx.backoff < MROCE_BLIND_EXPIRIES)
			return false;
	return true;
}

/* Paths other than @self whose port leads to @plane. */
static unsigned int plane_load(const struct mroce_paths *ps, unsigned int self,
			       u64 plane)
{
	unsigned int i, n = 0;

	for (i = 0; i < ps->n; i++)
		n += i != self && ps->path[i].sport &&
		     ps->path[i].plane == plane;
	return n;
}

/**
 * mroce_paths_plane_fled() - whether re-rolled paths must avoid a next hop
 * @ps: the paths
 * @plane: the local next hop
 *
 * A next hop a path left, its route found dead, and not proven since:
 * no route probe of the path's home port answered, and no path still on
 * it delivered a packet sent after the path left.  That second proof
 * matters when what failed was the path's reverse route (the peer's
 * ECMP hash of its ACKs): its own next hop works, and shunning it would
 * crowd every re-rolled path onto the few next hops left.
 *
 * Return: true if a path fled @plane and nothing has proven it since.
 */
bool mroce_paths_plane_fled(const struct mroce_paths *ps, u64 plane)
{
	const struct mroce_path *path;
	u64 left_us = 0;
	unsigned int i;

	for (i = 0; i < ps->n; i++) {
		path = &ps->path[i];
		if (path->home_sport && path->home_plane == plane)
			left_us = max(left_us, path->home_left_us);
	}
	if (!left_us)
		return false;
	for (i = 0; i < ps->n; i++) {
		path = &ps->path[i];
		if (path->sport && path->plane == plane &&
		    path->tx.delivered_us > left_us)
			return false;
	}
	return true;
}

/**
 * mroce_paths_choose_port() - give path @i a new port
 * @ps: the paths
 * @i: the path
 * @dead: a local next hop to avoid, or 0
 *
 * Of a few random ports (never the path's current or home port), the one
 * whose local next hop fewest other paths use, and never @dead nor one
 * that other paths fled (which, emptied, would otherwise look the least
 * loaded).  When the host's routing spreads the peer over several next
 * hops, the paths so cover them evenly and a re-rolled path leaves the
 * dead ones; behind a single next hop the choice is random, and the
 * fabric's ECMP spreads the paths.  Sets the path's @sport and @plane.
 */
void mroce_paths_choose_port(struct mroce_paths *ps, unsigned int i, u64 dead)
{
	struct mroce_path *path = &ps->path[i];
	unsigned int k, load, best_load = ~0U;
	u64 plane, best_plane = 0;
	u16 sport, best = 0;

	for (k = 0; k < MROCE_PORT_CANDIDATES || !best; k++) {
		sport = ps->ops->random_sport(ps);
		if (sport == path->sport || sport == path->home_sport)
			continue;
		plane = ps->ops->route_plane(ps, sport);
		/* Every candidate led to a dead next hop: take any port. */
		if (k >= MROCE_PORT_CANDIDATES) {
			best = sport;
			best_plane = plane;
			break;
		}
		if (plane && (plane == dead || mroce_paths_plane_fled(ps, plane)))
			continue;
		load = plane ? plane_load(ps, i, plane) : 0;
		if (load < best_load) {
			best_load = load;
			best = sport;
			best_plane = plane;
		}
	}
	path->sport = best;
	path->plane = best_plane;
}

/*
 * A port for ACKs that are lost with @cur (and with @data, the DATA's):
 * of a few random ones, one whose local next hop is neither of theirs
 * nor one this connection's paths fled; failing that, one of another
 * next hop though fled; failing that, any other port.
 */
static u16 other_ack_port(struct mroce_paths *ps, u16 cur, u16 data)
{
	u64 cur_plane = ps->ops->route_plane(ps, cur);
	u64 data_plane = data == cur ? cur_plane : ps->ops->route_plane(ps, data);
	u16 sport, other = 0, any = 0;
	unsigned int k;
	u64 plane;

	for (k = 0; k < MROCE_PORT_CANDIDATES; k++) {
		sport = ps->ops->random_sport(ps);
		if (sport == cur || sport == data)
			continue;
		any = any ?: sport;
		plane = ps->ops->route_plane(ps, sport);
		if (plane && (plane == cur_plane || plane == data_plane))
			continue;
		if (!plane || !mroce_paths_plane_fled(ps, plane))
			return sport;
		other = other ?: sport;
	}
	return other ?: any ?: cur;
}

/**
 * mroce_paths_ack_port() - the port a peer's path's ACKs leave with
 * @ps: the connection's paths
 * @rx: the receive side of the peer's path
 * @sport: the UDP source port of a DATA packet just received on it
 * @dup: the packet was a duplicate
 *
 * Ids ACK-PORT and ACK-PORT-MOVE.  The move is remembered with the DATA
 * port it was made for, so that a detour's DATA in between does not undo
 * it.
 */
void mroce_paths_ack_port(struct mroce_paths *ps, struct mroce_rxwin *rx,
			  u16 sport, bool dup)
{
	if (dup) {
		rx->sport = other_ack_port(ps, rx->sport, sport);
		rx->data_sport = sport;
		rx->moved_from = sport;
		rx->moved_to = rx->sport;
	} else if (sport != rx->data_sport) {
		rx->data_sport = sport;
		rx->sport = sport == rx->moved_from ? rx->moved_to : sport;
	}
}

/* Path @i has a new port: its cached route and base RTT were the old one's. */
static void path_moved(struct mroce_paths *ps, unsigned int i, u64 now_us)
{
	ps->ops->moved(ps, i);
	mroce_txpath_new_route(&ps->path[i].tx, now_us);
}

/**
 * mroce_paths_spread() - spread idle paths over the local next hops
 * @ps: the paths
 * @now_us: current time
 *
 * The routing to the peer may have changed since the ports were chosen
 * (next hops added, or none known then).  Each path with nothing in
 * flight and no failure pending moves to a port whose next hop has at
 * least two paths fewer than its own.
 */
void mroce_paths_spread(struct mroce_paths *ps, u64 now_us)
{
	struct mroce_path *path;
	unsigned int i, load;
	u64 old_plane;
	u16 old;

	for (i = 0; i < ps->n; i++)
		ps->path[i].plane = ps->ops->route_plane(ps, ps->path[i].sport);
	for (i = 0; i < ps->n; i++) {
		path = &ps->path[i];
		if (!path->plane || path->home_sport ||
		    mroce_txpath_inflight(&path->tx))
			continue;
		old = path->sport;
		old_plane = path->plane;
		load = plane_load(ps, i, old_plane);
		mroce_paths_choose_port(ps, i, 0);
		if (!path->plane || plane_load(ps, i, path->plane) + 2 > load) {
			path->sport = old;	/* no better: keep the route */
			path->plane = old_plane;
		} else {
			path_moved(ps, i, now_us);
		}
	}
}

/**
 * mroce_paths_reroll() - give path @i, its route found dead, a new port
 * @ps: the paths
 * @i: the path
 * @now_us: current time
 *
 * The new source port is a new ECMP hash, so with luck a different
 * route (certainly a different local next hop, if the host's routing
 * offers another).  The port the path had before this failure becomes
 * its home: it is probed (mroce_paths_probe_due()), and taken back once
 * it answers (mroce_paths_return()).
 */
void mroce_paths_reroll(struct mroce_paths *ps, unsigned int i, u64 now_us)
{
	struct mroce_path *path = &ps->path[i];
	u64 old_plane = ps->ops->route_plane(ps, path->sport);

	if (!path->home_sport) {
		path->home_sport = path->sport;
		path->home_plane = old_plane;
		path->home_left_us = now_us;
		/* Found dead at an expiry: the window before the episode. */
		path->home_cwnd = mroce_cc_episode_cwnd(&path->tx.cc);
	}
	path->home_until_us = now_us + MROCE_HOME_KEEP_US;
	path->home_probe_us = now_us + MROCE_HOME_PROBE_US;
	mroce_paths_choose_port(ps, i, old_plane);
	path_moved(ps, i, now_us);
	path->rerolls++;
}

/**
 * mroce_paths_return() - move path @i back to its home port
 * @ps: the paths
 * @i: the path; its home port answered a route probe
 * @now_us: current time
 *
 * Paths re-rolled away from a failure crowd the routes that were left;
 * once the failed one works again, they spread out as before.  While the
 * host's routing sends the home port to another next hop than it did
 * (the failed one went down), the answer says nothing of the failed
 * route and the path stays: moving it would only crowd another route.
 * Back home, it takes the window it had there (mroce_txpath_route_back()).
 *
 * Return: true if the path moved.
 */
bool mroce_paths_return(struct mroce_paths *ps, unsigned int i, u64 now_us)
{
	struct mroce_path *path = &ps->path[i];
	u64 plane = ps->ops->route_plane(ps, path->home_sport);

	if (plane && path->home_plane && plane != path->home_plane)
		return false;

	path->sport = path->home_sport;
	path->plane = plane;
	path->home_sport = 0;
	path_moved(ps, i, now_us);
	mroce_txpath_route_back(&path->tx, path->home_cwnd);
	return true;
}

/**
 * mroce_paths_probe_due() - whether to probe path @i's home port now
 * @ps: the paths
 * @i: the path
 * @now_us: current time
 *
 * A path moved off a dead route asks now and then, for a while, whether
 * its old port works again; after MROCE_HOME_KEEP_US it gives up.
 *
 * Return: true if the caller is to send the probe; the next one is due
 * MROCE_HOME_PROBE_US later.
 */
bool mroce_paths_probe_due(struct mroce_paths *ps, unsigned int i, u64 now_us)
{
	struct mroce_path *path = &ps->path[i];

	if (!path->home_sport || now_us < path->home_probe_us)
		return false;
	if (now_us >= path->home_until_us) {
		path->home_sport = 0;
		return false;
	}
	path->home_probe_us = now_us + MROCE_HOME_PROBE_US;
	return true;
}

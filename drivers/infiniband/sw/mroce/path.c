// SPDX-License-Identifier: GPL-2.0-only
/*
 * Path logic: the selective-ACK window on both sides, loss detection and
 * the RTT estimator of one path; its window is cc.c's.
 *
 * A path is an ordered sequence stream: once packets sent after another
 * one have been acknowledged, the earlier one is lost, not late.  The only
 * slack is MROCE_REORDER_PKTS sequence numbers, for links that reorder a
 * little anyway.
 *
 * Loss and congestion are kept apart: on a lossy fabric, losing a packet
 * says little about load, so a loss only causes the packet to be sent
 * again.  ECN marks (and timeouts, which may mean a dead route) go to
 * congestion control.
 */
#include <linux/minmax.h>
#include <linux/string.h>

#include "compat.h"
#include "path.h"

/**
 * mroce_rxwin_check() - classify an arriving sequence number
 * @w: the path's receive window
 * @psn: the packet's sequence number
 *
 * Return: MROCE_RX_NEW for a packet to process, MROCE_RX_DUP for one
 * already received, MROCE_RX_OUTSIDE for one beyond the window.
 */
enum mroce_rx_verdict mroce_rxwin_check(const struct mroce_rxwin *w, u32 psn)
{
	u32 d = psn - w->cum;

	if ((s32)d < 0)
		return MROCE_RX_DUP;
	if (!d)
		return MROCE_RX_NEW;
	if (d > MROCE_SACK_BITS)
		return MROCE_RX_OUTSIDE;
	return test_bit(d - 1, w->map) ? MROCE_RX_DUP : MROCE_RX_NEW;
}

/**
 * mroce_rxwin_record() - record a packet mroce_rxwin_check() called new
 * @w: the path's receive window
 * @psn: the packet's sequence number
 *
 * Return: true if @psn was the next in order (the cumulative point moved).
 */
bool mroce_rxwin_record(struct mroce_rxwin *w, u32 psn)
{
	u32 d = psn - w->cum;
	unsigned int run;

	if ((s32)d < 0 || d > MROCE_SACK_BITS)
		return false;
	if (d) {
		set_bit(d - 1, w->map);
		return false;
	}

	/* @psn fills the hole at @cum; skip the run received after it. */
	run = find_first_zero_bit(w->map, MROCE_SACK_BITS);
	w->cum += run + 1;
	if (run + 1 >= MROCE_SACK_BITS)
		bitmap_zero(w->map, MROCE_SACK_BITS);
	else
		bitmap_shift_right(w->map, w->map, run + 1, MROCE_SACK_BITS);
	return true;
}

/**
 * mroce_rxwin_sack() - the window's bitmap in wire order
 * @w: the path's receive window
 * @sack: MROCE_SACK_BITS / 8 bytes; bit i is byte i / 8, bit i % 8
 */
void mroce_rxwin_sack(const struct mroce_rxwin *w, u8 *sack)
{
	u32 words[MROCE_SACK_BITS / 32];
	unsigned int i;

	bitmap_to_arr32(words, w->map, MROCE_SACK_BITS);
	for (i = 0; i < ARRAY_SIZE(words); i++)
		put_unaligned_le32(words[i], sack + 4 * i);
}

/**
 * mroce_rxwin_data() - record a new DATA packet of the path
 * @w: the path's receive window; mroce_rxwin_check() called @psn new
 * @psn: the packet's sequence number
 * @ce: it arrived CE-marked
 * @ack_req: it carries ACK_REQ
 *
 * Documentation/wire-protocol.rst, "Receiver": an ACK is owed after
 * every second packet, and at once for one out of order or with
 * ACK_REQ (and, the caller's part, when a message completes or is NAKed).
 *
 * Return: true if an ACK of the path is due now.
 */
bool mroce_rxwin_data(struct mroce_rxwin *w, u32 psn, bool ce, bool ack_req)
{
	bool in_order = mroce_rxwin_record(w, psn);

	if (ce)
		w->ce_count++;
	w->unacked++;
	return !in_order || ack_req || w->unacked >= 2;
}

/**
 * mroce_rxwin_ack() - the ACK that reports a path's receive window
 * @w: the window
 * @path: the path's id
 * @sack: MROCE_SACK_BITS / 8 bytes, filled with the bitmap
 * @pkt: filled with the ACK's fields; the epochs, flags and stream
 *	records are the caller's
 *
 * The window then owes no ACK.
 */
void mroce_rxwin_ack(struct mroce_rxwin *w, unsigned int path, u8 *sack,
		     struct mroce_pkt *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->type = MROCE_PKT_ACK;
	pkt->path = path;
	pkt->psn = w->cum;
	pkt->sack = sack;
	pkt->ce_count = w->ce_count;
	pkt->share = 0xffff;	/* "Congestion control": no limit */
	mroce_rxwin_sack(w, sack);
	w->unacked = 0;
}

static bool sack_test(const u8 *sack, u32 bit)
{
	return sack[bit / 8] & (1U << (bit % 8));
}

/**
 * mroce_txpath_init() - reset the send side of a path
 * @tp: the path
 * @min_rto_us: floor of the retransmission timeout
 * @delay_target_us: queueing delay that counts as a congestion mark, or 0
 */
void mroce_txpath_init(struct mroce_txpath *tp, u32 min_rto_us,
		       u32 delay_target_us)
{
	memset(tp, 0, sizeof(*tp));
	mroce_cc_init(&tp->cc, delay_target_us);
	tp->min_rto_us = min_rto_us;
	tp->rto_us = max(MROCE_RTO_INIT_US, min_rto_us);
}

/* Reverse the order of the packets of slots [@from, @to). */
static void slots_reverse(struct mroce_txpath *tp, unsigned int from,
			  unsigned int to)
{
	while (from + 1 < to) {
		swap(tp->slot[from].ctx, tp->slot[to - 1].ctx);
		from++;
		to--;
	}
}

/**
 * mroce_txpath_restart() - the peer restarted: sequences start over at 0
 * @tp: the path
 * @keep: says whether an outstanding packet (by its ctx) is to be sent
 *	again in the new sequence space; one it refuses goes to @release
 * @release: gives up the ctx of a packet that will not be sent again
 * @arg: passed to @keep and @release
 * @psns: filled with the new sequences of the kept packets, each waiting
 *	to be sent (MROCE_SLOT_LOST) as the caller's resends are; room for
 *	MROCE_WINDOW
 *
 * Sequence numbers start at 0 for each pair of epochs, and the packets in
 * flight were sent to the earlier incarnation (Documentation/
 * wire-protocol.rst, "Connections and epochs").  The measurements of the
 * route (RTT, RTO) and congestion control's stay (mroce_cc_restart()):
 * the network is the same.
 *
 * Return: the number of kept packets, in their old order.
 */
unsigned int mroce_txpath_restart(struct mroce_txpath *tp,
				  bool (*keep)(void *ctx, void *arg),
				  void (*release)(void *ctx, void *arg),
				  void *arg, u32 *psns)
{
	u32 srtt = tp->srtt_us, rttvar = tp->rttvar_us, rto = tp->rto_us;
	u32 min_rto = tp->min_rto_us;
	bool seeded = tp->seeded;
	u64 route = tp->route_us, lost = tp->lost;
	struct mroce_cc cc = tp->cc;
	unsigned int first = tp->una & (MROCE_WINDOW - 1), n = 0, i;
	u32 psn;

	for (psn = tp->una; psn != tp->nxt; psn++) {
		struct mroce_txslot *slot = mroce_txpath_slot(tp, psn);

		if (slot->ctx && slot->state != MROCE_SLOT_ACKED &&
		    !keep(slot->ctx, arg)) {
			release(slot->ctx, arg);
			slot->ctx = NULL;
		}
		if (slot->state == MROCE_SLOT_ACKED)
			slot->ctx = NULL;
	}
	/*
	 * The kept packets, oldest first, to slots 0 to n - 1: rotate the
	 * window so that @una's slot comes first, then close the gaps.
	 */
	slots_reverse(tp, 0, first);
	slots_reverse(tp, first, MROCE_WINDOW);
	slots_reverse(tp, 0, MROCE_WINDOW);
	for (i = 0; i < MROCE_WINDOW; i++) {
		void *ctx = tp->slot[i].ctx;

		memset(&tp->slot[i], 0, sizeof(tp->slot[i]));
		if (ctx)
			tp->slot[n++].ctx = ctx;
	}

	memset(tp, 0, offsetof(struct mroce_txpath, slot));
	tp->cc = cc;
	mroce_cc_restart(&tp->cc);
	tp->srtt_us = srtt;
	tp->rttvar_us = rttvar;
	tp->rto_us = rto;
	tp->min_rto_us = min_rto;
	tp->seeded = seeded;
	tp->route_us = route;
	tp->lost = lost;
	for (i = 0; i < n; i++) {
		tp->slot[i].state = MROCE_SLOT_LOST;
		psns[i] = i;
	}
	tp->nxt = n;
	tp->lost_pending = n;
	return n;
}

/* A new flight: every tail probe, blind or not, may be sent again. */
static void tlp_rearm(struct mroce_txpath *tp)
{
	tp->probes = 0;
	tp->blind = 0;
}

/**
 * mroce_txpath_new_route() - the path's packets take another route now
 * @tp: the path
 * @now_us: current time
 *
 * Packets sent before now travelled the old route: their expiry is no
 * evidence against the new one.
 */
void mroce_txpath_new_route(struct mroce_txpath *tp, u64 now_us)
{
	mroce_cc_on_new_route(&tp->cc);
	tp->route_us = now_us;
	tlp_rearm(tp);	/* the old route's probes say nothing of this one */
	tp->failed = false;
	tp->progress_us = now_us;
}

/**
 * mroce_txpath_route_back() - the path is back on a route it had left
 * @tp: the path
 * @cwnd: the window the path had on that route before it failed
 *
 * The route answered a probe: whatever timeout episode the path had
 * elsewhere ends, so the path carries new packets at once, with the
 * window it had there (mroce_cc_on_route_back()).
 */
void mroce_txpath_route_back(struct mroce_txpath *tp, u32 cwnd)
{
	tp->backoff = 0;
	tp->dead = false;
	tp->failed = false;
	tlp_rearm(tp);
	mroce_cc_on_route_back(&tp->cc, cwnd);
}

/**
 * mroce_txpath_room() - how many new packets the path may send now
 * @tp: the path
 *
 * Bounded by the congestion window over packets still in the network and
 * by the receiver's window over the whole span since @tp->una.
 */
unsigned int mroce_txpath_room(const struct mroce_txpath *tp)
{
	u32 span = tp->nxt - tp->una;
	u32 pipe = mroce_txpath_pipe(tp);
	u32 cwnd = min_t(u32, tp->cc.cwnd, MROCE_WINDOW);

	if (span >= MROCE_WINDOW || pipe >= cwnd)
		return 0;
	return min(cwnd - pipe, MROCE_WINDOW - span);
}

struct mroce_txslot *mroce_txpath_slot(struct mroce_txpath *tp, u32 psn)
{
	return &tp->slot[psn % MROCE_WINDOW];
}

/**
 * mroce_txpath_send() - give a new packet the path's next sequence number
 * @tp: the path; mroce_txpath_room() must be non-zero
 * @now_us: current time
 * @ctx: the caller's handle for the packet, passed back when it is
 *	acknowledged
 *
 * Return: the packet's sequence number.
 */
u32 mroce_txpath_send(struct mroce_txpath *tp, u64 now_us, void *ctx)
{
	struct mroce_txslot *slot;
	u32 psn;

	if (!mroce_txpath_pipe(tp))
		tp->progress_us = now_us;	/* into an empty network */
	psn = tp->nxt++;
	slot = mroce_txpath_slot(tp, psn);
	slot->ctx = ctx;
	slot->xmit_us = now_us;
	slot->first_us = now_us;
	slot->order = ++tp->xmits;
	slot->state = MROCE_SLOT_INFLIGHT;
	slot->sends = 1;
	slot->proven = false;
	slot->expiries = 0;
	slot->silent = 0;
	slot->detour = false;
	slot->reroute = false;
	tp->last_xmit_us = now_us;
	return psn;
}

/**
 * mroce_txpath_resent() - note that a packet was sent again
 * @tp: the path
 * @psn: its sequence number, outstanding
 * @now_us: current time
 * @detour: it went by another path's route
 */
void mroce_txpath_resent(struct mroce_txpath *tp, u32 psn, u64 now_us,
			 bool detour)
{
	struct mroce_txslot *slot = mroce_txpath_slot(tp, psn);

	if (!mroce_txpath_pipe(tp))
		tp->progress_us = now_us;	/* into an empty network */
	if (slot->state == MROCE_SLOT_LOST)
		tp->lost_pending--;
	slot->state = MROCE_SLOT_INFLIGHT;
	slot->xmit_us = now_us;
	slot->order = ++tp->xmits;
	slot->detour = detour;
	slot->reroute = false;
	if (slot->sends < MROCE_SLOT_SENDS_MAX)
		slot->sends++;
	tp->last_xmit_us = now_us;
}

/**
 * mroce_rtt_sample() - feed one RTT measurement to the estimator
 * @tp: the path
 * @rtt_us: the measurement
 *
 * RFC 6298, section 2, with a 1 us clock granularity.
 */
void mroce_rtt_sample(struct mroce_txpath *tp, u32 rtt_us)
{
	u32 delta;

	rtt_us = max(rtt_us, 1U);
	if (!tp->srtt_us || tp->seeded) {
		tp->srtt_us = rtt_us;
		tp->rttvar_us = rtt_us / 2;
		tp->seeded = false;
	} else {
		delta = tp->srtt_us > rtt_us ? tp->srtt_us - rtt_us :
					       rtt_us - tp->srtt_us;
		tp->rttvar_us = (3 * tp->rttvar_us + delta) / 4;
		tp->srtt_us = (7 * tp->srtt_us + rtt_us) / 8;
	}
	tp->rto_us = clamp(tp->srtt_us + max(1U, 4 * tp->rttvar_us),
			   tp->min_rto_us, MROCE_RTO_MAX_US);
}

/**
 * mroce_txpath_seed() - another path of the connection measured its RTT
 * @tp: the path
 * @from: the path that took the sample
 *
 * A path with no sample of its own takes @from's estimate (id
 * PATH-RTO-SEED): its timer, and with it the tail probe and the time
 * rule, which need an RTT; without them a path whose first packets were
 * lost waits out whole RTOs.  Its own first sample replaces the seed.
 */
void mroce_txpath_seed(struct mroce_txpath *tp, const struct mroce_txpath *from)
{
	if (tp == from || (tp->srtt_us && !tp->seeded))
		return;
	tp->srtt_us = from->srtt_us;
	tp->rttvar_us = from->rttvar_us;
	tp->rto_us = max(from->rto_us, tp->min_rto_us);
	tp->seeded = true;
}

/*
 * How long after its transmission a packet is overdue once a packet sent
 * after it on the path was acknowledged (id PATH-RACK): the smoothed RTT
 * and a reordering allowance of a quarter of it, or of the RTT variance
 * where that is larger (a route whose RTT varies that much reorders as
 * much).
 */
static u32 rack_wait(const struct mroce_txpath *tp)
{
	return tp->srtt_us + max(tp->srtt_us / 4, tp->rttvar_us);
}

/*
 * Whether @slot is a candidate for the time rule: in flight and sent
 * before the latest transmission acknowledged.
 */
static bool rack_candidate(const struct mroce_txpath *tp,
			   const struct mroce_txslot *slot)
{
	return slot->state == MROCE_SLOT_INFLIGHT &&
	       mroce_seq_before(slot->order, tp->rack_order);
}

/*
 * Whether a scan of the sequences for packets sent before the latest one
 * acknowledged can stop at @slot: first transmissions go out in sequence
 * order, so past a packet sent once after it, every packet was sent
 * after it too.
 */
static bool rack_scan_done(const struct mroce_txpath *tp,
			   const struct mroce_txslot *slot)
{
	return slot->sends == 1 && !mroce_seq_before(slot->order, tp->rack_order);
}

/*
 * Since when the path may be silent: its latest sign of life, if another
 * path has delivered a packet sent after it (the network delivers), or
 * else never.
 */
static u64 silent_since(const struct mroce_txpath *tp)
{
	return tp->others_us > tp->progress_us ? tp->progress_us : U64_MAX;
}

/**
 * mroce_txpath_silent() - whether the path hears nothing back
 * @tp: the path
 * @now_us: current time
 *
 * Id PATH-SILENT: it has packets out and has had no sign of life for two
 * smoothed RTTs, while another path delivered a packet sent after the
 * latest.  A path that keeps sending into a dead route would otherwise
 * lose a whole window before its timer says so.
 *
 * Return: true if it is silent.
 */
bool mroce_txpath_silent(const struct mroce_txpath *tp, u64 now_us)
{
	u64 since = silent_since(tp);

	return tp->srtt_us && tp->una != tp->nxt && since != U64_MAX &&
	       now_us >= since + 2ULL * tp->srtt_us;
}

/*
 * Whether the next tail probe goes without the other paths' evidence
 * that the network delivers: past MROCE_TLP_QUEUED probes, while no other
 * path has delivered a packet sent after the path's latest transmission.
 */
static bool tlp_blind(const struct mroce_txpath *tp)
{
	return tp->probes - tp->blind >= MROCE_TLP_QUEUED &&
	       tp->others_us <= tp->last_xmit_us;
}

/*
 * When the next tail probe is due, or 0 if none is (id PATH-TLP): two
 * smoothed RTTs after the path's latest transmission, or after it fell
 * silent if that is earlier.  Blind ones (tlp_blind()) wait four and
 * eight, and leave the probes the evidence allows for when it comes.
 * The deadline and the probe itself both ask here, so the timer never
 * fires for a probe that will not be sent.
 */
static u64 tlp_due(const struct mroce_txpath *tp)
{
	u64 wait = 2ULL * tp->srtt_us;

	if (tlp_blind(tp)) {
		if (tp->blind >= MROCE_TLP_MAX - MROCE_TLP_QUEUED)
			return 0;
		wait <<= tp->blind + 1;
	} else if (tp->probes - tp->blind >= MROCE_TLP_MAX) {
		return 0;
	}
	return min(tp->last_xmit_us, silent_since(tp)) + wait;
}

/*
 * Whether a packet other than @skip is missing on the path's current
 * route: in flight on its own port, sent on it after the newest packet
 * the path got acknowledged and before @before_us.  The evidence of a
 * dead route (route_dead(), route_failed()) is such a packet.
 */
static bool own_missing(const struct mroce_txpath *tp,
			const struct mroce_txslot *skip, u64 before_us)
{
	u32 psn;

	for (psn = tp->una; psn != tp->nxt; psn++) {
		const struct mroce_txslot *slot = &tp->slot[psn % MROCE_WINDOW];

		if (slot != skip && slot->state == MROCE_SLOT_INFLIGHT &&
		    !slot->detour && slot->xmit_us >= tp->route_us &&
		    slot->xmit_us > tp->delivered_us && slot->xmit_us < before_us)
			return true;
	}
	return false;
}

/*
 * Is the route dead, now that a detoured packet sent at @detour_us got
 * through (id PATH-DEAD-DETOUR)?  It is if a packet the path sent on its
 * current port more than its smoothed RTT before that is still missing,
 * and nothing the path sent once since that packet was acknowledged.
 */
static bool route_failed(const struct mroce_txpath *tp, u64 detour_us)
{
	return detour_us > tp->srtt_us &&
	       own_missing(tp, NULL, detour_us - tp->srtt_us);
}

/* A packet found lost waits, out of the pipe, for the caller's resend. */
static void mark_lost(struct mroce_txpath *tp, struct mroce_txslot *slot)
{
	slot->state = MROCE_SLOT_LOST;
	tp->lost_pending++;
	tp->lost++;
}

/* The time rule found it lost, so its first delay is never sampled. */
static void rack_lost(struct mroce_txpath *tp, struct mroce_txslot *slot)
{
	mark_lost(tp, slot);
	slot->proven = true;
}

/*
 * Whether a packet sent again was acknowledged sooner after its latest
 * transmission than any round trip, and so got through on an earlier
 * one, only late (id PATH-RTT-LATE).
 */
static bool first_late(const struct mroce_txpath *tp,
		       const struct mroce_txslot *slot, u64 now_us)
{
	return !slot->proven && tp->srtt_us && !tp->seeded &&
	       now_us - slot->xmit_us < tp->srtt_us / 2;
}

/**
 * mroce_txpath_ack() - apply an ACK of this path
 * @tp: the path
 * @now_us: current time
 * @cum: the ACK's cumulative sequence
 * @sack: the ACK's bitmap, MROCE_SACK_BITS bits in wire order
 * @ce_count: the ACK's count of CE-marked packets
 * @acked: called with each newly acknowledged packet's handle and @arg
 * @arg: passed to @acked
 * @lost: filled with the sequences of packets newly found lost
 * @max_lost: room in @lost; further losses are found by a later ACK
 * @res: what the ACK did
 *
 * Return: 0, or -EINVAL for an ACK of sequences never sent (ignored).
 */
int mroce_txpath_ack(struct mroce_txpath *tp, u64 now_us, u32 cum,
		     const u8 *sack, u16 ce_count,
		     void (*acked)(void *ctx, void *arg), void *arg,
		     u32 *lost, unsigned int max_lost,
		     struct mroce_ack_result *res)
{
	u64 newest_once = 0, late = 0, detour_us = 0;
	struct mroce_cc_ack cca;
	bool own_route = false, timed_out = false;
	u16 ce;
	u32 psn;

	memset(res, 0, sizeof(*res));
	if (mroce_seq_before(tp->nxt, cum))
		return -EINVAL;

	for (psn = tp->una; psn != tp->nxt; psn++) {
		struct mroce_txslot *slot = mroce_txpath_slot(tp, psn);
		u32 d = psn - cum;

		if (slot->state == MROCE_SLOT_ACKED)
			continue;
		if ((s32)d >= 0 && (!d || d > MROCE_SACK_BITS ||
				    !sack_test(sack, d - 1)))
			continue;

		if (slot->state == MROCE_SLOT_LOST)
			tp->lost_pending--;
		slot->state = MROCE_SLOT_ACKED;
		tp->sacked++;
		res->acked++;
		/*
		 * Karn: only a packet sent once says which transmission got
		 * through, for the RTT and for the order of transmissions.
		 */
		if (slot->sends == 1) {
			newest_once = max(newest_once, slot->xmit_us);
			if (mroce_seq_before(tp->rack_order, slot->order))
				tp->rack_order = slot->order;
		} else if (!slot->detour && slot->first_us >= tp->route_us) {
			/* Sent again on the path's own route: PATH-RTT-LATE. */
			if (first_late(tp, slot, now_us)) {
				late = max(late, now_us - slot->first_us);
				if (slot->expiries)
					res->spurious++;
			} else if (slot->expiries) {
				timed_out = true;
			}
		}
		if (!slot->detour)
			own_route = true;
		else
			detour_us = max(detour_us, slot->xmit_us);
		if (mroce_seq_before(tp->high_acked, psn))
			tp->high_acked = psn;
		acked(slot->ctx, arg);
		slot->ctx = NULL;
	}

	while (tp->una != tp->nxt &&
	       mroce_txpath_slot(tp, tp->una)->state == MROCE_SLOT_ACKED) {
		mroce_txpath_slot(tp, tp->una)->state = MROCE_SLOT_FREE;
		tp->sacked--;
		tp->una++;
	}

	if (res->acked) {
		tlp_rearm(tp);
		tp->progress_us = now_us;
		/*
		 * Delivery over the path's own route ends a timeout episode.
		 * Detoured packets getting through only say the peer is
		 * alive: the route stays suspect, but the timer need not back
		 * off further, so a dead route is found again within two RTOs.
		 */
		if (own_route) {
			/*
			 * Karn: with no sample to set it, the RTO keeps the
			 * episode's doubling (id PATH-RTO-KARN).
			 */
			if (timed_out && !newest_once && !late)
				tp->rto_us = mroce_txpath_rto(tp);
			tp->backoff = 0;
			tp->dead = false;
			tp->failed = false;
		} else {
			tp->backoff = min(tp->backoff, 1U);
			tp->heard = true;
			tp->failed = tp->failed || route_failed(tp, detour_us);
		}
		tp->delivered_us = max(tp->delivered_us, newest_once);
		if (newest_once && now_us >= newest_once) {
			res->rtt_us = min_t(u64, now_us - newest_once, U32_MAX);
			mroce_rtt_sample(tp, res->rtt_us);
		}
	}
	if (late)
		mroce_rtt_sample(tp, min_t(u64, late, U32_MAX));
	if (res->spurious)	/* the timeout's window cut was the delay's */
		mroce_cc_on_spurious_timeout(&tp->cc);

	/*
	 * Lost: sent before an acknowledged packet that is at least
	 * MROCE_REORDER_PKTS sequence numbers further on, or overdue
	 * (PATH-RACK).  A packet sent again is judged only by packets sent
	 * after it.
	 */
	for (psn = tp->una; psn != tp->nxt && res->lost < max_lost; psn++) {
		struct mroce_txslot *slot = mroce_txpath_slot(tp, psn);
		bool gap = !mroce_seq_before(tp->high_acked, psn + MROCE_REORDER_PKTS);

		if (!gap && (!tp->srtt_us || rack_scan_done(tp, slot)))
			break;
		if (!rack_candidate(tp, slot) ||
		    (!gap && now_us < slot->xmit_us + rack_wait(tp)))
			continue;
		rack_lost(tp, slot);
		lost[res->lost++] = psn;
	}

	/* ACKs may arrive reordered: only a count that moved on is news. */
	ce = ce_count - tp->ce_seen;
	if ((s16)ce < 0)
		ce = 0;
	else
		tp->ce_seen = ce_count;
	cca = (struct mroce_cc_ack) {
		.now_us = now_us, .una = tp->una, .nxt = tp->nxt,
		.rtt_us = res->rtt_us, .acked = res->acked, .ce = ce,
	};
	res->congested = mroce_cc_on_ack(&tp->cc, &cca, &res->delayed);
	return 0;
}

/*
 * The packet in flight sent longest ago.  First transmissions go out in
 * sequence order, and a packet is sent again only after its first
 * transmission, so nothing after the first packet in flight that was
 * sent only once can be older: the scan stops there, usually within a
 * few packets of @tp->una (it runs on every pass of the send work).
 */
static struct mroce_txslot *oldest_outstanding(const struct mroce_txpath *tp,
					       u32 *oldest)
{
	const struct mroce_txslot *found = NULL;
	u32 psn;

	for (psn = tp->una; psn != tp->nxt; psn++) {
		const struct mroce_txslot *slot = &tp->slot[psn % MROCE_WINDOW];

		/* LOST packets wait for the caller, not for the timer. */
		if (slot->state != MROCE_SLOT_INFLIGHT)
			continue;
		if (!found || slot->xmit_us < found->xmit_us) {
			found = slot;
			*oldest = psn;
		}
		if (slot->sends == 1)
			break;
	}
	return (struct mroce_txslot *)found;
}

/**
 * mroce_txpath_deadline() - when the path's retransmission timer expires
 * @tp: the path
 *
 * Return: the expiry time, or 0 when no packet is in flight.
 */
u64 mroce_txpath_deadline(const struct mroce_txpath *tp)
{
	struct mroce_txslot *slot;
	u64 t, d;
	u32 psn;

	slot = oldest_outstanding(tp, &psn);
	if (!slot)
		return 0;
	if (tp->failed)
		return slot->xmit_us;	/* due now */
	t = slot->xmit_us + mroce_txpath_rto(tp);
	if (!tp->srtt_us)
		return t;
	d = tlp_due(tp);
	if (d)
		t = min(t, d);
	for (psn = tp->una; psn != tp->nxt; psn++) {
		const struct mroce_txslot *s = &tp->slot[psn % MROCE_WINDOW];

		if (rack_scan_done(tp, s))
			break;
		if (rack_candidate(tp, s)) {
			d = s->xmit_us + rack_wait(tp);
			t = min(t, d);
		}
	}
	return t;
}

/**
 * mroce_txpath_recover() - losses the clock finds before the RTO does
 * @tp: the path
 * @now_us: current time
 * @psns: filled with the packets to send again
 * @max: room in @psns, at least 1
 * @probe: set if the last of them is a tail probe
 *
 * A packet sent before one since acknowledged is lost once it is overdue
 * (id PATH-RACK).  Failing that, a path whose latest transmission has
 * gone unanswered for two smoothed RTTs (or more: tlp_due()) sends its
 * newest packet in flight again, to draw an ACK that shows what else was lost (id PATH-TLP): the
 * last packets of a burst have none sent after them to find their loss.
 * A flight has up to MROCE_TLP_MAX probes, and blind ones beside, until
 * an ACK acknowledges something (tlp_due()).
 * Neither backs the timer off nor cuts the window: the route delivers,
 * the loss is the fabric's.
 *
 * Return: the number of packets in @psns.
 */
unsigned int mroce_txpath_recover(struct mroce_txpath *tp, u64 now_us,
				  u32 *psns, unsigned int max, bool *probe)
{
	struct mroce_txslot *slot, *newest = NULL;
	unsigned int n = 0;
	u32 psn, newest_psn = 0;
	u64 due;

	*probe = false;
	if (!tp->srtt_us)
		return 0;
	for (psn = tp->una; psn != tp->nxt && n < max; psn++) {
		slot = mroce_txpath_slot(tp, psn);
		if (rack_scan_done(tp, slot))
			break;
		if (rack_candidate(tp, slot) &&
		    now_us >= slot->xmit_us + rack_wait(tp)) {
			rack_lost(tp, slot);
			psns[n++] = psn;
		}
	}
	/* Packets waiting for their resend: their sending is the next word. */
	due = tlp_due(tp);
	if (n || tp->lost_pending || !due || now_us < due)
		return n;

	for (psn = tp->una; psn != tp->nxt; psn++) {
		slot = mroce_txpath_slot(tp, psn);
		if (slot->state == MROCE_SLOT_INFLIGHT &&
		    (!newest || mroce_seq_before(newest->order, slot->order))) {
			newest = slot;
			newest_psn = psn;
		}
	}
	if (!newest)
		return 0;
	newest->state = MROCE_SLOT_LOST;
	/*
	 * A probe after transmissions that heard nothing back, and every
	 * second one, asks whether another route gets through.
	 */
	newest->reroute = silent_since(tp) < tp->last_xmit_us || tp->probes % 2;
	tp->lost_pending++;
	if (tlp_blind(tp))
		tp->blind++;
	tp->probes++;
	tp->progress_us = now_us;
	psns[0] = newest_psn;
	*probe = true;
	return 1;
}

/* Take a packet the timer gave up on out of the pipe, for resending. */
static void expire(struct mroce_txpath *tp, struct mroce_txslot *slot)
{
	if (slot->expiries < U8_MAX)
		slot->expiries++;
	mark_lost(tp, slot);
}

/*
 * Is the route of an expired packet dead already?  Other paths' routes
 * delivered a packet sent more than this path's RTT after it while this
 * one delivered nothing sent after it, and it carries another packet,
 * sent after its newest delivered one and before that delivery.  A
 * route that only lost a packet gets later ones through; a peer or host
 * that stalls holds back every path alike; a route that is only slower
 * than the others (a longer queue) is slower by less than its own RTT.
 * Sent after, not at: many packets share a microsecond.
 */
static bool route_dead(const struct mroce_txpath *tp,
		       const struct mroce_txslot *expired, u64 newest_us)
{
	if (expired->detour || expired->xmit_us < tp->route_us ||
	    newest_us <= expired->xmit_us + tp->srtt_us ||
	    tp->delivered_us > expired->xmit_us)
		return false;
	/* Sent after @expired, the oldest: on the current port too. */
	return own_missing(tp, expired, newest_us);
}

/**
 * mroce_txpath_timeout() - handle the retransmission timer
 * @tp: the path
 * @now_us: current time
 * @newest_us: send time of the newest packet the connection's paths
 *	got acknowledged (the latest of their @delivered_us), 0 if none;
 *	that of @tp itself may be among them: it counts only while older
 *	than the expired packet, and then cannot be the evidence
 * @psns: filled with the packets to send again, the expired one first
 * @max: room in @psns, at least 1
 *
 * If the oldest outstanding packet has waited a whole (backed-off) RTO,
 * it is due again, the timeout doubles and the window halves; at once if
 * a detoured packet showed the route dead (@tp->failed, id
 * PATH-DEAD-DETOUR), and then the route is found dead.  The first
 * expiry of an episode may be a late ACK, so only that packet is given
 * up, unless other paths show the route dead (route_dead()).  A later
 * expiry in a row without delivery over the path's own route finds the
 * route dead if the peer was heard meanwhile: a detoured packet of the
 * path got through, or another path got one through that was sent more
 * than an RTT after the packet that began the episode.  A peer or host
 * that stalls holds back every path alike, and moving the paths would
 * only lose routes that work; after MROCE_BLIND_EXPIRIES in a row the
 * route is taken for dead even so.  A packet sent before the path took
 * its current port finds no route dead.  When the route is found dead,
 * every packet still on it is due again and the window collapses to one
 * packet; the caller re-rolls the path's source port (@tp->dead) and
 * sends the packets by other paths' routes.
 *
 * Return: the number of packets in @psns, 0 if the timer has not expired.
 */
unsigned int mroce_txpath_timeout(struct mroce_txpath *tp, u64 now_us,
				  u64 newest_us, u32 *psns, unsigned int max)
{
	struct mroce_txslot *slot = oldest_outstanding(tp, psns);
	unsigned int n = 1;
	bool first, failed;
	u32 psn;

	if (!slot)
		return 0;
	failed = tp->failed;
	if (!failed && slot->xmit_us + mroce_txpath_rto(tp) > now_us)
		return 0;

	tp->failed = false;
	expire(tp, slot);
	first = !tp->backoff;
	if (first) {
		tp->episode_us = slot->xmit_us;
		tp->heard = false;
		/* With evidence of a dead route, as if it were the second. */
		tp->dead = failed || route_dead(tp, slot, newest_us);
		if (tp->dead)
			tp->backoff++;
	} else {
		tp->dead = failed || (slot->xmit_us >= tp->route_us &&
				      (tp->heard ||
				       newest_us > tp->episode_us + tp->srtt_us ||
				       tp->backoff + 1 >= MROCE_BLIND_EXPIRIES));
	}
	tp->backoff++;
	mroce_cc_on_timeout(&tp->cc, tp->nxt, first, tp->dead);
	if (!tp->dead)
		return n;

	for (psn = tp->una; psn != tp->nxt && n < max; psn++) {
		slot = mroce_txpath_slot(tp, psn);
		/* Detoured packets are not on the dead route. */
		if (slot->state != MROCE_SLOT_INFLIGHT || slot->detour)
			continue;
		expire(tp, slot);
		psns[n++] = psn;
	}
	return n;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Congestion control of one path: ECN (and, on fabrics that do not mark,
 * queueing delay) AIMD over a window of packets, cut by timeouts and
 * restored when a timeout proves spurious (Documentation/
 * wire-protocol.rst, "Congestion control").
 *
 * One packet lost says little about load on a lossy fabric, so path.c
 * only sends it again; a connection losing well beyond what it loses
 * anyway is congested (mroce_lossmon_acked()).
 */
#include <linux/minmax.h>
#include <linux/string.h>

#include "compat.h"
#include "cc.h"

/**
 * mroce_cc_init() - the congestion state of a new path
 * @cc: the state
 * @delay_target_us: queueing delay that counts as a congestion mark, or 0
 */
void mroce_cc_init(struct mroce_cc *cc, u32 delay_target_us)
{
	memset(cc, 0, sizeof(*cc));
	cc->cwnd = MROCE_CWND_INIT;
	cc->ssthresh = MROCE_CWND_MAX;
	cc->ai_paths = 1;
	/* Until measured, a mark is taken as seriously as loss in TCP. */
	cc->alpha = MROCE_ALPHA_ONE;
	cc->delay_target_us = delay_target_us;
}

/**
 * mroce_cc_restart() - the path's sequence space starts over
 * @cc: the state
 *
 * What refers to sequence numbers (the recovery point, the observation
 * window, a timeout episode) goes; what measures the network (window,
 * threshold, marked fraction, base RTT) stays: the network is the same.
 */
void mroce_cc_restart(struct mroce_cc *cc)
{
	cc->cwnd_acc = 0;
	cc->recover = 0;
	cc->alpha_end = 0;
	cc->win_acked = 0;
	cc->win_ce = 0;
	cc->undo_cwnd = 0;
	cc->undo_ssthresh = 0;
	cc->undo_valid = false;
}

/*
 * Multiplicative decrease by @cut packets, at most once per window of
 * data; the window stays at least 1.
 */
static bool cwnd_cut(struct mroce_cc *cc, u32 una, u32 nxt, u32 cut)
{
	if (mroce_seq_before(una, cc->recover))
		return false;
	cc->cwnd = max(cc->cwnd - min(cut, cc->cwnd), 1U);
	cc->ssthresh = max(cc->cwnd, 2U);
	cc->cwnd_acc = 0;
	cc->recover = nxt;
	cc->undo_valid = false;	/* real congestion: nothing to undo */
	return true;
}

/*
 * For marks, by half the marked fraction (RFC 8257): a queue that marks
 * a few packets per window costs a few percent of the window, one that
 * marks them all halves it.
 */
static bool cwnd_decrease(struct mroce_cc *cc, const struct mroce_cc_ack *ack)
{
	u32 cut = (u64)cc->cwnd * cc->alpha / (2 * MROCE_ALPHA_ONE);

	return cwnd_cut(cc, ack->una, ack->nxt, max(cut, 1U));
}

/*
 * Fold an ACK into the marked fraction; once a window of data (everything
 * sent when the observation window began) is acknowledged, average it in.
 */
static void alpha_update(struct mroce_cc *cc, const struct mroce_cc_ack *ack,
			 unsigned int marked)
{
	u32 frac;

	cc->win_acked += ack->acked;
	cc->win_ce += marked;
	if (mroce_seq_before(ack->una, cc->alpha_end) || !cc->win_acked)
		return;
	frac = min_t(u64, (u64)cc->win_ce * MROCE_ALPHA_ONE / cc->win_acked,
		     MROCE_ALPHA_ONE);
	cc->alpha = cc->alpha - (cc->alpha >> MROCE_ALPHA_SHIFT) +
		    (frac >> MROCE_ALPHA_SHIFT);
	cc->win_acked = 0;
	cc->win_ce = 0;
	cc->alpha_end = ack->nxt;
}

/*
 * A fabric without ECN marking says nothing before its queues overflow,
 * and loss is no congestion signal here: a sample that many
 * microseconds above the path's base RTT marks the packets of its ACK
 * as a marking queue would, so windows stop short of filling the queue.
 */
static unsigned int delay_marks(struct mroce_cc *cc,
				const struct mroce_cc_ack *ack)
{
	if (!cc->delay_target_us || !ack->rtt_us)
		return 0;
	if (!cc->min_rtt_us || ack->rtt_us <= cc->min_rtt_us ||
	    ack->now_us - cc->min_rtt_stamp_us > MROCE_MIN_RTT_WIN_US) {
		cc->min_rtt_us = ack->rtt_us;
		cc->min_rtt_stamp_us = ack->now_us;
	}
	return ack->rtt_us > cc->min_rtt_us + cc->delay_target_us ?
	       ack->acked : 0;
}

static void cwnd_increase(struct mroce_cc *cc, unsigned int acked)
{
	if (cc->cwnd < cc->ssthresh) {
		cc->cwnd += acked;
	} else {
		cc->cwnd_acc += acked;
		while (cc->cwnd_acc >= cc->cwnd * cc->ai_paths) {
			cc->cwnd_acc -= cc->cwnd * cc->ai_paths;
			cc->cwnd++;
		}
	}
	cc->cwnd = min_t(u32, cc->cwnd, MROCE_CWND_MAX);
}

/**
 * mroce_cc_on_ack() - an ACK of the path was applied
 * @cc: the state
 * @ack: what it told
 * @delayed: set to the packets counted as marked for their RTT
 *
 * Return: true if the window was decreased.
 */
bool mroce_cc_on_ack(struct mroce_cc *cc, const struct mroce_cc_ack *ack,
		     unsigned int *delayed)
{
	*delayed = delay_marks(cc, ack);
	alpha_update(cc, ack, ack->ce + *delayed);
	if (ack->ce || *delayed)
		return cwnd_decrease(cc, ack);
	if (ack->acked)
		cwnd_increase(cc, ack->acked);
	return false;
}

/**
 * mroce_cc_on_congestive_loss() - the connection's loss was congestive
 * @cc: the state of one of its paths
 * @una: the path's oldest unacknowledged sequence
 * @nxt: the path's next new sequence
 *
 * Halves the window, as TCP does on loss (id CC-LOSS): a queue that
 * drops rather than marks has shown the rate too high.
 *
 * Return: true if the window was decreased.
 */
bool mroce_cc_on_congestive_loss(struct mroce_cc *cc, u32 una, u32 nxt)
{
	return cwnd_cut(cc, una, nxt, max(cc->cwnd / 2, 1U));
}

/**
 * mroce_cc_on_spurious_timeout() - a timeout of the episode was premature
 * @cc: the state
 *
 * Undoes the episode's window cut, unless a mark has cut it since.
 */
void mroce_cc_on_spurious_timeout(struct mroce_cc *cc)
{
	if (!cc->undo_valid)
		return;
	cc->cwnd = max(cc->cwnd, cc->undo_cwnd);
	cc->ssthresh = max(cc->ssthresh, cc->undo_ssthresh);
	cc->undo_valid = false;
}

/**
 * mroce_cc_on_timeout() - the path's retransmission timer expired
 * @cc: the state
 * @nxt: the path's next new sequence
 * @first: the expiry begins a timeout episode
 * @dead: it found the path's route dead, and the path moves to another
 *
 * A timeout halves the window; a dead route's successor starts from one
 * packet, and what the old route carried before the episode says how far
 * slow start may go on it.
 */
void mroce_cc_on_timeout(struct mroce_cc *cc, u32 nxt, bool first, bool dead)
{
	if (first) {
		/* Remember what the episode takes away. */
		cc->undo_cwnd = cc->cwnd;
		cc->undo_ssthresh = cc->ssthresh;
		cc->undo_valid = true;
	}
	cc->cwnd_acc = 0;
	cc->recover = nxt;
	if (dead) {
		cc->ssthresh = max(cc->undo_cwnd / 2, 2U);
		cc->cwnd = 1;
	} else {
		cc->ssthresh = max(cc->cwnd / 2, 2U);
		cc->cwnd = cc->ssthresh;
	}
}

/**
 * mroce_cc_on_new_route() - the path's packets take another route now
 * @cc: the state
 *
 * The new route's base RTT is unknown: the next sample is its first.
 */
void mroce_cc_on_new_route(struct mroce_cc *cc)
{
	cc->min_rtt_us = 0;
}

/**
 * mroce_cc_on_route_back() - the path is back on a route it had left
 * @cc: the state
 * @cwnd: the window the path had on that route before it failed
 *	(mroce_cc_episode_cwnd() then)
 *
 * The window from the crowded route the path fled to is no measure of
 * this one, and additive increase from there would take many RTTs; the
 * window it had here before the failure is, and the path takes it back.
 * (Slow start instead overflowed the route's queue when several paths
 * came back together: their windows doubled faster than delay marks
 * could stop.)
 */
void mroce_cc_on_route_back(struct mroce_cc *cc, u32 cwnd)
{
	cc->cwnd = clamp(cwnd, cc->cwnd, MROCE_CWND_MAX);
	cc->cwnd_acc = 0;
}

/**
 * mroce_lossmon_init() - the loss monitor of a new connection
 * @lm: the monitor
 *
 * The floor starts where random loss is common, so a lossy link's first
 * epochs are not taken for congestion; an overflowing queue's losses
 * still are, and the floor sinks on a link that loses nothing else.
 */
void mroce_lossmon_init(struct mroce_lossmon *lm)
{
	memset(lm, 0, sizeof(*lm));
	lm->floor = MROCE_LOSS_FLOOR_INIT;
}

/**
 * mroce_lossmon_acked() - packets of the connection were acknowledged
 * @lm: the connection's loss monitor
 * @acked: their number
 *
 * Judges an epoch once it holds MROCE_LOSS_EPOCH_PKTS packets
 * acknowledged or lost (id CC-LOSS), then learns the floor from it.
 *
 * Return: the verdict.
 */
enum mroce_loss_verdict mroce_lossmon_acked(struct mroce_lossmon *lm,
					    unsigned int acked)
{
	u64 lost, bound;
	u32 n, frac;
	bool congestive;

	lm->acked += acked;
	n = lm->acked + lm->lost;
	if (n < MROCE_LOSS_EPOCH_PKTS)
		return MROCE_LOSS_COUNTING;
	/*
	 * Over twice the loss the floor predicts, and six packets more.  The
	 * floor learns no more than that bound from an epoch: an overflowing
	 * queue's bursts would raise it until they passed for random.
	 */
	lost = (u64)lm->lost * MROCE_ALPHA_ONE;
	bound = 2 * ((u64)lm->floor * n +
		     MROCE_LOSS_SLACK_PKTS * MROCE_ALPHA_ONE);
	congestive = lost > bound;
	frac = min(lost, bound) / n;
	lm->floor = min_t(u32, lm->floor - (lm->floor >> MROCE_LOSS_FLOOR_SHIFT) +
			  (frac >> MROCE_LOSS_FLOOR_SHIFT), MROCE_LOSS_FLOOR_MAX);
	lm->acked = 0;
	lm->lost = 0;
	if (congestive) {
		lm->hold = MROCE_LOSS_HOLD_EPOCHS;
		return MROCE_LOSS_CONGESTIVE;
	}
	if (lm->hold)
		lm->hold--;
	return MROCE_LOSS_RANDOM;
}

/* Credit of one packet, in the pacer's units: bits times MROCE_SHARE_ONE. */
static u64 pacer_cost(u32 pkt_bytes)
{
	return (u64)pkt_bytes * 8 * MROCE_SHARE_ONE;
}

/* The credit a pacer has most: more while a packet waits (id SHARE-PACE). */
static u64 pacer_bound(const struct mroce_pacer *pc, u64 now_us)
{
	if (!pc->blocked || now_us <= pc->wait_us)
		return pc->depth;
	return pc->depth +
	       min_t(u64, now_us - pc->wait_us, MROCE_PACE_LATE_MAX_US) * pc->rate;
}

static void pacer_accrue(struct mroce_pacer *pc, u64 now_us)
{
	u64 earned, pay;

	if (now_us <= pc->stamp_us)
		return;
	/* A second at most: the product stays well within 64 bits. */
	earned = min_t(u64, now_us - pc->stamp_us, MROCE_RTO_MAX_US) * pc->rate;
	pay = min(pc->debt, earned);
	pc->debt -= pay;
	pc->credit = min(pacer_bound(pc, now_us), pc->credit + earned - pay);
	pc->stamp_us = now_us;
}

/**
 * mroce_pacer_refill() - bring a pacer's credit up to @now_us
 * @pc: the pacer
 * @now_us: current time
 *
 * Called as each send pass begins; the pass's packets then find out
 * afresh whether they must wait (mroce_pacer_room()).
 */
void mroce_pacer_refill(struct mroce_pacer *pc, u64 now_us)
{
	if (pc->rate)
		pacer_accrue(pc, now_us);
	pc->blocked = false;
}

/**
 * mroce_pacer_set() - the receiver's share, as its latest ACK gives it
 * @pc: the connection's pacer
 * @share: in 1/MROCE_SHARE_ONE of @capacity_mbps
 * @capacity_mbps: the receiver's inbound capacity; 0 if it gave none
 * @base_rtt_us: the connection's base RTT, 0 until measured
 * @pkt_bytes: bytes of one full packet, headers included
 * @now_us: current time
 *
 * New packets go out at the share's rate, in bursts of at most the
 * share's worth of a base RTT (two packets at least), or of the time a
 * packet waited for a late send pass: id SHARE-PACE.
 * A share of all of the capacity, or none given, is no bound.
 */
void mroce_pacer_set(struct mroce_pacer *pc, u16 share, u32 capacity_mbps,
		     u32 base_rtt_us, u32 pkt_bytes, u64 now_us)
{
	u64 rate = 0, burst;

	if (capacity_mbps && pkt_bytes && share < MROCE_SHARE_ONE)
		rate = (u64)min(capacity_mbps, MROCE_CAPACITY_MAX) * share;
	if (!rate) {
		pc->rate = 0;
		return;
	}
	if (pc->rate)
		pacer_accrue(pc, now_us);
	else
		pc->stamp_us = now_us;	/* a first bound starts with a full bucket */
	burst = rate * min(base_rtt_us, MROCE_RTO_MAX_US);
	pc->cost = pacer_cost(pkt_bytes);
	pc->depth = max(burst, 2 * pc->cost);
	if (!pc->rate) {
		pc->credit = pc->depth;
		pc->debt = 0;
		pc->blocked = false;
	}
	pc->credit = min(pc->credit, pacer_bound(pc, now_us));
	pc->debt = min(pc->debt, (u64)MROCE_CWND_MAX * pc->cost);
	pc->rate = rate;
}

/**
 * mroce_pacer_room() - whether a new packet may go now
 * @pc: the pacer
 *
 * Return: true if it may; if not, the pacer is blocked until
 * mroce_pacer_due().
 */
bool mroce_pacer_room(struct mroce_pacer *pc)
{
	if (!pc->rate || (!pc->debt && pc->credit >= pc->cost))
		return true;
	if (!pc->blocked)
		pc->wait_us = pc->stamp_us;
	pc->blocked = true;
	return false;
}

/**
 * mroce_pacer_spend() - a new packet went
 * @pc: the pacer; mroce_pacer_room() said it may
 */
void mroce_pacer_spend(struct mroce_pacer *pc)
{
	if (pc->rate)
		pc->credit -= min(pc->credit, pc->cost);
}

/**
 * mroce_pacer_charge() - a packet was sent again
 * @pc: the pacer
 *
 * A resend does not wait for credit (it replaces a packet already
 * counted, and holding it back would hold back what the receiver
 * waits for), but it takes its credit, as a debt if need be, which
 * new packets then wait for: lost packets are resent within the share,
 * not on top of it.
 */
void mroce_pacer_charge(struct mroce_pacer *pc)
{
	if (!pc->rate)
		return;
	if (pc->credit >= pc->cost) {
		pc->credit -= pc->cost;
		return;
	}
	pc->debt = min(pc->debt + pc->cost - pc->credit,
		       (u64)MROCE_CWND_MAX * pc->cost);
	pc->credit = 0;
}

/**
 * mroce_pacer_due() - when a blocked pacer has credit for a packet
 * @pc: the pacer
 *
 * Return: that time, or 0 if no packet waits for credit.
 */
u64 mroce_pacer_due(const struct mroce_pacer *pc)
{
	if (!pc->blocked || !pc->rate)
		return 0;
	return pc->stamp_us +
	       (pc->debt + pc->cost - pc->credit + pc->rate - 1) / pc->rate;
}

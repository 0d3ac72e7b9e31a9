// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receiver's share: a node divides its inbound capacity max-min
 * fairly among the peers sending to it (Documentation/wire-protocol.rst,
 * "Receiver's share").  Every active peer is offered the same level;
 * peers that the latest period found using less than half of it are
 * limited elsewhere, so what they use is set aside and the rest is
 * divided among the others.
 */
#include <linux/minmax.h>
#include <linux/string.h>

#include "compat.h"
#include "share.h"

/**
 * mroce_share_init() - a receiver's share with no active peer
 * @sh: the state
 * @capacity_mbps: inbound capacity in Mbit/s (at most MROCE_CAPACITY_MAX);
 *	0 if unknown: ACKs then give no share
 * @hold_us: how long a peer stays active after its latest new DATA packet
 *	(1 us to 1 s)
 */
void mroce_share_init(struct mroce_share *sh, u32 capacity_mbps, u32 hold_us)
{
	memset(sh, 0, sizeof(*sh));
	sh->capacity_mbps = min(capacity_mbps, MROCE_CAPACITY_MAX);
	/* At most a second: a period's bytes times 2^19 stay within 64 bits. */
	sh->hold_us = clamp(hold_us, 1U, MROCE_RTO_MAX_US);
	sh->level = MROCE_SHARE_ONE;
}

/* id SHARE-LEVEL: what is not set aside, divided among the rest. */
static void set_level(struct mroce_share *sh)
{
	u32 others = sh->nactive - sh->nsat;
	u64 left = MROCE_SHARE_ONE - min_t(u64, sh->sat_rate, MROCE_SHARE_ONE);
	u64 level = others ? left / others : left;
	u32 floor = MROCE_SHARE_ONE / max(sh->nactive, 1U);

	sh->level = clamp_t(u64, max_t(u64, level, floor), 1, MROCE_SHARE_ONE);
}

static void set_aside(struct mroce_share *sh, struct mroce_share_peer *p,
		      bool satisfied, u32 rate)
{
	if (p->satisfied) {
		sh->nsat--;
		sh->sat_rate -= p->rate;
	}
	p->satisfied = satisfied;
	p->rate = satisfied ? rate : 0;
	if (satisfied) {
		sh->nsat++;
		sh->sat_rate += rate;
	}
}

/**
 * mroce_share_activate() - peer @p sent new DATA and was not active
 * @sh: the receiver's share
 * @p: the peer (mroce_share_rx() said so)
 * @now_us: current time
 *
 * The peer takes its part of the capacity at once: the level falls
 * before the ACK of its packet is built.  The caller makes sure the
 * peers are scanned (mroce_share_scan_due()) from now on.
 */
void mroce_share_activate(struct mroce_share *sh, struct mroce_share_peer *p,
			  u64 now_us)
{
	if (!sh->nactive)
		sh->period_us = now_us;
	p->active = true;
	p->since_us = now_us;
	sh->nactive++;
	set_aside(sh, p, false, 0);
	set_level(sh);
}

/**
 * mroce_share_scan_due() - whether the peers are due to be measured
 * @sh: the receiver's share
 * @now_us: current time
 *
 * Return: true if a period has passed since the last scan and a peer is
 * active; the caller then calls mroce_share_scan_peer() for every peer
 * and mroce_share_scan_end().
 */
bool mroce_share_scan_due(const struct mroce_share *sh, u64 now_us)
{
	return sh->nactive &&
	       now_us - sh->period_us >= mroce_share_period_us(sh);
}

/**
 * mroce_share_scan_peer() - measure one peer at the end of a period
 * @sh: the receiver's share
 * @p: the peer
 * @now_us: current time
 * @hole: a packet of the peer is missing from one of its paths' receive
 *	windows (mroce_rxwin_hole()): it still has that packet to send
 *
 * A peer silent for the hold time, with no packet missing, is no longer
 * active (id SHARE-ACTIVE); one active for the whole period, with no
 * packet missing and none of the period's CE-marked, is satisfied if it
 * sent less than half the level (id SHARE-LEVEL).
 */
void mroce_share_scan_peer(struct mroce_share *sh, struct mroce_share_peer *p,
			   u64 now_us, bool hole)
{
	/*
	 * Signed: a packet that arrived while the caller's scan was under
	 * way may be newer than @now_us.
	 */
	s64 span = now_us - sh->period_us;
	u64 bytes = p->bytes, rate;
	bool ce = p->ce;

	p->bytes = 0;
	p->ce = false;
	if (!p->active)
		return;
	if ((s64)(now_us - p->last_us) > (s64)sh->hold_us && !hole) {
		mroce_share_forget(sh, p);
		return;
	}
	if (!sh->capacity_mbps || span <= 0 || p->since_us > sh->period_us ||
	    hole || ce) {
		set_aside(sh, p, false, 0);
		return;
	}
	/* Bytes per microsecond times 8 is Mbit/s. */
	rate = bytes * 8 * MROCE_SHARE_ONE / (u64)span / sh->capacity_mbps;
	set_aside(sh, p, rate < sh->level / 2, rate);
}

/**
 * mroce_share_scan_end() - every peer was measured: the new level
 * @sh: the receiver's share
 * @now_us: current time, the start of the next period
 */
void mroce_share_scan_end(struct mroce_share *sh, u64 now_us)
{
	sh->period_us = now_us;
	set_level(sh);
}

/**
 * mroce_share_forget() - peer @p is no longer active
 * @sh: the receiver's share
 * @p: the peer: gone quiet, or its connection going away
 */
void mroce_share_forget(struct mroce_share *sh, struct mroce_share_peer *p)
{
	if (!p->active)
		return;
	set_aside(sh, p, false, 0);
	p->active = false;
	sh->nactive--;
	set_level(sh);
}

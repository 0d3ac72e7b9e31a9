/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The receiver's share (Documentation/wire-protocol.rst, "Receiver's
 * share"): how a node divides its inbound capacity among the peers that
 * send to it, max-min fairly, and the share each ACK then carries.
 * Pure logic, like cc.c: times and byte counts come in as arguments, and
 * the caller owns the locking (the kernel's is described in fairshare.c).
 */
#ifndef MROCE_SHARE_H
#define MROCE_SHARE_H

#include <linux/types.h>

#include "params.h"

/**
 * struct mroce_share_peer - what the receiver knows of one sending peer
 * @last_us: arrival of its latest new DATA packet
 * @since_us: when it became active
 * @bytes: DATA payload bytes it delivered in the current period
 * @active: it has sent new DATA within the hold time, or has a packet
 *	missing (id SHARE-ACTIVE)
 * @satisfied: the latest period found it sending below half the level:
 *	what limits it is elsewhere, and its rate is set aside for it
 * @rate: its rate over the latest period, in units of the capacity's
 *	1/MROCE_SHARE_ONE (set while @satisfied)
 * @ce: a DATA packet of the current period arrived CE-marked
 */
struct mroce_share_peer {
	u64 last_us;
	u64 since_us;
	u64 bytes;
	bool active;
	bool satisfied;
	bool ce;
	u32 rate;
};

/**
 * struct mroce_share - a receiver's division of its inbound capacity
 * @capacity_mbps: inbound capacity, Mbit/s; 0: unknown, no share is given
 * @hold_us: a peer is active this long after its latest new DATA packet
 * @nactive: active peers
 * @nsat: of them, satisfied ones
 * @sat_rate: the rates set aside for the satisfied ones, summed
 * @level: the share of every other peer, in 1/MROCE_SHARE_ONE of the
 *	capacity: what each ACK carries
 * @period_us: start of the current measurement period
 */
struct mroce_share {
	u32 capacity_mbps;
	u32 hold_us;
	u32 nactive;
	u32 nsat;
	u64 sat_rate;
	u16 level;
	u64 period_us;
};

void mroce_share_init(struct mroce_share *sh, u32 capacity_mbps, u32 hold_us);
void mroce_share_activate(struct mroce_share *sh, struct mroce_share_peer *p,
			  u64 now_us);
bool mroce_share_scan_due(const struct mroce_share *sh, u64 now_us);
void mroce_share_scan_peer(struct mroce_share *sh, struct mroce_share_peer *p,
			   u64 now_us, bool hole);
void mroce_share_scan_end(struct mroce_share *sh, u64 now_us);
void mroce_share_forget(struct mroce_share *sh, struct mroce_share_peer *p);

/**
 * mroce_share_rx() - a new DATA packet arrived from peer @p
 * @p: the sending peer
 * @now_us: current time
 * @bytes: its payload
 * @ce: it arrived CE-marked
 *
 * Touches only @p, so that the hot path needs no lock of the receiver's
 * whole share.
 *
 * Return: true if @p is not active: the caller then calls
 * mroce_share_activate(), before the ACK of this packet is built.
 */
static inline bool mroce_share_rx(struct mroce_share_peer *p, u64 now_us,
				  u32 bytes, bool ce)
{
	p->last_us = now_us;
	p->bytes += bytes;
	p->ce |= ce;
	return !p->active;
}

/**
 * mroce_share_period_us() - how often the peers are measured
 * @sh: the receiver's share
 *
 * Return: half the hold time, so that a peer gone quiet is found within
 * one and a half hold times.
 */
static inline u32 mroce_share_period_us(const struct mroce_share *sh)
{
	return sh->hold_us / 2 ?: 1;
}

#endif /* MROCE_SHARE_H */

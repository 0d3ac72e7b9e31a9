/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One path of a connection: its sequence space, selective-ACK window,
 * loss detection and RTT estimator (Documentation/wire-protocol.rst,
 * "Paths"), feeding its congestion control (cc.h).  Pure logic: times
 * come in as arguments in microseconds, packets are opaque context
 * pointers, so KUnit drives it directly.
 */
#ifndef MROCE_PATH_H
#define MROCE_PATH_H

#include <linux/bitmap.h>
#include <linux/types.h>

#include "cc.h"
#include "params.h"
#include "wire.h"

/**
 * struct mroce_rxwin - receive side of a path
 * @cum: next sequence not yet received; everything before it was
 * @map: bit i set: sequence @cum + 1 + i was received
 * @ce_count: CE-marked DATA packets received, modulo 2^16
 * @unacked: DATA packets recorded since the last ACK was sent
 * @sport: UDP source port the path's ACKs leave with (ids ACK-PORT,
 *	ACK-PORT-MOVE)
 * @data_sport: UDP source port of the path's latest DATA packet
 * @moved_from: a DATA port whose ACKs were moved (ACK-PORT-MOVE), or 0
 * @moved_to: the port they were moved to
 */
struct mroce_rxwin {
	u32 cum;
	DECLARE_BITMAP(map, MROCE_SACK_BITS);
	u16 ce_count;
	u16 unacked;
	u16 sport;
	u16 data_sport;
	u16 moved_from;
	u16 moved_to;
};

enum mroce_rx_verdict {
	MROCE_RX_NEW,		/* process and record it */
	MROCE_RX_DUP,		/* seen before: drop, but acknowledge */
	MROCE_RX_OUTSIDE,	/* beyond the window: drop */
};

enum mroce_rx_verdict mroce_rxwin_check(const struct mroce_rxwin *w, u32 psn);
bool mroce_rxwin_record(struct mroce_rxwin *w, u32 psn);
void mroce_rxwin_sack(const struct mroce_rxwin *w, u8 *sack);
bool mroce_rxwin_data(struct mroce_rxwin *w, u32 psn, bool ce, bool ack_req);
void mroce_rxwin_ack(struct mroce_rxwin *w, unsigned int path, u8 *sack,
		     struct mroce_pkt *pkt);

/*
 * A packet of one of the @n paths is missing: later ones of its path
 * arrived, and it did not.
 */
static inline bool mroce_rxwin_hole(const struct mroce_rxwin *w,
				    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!bitmap_empty(w[i].map, MROCE_SACK_BITS))
			return true;
	return false;
}

enum mroce_slot_state {
	MROCE_SLOT_FREE,
	MROCE_SLOT_INFLIGHT,
	MROCE_SLOT_LOST,	/* detected lost, waiting to be sent again */
	MROCE_SLOT_ACKED,
};

/**
 * struct mroce_txslot - an outstanding packet
 * @ctx: the caller's handle for sending it again
 * @xmit_us: time of its latest transmission
 * @order: the path's transmission count at its latest transmission; many
 *	packets share a microsecond, so this, not @xmit_us, says which of
 *	two transmissions came first
 * @state: enum mroce_slot_state
 * @sends: transmissions so far, up to MROCE_SLOT_SENDS_MAX
 * @expiries: retransmission timeouts it has suffered
 * @silent: those of them with the peer silent since the packet's latest
 *	transmission (mroce_paths_expire()), up to MROCE_SLOT_SILENT_MAX
 * @detour: its latest transmission took another path's route, so its
 *	acknowledgment says nothing about this path's own route
 * @reroute: found lost as a tail probe that asks whether another route
 *	gets through (a flight's second or fourth, or a silent path's): its
 *	resend is to take another path's route (id PATH-TLP)
 * @proven: the time rule found it lost: its first transmission's delay
 *	is not a sample (id PATH-RTT-LATE)
 * @first_us: time of its first transmission
 */
struct mroce_txslot {
	void *ctx;
	u64 xmit_us;
	u64 first_us;
	u32 order;
	u8 state;
	u8 expiries;
	/* Bit-fields: a window of slots per path, 32 bytes each. */
	u8 sends : 7;
	u8 proven : 1;
	u8 silent : 6;
	u8 detour : 1;
	u8 reroute : 1;
};

#define MROCE_SLOT_SENDS_MAX	127	/* @sends saturates there */
#define MROCE_SLOT_SILENT_MAX	63	/* @silent saturates there */

/**
 * struct mroce_txpath - send side of a path
 * @una: oldest unacknowledged sequence
 * @nxt: next new sequence
 * @cc: congestion control, fed by the ACKs and timeouts below
 * @ce_seen: last ce_count the receiver reported
 * @srtt_us: smoothed RTT; 0 until the first sample, its own or a seed
 * @rttvar_us: RTT variance
 * @rto_us: retransmission timeout, before backoff
 * @backoff: consecutive timeouts without delivery over the path's own
 *	route; at most 1 while detoured packets of the path get through
 * @episode_us: send time of the packet whose expiry began the current
 *	timeout episode (@backoff above 0)
 * @heard: a detoured packet of the path got through in the episode
 * @failed: a detoured packet got through that was sent well after a
 *	packet still missing on the path's own route (id PATH-DEAD-DETOUR):
 *	the timer expires at once and finds the route dead
 * @dead: the latest expiry found the path's route dead; cleared when a
 *	packet gets through on the path's own route or the path returns home
 * @route_us: when the path took its current port; a packet sent before
 *	says nothing of the route it is on now
 * @min_rto_us: floor of @rto_us
 * @seeded: @srtt_us, @rttvar_us and @rto_us are another path's (id
 *	PATH-RTO-SEED); the path's own first sample replaces them
 * @xmits: transmissions so far, new and repeated (wraps)
 * @rack_order: latest transmission (@xmits count) of any acknowledged packet
 * @high_acked: highest sequence acknowledged so far
 * @delivered_us: send time of the newest packet, sent once, acknowledged
 * @others_us: the latest @delivered_us of the connection's other paths
 *	(mroce_paths_ack() keeps it)
 * @last_xmit_us: time of the path's latest transmission, new or repeated
 * @progress_us: the path's latest sign of life: an ACK that acknowledged
 *	something, a tail probe, a new port, or a packet sent (new or again)
 *	with none in the network (id PATH-SILENT)
 * @probes: tail probes (mroce_txpath_recover()) sent since an ACK last
 *	acknowledged anything
 * @blind: those of @probes sent past MROCE_TLP_QUEUED without the other
 *	paths' evidence; they do not count against the probes the evidence
 *	allows (id PATH-TLP)
 * @lost: packets found lost, cumulative
 * @sacked: acknowledged packets at or after @una (selectively acked)
 * @lost_pending: packets found lost and not yet sent again
 * @slot: outstanding packets, indexed by sequence modulo MROCE_WINDOW
 */
struct mroce_txpath {
	u32 una;
	u32 nxt;
	struct mroce_cc cc;
	u16 ce_seen;
	u32 srtt_us;
	u32 rttvar_us;
	u32 rto_us;
	u32 backoff;
	u64 episode_us;
	bool heard;
	bool failed;
	bool dead;
	u64 route_us;
	u32 min_rto_us;
	bool seeded;
	u32 xmits;
	u32 rack_order;
	u32 high_acked;
	u64 delivered_us;
	u64 others_us;
	u64 last_xmit_us;
	u64 progress_us;
	u8 probes;
	u8 blind;
	u64 lost;
	u32 sacked;
	u32 lost_pending;
	struct mroce_txslot slot[MROCE_WINDOW];
};

/**
 * struct mroce_ack_result - what one ACK did to a path
 * @acked: packets newly acknowledged
 * @lost: packets newly found lost; their sequences are in the caller's
 *	array, oldest first
 * @rtt_us: the RTT sample of a packet sent once, or 0 (a late packet's,
 *	PATH-RTT-LATE, feeds the estimator alone)
 * @congested: the path's window was decreased
 * @delayed: packets counted as marked for their RTT (a queue building)
 * @spurious: packets sent again after a timeout whose first transmission
 *	this ACK acknowledged (the timeout was premature)
 * @loss_cuts: windows of the connection's paths the ACK cut for
 *	congestive loss (set by mroce_paths_ack())
 */
struct mroce_ack_result {
	unsigned int acked;
	unsigned int lost;
	unsigned int spurious;
	unsigned int delayed;
	unsigned int loss_cuts;
	u32 rtt_us;
	bool congested;
};

void mroce_txpath_init(struct mroce_txpath *tp, u32 min_rto_us,
		       u32 delay_target_us);
unsigned int mroce_txpath_restart(struct mroce_txpath *tp,
				  bool (*keep)(void *ctx, void *arg),
				  void (*release)(void *ctx, void *arg),
				  void *arg, u32 *psns);
void mroce_txpath_new_route(struct mroce_txpath *tp, u64 now_us);
bool mroce_txpath_silent(const struct mroce_txpath *tp, u64 now_us);
void mroce_txpath_route_back(struct mroce_txpath *tp, u32 cwnd);
unsigned int mroce_txpath_room(const struct mroce_txpath *tp);
u32 mroce_txpath_send(struct mroce_txpath *tp, u64 now_us, void *ctx);
void mroce_txpath_resent(struct mroce_txpath *tp, u32 psn, u64 now_us,
			 bool detour);
struct mroce_txslot *mroce_txpath_slot(struct mroce_txpath *tp, u32 psn);
int mroce_txpath_ack(struct mroce_txpath *tp, u64 now_us, u32 cum,
		     const u8 *sack, u16 ce_count,
		     void (*acked)(void *ctx, void *arg), void *arg,
		     u32 *lost, unsigned int max_lost,
		     struct mroce_ack_result *res);
u64 mroce_txpath_deadline(const struct mroce_txpath *tp);
unsigned int mroce_txpath_recover(struct mroce_txpath *tp, u64 now_us,
				  u32 *psns, unsigned int max, bool *probe);
unsigned int mroce_txpath_timeout(struct mroce_txpath *tp, u64 now_us,
				  u64 newest_us, u32 *psns, unsigned int max);
void mroce_rtt_sample(struct mroce_txpath *tp, u32 rtt_us);
void mroce_txpath_seed(struct mroce_txpath *tp, const struct mroce_txpath *from);

/* Whether, and by which rule, a packet has timed out too often */
enum mroce_slot_retry {
	MROCE_SLOT_RETRYING,
	MROCE_SLOT_RETRIES_EXCEEDED,	/* silent expiries beyond retry_cnt */
	MROCE_SLOT_EXPIRIES_EXCEEDED,	/* MROCE_EXPIRIES_MAX in all */
};

/**
 * mroce_txslot_exhausted() - has an outstanding packet timed out too often?
 * @slot: the packet
 * @retry_cnt: its queue pair's retry count (0-7)
 *
 * Only expiries with the peer silent count against the retry count: a
 * peer that answers is congested or its route is, and a queue pair is
 * not failed for what a lossy transport recovers from (id PATH-RETRY).
 *
 * Return: MROCE_SLOT_RETRYING, or the rule by which the packet's work
 * request fails.
 */
static inline enum mroce_slot_retry
mroce_txslot_exhausted(const struct mroce_txslot *slot, u8 retry_cnt)
{
	if (slot->silent > 7 * (retry_cnt + 1))
		return MROCE_SLOT_RETRIES_EXCEEDED;
	if (slot->expiries >= MROCE_EXPIRIES_MAX)
		return MROCE_SLOT_EXPIRIES_EXCEEDED;
	return MROCE_SLOT_RETRYING;
}

static inline u32 mroce_txpath_rto(const struct mroce_txpath *tp)
{
	u64 rto = (u64)tp->rto_us << min(tp->backoff, 16U);

	return rto > MROCE_RTO_MAX_US ? MROCE_RTO_MAX_US : rto;
}

static inline unsigned int mroce_txpath_inflight(const struct mroce_txpath *tp)
{
	return tp->nxt - tp->una;
}

/* Packets in the network: in flight, less those acknowledged or lost. */
static inline unsigned int mroce_txpath_pipe(const struct mroce_txpath *tp)
{
	return tp->nxt - tp->una - tp->sacked - tp->lost_pending;
}

#endif /* MROCE_PATH_H */

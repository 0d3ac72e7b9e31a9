/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Congestion control of one path (Documentation/wire-protocol.rst,
 * "Congestion control"): a window in packets, moved only by the hooks
 * below, which the path logic (path.c) calls as ACKs, marks, timeouts
 * and route changes happen.  Pure logic, like path.c: sequence numbers
 * and times come in as arguments.
 */
#ifndef MROCE_CC_H
#define MROCE_CC_H

#include <linux/types.h>

#include "params.h"
#include "wire.h"

/*
 * ECN: the fraction of packets marked, in units of 1/MROCE_ALPHA_ONE (fine
 * enough for one mark in a full window to count), averaged over windows
 * with weight 1/2^MROCE_ALPHA_SHIFT.
 */
#define MROCE_ALPHA_ONE		BIT(20)
#define MROCE_ALPHA_SHIFT	4U

/**
 * struct mroce_cc - congestion state of one path
 * @cwnd: congestion window, packets (1 to MROCE_CWND_MAX)
 * @cwnd_acc: acknowledged packets towards the next additive increase
 * @ssthresh: slow-start threshold
 * @recover: no further decrease until the path's oldest unacknowledged
 *	sequence passes it (once per window of data)
 * @alpha: moving average of the fraction of packets CE-marked per window,
 *	in units of 1/MROCE_ALPHA_ONE; a mark cuts @cwnd by @alpha / 2
 * @alpha_end: the current observation window ends when the oldest
 *	unacknowledged sequence passes it
 * @win_acked: packets acknowledged in the current observation window
 * @win_ce: packets marked in it
 * @delay_target_us: queueing delay (RTT above @min_rtt_us) that counts
 *	as a congestion mark; 0: none does
 * @min_rtt_us: smallest RTT sample in the current window; 0 until one
 * @min_rtt_stamp_us: when @min_rtt_us was taken
 * @undo_cwnd: @cwnd before the first timeout of the current episode
 * @undo_ssthresh: @ssthresh before it
 * @undo_valid: the episode's window cut may still be undone
 * @ai_paths: paths of the connection the additive increase is shared
 *	among: 1, or all of them after congestive loss (id CC-LOSS)
 */
struct mroce_cc {
	u32 cwnd;
	u32 cwnd_acc;
	u32 ssthresh;
	u32 recover;
	u32 alpha;
	u32 alpha_end;
	u32 win_acked;
	u32 win_ce;
	u32 delay_target_us;
	u32 min_rtt_us;
	u64 min_rtt_stamp_us;
	u32 undo_cwnd;
	u32 undo_ssthresh;
	bool undo_valid;
	u32 ai_paths;
};

/**
 * struct mroce_cc_ack - what one ACK told the path, for mroce_cc_on_ack()
 * @now_us: current time
 * @una: the path's oldest unacknowledged sequence, after the ACK
 * @nxt: the path's next new sequence
 * @rtt_us: the RTT sample the ACK gave, or 0
 * @acked: packets newly acknowledged
 * @ce: newly reported CE-marked packets
 */
struct mroce_cc_ack {
	u64 now_us;
	u32 una;
	u32 nxt;
	u32 rtt_us;
	unsigned int acked;
	unsigned int ce;
};

void mroce_cc_init(struct mroce_cc *cc, u32 delay_target_us);
void mroce_cc_restart(struct mroce_cc *cc);
bool mroce_cc_on_ack(struct mroce_cc *cc, const struct mroce_cc_ack *ack,
		     unsigned int *delayed);
bool mroce_cc_on_congestive_loss(struct mroce_cc *cc, u32 una, u32 nxt);
void mroce_cc_on_spurious_timeout(struct mroce_cc *cc);
void mroce_cc_on_timeout(struct mroce_cc *cc, u32 nxt, bool first, bool dead);
void mroce_cc_on_new_route(struct mroce_cc *cc);
void mroce_cc_on_route_back(struct mroce_cc *cc, u32 cwnd);

/**
 * struct mroce_lossmon - a connection's losses, told congestive or random
 * @acked: packets acknowledged in the current epoch
 * @lost: packets found lost in it
 * @floor: the fraction of packets the connection loses whatever its
 *	rate, learnt over epochs, in units of 1/MROCE_ALPHA_ONE
 * @hold: epochs its paths still grow together after congestive loss
 */
struct mroce_lossmon {
	u32 acked;
	u32 lost;
	u32 floor;
	u32 hold;
};

/**
 * enum mroce_loss_verdict - what mroce_lossmon_acked() found
 * @MROCE_LOSS_COUNTING: the epoch goes on
 * @MROCE_LOSS_RANDOM: it ended, its loss within what the floor explains
 * @MROCE_LOSS_CONGESTIVE: it ended, its loss well above the floor
 */
enum mroce_loss_verdict {
	MROCE_LOSS_COUNTING,
	MROCE_LOSS_RANDOM,
	MROCE_LOSS_CONGESTIVE,
};

void mroce_lossmon_init(struct mroce_lossmon *lm);
enum mroce_loss_verdict mroce_lossmon_acked(struct mroce_lossmon *lm,
					    unsigned int acked);

/**
 * mroce_lossmon_lost() - packets of the connection were found lost
 * @lm: the connection's loss monitor
 * @lost: their number
 */
static inline void mroce_lossmon_lost(struct mroce_lossmon *lm,
				      unsigned int lost)
{
	lm->lost += lost;
}

/**
 * struct mroce_pacer - a connection's rate under the receiver's share
 * @rate: credit earned per microsecond: the share's bits per microsecond
 *	times MROCE_SHARE_ONE; 0: no bound
 * @depth: most credit that builds up
 * @cost: credit a packet takes
 * @credit: credit now
 * @debt: credit resends took beyond @credit (at most MROCE_CWND_MAX
 *	packets'), paid before a new packet
 * @stamp_us: when @credit was brought up to date
 * @blocked: a new packet waited for credit in the current send pass
 */
struct mroce_pacer {
	u64 rate;
	u64 depth;
	u64 cost;
	u64 credit;
	u64 debt;
	u64 stamp_us;
	u64 wait_us;	/* since when a new packet waits, if blocked */
	bool blocked;
};

void mroce_pacer_set(struct mroce_pacer *pc, u16 share, u32 capacity_mbps,
		     u32 base_rtt_us, u32 pkt_bytes, u64 now_us);
void mroce_pacer_refill(struct mroce_pacer *pc, u64 now_us);
bool mroce_pacer_room(struct mroce_pacer *pc);
void mroce_pacer_spend(struct mroce_pacer *pc);
void mroce_pacer_charge(struct mroce_pacer *pc);
u64 mroce_pacer_due(const struct mroce_pacer *pc);

/**
 * mroce_cc_episode_cwnd() - the window before the current timeout episode
 * @cc: the path's congestion state
 *
 * Return: what the route carried before it began to fail, which is what
 * the path takes back if it returns to it (mroce_cc_on_route_back()).
 */
static inline u32 mroce_cc_episode_cwnd(const struct mroce_cc *cc)
{
	return cc->undo_cwnd;
}

#endif /* MROCE_CC_H */

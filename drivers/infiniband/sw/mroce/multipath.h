/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Path choice and entropy (Documentation/wire-protocol.rst, "Paths"):
 * which of a connection's paths carries a new packet or a detoured
 * resend, when a peer is silent, and each path's UDP source port (its
 * ECMP entropy) as routes fail and come back.  Pure logic over the
 * connection's paths: the host's routing comes in through the
 * struct mroce_paths_ops hooks, times as arguments.
 */
#ifndef MROCE_MULTIPATH_H
#define MROCE_MULTIPATH_H

#include <linux/types.h>

#include "params.h"
#include "path.h"

/**
 * struct mroce_path - one path of a connection: its send side and route
 * @tx: send side: sequence space, SACK window, RTT, congestion window
 * @sport: UDP source port, the path's ECMP entropy
 * @plane: the local next hop @sport was routed to when chosen
 *	(&mroce_paths_ops.route_plane), 0 if unknown
 * @rerolls: times @sport was changed after timeouts
 * @resend: sequences found lost, waiting to be sent again
 * @nresend: entries of @resend
 * @home_sport: the port the path had when its route was found dead, or
 *	0; probed until it answers again, then taken back, so the load
 *	returns to a repaired route
 * @home_plane: the local next hop @home_sport led to then; no path is
 *	moved there while @home_sport is set, unless a path on it delivers
 *	a packet sent after @home_left_us
 * @home_left_us: when the path left @home_sport
 * @home_cwnd: the path's window on @home_sport before its route failed
 * @home_probe_us: when to probe @home_sport next
 * @home_until_us: when to give up on @home_sport
 */
struct mroce_path {
	struct mroce_txpath tx;
	u16 sport;
	u64 plane;
	u32 rerolls;
	u32 resend[MROCE_WINDOW];
	u32 nresend;
	u16 home_sport;
	u64 home_plane;
	u64 home_left_us;
	u32 home_cwnd;
	u64 home_probe_us;
	u64 home_until_us;
};

struct mroce_paths;

/**
 * struct mroce_paths_ops - what path choice needs from its host
 * @route_plane: the local next hop the host's routing gives a flow to
 *	the peer from @sport, as a key (0: unknown, or a single one)
 * @random_sport: a random port of the dynamic range (RFC 6335)
 * @moved: path @i took another port; what the host cached of its old
 *	route (a route lookup) is stale
 * @egress_room: optional: whether the local device path @i leaves by
 *	takes a new packet now; new packets wait for it rather than queue
 *	behind a full device (NULL: always)
 */
struct mroce_paths_ops {
	u64 (*route_plane)(struct mroce_paths *ps, u16 sport);
	u16 (*random_sport)(struct mroce_paths *ps);
	void (*moved)(struct mroce_paths *ps, unsigned int i);
	bool (*egress_room)(struct mroce_paths *ps, unsigned int i);
};

/**
 * struct mroce_paths - a connection's paths
 * @path: the paths, @n of them
 * @n: number of paths
 * @rr: rotates the scan for new packets, so equal paths take turns
 * @detour_rr: rotates the choice of route for detoured resends
 * @ops: the host's routing
 * @pkt_bytes: bytes of a full DATA packet, headers included (the host's)
 * @base_rtt_us: the smallest RTT sample of any path within
 *	MROCE_MIN_RTT_WIN_US; 0 until one
 * @base_rtt_stamp_us: when it was taken
 * @pacer: new packets' rate under the share the receiver's latest ACK
 *	gave
 * @lossmon: the connection's losses, told congestive or random
 * @loss_cc: congestive loss cuts the paths' windows (id CC-LOSS)
 * @heard_us: arrival of the latest ACK that acknowledged a packet; an
 *	expiry of a packet sent since is silent (id PATH-RETRY)
 * @held: paths that take a new packet only when they have none out, as
 *	of the send pass's start: silent ones (id PATH-SILENT), and those on
 *	a next hop another path fled that nothing has proven since
 *	(mroce_paths_plane_fled())
 */
struct mroce_paths {
	struct mroce_path *path;
	unsigned int n;
	unsigned int rr;
	unsigned int detour_rr;
	const struct mroce_paths_ops *ops;
	u32 pkt_bytes;
	u32 base_rtt_us;
	u64 base_rtt_stamp_us;
	struct mroce_pacer pacer;
	struct mroce_lossmon lossmon;
	bool loss_cc;
	u64 heard_us;
	u64 held;
};

/**
 * struct mroce_expiry - what one retransmission timeout of a path did
 * @due: the packets due again, the expired one first; they are the
 *	newest entries of the path's @resend list
 * @n: their number
 * @first: the expiry began a timeout episode (the path had no backoff)
 * @dead: it found the path's route dead: the caller re-rolls the path
 *	(mroce_paths_reroll())
 */
struct mroce_expiry {
	const u32 *due;
	unsigned int n;
	bool first;
	bool dead;
};

void mroce_paths_init(struct mroce_paths *ps, struct mroce_path *path,
		      unsigned int n, const struct mroce_paths_ops *ops,
		      u32 pkt_bytes, bool loss_cc);
void mroce_paths_init_path(struct mroce_paths *ps, unsigned int i,
			   u32 min_rto_us, u32 init_rto_us, u32 delay_target_us);
u32 mroce_paths_hello_wait(const struct mroce_paths *ps, unsigned int sent);
void mroce_paths_hello_rto(struct mroce_paths *ps, u64 rtt_us);

/**
 * struct mroce_hello - a connection's HELLOs while the peer's epoch is unknown
 * @due_us: when the next may go
 * @sent_us: when the latest went; 0 once the peer was heard
 * @sent: how many times they went (MROCE_HELLO_COPIES each time)
 */
struct mroce_hello {
	u64 due_us;
	u64 sent_us;
	u8 sent;
};

unsigned int mroce_hello_due(struct mroce_hello *h,
			     const struct mroce_paths *ps, u64 now_us);
void mroce_hello_heard(struct mroce_hello *h, struct mroce_paths *ps,
		       u64 now_us);
int mroce_paths_ack(struct mroce_paths *ps, unsigned int i, u64 now_us,
		    const struct mroce_pkt *pkt,
		    void (*acked)(void *ctx, void *arg), void *arg,
		    struct mroce_ack_result *res);
unsigned int mroce_paths_recover(struct mroce_paths *ps, unsigned int i,
				 u64 now_us, bool *probe);
bool mroce_paths_expire(struct mroce_paths *ps, unsigned int i, u64 now_us,
			u64 delivered_us, struct mroce_expiry *ex);
u64 mroce_paths_deadline(const struct mroce_paths *ps);
void mroce_paths_pass(struct mroce_paths *ps, u64 now_us);
int mroce_paths_pick(struct mroce_paths *ps);
u32 mroce_paths_send(struct mroce_paths *ps, unsigned int i, u64 now_us,
		     void *ctx);
void mroce_paths_resent(struct mroce_paths *ps, unsigned int i, u32 psn,
			u64 now_us, unsigned int route);
unsigned int mroce_paths_resend_route(struct mroce_paths *ps, unsigned int i,
				      const struct mroce_txslot *slot);
u64 mroce_paths_delivered(const struct mroce_paths *ps);
bool mroce_paths_silent(const struct mroce_paths *ps);
bool mroce_paths_plane_fled(const struct mroce_paths *ps, u64 plane);
void mroce_paths_choose_port(struct mroce_paths *ps, unsigned int i, u64 dead);
void mroce_paths_ack_port(struct mroce_paths *ps, struct mroce_rxwin *rx,
			  u16 sport, bool dup);
void mroce_paths_spread(struct mroce_paths *ps, u64 now_us);
void mroce_paths_reroll(struct mroce_paths *ps, unsigned int i, u64 now_us);
bool mroce_paths_return(struct mroce_paths *ps, unsigned int i, u64 now_us);
bool mroce_paths_probe_due(struct mroce_paths *ps, unsigned int i,
			   u64 now_us);

#endif /* MROCE_MULTIPATH_H */

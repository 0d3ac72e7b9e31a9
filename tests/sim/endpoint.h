/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A simulated host's mroce transport: connections to its peers, each
 * with its paths, driven by the protocol core the module ships (wire.c,
 * path.c, cc.c, multipath.c).  What the module does around the core is
 * done here the same way (send passes: timeouts, resends, new packets;
 * the receiver's ACK rule; ACK_REQ on each path's last packet of a
 * pass); what it does with verbs objects is reduced to RDMA WRITEs of
 * a given size between hosts, complete when every packet is acknowledged.
 *
 * The host (the simulator, in C++) supplies the network: it carries the
 * packets this endpoint builds, hands it those that arrive, and runs its
 * timers.  Times are microseconds, as in the core.
 */
#ifndef MROCE_SIM_ENDPOINT_H
#define MROCE_SIM_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct sim_ep_ops - what an endpoint needs from its host
 * @xmit: send @hlen header bytes at @hdr followed by @payload_len payload
 *	bytes to host @dst with UDP source port @sport; @ect: sent
 *	ECN-capable (mroce: every packet, id IP-ECN; RoCEv2: its data)
 * @arm: call sim_ep_timer(@peer) at @when_us (replacing an earlier one
 *	for the same peer); 0: no timer
 * @completed: a message posted to @dst with @cookie is acknowledged
 * @delivered: a message from @src with @len bytes is placed in full
 * @placed: @len payload bytes from @src were placed (a packet's)
 * @route_plane: the local next hop (NIC) a flow to @dst from @sport
 *	leaves by, 1-based
 * @random_sport: a random port of the dynamic range
 * @nic_room: whether NIC @plane (as @route_plane numbers it) has room in
 *	its transmit ring for a new DATA packet to @peer beyond @pending
 *	ones about to be sent; if not, the host runs the endpoint's timer
 *	for @peer once it has
 */
struct sim_ep_ops {
	void (*xmit)(void *host, unsigned int dst, uint16_t sport,
		     const void *hdr, unsigned int hlen,
		     unsigned int payload_len, bool ect);
	void (*arm)(void *host, unsigned int peer, uint64_t when_us);
	void (*completed)(void *host, unsigned int dst, uint64_t cookie,
			  uint64_t now_us);
	void (*delivered)(void *host, unsigned int src, uint64_t len,
			  uint64_t now_us);
	void (*placed)(void *host, unsigned int src, uint64_t len,
		       uint64_t now_us);
	uint64_t (*route_plane)(void *host, unsigned int dst, uint16_t sport);
	uint16_t (*random_sport)(void *host);
	bool (*nic_room)(void *host, unsigned int peer, uint64_t plane,
			 unsigned int pending);
};

/* NICs a host may have */
#define SIM_MAX_PLANES	16

/**
 * struct sim_ep_config - the module parameters of a simulated host
 * @paths: paths per connection (module parameter "paths")
 * @mtu: payload bytes per DATA packet
 * @min_rto_us: module parameter "min_rto_us"
 * @delay_target_us: module parameter "delay_target_us"
 * @gbps: the host's link rate (the RoCEv2 model's line rate)
 * @init_rto_us: module parameter "init_rto_us"; 0: its default
 *	(MROCE_RTO_INIT_US)
 * @capacity_mbps: the host's inbound capacity, which its ACKs give
 *	(module parameter "rx_capacity_mbps"); 0: no share is given
 * @share_hold_us: module parameter "share_hold_us"
 * @congestive_loss: module parameter "congestive_loss"
 */
struct sim_ep_config {
	unsigned int paths;
	unsigned int mtu;
	unsigned int min_rto_us;
	unsigned int delay_target_us;
	double gbps;
	unsigned int init_rto_us;
	unsigned int capacity_mbps;
	unsigned int share_hold_us;
	bool congestive_loss;
};

/**
 * struct sim_ep_stats - an endpoint's counters, as the module's
 * @tx_data: DATA packets sent, first transmissions and resends
 * @retransmits: resends of DATA packets
 * @timeouts: retransmission timer expiries
 * @lost: packets found lost by SACK or by their delay (PATH-RACK)
 * @rerolls: paths that took a new port after a dead route
 * @returns: paths that went back to their old port
 * @ecn_cuts: window decreases
 * @rx_data: DATA packets received, new
 * @duplicates: DATA packets received again
 * @outside: DATA packets beyond the receive window
 * @malformed: packets the parser refused
 * @stream_drops: DATA packets the stream's message window dropped (never:
 *	senders keep to it, and every packet carries the message it began)
 * @placed_twice: bytes of a message placed a second time (never)
 * @bytes_placed: payload bytes placed
 * @msgs_delivered: messages placed in full
 * @msgs_completed: messages acknowledged in full
 * @conns: connections (mroce) or queue pairs (RoCEv2) set up, to a peer
 *	that sent or was sent something
 * @tail_probes: packets sent again to draw an ACK (PATH-TLP)
 * @paced: send passes whose new packets waited for the receiver's share
 *	(SHARE-PACE)
 * @loss_cuts: window decreases for congestive loss (CC-LOSS)
 * @nic_full: send passes that found a NIC's ring full (once per NIC and
 *	pass) and held new packets back from its paths
 */
struct sim_ep_stats {
	uint64_t tx_data;
	uint64_t retransmits;
	uint64_t timeouts;
	uint64_t lost;
	uint64_t rerolls;
	uint64_t returns;
	uint64_t ecn_cuts;
	uint64_t rx_data;
	uint64_t duplicates;
	uint64_t outside;
	uint64_t malformed;
	uint64_t stream_drops;
	uint64_t placed_twice;
	uint64_t bytes_placed;
	uint64_t msgs_delivered;
	uint64_t msgs_completed;
	uint64_t conns;
	uint64_t tail_probes;
	uint64_t paced;
	uint64_t loss_cuts;
	uint64_t nic_full;
};

/* Add @s's counters to @sum's: every field is a uint64_t counter. */
static inline void sim_stats_add(struct sim_ep_stats *sum,
				 const struct sim_ep_stats *s)
{
	uint64_t *to = (uint64_t *)sum;
	const uint64_t *from = (const uint64_t *)s;
	size_t i;

	for (i = 0; i < sizeof(*s) / sizeof(*from); i++)
		to[i] += from[i];
}

/**
 * struct sim_transport - a transport the simulator's hosts can run
 * @name: as --transport names it
 * @create: a host's endpoint: its number @id among @nhosts, its
 *	parameters, its host's network (@ops, @host)
 * @destroy: free it
 * @post: post an RDMA WRITE of @len bytes (at least 1) to host @dst,
 *	completed with @cookie
 * @rx: a packet from host @src arrived: its first @hdr_avail bytes (at
 *	least @max_hdr, or all), its length, whether it was CE-marked, its
 *	UDP source port
 * @timer: the timer armed for @peer expired
 * @counters: the endpoint's counters
 * @outstanding: messages posted and not yet complete
 * @max_hdr: header bytes @rx needs in one piece
 * @data_hdr: header bytes of a DATA packet, for the ideal's overhead
 */
struct sim_transport {
	const char *name;
	void *(*create)(unsigned int id, unsigned int nhosts,
			const struct sim_ep_config *cfg,
			const struct sim_ep_ops *ops, void *host);
	void (*destroy)(void *ep);
	void (*post)(void *ep, unsigned int dst, uint64_t len, uint64_t cookie,
		     uint64_t now_us);
	void (*rx)(void *ep, unsigned int src, const void *buf,
		   unsigned int hdr_avail, unsigned int pkt_len, bool ce,
		   uint16_t sport, uint64_t now_us);
	void (*timer)(void *ep, unsigned int peer, uint64_t now_us);
	const struct sim_ep_stats *(*counters)(const void *ep);
	uint64_t (*outstanding)(const void *ep);
	unsigned int max_hdr;
	unsigned int data_hdr;
};

/* calloc() for the transports: the simulation cannot go on without it. */
static inline void *sim_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fputs("mroce-sim: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* mroce, running the module's protocol core (endpoint.c) */
extern const struct sim_transport sim_mroce;
/* the RoCEv2 reference model (rocev2.c) */
extern const struct sim_transport sim_rocev2;

#ifdef __cplusplus
}
#endif

#endif /* MROCE_SIM_ENDPOINT_H */

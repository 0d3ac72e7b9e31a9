/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The transport: connections (one per peer), their paths, and the
 * streams (one per RC queue pair) they carry.  See
 * Documentation/wire-protocol.rst for the protocol and
 * Documentation/architecture.rst for how the files divide the work.
 */
#ifndef MROCE_TRANSPORT_H
#define MROCE_TRANSPORT_H

#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/in6.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/dst_cache.h>

#include "message.h"
#include "multipath.h"
#include "params.h"
#include "verbs.h"
#include "wire.h"

/**
 * struct mroce_path_dst - the routes one path's packets were last sent by
 * @dst: cached route for this path's flow
 * @ack: cached route of the ACKs for the peer's path of the same id,
 *	which travel with the peer's source port, @ack_sport
 * @ack_sport: the port @ack was looked up for
 */
struct mroce_path_dst {
	struct dst_cache dst;
	struct dst_cache ack;
	u16 ack_sport;
};

/* Bits of mroce_conn.tx_flags */
enum {
	MROCE_TX_RUNNING,	/* a send pass runs */
	MROCE_TX_AGAIN,		/* another pass was asked for */
};

/**
 * struct mroce_conn - the transport between this device and one peer
 * @node: in the device's connection table
 * @mdev: the local device
 * @ref: the table holds one; so does each attached stream
 * @lock: protects everything below, and the transport state of every
 *	stream attached to the connection
 * @laddr: local address (IPv4-mapped for IPv4)
 * @raddr: peer address (IPv4-mapped for IPv4)
 * @ipv4: both addresses are IPv4
 * @epoch: this end's epoch
 * @peer_epoch: the peer's epoch, 0 until known
 * @hello: the HELLOs sent while @peer_epoch is 0
 * @streams: attached streams
 * @stream_xa: the same, by local QP number (a packet's stream in O(1))
 * @stream_due: a lower bound of the attached streams' deadlines
 *	(mroce_stream_deadline()), 0 if none has one; see mroce_stream_due()
 * @idle_us: when the last stream left; 0 while one is attached
 * @tx_streams: streams with something to send
 * @ack_streams: streams whose progress the peer has not been told
 * @ack_due: the peer's paths owed an ACK, sent by @ack_tasklet (or a send
 *	pass, which comes first)
 * @ack_tasklet: sends what @ack_due owes once the packets a softirq run
 *	received have all been processed (send.c, mroce_ack_tasklet())
 * @timer: fires at the earliest path deadline; schedules @tx_work
 * @tx_work: the send engine
 * @tx_tail: the last DATA skb each path has in the running send pass
 *	(send.c, build_data()); all NULL between passes
 * @tx_nomem: an allocation failed in this send pass or the ACK tasklet:
 *	run another pass soon
 * @tx_flags: MROCE_TX_RUNNING while a send pass runs, MROCE_TX_AGAIN
 *	when another was asked for meanwhile (send.c, tx_pass_begin())
 * @dying: being freed: @tx_work arms @timer no more
 * @free_work: frees the connection after an RCU grace period
 * @paths: path choice over @path; its @paths.rr also rotates HELLOs
 * @dst: each path's cached routes, @paths.n of them
 * @rx: receive side of each of the peer's paths (it may use more than we do)
 * @rxshare: the peer as a sender to this device (fairshare.c)
 * @path: the paths
 */
struct mroce_conn {
	struct hlist_node node;
	struct mroce_dev *mdev;
	struct kref ref;
	spinlock_t lock;	/* the connection and its streams */
	struct in6_addr laddr;
	struct in6_addr raddr;
	bool ipv4;
	u32 epoch;
	u32 peer_epoch;
	struct mroce_hello hello;
	struct list_head streams;
	struct xarray stream_xa;
	u64 stream_due;
	u64 idle_us;
	struct list_head tx_streams;
	struct list_head ack_streams;
	DECLARE_BITMAP(ack_due, MROCE_MAX_PATHS);
	struct tasklet_struct ack_tasklet;
	struct hrtimer timer;
	struct work_struct tx_work;
	unsigned long tx_flags;
	struct sk_buff *tx_tail[MROCE_MAX_PATHS];
	bool tx_nomem;
	bool dying;
	struct rcu_work free_work;
	struct mroce_paths paths;
	struct mroce_path_dst *dst;
	struct mroce_rxwin rx[MROCE_MAX_PATHS];
	struct mroce_share_peer rxshare;
	struct mroce_path path[];
};

/**
 * struct mroce_swqe - the kernel's copy of a send work request
 * @wqe: the request as posted
 * @sge: its scatter list (not inline)
 * @inline_data: its inline payload
 * @msg: its message's state (message.h)
 * @status: completion status once its message is DONE
 */
struct mroce_swqe {
	struct mroce_send_wqe wqe;
	struct mroce_sge sge[MROCE_MAX_SGE];
	u8 inline_data[MROCE_MAX_INLINE];
	struct mroce_smsg msg;
	enum ib_wc_status status;
};

/**
 * struct mroce_rwqe - the kernel's copy of a receive work request
 * @wr_id: returned in the completion
 * @num_sge: entries of @sge
 * @len: total bytes of @sge
 * @sge: scatter list
 */
struct mroce_rwqe {
	u64 wr_id;
	u32 num_sge;
	u32 len;
	struct mroce_sge sge[MROCE_MAX_SGE];
};

int mroce_rwqe_load(const struct mroce_recv_wqe *wqe, u32 max_sge,
		    struct mroce_rwqe *r);

/**
 * struct mroce_resp - a READ or atomic response the responder owes
 * @node: in the stream's response queue
 * @msn: the request's message number
 * @len: bytes to send
 * @sent: bytes segmented so far
 * @mr: READ: the region read from (referenced); NULL for an atomic
 * @va: READ: first address
 * @orig: atomic: the value found before the operation
 * @atomic: this is an atomic response
 */
struct mroce_resp {
	struct list_head node;
	u32 msn;
	u32 len;
	u32 sent;
	struct mroce_mr *mr;
	u64 va;
	u64 orig;
	bool atomic;
};

/**
 * struct mroce_stream - transport state of one RC queue pair
 *
 * Protected by the connection's lock once attached.  Outlives its queue
 * pair while packets that refer to it are in flight (@ref).
 *
 * @heard: a packet or an ACK record of the peer's came for the stream: it
 * has spoken with the peer's current incarnation, and fails if the peer
 * restarts (Documentation/wire-protocol.rst, "Connections and epochs")
 */
struct mroce_stream {
	struct kref ref;
	struct mroce_conn *conn;
	struct mroce_qp *qp;
	u32 qpn;
	u32 dest_qpn;
	struct list_head conn_node;
	struct list_head tx_node;
	struct list_head ack_node;
	u32 mtu;
	u8 retry_cnt;

	/* requester */
	u32 snd_msn;
	u32 snd_ssn;
	u32 sq_fetch;
	u32 sq_done;
	u32 sq_seg;		/* no request before it has bytes to cut */
	u32 remote_done;
	u32 rd_atomic;
	u64 wait_since_us;
	bool rnr_wait;		/* a request may wait out an RNR NAK */
	struct mroce_swqe *swq;
	u32 sq_entries;

	/* responder */
	struct list_head resp_q;
	u32 rcv_done;
	u32 rq_done;
	/*
	 * MROCE_STREAM_WINDOW of them, allocated apart: within the stream
	 * they took it just past 16 KiB, into kmalloc's 32-KiB objects.
	 */
	struct mroce_rmsg *rmsg;
	struct mroce_rwqe *rwq;
	u32 rq_entries;
	struct mroce_ack_stream report;
	bool report_dirty;
	bool error;
	bool heard;
};

/**
 * struct mroce_seg - an outstanding DATA packet, the context of its path
 *	slot: enough to build it again
 * @stream: its stream (referenced)
 * @hdr: its headers, host order (psn and path filled in when sent)
 * @sq_index: requester data: the send work request it was cut from
 * @mr: READ_RESP: the region it reads (referenced)
 * @src_va: READ_RESP: where its payload starts
 */
struct mroce_seg {
	struct mroce_stream *stream;
	struct mroce_pkt hdr;
	u32 sq_index;
	struct mroce_mr *mr;
	u64 src_va;
};

/* conn.c */
struct mroce_conn *mroce_conn_get(struct mroce_dev *mdev,
				  const struct in6_addr *laddr,
				  const struct in6_addr *raddr, bool create);
struct mroce_conn *mroce_conn_lookup_rcu(struct mroce_dev *mdev,
					 const struct in6_addr *laddr,
					 const struct in6_addr *raddr);
void mroce_conn_put(struct mroce_conn *conn);
void mroce_conn_kick(struct mroce_conn *conn);
void mroce_conn_send(struct mroce_conn *conn);
void mroce_conn_rearm(struct mroce_conn *conn);
void mroce_path_reroll(struct mroce_conn *conn, unsigned int i, u64 now);
void mroce_path_return(struct mroce_conn *conn, unsigned int i, u64 now);
void mroce_conn_spread(struct mroce_conn *conn);
void mroce_conn_init(struct mroce_dev *mdev);
void mroce_conn_cleanup(struct mroce_dev *mdev);
u64 mroce_now_us(void);
bool mroce_conn_loss_cc(void);
unsigned int mroce_conn_npaths(void);
unsigned int mroce_conn_limit(void);
void mroce_conn_restart_paths(struct mroce_conn *conn,
			      bool (*keep)(void *ctx, void *arg));
void mroce_conn_idle(struct mroce_conn *conn);

/* fairshare.c */
void mroce_share_dev_init(struct mroce_dev *mdev);
void mroce_share_dev_cleanup(struct mroce_dev *mdev);
void mroce_share_data(struct mroce_conn *conn, u32 bytes, bool ce, u64 now);
void mroce_share_ack(struct mroce_conn *conn, struct mroce_pkt *pkt);
void mroce_share_conn_gone(struct mroce_conn *conn);

/* send.c */
void mroce_tx_work(struct work_struct *work);
void mroce_ack_tasklet(struct tasklet_struct *t);
struct sk_buff *mroce_build_ack(struct mroce_conn *conn, unsigned int path,
				struct mroce_stream *probed, u16 route_sport);
struct sk_buff *mroce_build_hello(struct mroce_conn *conn);
void mroce_xmit_queue(struct mroce_conn *conn, struct sk_buff_head *q);
u64 mroce_route_plane(struct mroce_conn *conn, u16 sport);

/*
 * Verbs hold immediate data in network order; struct mroce_pkt holds the
 * value of its big-endian wire field.  So the bytes an application posts
 * are the bytes on the wire and the bytes its peer's completion reports
 * (Documentation/wire-protocol.rst, id DATA-IMM).
 */
static inline u32 mroce_imm_to_wire(u32 imm_data)
{
	return be32_to_cpu((__force __be32)imm_data);
}

static inline u32 mroce_imm_from_wire(u32 imm)
{
	return (__force u32)cpu_to_be32(imm);
}

/* A next hop's key: output device in the high half, gateway in the low. */
static inline u64 mroce_plane_key(int ifindex, u32 gateway)
{
	return (u64)ifindex << 32 | gateway;
}

static inline int mroce_plane_ifindex(u64 plane)
{
	return plane >> 32;
}

struct sk_buff *mroce_alloc_skb(unsigned int len, unsigned int path, bool data);
int mroce_xmit_one(struct mroce_dev *mdev, struct sk_buff *skb,
		   const struct in6_addr *laddr, const struct in6_addr *raddr,
		   u16 sport);

/* receive.c */
int mroce_udp_recv(struct sock *sk, struct sk_buff *skb);

/* stream.c, requester.c, responder.c */

/**
 * mroce_stream_due() - a stream's deadline may now be as early as @t
 * @s: the stream, attached
 * @t: the deadline
 *
 * The send pass walks the streams for their timers only when
 * conn->stream_due has come (tx_stream_timers() in send.c), so whatever
 * sets a deadline earlier than the bound lowers it here; what moves one
 * later need not.
 */
static inline void mroce_stream_due(struct mroce_stream *s, u64 t)
{
	struct mroce_conn *conn = s->conn;

	if (!conn->stream_due || t < conn->stream_due)
		conn->stream_due = t;
}

struct mroce_stream *mroce_stream_create(struct mroce_qp *qp);
int mroce_stream_attach(struct mroce_stream *s, struct mroce_conn *conn);
void mroce_stream_detach(struct mroce_stream *s);
void mroce_stream_get(struct mroce_stream *s);
void mroce_stream_put(struct mroce_stream *s);
int mroce_stream_next_seg(struct mroce_stream *s, u64 now_us,
			  struct mroce_seg **segp);
void mroce_stream_fill(struct mroce_seg *seg, void *payload);
void mroce_stream_seg_acked(void *ctx, void *arg);
bool mroce_stream_rx(struct mroce_stream *s, const struct mroce_pkt *pkt,
		     const u8 *payload);
void mroce_stream_progress(struct mroce_stream *s,
			   const struct mroce_ack_stream *rec, u64 now_us);
void mroce_stream_fail(struct mroce_stream *s, enum ib_wc_status status);
void mroce_stream_sq_kick(struct mroce_stream *s);
void mroce_stream_rq_kick(struct mroce_stream *s);
u64 mroce_stream_deadline(struct mroce_stream *s);
bool mroce_stream_timer(struct mroce_stream *s, u64 now_us);
bool mroce_stream_seg_expired(struct mroce_seg *seg);
struct mroce_stream *mroce_stream_lookup(struct mroce_conn *conn, u32 qpn);
int mroce_stream_init_cache(void);
void mroce_stream_exit_cache(void);

#endif /* MROCE_TRANSPORT_H */

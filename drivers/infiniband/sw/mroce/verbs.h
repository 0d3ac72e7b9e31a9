/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Verbs objects: rings shared with userspace, CQs, MRs, QPs.  Transport
 * state of a QP lives in its stream (transport.h), not here.
 */
#ifndef MROCE_VERBS_H
#define MROCE_VERBS_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "compat.h"
#include "mroce.h"
#include "params.h"

/**
 * struct mroce_ring - a queue of fixed-size entries behind a ring header
 * @ref: held by the owning object, by the mmap table entry and by each
 *	VMA mapping it, so the memory outlives every user
 * @mentry: mmap table entry; @mentry.ucontext is NULL for kernel rings
 * @hdr: start of the memory (vmalloc_user())
 * @entries: power of two
 * @stride: bytes per entry
 * @size: bytes of memory, page aligned
 */
struct mroce_ring {
	struct kref ref;
	struct rdma_user_mmap_entry mentry;
	struct mroce_ring_hdr *hdr;
	u32 entries;
	u32 stride;
	size_t size;
};

static inline void *mroce_ring_entry(struct mroce_ring *ring, u32 index)
{
	return (u8 *)ring->hdr + MROCE_RING_HDR_SIZE +
	       (size_t)(index & (ring->entries - 1)) * ring->stride;
}

/*
 * Ring indices are shared with userspace and other CPUs: whoever fills
 * entries publishes them with a release store of its index, and the other
 * side reads that index with an acquire load before touching entries.
 */
static inline u32 mroce_ring_producer(struct mroce_ring *ring)
{
	/* pairs with the producer's release store */
	return smp_load_acquire(&ring->hdr->producer);
}

/*
 * mroce_ring_producer_from() - the producer index, at most a ring ahead of
 * @from.  A user ring's index is the user's to write (a poster racing a
 * reset of the QP writes a stale one): a loop over what it claims must
 * still end within a ring's worth of entries.
 */
static inline u32 mroce_ring_producer_from(struct mroce_ring *ring, u32 from)
{
	u32 prod = mroce_ring_producer(ring);

	return prod - from > ring->entries ? from + ring->entries : prod;
}

static inline void mroce_ring_publish(struct mroce_ring *ring, u32 producer)
{
	/* entries before the index that publishes them */
	smp_store_release(&ring->hdr->producer, producer);
}

static inline void mroce_ring_consumed(struct mroce_ring *ring, u32 consumer)
{
	/* our reads of the entries before the slots are handed back */
	smp_store_release(&ring->hdr->consumer, consumer);
}

struct mroce_ring *mroce_ring_alloc(u32 entries, u32 stride);
void mroce_ring_put(struct mroce_ring *ring);
int mroce_ring_expose(struct mroce_ring *ring, struct ib_ucontext *uctx,
		      u64 *offset);
int mroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void mroce_mmap_free(struct rdma_user_mmap_entry *entry);

struct mroce_ucontext {
	struct ib_ucontext ibuc;
};

struct mroce_pd {
	struct ib_pd ibpd;
};

static inline struct mroce_pd *to_mpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct mroce_pd, ibpd);
}

/**
 * struct mroce_cq - completion queue
 * @lock: serialises producers (any context) with kernel pollers
 * @ring: the CQE ring (mmapped for a user CQ)
 * @notify: armed IB_CQ_SOLICITED / IB_CQ_NEXT_COMP, cleared on an event
 * @overflow: a completion found the ring full; the CQ is in error
 * @user: belongs to a user context
 */
struct mroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* producers, kernel pollers, resize */
	struct mroce_ring *ring;
	u8 notify;
	bool overflow;
	bool user;
};

static inline struct mroce_cq *to_mcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mroce_cq, ibcq);
}

int mroce_cq_post(struct mroce_cq *cq, const struct mroce_cqe *cqe,
		  bool solicited);

/**
 * struct mroce_mr - memory region
 * @ref: the registration holds one; so does each in-flight response
 *	that reads from the region, so its pages stay pinned until then
 * @umem: pinned user memory; NULL for a DMA MR (kernel virtual addresses)
 * @pages: @umem's pages in order
 * @npages: entries of @pages
 * @page_off: offset of @iova in its first page
 * @iova: first address of the region
 * @length: bytes
 * @access: IB_ACCESS_* flags
 * @lock: a fast-registration region: serialises registration and
 *	invalidation with lookups of its key
 * @fr_pages: a fast-registration region: kernel addresses of its pages,
 *	as map_mr_sg() set them; NULL for the other kinds
 * @fr_max: entries of @fr_pages
 * @fr_npages: pages mapped
 * @valid: a fast-registration region is registered and not invalidated;
 *	other regions are valid from registration to deregistration
 * @binds: memory windows bound to the region; it cannot be deregistered
 *	while any are
 * @free_work: frees the region when the last reference goes in softirq
 * @rcu: lookups run under RCU
 */
struct mroce_mr {
	struct ib_mr ibmr;
	struct kref ref;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	unsigned int page_off;
	u64 iova;
	u64 length;
	int access;
	spinlock_t lock;	/* fast registration state */
	u64 *fr_pages;
	u32 fr_max;
	u32 fr_npages;
	bool valid;
	atomic_t binds;
	struct work_struct free_work;
	struct rcu_head rcu;
};

static inline struct mroce_mr *to_mmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mroce_mr, ibmr);
}

struct mroce_mr *mroce_mr_get(struct mroce_dev *mdev, u32 key, bool remote);
void mroce_mr_put(struct mroce_mr *mr);
int mroce_mr_check(struct mroce_mr *mr, struct ib_pd *pd, u64 va, u64 len,
		   int access);
void mroce_mr_copy(struct mroce_mr *mr, u64 va, void *buf, u32 len,
		   bool to_mr);
void *mroce_mr_atomic_ptr(struct mroce_mr *mr, u64 va, struct page **page);
int mroce_sge_copy(struct ib_pd *pd, const struct mroce_sge *sges, u32 nsge,
		   u32 offset, u8 *buf, u32 len, bool to_mr);

void mroce_mr_init(struct mroce_dev *mdev);
void mroce_mr_cleanup(struct mroce_dev *mdev);
int mroce_mr_publish(struct mroce_dev *mdev, void *entry, u32 *index);

/* An entry of the key table that is a memory window, not a region. */
#define MROCE_KEY_WINDOW	1

/**
 * struct mroce_window - the state of a memory window, which remote
 *	access reads under RCU; it outlives the verbs object by a grace
 *	period
 * @lock: serialises binding and invalidation with lookups
 * @rkey: current rkey
 * @type: IB_MW_TYPE_1 or IB_MW_TYPE_2
 * @valid: bound and not invalidated
 * @pd: the window's protection domain
 * @mr: the region it is bound to (referenced), or NULL
 * @va: first address it opens
 * @length: bytes it opens
 * @access: IB_ACCESS_REMOTE_* it grants
 * @qpn: type 2: the queue pair it was bound by, the only one that may use
 *	it
 * @rcu: freed after a grace period
 */
struct mroce_window {
	spinlock_t lock;	/* binding state */
	u32 rkey;
	u8 type;
	bool valid;
	struct ib_pd *pd;
	struct mroce_mr *mr;
	u64 va;
	u64 length;
	int access;
	u32 qpn;
	struct rcu_head rcu;
};

struct mroce_mw {
	struct ib_mw ibmw;
	struct mroce_window *win;
};

static inline struct mroce_mw *to_mmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct mroce_mw, ibmw);
}

struct mroce_send_wqe;
struct mroce_qp;
struct mroce_mr *mroce_rkey_get(struct mroce_qp *qp, u32 rkey, u64 va,
				u64 len, int access);
enum ib_wc_status mroce_mw_bind(struct mroce_qp *qp,
				const struct mroce_send_wqe *wqe);
int mroce_invalidate(struct mroce_qp *qp, u32 rkey, bool remote);
enum ib_wc_status mroce_fast_reg(struct mroce_qp *qp, struct ib_mr *ibmr,
				 u32 key, int access);

struct mroce_stream;
struct mroce_rwqe;

/**
 * struct mroce_srq - shared receive queue
 * @lock: serialises the QPs taking receives and limit changes
 * @post_lock: serialises kernel posters
 * @rq: the receive ring (mmapped for a user SRQ)
 * @done: receives taken
 * @max_sge: scatter list length of its receives
 * @limit: armed limit, 0 when disarmed
 * @user: belongs to a user context
 */
struct mroce_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;	/* takers of receives, the limit */
	spinlock_t post_lock;	/* kernel posters */
	struct mroce_ring *rq;
	u32 done;
	u32 max_sge;
	u32 limit;
	bool user;
};

static inline struct mroce_srq *to_msrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mroce_srq, ibsrq);
}

int mroce_srq_take(struct mroce_srq *srq, struct mroce_rwqe *r);
int mroce_ring_post_recv(struct mroce_ring *ring, u32 max_sge,
			 const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);

/**
 * struct mroce_qp - queue pair
 * @mutex: serialises modify, query and destroy
 * @sq_lock: serialises kernel posters of the send queue
 * @rq_lock: serialises kernel posters of the receive queue
 * @state: IB state; changed under @mutex and, once a stream is attached,
 *	the connection's lock, so the transport reads it under either
 * @sq: send queue ring
 * @rq: receive queue ring; NULL when the QP receives from an SRQ
 * @max_send_sge: granted scatter list length of send requests
 * @max_recv_sge: granted scatter list length of receive requests
 * @max_inline: granted inline payload
 * @user: belongs to a user context
 * @sig_all: every send request completes with a CQE
 * @attr: attributes as last modified, for query_qp
 * @laddr: local address from the path's source GID
 * @raddr: peer address from the path's destination GID
 * @stream: transport state, from RTR on; set and cleared under @stream_lock,
 *	read by the doorbells (which may race modify_qp) through
 *	mroce_qp_stream_get()
 * @stream_lock: guards @stream against doorbells running beside modify_qp
 * @ref: held by the QP number table entry and by datagram receivers
 *	that found the QP there; destroy waits for the last one
 * @released: completed when @ref drops to zero
 * @ud_lock: UD/GSI: serialises receivers, state changes and flushes
 * @rq_done: UD/GSI: receives consumed
 * @ud_work: UD/GSI: sends the queued datagrams
 * @ud_wqe: UD/GSI: @ud_work's copy of the request it sends
 * @sq_reg: a kernel QP: the region of each REG_MR request in the send
 *	ring, by slot (the ring format has no room for a kernel pointer)
 */
struct mroce_qp {
	struct ib_qp ibqp;
	struct mutex mutex;	/* modify, query, destroy */
	spinlock_t sq_lock;	/* kernel send posters */
	spinlock_t rq_lock;	/* kernel receive posters */
	enum ib_qp_state state;
	struct mroce_ring *sq;
	struct mroce_ring *rq;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	bool user;
	bool sig_all;
	struct ib_qp_attr attr;
	struct in6_addr laddr;
	struct in6_addr raddr;
	struct mroce_stream *stream;
	spinlock_t stream_lock;	/* @stream against the doorbells */
	refcount_t ref;
	struct completion released;
	spinlock_t ud_lock;	/* UD receive side and state */
	u32 rq_done;
	struct work_struct ud_work;
	void *ud_wqe;
	struct ib_mr **sq_reg;
};

static inline struct mroce_qp *to_mqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mroce_qp, ibqp);
}

static inline bool mroce_qp_is_ud(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

struct mroce_qp *mroce_qp_get(struct mroce_dev *mdev, u32 qpn);
void mroce_qp_put(struct mroce_qp *qp);
u32 mroce_qp_flush_rq(struct mroce_qp *qp, u32 from);
u32 mroce_qp_flush_sq(struct mroce_qp *qp, u32 from);
enum ib_wc_opcode mroce_send_wc_opcode(u32 opcode);
void mroce_qp_event(struct mroce_qp *qp, enum ib_event_type type);

/**
 * struct mroce_av - what sending a datagram needs of an address handle
 * @pd: the address handle's protection domain
 * @laddr: source address (the source GID)
 * @raddr: destination address (the destination GID)
 * @rcu: senders read it under RCU, so it is freed after a grace period
 */
struct mroce_av {
	struct ib_pd *pd;
	struct in6_addr laddr;
	struct in6_addr raddr;
	struct rcu_head rcu;
};

/**
 * struct mroce_ah - address handle: a destination GID and its route
 * @attr: as created, for query_ah
 * @num: the number send requests name it by (device-wide, non-zero)
 * @av: its entry in the device's table of address handles
 */
struct mroce_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;
	u32 num;
	struct mroce_av *av;
};

static inline struct mroce_ah *to_mah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mroce_ah, ibah);
}

/* Verbs implemented in cq.c, mr.c and qp.c. */
int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct mroce_create_cq_attrs *attrs);
int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int mroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mroce_dealloc_mw(struct ib_mw *ibmw);
int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/* srq.c */
int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* ud.c */
int mroce_ud_init(struct mroce_qp *qp);
void mroce_ud_cleanup(struct mroce_qp *qp);
void mroce_ud_sq_kick(struct mroce_qp *qp);
void mroce_ud_set_state(struct mroce_qp *qp, enum ib_qp_state state);
struct mroce_pkt;
void mroce_ud_rx(struct mroce_dev *mdev, struct sk_buff *skb,
		 const struct mroce_pkt *pkt);

#endif /* MROCE_VERBS_H */

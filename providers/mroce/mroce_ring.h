/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mroce shared rings: encode work requests into the send/receive rings and
 * decode completions from the CQ ring, exactly as include/uapi/rdma/
 * mroce-abi.h defines them.
 *
 * Everything here works on memory only (no ibv_context, no system call), so
 * a host-side test can drive the same code against a ring in malloc()ed
 * memory with a fake "kernel" on the other side.  That is why this is a
 * header of its own that needs nothing but <infiniband/verbs.h> and the ABI
 * header, rather than part of mroce.h (which pulls in libibverbs' private
 * driver.h).  Callers provide the locking: one thread at a time per ring.
 *
 * Memory ordering.  The other side of every ring is the mroce kernel
 * driver running on another CPU, and the rings live in ordinary cacheable
 * kernel pages mapped into this process: this is CPU-to-CPU shared memory,
 * not DMA.  C11 atomics state exactly what that needs (a release store to
 * publish an index, an acquire load to observe one, a seq_cst fence for the
 * doorbell handshake) and pair with the kernel's smp_load_acquire()/
 * smp_store_release()/smp_mb().  util/udma_barrier.h is for memory a PCI
 * device reads by DMA; its barriers are both stronger than needed on some
 * architectures (e.g. "dmb osh" on arm64) and express no acquire/release
 * pairing.  The rxe and siw providers, also talking to a kernel on another
 * CPU, use C11 atomics for the same reason.
 */
#ifndef MROCE_RING_H
#define MROCE_RING_H

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/mroce-abi.h>

/*
 * The header's three indices sit in separate 64-byte lines so the kernel
 * writing one does not bounce the line the provider writes; the offsets are
 * part of the ABI, so pin them.
 */
static_assert(offsetof(struct mroce_ring_hdr, producer) == 0, "ring hdr");
static_assert(offsetof(struct mroce_ring_hdr, consumer) == 64, "ring hdr");
static_assert(offsetof(struct mroce_ring_hdr, flags) == 128, "ring hdr");
static_assert(sizeof(struct mroce_ring_hdr) == MROCE_RING_HDR_SIZE, "ring hdr");
static_assert(sizeof(struct mroce_send_wqe) == 64, "send wqe header");
static_assert(sizeof(struct mroce_recv_wqe) == 16, "recv wqe header");
static_assert(sizeof(struct mroce_sge) == 16, "sge");
static_assert(sizeof(struct mroce_cqe) == 64, "cqe");

/*
 * The ring carries libibverbs' opcode numbers where the ABI names the
 * kernel's enums; they are the same numbers only because libibverbs copies
 * the kernel's values.  Make a divergence a build error instead of a
 * silently wrong operation.  CQE opcodes and statuses are copied through
 * unchanged too; the receive opcodes (IB_WC_RECV = 128,
 * IB_WC_RECV_RDMA_WITH_IMM = 129) have no uapi name to check against.
 */
#define MROCE_SAME_VALUE(a, b) static_assert((int)(a) == (int)(b), #a " != " #b)
MROCE_SAME_VALUE(IBV_WR_RDMA_WRITE, IB_UVERBS_WR_RDMA_WRITE);
MROCE_SAME_VALUE(IBV_WR_RDMA_WRITE_WITH_IMM, IB_UVERBS_WR_RDMA_WRITE_WITH_IMM);
MROCE_SAME_VALUE(IBV_WR_SEND, IB_UVERBS_WR_SEND);
MROCE_SAME_VALUE(IBV_WR_SEND_WITH_IMM, IB_UVERBS_WR_SEND_WITH_IMM);
MROCE_SAME_VALUE(IBV_WR_RDMA_READ, IB_UVERBS_WR_RDMA_READ);
MROCE_SAME_VALUE(IBV_WR_ATOMIC_CMP_AND_SWP, IB_UVERBS_WR_ATOMIC_CMP_AND_SWP);
MROCE_SAME_VALUE(IBV_WR_ATOMIC_FETCH_AND_ADD, IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD);
MROCE_SAME_VALUE(IBV_WR_SEND_WITH_INV, IB_UVERBS_WR_SEND_WITH_INV);
MROCE_SAME_VALUE(IBV_WC_SEND, IB_UVERBS_WC_SEND);
MROCE_SAME_VALUE(IBV_WC_RDMA_WRITE, IB_UVERBS_WC_RDMA_WRITE);
MROCE_SAME_VALUE(IBV_WC_RDMA_READ, IB_UVERBS_WC_RDMA_READ);
MROCE_SAME_VALUE(IBV_WC_COMP_SWAP, IB_UVERBS_WC_COMP_SWAP);
MROCE_SAME_VALUE(IBV_WC_FETCH_ADD, IB_UVERBS_WC_FETCH_ADD);
MROCE_SAME_VALUE(IBV_WC_RECV, 128);
MROCE_SAME_VALUE(IBV_WC_RECV_RDMA_WITH_IMM, 129);
#undef MROCE_SAME_VALUE

/*
 * The header fields are plain __u32 in the ABI (the kernel declares them
 * that way too); accessing them through an _Atomic view is how rdma-core
 * providers do it, valid as long as the two have the same representation.
 */
static_assert(sizeof(_Atomic(uint32_t)) == sizeof(uint32_t), "atomic u32");
static_assert(_Alignof(_Atomic(uint32_t)) == _Alignof(uint32_t), "atomic u32");

static inline _Atomic(uint32_t) *mroce_atomic(uint32_t *p)
{
	return (_Atomic(uint32_t) *)p;
}

/* One mapped ring: the header followed by @entries slots of @stride bytes. */
struct mroce_ring {
	void *map;		/* NULL: not mapped */
	size_t map_size;
	uint32_t entries;	/* power of two */
	uint32_t stride;
};

static inline struct mroce_ring_hdr *mroce_ring_hdr(const struct mroce_ring *r)
{
	return r->map;
}

static inline void *mroce_ring_slot(const struct mroce_ring *r, uint32_t idx)
{
	return (uint8_t *)r->map + MROCE_RING_HDR_SIZE +
	       (size_t)(idx & (r->entries - 1)) * r->stride;
}

/*
 * Check that a ring the kernel describes can be used without ever touching
 * memory outside the mapping: the slot arithmetic masks with entries - 1
 * (so entries must be a power of two) and every slot must hold at least
 * @min_stride bytes and keep the 8-byte fields of the next slot aligned.
 * Returns 0 or EPROTO (the kernel broke the ABI).
 */
static inline int mroce_ring_check(uint64_t map_size, uint32_t entries,
				   uint32_t stride, uint64_t min_stride)
{
	if (!entries || (entries & (entries - 1)))
		return EPROTO;
	if (stride < min_stride || stride % 8)
		return EPROTO;
	if (map_size < MROCE_RING_HDR_SIZE ||
	    (uint64_t)entries * stride > map_size - MROCE_RING_HDR_SIZE)
		return EPROTO;
	return 0;
}

/*
 * An address handle: the kernel keeps the resolved destination and gives
 * back the number UD send requests name it by.
 */
struct mroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t ah_num;
};

/* What one send queue accepts, fixed at create_qp time. */
struct mroce_sq_limits {
	enum ibv_qp_type qp_type;
	uint32_t max_sge;	/* fits in the stride, checked at create */
	uint32_t max_inline;	/* fits in the stride, checked at create */
};

static inline bool mroce_opcode_valid(enum ibv_qp_type qp_type,
				      enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return true;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		/* UC has WRITE but not READ/atomics (IB spec 9.7.4). */
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return qp_type == IBV_QPT_RC;
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		/* Memory windows are a connected QP's business. */
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC;
	default:
		/* TSO, DRIVER1, ...: not in the ABI. */
		return false;
	}
}

/*
 * Only these flags mean something to mroce.  IBV_SEND_IP_CSUM (checksum
 * offload for raw/UD packets) and anything newer is refused rather than
 * silently dropped, so an application never believes a request it made
 * was honoured.
 */
#define MROCE_IBV_SEND_FLAGS \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)

static inline uint32_t mroce_send_flags(unsigned int ibv_flags)
{
	uint32_t f = 0;

	/*
	 * The ABI gives the MROCE_SEND_F_* bits the ibv values, but map them
	 * one by one anyway: it costs four tests and keeps the ring format
	 * from depending on libibverbs' numbering.
	 */
	if (ibv_flags & IBV_SEND_FENCE)
		f |= MROCE_SEND_F_FENCE;
	if (ibv_flags & IBV_SEND_SIGNALED)
		f |= MROCE_SEND_F_SIGNALED;
	if (ibv_flags & IBV_SEND_SOLICITED)
		f |= MROCE_SEND_F_SOLICITED;
	if (ibv_flags & IBV_SEND_INLINE)
		f |= MROCE_SEND_F_INLINE;
	return f;
}

/*
 * Check one send work request against the queue's limits.  These are the
 * errors libibverbs reports immediately from ibv_post_send() (EINVAL, with
 * *bad_wr naming the request); anything that depends on remote state (keys,
 * alignment of the remote address, QP state) is the kernel's to report in
 * a completion.
 */
static inline int mroce_send_wr_check(const struct ibv_send_wr *wr,
				      const struct mroce_sq_limits *lim)
{
	uint64_t total = 0;
	int i;

	if (!mroce_opcode_valid(lim->qp_type, wr->opcode))
		return EINVAL;
	if (wr->send_flags & ~MROCE_IBV_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > lim->max_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	if (lim->qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (wr->opcode == IBV_WR_BIND_MW && !wr->bind_mw.mw)
		return EINVAL;

	switch (wr->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		/*
		 * An atomic returns the original 64-bit value into exactly
		 * one local buffer (IB spec 9.4.5); a shorter one could only
		 * end in a local length error later.
		 */
		if (wr->num_sge != 1 || wr->sg_list[0].length < sizeof(uint64_t))
			return EINVAL;
		break;
	default:
		break;
	}

	if (!(wr->send_flags & IBV_SEND_INLINE))
		return 0;

	/* Inline carries outgoing payload, so only SENDs and WRITEs. */
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		break;
	default:
		return EINVAL;
	}
	for (i = 0; i < wr->num_sge; i++) {
		/* 64-bit sum of 32-bit lengths cannot wrap. */
		total += wr->sg_list[i].length;
		if (total > lim->max_inline)
			return EINVAL;
	}
	return 0;
}

/*
 * Write one (already checked) send work request into @slot.  Every byte
 * of the 64-byte header is written, reserved fields and unused union
 * members included, so nothing left from an earlier use of the slot
 * reaches the kernel.
 */
static inline void mroce_send_wqe_encode(void *slot,
					 const struct ibv_send_wr *wr,
					 const struct mroce_sq_limits *lim)
{
	struct mroce_send_wqe *wqe = slot;
	uint8_t *payload = (uint8_t *)(wqe + 1);
	uint32_t inline_len = 0;
	int i;

	*wqe = (struct mroce_send_wqe){
		.wr_id = wr->wr_id,
		.opcode = wr->opcode,
		.send_flags = mroce_send_flags(wr->send_flags),
	};

	/*
	 * imm_data and invalidate_rkey share storage in ibv_send_wr as in the
	 * WQE; the kernel tells them apart by opcode.  Immediate data is
	 * already big-endian and stays so; the rkey is a host-order number.
	 */
	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm_data = (uint32_t)wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->imm_data = wr->invalidate_rkey;
		break;
	default:
		break;
	}

	/* Local operations: no payload, nothing more than their fields. */
	if (wr->opcode == IBV_WR_LOCAL_INV)
		return;
	if (wr->opcode == IBV_WR_BIND_MW) {
		const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

		wqe->wr.bind.addr = bi->addr;
		wqe->wr.bind.length = bi->length;
		wqe->wr.bind.mw_rkey = wr->bind_mw.mw->rkey;
		wqe->wr.bind.new_rkey = wr->bind_mw.rkey;
		wqe->wr.bind.mr_lkey = bi->mr ? bi->mr->lkey : 0;
		wqe->wr.bind.access = bi->mw_access_flags;
		return;
	}

	if (lim->qp_type == IBV_QPT_UD) {
		/* The number the kernel gave the AH at create_ah. */
		wqe->wr.ud.ah = ((struct mroce_ah *)wr->wr.ud.ah)->ah_num;
		wqe->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
	} else {
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_RDMA_READ:
			wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
			wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
			wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
			wqe->wr.atomic.swap = wr->wr.atomic.swap;
			wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
			break;
		default:
			break;
		}
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		/*
		 * Inline data is copied now, which is the point of inline:
		 * the application may reuse its buffers as soon as
		 * ibv_post_send() returns, and lkeys are not looked at.
		 */
		for (i = 0; i < wr->num_sge; i++) {
			const struct ibv_sge *sge = &wr->sg_list[i];

			memcpy(payload + inline_len,
			       (const void *)(uintptr_t)sge->addr, sge->length);
			inline_len += sge->length;
		}
		wqe->inline_len = inline_len;
		return;
	}

	for (i = 0; i < wr->num_sge; i++) {
		struct mroce_sge *dst = (struct mroce_sge *)payload + i;

		*dst = (struct mroce_sge){
			.addr = wr->sg_list[i].addr,
			.length = wr->sg_list[i].length,
			.lkey = wr->sg_list[i].lkey,
		};
	}
	wqe->num_sge = wr->num_sge;
}

/*
 * Is slot @prod free?  @cons is the caller's view of the consumer index,
 * loaded again (acquire: the kernel stores it only after it has read the
 * entries it covers) only when the ring looks full.
 */
static inline bool mroce_ring_room(struct mroce_ring *r, uint32_t prod,
				   uint32_t *cons)
{
	/* Unsigned difference: correct across the 2^32 wrap. */
	if (prod - *cons < r->entries)
		return true;
	*cons = atomic_load_explicit(mroce_atomic(&mroce_ring_hdr(r)->consumer),
				     memory_order_acquire);
	return prod - *cons < r->entries;
}

/* Make entries [start, prod) visible to the kernel with one release. */
static inline void mroce_ring_publish(struct mroce_ring *r, uint32_t start,
				      uint32_t prod)
{
	if (prod != start)
		atomic_store_explicit(mroce_atomic(&mroce_ring_hdr(r)->producer),
				      prod, memory_order_release);
}

/*
 * Post a list of send work requests.  Stops at the first that is invalid
 * (EINVAL) or does not fit (ENOMEM), sets *bad_wr to it and returns the
 * error; the ones before it are posted.  All posted entries become visible
 * to the kernel with one release store of the producer index, so the
 * kernel never sees a half-written entry.  *nposted tells the caller
 * whether to consider the doorbell.
 */
static inline int mroce_sq_post(struct mroce_ring *sq,
				const struct mroce_sq_limits *lim,
				struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr, uint32_t *nposted)
{
	struct mroce_ring_hdr *hdr = mroce_ring_hdr(sq);
	uint32_t prod, cons, start;
	int ret = 0;

	/*
	 * We are the only writer of the producer index (the caller holds the
	 * queue lock), so a relaxed load is enough.  The consumer index is
	 * loaded with acquire: the kernel stores it (release) only after it
	 * has finished reading the entries it covers, and the acquire keeps
	 * our writes into those slots from being ordered before that.
	 */
	prod = atomic_load_explicit(mroce_atomic(&hdr->producer),
				    memory_order_relaxed);
	cons = atomic_load_explicit(mroce_atomic(&hdr->consumer),
				    memory_order_acquire);
	start = prod;

	for (; wr; wr = wr->next) {
		if (!mroce_ring_room(sq, prod, &cons)) {
			ret = ENOMEM;
			break;
		}
		ret = mroce_send_wr_check(wr, lim);
		if (ret)
			break;
		mroce_send_wqe_encode(mroce_ring_slot(sq, prod), wr, lim);
		prod++;
	}

	if (ret)
		*bad_wr = wr;
	mroce_ring_publish(sq, start, prod);
	*nposted = prod - start;
	return ret;
}

/*
 * After mroce_sq_post() or mroce_rq_post() published entries: does the
 * kernel want a doorbell?  The kernel sets MROCE_RING_F_DOORBELL (on a send
 * queue before it sleeps, on a QP's receive queue in the error state), then
 * runs a full barrier and looks at the producer once more.  Here the
 * producer store is followed by a full barrier and then the flag load.
 * Whatever the interleaving, either the kernel sees our new producer (and
 * does not sleep) or we see its flag (and wake it): the store->load order
 * on both sides is what a release/acquire pair cannot give, hence seq_cst.
 */
static inline bool mroce_ring_needs_doorbell(struct mroce_ring *ring)
{
	struct mroce_ring_hdr *hdr = mroce_ring_hdr(ring);

	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(mroce_atomic(&hdr->flags),
				    memory_order_relaxed) &
	       MROCE_RING_F_DOORBELL;
}

static inline int mroce_recv_wr_check(const struct ibv_recv_wr *wr,
				      uint32_t max_sge)
{
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	return 0;
}

static inline void mroce_recv_wqe_encode(void *slot,
					 const struct ibv_recv_wr *wr)
{
	struct mroce_recv_wqe *wqe = slot;
	struct mroce_sge *sge = (struct mroce_sge *)(wqe + 1);
	int i;

	*wqe = (struct mroce_recv_wqe){
		.wr_id = wr->wr_id,
		.num_sge = wr->num_sge,
	};
	for (i = 0; i < wr->num_sge; i++)
		sge[i] = (struct mroce_sge){
			.addr = wr->sg_list[i].addr,
			.length = wr->sg_list[i].length,
			.lkey = wr->sg_list[i].lkey,
		};
}

/*
 * Post a list of receive work requests: same contract and ordering as
 * mroce_sq_post().  The kernel looks at the receive ring when a message
 * arrives; it asks for a doorbell only in the error state.
 */
static inline int mroce_rq_post(struct mroce_ring *rq, uint32_t max_sge,
				struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	struct mroce_ring_hdr *hdr = mroce_ring_hdr(rq);
	uint32_t prod, cons, start;
	int ret = 0;

	prod = atomic_load_explicit(mroce_atomic(&hdr->producer),
				    memory_order_relaxed);
	cons = atomic_load_explicit(mroce_atomic(&hdr->consumer),
				    memory_order_acquire);
	start = prod;

	for (; wr; wr = wr->next) {
		if (!mroce_ring_room(rq, prod, &cons)) {
			ret = ENOMEM;
			break;
		}
		ret = mroce_recv_wr_check(wr, max_sge);
		if (ret)
			break;
		mroce_recv_wqe_encode(mroce_ring_slot(rq, prod), wr);
		prod++;
	}

	if (ret)
		*bad_wr = wr;
	mroce_ring_publish(rq, start, prod);
	return ret;
}

static inline void mroce_cqe_decode(const struct mroce_cqe *cqe,
				    struct ibv_wc *wc)
{
	uint32_t flags = cqe->wc_flags;

	wc->wr_id = cqe->wr_id;
	/* Same numbers on both sides (IB spec values); see the asserts. */
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;

	/*
	 * The MROCE_WC_F_* bits are not the IBV_WC_* ones (WITH_INV is bit 2
	 * here, bit 3 in libibverbs), so translate.  imm_data and
	 * invalidated_rkey share storage in ibv_wc: the flag says which
	 * one the CQE carries; imm_data is network order already.
	 */
	wc->wc_flags = 0;
	wc->imm_data = 0;
	if (flags & MROCE_WC_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	if (flags & MROCE_WC_F_WITH_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = (__be32)cqe->imm_data;
	} else if (flags & MROCE_WC_F_WITH_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = cqe->imm_data;
	}
}

/*
 * Take up to @ne completions.  The acquire load of the producer pairs with
 * the kernel's release store, so every CQE below it is complete when we
 * read it; the release store of the consumer, after the reads, tells the
 * kernel it may reuse those slots and keeps our reads from being ordered
 * after its new writes.
 */
static inline int mroce_cq_poll(struct mroce_ring *cq, int ne,
				struct ibv_wc *wc)
{
	struct mroce_ring_hdr *hdr = mroce_ring_hdr(cq);
	uint32_t prod, cons;
	int n = 0;

	prod = atomic_load_explicit(mroce_atomic(&hdr->producer),
				    memory_order_acquire);
	cons = atomic_load_explicit(mroce_atomic(&hdr->consumer),
				    memory_order_relaxed);

	while (n < ne && cons != prod) {
		mroce_cqe_decode(mroce_ring_slot(cq, cons), &wc[n]);
		cons++;
		n++;
	}

	if (n)
		atomic_store_explicit(mroce_atomic(&hdr->consumer), cons,
				      memory_order_release);
	return n;
}

#endif /* MROCE_RING_H */

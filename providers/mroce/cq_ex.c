// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Extended CQ polling (ibv_create_cq_ex()): start_poll/next_poll/end_poll
 * walk the same CQE ring as ibv_poll_cq(), under the same lock, and the
 * read_* callbacks answer from the completion under the cursor, decoded
 * once by mroce_cqe_decode().  Consumed entries go back to the kernel in
 * end_poll, with one release store of the consumer index.
 */
#include <endian.h>
#include <errno.h>

#include "mroce.h"

static struct mroce_cq *ex_to_mcq(struct ibv_cq_ex *ex)
{
	return container_of(ex, struct mroce_cq, vcq.cq_ex);
}

/* Decode the entry under the cursor and publish status and wr_id. */
static void cursor_load(struct mroce_cq *cq)
{
	mroce_cqe_decode(mroce_ring_slot(&cq->ring, cq->cur), &cq->cur_wc);
	cq->vcq.cq_ex.status = cq->cur_wc.status;
	cq->vcq.cq_ex.wr_id = cq->cur_wc.wr_id;
	cq->pending = true;
}

static int cq_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct mroce_cq *cq = ex_to_mcq(ex);
	struct mroce_ring_hdr *hdr;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	if (!cq->ring.map) {
		/* A failed resize left no ring: nothing will come. */
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	hdr = mroce_ring_hdr(&cq->ring);
	/* As mroce_cq_poll(): acquire pairs with the kernel's release. */
	cq->prod = atomic_load_explicit(mroce_atomic(&hdr->producer),
					memory_order_acquire);
	cq->cur = atomic_load_explicit(mroce_atomic(&hdr->consumer),
				       memory_order_relaxed);
	cq->pending = false;
	if (cq->cur == cq->prod) {
		/* ENOENT from start_poll: the caller does not call end_poll. */
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	cursor_load(cq);
	return 0;
}

static int cq_next_poll(struct ibv_cq_ex *ex)
{
	struct mroce_cq *cq = ex_to_mcq(ex);

	cq->cur++;
	cq->pending = false;
	if (cq->cur == cq->prod) {
		struct mroce_ring_hdr *hdr = mroce_ring_hdr(&cq->ring);

		cq->prod = atomic_load_explicit(mroce_atomic(&hdr->producer),
						memory_order_acquire);
		if (cq->cur == cq->prod)
			return ENOENT;
	}
	cursor_load(cq);
	return 0;
}

static void cq_end_poll(struct ibv_cq_ex *ex)
{
	struct mroce_cq *cq = ex_to_mcq(ex);
	struct mroce_ring_hdr *hdr = mroce_ring_hdr(&cq->ring);

	/* The entry under the cursor was read too: hand it back as well. */
	atomic_store_explicit(mroce_atomic(&hdr->consumer),
			      cq->cur + (cq->pending ? 1 : 0),
			      memory_order_release);
	cq->pending = false;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode cq_read_opcode(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.opcode;
}

static uint32_t cq_read_vendor_err(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.vendor_err;
}

static uint32_t cq_read_byte_len(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.byte_len;
}

/*
 * Immediate data, or the invalidated rkey: libibverbs'
 * ibv_wc_read_invalidated_rkey() converts this value from big-endian.
 */
static __be32 cq_read_imm_data(struct ibv_cq_ex *ex)
{
	const struct ibv_wc *wc = &ex_to_mcq(ex)->cur_wc;

	if (wc->wc_flags & IBV_WC_WITH_INV)
		return htobe32(wc->invalidated_rkey);
	return wc->imm_data;
}

static uint32_t cq_read_qp_num(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.qp_num;
}

static uint32_t cq_read_src_qp(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.src_qp;
}

static unsigned int cq_read_wc_flags(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.wc_flags;
}

static uint32_t cq_read_slid(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.slid;
}

static uint8_t cq_read_sl(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.sl;
}

static uint8_t cq_read_dlid_path_bits(struct ibv_cq_ex *ex)
{
	return ex_to_mcq(ex)->cur_wc.dlid_path_bits;
}

/**
 * mroce_cq_ex_init() - check an extended CQ request and set its callbacks
 * @cq: the CQ, created in the kernel
 * @attr: what the application asked for
 *
 * Return: 0, or EOPNOTSUPP for completion fields mroce cannot report
 * (timestamps, VLAN, flow tag, tag matching) and CQ flags it does not
 * honour; the caller then destroys the CQ.
 */
int mroce_cq_ex_init(struct mroce_cq *cq, const struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *ex = &cq->vcq.cq_ex;

	if (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS)
		return EOPNOTSUPP;
	if (attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS)
		return EOPNOTSUPP;
	/* Single-threaded use needs nothing; ignoring overruns is not offered. */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;

	ex->start_poll = cq_start_poll;
	ex->next_poll = cq_next_poll;
	ex->end_poll = cq_end_poll;
	ex->read_opcode = cq_read_opcode;
	ex->read_vendor_err = cq_read_vendor_err;
	ex->read_wc_flags = cq_read_wc_flags;
	/* Each field only when asked for, as libibverbs' contract says. */
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = cq_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = cq_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = cq_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = cq_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		ex->read_slid = cq_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		ex->read_sl = cq_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = cq_read_dlid_path_bits;
	return 0;
}

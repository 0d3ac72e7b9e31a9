// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The extended QP's work request API (ibv_wr_start(), ibv_wr_send(), ...,
 * ibv_wr_complete()).  Each ibv_wr_* call fills one struct ibv_send_wr of
 * the QP's batch; ibv_wr_complete() chains them and posts them exactly as
 * ibv_post_send() would, so both APIs share every check and the ring
 * encoding.  The send queue lock is held from wr_start to wr_complete or
 * wr_abort, as the API allows one batch per QP at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mroce.h"

static struct mroce_qp *ex_to_mqp(struct ibv_qp_ex *ex)
{
	return container_of(ex, struct mroce_qp, vqp.qp_ex);
}

/* Start the next request of the batch; NULL when it does not fit. */
static struct ibv_send_wr *batch_next(struct ibv_qp_ex *ex,
				      enum ibv_wr_opcode opcode)
{
	struct mroce_qp *qp = ex_to_mqp(ex);
	struct mroce_wr_batch *b = &qp->batch;
	struct ibv_send_wr *wr;

	if (b->n == b->max) {
		if (!b->err)
			b->err = ENOMEM;
		return NULL;
	}
	wr = &b->wr[b->n];
	*wr = (struct ibv_send_wr){
		.wr_id = ex->wr_id,
		.opcode = opcode,
		.send_flags = ex->wr_flags,
		.sg_list = &b->sge[(size_t)b->n * b->sge_per_wr],
	};
	b->n++;
	return wr;
}

/* The request the wr_set_* calls complete; NULL before any. */
static struct ibv_send_wr *batch_last(struct mroce_qp *qp)
{
	return qp->batch.n ? &qp->batch.wr[qp->batch.n - 1] : NULL;
}

static void batch_fail(struct mroce_qp *qp, int err)
{
	if (!qp->batch.err)
		qp->batch.err = err;
}

static void wr_start(struct ibv_qp_ex *ex)
{
	struct mroce_qp *qp = ex_to_mqp(ex);

	pthread_spin_lock(&qp->sq.lock);
	qp->batch.n = 0;
	qp->batch.err = 0;
}

static int wr_complete(struct ibv_qp_ex *ex)
{
	struct mroce_qp *qp = ex_to_mqp(ex);
	struct mroce_wr_batch *b = &qp->batch;
	struct ibv_send_wr *bad;
	uint32_t i, n = b->n;
	int err = b->err;

	b->n = 0;
	if (err || !n) {
		pthread_spin_unlock(&qp->sq.lock);
		return err;
	}
	for (i = 0; i + 1 < n; i++)
		b->wr[i].next = &b->wr[i + 1];
	b->wr[n - 1].next = NULL;
	/* Releases the lock before any doorbell. */
	return mroce_post_sq(qp, b->wr, &bad, true);
}

static void wr_abort(struct ibv_qp_ex *ex)
{
	struct mroce_qp *qp = ex_to_mqp(ex);

	qp->batch.n = 0;
	pthread_spin_unlock(&qp->sq.lock);
}

static void wr_send(struct ibv_qp_ex *ex)
{
	batch_next(ex, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *ex, __be32 imm_data)
{
	struct ibv_send_wr *wr = batch_next(ex, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *ex, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = batch_next(ex, IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void set_rdma(struct ibv_send_wr *wr, uint32_t rkey, uint64_t addr)
{
	if (wr) {
		wr->wr.rdma.rkey = rkey;
		wr->wr.rdma.remote_addr = addr;
	}
}

static void wr_rdma_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	set_rdma(batch_next(ex, IBV_WR_RDMA_WRITE), rkey, addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *ex, uint32_t rkey,
			      uint64_t addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = batch_next(ex, IBV_WR_RDMA_WRITE_WITH_IMM);

	set_rdma(wr, rkey, addr);
	if (wr)
		wr->imm_data = imm_data;
}

static void wr_rdma_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	set_rdma(batch_next(ex, IBV_WR_RDMA_READ), rkey, addr);
}

static void set_atomic(struct ibv_send_wr *wr, uint32_t rkey, uint64_t addr,
		       uint64_t compare_add, uint64_t swap)
{
	if (wr) {
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.remote_addr = addr;
		wr->wr.atomic.compare_add = compare_add;
		wr->wr.atomic.swap = swap;
	}
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *ex, uint32_t rkey,
			      uint64_t addr, uint64_t compare, uint64_t swap)
{
	set_atomic(batch_next(ex, IBV_WR_ATOMIC_CMP_AND_SWP), rkey, addr,
		   compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *ex, uint32_t rkey,
				uint64_t addr, uint64_t add)
{
	set_atomic(batch_next(ex, IBV_WR_ATOMIC_FETCH_AND_ADD), rkey, addr,
		   add, 0);
}

static void wr_bind_mw(struct ibv_qp_ex *ex, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = batch_next(ex, IBV_WR_BIND_MW);

	if (wr) {
		wr->bind_mw.mw = mw;
		wr->bind_mw.rkey = rkey;
		wr->bind_mw.bind_info = *bind_info;
	}
}

static void wr_local_inv(struct ibv_qp_ex *ex, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = batch_next(ex, IBV_WR_LOCAL_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void wr_set_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct mroce_qp *qp = ex_to_mqp(ex);
	struct ibv_send_wr *wr = batch_last(qp);

	if (!wr) {
		batch_fail(qp, EINVAL);
		return;
	}
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void wr_set_sge_list(struct ibv_qp_ex *ex, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct mroce_qp *qp = ex_to_mqp(ex);
	struct ibv_send_wr *wr = batch_last(qp);

	if (!wr || num_sge > qp->sq_limits.max_sge) {
		batch_fail(qp, EINVAL);
		return;
	}
	memcpy(wr->sg_list, sg_list, num_sge * sizeof(*sg_list));
	wr->num_sge = (int)num_sge;
}

static void wr_set_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(ex, 1, &sge);
}

/*
 * Inline data is copied now (the caller may reuse its buffers as soon as
 * the call returns) into the request's own buffer, which then becomes its
 * one SGE; IBV_SEND_INLINE makes the post copy it into the ring.
 */
static void wr_set_inline_data_list(struct ibv_qp_ex *ex, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct mroce_qp *qp = ex_to_mqp(ex);
	struct ibv_send_wr *wr = batch_last(qp);
	uint32_t max = qp->sq_limits.max_inline;
	uint8_t *dst;
	size_t i, len = 0;

	if (!wr) {
		batch_fail(qp, EINVAL);
		return;
	}
	dst = &qp->batch.inl[(size_t)(wr - qp->batch.wr) * max];
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > max - len) {
			batch_fail(qp, EINVAL);
			return;
		}
		memcpy(dst + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	wr->sg_list[0] = (struct ibv_sge){ .addr = (uintptr_t)dst, .length = (uint32_t)len };
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *ex, void *addr, size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(ex, 1, &buf);
}

/* The operations each QP type offers through the extended API. */
static uint64_t supported_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		       IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV;
	case IBV_QPT_UC:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		       IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV;
	case IBV_QPT_UD:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	default:
		return 0;
	}
}

/**
 * mroce_qp_ex_init() - set up the work request API of a new QP
 * @qp: the QP, created in the kernel, rings mapped
 * @attr: what the application asked for
 *
 * Return: 0 (also when the application asked for no send operations);
 * EOPNOTSUPP for an operation the QP type does not offer; ENOMEM.
 */
int mroce_qp_ex_init(struct mroce_qp *qp, const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;
	struct mroce_wr_batch *b = &qp->batch;
	uint64_t ops;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return 0;
	ops = attr->send_ops_flags;
	if (ops & ~supported_ops(attr->qp_type))
		return EOPNOTSUPP;

	b->max = qp->sq.ring.entries;
	/* Inline data takes one SGE slot even when max_sge is 0. */
	b->sge_per_wr = qp->sq_limits.max_sge ? qp->sq_limits.max_sge : 1;
	b->wr = calloc(b->max, sizeof(*b->wr));
	b->sge = calloc((size_t)b->max * b->sge_per_wr, sizeof(*b->sge));
	b->inl = qp->sq_limits.max_inline ?
		 calloc(b->max, qp->sq_limits.max_inline) : NULL;
	if (!b->wr || !b->sge || (qp->sq_limits.max_inline && !b->inl)) {
		mroce_qp_ex_cleanup(qp);
		return ENOMEM;
	}

	qp->vqp.comp_mask |= VERBS_QP_EX;
	ex->wr_start = wr_start;
	ex->wr_complete = wr_complete;
	ex->wr_abort = wr_abort;
	ex->wr_send = wr_send;
	ex->wr_send_imm = wr_send_imm;
	ex->wr_send_inv = wr_send_inv;
	ex->wr_rdma_write = wr_rdma_write;
	ex->wr_rdma_write_imm = wr_rdma_write_imm;
	ex->wr_rdma_read = wr_rdma_read;
	ex->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	ex->wr_atomic_fetch_add = wr_atomic_fetch_add;
	ex->wr_bind_mw = wr_bind_mw;
	ex->wr_local_inv = wr_local_inv;
	ex->wr_set_ud_addr = wr_set_ud_addr;
	ex->wr_set_sge = wr_set_sge;
	ex->wr_set_sge_list = wr_set_sge_list;
	ex->wr_set_inline_data = wr_set_inline_data;
	ex->wr_set_inline_data_list = wr_set_inline_data_list;
	return 0;
}

void mroce_qp_ex_cleanup(struct mroce_qp *qp)
{
	free(qp->batch.wr);
	free(qp->batch.sge);
	free(qp->batch.inl);
	qp->batch = (struct mroce_wr_batch){ 0 };
}

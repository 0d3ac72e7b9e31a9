// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Userspace provider for the mroce soft-RDMA device.
 *
 * Control verbs (PD, MR, AH, CQ/QP create, modify, destroy) are kernel
 * commands.  The data path (post_send, post_recv, poll_cq) never enters
 * the kernel: work requests and completions go through rings shared with
 * the kernel driver (mroce_ring.h, include/uapi/rdma/mroce-abi.h), and
 * the only system calls on it are the doorbells: the send queue's, made
 * when the kernel says it has gone idle, and the receive queue's, made
 * only once the QP is in the error state.  Every verb left unset in
 * mroce_ctx_ops keeps libibverbs' default op, which fails with EOPNOTSUPP.
 */

#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mroce.h"

/*
 * How libibverbs finds mroce devices.
 *
 * mroce is an out-of-tree driver, so its kernel device reports
 * RDMA_DRIVER_UNKNOWN and libibverbs has no driver id to match.  Nor can a
 * name pattern do: "rdma link add" accepts any name, and a device named
 * "rdma0" must work as well as "mroce0".  So there is no match table;
 * libibverbs calls this for every uverbs device, and the kernel tells mroce
 * devices apart by their hca_type attribute (MROCE_HCA_TYPE).  In-tree
 * drivers report their own driver id: insisting on UNKNOWN keeps an rxe
 * device, or another driver's hca_type, from ever being claimed.
 */
static bool mroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char type[sizeof(MROCE_HCA_TYPE) + 1];

	if (sysfs_dev->driver_id != RDMA_DRIVER_UNKNOWN)
		return false;
	if (ibv_read_ibdev_sysfs_file(type, sizeof(type), sysfs_dev,
				      "hca_type") <= 0)
		return false;

	return strcmp(type, MROCE_HCA_TYPE) == 0;
}

static int mroce_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	struct verbs_sysfs_dev *sysfs_dev;
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/*
	 * The command returns fw_ver only as a raw u64 and leaves the string
	 * to the provider.  mroce has no firmware; the kernel's own string
	 * (get_dev_fw_str, shown in sysfs and by "rdma dev") is the one
	 * source of truth, so show the same text here.
	 */
	sysfs_dev = verbs_get_device(ibctx->device)->sysfs;
	if (sysfs_dev &&
	    ibv_read_ibdev_sysfs_file(attr->orig_attr.fw_ver,
				      sizeof(attr->orig_attr.fw_ver), sysfs_dev,
				      "fw_ver") > 0)
		return 0;

	/* No sysfs view (e.g. another net namespace): decode the u64. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);

	return 0;
}

static int mroce_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *mroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int ret;

	/* The PD is pure kernel state; userspace only keeps the handle. */
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}

	return pd;
}

static int mroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	/* Keep the handle if the kernel refused (e.g. PD still in use). */
	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;

	free(pd);
	return 0;
}

static struct ibv_mr *mroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	/*
	 * The kernel pins the pages and keeps the translation; userspace
	 * only needs the keys, which ibv_cmd_reg_mr stores in vmr.
	 */
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}

	return &vmr->ibv_mr;
}

static int mroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;

	free(vmr);
	return 0;
}

static struct ibv_ah *mroce_create_ah(struct ibv_pd *pd,
				      struct ibv_ah_attr *attr)
{
	struct umroce_create_ah_resp resp = {};
	struct mroce_ah *ah;
	int ret;

	/*
	 * The kernel resolves the GID to an address and keeps the result;
	 * a UD send WQE names the AH by the number it returns.
	 */
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.ah_num;
	return &ah->ibv_ah;
}

static int mroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;

	free(container_of(ibah, struct mroce_ah, ibv_ah));
	return 0;
}

/*
 * Map one ring the kernel described in a create/resize response.  The
 * description is checked first: every index the data path computes is
 * masked into [0, entries) and multiplied by the stride, so a ring that
 * passes mroce_ring_check() can never make us touch memory outside the
 * mapping, whatever the kernel later writes into the indices.
 */
static int mroce_map_ring(struct ibv_context *ibctx, struct mroce_ring *ring,
			  const char *what, uint64_t offset, uint32_t size,
			  uint32_t entries, uint32_t stride,
			  uint64_t min_stride)
{
	void *map;

	if (mroce_ring_check(size, entries, stride, min_stride)) {
		verbs_err(verbs_get_ctx(ibctx),
			  "mroce: kernel described an unusable %s ring (%u bytes, %u entries of %u bytes, entries need >= %llu bytes); kernel and provider disagree on the ABI\n",
			  what, size, entries, stride,
			  (unsigned long long)min_stride);
		return EPROTO;
	}

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibctx->cmd_fd, offset);
	if (map == MAP_FAILED)
		return errno;

	*ring = (struct mroce_ring){
		.map = map,
		.map_size = size,
		.entries = entries,
		.stride = stride,
	};
	return 0;
}

static void mroce_unmap_ring(struct mroce_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->map_size);
	ring->map = NULL;
}

/*
 * Both ways of creating a CQ: with @attr (ibv_create_cq_ex()) or with the
 * classic arguments.  Returns the CQ or NULL with errno set.
 */
static struct mroce_cq *mroce_cq_create(struct ibv_context *ibctx, int cqe,
					struct ibv_comp_channel *channel,
					int comp_vector,
					struct ibv_cq_init_attr_ex *attr)
{
	struct umroce_create_cq_ex_resp resp_ex = {};
	struct umroce_create_cq_ex cmd_ex = {};
	struct umroce_create_cq_resp resp = {};
	struct umroce_create_cq cmd = {};
	const struct mroce_create_cq_resp *drv;
	struct mroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;

	if (attr) {
		/* Refuse what cannot be honoured before the kernel is asked. */
		ret = mroce_cq_ex_init(cq, attr);
		if (ret)
			goto err_lock;
		ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd_ex.ibv_cmd,
					   sizeof(cmd_ex), &resp_ex.ibv_resp,
					   sizeof(resp_ex), 0);
		drv = &resp_ex.drv_payload;
	} else {
		ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector,
					&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
					&resp.ibv_resp, sizeof(resp));
		drv = &resp.drv_payload;
	}
	if (ret)
		goto err_lock;

	/*
	 * CQEs have one fixed size (the ABI gives the CQ no stride), so the
	 * stride is sizeof(struct mroce_cqe) by definition.  A kernel that
	 * answered with a shorter response left resp zeroed, which the
	 * check refuses (0 entries).
	 */
	ret = mroce_map_ring(ibctx, &cq->ring, "completion queue",
			     drv->mmap_offset, drv->mmap_size, drv->entries,
			     sizeof(struct mroce_cqe), sizeof(struct mroce_cqe));
	if (ret)
		goto err_destroy;

	return cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_lock:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

static struct ibv_cq *mroce_create_cq(struct ibv_context *ibctx, int cqe,
				      struct ibv_comp_channel *channel,
				      int comp_vector)
{
	struct mroce_cq *cq = mroce_cq_create(ibctx, cqe, channel, comp_vector,
					      NULL);

	return cq ? &cq->vcq.cq : NULL;
}

static struct ibv_cq_ex *mroce_create_cq_ex(struct ibv_context *ibctx,
					    struct ibv_cq_init_attr_ex *attr)
{
	struct mroce_cq *cq = mroce_cq_create(ibctx, 0, NULL, 0, attr);

	return cq ? &cq->vcq.cq_ex : NULL;
}

static int mroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	int n;

	pthread_spin_lock(&cq->lock);
	/* No ring: a failed resize left nothing to poll (see resize_cq). */
	n = cq->ring.map ? mroce_cq_poll(&cq->ring, ne, wc) : -1;
	pthread_spin_unlock(&cq->lock);

	return n;
}

static int mroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	struct umroce_resize_cq_resp resp = {};
	struct umroce_resize_cq cmd = {};
	struct mroce_ring ring;
	int ret;

	/*
	 * The lock is held across the kernel command, not just the remap:
	 * the kernel copies the entries between the old ring's consumer and
	 * producer into the new ring, so no poller may advance the old
	 * consumer meanwhile (it would hand out CQEs the new ring repeats),
	 * and none may read the old ring once the kernel has switched.
	 */
	pthread_spin_lock(&cq->lock);

	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto out;

	/*
	 * The kernel now writes only to the new ring, so the old mapping
	 * goes whether or not the new one can be made.  If it cannot, the
	 * CQ is left without a ring and poll_cq fails from then on; there
	 * is nothing better to fall back to.
	 */
	ret = mroce_map_ring(ibcq->context, &ring, "completion queue",
			     resp.mmap_offset, resp.mmap_size, resp.entries,
			     sizeof(struct mroce_cqe), sizeof(struct mroce_cqe));
	mroce_unmap_ring(&cq->ring);
	if (!ret)
		cq->ring = ring;

out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static int mroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	int ret;

	/* Keep the ring if the kernel refused (e.g. a QP still uses it). */
	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	mroce_unmap_ring(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/*
 * Map the QP's rings and fix what post_send/post_recv accept.  @cap is what
 * the kernel granted: ibv_cmd_create_qp() has already copied the core
 * response (ioctl or write() path alike) over the caller's request.  The
 * application was promised those numbers, so a ring whose stride or depth
 * cannot honour them is an ABI error, reported at create time rather than
 * as mysterious EINVAL/ENOMEM from post calls later.
 */
static int mroce_qp_map_rings(struct ibv_context *ibctx, struct mroce_qp *qp,
			      const struct ibv_qp_cap *cap,
			      enum ibv_qp_type qp_type, bool has_srq,
			      const struct mroce_create_qp_resp *resp)
{
	struct verbs_context *vctx = verbs_get_ctx(ibctx);
	uint64_t sgl, min_stride;
	int ret;

	/*
	 * Inline is enforced against the driver's max_inline (what the ring
	 * format holds); the core cap.max_inline_data is what the
	 * application was told and must not exceed it.
	 */
	if (cap->max_inline_data > resp->max_inline ||
	    resp->sq_entries < cap->max_send_wr) {
		verbs_err(vctx,
			  "mroce: kernel granted max_inline_data %u and max_send_wr %u but its send ring holds %u inline bytes and %u entries\n",
			  cap->max_inline_data, cap->max_send_wr,
			  resp->max_inline, resp->sq_entries);
		return EPROTO;
	}
	sgl = (uint64_t)cap->max_send_sge * sizeof(struct mroce_sge);
	min_stride = sizeof(struct mroce_send_wqe) +
		     (sgl > resp->max_inline ? sgl : resp->max_inline);
	ret = mroce_map_ring(ibctx, &qp->sq.ring, "send queue",
			     resp->sq_mmap_offset, resp->sq_mmap_size,
			     resp->sq_entries, resp->sq_stride, min_stride);
	if (ret)
		return ret;

	qp->sq_limits = (struct mroce_sq_limits){
		.qp_type = qp_type,
		.max_sge = cap->max_send_sge,
		.max_inline = resp->max_inline,
	};

	/* Offset 0 means no receive ring: the QP receives from an SRQ. */
	if (!resp->rq_mmap_offset) {
		if (!has_srq && cap->max_recv_wr) {
			verbs_err(vctx,
				  "mroce: kernel granted max_recv_wr %u but no receive ring\n",
				  cap->max_recv_wr);
			return EPROTO;
		}
		return 0;
	}

	if (resp->rq_entries < cap->max_recv_wr) {
		verbs_err(vctx,
			  "mroce: kernel granted max_recv_wr %u but its receive ring holds %u entries\n",
			  cap->max_recv_wr, resp->rq_entries);
		return EPROTO;
	}
	min_stride = sizeof(struct mroce_recv_wqe) +
		     (uint64_t)cap->max_recv_sge * sizeof(struct mroce_sge);
	ret = mroce_map_ring(ibctx, &qp->rq.ring, "receive queue",
			     resp->rq_mmap_offset, resp->rq_mmap_size,
			     resp->rq_entries, resp->rq_stride, min_stride);
	if (ret)
		return ret;

	qp->rq_max_sge = cap->max_recv_sge;
	return 0;
}

/*
 * Both ways of creating a QP: ibv_create_qp_ex() (@ex) or ibv_create_qp()
 * (@attr).  Returns the QP or NULL with errno set.
 */
static struct ibv_qp *mroce_qp_create(struct ibv_context *ibctx,
				      struct ibv_pd *pd,
				      struct ibv_qp_init_attr *attr,
				      struct ibv_qp_init_attr_ex *ex)
{
	struct umroce_create_qp_resp resp = {};
	struct umroce_create_qp cmd = {};
	struct mroce_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	atomic_init(&qp->reset, true);
	ret = pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;
	ret = pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_sq_lock;

	/* On success the attributes' cap holds what the kernel granted. */
	if (ex)
		ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, ex, &cmd.ibv_cmd,
					   sizeof(cmd), &resp.ibv_resp,
					   sizeof(resp));
	else
		ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd.ibv_cmd,
					sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_rq_lock;

	if (ex)
		ret = mroce_qp_map_rings(ibctx, qp, &ex->cap, ex->qp_type,
					 ex->srq, &resp.drv_payload);
	else
		ret = mroce_qp_map_rings(ibctx, qp, &attr->cap, attr->qp_type,
					 attr->srq, &resp.drv_payload);
	if (!ret && ex)
		ret = mroce_qp_ex_init(qp, ex);
	if (ret)
		goto err_destroy;

	return &qp->vqp.qp;

err_destroy:
	mroce_unmap_ring(&qp->rq.ring);
	mroce_unmap_ring(&qp->sq.ring);
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_rq_lock:
	pthread_spin_destroy(&qp->rq.lock);
err_sq_lock:
	pthread_spin_destroy(&qp->sq.lock);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

static struct ibv_qp *mroce_create_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *attr)
{
	return mroce_qp_create(pd->context, pd, attr, NULL);
}

static struct ibv_qp *mroce_create_qp_ex(struct ibv_context *ibctx,
					 struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr_ex ex = *attr;
	struct ibv_qp *qp;

	/*
	 * A PD is required; XRC, RSS, TSO and creation flags are not
	 * offered.  An empty set of creation flags asks for nothing.
	 */
	if ((ex.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && !ex.create_flags)
		ex.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	if (!(ex.comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    (ex.comp_mask & ~(IBV_QP_INIT_ATTR_PD |
			      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = mroce_qp_create(ibctx, ex.pd, NULL, &ex);
	if (qp)
		attr->cap = ex.cap;	/* what the kernel granted */
	return qp;
}

static int mroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int mroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			   int attr_mask)
{
	struct ibv_modify_qp cmd = {};

	struct mroce_qp *qp = to_mqp(ibqp);
	int ret;

	/*
	 * The provider keeps no copy of the ring indices (it reads them from
	 * the ring header each time), so whatever the kernel does to them on
	 * RESET or ERROR is seen by the next post.  It remembers the state
	 * only to refuse posting to a QP in RESET, as verbs requires.
	 */
	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (!ret && (attr_mask & IBV_QP_STATE))
		atomic_store_explicit(&qp->reset, attr->qp_state == IBV_QPS_RESET,
				      memory_order_relaxed);
	return ret;
}

static int mroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	mroce_unmap_ring(&qp->rq.ring);
	mroce_unmap_ring(&qp->sq.ring);
	mroce_qp_ex_cleanup(qp);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_spin_destroy(&qp->sq.lock);
	free(qp);
	return 0;
}

/*
 * The doorbell is the kernel's POST_SEND command with no work requests.
 * ibv_cmd_post_send() builds exactly that from an empty list: it counts
 * zero WRs and SGEs, sends only the fixed command (qp_handle, wr_count 0,
 * sge_count 0, wqe_size = sizeof(struct ib_uverbs_send_wr), which the
 * kernel requires as a minimum even with no WRs) and goes through
 * libibverbs' usual write()/ioctl() selection, so no hand-built
 * write() on cmd_fd is needed.  The kernel's uverbs layer then calls the
 * driver's post_send with a NULL list.
 */
static int mroce_ring_doorbell(struct mroce_qp *qp)
{
	struct ibv_send_wr *bad_wr;

	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad_wr);
}

/*
 * Post to the send ring and ring the doorbell if the kernel wants one.
 * @locked: the caller holds the send queue lock (an extended QP's
 * wr_complete); it is released here either way, before the doorbell.
 */
int mroce_post_sq(struct mroce_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr, bool locked)
{
	uint32_t nposted;
	int ret, db;

	if (atomic_load_explicit(&qp->reset, memory_order_relaxed)) {
		if (locked)
			pthread_spin_unlock(&qp->sq.lock);
		*bad_wr = wr;
		return EINVAL;
	}
	if (!locked)
		pthread_spin_lock(&qp->sq.lock);
	ret = mroce_sq_post(&qp->sq.ring, &qp->sq_limits, wr, bad_wr,
			    &nposted);
	pthread_spin_unlock(&qp->sq.lock);

	/*
	 * Outside the lock: the doorbell check only needs to follow this
	 * thread's own producer store, and a poster racing with us checks
	 * after its own store, so no wake-up is lost and the lock is not
	 * held across a system call.
	 */
	if (!nposted || !mroce_ring_needs_doorbell(&qp->sq.ring))
		return ret;

	db = mroce_ring_doorbell(qp);
	if (db && !ret) {
		/*
		 * Every WR is in the ring but the kernel may not have been
		 * woken, so the caller must hear of it.  *bad_wr = NULL says
		 * "none was refused" (as the rxe provider does when its
		 * doorbell fails); the WRs still complete or get flushed.
		 */
		*bad_wr = NULL;
		ret = db;
	}
	return ret;
}

static int mroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr)
{
	return mroce_post_sq(to_mqp(ibqp), wr, bad_wr, false);
}

static int mroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	int ret;

	/* A QP on an SRQ has no receive queue of its own. */
	if (!qp->rq.ring.map ||
	    atomic_load_explicit(&qp->reset, memory_order_relaxed)) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->rq.lock);
	ret = mroce_rq_post(&qp->rq.ring, qp->rq_max_sge, wr, bad_wr);
	pthread_spin_unlock(&qp->rq.lock);

	/* In the error state the kernel flushes them: see mroce_post_sq(). */
	if (wr && (!ret || *bad_wr != wr) &&
	    mroce_ring_needs_doorbell(&qp->rq.ring)) {
		struct ibv_recv_wr *bad;
		int db = ibv_cmd_post_recv(&qp->vqp.qp, NULL, &bad);

		if (db && !ret) {
			*bad_wr = NULL;
			ret = db;
		}
	}
	return ret;
}

static struct ibv_mw *mroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	/* The kernel checks the type and gives the window its first rkey. */
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int mroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw() of a type 1 window: a BIND_MW work request with the next
 * rkey of the window, which the window takes once the request is posted
 * (its completion tells whether the kernel accepted the binding).
 */
static int mroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	}, *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	ret = mroce_post_sq(to_mqp(qp), &wr, &bad, false);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

static struct ibv_srq *mroce_create_srq(struct ibv_pd *pd,
					struct ibv_srq_init_attr *attr)
{
	struct umroce_create_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct mroce_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;

	/* On success attr->attr holds what the kernel granted. */
	ret = ibv_cmd_create_srq(pd, &srq->ibv_srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_lock;

	ret = mroce_map_ring(pd->context, &srq->rq.ring, "shared receive queue",
			     resp.mmap_offset, resp.mmap_size, resp.entries,
			     resp.stride, sizeof(struct mroce_recv_wqe) +
			     (uint64_t)attr->attr.max_sge * sizeof(struct mroce_sge));
	if (ret)
		goto err_destroy;
	if (resp.entries < attr->attr.max_wr) {
		verbs_err(verbs_get_ctx(pd->context),
			  "mroce: kernel granted max_wr %u but its SRQ ring holds %u entries\n",
			  attr->attr.max_wr, resp.entries);
		ret = EPROTO;
		goto err_unmap;
	}
	srq->max_sge = attr->attr.max_sge;
	return &srq->ibv_srq;

err_unmap:
	mroce_unmap_ring(&srq->rq.ring);
err_destroy:
	ibv_cmd_destroy_srq(&srq->ibv_srq);
err_lock:
	pthread_spin_destroy(&srq->rq.lock);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

static int mroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	/* Only the limit changes, and it is kernel state. */
	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int mroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

static int mroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;

	mroce_unmap_ring(&srq->rq.ring);
	pthread_spin_destroy(&srq->rq.lock);
	free(srq);
	return 0;
}

static int mroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	int ret;

	pthread_spin_lock(&srq->rq.lock);
	ret = mroce_rq_post(&srq->rq.ring, srq->max_sge, wr, bad_wr);
	pthread_spin_unlock(&srq->rq.lock);

	return ret;
}

static void mroce_free_context(struct ibv_context *ibctx)
{
	struct mroce_context *ctx = to_mctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops mroce_ctx_ops = {
	.query_device_ex = mroce_query_device_ex,
	.query_port = mroce_query_port,
	.alloc_pd = mroce_alloc_pd,
	.dealloc_pd = mroce_dealloc_pd,
	.reg_mr = mroce_reg_mr,
	.dereg_mr = mroce_dereg_mr,
	.alloc_mw = mroce_alloc_mw,
	.bind_mw = mroce_bind_mw,
	.dealloc_mw = mroce_dealloc_mw,
	.create_ah = mroce_create_ah,
	.destroy_ah = mroce_destroy_ah,
	.create_cq = mroce_create_cq,
	.create_cq_ex = mroce_create_cq_ex,
	.poll_cq = mroce_poll_cq,
	/*
	 * Arming is kernel state (the next CQE raises the event), so the
	 * generic command is the whole implementation.
	 */
	.req_notify_cq = ibv_cmd_req_notify_cq,
	.resize_cq = mroce_resize_cq,
	.destroy_cq = mroce_destroy_cq,
	.create_qp = mroce_create_qp,
	.create_qp_ex = mroce_create_qp_ex,
	.query_qp = mroce_query_qp,
	.modify_qp = mroce_modify_qp,
	.destroy_qp = mroce_destroy_qp,
	.post_send = mroce_post_send,
	.post_recv = mroce_post_recv,
	.create_srq = mroce_create_srq,
	.modify_srq = mroce_modify_srq,
	.query_srq = mroce_query_srq,
	.destroy_srq = mroce_destroy_srq,
	.post_srq_recv = mroce_post_srq_recv,
	.free_context = mroce_free_context,
};

static struct verbs_context *mroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct umroce_alloc_ucontext_resp resp = {};
	struct umroce_alloc_ucontext cmd = {};
	struct mroce_context *ctx;
	int ret;

	/*
	 * The driver id is copied into every ioctl() header and the kernel
	 * rejects a command whose id differs from its ops.driver_id, so this
	 * must be the kernel's value: RDMA_DRIVER_UNKNOWN.
	 */
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret) {
		/* ibv_open_device() callers only see NULL and errno. */
		errno = ret;
		goto err;
	}

	/*
	 * The device-level uverbs ABI was already checked when the device was
	 * matched; this version covers the driver-private structures.  A
	 * kernel that sends a shorter response leaves abi_version at zero
	 * (resp was zeroed), which is refused here too.
	 */
	if (resp.abi_version != MROCE_UVERBS_ABI_VERSION) {
		verbs_err(&ctx->ibv_ctx,
			  "mroce kernel driver speaks ABI version %u, this provider speaks %u; build the module and the provider from the same tree\n",
			  resp.abi_version, MROCE_UVERBS_ABI_VERSION);
		errno = EPROTO;
		goto err;
	}

	ctx->udp_port = resp.udp_port;
	ctx->max_inline = resp.max_inline;

	verbs_set_ops(&ctx->ibv_ctx, &mroce_ctx_ops);

	return &ctx->ibv_ctx;

err:
	/* Closes cmd_fd, which also releases the kernel ucontext. */
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static struct verbs_device *
mroce_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct mroce_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	dev->abi_version = sysfs_dev->abi_ver;

	return &dev->ibv_dev;
}

static void mroce_uninit_device(struct verbs_device *verbs_device)
{
	free(to_mdev(&verbs_device->device));
}

static const struct verbs_device_ops mroce_dev_ops = {
	.name = MROCE_DRIVER_NAME,
	/*
	 * The kernel sets ops.uverbs_abi_ver to MROCE_UVERBS_ABI_VERSION, and
	 * libibverbs refuses (with a warning naming both versions) a device
	 * outside this range before it ever reaches alloc_context.
	 */
	.match_min_abi_version = MROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = MROCE_UVERBS_ABI_VERSION,
	.match_device = mroce_match_device,
	.alloc_device = mroce_device_alloc,
	.uninit_device = mroce_uninit_device,
	.alloc_context = mroce_alloc_context,
};
PROVIDER_DRIVER(mroce, mroce_dev_ops);

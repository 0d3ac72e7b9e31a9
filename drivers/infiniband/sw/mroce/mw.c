// SPDX-License-Identifier: GPL-2.0-only
/*
 * Remote keys: memory windows, invalidation and fast registration.
 *
 * A memory window shares the key table with the regions (its entry is
 * tagged MROCE_KEY_WINDOW) and opens part of a region to remote access
 * once bound by a BIND_MW work request.  Type 1 windows belong to their
 * protection domain and are unbound by binding them with zero length;
 * type 2 windows belong to the queue pair that bound them and are
 * invalidated by LOCAL_INV or by a peer's SEND_WITH_INV.  Fast-registration
 * regions of kernel consumers are registered by REG_MR and invalidated the
 * same two ways.  mroce_rkey_get() resolves any rkey of the wire to the
 * region it reaches, checked against what the key grants.
 */
#include "verbs.h"

/* Local write is the region's business; binds may name it, it is ignored. */
#define MROCE_MW_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ZERO_BASED)

static bool span_within(u64 va, u64 len, u64 start, u64 length)
{
	return va >= start && va - start <= length && len <= length - (va - start);
}

/* Under RCU: the window an rkey's table entry is, or NULL. */
static struct mroce_window *window_of(void *entry)
{
	return entry && xa_pointer_tag(entry) == MROCE_KEY_WINDOW ?
	       xa_untag_pointer(entry) : NULL;
}

/**
 * mroce_rkey_get() - resolve an rkey for remote access by a queue pair
 * @qp: the queue pair the access arrived on
 * @rkey: the key from the wire
 * @va: first address
 * @len: bytes
 * @access: the IB_ACCESS_REMOTE_* the access needs
 *
 * A region's rkey must belong to @qp's protection domain and allow
 * @access over the range.  A window's rkey must be bound, grant @access
 * over the range and belong to @qp's protection domain (type 1) or to
 * @qp itself (type 2).  Context: any.
 *
 * Return: the region to copy to or from, referenced; NULL if the access
 * is not allowed.
 */
struct mroce_mr *mroce_rkey_get(struct mroce_qp *qp, u32 rkey, u64 va,
				u64 len, int access)
{
	struct mroce_dev *mdev = to_mdev(qp->ibqp.device);
	struct mroce_window *win;
	struct mroce_mr *mr = NULL;
	unsigned long flags;

	rcu_read_lock();
	win = window_of(xa_load(&mdev->mrs, rkey >> 8));
	if (win) {
		spin_lock_irqsave(&win->lock, flags);
		if (win->valid && win->rkey == rkey &&
		    (win->access & access) == access &&
		    span_within(va, len, win->va, win->length) &&
		    win->pd == qp->ibqp.pd &&
		    (win->type == IB_MW_TYPE_1 || win->qpn == qp->ibqp.qp_num) &&
		    kref_get_unless_zero(&win->mr->ref))
			mr = win->mr;
		spin_unlock_irqrestore(&win->lock, flags);
	}
	rcu_read_unlock();
	if (win)
		return mr;

	mr = mroce_mr_get(mdev, rkey, true);
	if (mr && mroce_mr_check(mr, qp->ibqp.pd, va, len, access)) {
		mroce_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/* Unbind: the window's region loses one binding.  Window lock held. */
static struct mroce_mr *window_unbind(struct mroce_window *win)
{
	struct mroce_mr *mr = win->mr;

	win->valid = false;
	win->mr = NULL;
	return mr;
}

static void release_bound(struct mroce_mr *mr)
{
	if (mr) {
		atomic_dec(&mr->binds);
		mroce_mr_put(mr);
	}
}

/**
 * mroce_mw_bind() - execute a BIND_MW work request
 * @qp: the queue pair it was posted to
 * @wqe: the request
 *
 * Return: IB_WC_SUCCESS, or IB_WC_MW_BIND_ERR when the window, the
 * region, the range or the access do not allow the binding.
 */
enum ib_wc_status mroce_mw_bind(struct mroce_qp *qp,
				const struct mroce_send_wqe *wqe)
{
	struct mroce_dev *mdev = to_mdev(qp->ibqp.device);
	u64 va = wqe->wr.bind.addr, len = wqe->wr.bind.length;
	u32 access = wqe->wr.bind.access;
	struct mroce_mr *mr = NULL, *old = NULL;
	struct mroce_window *win;
	unsigned long flags;
	bool ok;

	if (access & ~MROCE_MW_ACCESS ||
	    (wqe->wr.bind.new_rkey >> 8) != (wqe->wr.bind.mw_rkey >> 8))
		return IB_WC_MW_BIND_ERR;
	if (len) {
		mr = mroce_mr_get(mdev, wqe->wr.bind.mr_lkey, false);
		if (!mr)
			return IB_WC_MW_BIND_ERR;
		/*
		 * The region must allow binding and cover the range; remote
		 * writes or atomics need local write on it (IB 10.6.7.2.2).
		 */
		if (mr->ibmr.pd != qp->ibqp.pd || !(mr->access & IB_ACCESS_MW_BIND) ||
		    !span_within(va, len, mr->iova, mr->length) ||
		    ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
		     !(mr->access & IB_ACCESS_LOCAL_WRITE)) ||
		    (access & IB_ZERO_BASED)) {
			mroce_mr_put(mr);
			return IB_WC_MW_BIND_ERR;
		}
	}

	rcu_read_lock();
	win = window_of(xa_load(&mdev->mrs, wqe->wr.bind.mw_rkey >> 8));
	ok = win;
	if (win) {
		spin_lock_irqsave(&win->lock, flags);
		/* A bound type 2 window is invalidated before it binds again. */
		ok = win->rkey == wqe->wr.bind.mw_rkey && win->pd == qp->ibqp.pd &&
		     (win->type == IB_MW_TYPE_1 || (!win->valid && len));
		if (ok) {
			old = window_unbind(win);
			win->rkey = wqe->wr.bind.new_rkey;
			if (mr) {
				atomic_inc(&mr->binds);
				win->mr = mr;
				win->va = va;
				win->length = len;
				win->access = access & ~IB_ACCESS_LOCAL_WRITE;
				win->qpn = qp->ibqp.qp_num;
				win->valid = true;
				mr = NULL;
			}
		}
		spin_unlock_irqrestore(&win->lock, flags);
	}
	rcu_read_unlock();
	if (ok)
		release_bound(old);
	if (mr)
		mroce_mr_put(mr);
	return ok ? IB_WC_SUCCESS : IB_WC_MW_BIND_ERR;
}

/**
 * mroce_invalidate() - invalidate a type 2 window or fast-registration
 *	region
 * @qp: the queue pair of the LOCAL_INV, or that received the SEND_WITH_INV
 * @rkey: the key
 * @remote: a peer asked (SEND_WITH_INV): a window must be bound to @qp
 *
 * Return: 0, or -EINVAL when @rkey names nothing @qp may invalidate.
 */
int mroce_invalidate(struct mroce_qp *qp, u32 rkey, bool remote)
{
	struct mroce_dev *mdev = to_mdev(qp->ibqp.device);
	struct mroce_mr *mr, *old = NULL;
	struct mroce_window *win;
	unsigned long flags;
	int err = -EINVAL;
	void *entry;

	rcu_read_lock();
	entry = xa_load(&mdev->mrs, rkey >> 8);
	win = window_of(entry);
	if (win) {
		spin_lock_irqsave(&win->lock, flags);
		if (win->type == IB_MW_TYPE_2 && win->valid && win->rkey == rkey &&
		    win->pd == qp->ibqp.pd && (!remote || win->qpn == qp->ibqp.qp_num)) {
			old = window_unbind(win);
			err = 0;
		}
		spin_unlock_irqrestore(&win->lock, flags);
	} else if (entry) {
		mr = entry;
		spin_lock_irqsave(&mr->lock, flags);
		if (mr->fr_pages && mr->valid && mr->ibmr.rkey == rkey &&
		    mr->ibmr.pd == qp->ibqp.pd) {
			WRITE_ONCE(mr->valid, false);
			err = 0;
		}
		spin_unlock_irqrestore(&mr->lock, flags);
	}
	rcu_read_unlock();
	release_bound(old);
	return err;
}

/**
 * mroce_fast_reg() - execute a REG_MR work request of a kernel consumer
 * @qp: the queue pair it was posted to
 * @ibmr: a fast-registration region, its pages set by map_mr_sg()
 * @key: its key from now on (same upper 24 bits)
 * @access: IB_ACCESS_* it allows
 *
 * Return: IB_WC_SUCCESS or IB_WC_LOC_PROT_ERR.
 */
enum ib_wc_status mroce_fast_reg(struct mroce_qp *qp, struct ib_mr *ibmr,
				 u32 key, int access)
{
	struct mroce_mr *mr = to_mmr(ibmr);
	unsigned long flags;

	if (!mr->fr_pages || ibmr->pd != qp->ibqp.pd ||
	    (key >> 8) != (ibmr->lkey >> 8) || !is_power_of_2(ibmr->page_size))
		return IB_WC_LOC_PROT_ERR;
	spin_lock_irqsave(&mr->lock, flags);
	mr->iova = ibmr->iova;
	mr->length = ibmr->length;
	WRITE_ONCE(mr->access, access);
	WRITE_ONCE(ibmr->lkey, key);
	WRITE_ONCE(ibmr->rkey, key);
	WRITE_ONCE(mr->valid, true);
	spin_unlock_irqrestore(&mr->lock, flags);
	return IB_WC_SUCCESS;
}

int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibmw->device);
	struct mroce_mw *mw = to_mmw(ibmw);
	struct mroce_window *win;
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (!atomic_add_unless(&mdev->mw_count, 1, MROCE_MAX_MW))
		return -ENOMEM;
	win = kzalloc(sizeof(*win), GFP_KERNEL);
	if (!win) {
		err = -ENOMEM;
		goto err_count;
	}
	spin_lock_init(&win->lock);
	win->type = ibmw->type;
	win->pd = ibmw->pd;
	err = mroce_mr_publish(mdev, xa_tag_pointer(win, MROCE_KEY_WINDOW), &index);
	if (err)
		goto err_win;
	win->rkey = (index << 8) | (get_random_u32() & 0xff);
	ibmw->rkey = win->rkey;
	mw->win = win;
	return 0;

err_win:
	kfree(win);
err_count:
	atomic_dec(&mdev->mw_count);
	return err;
}

int mroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct mroce_dev *mdev = to_mdev(ibmw->device);
	struct mroce_window *win = to_mmw(ibmw)->win;
	struct mroce_mr *old;
	unsigned long flags;

	xa_erase(&mdev->mrs, win->rkey >> 8);
	atomic_dec(&mdev->mr_count);
	spin_lock_irqsave(&win->lock, flags);
	old = window_unbind(win);
	spin_unlock_irqrestore(&win->lock, flags);
	release_bound(old);
	/* Remote accesses may still be looking at it. */
	kfree_rcu(win, rcu);
	atomic_dec(&mdev->mw_count);
	return 0;
}

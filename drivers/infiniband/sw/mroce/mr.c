// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions: registration, key lookup, access checks and the copies
 * that place data at its final address.
 *
 * A key's upper 24 bits index the device's MR table; the low 8 bits are
 * random, so a stale or guessed key is unlikely to name another region.
 * The transport looks regions up from softirq context under RCU and pins
 * them with a reference; the last reference frees the region from a work
 * item, because unpinning user pages may sleep.
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <rdma/ib_umem.h>

#include "verbs.h"

#define MROCE_ACCESS_SUPPORTED (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				IB_ACCESS_RELAXED_ORDERING)

void mroce_mr_init(struct mroce_dev *mdev)
{
	xa_init_flags(&mdev->mrs, XA_FLAGS_ALLOC1);
}

void mroce_mr_cleanup(struct mroce_dev *mdev)
{
	WARN_ON(!xa_empty(&mdev->mrs));
	xa_destroy(&mdev->mrs);
}

static void mroce_mr_free(struct mroce_mr *mr)
{
	ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree_rcu(mr, rcu);
}

static void mroce_mr_free_work(struct work_struct *work)
{
	mroce_mr_free(container_of(work, struct mroce_mr, free_work));
}

static void mroce_mr_release(struct kref *ref)
{
	struct mroce_mr *mr = container_of(ref, struct mroce_mr, ref);

	/* The last in-flight response may finish in softirq context. */
	if (mr->umem && !in_task()) {
		INIT_WORK(&mr->free_work, mroce_mr_free_work);
		queue_work(mroce_wq, &mr->free_work);
		return;
	}
	mroce_mr_free(mr);
}

void mroce_mr_put(struct mroce_mr *mr)
{
	kref_put(&mr->ref, mroce_mr_release);
}

/**
 * mroce_mr_get() - look up a region by key and take a reference
 * @mdev: the device
 * @key: an lkey or rkey
 * @remote: @key came from the wire (an rkey)
 *
 * Return: the region, or NULL if no live region has this key.
 */
struct mroce_mr *mroce_mr_get(struct mroce_dev *mdev, u32 key, bool remote)
{
	struct mroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&mdev->mrs, key >> 8);
	if (mr && ((remote ? mr->ibmr.rkey : mr->ibmr.lkey) != key ||
		   !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * mroce_mr_check() - may @len bytes at @va be accessed this way?
 * @mr: the region
 * @pd: protection domain of the queue pair asking
 * @va: first address
 * @len: bytes
 * @access: IB_ACCESS_* flags the access needs (0 for a local read)
 *
 * Return: 0, -EACCES for a wrong PD or a missing access flag, -EINVAL for
 * a range outside the region.
 */
int mroce_mr_check(struct mroce_mr *mr, struct ib_pd *pd, u64 va, u64 len,
		   int access)
{
	if (mr->ibmr.pd != pd || (mr->access & access) != access)
		return -EACCES;
	if (va < mr->iova || va - mr->iova > mr->length ||
	    len > mr->length - (va - mr->iova))
		return -EINVAL;
	return 0;
}

/**
 * mroce_mr_copy() - copy between a region and a kernel buffer
 * @mr: the region; [@va, @va + @len) must have passed mroce_mr_check()
 * @va: address in the region
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: copy @buf into the region (else the region into @buf)
 */
void mroce_mr_copy(struct mroce_mr *mr, u64 va, void *buf, u32 len, bool to_mr)
{
	u64 off;

	if (!mr->umem) {
		/* DMA MR: kernel consumers hand us kernel virtual addresses. */
		void *p = (void *)(uintptr_t)va;

		if (to_mr)
			memcpy(p, buf, len);
		else
			memcpy(buf, p, len);
		return;
	}

	off = va - mr->iova + mr->page_off;
	while (len) {
		unsigned int in_page = off & ~PAGE_MASK;
		unsigned int n = min_t(u32, len, PAGE_SIZE - in_page);
		void *p = kmap_local_page(mr->pages[off >> PAGE_SHIFT]);

		if (to_mr)
			memcpy(p + in_page, buf, n);
		else
			memcpy(buf, p + in_page, n);
		kunmap_local(p);
		buf += n;
		off += n;
		len -= n;
	}
}

/**
 * mroce_mr_atomic_ptr() - map the 8-byte word at @va for an atomic
 * @mr: the region; @va is 8-byte aligned and passed mroce_mr_check()
 * @va: the address
 * @page: set to the page to pass to kunmap_local() (NULL: nothing to unmap)
 *
 * Return: pointer to the word.
 */
void *mroce_mr_atomic_ptr(struct mroce_mr *mr, u64 va, struct page **page)
{
	u64 off;

	if (!mr->umem) {
		*page = NULL;
		return (void *)(uintptr_t)va;
	}
	off = va - mr->iova + mr->page_off;
	*page = mr->pages[off >> PAGE_SHIFT];
	return kmap_local_page(*page) + (off & ~PAGE_MASK);
}

static int mroce_mr_publish(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	u32 index;
	int err;

	if (atomic_inc_return(&mdev->mr_count) > MROCE_MAX_MR) {
		atomic_dec(&mdev->mr_count);
		return -ENOMEM;
	}
	err = xa_alloc_cyclic(&mdev->mrs, &index, mr, XA_LIMIT(1, 0xffffff),
			      &mdev->mr_next, GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&mdev->mr_count);
		return err;
	}
	mr->ibmr.lkey = (index << 8) | (get_random_u32() & 0xff);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return 0;
}

struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	/* Kernel virtual addresses are never offered to the wire. */
	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	kref_init(&mr->ref);
	mr->access = access;
	mr->length = U64_MAX;
	mr->ibmr.pd = ibpd;
	err = mroce_mr_publish(mdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct sg_page_iter iter;
	struct mroce_mr *mr;
	unsigned long i = 0;
	int err;

	if (access & ~MROCE_ACCESS_SUPPORTED)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > MROCE_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	kref_init(&mr->ref);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_free;
	}
	mr->npages = ib_umem_num_pages(mr->umem);
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &iter, 0) {
		if (WARN_ON(i >= mr->npages))
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	mr->page_off = ib_umem_offset(mr->umem);
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->ibmr.pd = ibpd;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;

	err = mroce_mr_publish(mdev, mr);
	if (err)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	kvfree(mr->pages);
err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibmr->device);
	struct mroce_mr *mr = to_mmr(ibmr);

	xa_erase(&mdev->mrs, ibmr->lkey >> 8);
	atomic_dec(&mdev->mr_count);
	mroce_mr_put(mr);
	return 0;
}

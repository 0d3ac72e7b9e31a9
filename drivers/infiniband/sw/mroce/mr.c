// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions: registration, key lookup, access checks and the copies
 * that place data at its final address.
 *
 * A key's upper 24 bits index the device's key table (regions and memory
 * windows, mw.c); the low 8 bits are random, so a stale or guessed key is
 * unlikely to name another region.  Three kinds of region: user memory
 * (pinned pages), the DMA region of kernel consumers (kernel virtual
 * addresses) and fast-registration regions of kernel consumers, whose
 * pages and key a REG_MR work request sets and an invalidation revokes.
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
	kvfree(mr->fr_pages);
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
	void *entry;

	rcu_read_lock();
	entry = xa_load(&mdev->mrs, key >> 8);
	/* A memory window is no region: remote access resolves it (mw.c). */
	mr = entry && !xa_pointer_tag(entry) ? entry : NULL;
	if (mr && (!READ_ONCE(mr->valid) ||
		   (remote ? READ_ONCE(mr->ibmr.rkey) : READ_ONCE(mr->ibmr.lkey)) != key ||
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
	if (mr->ibmr.pd != pd || (READ_ONCE(mr->access) & access) != access ||
	    !READ_ONCE(mr->valid))
		return -EACCES;
	if (va < mr->iova || va - mr->iova > mr->length ||
	    len > mr->length - (va - mr->iova))
		return -EINVAL;
	return 0;
}

/*
 * Where byte @va of a fast-registration region is, and (@room) how many
 * bytes follow it in the same page.  The caller checked @va against the
 * registered range; a page index beyond those mapped (a registration
 * changed under it) yields NULL rather than a wild pointer.
 */
static void *mroce_fr_ptr(struct mroce_mr *mr, u64 va, u32 *room)
{
	u32 shift = ilog2(mr->ibmr.page_size);
	u64 off = va - READ_ONCE(mr->iova) +
		  (READ_ONCE(mr->iova) & (mr->ibmr.page_size - 1));
	u64 idx = off >> shift;

	if (idx >= READ_ONCE(mr->fr_npages))
		return NULL;
	if (room)
		*room = mr->ibmr.page_size - (off & (mr->ibmr.page_size - 1));
	/* Software RDMA: kernel consumers' DMA addresses are virtual. */
	return (void *)(uintptr_t)(mr->fr_pages[idx] +
				   (off & (mr->ibmr.page_size - 1)));
}

static void mroce_fr_copy(struct mroce_mr *mr, u64 va, u8 *buf, u32 len,
			  bool to_mr)
{
	while (len) {
		u32 room, n;
		u8 *p = mroce_fr_ptr(mr, va, &room);

		if (!p)
			return;
		n = min(len, room);
		if (to_mr)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		buf += n;
		va += n;
		len -= n;
	}
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

	if (mr->fr_pages) {
		mroce_fr_copy(mr, va, buf, len, to_mr);
		return;
	}
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
 * mroce_sge_copy() - copy between a buffer and a local scatter list
 * @pd: protection domain the scatter list's keys must belong to
 * @sges: the scatter list
 * @nsge: entries of @sges
 * @offset: byte of the scatter list to start at
 * @buf: the buffer
 * @len: bytes to copy
 * @to_mr: copy into the scatter list (which needs local write access)
 *	rather than out of it
 *
 * Return: 0, or -EINVAL when a key is invalid, outside @pd, lacks the
 * access, or the list is shorter than @offset + @len; nothing beyond the
 * checked part of a region is touched.
 */
int mroce_sge_copy(struct ib_pd *pd, const struct mroce_sge *sges, u32 nsge,
		   u32 offset, u8 *buf, u32 len, bool to_mr)
{
	struct mroce_dev *mdev = to_mdev(pd->device);
	int access = to_mr ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < nsge && len; i++) {
		const struct mroce_sge *sge = &sges[i];
		struct mroce_mr *mr;
		u32 n;

		if (offset >= sge->length) {
			offset -= sge->length;
			continue;
		}
		n = min(len, sge->length - offset);
		mr = mroce_mr_get(mdev, sge->lkey, false);
		if (!mr)
			return -EINVAL;
		if (mroce_mr_check(mr, pd, sge->addr + offset, n, access)) {
			mroce_mr_put(mr);
			return -EINVAL;
		}
		mroce_mr_copy(mr, sge->addr + offset, buf, n, to_mr);
		mroce_mr_put(mr);
		buf += n;
		len -= n;
		offset = 0;
	}
	return len ? -EINVAL : 0;
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

	if (mr->fr_pages) {
		/* 8-byte aligned, so the word does not cross a page. */
		*page = NULL;
		return mroce_fr_ptr(mr, va, NULL);
	}
	if (!mr->umem) {
		*page = NULL;
		return (void *)(uintptr_t)va;
	}
	off = va - mr->iova + mr->page_off;
	*page = mr->pages[off >> PAGE_SHIFT];
	return kmap_local_page(*page) + (off & ~PAGE_MASK);
}

/**
 * mroce_mr_publish() - give a region or memory window its key table entry
 * @mdev: the device
 * @entry: the region, or a window tagged MROCE_KEY_WINDOW
 * @index: set to the entry's index, the upper 24 bits of its keys: the
 *	first free one from a random start
 *
 * Return: 0, or -ENOMEM when the device's keys (MROCE_MAX_MR) are used up.
 */
int mroce_mr_publish(struct mroce_dev *mdev, void *entry, u32 *index)
{
	/*
	 * The first free index from a random one: a key's upper 24 bits are
	 * then as hard to guess as its lower 8 (admin guide, "Security").
	 */
	u32 next = 1 + get_random_u32_below(0xffffff);
	int err;

	if (!atomic_add_unless(&mdev->mr_count, 1, MROCE_MAX_MR))
		return -ENOMEM;
	err = xa_alloc_cyclic(&mdev->mrs, index, entry, XA_LIMIT(1, 0xffffff),
			      &next, GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&mdev->mr_count);
		return err;
	}
	return 0;
}

static struct mroce_mr *mroce_mr_alloc(struct ib_pd *ibpd)
{
	struct mroce_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	if (mr) {
		kref_init(&mr->ref);
		spin_lock_init(&mr->lock);
		mr->ibmr.pd = ibpd;
	}
	return mr;
}

/* A new region: its key table entry and a random key. */
static int mroce_mr_add(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	u32 index;
	int err;

	err = mroce_mr_publish(mdev, mr, &index);
	if (err)
		return err;
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
	mr = mroce_mr_alloc(ibpd);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->access = access;
	mr->length = U64_MAX;
	mr->valid = true;
	err = mroce_mr_add(mdev, mr);
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

	if (access & ~(MROCE_ACCESS_SUPPORTED | IB_ACCESS_MW_BIND))
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > MROCE_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);

	mr = mroce_mr_alloc(ibpd);
	if (!mr)
		return ERR_PTR(-ENOMEM);
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
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->valid = true;

	err = mroce_mr_add(mdev, mr);
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

/**
 * mroce_alloc_mr() - a fast-registration region for a kernel consumer
 * @ibpd: its protection domain
 * @type: IB_MR_TYPE_MEM_REG (the only type offered)
 * @max_num_sg: pages it can map
 *
 * The region is invalid until a REG_MR work request registers it.
 * Return: the region or an ERR_PTR().
 */
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > MROCE_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = mroce_mr_alloc(ibpd);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fr_pages = kvcalloc(max_num_sg, sizeof(*mr->fr_pages), GFP_KERNEL);
	if (!mr->fr_pages) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->fr_max = max_num_sg;
	err = mroce_mr_add(mdev, mr);
	if (err)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	kvfree(mr->fr_pages);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int mroce_fr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mroce_mr *mr = to_mmr(ibmr);

	if (mr->fr_npages == mr->fr_max)
		return -ENOMEM;
	mr->fr_pages[mr->fr_npages++] = addr;
	return 0;
}

/**
 * mroce_map_mr_sg() - set the pages of a fast-registration region
 * @ibmr: the region, not registered at the moment
 * @sg: the consumer's scatterlist (DMA addresses are kernel virtual)
 * @sg_nents: its entries
 * @sg_offset: offset into the first entry
 *
 * Return: the number of entries mapped.
 */
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct mroce_mr *mr = to_mmr(ibmr);

	WRITE_ONCE(mr->fr_npages, 0);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mroce_fr_set_page);
}

int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibmr->device);
	struct mroce_mr *mr = to_mmr(ibmr);

	/* Windows bound to it would outlive it (IB spec 10.6.7.2.4). */
	if (atomic_read(&mr->binds))
		return -EBUSY;
	xa_erase(&mdev->mrs, ibmr->lkey >> 8);
	atomic_dec(&mdev->mr_count);
	mroce_mr_put(mr);
	return 0;
}

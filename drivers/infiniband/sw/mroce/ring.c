// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rings shared with userspace: allocation, mmap and lifetime.
 *
 * A ring is vmalloc_user() memory.  Its owner (a CQ or QP), the mmap
 * table entry that lets a process map it, and every VMA that maps it
 * each hold a reference: destroying the object while a process still has
 * the ring mapped leaves the pages valid until munmap().
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/**
 * mroce_ring_alloc() - allocate a zeroed ring
 * @entries: number of entries, a power of two
 * @stride: bytes per entry
 *
 * Return: the ring, or NULL.
 */
struct mroce_ring *mroce_ring_alloc(u32 entries, u32 stride)
{
	struct mroce_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	ring->entries = entries;
	ring->stride = stride;
	ring->size = PAGE_ALIGN(MROCE_RING_HDR_SIZE + (size_t)entries * stride);
	ring->hdr = vmalloc_user(ring->size);
	if (!ring->hdr) {
		kfree(ring);
		return NULL;
	}
	kref_init(&ring->ref);
	return ring;
}

static void mroce_ring_release(struct kref *ref)
{
	struct mroce_ring *ring = container_of(ref, struct mroce_ring, ref);

	vfree(ring->hdr);
	kfree(ring);
}

/**
 * mroce_ring_put() - drop the owner's reference and unpublish the ring
 * @ring: the ring, or NULL
 */
void mroce_ring_put(struct mroce_ring *ring)
{
	if (!ring)
		return;
	if (ring->mentry.ucontext)
		rdma_user_mmap_entry_remove(&ring->mentry);
	kref_put(&ring->ref, mroce_ring_release);
}

/**
 * mroce_ring_expose() - let a user context map the ring
 * @ring: the ring
 * @uctx: the context
 * @offset: set to the mmap() offset
 *
 * Return: 0 or a negative errno.
 */
int mroce_ring_expose(struct mroce_ring *ring, struct ib_ucontext *uctx,
		      u64 *offset)
{
	int err;

	kref_get(&ring->ref);	/* the table's, dropped in mroce_mmap_free() */
	/* Offset 0 stays unused, so 0 can mean "no ring" in the ABI. */
	err = rdma_user_mmap_entry_insert_range(uctx, &ring->mentry, ring->size,
						1, U32_MAX);
	if (err) {
		ring->mentry.ucontext = NULL;
		kref_put(&ring->ref, mroce_ring_release);
		return err;
	}
	*offset = rdma_user_mmap_get_offset(&ring->mentry);
	return 0;
}

void mroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct mroce_ring *ring = container_of(entry, struct mroce_ring, mentry);

	kref_put(&ring->ref, mroce_ring_release);
}

static void mroce_vma_open(struct vm_area_struct *vma)
{
	struct mroce_ring *ring = vma->vm_private_data;

	kref_get(&ring->ref);
}

static void mroce_vma_close(struct vm_area_struct *vma)
{
	struct mroce_ring *ring = vma->vm_private_data;

	kref_put(&ring->ref, mroce_ring_release);
}

static const struct vm_operations_struct mroce_vm_ops = {
	.open = mroce_vma_open,
	.close = mroce_vma_close,
};

int mroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct mroce_ring *ring;
	int err = -EINVAL;

	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	ring = container_of(entry, struct mroce_ring, mentry);
	if (vma->vm_end - vma->vm_start > ring->size)
		goto out;

	err = remap_vmalloc_range(vma, ring->hdr, 0);
	if (err)
		goto out;
	vma->vm_ops = &mroce_vm_ops;
	vma->vm_private_data = ring;
	kref_get(&ring->ref);
out:
	rdma_user_mmap_entry_put(entry);
	return err;
}

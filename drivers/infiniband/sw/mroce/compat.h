/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What differs between the kernels mroce builds for (6.1 to 6.12), in one
 * place.  The pure protocol files (path.c, wire.c) and KUnit include it
 * too, so it pulls in no RDMA or networking header, only the unaligned
 * accessors; the other shims are macros over types that their users have
 * already included.
 */
#ifndef MROCE_COMPAT_H
#define MROCE_COMPAT_H

#include <linux/version.h>

/*
 * MROCE_KERNEL_SINCE() - building for kernel @major.@minor or a later one
 * @major: major version
 * @minor: minor version
 *
 * The only version check of the driver: every shim below uses it.
 */
#define MROCE_KERNEL_SINCE(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

/* 6.12 moved the unaligned accessors from <asm/unaligned.h>. */
#if MROCE_KERNEL_SINCE(6, 12)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * mroce_assign_str() - __assign_str() in a TP_fast_assign()
 * @dst: the __string() field
 * @src: the string it was declared with
 *
 * Since 6.10 __assign_str() takes only the field and copies the string
 * its __string() declaration names.
 */
#if MROCE_KERNEL_SINCE(6, 10)
#define mroce_assign_str(dst, src)	__assign_str(dst)
#else
#define mroce_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * struct mroce_create_cq_attrs - the last argument of
 * ib_device_ops.create_cq, and mroce_create_cq_udata() - the driver's
 * udata in it, NULL for a kernel CQ.
 *
 * Since 6.11 create_cq gets the caller's whole struct uverbs_attr_bundle
 * (NULL for a kernel CQ), which holds the udata; before, the struct
 * ib_udata itself.
 */
#if MROCE_KERNEL_SINCE(6, 11)
#define mroce_create_cq_attrs	uverbs_attr_bundle
#define mroce_create_cq_udata(attrs) ({					\
	struct uverbs_attr_bundle *__attrs = (attrs);			\
									\
	__attrs ? &__attrs->driver_udata : NULL;			\
})
#else
#define mroce_create_cq_attrs	ib_udata
#define mroce_create_cq_udata(udata)	(udata)
#endif

/*
 * MROCE_SLAB_OWN - flags for a cache never merged with another, so that
 * /proc/slabinfo shows what mroce holds: SLAB_NO_MERGE since 6.5; before,
 * no flag asks for it (and 6.1 keeps mroce's caches apart in practice).
 */
#if MROCE_KERNEL_SINCE(6, 5)
#define MROCE_SLAB_OWN	SLAB_NO_MERGE
#else
#define MROCE_SLAB_OWN	0
#endif

#endif /* MROCE_COMPAT_H */

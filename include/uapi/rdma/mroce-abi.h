/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * mroce kernel <-> rdma-core provider ABI.
 *
 * This header is shared verbatim by drivers/infiniband/sw/mroce and
 * providers/mroce (copied into rdma-core's kernel-headers/rdma/).  Every
 * structure is naturally aligned and padded to 8 bytes so that 32-bit and
 * 64-bit userspace see the same layout.
 */
#ifndef MROCE_ABI_USER_H
#define MROCE_ABI_USER_H

#include <linux/types.h>

/*
 * Bumped on any incompatible change of the structures below; the provider
 * refuses a device whose version it does not know.
 */
#define MROCE_UVERBS_ABI_VERSION	1

/* Name prefix the provider matches; the kernel names devices mroce%d by default. */
#define MROCE_DRIVER_NAME		"mroce"

/**
 * struct mroce_alloc_ucontext_resp - returned by ibv_open_device()
 * @abi_version: MROCE_UVERBS_ABI_VERSION of the kernel
 * @udp_port: UDP destination port the transport listens on
 * @max_inline: largest inline payload a send WQE may carry
 * @reserved: must be zero
 */
struct mroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u16 udp_port;
	__u16 reserved0;
	__u32 max_inline;
	__u32 reserved;
};

#endif /* MROCE_ABI_USER_H */

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
#define MROCE_UVERBS_ABI_VERSION	2

/* The provider's name; the kernel names devices mroce%d by default. */
#define MROCE_DRIVER_NAME		"mroce"

/*
 * The content of /sys/class/infiniband/<device>/hca_type of every mroce
 * device: how the provider recognises one, whatever its name.
 */
#define MROCE_HCA_TYPE			"mroce"

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

/*
 * Queues shared with userspace (CQ, send queue, receive queue) are rings
 * of fixed-size entries in kernel memory, mmap()ed by the provider at the
 * offset create_cq/create_qp return.  The mapping starts with struct
 * mroce_ring_hdr; entry i (indices run freely and wrap at 2^32) sits at
 * MROCE_RING_HDR_SIZE + (i & (entries - 1)) * stride.
 *
 * Send queue: userspace writes entries and then @producer (release); the
 * kernel consumes them in order and advances @consumer.  When the kernel
 * has gone idle it sets MROCE_RING_F_DOORBELL in @flags: userspace that
 * sees the flag after publishing @producer (with a full barrier between)
 * calls ibv_post_send's kernel command with no work requests, which the
 * kernel takes as the doorbell.
 * Receive queue: as the send queue; the kernel reads @producer when a
 * message needs a receive.  Once the QP is in the error state the kernel
 * sets MROCE_RING_F_DOORBELL here too, and the doorbell is
 * ibv_post_recv's kernel command with no work requests: receives posted
 * then complete at once, flushed.
 * Completion queue: the kernel writes entries and then @producer
 * (release); userspace reads entries up to @producer and then advances
 * @consumer.  The kernel never overwrites an entry userspace has not
 * consumed: a full queue is a CQ overrun.
 */
struct mroce_ring_hdr {
	__u32 producer;
	__u32 pad0[15];
	__u32 consumer;
	__u32 pad1[15];
	__u32 flags;
	__u32 pad2[15];
};

#define MROCE_RING_HDR_SIZE	192
#define MROCE_RING_F_DOORBELL	(1U << 0)

/* Scatter/gather element of a work request. */
struct mroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* Send flags of struct mroce_send_wqe (same values as enum ibv_send_flags). */
enum {
	MROCE_SEND_F_FENCE	= 1 << 0,
	MROCE_SEND_F_SIGNALED	= 1 << 1,
	MROCE_SEND_F_SOLICITED	= 1 << 2,
	MROCE_SEND_F_INLINE	= 1 << 3,
};

/**
 * struct mroce_send_wqe - send queue entry
 * @wr_id: returned in the completion
 * @opcode: enum ib_uverbs_wr_opcode
 * @send_flags: MROCE_SEND_F_*
 * @imm_data: immediate data (network order) or the rkey to invalidate
 * @num_sge: scatter/gather elements that follow (not inline)
 * @inline_len: bytes of inline data that follow (MROCE_SEND_F_INLINE)
 * @wr: operation-specific fields; for UD, @wr.ud.ah is the number
 *	create_ah returned (struct mroce_create_ah_resp) and a @remote_qkey
 *	with the high bit set stands for the QP's own Q_Key; for BIND_MW,
 *	@wr.bind names the window by its current rkey and gives the rkey it
 *	is to have (same upper 24 bits), the region by its lkey (0 with a
 *	zero @length unbinds a type 1 window), the range and the access
 *	(IB_ACCESS_REMOTE_*) it grants.  LOCAL_INV and SEND_WITH_INV carry
 *	the rkey to invalidate in @imm_data.
 *
 * Followed by @num_sge struct mroce_sge or by @inline_len bytes; the
 * queue's stride (create_qp response) bounds both.
 */
struct mroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 imm_data;
	__u32 num_sge;
	__u32 inline_len;
	__u32 reserved;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__u32 ah;
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;
			__u32 mw_rkey;
			__u32 new_rkey;
			__u32 mr_lkey;
			__u32 access;
		} bind;
	} wr;
};

/**
 * struct mroce_recv_wqe - receive queue entry, followed by @num_sge
 *	struct mroce_sge
 */
struct mroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

/* Completion flags of struct mroce_cqe. */
enum {
	MROCE_WC_F_GRH		= 1 << 0,
	MROCE_WC_F_WITH_IMM	= 1 << 1,
	MROCE_WC_F_WITH_INV	= 1 << 2,
};

/**
 * struct mroce_cqe - completion queue entry
 * @wr_id: the work request's
 * @status: enum ib_wc_status (same values as enum ibv_wc_status)
 * @opcode: IB work completion opcode: the values of enum ibv_wc_opcode
 *	(IBV_WC_SEND 0 ... IBV_WC_RECV 128, IBV_WC_RECV_RDMA_WITH_IMM 129)
 * @vendor_err: 0
 * @byte_len: bytes received (receive completions)
 * @imm_data: immediate data, network order (MROCE_WC_F_WITH_IMM), or
 *	the invalidated rkey (MROCE_WC_F_WITH_INV)
 * @qp_num: the local queue pair
 * @src_qp: the sending queue pair (receive completions)
 * @wc_flags: MROCE_WC_F_*
 * @sl: datagram receives: the frame's type, as ConnectX adapters report
 *	it for RoCE: 0x8 (a UDP header) | 0x2 (IPv4) or 0x1 (IPv6)
 */
struct mroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 imm_data;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type;
	__u32 reserved[4];
};

/**
 * struct mroce_create_cq_resp - returned by ibv_create_cq()
 * @mmap_offset: pass to mmap() on the device file to map the ring
 * @mmap_size: length to map
 * @entries: ring entries, a power of two, more than the CQEs asked for
 *
 * Entries are struct mroce_cqe, 64 bytes each.
 */
struct mroce_create_cq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 entries;
};

/**
 * struct mroce_create_qp_resp - returned by ibv_create_qp()
 * @sq_mmap_offset: mmap offset of the send queue ring
 * @rq_mmap_offset: mmap offset of the receive queue ring; 0 when the QP
 *	has none (it uses an SRQ); rings never get offset 0
 * @sq_mmap_size: length of the send queue mapping
 * @rq_mmap_size: length of the receive queue mapping
 * @sq_entries: send queue ring entries, a power of two
 * @rq_entries: receive queue ring entries, a power of two
 * @sq_stride: bytes per send queue entry
 * @rq_stride: bytes per receive queue entry
 * @max_inline: largest inline payload
 * @reserved: zero
 */
struct mroce_create_qp_resp {
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 rq_mmap_offset;
	__u32 sq_mmap_size;
	__u32 rq_mmap_size;
	__u32 sq_entries;
	__u32 rq_entries;
	__u32 sq_stride;
	__u32 rq_stride;
	__u32 max_inline;
	__u32 reserved;
};

/**
 * struct mroce_create_ah_resp - returned by ibv_create_ah()
 * @ah_num: the number UD send requests name the address handle by
 * @reserved: zero
 */
struct mroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

/**
 * struct mroce_create_srq_resp - returned by ibv_create_srq()
 * @mmap_offset: mmap offset of the receive ring
 * @mmap_size: length to map
 * @entries: ring entries, a power of two
 * @stride: bytes per entry (struct mroce_recv_wqe and its SGEs)
 * @reserved: zero
 *
 * The ring works as a QP's receive queue; the kernel takes entries for
 * messages of any QP attached to the SRQ.
 */
struct mroce_create_srq_resp {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 entries;
	__u32 stride;
	__u32 reserved;
};

#endif /* MROCE_ABI_USER_H */

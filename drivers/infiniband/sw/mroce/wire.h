/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mroce wire format, as specified in Documentation/wire-protocol.rst.
 *
 * The on-wire structures are big-endian and packed exactly as the spec
 * lays them out; struct mroce_pkt is the parsed, host-order view that the
 * rest of the driver works with.  Nothing here depends on verbs objects.
 */
#ifndef MROCE_WIRE_H
#define MROCE_WIRE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#include "params.h"

enum mroce_pkt_type {
	MROCE_PKT_DATA = 1,
	MROCE_PKT_ACK = 2,
	MROCE_PKT_HELLO = 3,
	MROCE_PKT_PROBE = 4,
	MROCE_PKT_DATAGRAM = 5,
};

/* Common header flags. */
#define MROCE_F_ACK_REQ		BIT(0)
#define MROCE_F_SOLICITED	BIT(1)	/* DATA: last packet asks for an event */
#define MROCE_F_IMM		BIT(2)	/* DATAGRAM: carries immediate data */
#define MROCE_F_ROUTE		BIT(3)	/* PROBE, ACK: route probe, its answer */

enum mroce_opcode {
	MROCE_OP_SEND = 1,
	MROCE_OP_SEND_IMM = 2,
	MROCE_OP_SEND_INV = 3,
	MROCE_OP_WRITE = 4,
	MROCE_OP_WRITE_IMM = 5,
	MROCE_OP_READ_REQ = 6,
	MROCE_OP_READ_RESP = 7,
	MROCE_OP_CMP_SWAP = 8,
	MROCE_OP_FETCH_ADD = 9,
	MROCE_OP_ATOMIC_RESP = 10,
	MROCE_OP_MAX = MROCE_OP_ATOMIC_RESP,
};

enum mroce_nak {
	MROCE_NAK_NONE = 0,
	MROCE_NAK_RNR = 1,
	MROCE_NAK_REMOTE_ACCESS = 2,
	MROCE_NAK_INVALID_REQUEST = 3,
	MROCE_NAK_REMOTE_OPERATION = 4,
	MROCE_NAK_MAX = MROCE_NAK_REMOTE_OPERATION,
};

struct mroce_hdr {
	u8 version;		/* high nibble */
	u8 type;
	u8 flags;
	u8 path;
	__be32 src_epoch;
	__be32 dst_epoch;
	__be32 psn;
};

struct mroce_data_hdr {
	__be32 dst_qpn;
	__be32 src_qpn;
	u8 opcode;
	u8 gen;
	__be16 reserved;
	__be32 msn;
	__be32 msg_len;
	__be32 offset;
};

struct mroce_ack_hdr {
	u8 sack[MROCE_SACK_BITS / 8];
	__be16 ce_count;
	__be16 share;
	u8 nstreams;
	u8 capacity[3];		/* 24 bits, big-endian */
};

struct mroce_stream_rec {
	__be32 qpn;
	__be32 msn_done;
	__be32 nak_msn;
	u8 nak;
	u8 nak_gen;
	u8 rnr_timer;
	u8 reserved;
};

struct mroce_hello_hdr {
	__be16 paths;
	__be16 reserved;
	__be32 reserved2;
};

struct mroce_probe_hdr {
	__be32 qpn;
	__be32 reserved;
};

struct mroce_dgram_hdr {
	__be32 dst_qpn;
	__be32 src_qpn;
	__be32 qkey;
	__be32 imm;
};

#define MROCE_HDR_LEN		sizeof(struct mroce_hdr)
#define MROCE_DATA_HDR_LEN	(MROCE_HDR_LEN + sizeof(struct mroce_data_hdr))
#define MROCE_ACK_HDR_LEN	(MROCE_HDR_LEN + sizeof(struct mroce_ack_hdr))
#define MROCE_HELLO_LEN		(MROCE_HDR_LEN + sizeof(struct mroce_hello_hdr))
#define MROCE_PROBE_LEN		(MROCE_HDR_LEN + sizeof(struct mroce_probe_hdr))
#define MROCE_DGRAM_HDR_LEN	(MROCE_HDR_LEN + sizeof(struct mroce_dgram_hdr))
/* Largest header of a packet that carries payload (WRITE_IMM). */
#define MROCE_DATA_HDR_MAX	(MROCE_DATA_HDR_LEN + 24)
/*
 * Bytes a frame spends outside the RDMA payload: the larger IP header
 * (IPv6), UDP, and the largest mroce header of a packet with payload.
 */
#define MROCE_ENCAP_OVERHEAD	(40 + 8 + MROCE_DATA_HDR_MAX)

static_assert(sizeof(struct mroce_hdr) == 16);
static_assert(sizeof(struct mroce_data_hdr) == 24);
static_assert(sizeof(struct mroce_ack_hdr) == 40);
static_assert(sizeof(struct mroce_stream_rec) == 16);
static_assert(sizeof(struct mroce_hello_hdr) == 8);
static_assert(sizeof(struct mroce_probe_hdr) == 8);
static_assert(sizeof(struct mroce_dgram_hdr) == 16);

/**
 * struct mroce_ack_stream - one stream record of an ACK, host order
 * @qpn: queue pair of the ACK's receiver
 * @msn_done: every message before it is complete at the ACK's sender
 * @nak_msn: message @nak refers to
 * @nak: enum mroce_nak
 * @nak_gen: generation of the NAKed message
 * @rnr_timer: IB-encoded RNR timer of an RNR NAK
 */
struct mroce_ack_stream {
	u32 qpn;
	u32 msn_done;
	u32 nak_msn;
	u8 nak;
	u8 nak_gen;
	u8 rnr_timer;
};

/**
 * struct mroce_pkt - a parsed packet header, host order
 *
 * Which fields are meaningful depends on @type and, for DATA, on @opcode;
 * the others are zero.  @hdr_len is the length of all headers, so the
 * payload of a DATA packet is bytes [@hdr_len, @hdr_len + @payload_len).
 */
struct mroce_pkt {
	u8 type;
	u8 flags;
	u8 path;
	u32 src_epoch;
	u32 dst_epoch;
	u32 psn;
	u32 hdr_len;

	/* DATA, DATAGRAM */
	u32 dst_qpn;
	u32 src_qpn;
	u8 opcode;
	u8 gen;
	u32 msn;
	u32 msg_len;
	u32 offset;
	u32 payload_len;
	u32 ssn;
	u32 imm;		/* immediate data or rkey to invalidate */
	u32 qkey;		/* DATAGRAM */
	u64 va;
	u32 rkey;
	u64 swap_add;		/* CMP_SWAP swap, FETCH_ADD add, ATOMIC_RESP orig */
	u64 compare;

	/* ACK */
	const u8 *sack;		/* MROCE_SACK_BITS bits, inside the packet */
	u16 ce_count;
	u16 share;
	u32 capacity;		/* Mbit/s, 24 bits; 0: no share given */
	u8 nstreams;
	const struct mroce_stream_rec *streams;	/* inside the packet */

	/* HELLO */
	u16 paths;

	/* PROBE: the receiver's queue pair whose progress is asked for */
	u32 probe_qpn;
};

int mroce_wire_ext_len(u8 opcode);
int mroce_wire_hdr_len(const void *buf, size_t avail);
int mroce_wire_parse(const void *buf, size_t hdr_avail, size_t pkt_len,
		     struct mroce_pkt *pkt);
void mroce_wire_ack_stream(const struct mroce_pkt *pkt, unsigned int i,
			   struct mroce_ack_stream *rec);

size_t mroce_wire_build(void *buf, const struct mroce_pkt *pkt);
void mroce_wire_put_stream(void *buf, unsigned int i,
			   const struct mroce_ack_stream *rec);

static inline bool mroce_op_has_ssn(u8 opcode)
{
	return opcode == MROCE_OP_SEND || opcode == MROCE_OP_SEND_IMM ||
	       opcode == MROCE_OP_SEND_INV || opcode == MROCE_OP_WRITE_IMM;
}

static inline bool mroce_op_has_payload(u8 opcode)
{
	return opcode <= MROCE_OP_WRITE_IMM || opcode == MROCE_OP_READ_RESP;
}

static inline bool mroce_op_is_atomic(u8 opcode)
{
	return opcode == MROCE_OP_CMP_SWAP || opcode == MROCE_OP_FETCH_ADD;
}

/* Serial-number comparison of 32-bit sequence and message numbers. */
static inline bool mroce_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

#endif /* MROCE_WIRE_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building and parsing mroce headers (Documentation/wire-protocol.rst).
 *
 * The parser is the only code that reads packet bytes before they are
 * trusted: everything it accepts is within the packet and consistent
 * (lengths, offsets, opcode extensions), so later layers check only
 * what depends on their own state.
 */
#include <linux/align.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "compat.h"
#include "wire.h"

/* Byte offset of the operation extension in a DATA packet. */
#define EXT	MROCE_DATA_HDR_LEN

/**
 * mroce_wire_ext_len() - size of a DATA opcode's extension
 * @opcode: enum mroce_opcode
 *
 * Return: the extension length in bytes, or -EINVAL for an unknown opcode.
 */
int mroce_wire_ext_len(u8 opcode)
{
	static const u8 len[MROCE_OP_MAX + 1] = {
		[MROCE_OP_SEND] = 8,
		[MROCE_OP_SEND_IMM] = 8,
		[MROCE_OP_SEND_INV] = 8,
		[MROCE_OP_WRITE] = 16,
		[MROCE_OP_WRITE_IMM] = 24,
		[MROCE_OP_READ_REQ] = 16,
		[MROCE_OP_READ_RESP] = 0,
		[MROCE_OP_CMP_SWAP] = 32,
		[MROCE_OP_FETCH_ADD] = 24,
		[MROCE_OP_ATOMIC_RESP] = 8,
	};

	if (!opcode || opcode > MROCE_OP_MAX)
		return -EINVAL;
	return len[opcode];
}

/**
 * mroce_wire_hdr_len() - how many header bytes a packet needs in one piece
 * @buf: start of the packet
 * @avail: contiguous bytes at @buf, at least MROCE_HDR_LEN
 *
 * A receiver calls this until the answer is no larger than @avail,
 * making more of the packet contiguous in between: the answer can grow
 * once the type- or opcode-specific part becomes readable.
 *
 * Return: the header length needed so far, or -EINVAL when the bytes
 * already read rule the packet out.
 */
int mroce_wire_hdr_len(const void *buf, size_t avail)
{
	const struct mroce_hdr *hdr = buf;
	const u8 *p = buf;
	int ext;

	if (avail < MROCE_HDR_LEN)
		return MROCE_HDR_LEN;
	if (hdr->version >> 4 != MROCE_WIRE_VERSION)
		return -EINVAL;

	switch (hdr->type) {
	case MROCE_PKT_DATA:
		if (avail < MROCE_DATA_HDR_LEN)
			return MROCE_DATA_HDR_LEN;
		ext = mroce_wire_ext_len(p[MROCE_HDR_LEN +
				offsetof(struct mroce_data_hdr, opcode)]);
		return ext < 0 ? ext : MROCE_DATA_HDR_LEN + ext;
	case MROCE_PKT_ACK:
		if (avail < MROCE_ACK_HDR_LEN)
			return MROCE_ACK_HDR_LEN;
		ext = p[MROCE_HDR_LEN + offsetof(struct mroce_ack_hdr, nstreams)];
		if (ext > MROCE_ACK_MAX_STREAMS)
			return -EINVAL;
		return MROCE_ACK_HDR_LEN + ext * sizeof(struct mroce_stream_rec);
	case MROCE_PKT_HELLO:
		return MROCE_HELLO_LEN;
	case MROCE_PKT_PROBE:
		return MROCE_PROBE_LEN;
	case MROCE_PKT_DATAGRAM:
		return MROCE_DGRAM_HDR_LEN;
	default:
		return -EINVAL;
	}
}

static int parse_data(const u8 *p, size_t pkt_len, struct mroce_pkt *pkt)
{
	const struct mroce_data_hdr *d = (const void *)(p + MROCE_HDR_LEN);
	u8 op = d->opcode;

	pkt->dst_qpn = get_unaligned_be32(&d->dst_qpn) & MROCE_QPN_MASK;
	pkt->src_qpn = get_unaligned_be32(&d->src_qpn) & MROCE_QPN_MASK;
	pkt->opcode = op;
	pkt->gen = d->gen;
	pkt->msn = get_unaligned_be32(&d->msn);
	pkt->msg_len = get_unaligned_be32(&d->msg_len);
	pkt->offset = get_unaligned_be32(&d->offset);
	pkt->payload_len = pkt_len - pkt->hdr_len;

	switch (op) {
	case MROCE_OP_SEND:
	case MROCE_OP_SEND_IMM:
	case MROCE_OP_SEND_INV:
		pkt->ssn = get_unaligned_be32(p + EXT);
		pkt->imm = get_unaligned_be32(p + EXT + 4);
		break;
	case MROCE_OP_WRITE_IMM:
		pkt->imm = get_unaligned_be32(p + EXT + 12);
		pkt->ssn = get_unaligned_be32(p + EXT + 16);
		fallthrough;
	case MROCE_OP_WRITE:
	case MROCE_OP_READ_REQ:
	case MROCE_OP_CMP_SWAP:
	case MROCE_OP_FETCH_ADD:
		pkt->va = get_unaligned_be64(p + EXT);
		pkt->rkey = get_unaligned_be32(p + EXT + 8);
		break;
	case MROCE_OP_ATOMIC_RESP:
		pkt->swap_add = get_unaligned_be64(p + EXT);
		break;
	}
	if (mroce_op_is_atomic(op)) {
		pkt->swap_add = get_unaligned_be64(p + EXT + 16);
		if (op == MROCE_OP_CMP_SWAP)
			pkt->compare = get_unaligned_be64(p + EXT + 24);
	}

	/* The payload must lie inside the message... */
	if ((u64)pkt->offset + pkt->payload_len > pkt->msg_len)
		return -EINVAL;
	if (!mroce_op_has_payload(op)) {
		/* ...requests and atomic responses carry none... */
		if (pkt->payload_len || pkt->offset)
			return -EINVAL;
		if (op != MROCE_OP_READ_REQ && pkt->msg_len != sizeof(u64))
			return -EINVAL;
	} else if (!pkt->payload_len && pkt->msg_len) {
		/* ...and only a zero-length message has an empty packet. */
		return -EINVAL;
	}
	if (mroce_op_is_atomic(op) && !IS_ALIGNED(pkt->va, sizeof(u64)))
		return -EINVAL;
	return 0;
}

/**
 * mroce_wire_parse() - parse and validate a packet's headers
 * @buf: start of the packet
 * @hdr_avail: contiguous bytes at @buf (at least the header length
 *	mroce_wire_hdr_len() asked for)
 * @pkt_len: length of the whole packet (the UDP payload)
 * @pkt: filled with the header fields in host order
 *
 * Return: 0, or -EINVAL for a packet the spec says to drop: wrong
 * version, unknown type or opcode, path id out of range, a source epoch
 * of 0 outside a DATAGRAM, truncated headers, or lengths and offsets
 * that do not fit together.
 */
int mroce_wire_parse(const void *buf, size_t hdr_avail, size_t pkt_len,
		     struct mroce_pkt *pkt)
{
	const struct mroce_hdr *hdr = buf;
	const u8 *p = buf;
	int len;

	memset(pkt, 0, sizeof(*pkt));
	if (hdr_avail > pkt_len || hdr_avail < MROCE_HDR_LEN)
		return -EINVAL;
	len = mroce_wire_hdr_len(buf, hdr_avail);
	if (len < 0 || len > hdr_avail)
		return -EINVAL;
	if (hdr->path >= MROCE_MAX_PATHS)
		return -EINVAL;

	pkt->type = hdr->type;
	pkt->flags = hdr->flags;
	pkt->path = hdr->path;
	pkt->src_epoch = get_unaligned_be32(&hdr->src_epoch);
	/* Epochs are never 0 (id HDR-EPOCH); a DATAGRAM carries none. */
	if (!pkt->src_epoch && pkt->type != MROCE_PKT_DATAGRAM)
		return -EINVAL;
	pkt->dst_epoch = get_unaligned_be32(&hdr->dst_epoch);
	pkt->psn = get_unaligned_be32(&hdr->psn);
	pkt->hdr_len = len;

	switch (hdr->type) {
	case MROCE_PKT_DATA:
		return parse_data(p, pkt_len, pkt);
	case MROCE_PKT_ACK: {
		const struct mroce_ack_hdr *a = (const void *)(p + MROCE_HDR_LEN);
		unsigned int i;

		pkt->sack = a->sack;
		pkt->ce_count = get_unaligned_be16(&a->ce_count);
		pkt->share = get_unaligned_be16(&a->share);
		pkt->capacity = a->capacity[0] << 16 | a->capacity[1] << 8 |
				a->capacity[2];
		pkt->nstreams = a->nstreams;
		pkt->streams = (const void *)(p + MROCE_ACK_HDR_LEN);
		for (i = 0; i < pkt->nstreams; i++)
			if (pkt->streams[i].nak > MROCE_NAK_MAX)
				return -EINVAL;
		return 0;
	}
	case MROCE_PKT_HELLO: {
		const struct mroce_hello_hdr *h = (const void *)(p + MROCE_HDR_LEN);

		pkt->paths = get_unaligned_be16(&h->paths);
		if (!pkt->paths || pkt->paths > MROCE_MAX_PATHS)
			return -EINVAL;
		return 0;
	}
	case MROCE_PKT_DATAGRAM: {
		const struct mroce_dgram_hdr *g = (const void *)(p + MROCE_HDR_LEN);

		pkt->dst_qpn = get_unaligned_be32(&g->dst_qpn) & MROCE_QPN_MASK;
		pkt->src_qpn = get_unaligned_be32(&g->src_qpn) & MROCE_QPN_MASK;
		pkt->qkey = get_unaligned_be32(&g->qkey);
		pkt->imm = get_unaligned_be32(&g->imm);
		pkt->payload_len = pkt_len - len;
		pkt->msg_len = pkt->payload_len;
		return 0;
	}
	default: {
		const struct mroce_probe_hdr *pr = (const void *)(p + MROCE_HDR_LEN);

		pkt->probe_qpn = get_unaligned_be32(&pr->qpn);
		return 0;
	}
	}
}

/**
 * mroce_wire_ack_stream() - read stream record @i of a parsed ACK
 * @pkt: the ACK, parsed by mroce_wire_parse()
 * @i: record index, below @pkt->nstreams
 * @rec: filled in host order
 */
void mroce_wire_ack_stream(const struct mroce_pkt *pkt, unsigned int i,
			   struct mroce_ack_stream *rec)
{
	const struct mroce_stream_rec *r = &pkt->streams[i];

	rec->qpn = get_unaligned_be32(&r->qpn) & MROCE_QPN_MASK;
	rec->msn_done = get_unaligned_be32(&r->msn_done);
	rec->nak_msn = get_unaligned_be32(&r->nak_msn);
	rec->nak = r->nak;
	rec->nak_gen = r->nak_gen;
	rec->rnr_timer = r->rnr_timer & 0x1f;
}

static size_t build_data(u8 *p, const struct mroce_pkt *pkt)
{
	struct mroce_data_hdr *d = (void *)(p + MROCE_HDR_LEN);
	u8 op = pkt->opcode;

	put_unaligned_be32(pkt->dst_qpn & MROCE_QPN_MASK, &d->dst_qpn);
	put_unaligned_be32(pkt->src_qpn & MROCE_QPN_MASK, &d->src_qpn);
	d->opcode = op;
	d->gen = pkt->gen;
	put_unaligned_be32(pkt->msn, &d->msn);
	put_unaligned_be32(pkt->msg_len, &d->msg_len);
	put_unaligned_be32(pkt->offset, &d->offset);

	switch (op) {
	case MROCE_OP_SEND:
	case MROCE_OP_SEND_IMM:
	case MROCE_OP_SEND_INV:
		put_unaligned_be32(pkt->ssn, p + EXT);
		put_unaligned_be32(pkt->imm, p + EXT + 4);
		break;
	case MROCE_OP_WRITE_IMM:
		put_unaligned_be32(pkt->imm, p + EXT + 12);
		put_unaligned_be32(pkt->ssn, p + EXT + 16);
		fallthrough;
	case MROCE_OP_WRITE:
	case MROCE_OP_READ_REQ:
	case MROCE_OP_CMP_SWAP:
	case MROCE_OP_FETCH_ADD:
		put_unaligned_be64(pkt->va, p + EXT);
		put_unaligned_be32(pkt->rkey, p + EXT + 8);
		break;
	case MROCE_OP_ATOMIC_RESP:
		put_unaligned_be64(pkt->swap_add, p + EXT);
		break;
	}
	if (mroce_op_is_atomic(op)) {
		put_unaligned_be64(pkt->swap_add, p + EXT + 16);
		if (op == MROCE_OP_CMP_SWAP)
			put_unaligned_be64(pkt->compare, p + EXT + 24);
	}
	return MROCE_DATA_HDR_LEN + mroce_wire_ext_len(op);
}

/**
 * mroce_wire_build() - write a packet's headers
 * @buf: destination, with room for @pkt's header (for an ACK:
 *	MROCE_ACK_HDR_LEN plus its stream records)
 * @pkt: the fields to write; for DATA, @pkt->opcode must be valid
 *
 * Reserved fields are written as zero.  An ACK's stream records are
 * written separately with mroce_wire_put_stream().
 *
 * Return: the header length, which for an ACK includes @pkt->nstreams
 * stream records.
 */
size_t mroce_wire_build(void *buf, const struct mroce_pkt *pkt)
{
	struct mroce_hdr *hdr = buf;
	u8 *p = buf;

	hdr->version = MROCE_WIRE_VERSION << 4;
	hdr->type = pkt->type;
	hdr->flags = pkt->flags;
	hdr->path = pkt->path;
	put_unaligned_be32(pkt->src_epoch, &hdr->src_epoch);
	put_unaligned_be32(pkt->dst_epoch, &hdr->dst_epoch);
	put_unaligned_be32(pkt->psn, &hdr->psn);

	switch (pkt->type) {
	case MROCE_PKT_DATA:
		/* Zero exactly the header: the payload may already follow it. */
		memset(p + MROCE_HDR_LEN, 0, MROCE_DATA_HDR_LEN - MROCE_HDR_LEN +
		       mroce_wire_ext_len(pkt->opcode));
		return build_data(p, pkt);
	case MROCE_PKT_ACK: {
		struct mroce_ack_hdr *a = (void *)(p + MROCE_HDR_LEN);

		memcpy(a->sack, pkt->sack, sizeof(a->sack));
		put_unaligned_be16(pkt->ce_count, &a->ce_count);
		put_unaligned_be16(pkt->share, &a->share);
		a->nstreams = pkt->nstreams;
		a->capacity[0] = pkt->capacity >> 16;
		a->capacity[1] = pkt->capacity >> 8;
		a->capacity[2] = pkt->capacity;
		return MROCE_ACK_HDR_LEN +
		       pkt->nstreams * sizeof(struct mroce_stream_rec);
	}
	case MROCE_PKT_HELLO: {
		struct mroce_hello_hdr *h = (void *)(p + MROCE_HDR_LEN);

		put_unaligned_be16(pkt->paths, &h->paths);
		h->reserved = 0;
		h->reserved2 = 0;
		return MROCE_HELLO_LEN;
	}
	case MROCE_PKT_DATAGRAM: {
		struct mroce_dgram_hdr *g = (void *)(p + MROCE_HDR_LEN);

		put_unaligned_be32(pkt->dst_qpn & MROCE_QPN_MASK, &g->dst_qpn);
		put_unaligned_be32(pkt->src_qpn & MROCE_QPN_MASK, &g->src_qpn);
		put_unaligned_be32(pkt->qkey, &g->qkey);
		put_unaligned_be32(pkt->flags & MROCE_F_IMM ? pkt->imm : 0, &g->imm);
		return MROCE_DGRAM_HDR_LEN;
	}
	default: {
		struct mroce_probe_hdr *pr = (void *)(p + MROCE_HDR_LEN);

		put_unaligned_be32(pkt->probe_qpn, &pr->qpn);
		pr->reserved = 0;
		return MROCE_PROBE_LEN;
	}
	}
}

/**
 * mroce_wire_put_stream() - write stream record @i of an ACK
 * @buf: the ACK, whose header mroce_wire_build() wrote
 * @i: record index
 * @rec: the record
 */
void mroce_wire_put_stream(void *buf, unsigned int i,
			   const struct mroce_ack_stream *rec)
{
	struct mroce_stream_rec *r;

	r = (struct mroce_stream_rec *)((u8 *)buf + MROCE_ACK_HDR_LEN) + i;

	put_unaligned_be32(rec->qpn & MROCE_QPN_MASK, &r->qpn);
	put_unaligned_be32(rec->msn_done, &r->msn_done);
	put_unaligned_be32(rec->nak_msn, &r->nak_msn);
	r->nak = rec->nak;
	r->nak_gen = rec->nak_gen;
	r->rnr_timer = rec->rnr_timer;
	r->reserved = 0;
}

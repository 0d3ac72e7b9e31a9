/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside a stream: what its shared part (stream.c), its requester
 * (requester.c) and its responder (responder.c) call of one another.
 * The rest of the driver sees streams through transport.h.
 */
#ifndef MROCE_STREAM_H
#define MROCE_STREAM_H

#include "transport.h"

/* The send request at ring index @index. */
static inline struct mroce_swqe *mroce_swqe_at(struct mroce_stream *s, u32 index)
{
	return &s->swq[index & (s->sq_entries - 1)];
}

/* The stream has packets to send: put it on its connection's list. */
static inline void mroce_stream_want_tx(struct mroce_stream *s)
{
	if (list_empty(&s->tx_node))
		list_add_tail(&s->tx_node, &s->conn->tx_streams);
}

/* stream.c */
void mroce_stream_post_cqe(struct mroce_cq *cq, struct mroce_cqe *cqe,
			   bool solicited);
struct mroce_seg *mroce_seg_alloc(struct mroce_stream *s, u8 opcode, u32 msn);
int mroce_stream_scatter(struct mroce_stream *s, const struct mroce_sge *sges,
			 u32 nsge, u32 offset, const u8 *buf, u32 len);

/* requester.c */
void mroce_req_complete(struct mroce_stream *s);
void mroce_req_flush(struct mroce_stream *s);
bool mroce_req_rx_response(struct mroce_stream *s, const struct mroce_pkt *pkt,
			   const u8 *payload);

/* responder.c */
void mroce_resp_free(struct mroce_resp *resp);
struct mroce_seg *mroce_resp_next_seg(struct mroce_stream *s);
void mroce_resp_flush_srq(struct mroce_stream *s);

#endif /* MROCE_STREAM_H */

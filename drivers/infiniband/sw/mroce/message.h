/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The message state of a stream, on both sides: which messages a
 * responder accepts packets for and when one completes, in order; how a
 * requester cuts a message into packets and sends it again after an RNR
 * NAK (Documentation/wire-protocol.rst, "Placement", "RNR").  Pure logic,
 * like path.c: the caller owns rings, completions, memory and locking.
 * The module's responder and requester, KUnit and the simulator use it.
 */
#ifndef MROCE_MESSAGE_H
#define MROCE_MESSAGE_H

#include <linux/types.h>

#include "params.h"
#include "wire.h"

enum mroce_rmsg_state {
	MROCE_RMSG_FREE,
	MROCE_RMSG_ACTIVE,	/* placing */
	MROCE_RMSG_REQUEST,	/* READ/atomic, runs when it is the oldest */
	MROCE_RMSG_DONE,	/* complete, waiting for earlier messages */
};

/**
 * struct mroce_rmsg - receive-side state of one message in the window
 * @msn: the message
 * @len: its length
 * @placed: bytes placed
 * @ssn: receive it consumes (@recv)
 * @imm: immediate data (its wire field's value) or invalidated rkey
 * @gen: generation being placed
 * @state: enum mroce_rmsg_state
 * @opcode: its wire opcode
 * @recv: consumes a receive
 * @solicited: the sender asked for a solicited event
 * @rnr: this generation was RNR NAKed; its packets are dropped
 * @recv_loaded: the receive was copied from the ring and checked
 * @status: the verbs layer's completion status for the receive (an enum
 *	ib_wc_status); 0, success, until the responder sets another
 * @va: READ/atomic: remote address
 * @rkey: READ/atomic: remote key
 * @swap_add: atomic operand
 * @compare: compare-and-swap operand
 */
struct mroce_rmsg {
	u32 msn;
	u32 len;
	u32 placed;
	u32 ssn;
	u32 imm;
	u8 gen;
	u8 state;
	u8 opcode;
	bool recv;
	bool solicited;
	bool rnr;
	bool recv_loaded;
	int status;
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 compare;
};

struct mroce_rmsg *mroce_rmsg_accept(struct mroce_rmsg *win, u32 done,
				     const struct mroce_pkt *pkt);
void mroce_rmsg_request(struct mroce_rmsg *m, const struct mroce_pkt *pkt);
bool mroce_rmsg_placed(struct mroce_rmsg *m, u32 bytes);
struct mroce_rmsg *mroce_rmsg_oldest(struct mroce_rmsg *win, u32 done);

enum mroce_smsg_state {
	MROCE_SMSG_PENDING,	/* bytes left to cut into packets */
	MROCE_SMSG_SENT,	/* all cut; waiting for the peer */
	MROCE_SMSG_RNR_WAIT,	/* RNR NAKed; sent again from @resume_us */
	MROCE_SMSG_DONE,	/* complete */
};

/**
 * struct mroce_smsg - send-side state of one message
 * @msn: message number
 * @ssn: receive match token (receive-consuming opcodes)
 * @len: payload length (READ: bytes to read)
 * @sent: bytes cut into packets so far
 * @placed: READ: response bytes placed
 * @gen: generation (incremented by each RNR resend)
 * @state: enum mroce_smsg_state
 * @rnr_left: RNR resends left (7: without limit)
 * @resume_us: RNR_WAIT: when to send it again
 */
struct mroce_smsg {
	u32 msn;
	u32 ssn;
	u32 len;
	u32 sent;
	u32 placed;
	u8 gen;
	u8 state;
	u8 rnr_left;
	u64 resume_us;
};

void mroce_smsg_init(struct mroce_smsg *m, u32 msn, u32 ssn, u32 len,
		     u8 rnr_retry);
bool mroce_smsg_resume(struct mroce_smsg *m, u64 now_us);
u32 mroce_smsg_cut(struct mroce_smsg *m, u32 mtu, bool request, u32 *offset);
bool mroce_smsg_rnr(struct mroce_smsg *m, u64 now_us, u64 wait_us);
bool mroce_smsg_placed(struct mroce_smsg *m, u32 bytes);
bool mroce_msg_progress(u32 *remote_done, u32 next_msn, u32 msn_done);

#endif /* MROCE_MESSAGE_H */

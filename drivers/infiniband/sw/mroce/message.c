// SPDX-License-Identifier: GPL-2.0-only
/*
 * The message state of a stream (Documentation/wire-protocol.rst,
 * "Placement" and "RNR"): the responder's window of messages and the
 * requester's messages, without the rings, completions and memory that
 * responder.c and requester.c keep around them.
 */
#include <linux/minmax.h>
#include <linux/string.h>

#include "compat.h"
#include "message.h"

/**
 * mroce_rmsg_accept() - the message a DATA packet is placed into
 * @win: the stream's window, MROCE_STREAM_WINDOW messages by number
 * @done: the stream's msn_done: every message before it is complete
 * @pkt: a request packet the stream's path recorded (not a response)
 *
 * A packet of a message not yet in the window starts it; one of a newer
 * generation starts the message over (the sender resends it whole after
 * an RNR NAK).  The packet is dropped if its message is complete or
 * beyond the window, already recorded as a request, of an older
 * generation (id RNR-GEN) or of a generation NAKed RNR (id RNR-NAK), or
 * if its length or opcode is not the message's (the caller counts it,
 * id PLACE-DROP).
 *
 * Return: the message's state, to place @pkt into, or NULL to drop it.
 */
struct mroce_rmsg *mroce_rmsg_accept(struct mroce_rmsg *win, u32 done,
				     const struct mroce_pkt *pkt)
{
	struct mroce_rmsg *m;

	if (pkt->msn - done >= MROCE_STREAM_WINDOW)
		return NULL;
	m = &win[pkt->msn % MROCE_STREAM_WINDOW];
	if (m->state == MROCE_RMSG_FREE || m->msn != pkt->msn) {
		memset(m, 0, sizeof(*m));
		m->msn = pkt->msn;
		m->len = pkt->msg_len;
		m->gen = pkt->gen;
		m->opcode = pkt->opcode;
		m->recv = mroce_op_has_ssn(pkt->opcode);
		m->ssn = pkt->ssn;
		m->imm = pkt->imm;
		m->state = MROCE_RMSG_ACTIVE;
	}
	if (m->state == MROCE_RMSG_DONE || m->state == MROCE_RMSG_REQUEST ||
	    (s8)(pkt->gen - m->gen) < 0)
		return NULL;
	if (pkt->gen != m->gen) {
		m->gen = pkt->gen;
		m->placed = 0;
		m->rnr = false;
	}
	if (m->rnr || pkt->msg_len != m->len || pkt->opcode != m->opcode)
		return NULL;
	if (pkt->flags & MROCE_F_SOLICITED)
		m->solicited = true;
	return m;
}

/**
 * mroce_rmsg_request() - record a READ or atomic request
 * @m: its message, from mroce_rmsg_accept()
 * @pkt: its packet
 *
 * It runs when every earlier message is complete (ids PLACE-READ,
 * PLACE-ATOMIC): mroce_rmsg_oldest() then returns it.
 */
void mroce_rmsg_request(struct mroce_rmsg *m, const struct mroce_pkt *pkt)
{
	m->va = pkt->va;
	m->rkey = pkt->rkey;
	m->swap_add = pkt->swap_add;
	m->compare = pkt->compare;
	m->state = MROCE_RMSG_REQUEST;
}

/**
 * mroce_rmsg_placed() - a packet's payload of the message was placed
 * @m: the message
 * @bytes: the payload's length
 *
 * Each packet is placed once: its path drops duplicates before.
 *
 * Return: true if that completed the message.
 */
bool mroce_rmsg_placed(struct mroce_rmsg *m, u32 bytes)
{
	m->placed += bytes;
	if (m->placed != m->len)
		return false;
	m->state = MROCE_RMSG_DONE;
	return true;
}

/**
 * mroce_rmsg_oldest() - the oldest message of the window, if it is known
 * @win: the stream's window
 * @done: the stream's msn_done
 *
 * msn_done passes the oldest message once it is DONE (a REQUEST runs
 * first, and is DONE after); the caller completes it, sets it FREE and
 * moves msn_done on.
 *
 * Return: message @done, or NULL if none of its packets has arrived (or
 * its slot was freed, as a stream that fails does).
 */
struct mroce_rmsg *mroce_rmsg_oldest(struct mroce_rmsg *win, u32 done)
{
	struct mroce_rmsg *m = &win[done % MROCE_STREAM_WINDOW];

	if (m->msn != done || m->state == MROCE_RMSG_FREE)
		return NULL;
	return m;
}

/**
 * mroce_smsg_init() - a message about to be sent for the first time (or
 *	a local operation's place, with no message)
 * @m: the message
 * @msn: its number
 * @ssn: the receive it consumes, or 0
 * @len: its length
 * @rnr_retry: RNR resends allowed (7: without limit)
 */
void mroce_smsg_init(struct mroce_smsg *m, u32 msn, u32 ssn, u32 len,
		     u8 rnr_retry)
{
	*m = (struct mroce_smsg){
		.msn = msn,
		.ssn = ssn,
		.len = len,
		.state = MROCE_SMSG_PENDING,
		.rnr_left = rnr_retry,
	};
}

/**
 * mroce_smsg_resume() - send an RNR NAKed message again once it is time
 * @m: the message
 * @now_us: current time
 *
 * The message is sent again whole, with the next generation (id
 * RNR-RESEND).
 *
 * Return: true if it is to be cut again from its first byte.
 */
bool mroce_smsg_resume(struct mroce_smsg *m, u64 now_us)
{
	if (m->state != MROCE_SMSG_RNR_WAIT || m->resume_us > now_us)
		return false;
	m->state = MROCE_SMSG_PENDING;
	m->sent = 0;
	m->gen++;
	return true;
}

/**
 * mroce_smsg_cut() - the next packet of a message
 * @m: the message, PENDING
 * @mtu: payload bytes per packet (not 0)
 * @request: it is a READ or atomic request, whose only packet carries
 *	no payload
 * @offset: set to the packet's offset in the message
 *
 * The message is SENT once its last packet is cut.
 *
 * Return: the packet's payload length.
 */
u32 mroce_smsg_cut(struct mroce_smsg *m, u32 mtu, bool request, u32 *offset)
{
	u32 n = request ? 0 : min(mtu, m->len - m->sent);

	*offset = m->sent;
	m->sent += n;
	if (request || m->sent == m->len)
		m->state = MROCE_SMSG_SENT;
	return n;
}

/**
 * mroce_smsg_rnr() - the peer NAKed the message RNR
 * @m: the message, SENT
 * @now_us: current time
 * @wait_us: the peer's RNR timer
 *
 * Ids RNR-RESEND and RNR-RETRY.
 *
 * Return: false if its RNR resends are spent: it is DONE and its request
 * fails.
 */
bool mroce_smsg_rnr(struct mroce_smsg *m, u64 now_us, u64 wait_us)
{
	if (!m->rnr_left) {
		m->state = MROCE_SMSG_DONE;
		return false;
	}
	if (m->rnr_left != 7)
		m->rnr_left--;
	m->state = MROCE_SMSG_RNR_WAIT;
	m->resume_us = now_us + wait_us;
	return true;
}

/**
 * mroce_smsg_placed() - response bytes of a READ were placed
 * @m: the READ's message
 * @bytes: how many
 *
 * Return: true if that completed it (it is DONE).
 */
bool mroce_smsg_placed(struct mroce_smsg *m, u32 bytes)
{
	m->placed += bytes;
	if (m->placed != m->len)
		return false;
	m->state = MROCE_SMSG_DONE;
	return true;
}

/**
 * mroce_msg_progress() - take a stream record's msn_done
 * @remote_done: the peer's msn_done as the requester knows it
 * @next_msn: the number the requester's next message will take
 * @msn_done: the record's
 *
 * Records arrive out of order, and a forged or stale one may name a
 * message never sent: only a move forward, to at most @next_msn, counts.
 *
 * Return: true if @remote_done moved to @msn_done.
 */
bool mroce_msg_progress(u32 *remote_done, u32 next_msn, u32 msn_done)
{
	if (!mroce_seq_before(*remote_done, msn_done) ||
	    mroce_seq_before(next_msn, msn_done))
		return false;
	*remote_done = msn_done;
	return true;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mroce's constants and limits, in one place: the protocol's (the values
 * Documentation/wire-protocol.rst gives), the transport's, and what the
 * device reports to the verbs layer.  Pure: the protocol core includes it
 * in userspace too.
 */
#ifndef MROCE_PARAMS_H
#define MROCE_PARAMS_H

#include <linux/bits.h>

/* The wire ("Common header", "ACK") */
#define MROCE_WIRE_VERSION	2
#define MROCE_MAX_PATHS		64	/* path ids 0-63 */
#define MROCE_SACK_BITS		256	/* an ACK's bitmap */
#define MROCE_ACK_MAX_STREAMS	64	/* stream records in one ACK */
#define MROCE_QPN_MASK		0x00ffffff
#define MROCE_PROBE_NO_QPN	0xffffffff	/* a PROBE that asks for no stream */
/* Largest payload of one DATA packet, whatever the netdev MTU. */
#define MROCE_MAX_PAYLOAD	4096

/* Paths ("Paths") */
#define MROCE_WINDOW		MROCE_SACK_BITS	/* packets in flight per path */
#define MROCE_RTO_MAX_US	1000000U
#define MROCE_RTO_INIT_US	100000U	/* before any path has an RTT sample */
#define MROCE_BLIND_EXPIRIES	5	/* expiries in a row that find a silent route dead */
#define MROCE_EXPIRIES_MAX	255	/* a packet's expiries before its stream fails */
/* Acknowledged packets past a hole before it counts as a loss. */
#define MROCE_REORDER_PKTS	3U
/* Tail probes a flight may send with other paths' evidence (id PATH-TLP) */
#define MROCE_TLP_MAX		4U
/* ... of which those sent without it; past them, MAX - QUEUED blind ones */
#define MROCE_TLP_QUEUED	2U
#define MROCE_HOME_PROBE_US	100000	/* route probe interval of a moved path */
#define MROCE_HOME_KEEP_US	60000000ULL	/* ... for this long */
#define MROCE_PORT_CANDIDATES	8	/* random ports tried per choice */

/* Congestion control ("Congestion control") */
#define MROCE_CWND_MAX		MROCE_SACK_BITS	/* the path's whole window */
#define MROCE_CWND_INIT		16U	/* a new connection's, over its paths (id CC-IW) */
/* The base RTT is the smallest sample of this long a window. */
#define MROCE_MIN_RTT_WIN_US	10000000U
/* Congestive loss (id CC-LOSS): epochs of a connection's packets ... */
#define MROCE_LOSS_EPOCH_PKTS	128U
/* ... and its loss floor: in 1/2^20, its start and top, its gain 1/2^3 */
#define MROCE_LOSS_FLOOR_INIT	(BIT(20) / 8)
#define MROCE_LOSS_FLOOR_MAX	(BIT(20) / 4)
#define MROCE_LOSS_FLOOR_SHIFT	3U
/* ... and its slack: congestive past 2 x (floor x packets + this) losses */
#define MROCE_LOSS_SLACK_PKTS	3U
/* Epochs a connection's paths grow as one after congestive loss */
#define MROCE_LOSS_HOLD_EPOCHS	16U

/* The receiver's share ("Receiver's share") */
#define MROCE_SHARE_ONE		0xffffU	/* all of the capacity: no limit */
#define MROCE_CAPACITY_MAX	0xffffffU	/* Mbit/s: the ACK's 24 bits */
#define MROCE_SHARE_HOLD_US	1000U	/* default share_hold_us */
/* A waiting packet's credit is not bounded for this long (id SHARE-PACE) */
#define MROCE_PACE_LATE_MAX_US	10000U

/* Connections and streams ("HELLO", "PROBE") */
#define MROCE_HELLO_US		20000	/* longest HELLO resend interval */
#define MROCE_HELLO_COPIES	3	/* HELLOs at once (HELLO-COPIES) */
#define MROCE_STREAM_WINDOW	256	/* messages in flight per stream */
#define MROCE_PROBE_MIN_US	10000	/* shortest interval of a stream's probes */

/* The transport's work */
#define MROCE_MAX_CONNS		4096	/* per device */
#define MROCE_TX_BUDGET		64	/* packets per pass of the send work */
#define MROCE_TX_NOMEM_US	1000	/* retry of a pass an allocation failed */
#define MROCE_UD_TX_BUDGET	64	/* datagrams per pass of a UD QP's work */

/* The device, as ib_device_attr and ib_port_attr report it */
#define MROCE_PORT		1
#define MROCE_GID_TBL_LEN	128
#define MROCE_VENDOR_ID		0xffffff	/* no IEEE OUI: software device */
#define MROCE_MAX_PD		0x10000
#define MROCE_MAX_QP		4096
#define MROCE_MAX_QP_WR		4096
#define MROCE_MAX_SGE		8
#define MROCE_MAX_INLINE	256
#define MROCE_MAX_CQ		4096
#define MROCE_MAX_CQE		(64 * 1024 - 1)
#define MROCE_MAX_MR		(256 * 1024)
#define MROCE_MAX_MR_SIZE	BIT_ULL(40)
#define MROCE_MAX_RD_ATOMIC	128
#define MROCE_MAX_AH		(64 * 1024)
#define MROCE_MAX_SRQ		4096
#define MROCE_MAX_SRQ_WR	4096
#define MROCE_MAX_FR_PAGES	(512 * 1024)
#define MROCE_MAX_MW		(64 * 1024)

#endif /* MROCE_PARAMS_H */

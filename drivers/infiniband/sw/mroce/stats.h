/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device counters, shown by "rdma statistic show link DEV/1".
 */
#ifndef MROCE_STATS_H
#define MROCE_STATS_H

#include <linux/atomic.h>

#include "wire.h"

enum mroce_counter {
	MROCE_CNT_TX_PKTS,
	MROCE_CNT_RX_PKTS,
	MROCE_CNT_RETRANSMITS,
	MROCE_CNT_LOST,
	MROCE_CNT_TIMEOUTS,
	MROCE_CNT_REROLLS,
	MROCE_CNT_DUPLICATES,
	MROCE_CNT_ECN_MARKED,
	MROCE_CNT_ECN_ECHOED,
	MROCE_CNT_RNR_NAKS_SENT,
	MROCE_CNT_RNR_NAKS_RCVD,
	MROCE_CNT_STALE_EPOCH,
	MROCE_CNT_MALFORMED,
	MROCE_CNT_NO_CONN,
	MROCE_CNT_OUTSIDE_WINDOW,
	MROCE_CNT_PROBES,
	MROCE_CNT_DGRAM_TX,
	MROCE_CNT_DGRAM_RX,
	MROCE_CNT_DGRAM_DROPS,
	MROCE_CNT_SPURIOUS,
	MROCE_CNT_DETOURS,
	MROCE_CNT_ROUTE_PROBES,
	MROCE_CNT_ROUTE_RETURNS,
	MROCE_CNT_SQ_DONE_BYTES,
	MROCE_CNT_DEAD_AT_FIRST,
	MROCE_CNT_DELAY_MARKS,
	MROCE_CNT_SILENT_TIMEOUTS,
	MROCE_CNT_PEER_RESTARTS,
	MROCE_CNT_REAPED,
	MROCE_CNT_TAIL_PROBES,
	MROCE_CNT_SHARE_WAITS,
	MROCE_CNT_LOSS_CUTS,
	MROCE_CNT_RETRIES_EXCEEDED,
	MROCE_CNT_EXPIRIES_EXCEEDED,
	MROCE_CNT_STREAM_DROPS,
	MROCE_CNT_TX_NOMEM,
	MROCE_CNT_TX_GSO,
	MROCE_CNT_CONNECTIONS,	/* a gauge, read from the device */
	MROCE_CNT_SHARE_SENDERS,	/* a gauge: active peers sending to it */
	MROCE_CNT_SHARE_LEVEL,	/* a gauge: the share its ACKs give */
	MROCE_NUM_COUNTERS
};

/* Counters kept per path id, summed over the device's connections. */
enum mroce_path_counter {
	MROCE_PCNT_TX_PKTS,
	MROCE_PCNT_RETRANSMITS,
	MROCE_PCNT_SACK_GAPS,
	MROCE_PCNT_TIMEOUTS,
	MROCE_PCNT_REROLLS,
	MROCE_PCNT_ECN_CUTS,
	MROCE_NUM_PATH_COUNTERS
};

struct mroce_dev;
struct ib_device;
struct rdma_hw_stats;

void mroce_count(struct mroce_dev *mdev, enum mroce_counter c, u64 n);
void mroce_count_path(struct mroce_dev *mdev, unsigned int path,
		      enum mroce_path_counter c, u64 n);
int mroce_stats_init(unsigned int npaths);
void mroce_stats_exit(void);
struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* MROCE_STATS_H */

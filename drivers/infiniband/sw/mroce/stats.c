// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device counters.  The benchmarks read them to tell what the transport
 * did: e.g. retransmits per packet lost on the wire is 1.0 when exactly
 * the lost packets were sent again.
 */
#include <rdma/ib_verbs.h>

#include "mroce.h"

static const struct rdma_stat_desc mroce_counter_descs[] = {
	[MROCE_CNT_TX_PKTS] = { .name = "tx_pkts" },
	[MROCE_CNT_RX_PKTS] = { .name = "rx_pkts" },
	[MROCE_CNT_RETRANSMITS] = { .name = "retransmits" },
	[MROCE_CNT_LOST] = { .name = "sack_gaps" },
	[MROCE_CNT_TIMEOUTS] = { .name = "timeouts" },
	[MROCE_CNT_REROLLS] = { .name = "entropy_rerolls" },
	[MROCE_CNT_DUPLICATES] = { .name = "duplicate_drops" },
	[MROCE_CNT_ECN_MARKED] = { .name = "ecn_marked_rcvd" },
	[MROCE_CNT_ECN_ECHOED] = { .name = "ecn_cwnd_cuts" },
	[MROCE_CNT_RNR_NAKS_SENT] = { .name = "rnr_naks_sent" },
	[MROCE_CNT_RNR_NAKS_RCVD] = { .name = "rnr_naks_rcvd" },
	[MROCE_CNT_STALE_EPOCH] = { .name = "stale_epoch_drops" },
	[MROCE_CNT_MALFORMED] = { .name = "malformed_drops" },
	[MROCE_CNT_NO_CONN] = { .name = "no_conn_drops" },
	[MROCE_CNT_OUTSIDE_WINDOW] = { .name = "outside_window_drops" },
	[MROCE_CNT_PROBES] = { .name = "probes" },
	[MROCE_CNT_DGRAM_TX] = { .name = "datagrams_sent" },
	[MROCE_CNT_DGRAM_RX] = { .name = "datagrams_rcvd" },
	[MROCE_CNT_DGRAM_DROPS] = { .name = "datagram_drops" },
	[MROCE_CNT_SPURIOUS] = { .name = "spurious_timeouts" },
};

static_assert(ARRAY_SIZE(mroce_counter_descs) == MROCE_NUM_COUNTERS);

void mroce_count(struct mroce_dev *mdev, enum mroce_counter c, u64 n)
{
	atomic64_add(n, &mdev->counters[c]);
}

struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(mroce_counter_descs, MROCE_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct mroce_dev *mdev = to_mdev(ibdev);
	int i;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&mdev->counters[i]);
	return MROCE_NUM_COUNTERS;
}

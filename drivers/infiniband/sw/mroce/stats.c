// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device counters.  The benchmarks read them to tell what the transport
 * did: e.g. retransmits per packet lost on the wire is 1.0 when exactly
 * the lost packets were sent again.  After the device-wide ones come the
 * same few per path id (path0_tx_pkts, ...), summed over connections, so
 * a path that loses or stalls stands out.
 */
#include <linux/slab.h>
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
	[MROCE_CNT_DETOURS] = { .name = "detoured_resends" },
	[MROCE_CNT_ROUTE_PROBES] = { .name = "route_probes" },
	[MROCE_CNT_ROUTE_RETURNS] = { .name = "route_returns" },
	[MROCE_CNT_SQ_DONE_BYTES] = { .name = "sq_done_bytes" },
	[MROCE_CNT_DEAD_AT_FIRST] = { .name = "dead_routes_at_first_timeout" },
	[MROCE_CNT_DELAY_MARKS] = { .name = "delay_marked" },
	[MROCE_CNT_SILENT_TIMEOUTS] = { .name = "silent_timeouts" },
	[MROCE_CNT_PEER_RESTARTS] = { .name = "peer_restarts" },
	[MROCE_CNT_REAPED] = { .name = "connections_reaped" },
	[MROCE_CNT_TAIL_PROBES] = { .name = "tail_probes" },
	[MROCE_CNT_SHARE_WAITS] = { .name = "share_waits" },
	[MROCE_CNT_LOSS_CUTS] = { .name = "loss_cuts" },
	[MROCE_CNT_RETRIES_EXCEEDED] = { .name = "retries_exceeded" },
	[MROCE_CNT_EXPIRIES_EXCEEDED] = { .name = "expiries_exceeded" },
	[MROCE_CNT_STREAM_DROPS] = { .name = "stream_drops" },
	[MROCE_CNT_TX_NOMEM] = { .name = "tx_nomem" },
	[MROCE_CNT_TX_GSO] = { .name = "tx_gso" },
	[MROCE_CNT_CONNECTIONS] = { .name = "connections" },
	[MROCE_CNT_SHARE_SENDERS] = { .name = "share_senders" },
	[MROCE_CNT_SHARE_LEVEL] = { .name = "share_level" },
};

static_assert(ARRAY_SIZE(mroce_counter_descs) == MROCE_NUM_COUNTERS);

static const char *const mroce_path_counter_names[MROCE_NUM_PATH_COUNTERS] = {
	[MROCE_PCNT_TX_PKTS] = "tx_pkts",
	[MROCE_PCNT_RETRANSMITS] = "retransmits",
	[MROCE_PCNT_SACK_GAPS] = "sack_gaps",
	[MROCE_PCNT_TIMEOUTS] = "timeouts",
	[MROCE_PCNT_REROLLS] = "entropy_rerolls",
	[MROCE_PCNT_ECN_CUTS] = "ecn_cwnd_cuts",
};

/* Device counters, then MROCE_NUM_PATH_COUNTERS per path: built at load. */
static struct rdma_stat_desc *mroce_stat_descs;
static unsigned int mroce_stat_npaths;

static unsigned int mroce_num_stats(void)
{
	return MROCE_NUM_COUNTERS + mroce_stat_npaths * MROCE_NUM_PATH_COUNTERS;
}

/**
 * mroce_stats_init() - name the counters of @npaths paths
 * @npaths: paths every connection has
 *
 * Return: 0 or -ENOMEM.
 */
int mroce_stats_init(unsigned int npaths)
{
	unsigned int i, n = MROCE_NUM_COUNTERS + npaths * MROCE_NUM_PATH_COUNTERS;

	mroce_stat_descs = kcalloc(n, sizeof(*mroce_stat_descs), GFP_KERNEL);
	if (!mroce_stat_descs)
		return -ENOMEM;
	mroce_stat_npaths = npaths;
	memcpy(mroce_stat_descs, mroce_counter_descs, sizeof(mroce_counter_descs));
	for (i = MROCE_NUM_COUNTERS; i < n; i++) {
		unsigned int k = i - MROCE_NUM_COUNTERS;

		mroce_stat_descs[i].name =
			kasprintf(GFP_KERNEL, "path%u_%s", k / MROCE_NUM_PATH_COUNTERS,
				  mroce_path_counter_names[k % MROCE_NUM_PATH_COUNTERS]);
		if (!mroce_stat_descs[i].name) {
			mroce_stats_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void mroce_stats_exit(void)
{
	unsigned int i;

	for (i = MROCE_NUM_COUNTERS; mroce_stat_descs && i < mroce_num_stats(); i++)
		kfree(mroce_stat_descs[i].name);
	kfree(mroce_stat_descs);
	mroce_stat_descs = NULL;
}

void mroce_count(struct mroce_dev *mdev, enum mroce_counter c, u64 n)
{
	atomic64_add(n, &mdev->counters[c]);
}

void mroce_count_path(struct mroce_dev *mdev, unsigned int path,
		      enum mroce_path_counter c, u64 n)
{
	if (path < MROCE_MAX_PATHS)
		atomic64_add(n, &mdev->path_counters[path][c]);
}

struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(mroce_stat_descs, mroce_num_stats(),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct mroce_dev *mdev = to_mdev(ibdev);
	unsigned int i, k;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&mdev->counters[i]);
	stats->value[MROCE_CNT_CONNECTIONS] = READ_ONCE(mdev->nconns);
	stats->value[MROCE_CNT_SHARE_SENDERS] = READ_ONCE(mdev->share.nactive);
	stats->value[MROCE_CNT_SHARE_LEVEL] = READ_ONCE(mdev->share.level);
	for (k = 0; k < mroce_stat_npaths * MROCE_NUM_PATH_COUNTERS; k++)
		stats->value[i++] = atomic64_read(&mdev->path_counters
				[k / MROCE_NUM_PATH_COUNTERS][k % MROCE_NUM_PATH_COUNTERS]);
	return i;
}

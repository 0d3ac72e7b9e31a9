// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receiver's share in the kernel: each device divides its inbound
 * capacity among the peers sending to it (share.c decides how), its ACKs
 * carry the result, and a work measures the peers every period.
 *
 * Locking: a peer's &mroce_conn.rxshare is written under its connection's
 * lock; the device's &mroce_dev.share under &mroce_dev.share_lock, which
 * nests inside a connection's lock.  ACKs read the level without the
 * lock: it is one u16, and a share one period old is still a share.
 */
#include <linux/moduleparam.h>

#include "mroce.h"
#include "transport.h"

static unsigned int mroce_rx_capacity_mbps;
module_param_named(rx_capacity_mbps, mroce_rx_capacity_mbps, uint, 0644);
MODULE_PARM_DESC(rx_capacity_mbps,
		 "Inbound capacity a new device shares among the peers sending to it, Mbit/s; 0: none is given (default 0)");

static unsigned int mroce_share_hold_us = MROCE_SHARE_HOLD_US;
module_param_named(share_hold_us, mroce_share_hold_us, uint, 0644);
MODULE_PARM_DESC(share_hold_us,
		 "Microseconds a sending peer keeps its share after its latest packet (default 1000)");

static void mroce_share_scan(struct work_struct *work)
{
	struct mroce_dev *mdev = container_of(to_delayed_work(work),
					      struct mroce_dev, share_work);
	u64 now = mroce_now_us();
	struct mroce_conn *conn;
	unsigned int bkt;
	u32 period = 0;

	rcu_read_lock();
	hash_for_each_rcu(mdev->conns, bkt, conn, node) {
		spin_lock_bh(&conn->lock);
		spin_lock(&mdev->share_lock);
		/* Only an active peer's windows matter: read no others. */
		mroce_share_scan_peer(&mdev->share, &conn->rxshare, now,
				      conn->rxshare.active &&
				      mroce_rxwin_hole(conn->rx, MROCE_MAX_PATHS));
		spin_unlock(&mdev->share_lock);
		spin_unlock_bh(&conn->lock);
	}
	rcu_read_unlock();

	spin_lock_bh(&mdev->share_lock);
	mroce_share_scan_end(&mdev->share, now);
	if (mdev->share.nactive && mdev->share.capacity_mbps)
		period = mroce_share_period_us(&mdev->share);
	spin_unlock_bh(&mdev->share_lock);
	if (period)
		queue_delayed_work(mroce_wq, &mdev->share_work,
				   usecs_to_jiffies(period) ?: 1);
}

/**
 * mroce_share_dev_init() - a new device's share of its inbound capacity
 * @mdev: the device
 *
 * The capacity is the module parameter's at the time: a virtual NIC's
 * link speed says nothing of what the host can take in, so it is not
 * guessed from the netdev.
 */
void mroce_share_dev_init(struct mroce_dev *mdev)
{
	mroce_share_init(&mdev->share, READ_ONCE(mroce_rx_capacity_mbps),
			 READ_ONCE(mroce_share_hold_us));
	spin_lock_init(&mdev->share_lock);
	INIT_DELAYED_WORK(&mdev->share_work, mroce_share_scan);
}

/**
 * mroce_share_dev_cleanup() - stop measuring the peers of a device
 * @mdev: the device, being torn down
 */
void mroce_share_dev_cleanup(struct mroce_dev *mdev)
{
	/* No activation queues the work again once the capacity is 0. */
	spin_lock_bh(&mdev->share_lock);
	WRITE_ONCE(mdev->share.capacity_mbps, 0);
	spin_unlock_bh(&mdev->share_lock);
	cancel_delayed_work_sync(&mdev->share_work);
}

/**
 * mroce_share_data() - the peer of @conn sent a new DATA packet
 * @conn: the connection, locked
 * @bytes: the packet's payload
 * @ce: the packet arrived CE-marked
 * @now: current time
 */
void mroce_share_data(struct mroce_conn *conn, u32 bytes, bool ce, u64 now)
{
	struct mroce_dev *mdev = conn->mdev;
	u32 period = 0;

	lockdep_assert_held(&conn->lock);
	if (!READ_ONCE(mdev->share.capacity_mbps) ||
	    !mroce_share_rx(&conn->rxshare, now, bytes, ce))
		return;
	spin_lock(&mdev->share_lock);
	if (mdev->share.capacity_mbps) {
		mroce_share_activate(&mdev->share, &conn->rxshare, now);
		if (mdev->share.nactive == 1)
			period = mroce_share_period_us(&mdev->share);
	}
	spin_unlock(&mdev->share_lock);
	/* The first active peer starts the measurements; the work goes on. */
	if (period)
		queue_delayed_work(mroce_wq, &mdev->share_work,
				   usecs_to_jiffies(period) ?: 1);
}

/**
 * mroce_share_ack() - fill in the share an ACK to @conn's peer carries
 * @conn: the connection
 * @pkt: the ACK
 */
void mroce_share_ack(struct mroce_conn *conn, struct mroce_pkt *pkt)
{
	struct mroce_dev *mdev = conn->mdev;
	u32 capacity = READ_ONCE(mdev->share.capacity_mbps);

	if (!capacity)
		return;
	pkt->share = READ_ONCE(mdev->share.level);
	pkt->capacity = capacity;
}

/**
 * mroce_share_conn_gone() - @conn's peer no longer counts
 * @conn: the connection, out of the device's table and past RCU readers
 */
void mroce_share_conn_gone(struct mroce_conn *conn)
{
	struct mroce_dev *mdev = conn->mdev;

	spin_lock_bh(&mdev->share_lock);
	mroce_share_forget(&mdev->share, &conn->rxshare);
	spin_unlock_bh(&mdev->share_lock);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Connections: one per (local address, peer address) of a device, shared
 * by every queue pair between the two, created when the first of them
 * reaches RTR (never for a peer's HELLO: Documentation/wire-protocol.rst,
 * id HELLO-UNSOLICITED).  A connection owns the paths,
 * one hrtimer for all their deadlines, the send work and the ACK tasklet.
 */
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "trace.h"
#include "transport.h"

/* Fixed at load: the device counters have one set per path. */
static unsigned int mroce_paths = 8;
module_param_named(paths, mroce_paths, uint, 0444);
MODULE_PARM_DESC(paths, "Paths per connection, 1-64 (default 8)");

/* How many paths every connection has. */
unsigned int mroce_conn_npaths(void)
{
	return clamp(mroce_paths, 1U, (unsigned int)MROCE_MAX_PATHS);
}

/*
 * Bounds a device's memory for peers: connections in use are freed only
 * with the device, idle ones after conn_linger_s.
 */
static unsigned int mroce_max_conns = MROCE_MAX_CONNS;
module_param_named(max_conns, mroce_max_conns, uint, 0644);
MODULE_PARM_DESC(max_conns, "Connections (peers) per device, 1-65536 (default 4096)");

/* The per-device connection limit in force. */
unsigned int mroce_conn_limit(void)
{
	return clamp(READ_ONCE(mroce_max_conns), 1U, 65536U);
}

/* Documentation/wire-protocol.rst, "Connections and epochs": reaping. */
static unsigned int mroce_conn_linger_s = 60;
module_param_named(conn_linger_s, mroce_conn_linger_s, uint, 0644);
MODULE_PARM_DESC(conn_linger_s,
		 "Seconds a connection with no queue pair lingers before it is freed; 0: never (default 60)");

static unsigned int mroce_min_rto_us = 2000;
module_param_named(min_rto_us, mroce_min_rto_us, uint, 0644);
MODULE_PARM_DESC(min_rto_us, "Minimum retransmission timeout, microseconds (default 2000)");

static unsigned int mroce_init_rto_us = MROCE_RTO_INIT_US;
module_param_named(init_rto_us, mroce_init_rto_us, uint, 0644);
MODULE_PARM_DESC(init_rto_us,
		 "Retransmission timeout of a path before its first RTT sample, microseconds (default 100000)");

static unsigned int mroce_delay_target_us = 20000;
module_param_named(delay_target_us, mroce_delay_target_us, uint, 0644);
MODULE_PARM_DESC(delay_target_us,
		 "Queueing delay above a path's base RTT taken as congestion, microseconds; 0: off (default 20000)");

static bool mroce_congestive_loss = true;
module_param_named(congestive_loss, mroce_congestive_loss, bool, 0644);
MODULE_PARM_DESC(congestive_loss,
		 "Loss well above a connection's usual rate cuts its windows (default Y)");

/* Module parameter congestive_loss, read as each ACK is applied. */
bool mroce_conn_loss_cc(void)
{
	return READ_ONCE(mroce_congestive_loss);
}

u64 mroce_now_us(void)
{
	return div_u64(ktime_get_ns(), NSEC_PER_USEC);
}

static u32 mroce_conn_hash(const struct in6_addr *laddr,
			   const struct in6_addr *raddr)
{
	return jhash2((const u32 *)raddr, 4, jhash2((const u32 *)laddr, 4, 0));
}

/**
 * mroce_conn_lookup_rcu() - find a connection; caller holds rcu_read_lock()
 * @mdev: the device
 * @laddr: local address
 * @raddr: peer address
 *
 * Return: the connection (not referenced), or NULL.
 */
struct mroce_conn *mroce_conn_lookup_rcu(struct mroce_dev *mdev,
					 const struct in6_addr *laddr,
					 const struct in6_addr *raddr)
{
	struct mroce_conn *conn;

	hash_for_each_possible_rcu(mdev->conns, conn, node,
				   mroce_conn_hash(laddr, raddr))
		if (ipv6_addr_equal(&conn->raddr, raddr) &&
		    ipv6_addr_equal(&conn->laddr, laddr))
			return conn;
	return NULL;
}

/* The host's routing, for path choice (multipath.c). */
static u64 conn_route_plane(struct mroce_paths *ps, u16 sport)
{
	return mroce_route_plane(container_of(ps, struct mroce_conn, paths),
				 sport);
}

static u16 conn_random_sport(struct mroce_paths *ps)
{
	/* The dynamic port range, RFC 6335. */
	return 49152 + get_random_u32_below(16384);
}

static void conn_path_moved(struct mroce_paths *ps, unsigned int i)
{
	dst_cache_reset(&container_of(ps, struct mroce_conn, paths)->dst[i].dst);
}

static const struct mroce_paths_ops mroce_conn_paths_ops = {
	.route_plane = conn_route_plane,
	.random_sport = conn_random_sport,
	.moved = conn_path_moved,
};

/**
 * mroce_conn_spread() - spread idle paths over the local next hops
 * @conn: the connection, locked
 *
 * Called when a queue pair starts using the connection: the routing to
 * the peer may have changed since the ports were chosen
 * (mroce_paths_spread()).
 */
void mroce_conn_spread(struct mroce_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	mroce_paths_spread(&conn->paths, mroce_now_us());
}

/**
 * mroce_path_reroll() - give a path whose route was found dead a new port
 * @conn: the connection, locked
 * @i: the path
 * @now: current time
 *
 * See mroce_paths_reroll(); counted and traced here.
 */
void mroce_path_reroll(struct mroce_conn *conn, unsigned int i, u64 now)
{
	struct mroce_path *path = &conn->path[i];
	u64 old_plane = path->plane;
	u16 old = path->sport;

	lockdep_assert_held(&conn->lock);
	mroce_paths_reroll(&conn->paths, i, now);
	mroce_count(conn->mdev, MROCE_CNT_REROLLS, 1);
	mroce_count_path(conn->mdev, i, MROCE_PCNT_REROLLS, 1);
	trace_mroce_reroll(conn, i, old, old_plane, path->sport, path->plane);
}

/**
 * mroce_path_return() - move a path back to its home port
 * @conn: the connection, locked
 * @i: the path; its home port answered a route probe
 * @now: current time
 *
 * See mroce_paths_return(); counted and traced here.
 */
void mroce_path_return(struct mroce_conn *conn, unsigned int i, u64 now)
{
	struct mroce_path *path = &conn->path[i];
	u64 old_plane = path->plane;
	u16 old = path->sport;

	lockdep_assert_held(&conn->lock);
	if (!mroce_paths_return(&conn->paths, i, now))
		return;
	mroce_count(conn->mdev, MROCE_CNT_ROUTE_RETURNS, 1);
	trace_mroce_route_return(conn, i, old, old_plane, path->sport,
				 path->plane);
}

static enum hrtimer_restart mroce_conn_timer(struct hrtimer *timer)
{
	struct mroce_conn *conn = container_of(timer, struct mroce_conn, timer);

	queue_work(mroce_wq, &conn->tx_work);
	return HRTIMER_NORESTART;
}

/**
 * mroce_conn_kick() - run the send work soon
 * @conn: the connection
 */
void mroce_conn_kick(struct mroce_conn *conn)
{
	queue_work(mroce_wq, &conn->tx_work);
}

static void mroce_conn_free(struct mroce_conn *conn);

static u32 new_epoch(void)
{
	u32 epoch;

	do {
		epoch = get_random_u32();
	} while (!epoch);
	return epoch;
}

/**
 * mroce_conn_restart_paths() - every path's sequence space starts over
 * @conn: the connection, locked
 * @keep: says which packets in flight are sent again (their struct
 *	mroce_seg); the others are dropped
 *
 * For a new pair of epochs (Documentation/wire-protocol.rst, "Connections
 * and epochs"): the receive windows are cleared and no ACK is owed.
 */
void mroce_conn_restart_paths(struct mroce_conn *conn,
			      bool (*keep)(void *ctx, void *arg))
{
	unsigned int i;

	lockdep_assert_held(&conn->lock);
	memset(conn->rx, 0, sizeof(conn->rx));
	bitmap_zero(conn->ack_due, MROCE_MAX_PATHS);
	for (i = 0; i < conn->paths.n; i++) {
		struct mroce_path *path = &conn->path[i];

		path->nresend = mroce_txpath_restart(&path->tx, keep,
						     mroce_stream_seg_acked,
						     NULL, path->resend);
	}
}

/**
 * mroce_conn_idle() - the last stream left the connection
 * @conn: the connection, locked
 *
 * The reaper frees it once it has lingered this long with no stream.
 */
void mroce_conn_idle(struct mroce_conn *conn)
{
	unsigned int linger = READ_ONCE(mroce_conn_linger_s);
	struct delayed_work *reap = &conn->mdev->reap_work;

	lockdep_assert_held(&conn->lock);
	conn->idle_us = mroce_now_us();
	if (!linger)
		return;
	/*
	 * Bring a pending reap forward, never put it off: connections going
	 * idle one after another must not starve the reaper.  (A racy look
	 * at the timer: at worst the reaper runs early and sets it again.)
	 */
	if (!delayed_work_pending(reap) ||
	    time_after(READ_ONCE(reap->timer.expires), jiffies + linger * HZ))
		mod_delayed_work(mroce_wq, reap, linger * HZ);
}

static bool keep_none(void *ctx, void *arg)
{
	return false;
}

/*
 * Forget a connection that lingered idle: what it still had in flight
 * belonged to queue pairs that are gone.  It becomes a new incarnation (a
 * new epoch, the peer's unknown), so that if a queue pair takes it up again
 * before it is freed, the peer learns the restart from the next HELLO.
 */
static void mroce_conn_forget(struct mroce_conn *conn)
{
	mroce_conn_restart_paths(conn, keep_none);
	conn->epoch = new_epoch();
	conn->peer_epoch = 0;
	memset(&conn->hello, 0, sizeof(conn->hello));
}

static void mroce_conn_reap(struct work_struct *work)
{
	struct mroce_dev *mdev = container_of(to_delayed_work(work),
					      struct mroce_dev, reap_work);
	u64 linger = (u64)READ_ONCE(mroce_conn_linger_s) * USEC_PER_SEC;
	u64 now = mroce_now_us(), next = 0;
	struct mroce_conn *conn;
	struct hlist_node *tmp;
	unsigned int bkt;

	if (!linger)
		return;
	spin_lock_bh(&mdev->conn_lock);
	hash_for_each_safe(mdev->conns, bkt, tmp, conn, node) {
		bool gone = false;

		spin_lock(&conn->lock);
		if (list_empty(&conn->streams) && conn->idle_us) {
			if (now - conn->idle_us >= linger) {
				mroce_conn_forget(conn);
				/*
				 * Freed if no one else holds it: a stream
				 * about to attach took its reference under
				 * conn_lock, which we hold.
				 */
				gone = kref_read(&conn->ref) == 1;
				conn->idle_us = now;
			} else if (!next || conn->idle_us + linger < next) {
				next = conn->idle_us + linger;
			}
		}
		spin_unlock(&conn->lock);
		if (gone) {
			hash_del_rcu(&conn->node);
			mdev->nconns--;
			mroce_count(mdev, MROCE_CNT_REAPED, 1);
			mroce_conn_put(conn);
		}
	}
	spin_unlock_bh(&mdev->conn_lock);
	if (next)
		mod_delayed_work(mroce_wq, &mdev->reap_work,
				 usecs_to_jiffies(next - now) + 1);
}

static void mroce_conn_free_work(struct work_struct *work)
{
	mroce_conn_free(container_of(to_rcu_work(work), struct mroce_conn,
				     free_work));
}

static struct mroce_conn *mroce_conn_alloc(struct mroce_dev *mdev,
					   const struct in6_addr *laddr,
					   const struct in6_addr *raddr)
{
	unsigned int i, n = mroce_conn_npaths();
	struct mroce_conn *conn;

	conn = kvzalloc(struct_size(conn, path, n), GFP_KERNEL);
	if (!conn)
		return NULL;
	conn->dst = kcalloc(n, sizeof(*conn->dst), GFP_KERNEL);
	if (!conn->dst)
		goto err;
	mroce_paths_init(&conn->paths, conn->path, n, &mroce_conn_paths_ops,
			 READ_ONCE(mdev->link_payload) + MROCE_ENCAP_OVERHEAD,
			 mroce_conn_loss_cc());
	for (i = 0; i < n; i++) {
		if (dst_cache_init(&conn->dst[i].dst, GFP_KERNEL))
			goto err;
		if (dst_cache_init(&conn->dst[i].ack, GFP_KERNEL)) {
			dst_cache_destroy(&conn->dst[i].dst);
			goto err;
		}
		mroce_paths_init_path(&conn->paths, i, mroce_min_rto_us,
				      READ_ONCE(mroce_init_rto_us),
				      mroce_delay_target_us);
	}
	conn->mdev = mdev;
	kref_init(&conn->ref);
	spin_lock_init(&conn->lock);
	conn->laddr = *laddr;
	conn->raddr = *raddr;
	conn->ipv4 = ipv6_addr_v4mapped(raddr);
	for (i = 0; i < n; i++)
		mroce_paths_choose_port(&conn->paths, i, 0);
	conn->epoch = new_epoch();
	INIT_LIST_HEAD(&conn->streams);
	xa_init(&conn->stream_xa);
	INIT_LIST_HEAD(&conn->tx_streams);
	INIT_LIST_HEAD(&conn->ack_streams);
	hrtimer_init(&conn->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	conn->timer.function = mroce_conn_timer;
	INIT_WORK(&conn->tx_work, mroce_tx_work);
	tasklet_setup(&conn->ack_tasklet, mroce_ack_tasklet);
	INIT_RCU_WORK(&conn->free_work, mroce_conn_free_work);
	return conn;

err:
	while (conn->dst && i--) {
		dst_cache_destroy(&conn->dst[i].dst);
		dst_cache_destroy(&conn->dst[i].ack);
	}
	kfree(conn->dst);
	kvfree(conn);
	return NULL;
}

static void mroce_conn_free(struct mroce_conn *conn)
{
	unsigned int i;

	/*
	 * The send work arms the timer and the timer queues the work: stop
	 * the arming first (under the lock the work arms under), then the
	 * timer, then the work it or the ACK tasklet may have queued.  The
	 * receive path that scheduled the tasklet held a reference, so it
	 * is scheduled no more.
	 */
	spin_lock_bh(&conn->lock);
	conn->dying = true;
	spin_unlock_bh(&conn->lock);
	tasklet_kill(&conn->ack_tasklet);
	hrtimer_cancel(&conn->timer);
	cancel_work_sync(&conn->tx_work);
	mroce_share_conn_gone(conn);
	for (i = 0; i < conn->paths.n; i++) {
		dst_cache_destroy(&conn->dst[i].dst);
		dst_cache_destroy(&conn->dst[i].ack);
	}
	kfree(conn->dst);
	WARN_ON(!xa_empty(&conn->stream_xa));
	xa_destroy(&conn->stream_xa);
	kvfree(conn);
}

static void mroce_conn_release(struct kref *ref)
{
	struct mroce_conn *conn = container_of(ref, struct mroce_conn, ref);

	WARN_ON(!list_empty(&conn->streams));
	/* May be the last put of a stream from softirq: free from a work. */
	queue_rcu_work(mroce_wq, &conn->free_work);
}

void mroce_conn_put(struct mroce_conn *conn)
{
	kref_put(&conn->ref, mroce_conn_release);
}

/**
 * mroce_conn_get() - find or create the connection to a peer
 * @mdev: the device
 * @laddr: local address
 * @raddr: peer address
 * @create: create it when missing
 *
 * Return: the connection, referenced; NULL when missing and not created;
 * or an ERR_PTR.
 */
struct mroce_conn *mroce_conn_get(struct mroce_dev *mdev,
				  const struct in6_addr *laddr,
				  const struct in6_addr *raddr, bool create)
{
	struct mroce_conn *conn, *fresh = NULL;

	for (;;) {
		spin_lock_bh(&mdev->conn_lock);
		rcu_read_lock();
		conn = mroce_conn_lookup_rcu(mdev, laddr, raddr);
		rcu_read_unlock();
		if (conn) {
			kref_get(&conn->ref);
		} else if (fresh) {
			conn = fresh;
			fresh = NULL;
			kref_get(&conn->ref);	/* the table's */
			hash_add_rcu(mdev->conns, &conn->node,
				     mroce_conn_hash(laddr, raddr));
			mdev->nconns++;
		}
		spin_unlock_bh(&mdev->conn_lock);
		if (fresh)
			mroce_conn_free(fresh);
		if (conn || !create)
			return conn;
		if (READ_ONCE(mdev->nconns) >= mroce_conn_limit()) {
			ibdev_warn_ratelimited(&mdev->ibdev,
					       "no connection to %pI6c: the device has %u connections, its limit (module parameter max_conns)\n",
					       raddr, mroce_conn_limit());
			return ERR_PTR(-ENOSPC);
		}
		fresh = mroce_conn_alloc(mdev, laddr, raddr);
		if (!fresh)
			return ERR_PTR(-ENOMEM);
	}
}

void mroce_conn_init(struct mroce_dev *mdev)
{
	hash_init(mdev->conns);
	spin_lock_init(&mdev->conn_lock);
	INIT_DELAYED_WORK(&mdev->reap_work, mroce_conn_reap);
	mroce_share_dev_init(mdev);
}

/* Device teardown: every QP is gone, so no stream holds a connection. */
void mroce_conn_cleanup(struct mroce_dev *mdev)
{
	struct hlist_node *tmp;
	struct mroce_conn *conn;
	unsigned int bkt;

	cancel_delayed_work_sync(&mdev->reap_work);
	mroce_share_dev_cleanup(mdev);
	spin_lock_bh(&mdev->conn_lock);
	hash_for_each_safe(mdev->conns, bkt, tmp, conn, node) {
		/*
		 * A packet still in flight holds its stream, and the stream
		 * holds the connection: drop them, or a peer that never
		 * acknowledged them would keep all three alive.
		 */
		spin_lock(&conn->lock);
		mroce_conn_restart_paths(conn, keep_none);
		spin_unlock(&conn->lock);
		hash_del_rcu(&conn->node);
		mroce_conn_put(conn);
	}
	mdev->nconns = 0;
	spin_unlock_bh(&mdev->conn_lock);
	/*
	 * A packet being received may hold a connection it found before
	 * the table let go (mroce_rx()); receiving is an RCU read section,
	 * so after a grace period its put, and the free it queued, are done
	 * too.  The frees are queued after a grace period: let them all run.
	 */
	synchronize_rcu();
	rcu_barrier();
	flush_workqueue(mroce_wq);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mroce: a lossy, multipath soft-RDMA transport.
 *
 * Objects shared between the files of the driver.  Each file owns one
 * layer: main.c (module and rdma link glue), device.c (ib_device and its
 * attributes), netdev.c (following the bound netdev), socket.c (UDP
 * sockets per network namespace), verbs.c (verbs objects), addr.c (pure
 * address helpers).
 */
#ifndef MROCE_H
#define MROCE_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "params.h"
#include "share.h"
#include "stats.h"

struct mroce_engine_ops;

extern unsigned short mroce_udp_port;
extern struct workqueue_struct *mroce_wq;

/**
 * struct mroce_dev - one mroce RDMA device bound to one netdev
 * @ibdev: the RDMA core's device; must stay first for ib_alloc_device()
 * @ndev: the bound netdev.  The RDMA core holds a reference on it through
 *	ib_device_set_netdev() until the device is unregistered.
 * @net: namespace whose UDP socket the device uses; NULL once the netdev
 *	is unregistered (the device is then being torn down).
 * @list: entry in the driver's device list; writers hold mroce_dev_lock,
 *	the receive path reads it under RCU
 * @registered: ib_register_device() succeeded; mroce_dev_lock
 * @listed: on the device list; mroce_dev_lock
 * @port_state: IB_PORT_ACTIVE or IB_PORT_DOWN, following the netdev's
 *	operational state; protected by mroce_dev_lock
 * @active_mtu: path MTU derived from the netdev MTU; mroce_dev_lock
 * @link_payload: largest DATA payload the netdev MTU carries, at least
 *	that of @active_mtu (mroce_payload_from_netdev()); mroce_dev_lock
 * @pd_count: protection domains in use, bounded by MROCE_MAX_PD
 * @cq_count: completion queues in use
 * @qp_count: queue pairs in use
 * @mr_count: memory regions in use
 * @ah_count: address handles in use
 * @srq_count: shared receive queues in use
 * @mw_count: memory windows in use
 * @mrs: memory regions and windows (tagged MROCE_KEY_WINDOW) by key index
 * @qps: queue pairs by number; BH lock (datagram receivers take
 *	references under it)
 * @qp_next: next queue pair number to try
 * @ahs: struct mroce_av of the address handles by number, RCU for readers
 * @ah_next: next address handle number to try
 * @atomic_lock: makes remote atomics atomic against each other
 * @conns: connections by addresses, RCU for readers
 * @conn_lock: protects @conns and @nconns for writers
 * @nconns: connections in @conns
 * @reap_work: frees connections idle for longer than the linger
 * @share: how the device divides its inbound capacity among the peers
 *	sending to it (share.h)
 * @share_lock: protects @share
 * @share_work: measures the sending peers every period (fairshare.c)
 * @counters: enum mroce_counter
 * @path_counters: enum mroce_path_counter per path id
 * @engine: the transport engine the queue pairs run on (engine.h)
 */
struct mroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	struct net *net;
	struct list_head list;
	bool registered;
	bool listed;
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;
	u32 link_payload;
	atomic_t pd_count;
	atomic_t cq_count;
	atomic_t qp_count;
	atomic_t mr_count;
	atomic_t ah_count;
	atomic_t srq_count;
	atomic_t mw_count;
	struct xarray mrs;
	struct xarray qps;
	u32 qp_next;
	struct xarray ahs;
	u32 ah_next;
	spinlock_t atomic_lock;	/* remote atomics of the device */
	DECLARE_HASHTABLE(conns, 8);
	spinlock_t conn_lock;	/* writers of conns */
	unsigned int nconns;
	struct delayed_work reap_work;
	struct mroce_share share;
	spinlock_t share_lock;	/* @share; nests inside a connection's lock */
	struct delayed_work share_work;
	atomic64_t counters[MROCE_NUM_COUNTERS];
	atomic64_t path_counters[MROCE_MAX_PATHS][MROCE_NUM_PATH_COUNTERS];
	const struct mroce_engine_ops *engine;
};

static inline struct mroce_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mroce_dev, ibdev);
}

/* device.c */
extern struct mutex mroce_dev_lock;
extern struct list_head mroce_devs;
int mroce_dev_add(const char *name, struct net_device *ndev);
void mroce_dev_remove_all(void);
struct mroce_dev *mroce_dev_find_by_netdev(const struct net_device *ndev);
void mroce_dev_detach(struct mroce_dev *mdev);

/* netdev.c */
void mroce_port_update(struct mroce_dev *mdev);
int mroce_netdev_init(void);
void mroce_netdev_exit(void);

/* socket.c */
struct sock *mroce_socket_sk(struct mroce_dev *mdev, bool ipv6);
int mroce_socket_get(struct net *net);
void mroce_socket_put(struct net *net);
int mroce_socket_init(void);
void mroce_socket_exit(void);

/* verbs.c */
extern const struct ib_device_ops mroce_verbs_ops;
void mroce_verbs_init(struct mroce_dev *mdev);
void mroce_verbs_cleanup(struct mroce_dev *mdev);

#endif /* MROCE_H */

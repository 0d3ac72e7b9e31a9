// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce module: parameters and the "rdma link" glue.
 *
 *   rdma link add mroce0 type mroce netdev eth0
 *
 * loads this module through its "rdma-link-mroce" alias and binds a new
 * RDMA device to eth0; "rdma link del mroce0" removes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "transport.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* Send work of every connection, and deferred frees. */
struct workqueue_struct *mroce_wq;

/*
 * Why 4796: Documentation/wire-protocol.rst, "Encapsulation".  Read-only
 * once loaded because sockets are bound to it.
 */
unsigned short mroce_udp_port = 4796;
module_param_named(udp_port, mroce_udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of the mroce transport (default 4796)");

static int mroce_newlink(const char *name, struct net_device *ndev)
{
	return mroce_dev_add(name, ndev);
}

static struct rdma_link_ops mroce_link_ops = {
	.type = "mroce",
	.newlink = mroce_newlink,
};

static int __init mroce_init(void)
{
	int err;

	if (!mroce_udp_port) {
		pr_err("udp_port must not be 0\n");
		return -EINVAL;
	}

	err = mroce_stats_init(mroce_conn_npaths());
	if (err)
		return err;
	/*
	 * The send work is what a NIC's engine would be: at normal priority
	 * it only gets the CPU time a polling application leaves it, half
	 * at best, and goodput stops there.
	 */
	mroce_wq = alloc_workqueue("mroce", WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!mroce_wq) {
		err = -ENOMEM;
		goto err_stats;
	}
	err = mroce_stream_init_cache();
	if (err)
		goto err_wq;
	err = mroce_socket_init();
	if (err)
		goto err_cache;
	err = mroce_netdev_init();
	if (err)
		goto err_socket;

	rdma_link_register(&mroce_link_ops);
	return 0;

err_socket:
	mroce_socket_exit();
err_cache:
	mroce_stream_exit_cache();
err_wq:
	destroy_workqueue(mroce_wq);
err_stats:
	mroce_stats_exit();
	return err;
}

static void __exit mroce_exit(void)
{
	/* Waits for any "rdma link add" in flight; none can start after. */
	rdma_link_unregister(&mroce_link_ops);
	mroce_dev_remove_all();
	mroce_netdev_exit();
	mroce_socket_exit();
	destroy_workqueue(mroce_wq);
	rcu_barrier();	/* kfree_rcu() of regions and connections */
	mroce_stream_exit_cache();
	mroce_stats_exit();
}

/* After ib_core and the UDP tunnel code when all are built in. */
late_initcall(mroce_init);
module_exit(mroce_exit);

MODULE_DESCRIPTION("mroce: lossy multipath soft-RDMA transport");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("mroce");

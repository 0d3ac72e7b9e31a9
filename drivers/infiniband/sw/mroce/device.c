// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RDMA device: creating it over a netdev, its attributes, and its
 * teardown.
 *
 * Devices live on mroce_devs from allocation until the RDMA core calls
 * dealloc_driver.  mroce_dev_lock serialises binding, the netdev notifier
 * and teardown, so a netdev is never bound twice and a device never
 * outlives the namespace socket it uses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/mroce-abi.h>

#include "addr.h"
#include "engine.h"
#include "verbs.h"

/* Protects mroce_devs and each device's port state, net and flags. */
DEFINE_MUTEX(mroce_dev_lock);
LIST_HEAD(mroce_devs);

/**
 * mroce_dev_find_by_netdev() - device bound to a netdev
 * @ndev: the netdev
 *
 * Devices whose netdev is already gone are skipped: their @ndev pointer
 * may be reused by a new netdev.  Caller holds mroce_dev_lock.
 *
 * Return: the device, or NULL.
 */
struct mroce_dev *mroce_dev_find_by_netdev(const struct net_device *ndev)
{
	struct mroce_dev *mdev;

	lockdep_assert_held(&mroce_dev_lock);
	list_for_each_entry(mdev, &mroce_devs, list)
		if (mdev->ndev == ndev && mdev->net)
			return mdev;
	return NULL;
}

/**
 * mroce_dev_detach() - cut a device loose from its departing netdev
 * @mdev: the device
 *
 * Called when the netdev is unregistered or leaves its namespace.  The
 * namespace socket is released now, synchronously, because the namespace
 * may be dismantled right after the notifier returns; the RDMA device is
 * unregistered from a work queue.  Caller holds mroce_dev_lock.
 */
void mroce_dev_detach(struct mroce_dev *mdev)
{
	lockdep_assert_held(&mroce_dev_lock);
	if (!mdev->net)
		return;
	mroce_socket_put(mdev->net);
	WRITE_ONCE(mdev->net, NULL);
	if (mdev->registered)
		ib_unregister_device_queued(&mdev->ibdev);
}

static int mroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = MROCE_UVERBS_ABI_VERSION;
	attr->sys_image_guid = ibdev->node_guid;
	attr->vendor_id = MROCE_VENDOR_ID;
	attr->max_mr_size = MROCE_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = MROCE_MAX_QP;
	attr->max_qp_wr = MROCE_MAX_QP_WR;
	attr->max_send_sge = MROCE_MAX_SGE;
	attr->max_recv_sge = MROCE_MAX_SGE;
	attr->max_sge_rd = MROCE_MAX_SGE;
	attr->max_cq = MROCE_MAX_CQ;
	attr->max_cqe = MROCE_MAX_CQE;
	attr->max_mr = MROCE_MAX_MR;
	attr->max_pd = MROCE_MAX_PD;
	attr->max_qp_rd_atom = MROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = MROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = MROCE_MAX_RD_ATOMIC * MROCE_MAX_QP;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = MROCE_MAX_AH;
	attr->max_srq = MROCE_MAX_SRQ;
	attr->max_srq_wr = MROCE_MAX_SRQ_WR;
	attr->max_srq_sge = MROCE_MAX_SGE;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	attr->max_mw = MROCE_MAX_MW;
	attr->max_fast_reg_page_list_len = MROCE_MAX_FR_PAGES;
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_CHANGE_PHY_PORT |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	return 0;
}

static int mroce_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct mroce_dev *mdev = to_mdev(ibdev);
	unsigned int flags;

	/* ib_get_eth_speed() takes the RTNL, so read our state first. */
	mutex_lock(&mroce_dev_lock);
	attr->state = mdev->port_state;
	attr->active_mtu = mdev->active_mtu;
	mutex_unlock(&mroce_dev_lock);

	attr->max_mtu = IB_MTU_4096;
	attr->gid_tbl_len = MROCE_GID_TBL_LEN;
	attr->port_cap_flags = 0;
	attr->max_msg_sz = 1U << 31;
	attr->pkey_tbl_len = 1;
	attr->ip_gids = true;

	/*
	 * While its netdev is being unregistered the port is still queried
	 * (the core refreshes its cache on the port-down event) but has no
	 * speed; report the slowest rather than fail the query.
	 */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}

	flags = dev_get_flags(mdev->ndev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (flags & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	return 0;
}

static int mroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			    u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int mroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	/*
	 * IP-addressed GIDs over UDP, like RoCEv2, with a GSI QP, so the
	 * RDMA core's MAD layer and connection manager run over it.
	 */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = MROCE_GID_TBL_LEN;
	immutable->pkey_tbl_len = 1;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer mroce_get_link_layer(struct ib_device *ibdev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void mroce_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u", MROCE_UVERBS_ABI_VERSION);
}

/*
 * hca_type names the driver to userspace.  An out-of-tree driver has no
 * driver id of its own (it reports RDMA_DRIVER_UNKNOWN), so the provider
 * recognises mroce devices by this attribute, whatever name "rdma link
 * add" gave them.
 */
static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", MROCE_HCA_TYPE);
}
static DEVICE_ATTR_RO(hca_type);

static struct attribute *mroce_dev_attrs[] = {
	&dev_attr_hca_type.attr,
	NULL,
};

static const struct attribute_group mroce_dev_attr_group = {
	.attrs = mroce_dev_attrs,
};

/* Called by the RDMA core once no verb can run on the device any more. */
static void mroce_dealloc_driver(struct ib_device *ibdev)
{
	struct mroce_dev *mdev = to_mdev(ibdev);

	mutex_lock(&mroce_dev_lock);
	if (mdev->listed)
		list_del_rcu(&mdev->list);
	mdev->listed = false;
	if (mdev->net) {
		mroce_socket_put(mdev->net);
		WRITE_ONCE(mdev->net, NULL);
	}
	mutex_unlock(&mroce_dev_lock);
	mroce_verbs_cleanup(mdev);
	WARN_ON(atomic_read(&mdev->pd_count));
}

static const struct ib_device_ops mroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = MROCE_UVERBS_ABI_VERSION,

	.device_group = &mroce_dev_attr_group,

	.alloc_hw_port_stats = mroce_alloc_hw_port_stats,
	.dealloc_driver = mroce_dealloc_driver,
	.get_hw_stats = mroce_get_hw_stats,
	.get_dev_fw_str = mroce_get_dev_fw_str,
	.get_link_layer = mroce_get_link_layer,
	.get_port_immutable = mroce_get_port_immutable,
	.query_device = mroce_query_device,
	.query_pkey = mroce_query_pkey,
	.query_port = mroce_query_port,
};

static bool mroce_name_taken(const char *name)
{
	struct ib_device *ibdev;

	/* RDMA_DRIVER_UNKNOWN matches a device of any driver. */
	ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return false;
	ib_device_put(ibdev);
	return true;
}

static struct mroce_dev *mroce_dev_alloc(struct net_device *ndev)
{
	struct mroce_dev *mdev;
	struct ib_device *ibdev;

	mdev = ib_alloc_device(mroce_dev, ibdev);
	if (!mdev)
		return NULL;
	ibdev = &mdev->ibdev;
	INIT_LIST_HEAD(&mdev->list);
	mdev->ndev = ndev;
	atomic_set(&mdev->pd_count, 0);
	mroce_verbs_init(mdev);

	strscpy(ibdev->node_desc, "mroce", sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, ndev->dev_addr);

	ib_set_device_ops(ibdev, &mroce_dev_ops);
	/* The rings' doorbells (mroce-abi.h) and arming a CQ are commands. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ib_set_device_ops(ibdev, &mroce_verbs_ops);
	return mdev;
}

/*
 * On a NIC that could run the transport itself, say that it does not: the
 * software engine carries the device's queue pairs (engine.h).
 */
static void mroce_dev_note_engine(struct mroce_dev *mdev,
				  struct net_device *ndev)
{
	struct device *parent = ndev->dev.parent;
	const char *vendor = NULL;

	if (parent && parent->driver)
		vendor = mroce_engine_hw_vendor(parent->driver->name);
	if (vendor)
		ibdev_info(&mdev->ibdev,
			   "%s: %s NIC; queue pairs run on mroce's %s engine\n",
			   netdev_name(ndev), vendor, mdev->engine->name);
}

/**
 * mroce_dev_add() - create and register a device over a netdev
 * @name: RDMA device name chosen by the user
 * @ndev: netdev to bind; the caller holds a reference for the call
 *
 * Return: 0, or a negative errno that "rdma link add" reports:
 * -EINVAL for a netdev that is not Ethernet, -EEXIST for a name already in
 * use or a netdev already bound, -EADDRINUSE when mroce's UDP port is
 * taken in the netdev's namespace.
 */
int mroce_dev_add(const char *name, struct net_device *ndev)
{
	struct mroce_dev *mdev;
	int err;

	if (ndev->type != ARPHRD_ETHER) {
		pr_err("%s is not an Ethernet device\n", netdev_name(ndev));
		return -EINVAL;
	}

	/*
	 * An early, friendlier answer than the -ENFILE ib_register_device()
	 * gives; the check there still closes the race.  It takes the RDMA
	 * core's device lock, so it runs before mroce_dev_lock.
	 */
	if (mroce_name_taken(name)) {
		pr_err("an RDMA device named %s already exists\n", name);
		return -EEXIST;
	}

	mdev = mroce_dev_alloc(ndev);
	if (!mdev)
		return -ENOMEM;

	mutex_lock(&mroce_dev_lock);
	if (mroce_dev_find_by_netdev(ndev)) {
		pr_err("%s is already bound to an mroce device\n",
		       netdev_name(ndev));
		err = -EEXIST;
		goto err_unlock;
	}
	err = mroce_socket_get(dev_net(ndev));
	if (err) {
		pr_err("cannot open UDP port %u in the namespace of %s: %d\n",
		       mroce_udp_port, netdev_name(ndev), err);
		goto err_unlock;
	}
	mdev->net = dev_net(ndev);
	list_add_tail_rcu(&mdev->list, &mroce_devs);
	mdev->listed = true;
	mroce_port_update(mdev);
	mutex_unlock(&mroce_dev_lock);

	err = ib_device_set_netdev(&mdev->ibdev, ndev, MROCE_PORT);
	if (err)
		goto err_dealloc;

	/*
	 * Registration calls back into the RDMA core's clients, some of
	 * which take the RTNL, so it runs without mroce_dev_lock.  Hold the
	 * struct: "rdma link del" may tear the device down the moment it is
	 * registered.
	 */
	get_device(&mdev->ibdev.dev);
	/*
	 * Under the netdev's parent (its PCI or virtio device), as hardware
	 * RoCE devices sit, so tools find the interface in
	 * /sys/class/infiniband/<dev>/device/net/.  DMA stays virtual: no
	 * DMA device is passed.
	 */
	mdev->ibdev.dev.parent = ndev->dev.parent;
	err = ib_register_device(&mdev->ibdev, name, NULL);
	if (err) {
		put_device(&mdev->ibdev.dev);
		if (err == -ENFILE) {
			pr_err("an RDMA device named %s already exists\n", name);
			err = -EEXIST;
		}
		goto err_dealloc;
	}

	mutex_lock(&mroce_dev_lock);
	mdev->registered = true;
	if (!mdev->listed)
		;	/* already torn down by "rdma link del" */
	else if (!mdev->net)
		/* the netdev left while we registered */
		ib_unregister_device_queued(&mdev->ibdev);
	else
		mroce_port_update(mdev);
	mutex_unlock(&mroce_dev_lock);
	mroce_dev_note_engine(mdev, ndev);
	put_device(&mdev->ibdev.dev);
	return 0;

err_unlock:
	mutex_unlock(&mroce_dev_lock);
err_dealloc:
	/* dealloc_driver takes the device off the list and drops the socket */
	ib_dealloc_device(&mdev->ibdev);
	return err;
}

/**
 * mroce_dev_remove_all() - unregister every device, for module unload
 *
 * Waits for unregistrations already queued by the netdev notifier, so no
 * device op can run once this returns.
 */
void mroce_dev_remove_all(void)
{
	struct mroce_dev *mdev;

	mutex_lock(&mroce_dev_lock);
	while ((mdev = list_first_entry_or_null(&mroce_devs, struct mroce_dev,
						list))) {
		list_del_rcu(&mdev->list);
		mdev->listed = false;
		get_device(&mdev->ibdev.dev);
		mutex_unlock(&mroce_dev_lock);

		ib_unregister_device(&mdev->ibdev);
		put_device(&mdev->ibdev.dev);

		mutex_lock(&mroce_dev_lock);
	}
	mutex_unlock(&mroce_dev_lock);
}

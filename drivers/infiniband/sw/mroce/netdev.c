// SPDX-License-Identifier: GPL-2.0-only
/*
 * Following the bound netdev: port state and MTU track it, and a device
 * whose netdev goes away goes away with it.  GIDs need nothing here: the
 * RDMA core fills the GID table of a RoCE-type port from the netdev's
 * IPv4 and IPv6 addresses.
 */
#include "addr.h"
#include "mroce.h"

static void mroce_port_event(struct mroce_dev *mdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &mdev->ibdev,
		.element.port_num = MROCE_PORT,
		.event = type,
	};

	ib_dispatch_event(&event);
}

/**
 * mroce_port_update() - recompute port state and MTU from the netdev
 * @mdev: the device
 *
 * The port is active while the netdev is up with carrier.  A change is
 * reported to the RDMA core's event handlers once the device is
 * registered.  Caller holds mroce_dev_lock.
 */
void mroce_port_update(struct mroce_dev *mdev)
{
	struct net_device *ndev = mdev->ndev;
	enum ib_port_state state;
	enum ib_mtu mtu;

	lockdep_assert_held(&mroce_dev_lock);

	mtu = mroce_mtu_from_netdev(READ_ONCE(ndev->mtu));
	state = netif_running(ndev) && netif_carrier_ok(ndev) && mtu ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
	mdev->active_mtu = mtu ? mtu : IB_MTU_256;
	WRITE_ONCE(mdev->link_payload,
		   max(mroce_payload_from_netdev(READ_ONCE(ndev->mtu)),
		       (u32)ib_mtu_enum_to_int(mdev->active_mtu)));

	if (state == mdev->port_state)
		return;
	mdev->port_state = state;
	if (!mdev->registered)
		return;

	mroce_port_event(mdev, state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							IB_EVENT_PORT_ERR);
	dev_info(&mdev->ibdev.dev, "port %s\n",
		 state == IB_PORT_ACTIVE ? "active" : "down");
}

static int mroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct mroce_dev *mdev;

	mutex_lock(&mroce_dev_lock);
	mdev = mroce_dev_find_by_netdev(ndev);
	if (!mdev)
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* also sent when the netdev moves to another namespace */
		mroce_dev_detach(mdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		mroce_port_update(mdev);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&mroce_dev_lock);
	return NOTIFY_DONE;
}

static struct notifier_block mroce_netdev_notifier = {
	.notifier_call = mroce_netdev_event,
};

int mroce_netdev_init(void)
{
	return register_netdevice_notifier(&mroce_netdev_notifier);
}

void mroce_netdev_exit(void)
{
	unregister_netdevice_notifier(&mroce_netdev_notifier);
}

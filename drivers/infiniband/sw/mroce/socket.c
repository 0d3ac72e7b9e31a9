// SPDX-License-Identifier: GPL-2.0-only
/*
 * UDP sockets, one pair (IPv4, IPv6) per network namespace that has an
 * mroce device.
 *
 * A socket is opened when the first device of a namespace is created and
 * closed with the last one, so mroce claims its port only where it is
 * used.  The sockets are kernel sockets: they hold no reference on the
 * namespace, and a device drops its use synchronously when its netdev
 * leaves (see mroce_dev_detach()), before the namespace can go away.
 */
#include <linux/net.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "transport.h"

/**
 * struct mroce_net - mroce's per-namespace state
 * @lock: protects the other fields
 * @users: devices using the sockets
 * @sock4: IPv4 socket
 * @sock6: IPv6 socket; NULL where IPv6 is disabled
 */
struct mroce_net {
	struct mutex lock;	/* users and the sockets */
	unsigned int users;
	struct socket __rcu *sock4;
	struct socket __rcu *sock6;
};

static unsigned int mroce_net_id __read_mostly;

static struct socket *mroce_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tunnel_cfg = {
		.encap_type = 1,
		.encap_rcv = mroce_udp_recv,
	};
	struct udp_port_cfg port_cfg = {
		.local_udp_port = htons(mroce_udp_port),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		port_cfg.family = AF_INET6;
		port_cfg.ipv6_v6only = 1;
		port_cfg.use_udp6_rx_checksums = 1;
		port_cfg.use_udp6_tx_checksums = 1;
	} else {
		port_cfg.family = AF_INET;
		port_cfg.use_udp_checksums = 1;
	}

	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);

	setup_udp_tunnel_sock(net, sock, &tunnel_cfg);
	return sock;
}

static void mroce_net_close(struct mroce_net *mn)
{
	struct socket *sock4 = rcu_dereference_protected(mn->sock4, true);
	struct socket *sock6 = rcu_dereference_protected(mn->sock6, true);

	RCU_INIT_POINTER(mn->sock4, NULL);
	RCU_INIT_POINTER(mn->sock6, NULL);
	/* Senders look the sockets up under RCU. */
	synchronize_net();
	if (sock6)
		udp_tunnel_sock_release(sock6);
	if (sock4)
		udp_tunnel_sock_release(sock4);
}

/**
 * mroce_socket_sk() - the socket a device sends with; caller holds RCU
 * @mdev: the device
 * @ipv6: the IPv6 socket (else IPv4)
 *
 * Return: the socket's sock, or NULL once the device left its namespace.
 */
struct sock *mroce_socket_sk(struct mroce_dev *mdev, bool ipv6)
{
	struct net *net = READ_ONCE(mdev->net);
	struct mroce_net *mn;
	struct socket *sock;

	if (!net)
		return NULL;
	mn = net_generic(net, mroce_net_id);
	sock = ipv6 ? rcu_dereference(mn->sock6) : rcu_dereference(mn->sock4);
	return sock ? sock->sk : NULL;
}

/**
 * mroce_socket_get() - make sure a namespace's sockets are open
 * @net: the namespace
 *
 * Return: 0, or the error of opening a socket (-EADDRINUSE when another
 * socket holds mroce's port in @net).
 */
int mroce_socket_get(struct net *net)
{
	struct mroce_net *mn = net_generic(net, mroce_net_id);
	struct socket *sock;
	int err = 0;

	mutex_lock(&mn->lock);
	if (mn->users++)
		goto out;

	sock = mroce_udp_open(net, false);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		goto err;
	}
	rcu_assign_pointer(mn->sock4, sock);

	if (IS_ENABLED(CONFIG_IPV6) && ipv6_mod_enabled()) {
		sock = mroce_udp_open(net, true);
		if (IS_ERR(sock)) {
			err = PTR_ERR(sock);
			goto err;
		}
		rcu_assign_pointer(mn->sock6, sock);
	}
	goto out;

err:
	mroce_net_close(mn);
	mn->users--;
out:
	mutex_unlock(&mn->lock);
	return err;
}

/**
 * mroce_socket_put() - drop a device's use of a namespace's sockets
 * @net: the namespace
 */
void mroce_socket_put(struct net *net)
{
	struct mroce_net *mn = net_generic(net, mroce_net_id);

	mutex_lock(&mn->lock);
	if (!WARN_ON(!mn->users) && !--mn->users)
		mroce_net_close(mn);
	mutex_unlock(&mn->lock);
}

static int __net_init mroce_net_init(struct net *net)
{
	struct mroce_net *mn = net_generic(net, mroce_net_id);

	mutex_init(&mn->lock);
	return 0;
}

static void __net_exit mroce_net_exit(struct net *net)
{
	struct mroce_net *mn = net_generic(net, mroce_net_id);

	/* Every device left with its netdev, before this runs. */
	WARN_ON(mn->users);
	mroce_net_close(mn);
	mutex_destroy(&mn->lock);
}

static struct pernet_operations mroce_net_ops = {
	.init = mroce_net_init,
	.exit = mroce_net_exit,
	.id = &mroce_net_id,
	.size = sizeof(struct mroce_net),
};

int mroce_socket_init(void)
{
	return register_pernet_subsys(&mroce_net_ops);
}

void mroce_socket_exit(void)
{
	unregister_pernet_subsys(&mroce_net_ops);
}

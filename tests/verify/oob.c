// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by mroce-verify and mroce-access: see oob.h.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oob.h"

#define CONNECT_SECS	5.0	/* one connection attempt, at most */

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void put_be32(uint8_t *p, uint32_t x)
{
	x = htobe32(x);
	memcpy(p, &x, 4);
}

void put_be64(uint8_t *p, uint64_t x)
{
	x = htobe64(x);
	memcpy(p, &x, 8);
}

uint32_t get_be32(const uint8_t *p)
{
	uint32_t x;

	memcpy(&x, p, 4);
	return be32toh(x);
}

uint64_t get_be64(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return be64toh(x);
}

bool send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

enum oob_recv recv_all(int fd, void *buf, size_t len, double deadline)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ms = (deadline - now()) * 1000;
		ssize_t n;

		if (ms <= 0)
			return OOB_TIMEOUT;
		if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
			return OOB_POLL_ERR;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n == 0)
			return OOB_EOF;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return OOB_RECV_ERR;
		}
		p += n;
		len -= n;
	}
	return OOB_OK;
}

int oob_listen(const char *port, int *gai_err)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE,
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, zero = 0;

	*gai_err = getaddrinfo(NULL, port, &hints, &res);
	if (*gai_err)
		return -1;
	/* Prefer a dual-stack IPv6 socket: it takes IPv4 clients too. */
	for (int pass = 0; pass < 2 && fd < 0; pass++) {
		for (ai = res; ai; ai = ai->ai_next) {
			if ((ai->ai_family == AF_INET6) != (pass == 0))
				continue;
			fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd < 0)
				continue;
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (ai->ai_family == AF_INET6)
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
					   sizeof(zero));
			if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 1))
				break;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

int oob_accept(int lfd, double deadline)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };

	for (;;) {
		int ms = (deadline - now()) * 1000;

		if (ms <= 0)
			return -1;
		if (poll(&pfd, 1, ms) > 0) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0)
				return fd;
		}
	}
}

int oob_resolve(const char *host, const char *port, struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};

	return getaddrinfo(host, port, &hints, res);
}

/* Non-blocking connect bounded by `secs` and the deadline. */
static int connect_once(const struct addrinfo *ai, double secs, double deadline)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	double left;
	int err = 0, ms;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -1;
	if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
		goto connected;
	if (errno != EINPROGRESS)
		goto fail;
	left = deadline - now();
	ms = (left < secs ? left : secs) * 1000;
	if (ms <= 0 || poll(&pfd, 1, ms) <= 0) {
		errno = ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		errno = err;
		goto fail;
	}
connected:
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	close(fd);
	return -1;
}

int oob_connect(const struct addrinfo *res, double deadline)
{
	const struct addrinfo *ai;
	int fd = -1, err = 0;

	for (;;) {
		for (ai = res; ai && fd < 0; ai = ai->ai_next) {
			fd = connect_once(ai, CONNECT_SECS, deadline);
			/* Keep the reason of a real failure over a late timeout. */
			if (fd < 0 && (errno != ETIMEDOUT || !err))
				err = errno;
		}
		if (fd >= 0)
			return fd;
		if (now() + 0.2 >= deadline) {
			errno = err;
			return -1;
		}
		usleep(200000);
	}
}

bool gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

struct ibv_context *open_device_named(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n, err = ENODEV;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			err = errno;
			break;
		}
	}
	ibv_free_device_list(list);
	if (!ctx)
		errno = err;
	return ctx;
}

bool find_ipv4_roce_gid(struct ibv_context *ctx, uint32_t port, int tbl_len,
			double give_up, struct ibv_gid_entry *e)
{
	for (;;) {
		for (int i = 0; i < tbl_len; i++) {
			if (ibv_query_gid_ex(ctx, port, i, e, 0))
				continue;
			if (e->gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_ipv4(&e->gid))
				return true;
		}
		if (now() >= give_up)
			return false;
		usleep(100000);
	}
}

const char *qp_state_str(struct ibv_qp *qp)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return "?";
	return attr.qp_state < ARRAY_SIZE(names) ? names[attr.qp_state] : "?";
}

int rc_move(struct ibv_qp *qp, enum ibv_qp_state state, uint32_t dest,
	    const struct ibv_gid_entry *gid)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask = IBV_QP_STATE;

	switch (state) {
	case IBV_QPS_INIT:
		a.pkey_index = 0;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr = (struct ibv_ah_attr){
			.is_global = 1,
			.port_num = 1,
			.grh = { .dgid = gid->gid, .sgid_index = gid->gid_index,
				 .hop_limit = 64 },
		};
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = 0;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

int rc_connect(struct ibv_qp *qp, uint32_t dest, const struct ibv_gid_entry *gid)
{
	int err;

	err = rc_move(qp, IBV_QPS_INIT, 0, gid);
	if (!err)
		err = rc_move(qp, IBV_QPS_RTR, dest, gid);
	if (!err)
		err = rc_move(qp, IBV_QPS_RTS, 0, gid);
	return err;
}

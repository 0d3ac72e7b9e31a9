/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by mroce-verify and mroce-access: the out-of-band TCP
 * channel (listen/accept, connect, whole-buffer send and receive bounded by
 * a deadline), big-endian encoding of its records, the monotonic clock the
 * deadlines use, the choice of the IPv4-mapped RoCE v2 GID that both sides
 * exchange over it, the moves of a loopback RC QP to RTS (mroce-race,
 * mroce-cycle), and a QP state name for diagnostics.
 *
 * Nothing here prints or exits: each program reports failures in its own
 * words, from the return values and errno.
 */
#ifndef MROCE_VERIFY_OOB_H
#define MROCE_VERIFY_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct addrinfo;

#define EXIT_FAIL	1
#define EXIT_SETUP	2
#define EXIT_TIMEOUT	3

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Seconds on CLOCK_MONOTONIC. */
double now(void);

void put_be32(uint8_t *p, uint32_t x);
void put_be64(uint8_t *p, uint64_t x);
uint32_t get_be32(const uint8_t *p);
uint64_t get_be64(const uint8_t *p);

/* Send all of buf (no SIGPIPE); false with errno set on failure. */
bool send_all(int fd, const void *buf, size_t len);

enum oob_recv {
	OOB_OK,
	OOB_TIMEOUT,	/* the deadline passed */
	OOB_EOF,	/* the peer closed the connection */
	OOB_POLL_ERR,	/* poll failed: errno */
	OOB_RECV_ERR,	/* recv failed: errno */
};

/* Read exactly len bytes (and no more) from fd before the deadline. */
enum oob_recv recv_all(int fd, void *buf, size_t len, double deadline);

/*
 * A listening TCP socket on port, preferably dual-stack IPv6.  -1 on
 * failure: *gai_err is the getaddrinfo error, or 0 and errno says why.
 */
int oob_listen(const char *port, int *gai_err);

/* Accept one connection on lfd before the deadline; -1 on timeout. */
int oob_accept(int lfd, double deadline);

/* getaddrinfo() of a TCP peer: 0 or the getaddrinfo error. */
int oob_resolve(const char *host, const char *port, struct addrinfo **res);

/*
 * Connect to one of the addresses of res, retrying (the server may not
 * listen yet) until the deadline; each attempt is bounded by 5 s.  -1 on
 * timeout, errno the reason of the last real failure.
 */
int oob_connect(const struct addrinfo *res, double deadline);

/*
 * Open the RDMA device called name: NULL if there is none (errno ENODEV)
 * or it cannot be opened (errno set by libibverbs).
 */
struct ibv_context *open_device_named(const char *name);

/* An IPv4-mapped GID (::ffff:a.b.c.d). */
bool gid_is_ipv4(const union ibv_gid *gid);

/*
 * Find the IPv4-mapped RoCE v2 GID of port in its table of tbl_len
 * entries.  The table is filled from the netdev's addresses asynchronously
 * (a fresh `rdma link add`), so look again every 100 ms until give_up.
 */
bool find_ipv4_roce_gid(struct ibv_context *ctx, uint32_t port, int tbl_len,
			double give_up, struct ibv_gid_entry *e);

/*
 * Move an RC QP of port 1 to state; RTR connects it to QP number dest at
 * gid (both its source and its destination: a loopback through one of the
 * device's own addresses).  0 or an errno.
 */
int rc_move(struct ibv_qp *qp, enum ibv_qp_state state, uint32_t dest,
	    const struct ibv_gid_entry *gid);

/* RESET -> INIT -> RTR -> RTS with rc_move(): 0 or an errno. */
int rc_connect(struct ibv_qp *qp, uint32_t dest, const struct ibv_gid_entry *gid);

/* "RESET" ... "ERR", or "?". */
const char *qp_state_str(struct ibv_qp *qp);

#endif

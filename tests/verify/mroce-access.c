// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce-access: end-to-end negative tests of RC remote access enforcement
 * between two hosts.
 *
 *   server:  mroce-access -d DEV [-g GID] [-p TCP_PORT] [-t TIMEOUT]
 *   client:  mroce-access -d DEV [-g GID] [-p TCP_PORT] [-t TIMEOUT] SERVER
 *
 * The server registers target memory regions in one allocation, each
 * between guard bytes that belong to no region: full remote access, no
 * remote write, no remote read, no remote atomic, full access in a second
 * protection domain, and a receive buffer (local write only).  The whole
 * allocation is poisoned with a pattern that is a function of each byte's
 * address; whatever the client sends is the complement of the poison at
 * the address it aims at, so every byte that lands is visible.
 *
 * Each case runs on a fresh RC QP pair and fresh CQs (an access error moves
 * both QPs to the error state): the client issues one operation and checks
 * its completion (status and wr_id; for READ and atomics also that its own
 * landing buffer was not touched); the server then checks its expected
 * receive completions and that not one byte of its allocation differs from
 * the expected image (the poison, plus what earlier successful cases wrote).
 * The last cases are positive: a valid WRITE (the data must land, and
 * nothing else change), and a CQ resize: the client's send CQ and the
 * server's receive CQ are created with 16 entries, 8 SENDs complete into
 * them (the client posts one at a time and waits for each one's CQ event, so
 * all 8 are in its CQ unpolled), both CQs are resized to 256 and then the 8
 * completions must come out in order, with the right wr_ids, and no more.
 *
 * Both sides print the combined verdict of each case:
 *
 *   ok NAME
 *   FAIL NAME: client: REASON; server: REASON
 *
 * with "# " lines in between carrying details (completion statuses seen,
 * the server QP's state, async events), and finally
 *
 *   access: N passed, N failed
 *
 * Exit status: 0 all cases passed, 1 a case failed, 2 usage or setup error,
 * 3 timeout (-t bounds the whole run; a SIGALRM backstop ends a call that
 * does not return).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "oob.h"

#define MR_LEN		8192	/* each target region */
#define GUARD		3000	/* unregistered bytes each side of a region */
#define STRIDE		(GUARD + MR_LEN + GUARD)
#define CASE_SECS	30.0	/* a case's completions, at most */
#define SETTLE_US	200000	/* before the server checks its memory */
#define RESIZE_WRS	8	/* cq_resize: sends */
#define RESIZE_CQE	16	/* cq_resize: CQ size before ... */
#define RESIZE_TO	256	/* ... and after the resize */
#define RESIZE_SLOT	256	/* cq_resize: receive slot */
#define RESIZE_LEN	100	/* cq_resize: bytes per send */
#define CLIENT_LEN	(4 * MR_LEN)	/* client: source, then landing zone */
#define LAND_OFF	(2 * MR_LEN)
#define LAND_GUARD	256
#define WR_ID_BASE	((uint64_t)0x5eed0000)
#define MAGIC		0x6d726f6365616363ULL	/* "mroceacc" */
#define VERSION		1

#define REMOTE_ALL	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

/* The server's regions, in allocation order. */
enum target { T_RW, T_NOWRITE, T_NOREAD, T_NOATOMIC, T_OTHERPD, T_RECV, NR_T };

static const char *const target_name[NR_T] = {
	"rw", "no_remote_write", "no_remote_read", "no_remote_atomic",
	"other_pd", "recv",
};

static const unsigned int target_access[NR_T] = {
	[T_RW] = IBV_ACCESS_LOCAL_WRITE | REMOTE_ALL,
	[T_NOWRITE] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		      IBV_ACCESS_REMOTE_ATOMIC,
	[T_NOREAD] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_ATOMIC,
	[T_NOATOMIC] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ,
	[T_OTHERPD] = IBV_ACCESS_LOCAL_WRITE | REMOTE_ALL,
	[T_RECV] = IBV_ACCESS_LOCAL_WRITE,
};

enum op { OP_WRITE, OP_READ, OP_FADD, OP_SEND, OP_RESIZE };

struct acase {
	const char *name;
	enum op op;
	enum target tgt;	/* WRITE/READ/FADD target; SEND: T_RECV */
	int64_t off;		/* remote address: the region's start + off */
	uint32_t len;
	uint32_t rkey_xor;	/* applied to the target's rkey */
	unsigned int qp_access;	/* the server QP's qp_access_flags */
	uint32_t recv_len;	/* the server posts one receive this long (0: none) */
	uint8_t rnr_retry;	/* the client QP's */
	int want;		/* the client's completion status */
	int want_recv;		/* the server's receive completion status, -1: none */
	bool lands;		/* the data must arrive */
};

static const struct acase cases[] = {
	{ "write_bad_rkey", OP_WRITE, T_RW, 0, 2048, 0xff, REMOTE_ALL, 0, 7,
	  IBV_WC_REM_ACCESS_ERR, -1, false },
	/* The first packet lies inside the region, the rest crosses its end. */
	{ "write_past_mr_end", OP_WRITE, T_RW, MR_LEN - 2000, 4000, 0, REMOTE_ALL,
	  0, 7, IBV_WC_REM_ACCESS_ERR, -1, false },
	{ "write_before_mr_start", OP_WRITE, T_RW, -2048, 1024, 0, REMOTE_ALL, 0, 7,
	  IBV_WC_REM_ACCESS_ERR, -1, false },
	{ "write_mr_no_remote_write", OP_WRITE, T_NOWRITE, 0, 2048, 0, REMOTE_ALL,
	  0, 7, IBV_WC_REM_ACCESS_ERR, -1, false },
	{ "write_mr_other_pd", OP_WRITE, T_OTHERPD, 0, 2048, 0, REMOTE_ALL, 0, 7,
	  IBV_WC_REM_ACCESS_ERR, -1, false },
	{ "write_qp_no_remote_write", OP_WRITE, T_RW, 0, 2048, 0,
	  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC, 0, 7,
	  IBV_WC_REM_ACCESS_ERR, -1, false },
	{ "read_mr_no_remote_read", OP_READ, T_NOREAD, 0, 2048, 0, REMOTE_ALL, 0, 7,
	  IBV_WC_REM_ACCESS_ERR, -1, false },
	{ "fadd_mr_no_remote_atomic", OP_FADD, T_NOATOMIC, 64, 8, 0, REMOTE_ALL, 0,
	  7, IBV_WC_REM_ACCESS_ERR, -1, false },
	{ "send_longer_than_recv", OP_SEND, T_RECV, 0, 2048, 0, REMOTE_ALL, 256, 7,
	  IBV_WC_REM_INV_REQ_ERR, IBV_WC_LOC_LEN_ERR, false },
	{ "send_rnr_no_recv", OP_SEND, T_RECV, 0, 512, 0, REMOTE_ALL, 0, 0,
	  IBV_WC_RNR_RETRY_EXC_ERR, -1, false },
	{ "write_valid", OP_WRITE, T_RW, 1000, 3000, 0, REMOTE_ALL, 0, 7,
	  IBV_WC_SUCCESS, -1, true },
	{ "cq_resize", OP_RESIZE, T_RECV, 0, RESIZE_LEN, 0, REMOTE_ALL, 0, 7,
	  IBV_WC_SUCCESS, IBV_WC_SUCCESS, true },
};

#define NR_CASES	ARRAY_SIZE(cases)

/* TCP records: be32 type, be32 case, NW be64 words, TEXT bytes of text. */
enum msg_type { M_HELLO = 1, M_QP, M_DONE, M_VERDICT, M_ABORT };
#define NW		24
#define TEXT		240
#define MSG_BYTES	(8 + 8 * NW + TEXT)

struct msg {
	uint32_t type, idx;
	uint64_t w[NW];
	char text[TEXT];
};

/* Hello words. */
enum { H_MAGIC, H_VERSION, H_NCASES, H_GID_HI, H_GID_LO, H_MTU, H_TGT };

/* Outcome of one side of one case: the first reason it failed, if any. */
struct res {
	bool failed;
	char why[TEXT];
};

static struct {
	const char *dev, *server, *port;
	int gid_opt;
	unsigned int timeout;
	bool client;
	const char *role;

	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	int gid_index;
	union ibv_gid gid, peer_gid;
	enum ibv_mtu mtu;

	uint8_t *buf;		/* server: the targets; client: source + landing */
	uint8_t *img;		/* server: what buf must hold */
	size_t len;
	struct ibv_mr *mr[NR_T];	/* client: mr[0] only */
	uint64_t taddr[NR_T];	/* client: the server's regions */
	uint32_t trkey[NR_T];

	int sock;
	double start, deadline;
	unsigned int passed, failed;
} g = { .sock = -1, .gid_opt = -1 };

static volatile const char *cur_case = "setup";

/* ------------------------------------------------------------------------ */
/* Output */

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", g.role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void fail(struct res *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail(struct res *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return;	/* the first reason is the one that matters */
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

static void send_msg(uint32_t type, uint32_t idx, const uint64_t *w,
		     const char *text);

/* End the run: setup errors, a lost peer, the deadline. */
static void __attribute__((noreturn, format(printf, 2, 3)))
die(int code, const char *fmt, ...)
{
	va_list ap;
	char why[TEXT];

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (g.sock >= 0)
		send_msg(M_ABORT, 0, NULL, why);
	printf("FAIL %s: %s\n", cur_case, why);
	printf("access: %u passed, %u failed\n", g.passed, g.failed + 1);
	fflush(stdout);
	exit(code);
}

/* Backstop for a call that does not return. */
static void on_alarm(int sig)
{
	static const char a[] = "FAIL ", b[] = ": hard timeout, a call did not return\n",
		c[] = "access: run aborted by the timeout\n";
	const char *name = (const char *)cur_case;

	(void)sig;
	if (write(STDOUT_FILENO, a, sizeof(a) - 1) < 0 ||
	    write(STDOUT_FILENO, name, strlen(name)) < 0 ||
	    write(STDOUT_FILENO, b, sizeof(b) - 1) < 0 ||
	    write(STDOUT_FILENO, c, sizeof(c) - 1) < 0)
		_exit(EXIT_TIMEOUT);
	_exit(EXIT_TIMEOUT);
}

static const char *status_str(int status)
{
	return status < 0 ? "none" : ibv_wc_status_str(status);
}

/* ------------------------------------------------------------------------ */
/* Patterns */

/* The poison of the byte at address a (the server's own addresses). */
static uint8_t poison(uint64_t a)
{
	a *= 0x9e3779b97f4a7c15ULL;
	return a >> 56;
}

/* What a sender puts at remote address a: never the poison there. */
static uint8_t payload(uint64_t a)
{
	return ~poison(a);
}

static void fill_poison(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = poison((uintptr_t)(p + i));
}

static void fill_payload(uint8_t *p, uint64_t remote, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = payload(remote + i);
}

/* ------------------------------------------------------------------------ */
/* TCP */

static void send_msg(uint32_t type, uint32_t idx, const uint64_t *w,
		     const char *text)
{
	uint8_t rec[MSG_BYTES] = { 0 };

	put_be32(rec, type);
	put_be32(rec + 4, idx);
	for (unsigned int k = 0; w && k < NW; k++)
		put_be64(rec + 8 + 8 * k, w[k]);
	if (text)
		snprintf((char *)rec + 8 + 8 * NW, TEXT, "%s", text);
	if (!send_all(g.sock, rec, sizeof(rec)) && type != M_ABORT) {
		close(g.sock);
		g.sock = -1;
		die(EXIT_FAIL, "lost the TCP connection to the peer: %s",
		    strerror(errno));
	}
}

/* The next record, which must be of this type and case, before the deadline. */
static void recv_msg(uint32_t type, uint32_t idx, struct msg *m)
{
	uint8_t rec[MSG_BYTES];

	switch (recv_all(g.sock, rec, sizeof(rec), g.deadline)) {
	case OOB_OK:
		break;
	case OOB_TIMEOUT:
		die(EXIT_TIMEOUT, "timeout (-t %u) waiting for the peer", g.timeout);
	case OOB_POLL_ERR:
		die(EXIT_FAIL, "poll: %s", strerror(errno));
	case OOB_EOF:
		close(g.sock);
		g.sock = -1;
		die(EXIT_FAIL, "the peer closed the TCP connection");
	case OOB_RECV_ERR:
		die(EXIT_FAIL, "TCP receive: %s", strerror(errno));
	}
	m->type = get_be32(rec);
	m->idx = get_be32(rec + 4);
	for (unsigned int k = 0; k < NW; k++)
		m->w[k] = get_be64(rec + 8 + 8 * k);
	memcpy(m->text, rec + 8 + 8 * NW, TEXT);
	m->text[TEXT - 1] = '\0';
	if (m->type == M_ABORT) {
		close(g.sock);
		g.sock = -1;
		die(EXIT_FAIL, "the peer gave up: %s", m->text);
	}
	if (m->type != type || m->idx != idx)
		die(EXIT_FAIL, "protocol error: got message %u for case %u, expected %u for case %u",
		    m->type, m->idx, type, idx);
}

static void tcp_accept(void)
{
	int fd, gai_err;

	fd = oob_listen(g.port, &gai_err);
	if (gai_err)
		die(EXIT_SETUP, "port %s: %s", g.port, gai_strerror(gai_err));
	if (fd < 0)
		die(EXIT_SETUP, "cannot listen on TCP port %s: %s", g.port,
		    strerror(errno));
	info("waiting for the client on TCP port %s", g.port);
	g.sock = oob_accept(fd, g.deadline);
	if (g.sock < 0)
		die(EXIT_TIMEOUT, "timeout: no client connected within %u s",
		    g.timeout);
	close(fd);
}

/* The server may not listen yet: retry until the deadline. */
static void tcp_connect(void)
{
	struct addrinfo *res;
	int ret;

	ret = oob_resolve(g.server, g.port, &res);
	if (ret)
		die(EXIT_SETUP, "%s port %s: %s", g.server, g.port, gai_strerror(ret));
	info("connecting to %s port %s", g.server, g.port);
	g.sock = oob_connect(res, g.deadline);
	if (g.sock < 0)
		die(EXIT_TIMEOUT, "timeout: cannot connect to %s port %s: %s",
		    g.server, g.port, strerror(errno));
	freeaddrinfo(res);
	setsockopt(g.sock, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
}

/* ------------------------------------------------------------------------ */
/* Device */

/*
 * Without -g, the IPv4-mapped RoCE v2 GID.  The table is filled
 * asynchronously after `rdma link add`: give it a few seconds.
 */
static void pick_gid(void)
{
	struct ibv_gid_entry e;
	char buf[INET6_ADDRSTRLEN];
	double give_up = now() + 5;

	if (g.gid_opt >= 0) {
		if (ibv_query_gid_ex(g.ctx, 1, g.gid_opt, &e, 0))
			die(EXIT_SETUP, "GID index %d of %s: %s", g.gid_opt, g.dev,
			    strerror(errno));
		goto found;
	}
	if (!find_ipv4_roce_gid(g.ctx, 1, g.port_attr.gid_tbl_len,
				give_up < g.deadline ? give_up : g.deadline, &e))
		die(EXIT_SETUP, "%s port 1 has no IPv4 RoCE v2 GID (use -g)",
		    g.dev);
found:
	g.gid_index = e.gid_index;
	g.gid = e.gid;
	info("%s GID %u %s", g.dev, e.gid_index,
	     inet_ntop(AF_INET6, e.gid.raw, buf, sizeof(buf)));
}

static void open_device(void)
{
	g.ctx = open_device_named(g.dev);
	if (!g.ctx)
		die(EXIT_SETUP, "cannot open device %s: %s", g.dev, strerror(errno));
	if (ibv_query_device(g.ctx, &g.dev_attr))
		die(EXIT_SETUP, "ibv_query_device: %s", strerror(errno));
	if (ibv_query_port(g.ctx, 1, &g.port_attr))
		die(EXIT_SETUP, "ibv_query_port: %s", strerror(errno));
	if (g.port_attr.state != IBV_PORT_ACTIVE)
		die(EXIT_SETUP, "%s port 1 is not active", g.dev);
	g.mtu = g.port_attr.active_mtu;
	if (fcntl(g.ctx->async_fd, F_SETFL,
		  fcntl(g.ctx->async_fd, F_GETFL) | O_NONBLOCK))
		die(EXIT_SETUP, "fcntl: %s", strerror(errno));
	pick_gid();
}

/* Async events (read and acked, so destroying their QP cannot wait on them). */
static void async_events(char *out, size_t len)
{
	struct ibv_async_event ev;
	size_t n = 0;

	out[0] = '\0';
	while (!ibv_get_async_event(g.ctx, &ev)) {
		if (n < len)
			n += snprintf(out + n, len - n, "%s%s", n ? ", " : "",
				      ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
}

static void setup_memory(void)
{
	unsigned int nr = g.client ? 1 : NR_T;

	g.len = g.client ? CLIENT_LEN : NR_T * STRIDE;
	if (posix_memalign((void **)&g.buf, 4096, g.len))
		die(EXIT_SETUP, "out of memory");
	fill_poison(g.buf, g.len);
	g.pd = ibv_alloc_pd(g.ctx);
	g.pd2 = g.client ? NULL : ibv_alloc_pd(g.ctx);
	if (!g.pd || (!g.client && !g.pd2))
		die(EXIT_SETUP, "ibv_alloc_pd: %s", strerror(errno));
	if (g.client) {
		g.mr[0] = ibv_reg_mr(g.pd, g.buf, g.len, IBV_ACCESS_LOCAL_WRITE);
		if (!g.mr[0])
			die(EXIT_SETUP, "ibv_reg_mr: %s", strerror(errno));
		return;
	}
	g.img = malloc(g.len);
	if (!g.img)
		die(EXIT_SETUP, "out of memory");
	memcpy(g.img, g.buf, g.len);
	for (unsigned int t = 0; t < nr; t++) {
		g.mr[t] = ibv_reg_mr(t == T_OTHERPD ? g.pd2 : g.pd,
				     g.buf + t * STRIDE + GUARD, MR_LEN,
				     target_access[t]);
		if (!g.mr[t])
			die(EXIT_SETUP, "ibv_reg_mr %s: %s", target_name[t],
			    strerror(errno));
	}
}

static void hello(void)
{
	uint64_t w[NW] = { MAGIC, VERSION, NR_CASES };
	struct msg m;

	w[H_GID_HI] = get_be64(g.gid.raw);
	w[H_GID_LO] = get_be64(g.gid.raw + 8);
	w[H_MTU] = g.mtu;
	for (unsigned int t = 0; !g.client && t < NR_T; t++) {
		w[H_TGT + 2 * t] = (uintptr_t)g.mr[t]->addr;
		w[H_TGT + 2 * t + 1] = g.mr[t]->rkey;
	}
	send_msg(M_HELLO, 0, w, NULL);
	recv_msg(M_HELLO, 0, &m);
	if (m.w[H_MAGIC] != MAGIC || m.w[H_VERSION] != VERSION ||
	    m.w[H_NCASES] != NR_CASES)
		die(EXIT_SETUP, "the peer is not this version of mroce-access");
	put_be64(g.peer_gid.raw, m.w[H_GID_HI]);
	put_be64(g.peer_gid.raw + 8, m.w[H_GID_LO]);
	if (m.w[H_MTU] < g.mtu)
		g.mtu = m.w[H_MTU];
	for (unsigned int t = 0; g.client && t < NR_T; t++) {
		g.taddr[t] = m.w[H_TGT + 2 * t];
		g.trkey[t] = m.w[H_TGT + 2 * t + 1];
	}
}

/* ------------------------------------------------------------------------ */
/* Per-case QPs */

struct side {
	struct ibv_comp_channel *chan;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint32_t psn;
	unsigned int events;	/* CQ events to ack */
};

static void side_create(struct side *s, const struct acase *c, unsigned int idx,
			struct res *r)
{
	bool resize = c->op == OP_RESIZE;
	/* cq_resize: the client's send CQ and the server's receive CQ */
	bool small_scq = resize && g.client, small_rcq = resize && !g.client;
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = g.client ? 0 : c->qp_access,
	};

	s->psn = (0x3a5c1 * (idx + 1) + (g.client ? 0x777 : 0)) & 0xffffff;
	if (small_scq) {
		s->chan = ibv_create_comp_channel(g.ctx);
		if (!s->chan) {
			fail(r, "ibv_create_comp_channel: %s", strerror(errno));
			return;
		}
		fcntl(s->chan->fd, F_SETFL, fcntl(s->chan->fd, F_GETFL) | O_NONBLOCK);
	}
	s->scq = ibv_create_cq(g.ctx, small_scq ? RESIZE_CQE : 64, NULL, s->chan, 0);
	s->rcq = ibv_create_cq(g.ctx, small_rcq ? RESIZE_CQE : 64, NULL, NULL, 0);
	if (!s->scq || !s->rcq) {
		fail(r, "ibv_create_cq: %s", strerror(errno));
		return;
	}
	init.send_cq = s->scq;
	init.recv_cq = s->rcq;
	s->qp = ibv_create_qp(g.pd, &init);
	if (!s->qp) {
		fail(r, "ibv_create_qp: %s", strerror(errno));
		return;
	}
	if (ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		fail(r, "QP to INIT: %s", strerror(errno));
}

static void side_connect(struct side *s, const struct acase *c, uint32_t qpn,
			 uint32_t psn, struct res *r)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = g.mtu,
		.dest_qp_num = qpn,
		.rq_psn = psn,
		.max_dest_rd_atomic = g.dev_attr.max_qp_rd_atom ? 1 : 0,
		.min_rnr_timer = 1,	/* 0.01 ms: the RNR case is quick */
		.ah_attr = {
			.is_global = 1,
			.grh = {
				.dgid = g.peer_gid,
				.sgid_index = g.gid_index,
				.hop_limit = 64,
			},
			.port_num = 1,
		},
	};

	if (ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
		fail(r, "QP to RTR: %s", strerror(errno));
		return;
	}
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = g.client ? c->rnr_retry : 7;
	attr.sq_psn = s->psn;
	attr.max_rd_atomic = g.dev_attr.max_qp_init_rd_atom ? 1 : 0;
	if (ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		fail(r, "QP to RTS: %s", strerror(errno));
}

static void side_destroy(struct side *s)
{
	if (s->qp && ibv_destroy_qp(s->qp))
		info("warning: ibv_destroy_qp: %s", strerror(errno));
	if (s->scq && s->events)
		ibv_ack_cq_events(s->scq, s->events);
	if (s->scq && ibv_destroy_cq(s->scq))
		info("warning: ibv_destroy_cq: %s", strerror(errno));
	if (s->rcq && ibv_destroy_cq(s->rcq))
		info("warning: ibv_destroy_cq: %s", strerror(errno));
	if (s->chan && ibv_destroy_comp_channel(s->chan))
		info("warning: ibv_destroy_comp_channel: %s", strerror(errno));
}

/* One completion within secs (and the deadline): 1, 0 on timeout, -1 error. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now() + secs;

	if (end > g.deadline)
		end = g.deadline;
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n < 0 ? -1 : 1;
		if (now() >= end)
			return 0;
		usleep(1000);
	}
}

/* Wait for one CQ event of s's channel (armed before). */
static bool wait_event(struct side *s, double secs)
{
	struct pollfd pfd = { .fd = s->chan->fd, .events = POLLIN };
	double end = now() + secs;
	struct ibv_cq *cq;
	void *cq_ctx;

	if (end > g.deadline)
		end = g.deadline;
	for (;;) {
		int ms = (end - now()) * 1000;

		if (!ibv_get_cq_event(s->chan, &cq, &cq_ctx)) {
			s->events++;
			return true;
		}
		if (ms <= 0)
			return false;
		poll(&pfd, 1, ms);
	}
}

/* ------------------------------------------------------------------------ */
/* Client */

static uint8_t *land(void)
{
	return g.buf + LAND_OFF + LAND_GUARD;
}

/* Post one request of case c. */
static int post_op(struct side *s, const struct acase *c, uint64_t wr_id,
		   uint64_t va, uint32_t rkey, uint8_t *local, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local,
		.length = len,
		.lkey = g.mr[0]->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	switch (c->op) {
	case OP_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = va;
		wr.wr.rdma.rkey = rkey;
		break;
	case OP_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = va;
		wr.wr.rdma.rkey = rkey;
		break;
	case OP_FADD:
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = va;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 0x0101010101010101ULL;
		break;
	default:
		wr.opcode = IBV_WR_SEND;
		break;
	}
	return ibv_post_send(s->qp, &wr, &bad);
}

/* The landing zone (READ/atomic results) must still be poison. */
static void check_land(struct res *r)
{
	uint8_t *p = g.buf + LAND_OFF;
	size_t len = 2 * LAND_GUARD + MR_LEN, bad = 0, first = 0;

	for (size_t i = 0; i < len; i++)
		if (p[i] != poison((uintptr_t)(p + i)) && !bad++)
			first = i;
	if (bad)
		fail(r, "%zu bytes of the local landing buffer changed (first at offset %ld)",
		     bad, (long)first - LAND_GUARD);
}

static void client_resize(struct side *s, const struct acase *c, struct res *r)
{
	struct ibv_wc wc;
	int n;

	/*
	 * One send at a time, each after arming the CQ: its event proves its
	 * completion is in the CQ, which is not polled before the resize.
	 */
	for (unsigned int k = 0; k < RESIZE_WRS && !r->failed; k++) {
		uint8_t *src = g.buf + k * RESIZE_SLOT;

		fill_payload(src, g.taddr[T_RECV] + k * RESIZE_SLOT, c->len);
		if (ibv_req_notify_cq(s->scq, 0)) {
			fail(r, "ibv_req_notify_cq failed");
			break;
		}
		n = post_op(s, c, WR_ID_BASE + k, 0, 0, src, c->len);
		if (n) {
			fail(r, "ibv_post_send %u: %s", k, strerror(n));
			break;
		}
		if (!wait_event(s, CASE_SECS))
			fail(r, "no CQ event for send %u within %.0f s", k, CASE_SECS);
	}
	if (r->failed)
		return;
	if (ibv_resize_cq(s->scq, RESIZE_TO)) {
		fail(r, "ibv_resize_cq(%d -> %d): %s", s->scq->cqe, RESIZE_TO,
		     strerror(errno));
		return;
	}
	if (s->scq->cqe < RESIZE_TO) {
		fail(r, "resized CQ has %d entries, asked for %d", s->scq->cqe, RESIZE_TO);
		return;
	}
	for (unsigned int k = 0; k < RESIZE_WRS; k++) {
		n = wait_wc(s->scq, &wc, CASE_SECS);
		if (n <= 0) {
			fail(r, "send completion %u of %u after the resize: %s", k,
			     RESIZE_WRS, n ? "poll error" : "none");
			return;
		}
		if (wc.wr_id != WR_ID_BASE + k || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_SEND || wc.qp_num != s->qp->qp_num) {
			fail(r, "send completion %u after the resize: wr_id %#" PRIx64
			     " (want %#" PRIx64 "), %s, opcode %d, qp %#x",
			     k, wc.wr_id, WR_ID_BASE + k, status_str(wc.status),
			     wc.opcode, wc.qp_num);
			return;
		}
	}
	usleep(100000);
	if (ibv_poll_cq(s->scq, 1, &wc))
		fail(r, "a 9th completion after the resize: wr_id %#" PRIx64 ", %s",
		     wc.wr_id, status_str(wc.status));
	else
		info("%s: %u send completions in order after resizing to %d entries",
		     c->name, RESIZE_WRS, s->scq->cqe);
}

static void client_case(unsigned int idx, struct res *r)
{
	const struct acase *c = &cases[idx];
	struct side s = { 0 };
	uint64_t w[NW] = { 0 };
	struct ibv_wc wc;
	struct msg m;
	uint64_t va = g.taddr[c->tgt] + c->off;
	uint32_t rkey = g.trkey[c->tgt] ^ c->rkey_xor;
	uint8_t *local = c->op == OP_READ || c->op == OP_FADD ? land() : g.buf;
	char ev[TEXT];
	int n;

	side_create(&s, c, idx, r);
	w[0] = s.qp ? s.qp->qp_num : 0;
	w[1] = s.psn;
	w[2] = r->failed;
	send_msg(M_QP, idx, w, r->why);
	recv_msg(M_QP, idx, &m);
	if (m.w[2])
		fail(r, "no server QP");
	if (!r->failed)
		side_connect(&s, c, m.w[0], m.w[1], r);
	if (c->op == OP_FADD && g.dev_attr.atomic_cap == IBV_ATOMIC_NONE)
		fail(r, "%s has no atomics", g.dev);

	fill_poison(g.buf + LAND_OFF, 2 * LAND_GUARD + MR_LEN);
	if (r->failed) {
		/* nothing to run */
	} else if (c->op == OP_RESIZE) {
		client_resize(&s, c, r);
	} else {
		if (c->op == OP_WRITE)
			fill_payload(g.buf, va, c->len);
		else if (c->op == OP_SEND)
			fill_payload(g.buf, g.taddr[T_RECV], c->len);
		n = post_op(&s, c, WR_ID_BASE + idx, va, rkey, local, c->len);
		if (n)
			fail(r, "ibv_post_send: %s", strerror(n));
		else
			n = wait_wc(s.scq, &wc, CASE_SECS);
		if (r->failed) {
			/* not posted */
		} else if (n <= 0) {
			fail(r, "no completion within %.0f s (%s), QP %s", CASE_SECS,
			     n ? "poll error" : "timeout", qp_state_str(s.qp));
		} else {
			info("%s: completion %s, wr_id %#" PRIx64 ", QP %s", c->name,
			     status_str(wc.status), wc.wr_id, qp_state_str(s.qp));
			if (wc.status != (enum ibv_wc_status)c->want)
				fail(r, "completion %s, expected %s", status_str(wc.status),
				     status_str(c->want));
			else if (wc.wr_id != WR_ID_BASE + idx || wc.qp_num != s.qp->qp_num)
				fail(r, "completion wr_id %#" PRIx64 " qp %#x, expected %#" PRIx64
				     " qp %#x", wc.wr_id, wc.qp_num, WR_ID_BASE + idx,
				     s.qp->qp_num);
			else if (!c->lands)
				check_land(r);
		}
	}

	memset(w, 0, sizeof(w));
	w[0] = r->failed;
	send_msg(M_DONE, idx, w, r->why);
	async_events(ev, sizeof(ev));
	if (ev[0])
		info("%s: async events: %s", c->name, ev);
	side_destroy(&s);
}

/* ------------------------------------------------------------------------ */
/* Server */

static void post_recv(struct side *s, uint64_t wr_id, uint8_t *p, uint32_t len,
		      struct res *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p,
		.length = len,
		.lkey = g.mr[T_RECV]->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int err = ibv_post_recv(s->qp, &wr, &bad);

	if (err)
		fail(r, "ibv_post_recv: %s", strerror(err));
}

/* Name a byte of the allocation: "REGION+OFF" relative to the region start. */
static void where(char *buf, size_t len, size_t i)
{
	unsigned int t = i / STRIDE;

	snprintf(buf, len, "%s%+ld", target_name[t],
		 (long)(i - t * STRIDE) - GUARD);
}

/* Every byte of the allocation must be what the image says. */
static void check_memory(const struct acase *c, struct res *r)
{
	size_t bad = 0, first = 0, last = 0;
	char a[64], b[64];

	for (size_t i = 0; i < g.len; i++) {
		if (g.buf[i] == g.img[i])
			continue;
		if (!bad++)
			first = i;
		last = i;
	}
	if (!bad)
		return;
	where(a, sizeof(a), first);
	where(b, sizeof(b), last);
	fail(r, "%zu bytes differ from the expected image, first at %s (got %#04x want %#04x), last at %s",
	     bad, a, g.buf[first], g.img[first], b);
	info("%s: memory: %zu bytes changed, %s .. %s", c->name, bad, a, b);
	/* Take what is there as the new image: later cases report only their own. */
	memcpy(g.img, g.buf, g.len);
}

static void server_resize(struct side *s, const struct acase *c, struct res *r)
{
	uint8_t *base = g.buf + T_RECV * STRIDE + GUARD;
	struct ibv_wc wc;
	int n;

	if (ibv_resize_cq(s->rcq, RESIZE_TO)) {
		fail(r, "ibv_resize_cq(%d -> %d): %s", s->rcq->cqe, RESIZE_TO,
		     strerror(errno));
		return;
	}
	if (s->rcq->cqe < RESIZE_TO) {
		fail(r, "resized CQ has %d entries, asked for %d", s->rcq->cqe, RESIZE_TO);
		return;
	}
	for (unsigned int k = 0; k < RESIZE_WRS; k++) {
		n = wait_wc(s->rcq, &wc, CASE_SECS);
		if (n <= 0) {
			fail(r, "receive completion %u of %u after the resize: %s", k,
			     RESIZE_WRS, n ? "poll error" : "none");
			return;
		}
		if (wc.wr_id != WR_ID_BASE + k || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_RECV || wc.byte_len != c->len ||
		    wc.qp_num != s->qp->qp_num) {
			fail(r, "receive completion %u after the resize: wr_id %#" PRIx64
			     " (want %#" PRIx64 "), %s, opcode %d, byte_len %u, qp %#x",
			     k, wc.wr_id, WR_ID_BASE + k, status_str(wc.status),
			     wc.opcode, wc.byte_len, wc.qp_num);
			return;
		}
	}
	if (ibv_poll_cq(s->rcq, 1, &wc))
		fail(r, "a 9th receive completion after the resize: wr_id %#" PRIx64
		     ", %s", wc.wr_id, status_str(wc.status));
	else
		info("%s: %u receive completions in order after resizing to %d entries",
		     c->name, RESIZE_WRS, s->rcq->cqe);
	for (unsigned int k = 0; k < RESIZE_WRS; k++) {
		uint8_t *p = base + k * RESIZE_SLOT;

		fill_payload(g.img + (p - g.buf), (uintptr_t)p, c->len);
	}
}

static void server_case(unsigned int idx, struct res *r, struct res *peer)
{
	const struct acase *c = &cases[idx];
	uint8_t *recv_buf = g.buf + T_RECV * STRIDE + GUARD;
	struct side s = { 0 };
	uint64_t w[NW] = { 0 };
	struct ibv_wc wc;
	struct msg m;
	char ev[TEXT], recv_seen[64] = "none";
	int n;

	side_create(&s, c, idx, r);
	recv_msg(M_QP, idx, &m);
	if (m.w[2])
		fail(r, "no client QP");
	if (!r->failed)
		side_connect(&s, c, m.w[0], m.w[1], r);
	if (!r->failed && c->recv_len)
		post_recv(&s, WR_ID_BASE + idx, recv_buf, c->recv_len, r);
	for (unsigned int k = 0; !r->failed && c->op == OP_RESIZE && k < RESIZE_WRS; k++)
		post_recv(&s, WR_ID_BASE + k, recv_buf + k * RESIZE_SLOT, RESIZE_SLOT, r);
	/* The QP is ready (RTR, receives posted) before the client learns its number. */
	w[0] = s.qp ? s.qp->qp_num : 0;
	w[1] = s.psn;
	w[2] = r->failed;
	send_msg(M_QP, idx, w, r->why);

	recv_msg(M_DONE, idx, &m);
	peer->failed = m.w[0];
	snprintf(peer->why, sizeof(peer->why), "%s", m.text);
	if (!r->failed) {
		if (c->op == OP_RESIZE) {
			server_resize(&s, c, r);
		} else if (c->want_recv >= 0) {
			n = wait_wc(s.rcq, &wc, CASE_SECS);
			if (n <= 0) {
				fail(r, "no receive completion within %.0f s", CASE_SECS);
			} else {
				snprintf(recv_seen, sizeof(recv_seen), "%s",
					 status_str(wc.status));
				if (wc.status != (enum ibv_wc_status)c->want_recv)
					fail(r, "receive completion %s, expected %s",
					     status_str(wc.status), status_str(c->want_recv));
				else if (wc.wr_id != WR_ID_BASE + idx)
					fail(r, "receive completion wr_id %#" PRIx64 ", expected %#"
					     PRIx64, wc.wr_id, WR_ID_BASE + idx);
			}
		}
		usleep(SETTLE_US);	/* let stray packets land, if any */
		if (c->op != OP_RESIZE && ibv_poll_cq(s.rcq, 1, &wc) > 0)
			fail(r, "unexpected receive completion: wr_id %#" PRIx64 ", %s",
			     wc.wr_id, status_str(wc.status));
		if (ibv_poll_cq(s.scq, 1, &wc) > 0)
			fail(r, "unexpected send completion: wr_id %#" PRIx64 ", %s",
			     wc.wr_id, status_str(wc.status));
		if (c->lands && c->op == OP_WRITE)
			fill_payload(g.img + c->tgt * STRIDE + GUARD + c->off,
				     (uintptr_t)g.mr[c->tgt]->addr + c->off, c->len);
	}
	check_memory(c, r);
	async_events(ev, sizeof(ev));
	info("%s: server QP %s, receive completion %s, async events: %s", c->name,
	     s.qp ? qp_state_str(s.qp) : "none", recv_seen, ev[0] ? ev : "none");
	memset(w, 0, sizeof(w));
	w[0] = r->failed;
	send_msg(M_VERDICT, idx, w, r->why);
	side_destroy(&s);
}

/* ------------------------------------------------------------------------ */

/* Run one case; both sides print the verdict of both. */
static void run_case(unsigned int idx)
{
	const struct acase *c = &cases[idx];
	struct res mine = { 0 }, peer = { 0 };
	const struct res *cl = g.client ? &mine : &peer;
	const struct res *sv = g.client ? &peer : &mine;
	struct msg m;
	double t = now();

	cur_case = c->name;
	if (g.client) {
		client_case(idx, &mine);
		recv_msg(M_VERDICT, idx, &m);
		peer.failed = m.w[0];
		snprintf(peer.why, sizeof(peer.why), "%s", m.text);
	} else {
		server_case(idx, &mine, &peer);
	}
	info("%s: %.2f s", c->name, now() - t);
	if (!cl->failed && !sv->failed) {
		g.passed++;
		printf("ok %s\n", c->name);
	} else {
		g.failed++;
		printf("FAIL %s:%s%s%s%s%s\n", c->name,
		       cl->failed ? " client: " : "", cl->failed ? cl->why : "",
		       cl->failed && sv->failed ? ";" : "",
		       sv->failed ? " server: " : "", sv->failed ? sv->why : "");
	}
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: mroce-access -d DEV [-g GID_INDEX] [-p TCP_PORT] [-t TIMEOUT]           (server)\n"
"       mroce-access -d DEV [-g GID_INDEX] [-p TCP_PORT] [-t TIMEOUT] SERVER    (client)\n"
"\n"
"Checks that RC remote access errors are enforced end to end: bad rkeys,\n"
"out-of-range addresses, MR and QP access flags, protection domains, too\n"
"long SENDs, RNR, plus a valid WRITE and a CQ resize.  One fresh QP pair per\n"
"case; the server checks that none of its memory changed.\n"
"\n"
"  -d DEV          RDMA device (e.g. rxe0, mroce0)\n"
"  -g GID_INDEX    GID to use (default: the IPv4-mapped RoCE v2 GID)\n"
"  -p TCP_PORT     TCP port of the setup connection (default 18525)\n"
"  -t TIMEOUT      give up after this many seconds (default 120)\n"
"\n"
"Prints 'ok NAME' or 'FAIL NAME: reason' per case, then\n"
"'access: N passed, N failed'.  Exit: 0 all passed, 1 a case failed,\n"
"2 usage or setup error, 3 timeout.\n");
}

int main(int argc, char **argv)
{
	int opt;
	char *end;
	unsigned long x;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g.port = "18525";
	g.timeout = 120;
	g.role = "setup";
	while ((opt = getopt(argc, argv, "d:g:p:t:h")) != -1) {
		switch (opt) {
		case 'd':
			g.dev = optarg;
			break;
		case 'g':
		case 't':
			errno = 0;
			x = strtoul(optarg, &end, 0);
			if (errno || *end || end == optarg || *optarg == '-' ||
			    x > (opt == 't' ? 86400 : 65535) || (opt == 't' && !x)) {
				fprintf(stderr, "mroce-access: bad value '%s' for -%c\n",
					optarg, opt);
				return EXIT_SETUP;
			}
			if (opt == 't')
				g.timeout = x;
			else
				g.gid_opt = x;
			break;
		case 'p':
			g.port = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_SETUP;
		}
	}
	if (optind < argc)
		g.server = argv[optind++];
	if (optind < argc || !g.dev) {
		usage(stderr);
		return EXIT_SETUP;
	}
	g.client = g.server != NULL;
	g.role = g.client ? "client" : "server";
	g.start = now();
	g.deadline = g.start + g.timeout;
	signal(SIGALRM, on_alarm);
	alarm(g.timeout + 10);
	signal(SIGPIPE, SIG_IGN);

	open_device();
	setup_memory();
	if (g.client)
		tcp_connect();
	else
		tcp_accept();
	hello();
	info("%s, MTU %d, %zu cases", g.dev, 128 << g.mtu, NR_CASES);

	for (unsigned int i = 0; i < NR_CASES; i++)
		run_case(i);
	cur_case = "teardown";

	info("%.1f s in all", now() - g.start);
	printf("access: %u passed, %u failed\n", g.passed, g.failed);
	fflush(stdout);
	return g.failed ? EXIT_FAIL : 0;
}

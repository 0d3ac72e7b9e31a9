// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce-events: verbs features beyond the plain RC data path, checked on
 * one device with its queue pairs connected to each other (loopback):
 *
 *   srq        a shared receive queue feeding an RC QP: payloads land in
 *              the receives it hands out, and IBV_EVENT_SRQ_LIMIT_REACHED
 *              comes once, only when fewer receives than the armed limit
 *              are left
 *   qp-error   a WRITE with a wrong rkey: the requester's completion says
 *              REM_ACCESS_ERR and the responder's QP raises
 *              IBV_EVENT_QP_ACCESS_ERR
 *   cq-error   a CQ that overflows raises IBV_EVENT_CQ_ERR
 *   nccl       what NCCL's verbs transport does: several QPs sharing one
 *              CQ, RDMA WRITE with immediate into zero-length receives,
 *              memory registered with IBV_ACCESS_RELAXED_ORDERING,
 *              ibv_query_ece() answered or refused cleanly; every byte
 *              written is checked
 *   mw         a type 2 memory window bound by a BIND_MW request opens part
 *              of a region without remote access: WRITEs inside it land,
 *              a QP it is not bound to is refused, and after LOCAL_INV the
 *              window's rkey is refused too
 *   limits     what ibv_query_device advertises holds: one more CQE, work
 *              request, SGE or SRQ entry than the limit is refused with
 *              EINVAL and the limit itself is granted; CQs are refused
 *              with ENOMEM once max_cq exist
 *   port       (with -n NETDEV) the netdev going down and up raises
 *              IBV_EVENT_PORT_ERR then IBV_EVENT_PORT_ACTIVE
 *
 * usage: mroce-events -d DEV [-n NETDEV]
 * Prints "ok NAME" or "FAIL NAME: why" per check; exit 0 if all passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "oob.h"

#define BUF_SIZE	(1 << 20)
#define NCCL_QPS	4
#define NCCL_WRITES	4
#define NCCL_LEN	65536

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_gid_entry gid;
	enum ibv_mtu mtu;
	int failed;
} g;

static void report(const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!fmt) {
		printf("ok %s\n", name);
		return;
	}
	g.failed++;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The next async event, or false when none comes within secs. */
static bool next_event(double secs, struct ibv_async_event *ev)
{
	double deadline = now() + secs;
	struct pollfd pfd = { .fd = g.ctx->async_fd, .events = POLLIN };

	for (;;) {
		int left = (int)((deadline - now()) * 1000);

		if (left < 0)
			left = 0;
		if (poll(&pfd, 1, left) <= 0)
			return false;
		if (!ibv_get_async_event(g.ctx, ev))
			return true;
		if (errno != EAGAIN)
			return false;
	}
}

/* Wait for an event of @type; other events are acknowledged and skipped. */
static bool wait_event(enum ibv_event_type type, double secs,
		       struct ibv_async_event *out)
{
	double deadline = now() + secs;
	struct ibv_async_event ev;

	while (next_event(deadline - now(), &ev)) {
		if (ev.event_type == type) {
			*out = ev;
			ibv_ack_async_event(&ev);
			return true;
		}
		ibv_ack_async_event(&ev);
	}
	return false;
}

/* Poll @n completions off @cq within secs; false on timeout. */
static bool poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, double secs)
{
	double deadline = now() + secs;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return false;
		got += r;
		if (!r && now() > deadline)
			return false;
	}
	return true;
}

static struct ibv_qp *make_qp(struct ibv_cq *scq, struct ibv_cq *rcq,
			      struct ibv_srq *srq, uint32_t depth)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = srq ? 0 : depth,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_RELAXED_ORDERING,
	};
	struct ibv_qp *qp = ibv_create_qp(g.pd, &init);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* Move an INIT QP to RTS towards @dest_qpn on this device's own GID. */
static int to_rts(struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = g.mtu,
		.dest_qp_num = dest_qpn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.grh = {
				.dgid = g.gid.gid,
				.sgid_index = g.gid.gid_index,
				.hop_limit = 64,
			},
			.port_num = 1,
		},
	};

	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return errno;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		return errno;
	return 0;
}

static int connect_pair(struct ibv_qp *a, struct ibv_qp *b)
{
	int err = to_rts(a, b->qp_num);

	return err ? err : to_rts(b, a->qp_num);
}

/* What a test creates; release() destroys whatever is set, QPs first. */
struct res {
	struct ibv_qp *qp[2 * NCCL_QPS];
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_cq *cq[2];
	void *buf;
};

static void release(struct res *r)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r->qp); i++)
		if (r->qp[i])
			ibv_destroy_qp(r->qp[i]);
	if (r->srq)
		ibv_destroy_srq(r->srq);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	for (i = 0; i < ARRAY_SIZE(r->cq); i++)
		if (r->cq[i])
			ibv_destroy_cq(r->cq[i]);
	free(r->buf);
}

static uint8_t pattern(uint32_t msg, uint32_t i)
{
	return (uint8_t)(msg * 131 + i * 7 + (i >> 8));
}

static int post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_mr *mr,
		     void *addr, uint32_t len, uint64_t wr_id, uint64_t raddr,
		     uint32_t rkey, uint32_t imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(imm),
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Send @n messages of 200 bytes on @a; check what the SRQ's receives got. */
static const char *srq_exchange(struct ibv_qp *a, struct ibv_cq *cq,
				struct ibv_mr *mr, uint8_t *buf, uint32_t first,
				uint32_t n, uint32_t *seen)
{
	static char why[128];
	struct ibv_wc wc[32];
	uint32_t m, i, r = 0;

	for (m = first; m < first + n; m++) {
		uint8_t *src = buf + BUF_SIZE / 2 + m * 256;

		for (i = 0; i < 200; i++)
			src[i] = pattern(m, i);
		if (post_send(a, IBV_WR_SEND, mr, src, 200, m, 0, 0, 0))
			return "ibv_post_send failed";
	}
	if (!poll_n(cq, wc, 2 * n, 10))
		return "completions missing";
	for (i = 0; i < 2 * n; i++) {
		uint8_t *dst;
		uint32_t slot;

		if (wc[i].status != IBV_WC_SUCCESS) {
			snprintf(why, sizeof(why), "completion status %s",
				 ibv_wc_status_str(wc[i].status));
			return why;
		}
		if (wc[i].opcode != IBV_WC_RECV)
			continue;
		slot = (uint32_t)(wc[i].wr_id - 1000);
		if (slot >= 16 || seen[slot]++ || wc[i].byte_len != 200)
			return "a receive completed twice, or with a wrong wr_id or length";
		dst = buf + slot * 256;
		/* Which message it got is in its bytes: find it and check all. */
		for (m = first; m < first + n; m++)
			if (dst[0] == pattern(m, 0) && dst[1] == pattern(m, 1))
				break;
		for (r = 0; m < first + n && r < 200; r++)
			if (dst[r] != pattern(m, r))
				break;
		if (r != 200)
			return "payload in the receive buffer is wrong";
	}
	return NULL;
}

static void test_srq(void)
{
	const char *name = "srq";
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 32, .max_sge = 1 } };
	struct ibv_srq_attr sattr = { .srq_limit = 8 };
	struct ibv_async_event ev;
	struct res r = { 0 };
	struct ibv_qp *a, *b;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint32_t seen[16] = { 0 };
	const char *why;
	uint8_t *buf;
	uint32_t i;

	buf = r.buf = calloc(1, BUF_SIZE);
	cq = r.cq[0] = ibv_create_cq(g.ctx, 256, NULL, NULL, 0);
	srq = r.srq = ibv_create_srq(g.pd, &sinit);
	mr = r.mr = buf ? ibv_reg_mr(g.pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!cq || !srq || !mr) {
		report(name, "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 16; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(buf + i * 256), .length = 256, .lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = 1000 + i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_srq_recv(srq, &wr, &bad)) {
			report(name, "ibv_post_srq_recv: %s", strerror(errno));
			goto out;
		}
	}
	{
		/* The limits of the SRQ hold: more SGEs than granted fail. */
		struct ibv_sge sges[2] = {
			{ .addr = (uintptr_t)buf, .length = 1, .lkey = mr->lkey },
			{ .addr = (uintptr_t)buf, .length = 1, .lkey = mr->lkey },
		};
		struct ibv_recv_wr wr = { .sg_list = sges, .num_sge = 2 }, *bad;

		if (ibv_post_srq_recv(srq, &wr, &bad) != EINVAL || bad != &wr) {
			report(name, "a receive with too many SGEs was not refused with EINVAL");
			goto out;
		}
	}
	if (ibv_modify_srq(srq, &sattr, IBV_SRQ_LIMIT)) {
		report(name, "ibv_modify_srq(limit 8): %s", strerror(errno));
		goto out;
	}
	a = r.qp[0] = make_qp(cq, cq, NULL, 64);
	b = r.qp[1] = make_qp(cq, cq, srq, 64);
	if (!a || !b || connect_pair(a, b)) {
		report(name, "QP setup: %s", strerror(errno));
		goto out;
	}
	/* 16 posted, limit 8: after 7 messages 9 are left, no event. */
	why = srq_exchange(a, cq, mr, buf, 0, 7, seen);
	if (why) {
		report(name, "first 7 messages: %s", why);
		goto out;
	}
	if (wait_event(IBV_EVENT_SRQ_LIMIT_REACHED, 0.5, &ev)) {
		report(name, "limit event with 9 receives left (limit 8)");
		goto out;
	}
	why = srq_exchange(a, cq, mr, buf, 7, 2, seen);
	if (why) {
		report(name, "messages 8-9: %s", why);
		goto out;
	}
	if (!wait_event(IBV_EVENT_SRQ_LIMIT_REACHED, 5, &ev) ||
	    ev.element.srq != srq) {
		report(name, "no IBV_EVENT_SRQ_LIMIT_REACHED for this SRQ with 7 left");
		goto out;
	}
	if (ibv_query_srq(srq, &sattr) || sattr.srq_limit != 0 || sattr.max_wr < 16) {
		report(name, "after the event the limit is %u (want 0, disarmed)",
		       sattr.srq_limit);
		goto out;
	}
	report(name, NULL);
out:
	release(&r);
}

static void test_qp_error(void)
{
	const char *name = "qp-error";
	struct ibv_async_event ev;
	struct res r = { 0 };
	struct ibv_qp *a, *b;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	static uint8_t buf[4096];

	cq = r.cq[0] = ibv_create_cq(g.ctx, 64, NULL, NULL, 0);
	mr = r.mr = ibv_reg_mr(g.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE);
	if (!cq || !mr) {
		report(name, "setup: %s", strerror(errno));
		goto out;
	}
	a = r.qp[0] = make_qp(cq, cq, NULL, 16);
	b = r.qp[1] = make_qp(cq, cq, NULL, 16);
	if (!a || !b || connect_pair(a, b)) {
		report(name, "QP setup: %s", strerror(errno));
		goto out;
	}
	if (post_send(a, IBV_WR_RDMA_WRITE, mr, buf, 64, 1, (uintptr_t)buf,
		      mr->rkey ^ 0x5a5a00, 0)) {
		report(name, "ibv_post_send: %s", strerror(errno));
		goto out;
	}
	if (!poll_n(cq, &wc, 1, 10) || wc.status != IBV_WC_REM_ACCESS_ERR) {
		report(name, "the WRITE with a wrong rkey did not complete with REM_ACCESS_ERR");
		goto out;
	}
	if (!wait_event(IBV_EVENT_QP_ACCESS_ERR, 5, &ev) || ev.element.qp != b) {
		report(name, "no IBV_EVENT_QP_ACCESS_ERR on the responder's QP");
		goto out;
	}
	report(name, NULL);
out:
	release(&r);
}

static void test_cq_error(void)
{
	const char *name = "cq-error";
	struct ibv_async_event ev;
	struct res r = { 0 };
	struct ibv_qp *a, *b;
	struct ibv_cq *small, *cq;
	struct ibv_mr *mr;
	static uint8_t buf[4096];
	int i, n;

	small = r.cq[0] = ibv_create_cq(g.ctx, 1, NULL, NULL, 0);
	cq = r.cq[1] = ibv_create_cq(g.ctx, 64, NULL, NULL, 0);
	mr = r.mr = ibv_reg_mr(g.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE);
	if (!small || !cq || !mr) {
		report(name, "setup: %s", strerror(errno));
		goto out;
	}
	a = r.qp[0] = make_qp(small, cq, NULL, 64);
	b = r.qp[1] = make_qp(cq, cq, NULL, 64);
	if (!a || !b || connect_pair(a, b)) {
		report(name, "QP setup: %s", strerror(errno));
		goto out;
	}
	/* More signaled completions than the CQ holds, never polled. */
	n = small->cqe + 4;
	for (i = 0; i < n; i++)
		if (post_send(a, IBV_WR_RDMA_WRITE, mr, buf, 8, i, (uintptr_t)buf,
			      mr->rkey, 0)) {
			report(name, "ibv_post_send: %s", strerror(errno));
			goto out;
		}
	if (!wait_event(IBV_EVENT_CQ_ERR, 10, &ev) || ev.element.cq != small) {
		report(name, "no IBV_EVENT_CQ_ERR after %d completions on a CQ of %d",
		       n, small->cqe);
		goto out;
	}
	report(name, NULL);
out:
	release(&r);
}

static void test_nccl(void)
{
	const char *name = "nccl";
	size_t size = 2 * NCCL_QPS * NCCL_WRITES * (size_t)NCCL_LEN;
	struct ibv_wc wc[2 * NCCL_QPS * NCCL_WRITES];
	struct ibv_qp **tx, **rx;
	struct res r = { 0 };
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *src, *dst;
	unsigned int got[NCCL_QPS] = { 0 };
	struct ibv_ece ece;
	int q, k, i, err;

	/* Senders in r.qp[0..], their peers after them. */
	tx = r.qp;
	rx = r.qp + NCCL_QPS;
	src = r.buf = malloc(size);
	cq = r.cq[0] = ibv_create_cq(g.ctx, 2 * NCCL_QPS * NCCL_WRITES, NULL, NULL, 0);
	mr = r.mr = src ? ibv_reg_mr(g.pd, src, size, IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_RELAXED_ORDERING) : NULL;
	if (!cq || !mr) {
		report(name, "setup (relaxed-ordering MR): %s", strerror(errno));
		goto out;
	}
	dst = src + size / 2;
	memset(dst, 0, size / 2);
	for (i = 0; i < (int)(size / 2); i++)
		src[i] = pattern((uint32_t)(i / NCCL_LEN), (uint32_t)i);

	for (q = 0; q < NCCL_QPS; q++) {
		tx[q] = make_qp(cq, cq, NULL, 2 * NCCL_WRITES);
		rx[q] = make_qp(cq, cq, NULL, 2 * NCCL_WRITES);
		if (!tx[q] || !rx[q] || connect_pair(tx[q], rx[q])) {
			report(name, "QP setup: %s", strerror(errno));
			goto out;
		}
		/* Zero-length receives: only the immediate matters. */
		for (k = 0; k < NCCL_WRITES; k++) {
			struct ibv_recv_wr wr = { .wr_id = 100 + q }, *bad;

			if (ibv_post_recv(rx[q], &wr, &bad)) {
				report(name, "zero-length ibv_post_recv: %s", strerror(errno));
				goto out;
			}
		}
	}
	/* ECE is optional: supported or refused, never anything else. */
	err = ibv_query_ece(tx[0], &ece);
	if (err && err != EOPNOTSUPP) {
		report(name, "ibv_query_ece: %s", strerror(err));
		goto out;
	}
	for (k = 0; k < NCCL_WRITES; k++)
		for (q = 0; q < NCCL_QPS; q++) {
			size_t off = (size_t)(q * NCCL_WRITES + k) * NCCL_LEN;

			if (post_send(tx[q], IBV_WR_RDMA_WRITE_WITH_IMM, mr, src + off,
				      NCCL_LEN, q, (uintptr_t)(dst + off), mr->rkey,
				      (uint32_t)(q << 8 | k))) {
				report(name, "ibv_post_send: %s", strerror(errno));
				goto out;
			}
		}
	if (!poll_n(cq, wc, 2 * NCCL_QPS * NCCL_WRITES, 30)) {
		report(name, "completions missing on the shared CQ");
		goto out;
	}
	for (i = 0; i < 2 * NCCL_QPS * NCCL_WRITES; i++) {
		uint32_t imm = ntohl(wc[i].imm_data);

		if (wc[i].status != IBV_WC_SUCCESS) {
			report(name, "completion status %s", ibv_wc_status_str(wc[i].status));
			goto out;
		}
		if (wc[i].opcode == IBV_WC_RDMA_WRITE)
			continue;
		q = (int)(wc[i].wr_id - 100);
		if (wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    !(wc[i].wc_flags & IBV_WC_WITH_IMM) || q < 0 || q >= NCCL_QPS ||
		    wc[i].qp_num != rx[q]->qp_num || (int)(imm >> 8) != q ||
		    (imm & 0xff) != got[q]++) {
			report(name, "receive completion %d: opcode %d flags %#x qp %u imm %#x",
			       i, wc[i].opcode, wc[i].wc_flags, wc[i].qp_num, imm);
			goto out;
		}
	}
	if (memcmp(src, dst, size / 2)) {
		report(name, "written bytes differ from the source");
		goto out;
	}
	report(name, NULL);
out:
	release(&r);
}

/* One signaled WRITE of @len bytes; its completion status. */
static int write_status(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *mr,
			void *src, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_wc wc;

	if (post_send(qp, IBV_WR_RDMA_WRITE, mr, src, len, 7, raddr, rkey, 0))
		return -1;
	if (!poll_n(cq, &wc, 1, 10))
		return -2;
	return wc.status;
}

static void test_mw(void)
{
	const char *name = "mw";
	struct res r = { 0 };
	struct ibv_qp *a, *b, *c, *d;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_mw *mw = NULL;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *buf, *win;
	uint32_t rkey, i;
	int st;

	buf = r.buf = calloc(1, 65536);
	cq = r.cq[0] = ibv_create_cq(g.ctx, 64, NULL, NULL, 0);
	/* Local write and binding only: no remote access of its own. */
	mr = r.mr = buf ? ibv_reg_mr(g.pd, buf, 65536, IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_MW_BIND) : NULL;
	mw = mr ? ibv_alloc_mw(g.pd, IBV_MW_TYPE_2) : NULL;
	if (!cq || !mr || !mw) {
		report(name, "setup: %s", strerror(errno));
		goto out;
	}
	a = r.qp[0] = make_qp(cq, cq, NULL, 16);
	b = r.qp[1] = make_qp(cq, cq, NULL, 16);
	c = r.qp[2] = make_qp(cq, cq, NULL, 16);
	d = r.qp[3] = make_qp(cq, cq, NULL, 16);
	if (!a || !b || !c || !d || connect_pair(a, b) || connect_pair(c, d)) {
		report(name, "QP setup: %s", strerror(errno));
		goto out;
	}
	win = buf + 8192;
	rkey = ibv_inc_rkey(mw->rkey);
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = mr, .addr = (uintptr_t)win, .length = 8192,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	if (ibv_post_send(b, &wr, &bad) || !poll_n(cq, &wc, 1, 10) ||
	    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_BIND_MW) {
		report(name, "BIND_MW did not complete successfully");
		goto out;
	}
	for (i = 0; i < 4096; i++)
		buf[i] = pattern(5, i);
	st = write_status(a, cq, mr, buf, 4096, (uintptr_t)win + 4096, rkey);
	if (st != IBV_WC_SUCCESS || memcmp(win + 4096, buf, 4096)) {
		report(name, "WRITE inside the window: status %d or bytes differ", st);
		goto out;
	}
	/* Bound to b: a WRITE arriving on d must be refused. */
	st = write_status(c, cq, mr, buf, 64, (uintptr_t)win, rkey);
	if (st != IBV_WC_REM_ACCESS_ERR) {
		report(name, "WRITE through a window bound to another QP: status %d", st);
		goto out;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	if (ibv_post_send(b, &wr, &bad) || !poll_n(cq, &wc, 1, 10) ||
	    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_LOCAL_INV) {
		report(name, "LOCAL_INV did not complete successfully");
		goto out;
	}
	memset(win, 0, 8192);
	st = write_status(a, cq, mr, buf, 64, (uintptr_t)win, rkey);
	if (st != IBV_WC_REM_ACCESS_ERR || win[0]) {
		report(name, "WRITE through an invalidated window: status %d", st);
		goto out;
	}
	report(name, NULL);
out:
	/* First: a window still bound keeps its region from deregistering. */
	if (mw)
		ibv_dealloc_mw(mw);
	release(&r);
}

enum cap_field { SEND_WR, RECV_WR, SEND_SGE, RECV_SGE, NCAPS };

static const char *const cap_name[NCAPS] = {
	"max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge",
};

/* Can an RC QP with one capability at @v (the others 1) be created? */
static bool qp_with(struct ibv_cq *cq, enum cap_field f, uint32_t v)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	switch (f) {
	case SEND_WR:
		init.cap.max_send_wr = v;
		break;
	case RECV_WR:
		init.cap.max_recv_wr = v;
		break;
	case SEND_SGE:
		init.cap.max_send_sge = v;
		break;
	default:
		init.cap.max_recv_sge = v;
		break;
	}
	qp = ibv_create_qp(g.pd, &init);
	if (qp)
		ibv_destroy_qp(qp);
	return qp;
}

static void test_limits(void)
{
	const char *name = "limits";
	struct ibv_device_attr a;
	struct ibv_srq_init_attr si = { .attr = { .max_sge = 1 } };
	struct ibv_cq **cqs = NULL, *cq = NULL;
	struct ibv_srq *srq;
	uint32_t max[NCAPS];
	int i, n = 0, err;

	if (ibv_query_device(g.ctx, &a)) {
		report(name, "ibv_query_device: %s", strerror(errno));
		return;
	}
	/* Sizes: the limit is granted, one more is refused. */
	cq = ibv_create_cq(g.ctx, a.max_cqe, NULL, NULL, 0);
	if (!cq || ibv_create_cq(g.ctx, a.max_cqe + 1, NULL, NULL, 0) || errno != EINVAL) {
		report(name, "CQ of max_cqe %d granted: %s; one more refused with EINVAL: %s",
		       a.max_cqe, cq ? "yes" : "no", strerror(errno));
		goto out;
	}
	max[SEND_WR] = max[RECV_WR] = a.max_qp_wr;
	max[SEND_SGE] = max[RECV_SGE] = a.max_sge;
	for (i = 0; i < NCAPS; i++) {
		if (!qp_with(cq, i, max[i])) {
			report(name, "QP with %s = %u (the limit) refused: %s",
			       cap_name[i], max[i], strerror(errno));
			goto out;
		}
		if (qp_with(cq, i, max[i] + 1) || errno != EINVAL) {
			report(name, "QP with %s = %u (limit + 1) not refused with EINVAL",
			       cap_name[i], max[i] + 1);
			goto out;
		}
	}
	si.attr.max_wr = a.max_srq_wr + 1;
	srq = ibv_create_srq(g.pd, &si);
	if (srq || errno != EINVAL) {
		report(name, "SRQ with max_srq_wr + 1 entries not refused with EINVAL");
		if (srq)
			ibv_destroy_srq(srq);
		goto out;
	}
	/* Counts: CQs up to max_cq exist at once, then ENOMEM. */
	cqs = calloc(a.max_cq + 1, sizeof(*cqs));
	if (!cqs) {
		report(name, "out of memory");
		goto out;
	}
	for (n = 0; n <= a.max_cq; n++) {
		cqs[n] = ibv_create_cq(g.ctx, 1, NULL, NULL, 0);
		if (!cqs[n])
			break;
	}
	err = errno;
	/*
	 * With the max_cqe one, n + 1 of ours; kernel consumers (the MAD
	 * layer's CQ of the GSI QP) hold a few of the device's CQs too.
	 */
	if (n + 1 > a.max_cq || n + 1 < a.max_cq - 8 || err != ENOMEM) {
		report(name, "%d CQs created (max_cq %d), then %s",
		       n + 1, a.max_cq, strerror(err));
		goto out;
	}
	report(name, NULL);
out:
	while (cqs && n > 0)
		ibv_destroy_cq(cqs[--n]);
	free(cqs);
	if (cq)
		ibv_destroy_cq(cq);
}

static void test_port(const char *netdev)
{
	const char *name = "port";
	struct ibv_async_event ev;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set dev %s down", netdev);
	if (system(cmd)) {
		report(name, "%s failed", cmd);
		return;
	}
	if (!wait_event(IBV_EVENT_PORT_ERR, 5, &ev) || ev.element.port_num != 1) {
		report(name, "no IBV_EVENT_PORT_ERR on port 1 after link down");
		return;
	}
	snprintf(cmd, sizeof(cmd), "ip link set dev %s up", netdev);
	if (system(cmd)) {
		report(name, "%s failed", cmd);
		return;
	}
	if (!wait_event(IBV_EVENT_PORT_ACTIVE, 10, &ev) || ev.element.port_num != 1) {
		report(name, "no IBV_EVENT_PORT_ACTIVE on port 1 after link up");
		return;
	}
	report(name, NULL);
}

int main(int argc, char **argv)
{
	const char *devname = NULL, *netdev = NULL;
	struct ibv_port_attr port;
	int opt;

	while ((opt = getopt(argc, argv, "d:n:")) != -1) {
		if (opt == 'd')
			devname = optarg;
		else if (opt == 'n')
			netdev = optarg;
		else
			return EXIT_SETUP;
	}
	if (!devname) {
		fprintf(stderr, "usage: %s -d DEV [-n NETDEV]\n", argv[0]);
		return EXIT_SETUP;
	}
	g.ctx = open_device_named(devname);
	if (!g.ctx) {
		fprintf(stderr, "cannot open %s: %s\n", devname, strerror(errno));
		return EXIT_SETUP;
	}
	g.pd = ibv_alloc_pd(g.ctx);
	if (!g.pd || ibv_query_port(g.ctx, 1, &port) ||
	    !find_ipv4_roce_gid(g.ctx, 1, port.gid_tbl_len, now() + 10, &g.gid)) {
		fprintf(stderr, "%s: no PD or no IPv4 RoCE v2 GID\n", devname);
		return EXIT_SETUP;
	}
	g.mtu = port.active_mtu;
	/* Events are polled with a deadline. */
	fcntl(g.ctx->async_fd, F_SETFL, fcntl(g.ctx->async_fd, F_GETFL) | O_NONBLOCK);

	test_srq();
	test_qp_error();
	test_cq_error();
	test_nccl();
	test_mw();
	test_limits();
	if (netdev)
		test_port(netdev);

	ibv_dealloc_pd(g.pd);
	ibv_close_device(g.ctx);
	return g.failed ? EXIT_FAIL : 0;
}

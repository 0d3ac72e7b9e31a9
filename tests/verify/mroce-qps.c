// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce-qps: many RC QPs between two hosts, connected through the RDMA CM,
 * for "make bench-qps".  The client connects N QPs to the server (up to
 * -P connections in progress at once) and times it; then it keeps RDMA
 * WRITEs of -m bytes in flight on every QP for -t seconds (-w in flight in
 * all, at least one per QP) and reports the aggregate goodput; last, every
 * QP SENDs its index, and both sides disconnect.  Both sides read the
 * kernel's memory (/proc/meminfo SUnreclaim and VmallocUsed) before the
 * first QP, with all N connected, and after all are destroyed; and with
 * all connected, the device's "connections" counter where it has one
 * (mroce: one per peer, however many QPs).
 *
 * Checked: every connection reaches ESTABLISHED on the named device, every
 * completion succeeds, the server receives each client index exactly once
 * on the QP that announced it, and the bytes the WRITEs placed in the
 * server's buffer are the client's pattern.
 *
 *   mroce-qps -s -d DEV -n N [-p PORT] [-m BYTES]
 *   mroce-qps -c SERVER -d DEV -n N [-p PORT] [-m BYTES] [-t SECS] [-w WRS] [-P N]
 *
 * Each side prints one line, "qps: ok: ROLE key value ..." (see report()),
 * or "qps: FAIL: ...".  Exit status: 0 ok, 1 a call, a completion or the
 * data failed, 2 usage or setup.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define SLOTS_MAX	64	/* the server's buffer: this many messages */
#define SQ_DEPTH	32	/* send queue of a QP with fewer WRITEs in flight */
#define PATTERN(i)	((uint8_t)((i) * 7 + 1))

/* The client's CM REQ private data (network byte order). */
struct qps_req {
	uint32_t index;
	uint32_t msg;
};

/* The server's CM REP private data (network byte order). */
struct qps_rep {
	uint64_t addr;
	uint32_t rkey;
	uint32_t slots;
};

struct qp {
	struct rdma_cm_id *id;
	uint32_t index;		/* the client's numbering */
	bool established;
	bool disconnected;
	bool got_index;		/* server: its SEND arrived */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t slots;
};

struct mem {
	long slab_kb;
	long vmalloc_kb;
	long conns;	/* the device's "connections" counter; -1 if none */
};

static const char *dev_name;
static unsigned int nqps, msg = 65536;
static struct rdma_event_channel *ch;
static struct ibv_context *verbs;
static struct ibv_pd *pd;
static struct ibv_comp_channel *cc;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *buf;
static size_t buf_len;
static struct qp *qps;
static unsigned int cq_events, sq_depth = SQ_DEPTH;
static unsigned int window_all;	/* client: completions the CQ may hold */
static struct mem mem_base;	/* the device's objects, before any QP */

static int __attribute__((format(printf, 2, 3))) fail(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("qps: FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
	exit(rc);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct mem meminfo(void)
{
	struct mem m = { -1, -1, -1 };
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];

	if (!f)
		fail(2, "/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "SUnreclaim: %ld kB", &m.slab_kb);
		sscanf(line, "VmallocUsed: %ld kB", &m.vmalloc_kb);
	}
	fclose(f);
	if (m.slab_kb < 0 || m.vmalloc_kb < 0)
		fail(2, "/proc/meminfo has no SUnreclaim or VmallocUsed");
	/* mroce's transport state is per peer: one connection for all QPs */
	snprintf(line, sizeof(line),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/connections", dev_name);
	f = fopen(line, "r");
	if (f) {
		if (fscanf(f, "%ld", &m.conns) != 1)
			m.conns = -1;
		fclose(f);
	}
	return m;
}

/* The device's objects, on the context of the first connection. */
static void setup_device(struct rdma_cm_id *id, size_t len, int cqe)
{
	const char *name = ibv_get_device_name(id->verbs->device);

	if (strcmp(name, dev_name))
		fail(2, "the RDMA CM chose %s, not %s (one device per address)",
		     name, dev_name);
	verbs = id->verbs;
	pd = ibv_alloc_pd(verbs);
	cc = pd ? ibv_create_comp_channel(verbs) : NULL;
	cq = cc ? ibv_create_cq(verbs, cqe, NULL, cc, 0) : NULL;
	buf_len = len;
	buf = cq ? aligned_alloc(4096, (len + 4095) & ~(size_t)4095) : NULL;
	mr = buf ? ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!mr)
		fail(2, "PD, CQ of %d or MR of %zu bytes on %s: %s", cqe, len,
		     name, strerror(errno));
	if (fcntl(cc->fd, F_SETFL, O_NONBLOCK) || ibv_req_notify_cq(cq, 0))
		fail(2, "the CQ's channel: %s", strerror(errno));
	mem_base = meminfo();
}

static void create_qp(struct qp *q)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = sq_depth,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = sizeof(uint32_t),
		},
	};

	if (q->id->verbs != verbs)
		fail(1, "QP %u: a second device context", q->index);
	if (rdma_create_qp(q->id, pd, &attr))
		fail(1, "QP %u: rdma_create_qp: %s", q->index, strerror(errno));
}

#define EV_CM	1
#define EV_CQ	2

/* Wait up to @ms for the CM's channel or the CQ's: EV_* bits, 0 on timeout. */
static int wait_event(int ms)
{
	struct pollfd pfd[2] = {
		{ .fd = ch->fd, .events = POLLIN },
		{ .fd = cc ? cc->fd : -1, .events = POLLIN },
	};

	if (poll(pfd, 2, ms) < 0 && errno != EINTR)
		fail(1, "poll: %s", strerror(errno));
	return (pfd[0].revents & POLLIN ? EV_CM : 0) |
	       (pfd[1].revents & POLLIN ? EV_CQ : 0);
}

/* Take the CQ's event if there is one and re-arm it; then poll it. */
static int poll_cq(struct ibv_wc *wc, int n)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (!cq)
		return 0;
	if (!ibv_get_cq_event(cc, &ev_cq, &ev_ctx)) {
		if (++cq_events == 256) {
			ibv_ack_cq_events(cq, cq_events);
			cq_events = 0;
		}
		if (ibv_req_notify_cq(cq, 0))
			fail(1, "ibv_req_notify_cq: %s", strerror(errno));
	}
	n = ibv_poll_cq(cq, n, wc);
	if (n < 0)
		fail(1, "ibv_poll_cq: %d", n);
	return n;
}

static struct qp *wc_qp(const struct ibv_wc *wc)
{
	struct qp *q = (struct qp *)(uintptr_t)wc->wr_id;

	if (wc->status != IBV_WC_SUCCESS)
		fail(1, "QP %u: completion status %s (opcode %d)", q->index,
		     ibv_wc_status_str(wc->status), wc->opcode);
	return q;
}

static struct rdma_cm_event *get_cm_event(void)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		if (errno == EAGAIN)
			return NULL;
		fail(1, "rdma_get_cm_event: %s", strerror(errno));
	}
	return ev;
}

/* Server: where the SEND of its QP @j lands, after the WRITEs' slots. */
static uint8_t *index_slot(size_t j)
{
	return buf + buf_len - (nqps - j) * sizeof(uint32_t);
}

/* Server: a SEND's arrival, checked; returns 1 to count it. */
static unsigned int server_recv(const struct ibv_wc *wc)
{
	struct qp *q = wc_qp(wc);
	uint32_t got;

	if (wc->opcode != IBV_WC_RECV || wc->byte_len != sizeof(got))
		fail(1, "QP %u: opcode %d of %u bytes, not a 4-byte SEND",
		     q->index, wc->opcode, wc->byte_len);
	memcpy(&got, index_slot(q - qps), sizeof(got));
	if (ntohl(got) != q->index || q->got_index)
		fail(1, "QP %u: SEND carried index %u%s", q->index,
		     ntohl(got), q->got_index ? ", a second time" : "");
	q->got_index = true;
	return 1;
}

/* Destroy the QPs, their CM IDs and the CQ; the memory left taken. */
static struct mem teardown(void)
{
	unsigned int i;

	for (i = 0; i < nqps; i++) {
		rdma_destroy_qp(qps[i].id);
		rdma_destroy_id(qps[i].id);
	}
	ibv_ack_cq_events(cq, cq_events);
	ibv_destroy_cq(cq);
	return meminfo();
}

static void post_recv(struct qp *q, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)index_slot(slot),
		.length = sizeof(uint32_t),
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uintptr_t)q, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(q->id->qp, &wr, &bad))
		fail(1, "QP %u: ibv_post_recv: %s", q->index, strerror(errno));
}

/*
 * "qps: ok: ROLE qps N slab_kb_per_qp S vmalloc_kb_per_qp V slab_kb_left
 * SL vmalloc_kb_left VL connections C" and, from the client,
 * "connect_s conns_per_s bytes writes secs mbytes_per_s inflight_per_qp
 * server_slots" with their values: per QP, the kernel memory all N
 * connected took over the device's objects alone; left, what stayed
 * taken after all were destroyed (kB, noisy: the kernel's own use
 * moves by tens of kB meanwhile); C is -1 on a device without the counter.
 */
static void report(const char *role, struct mem m0, struct mem m1, struct mem m2,
		   const char *extra)
{
	printf("qps: ok: %s qps %u slab_kb_per_qp %.2f vmalloc_kb_per_qp %.2f "
	       "slab_kb_left %ld vmalloc_kb_left %ld connections %ld%s\n", role,
	       nqps, (double)(m1.slab_kb - m0.slab_kb) / nqps,
	       (double)(m1.vmalloc_kb - m0.vmalloc_kb) / nqps,
	       m2.slab_kb - m0.slab_kb, m2.vmalloc_kb - m0.vmalloc_kb, m1.conns,
	       extra);
	fflush(stdout);
}

static int server(const char *port)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM };
	unsigned int slots = nqps < SLOTS_MAX ? nqps : SLOTS_MAX;
	unsigned int accepted = 0, established = 0, gone = 0, indices = 0, i;
	bool *announced = calloc(nqps, sizeof(*announced));
	struct rdma_cm_id *listen_id;
	struct mem m1 = {}, m2;
	struct addrinfo *ai;
	struct ibv_wc wc[64];

	if (!announced)
		fail(2, "out of memory");
	if (getaddrinfo(NULL, port, &hints, &ai))
		fail(2, "port %s", port);
	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, ai->ai_addr) || rdma_listen(listen_id, 1024))
		fail(2, "listen on port %s: %s", port, strerror(errno));
	freeaddrinfo(ai);

	while (gone < nqps) {
		struct rdma_cm_event *ev;
		struct qp *q;
		int n, k;

		wait_event(1000);
		n = poll_cq(wc, 64);
		for (k = 0; k < n; k++)
			indices += server_recv(&wc[k]);
		while ((ev = get_cm_event())) {
			struct rdma_conn_param param = {};
			struct qps_rep rep;
			struct qps_req req;

			switch (ev->event) {
			case RDMA_CM_EVENT_CONNECT_REQUEST:
				if (accepted == nqps)
					fail(1, "more than %u connection requests", nqps);
				if (ev->param.conn.private_data_len < sizeof(req))
					fail(1, "a connection request without its index");
				memcpy(&req, ev->param.conn.private_data, sizeof(req));
				if (ntohl(req.msg) != msg)
					fail(1, "the client writes %u bytes, the server expects %u",
					     ntohl(req.msg), msg);
				if (!pd) {
					/* the buffer: the slots, then one index per QP */
					setup_device(ev->id, (size_t)slots * msg +
						     (size_t)nqps * sizeof(uint32_t), nqps + 16);
				}
				q = &qps[accepted];
				q->id = ev->id;
				q->index = ntohl(req.index);
				if (q->index >= nqps || announced[q->index])
					fail(1, "a connection request announced index %u%s",
					     q->index, q->index >= nqps ? ", out of range" :
					     " a second time");
				announced[q->index] = true;
				ev->id->context = q;
				create_qp(q);
				post_recv(q, accepted);
				rep.addr = htobe64((uintptr_t)buf);
				rep.rkey = htonl(mr->rkey);
				rep.slots = htonl(slots);
				param.private_data = &rep;
				param.private_data_len = sizeof(rep);
				param.rnr_retry_count = 7;
				if (rdma_accept(ev->id, &param))
					fail(1, "QP %u: rdma_accept: %s", q->index, strerror(errno));
				accepted++;
				break;
			case RDMA_CM_EVENT_ESTABLISHED:
				q = ev->id->context;
				q->established = true;
				if (++established == nqps)
					m1 = meminfo();
				break;
			case RDMA_CM_EVENT_DISCONNECTED:
				q = ev->id->context;
				if (!q->established || q->disconnected)
					fail(1, "QP %u: a disconnect out of turn", q->index);
				q->disconnected = true;
				gone++;
				break;
			case RDMA_CM_EVENT_TIMEWAIT_EXIT:
				break;
			default:
				fail(1, "unexpected CM event %s (status %d)",
				     rdma_event_str(ev->event), ev->status);
			}
			rdma_ack_cm_event(ev);
		}
	}
	/* A disconnect follows the SEND's completion at the client. */
	while (indices < nqps) {
		int n = poll_cq(wc, 64), k;

		if (!n) {
			struct pollfd pfd = { .fd = cc->fd, .events = POLLIN };

			if (poll(&pfd, 1, 10000) <= 0)
				fail(1, "%u of %u QPs' SENDs never came", nqps - indices, nqps);
		}
		for (k = 0; k < n; k++)
			indices += server_recv(&wc[k]);
	}
	for (i = 0; i < slots * msg; i++)
		if (buf[i] != PATTERN(i % msg))
			fail(1, "buffer byte %u is %#x, the client wrote %#x", i,
			     buf[i], PATTERN(i % msg));
	m2 = teardown();
	report("server", mem_base, m1, m2, "");
	free(announced);
	return 0;
}

static void post_write(struct qp *q)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = msg, .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)q,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = q->raddr + (uint64_t)(q->index % q->slots) * msg,
			.rkey = q->rkey,
		},
	};
	struct ibv_send_wr *bad;

	if (ibv_post_send(q->id->qp, &wr, &bad))
		fail(1, "QP %u: ibv_post_send: %s", q->index, strerror(errno));
}

static void post_index(struct qp *q)
{
	uint32_t idx = htonl(q->index);
	struct ibv_sge sge = { .addr = (uintptr_t)&idx, .length = sizeof(idx) };
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)q,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
	};
	struct ibv_send_wr *bad;

	if (ibv_post_send(q->id->qp, &wr, &bad))
		fail(1, "QP %u: ibv_post_send (SEND): %s", q->index, strerror(errno));
}

/* Start connection @i: the rest follows from its CM events. */
static void start_connect(unsigned int i, struct addrinfo *dst)
{
	struct qp *q = &qps[i];

	q->index = i;
	if (rdma_create_id(ch, &q->id, q, RDMA_PS_TCP))
		fail(1, "QP %u: rdma_create_id: %s", i, strerror(errno));
	if (rdma_resolve_addr(q->id, NULL, dst->ai_addr, 5000))
		fail(1, "QP %u: rdma_resolve_addr: %s", i, strerror(errno));
}

/* Handle the CM's events; returns the connections established by them. */
static unsigned int client_cm_events(void)
{
	struct rdma_cm_event *ev;
	unsigned int done = 0;

	while ((ev = get_cm_event())) {
		struct qp *q = ev->id->context;
		struct rdma_conn_param param = {};
		struct qps_req req;
		struct qps_rep rep;

		switch (ev->event) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (!pd)
				setup_device(ev->id, msg, window_all + 16);
			if (rdma_resolve_route(ev->id, 5000))
				fail(1, "QP %u: rdma_resolve_route: %s", q->index,
				     strerror(errno));
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			create_qp(q);
			req.index = htonl(q->index);
			req.msg = htonl(msg);
			param.private_data = &req;
			param.private_data_len = sizeof(req);
			param.retry_count = 7;
			param.rnr_retry_count = 7;
			if (rdma_connect(ev->id, &param))
				fail(1, "QP %u: rdma_connect: %s", q->index, strerror(errno));
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (ev->param.conn.private_data_len < sizeof(rep))
				fail(1, "QP %u: the server's reply lacks its buffer", q->index);
			memcpy(&rep, ev->param.conn.private_data, sizeof(rep));
			q->raddr = be64toh(rep.addr);
			q->rkey = ntohl(rep.rkey);
			q->slots = ntohl(rep.slots);
			if (!q->slots)
				fail(1, "QP %u: the server offers no slots", q->index);
			q->established = true;
			done++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			q->disconnected = true;
			break;
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		default:
			fail(1, "QP %u: CM event %s (status %d)", q->index,
			     rdma_event_str(ev->event), ev->status);
		}
		rdma_ack_cm_event(ev);
	}
	return done;
}

/*
 * Poll the CQ, waiting up to 60 s for it (4,000 QPs' WRITEs of 64 KiB progress
 * together and complete together, ten seconds apart in the VMs); CM events
 * meanwhile are handled.
 */
static int next_wcs(struct ibv_wc *wc, const char *what, unsigned int left)
{
	int n;

	while (!(n = poll_cq(wc, 64))) {
		int ev = wait_event(60000);

		if (!ev)
			fail(1, "%u %s gave no completion in 60 s", left, what);
		if (ev & EV_CM)
			client_cm_events();
	}
	return n;
}

static int client(const char *host, const char *port, double secs,
		  unsigned int window, unsigned int parallel)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	unsigned int started = 0, established = 0, inflight, i, gone;
	unsigned int per_qp = window / nqps ? window / nqps : 1;
	double t0, t_conn, t_data, t_end, stop;
	uint64_t bytes = 0, writes = 0;
	struct ibv_wc wc[64];
	struct addrinfo *dst;
	struct mem m1, m2;
	char extra[256];
	int n, k;

	/* -w WRITEs in flight in all, at least one per QP; and its SEND */
	if (per_qp + 1 > sq_depth)
		sq_depth = per_qp + 1;
	window_all = nqps * per_qp;	/* the SENDs go after the WRITEs */
	if (getaddrinfo(host, port, &hints, &dst))
		fail(2, "cannot resolve %s", host);
	t0 = now();
	while (established < nqps) {
		while (started < nqps && started - established < parallel)
			start_connect(started++, dst);
		if (!wait_event(10000))
			fail(1, "%u of %u connections stalled", started - established, nqps);
		established += client_cm_events();
	}
	t_conn = now() - t0;
	m1 = meminfo();
	freeaddrinfo(dst);
	for (i = 0; i < msg; i++)
		buf[i] = PATTERN(i);

	t_data = now();
	stop = t_data + secs;
	for (i = 0; i < nqps; i++)
		for (k = 0; k < (int)per_qp; k++)
			post_write(&qps[i]);
	inflight = nqps * per_qp;
	while (inflight) {
		n = next_wcs(wc, "WRITEs", inflight);
		for (k = 0; k < n; k++) {
			struct qp *q = wc_qp(&wc[k]);

			if (wc[k].opcode != IBV_WC_RDMA_WRITE)
				fail(1, "QP %u: completion of opcode %d", q->index,
				     wc[k].opcode);
			inflight--;
			bytes += msg;
			writes++;
			if (now() < stop) {
				post_write(q);
				inflight++;
			}
		}
	}
	t_end = now();

	/* every QP carries its index once */
	for (i = 0; i < nqps; i++)
		post_index(&qps[i]);
	for (inflight = nqps; inflight; inflight -= n)
		for (n = next_wcs(wc, "SENDs", inflight), k = 0; k < n; k++)
			wc_qp(&wc[k]);	/* its status checked */

	for (i = 0; i < nqps; i++)
		if (rdma_disconnect(qps[i].id))
			fail(1, "QP %u: rdma_disconnect: %s", i, strerror(errno));
	for (;;) {
		for (gone = 0, i = 0; i < nqps; i++)
			gone += qps[i].disconnected;
		if (gone == nqps)
			break;
		if (!wait_event(10000))
			fail(1, "%u of %u disconnects never came", nqps - gone, nqps);
		client_cm_events();
	}
	m2 = teardown();
	snprintf(extra, sizeof(extra),
		 " connect_s %.3f conns_per_s %.1f bytes %" PRIu64 " writes %" PRIu64
		 " secs %.3f mbytes_per_s %.2f inflight_per_qp %u server_slots %u",
		 t_conn, nqps / t_conn, bytes, writes, t_end - t_data,
		 bytes / (t_end - t_data) / 1e6, per_qp, qps[0].slots);
	report("client", mem_base, m1, m2, extra);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mroce-qps -s -d DEV -n N [-p PORT] [-m BYTES]\n"
		"       mroce-qps -c SERVER -d DEV -n N [-p PORT] [-m BYTES] [-t SECS]\n"
		"                 [-w WRS_IN_FLIGHT] [-P CONNECTS_IN_PROGRESS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int window = 128, parallel = 64;
	const char *host = NULL, *port = "18600";
	bool is_server = false;
	double secs = 8;
	int c;

	while ((c = getopt(argc, argv, "sc:d:n:p:m:t:w:P:")) != -1) {
		switch (c) {
		case 's': is_server = true; break;
		case 'c': host = optarg; break;
		case 'd': dev_name = optarg; break;
		case 'n': nqps = strtoul(optarg, NULL, 0); break;
		case 'p': port = optarg; break;
		case 'm': msg = strtoul(optarg, NULL, 0); break;
		case 't': secs = strtod(optarg, NULL); break;
		case 'w': window = strtoul(optarg, NULL, 0); break;
		case 'P': parallel = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (optind != argc || is_server == !!host || !dev_name || !nqps ||
	    nqps > 65536 || !msg || msg > (1U << 24) || secs <= 0 || !window ||
	    !parallel)
		usage();
	qps = calloc(nqps, sizeof(*qps));
	ch = rdma_create_event_channel();
	if (!qps || !ch)
		fail(2, "rdma_create_event_channel: %s", strerror(errno));
	/* events are taken until none is left; the CQ's likewise */
	if (fcntl(ch->fd, F_SETFL, O_NONBLOCK))
		fail(2, "O_NONBLOCK: %s", strerror(errno));
	return is_server ? server(port) : client(host, port, secs, window, parallel);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce-race: verbs calls of one process racing each other on one device,
 * for a bounded time.  What it checks is the kernel's side: that no
 * interleaving of the calls a user may make corrupts it (run it on a debug
 * kernel, or read dmesg afterwards), and that every call that must succeed
 * does.
 *
 *   mroce-race -d DEV [-s SECONDS] [-p PAIRS] [-l]
 *
 * Each of PAIRS (default 2) QP pairs is two RC QPs of DEV connected to each
 * other through the device's own IPv4 address, with three threads:
 *
 *   modifier  cycles QP A through RESET, INIT, RTR, RTS, now and then ERR,
 *             and back to RESET, as fast as it can; every transition is a
 *             valid one and must succeed
 *   poster    posts SENDs on A and receives on B, polls both CQs; posts
 *             may be refused (A is often not in RTS) and are counted
 *   (shared)  one churn thread creates and destroys CQs, QPs, SRQs, MRs
 *             and type 1 MWs beside all of them
 *
 * The doorbells of A (post_send, post_recv) thus run beside its moves to
 * RESET, which detach and free its transport state.
 *
 * -l (lifecycle): the device's link goes down, its netdev goes or the device
 * is deleted while the threads run.  A modify or create that fails is then
 * counted ("lost") instead of failing the run, and the thread goes on; every
 * destroy must still succeed, and the run must end on time.
 *
 * At the end every object is destroyed and a line of counts is printed:
 *
 *   race: ok: M modify cycles, P posts (R refused), C completions, K churns, L lost
 *   race: FAIL: REASON
 *
 * Exit status: 0 ok, 1 a call that must succeed failed, 2 usage or setup.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oob.h"

#define MAX_PAIRS	16
#define BUF_SIZE	4096
#define MSG_SIZE	64
#define SQ_DEPTH	64
#define CQ_DEPTH	1024

struct pair {
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t cycles;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_gid_entry gid;
static double deadline;
static atomic_bool failed;
static atomic_uint_fast64_t posts, refused, completions, churns, lost;
static bool lifecycle;

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("race: FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
	atomic_store(&failed, true);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
setup_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("race: setup: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(EXIT_SETUP);
}

static bool running(void)
{
	return !atomic_load(&failed) && now() < deadline;
}

/*
 * A create or modify failed: a failure of the run, unless -l lets the
 * device change under the threads; then it is counted and the caller backs
 * off for a moment (the failure is likely to repeat until the link is back).
 */
static void lose(const char *what, unsigned int qpn, int err)
{
	if (!lifecycle) {
		failf("%s (QP %u): %s", what, qpn, strerror(err));
		return;
	}
	atomic_fetch_add(&lost, 1);
	usleep(1000);
}

static struct ibv_qp *create_qp(struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {
			.max_send_wr = SQ_DEPTH,
			.max_recv_wr = srq ? 0 : SQ_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &init);
}

static void *modifier(void *arg)
{
	static const enum ibv_qp_state cycle[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
	};
	struct pair *p = arg;
	unsigned int i;
	int err;

	while (running()) {
		for (i = 0; i < ARRAY_SIZE(cycle); i++) {
			err = rc_move(p->a, cycle[i], p->b->qp_num, &gid);
			if (err)
				break;
		}
		/* Every third cycle through ERR, the others straight back. */
		if (!err && p->cycles % 3 == 0)
			err = rc_move(p->a, IBV_QPS_ERR, 0, &gid);
		if (err) {
			lose("a modify of the cycle", p->a->qp_num, err);
			if (!lifecycle)
				return NULL;
			continue;
		}
		p->cycles++;
	}
	return NULL;
}

static void poll_cq(struct ibv_cq *cq)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(cq, ARRAY_SIZE(wc), wc)) > 0)
		atomic_fetch_add(&completions, n);
	if (n < 0)
		failf("ibv_poll_cq: %d", n);
}

static void *poster(void *arg)
{
	struct pair *p = arg;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->buf,
		.length = MSG_SIZE,
		.lkey = p->mr->lkey,
	};
	struct ibv_send_wr swr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad_s;
	struct ibv_sge rsge = {
		.addr = (uintptr_t)p->buf + BUF_SIZE / 2,
		.length = MSG_SIZE,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;

	while (running()) {
		atomic_fetch_add(&posts, 2);
		if (ibv_post_send(p->a, &swr, &bad_s))
			atomic_fetch_add(&refused, 1);
		if (ibv_post_recv(p->b, &rwr, &bad_r))
			atomic_fetch_add(&refused, 1);
		/* A's receive side too: its doorbell races the resets. */
		if (ibv_post_recv(p->a, &rwr, &bad_r))
			atomic_fetch_add(&refused, 1);
		poll_cq(p->cq_a);
		poll_cq(p->cq_b);
	}
	return NULL;
}

/* Objects made and unmade beside the pairs' traffic and modifies. */
static void *churn(void *arg)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	uint8_t *buf = arg;

	while (running()) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		struct ibv_srq *srq = ibv_create_srq(pd, &sattr);
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, BUF_SIZE,
					       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_MW_BIND);
		struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		struct ibv_qp *qp = cq && srq ? create_qp(cq, srq) : NULL;

		int err = errno;

		if (!cq || !srq || !mr || !mw || !qp)
			lose("churn: creating an object", 0, err);
		else if ((err = rc_connect(qp, qp->qp_num, &gid)))
			lose("churn: connecting a fresh QP", qp->qp_num, err);
		if (qp && ibv_destroy_qp(qp))
			failf("churn: ibv_destroy_qp");
		if (mw && ibv_dealloc_mw(mw))
			failf("churn: ibv_dealloc_mw");
		if (mr && ibv_dereg_mr(mr))
			failf("churn: ibv_dereg_mr");
		if (srq && ibv_destroy_srq(srq))
			failf("churn: ibv_destroy_srq");
		if (cq && ibv_destroy_cq(cq))
			failf("churn: ibv_destroy_cq");
		atomic_fetch_add(&churns, 1);
	}
	return NULL;
}

static void pair_create(struct pair *p)
{
	p->buf = calloc(1, BUF_SIZE);
	p->mr = p->buf ? ibv_reg_mr(pd, p->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE) : NULL;
	p->cq_a = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	p->cq_b = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!p->mr || !p->cq_a || !p->cq_b)
		setup_fail("MR or CQ: %s", strerror(errno));
	p->a = create_qp(p->cq_a, NULL);
	p->b = create_qp(p->cq_b, NULL);
	if (!p->a || !p->b)
		setup_fail("ibv_create_qp: %s", strerror(errno));
	if (rc_connect(p->b, p->a->qp_num, &gid))
		setup_fail("connecting QP %u", p->b->qp_num);
}

static void pair_destroy(struct pair *p)
{
	if (ibv_destroy_qp(p->a) || ibv_destroy_qp(p->b) ||
	    ibv_destroy_cq(p->cq_a) || ibv_destroy_cq(p->cq_b) ||
	    ibv_dereg_mr(p->mr))
		failf("destroying a pair's objects");
	free(p->buf);
}

static void usage(void)
{
	fprintf(stderr, "usage: mroce-race -d DEV [-s SECONDS] [-p PAIRS] [-l]\n");
	exit(EXIT_SETUP);
}

int main(int argc, char **argv)
{
	pthread_t mod[MAX_PAIRS], post[MAX_PAIRS], churner;
	struct pair pairs[MAX_PAIRS] = {};
	const char *dev = NULL;
	unsigned int npairs = 2, i;
	uint64_t cycles = 0;
	double secs = 10;
	uint8_t *churn_buf;
	int opt;

	while ((opt = getopt(argc, argv, "d:s:p:l")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'p':
			npairs = atoi(optarg);
			break;
		case 'l':
			lifecycle = true;
			break;
		default:
			usage();
		}
	}
	if (!dev || secs <= 0 || npairs < 1 || npairs > MAX_PAIRS || optind != argc)
		usage();

	ctx = open_device_named(dev);
	if (!ctx)
		setup_fail("cannot open %s: %s", dev, strerror(errno));
	pd = ibv_alloc_pd(ctx);
	churn_buf = calloc(1, BUF_SIZE);
	if (!pd || !churn_buf)
		setup_fail("ibv_alloc_pd: %s", strerror(errno));
	if (!find_ipv4_roce_gid(ctx, 1, 128, now() + 10, &gid))
		setup_fail("%s has no IPv4 RoCE v2 GID", dev);

	for (i = 0; i < npairs; i++)
		pair_create(&pairs[i]);
	deadline = now() + secs;
	for (i = 0; i < npairs; i++) {
		if (pthread_create(&mod[i], NULL, modifier, &pairs[i]) ||
		    pthread_create(&post[i], NULL, poster, &pairs[i]))
			setup_fail("pthread_create");
	}
	if (pthread_create(&churner, NULL, churn, churn_buf))
		setup_fail("pthread_create");
	for (i = 0; i < npairs; i++) {
		pthread_join(mod[i], NULL);
		pthread_join(post[i], NULL);
		cycles += pairs[i].cycles;
	}
	pthread_join(churner, NULL);
	for (i = 0; i < npairs; i++)
		pair_destroy(&pairs[i]);
	if (ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		failf("closing the device");
	free(churn_buf);
	if (!cycles && !lifecycle)
		failf("no modify cycle completed in %.0f s", secs);
	if (atomic_load(&failed))
		return EXIT_FAIL;
	printf("race: ok: %" PRIu64 " modify cycles, %" PRIuFAST64 " posts (%" PRIuFAST64
	       " refused), %" PRIuFAST64 " completions, %" PRIuFAST64 " churns, %"
	       PRIuFAST64 " lost\n",
	       cycles, atomic_load(&posts), atomic_load(&refused),
	       atomic_load(&completions), atomic_load(&churns), atomic_load(&lost));
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce-cycle: the life of many short-lived QPs, one after another, spread
 * over many peers.  Each cycle creates two RC QPs, connects them to each
 * other through one of the device's IPv4 addresses (cycle i uses address
 * i mod PEERS, so each address is a peer of its own with a connection of
 * its own), moves one checked SEND between them, and destroys both.  What
 * the kernel keeps of a cycle must go with it: the VM test compares slab
 * usage before and after (tests/vm/cycles.sh).
 *
 *   mroce-cycle -d DEV [-n CYCLES] [-m PEERS]
 *
 * Prints "cycle: ok: N cycles over P peers in T s" or "cycle: FAIL: ...".
 * Exit status: 0 ok, 1 a call or the data failed, 2 usage or setup,
 * 3 a completion did not come within 10 s.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oob.h"

#define MAX_PEERS	64
#define GID_TBL_LEN	128
#define MSG_SIZE	64
#define BUF_SIZE	4096

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *buf;

static int __attribute__((format(printf, 2, 3))) fail(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("cycle: FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	return rc;
}

/* The IPv4 RoCE v2 GIDs of port 1, waiting up to 10 s for want of them. */
static unsigned int find_peers(struct ibv_gid_entry *peers, unsigned int want)
{
	double give_up = now() + 10;
	unsigned int n;

	for (;;) {
		n = 0;
		for (int i = 0; i < GID_TBL_LEN && n < want; i++) {
			struct ibv_gid_entry e;

			if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
				continue;
			if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_ipv4(&e.gid))
				peers[n++] = e;
		}
		if (n == want || now() >= give_up)
			return n;
		usleep(100000);
	}
}

static struct ibv_qp *create_qp(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &init);
}

/* One cycle over peer: 0, or the exit status of its failure. */
static int cycle(unsigned long i, const struct ibv_gid_entry *peer)
{
	struct ibv_sge ssge = { .addr = (uintptr_t)buf, .length = MSG_SIZE,
				.lkey = mr->lkey };
	struct ibv_sge rsge = { .addr = (uintptr_t)buf + BUF_SIZE / 2,
				.length = MSG_SIZE, .lkey = mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &ssge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bad_s;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_qp *a = create_qp(), *b = create_qp();
	double deadline = now() + 10;
	int rc = 0, got = 0, err;

	if (!a || !b) {
		rc = fail(EXIT_FAIL, "cycle %lu: ibv_create_qp: %s", i, strerror(errno));
		goto out;
	}
	err = rc_connect(a, b->qp_num, peer);
	if (!err)
		err = rc_connect(b, a->qp_num, peer);
	if (err) {
		rc = fail(EXIT_FAIL, "cycle %lu: connecting over GID %u: %s", i,
			  peer->gid_index, strerror(err));
		goto out;
	}
	for (unsigned int k = 0; k < MSG_SIZE; k++)
		buf[k] = (uint8_t)(i * 131 + k);
	memset(buf + BUF_SIZE / 2, 0, MSG_SIZE);
	if (ibv_post_recv(b, &rwr, &bad_r) || ibv_post_send(a, &swr, &bad_s)) {
		rc = fail(EXIT_FAIL, "cycle %lu: posting: %s", i, strerror(errno));
		goto out;
	}
	while (got < 2) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0) {
			rc = fail(EXIT_FAIL, "cycle %lu: ibv_poll_cq: %d", i, n);
			goto out;
		}
		if (n == 0) {
			if (now() > deadline) {
				rc = fail(EXIT_TIMEOUT, "cycle %lu: %d of 2 completions in 10 s",
					  i, got);
				goto out;
			}
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			rc = fail(EXIT_FAIL, "cycle %lu: wr %" PRIu64 ": %s", i,
				  wc.wr_id, ibv_wc_status_str(wc.status));
			goto out;
		}
		got++;
	}
	if (memcmp(buf, buf + BUF_SIZE / 2, MSG_SIZE))
		rc = fail(EXIT_FAIL, "cycle %lu: the message arrived changed", i);
out:
	if ((a && ibv_destroy_qp(a)) || (b && ibv_destroy_qp(b)))
		rc = fail(EXIT_FAIL, "cycle %lu: ibv_destroy_qp", i);
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: mroce-cycle -d DEV [-n CYCLES] [-m PEERS]\n");
	exit(EXIT_SETUP);
}

int main(int argc, char **argv)
{
	struct ibv_gid_entry peers[MAX_PEERS];
	unsigned long cycles = 1000, i;
	unsigned int npeers = 16, found;
	const char *dev = NULL;
	double start;
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "d:n:m:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			cycles = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			npeers = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (!dev || !cycles || npeers < 1 || npeers > MAX_PEERS || optind != argc)
		usage();

	ctx = open_device_named(dev);
	if (!ctx) {
		fprintf(stderr, "cycle: setup: cannot open %s: %s\n", dev, strerror(errno));
		return EXIT_SETUP;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	buf = calloc(1, BUF_SIZE);
	mr = pd && buf ? ibv_reg_mr(pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!cq || !mr) {
		fprintf(stderr, "cycle: setup: PD, CQ or MR: %s\n", strerror(errno));
		return EXIT_SETUP;
	}
	found = find_peers(peers, npeers);
	if (found < npeers) {
		fprintf(stderr, "cycle: setup: %s has %u IPv4 RoCE v2 GIDs, %u wanted\n",
			dev, found, npeers);
		return EXIT_SETUP;
	}

	start = now();
	for (i = 0; i < cycles && !rc; i++)
		rc = cycle(i, &peers[i % npeers]);
	if (ibv_dereg_mr(mr) || ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		rc = fail(EXIT_FAIL, "closing the device");
	free(buf);
	if (rc)
		return rc;
	printf("cycle: ok: %lu cycles over %u peers in %.1f s\n", cycles, npeers,
	       now() - start);
	return 0;
}

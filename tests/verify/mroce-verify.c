// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce-verify: end-to-end data, completion and ordering check of RC verbs
 * between two hosts.
 *
 *   server:  mroce-verify -d DEV [options]
 *   client:  mroce-verify -d DEV [options] SERVER_ADDR
 *
 * Both sides run the same deterministic traffic in both directions over NQP
 * RC queue pairs, and each side checks everything it can observe:
 *
 *  - What a side sends is a pure function of (seed, sending side, QP, round,
 *    message): op, size, offsets, immediate data, atomic operands and every
 *    payload byte.  The target recomputes the schedule of its peer to know
 *    what must arrive where; the requester knows what READs and atomics must
 *    return.  The read source of each QP holds a fixed pattern.
 *
 *  - Traffic runs in rounds of WINDOW requests per QP and direction, all
 *    posted at once (so they are in flight together), followed by a small
 *    "fence" SEND.  RC executes a QP's requests in order, so when the fence
 *    arrives every WRITE of the round is in the target's memory and can be
 *    checked there.
 *
 *  - Each request of a round has a slot of its own in both sides' buffers, so
 *    no memory is reused before it has been checked.  The target checks a
 *    round, re-poisons what the next round will touch, posts the next
 *    round's receives and only then tells the requester over TCP that it may
 *    start that round (READY).  So receives are always posted before the
 *    SENDs that consume them (no RNR waits), and data from an earlier round
 *    (a late duplicate, say) cannot pass for the expected data.
 *
 *  - Everything around a target range (and the gaps between scatter
 *    pieces) is poisoned and must still be poison afterwards: overruns,
 *    stray or short placements count as corrupt bytes like wrong data does.
 *
 *  - Completions: per QP, send completions must come in posting order, and
 *    receive completions too; status, opcode, byte_len, qp_num, the
 *    IBV_WC_WITH_IMM flag and the immediate value are checked.
 *
 *  - Atomics: each QP's compare-and-swap word goes through a chain of values
 *    known to both sides (a quarter of the CAS compare a wrong value and must
 *    leave the word alone); every CAS must return the expected link of the
 *    chain, which a CAS executed twice would not.  All QPs fetch-add into one
 *    counter at the target: the originals returned, sorted, must chain from
 *    the initial value through every add exactly once, and the target's
 *    final value must be the initial one plus the sum of the adds.
 *
 * The TCP connection carries the setup (configuration, QPNs, PSNs, GID,
 * buffer addresses and rkeys), the READY credits and each side's verdict.
 * Atomic values are in host byte order at both ends, as on software devices.
 *
 * Output: one summary line per side,
 *   verify: qps=N msgs=N bytes=N corrupt_bytes=N wc_errors=N order_errors=N
 * where msgs counts this side's requests that completed (fences excluded)
 * and bytes the payload bytes this side checked (received, found written,
 * read back, atomic results).  Exit status: 0 when every counter is zero,
 * every expected message arrived and the peer says the same; 1 on a
 * verification failure, 2 on a usage or setup error, 3 on timeout.
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

#define GUARD		64	/* poisoned bytes checked each side of a range */
#define OFFSET_SPAN	4096	/* ranges start anywhere in a slot's first 4 KiB */
#define MAX_GAP		64	/* bytes between scatter/gather pieces, at most */
#define MAX_PIECES	3	/* SGEs per request, at most */
#define INLINE_SIZE	256	/* send_inline sizes are drawn from [0, this] */
#define FENCE_SIZE	64	/* fence SENDs carry [0, this] bytes */
#define MAX_BATCH	4	/* WRs linked into one post call, at most */
#define POISON		0xa5
#define MAX_REPORTS	25	/* detailed error lines printed, at most */
#define GOLDEN		0x9e3779b97f4a7c15ULL

#define ALIGN64(x)	(((x) + 63) & ~(size_t)63)

/* Functions, not macros: arguments are often random draws, evaluated once. */
static inline uint64_t umin(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t umax(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline double dmin(double a, double b)
{
	return a < b ? a : b;
}

enum op {
	OP_SEND,
	OP_SEND_IMM,
	OP_SEND_INLINE,
	OP_WRITE,
	OP_WRITE_IMM,
	OP_READ,
	OP_CAS,
	OP_FADD,
	NR_OPS
};

static const char *const op_name[NR_OPS] = {
	"send", "send_imm", "send_inline", "write", "write_imm", "read",
	"cas", "fadd",
};

#define ALL_OPS		((1u << NR_OPS) - 1)
#define ATOMIC_OPS	((1u << OP_CAS) | (1u << OP_FADD))

static bool op_uses_recv(int op)
{
	return op == OP_SEND || op == OP_SEND_IMM || op == OP_SEND_INLINE ||
	       op == OP_WRITE_IMM;
}

static bool op_has_imm(int op)
{
	return op == OP_SEND_IMM || op == OP_WRITE_IMM;
}

static bool op_writes(int op)
{
	return op == OP_WRITE || op == OP_WRITE_IMM;
}

static bool op_atomic(int op)
{
	return op == OP_CAS || op == OP_FADD;
}

/* The opcode of the requester's completion for each op. */
static enum ibv_wc_opcode op_wc_opcode(int op)
{
	switch (op) {
	case OP_WRITE:
	case OP_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case OP_READ:
		return IBV_WC_RDMA_READ;
	case OP_CAS:
		return IBV_WC_COMP_SWAP;
	case OP_FADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

/* Tags that keep the pseudo-random streams of a run apart. */
enum key_tag {
	K_SCHED,	/* schedule of one direction of one QP */
	K_PAYLOAD,	/* bytes of one request */
	K_LOCAL,	/* requester's own layout of one request */
	K_RECV,		/* target's receive layout for one request */
	K_BATCH,	/* how a round's WRs are grouped into post calls */
	K_RSRC,		/* read source contents */
	K_CAS,		/* initial CAS word */
	K_FADD,		/* initial fetch-add counter */
	K_PSN,
};

struct config {
	const char *dev;
	const char *server;	/* NULL: this side is the server */
	const char *port;
	int gid_index;		/* -1: pick the IPv4-mapped RoCE v2 GID */
	unsigned int ib_port;
	unsigned int nqp, msgs, window, max_size, timeout, ack_timeout, sges;
	unsigned int ops;	/* bit mask of enum op */
	uint64_t seed;
	bool verbose;
};

/* A range of a slot; a request's data is its pieces taken in order. */
struct piece {
	uint32_t off, len;
};

struct msg {
	/* The schedule, computed identically by both sides. */
	uint8_t op;
	bool fence;
	uint32_t size;
	uint32_t remote_off;	/* WRITE: in the target slot; READ: in the read source */
	uint32_t imm;
	uint64_t key;		/* payload pattern */
	uint64_t compare_add;	/* CAS compare value, or fetch-add addend */
	uint64_t swap;
	uint64_t expect;	/* the original value a CAS must return */
	/* This side's own layout of it (requester: local; target: receive). */
	struct piece pc[MAX_PIECES];
	uint8_t npc;
	uint32_t lo, hi;	/* poisoned span of the slot around the pieces */
	bool inl;		/* posted with IBV_SEND_INLINE */
	bool done;		/* its completion has been seen */
};

/* The schedule generator of one direction of one QP. */
struct stream {
	uint64_t rng;
	uint64_t cas_value;	/* the target's CAS word after the generated requests */
	uint64_t fadd_sum;	/* sum of the fetch-adds generated */
};

/* One direction of one QP: requests this side sends (tx) or receives (rx). */
struct dir {
	struct stream gen;
	struct msg *m;		/* the current round, fence last */
	uint32_t *recv_msg;	/* receive ordinal in the round -> message */
	uint32_t round;		/* current round; nrounds once all are done */
	uint32_t count;		/* messages in the round, fence included */
	uint32_t nrecv;		/* receives the round consumes at the target */
	uint32_t pending;	/* completions the round still waits for */
	uint32_t base_seq;	/* wr_id sequence number of the round's first WR */
	uint32_t next_seq;	/* sequence number the next completion must carry */
	bool busy;		/* a round is posted and not complete */
};

struct qpc {
	unsigned int idx;
	struct ibv_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
	uint32_t psn;
	uint32_t peer_qpn, peer_psn, peer_rkey;
	uint64_t peer_addr;
	uint32_t peer_ready;	/* rounds the peer has posted receives for */
	struct dir tx, rx;
	uint64_t last_fadd;	/* last fetch-add original returned on this QP */
	bool any_fadd;
};

/*
 * Offsets within each QP's buffer (one MR per QP), the same on both sides:
 * requester slots, receive slots, WRITE target slots, the read source and
 * the atomic words.  The CAS word of each QP and, in QP 0's buffer, the
 * shared fetch-add counter sit between poisoned guards.
 */
struct layout {
	size_t slot, local, recv, wtgt, rsrc, rsrc_len, atom, total;
};

#define CAS_OFF		GUARD
#define FADD_OFF	(2 * GUARD + 8)
#define ATOM_LEN	(3 * GUARD + 16)

struct fadd_result {
	uint64_t orig, add;
};

struct counters {
	uint64_t msgs, bytes, corrupt, wc_errors, order_errors;
	uint64_t ops[NR_OPS], inline_sends, cas_misses, fences, missed_events;
};

enum ctl_type { CTL_READY = 1, CTL_FIN, CTL_ABORT };

#define CTL_LEN		24	/* be32 type, be32 qp, be64 a, be64 b */

struct verify {
	struct config cfg;
	unsigned int side;	/* 0: server, 1: client */
	const char *role;
	unsigned int op_list[NR_OPS], nops;

	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *scq, *rcq;
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	int gid_index;
	union ibv_gid gid, peer_gid;
	enum ibv_mtu mtu;
	uint32_t max_inline, max_sge, max_sge_rd;

	struct layout lay;
	struct qpc *qps;
	uint32_t nrounds;
	uint8_t *scratch;	/* expected image of a range being checked */
	struct ibv_send_wr swr[MAX_BATCH];
	struct ibv_recv_wr rwr[MAX_BATCH];
	struct ibv_sge sge[MAX_BATCH][MAX_PIECES];

	int sock;
	uint8_t in[4096];
	size_t inlen;

	struct counters c;
	struct fadd_result *fadds;
	size_t nfadds, fadds_cap, fadds_lost;
	unsigned int tx_done, rx_done;	/* QPs whose direction is finished */
	bool final_checked, fin_sent, peer_fin, peer_ok;
	bool broken;		/* a QP has failed: stop once the CQs are drained */
	unsigned int reports, flushes;
	double start, deadline, next_progress;
};

/* ------------------------------------------------------------------------ */
/* Output and errors */

static void say(struct verify *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct verify *v, const char *fmt, ...)
{
	va_list ap;

	printf("mroce-verify[%s]: ", v->role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Detailed error lines, limited so a broken run does not flood the log. */
static void report(struct verify *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(struct verify *v, const char *fmt, ...)
{
	va_list ap;

	if (v->reports++ >= MAX_REPORTS) {
		if (v->reports == MAX_REPORTS + 1)
			say(v, "further errors are counted but not shown");
		return;
	}
	printf("mroce-verify[%s]: ERROR: ", v->role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static bool counters_clean(const struct counters *c)
{
	return !c->corrupt && !c->wc_errors && !c->order_errors;
}

static void summary(struct verify *v)
{
	const struct counters *c = &v->c;
	double t = now() - v->start;
	char ops[256];
	size_t n = 0;

	for (unsigned int i = 0; i < NR_OPS; i++)
		if (v->cfg.ops & (1u << i))
			n += snprintf(ops + n, sizeof(ops) - n, " %s=%" PRIu64,
				      op_name[i], c->ops[i]);
	ops[n] = '\0';
	say(v, "requests:%s fences=%" PRIu64 " inline=%" PRIu64
	    " cas_misses=%" PRIu64 " fadd_checked=%zu", ops, c->fences,
	    c->inline_sends, c->cas_misses, v->nfadds);
	say(v, "%.1f s, %.1f MB/s checked%s", t, t > 0 ? c->bytes / t / 1e6 : 0,
	    c->missed_events ? " (WARNING: completions found without a CQ event)" : "");
	printf("verify: qps=%u msgs=%" PRIu64 " bytes=%" PRIu64
	       " corrupt_bytes=%" PRIu64 " wc_errors=%" PRIu64
	       " order_errors=%" PRIu64 "\n", v->cfg.nqp, c->msgs, c->bytes,
	       c->corrupt, c->wc_errors, c->order_errors);
	fflush(stdout);
}

static void ctl_send(struct verify *v, uint32_t type, uint32_t qp, uint64_t a,
		     uint64_t b);

/*
 * End the run now: tell the peer (so it does not wait for its own timeout),
 * print what was counted and exit.  Process exit releases the verbs
 * resources.
 */
static void __attribute__((noreturn, format(printf, 3, 4)))
stop(struct verify *v, int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "mroce-verify[%s]: ", v->role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (v->sock >= 0)
		ctl_send(v, CTL_ABORT, 0, code, 0);
	summary(v);
	printf("mroce-verify[%s]: FAIL\n", v->role);
	exit(code);
}

/* Backstop for a call that blocks in the kernel past the deadline. */
static void on_alarm(int sig)
{
	static const char msg[] =
		"mroce-verify: FAIL: hard timeout, a call did not return\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(EXIT_TIMEOUT);
	_exit(EXIT_TIMEOUT);
}

/* ------------------------------------------------------------------------ */
/* Deterministic pseudo-random data */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t next64(uint64_t *state)
{
	*state += GOLDEN;
	return mix64(*state);
}

static uint32_t below(uint64_t *state, uint32_t n)
{
	return n ? next64(state) % n : 0;
}

static uint64_t key_of(const struct verify *v, enum key_tag tag,
		       unsigned int side, unsigned int qp, uint32_t round,
		       uint32_t j)
{
	uint64_t h = mix64(v->cfg.seed + GOLDEN * (tag + 1));

	h = mix64(h + GOLDEN + ((uint64_t)side << 32 | qp));
	h = mix64(h + GOLDEN + ((uint64_t)round << 32 | j));
	return h;
}

/* Byte `pos` of pattern `key` is byte pos % 8 of a hash of (key, pos / 8). */
static void pattern_fill(uint8_t *dst, uint64_t key, uint64_t pos, size_t len)
{
	while (len) {
		uint64_t w = mix64(key ^ ((pos >> 3) * GOLDEN + GOLDEN));
		unsigned int b = pos & 7;

		for (; b < 8 && len; b++, len--, pos++)
			*dst++ = w >> (8 * b);
	}
}

static uint64_t cas_init(const struct verify *v, unsigned int side,
			 unsigned int qp)
{
	return key_of(v, K_CAS, side, qp, 0, 0);
}

/* Below 2^62, so the sum of all adds cannot wrap and originals sort. */
static uint64_t fadd_init(const struct verify *v, unsigned int side)
{
	return key_of(v, K_FADD, side, 0, 0, 0) >> 2;
}

/* ------------------------------------------------------------------------ */
/* Schedule */

/*
 * Message sizes: zero, tiny, a packet boundary (multiples of every MTU)
 * plus or minus one, or anything up to max_size.
 */
static uint32_t pick_size(uint64_t *rng, uint32_t max)
{
	static const uint32_t edges[] = {
		256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
	};
	uint32_t r = below(rng, 100), s;

	if (r < 10 || max == 0)
		return 0;
	if (r < 30)
		return 1 + below(rng, umin(64, max));
	if (r < 50) {
		s = edges[below(rng, ARRAY_SIZE(edges))] + below(rng, 3) - 1;
		if (s <= max)
			return s;
	}
	return below(rng, max + 1);
}

/* One request of a schedule: everything both sides must agree on. */
static void gen_msg(struct verify *v, struct stream *s, struct msg *m)
{
	uint32_t max = v->cfg.max_size;

	m->op = v->op_list[below(&s->rng, v->nops)];
	switch (m->op) {
	case OP_SEND:
	case OP_SEND_IMM:
	case OP_WRITE:
	case OP_WRITE_IMM:
		m->size = pick_size(&s->rng, max);
		m->remote_off = GUARD + below(&s->rng, OFFSET_SPAN);
		m->imm = next64(&s->rng);
		break;
	case OP_SEND_INLINE:
		m->size = below(&s->rng, 5) == 0 ? 0 :
			  below(&s->rng, umin(INLINE_SIZE, max) + 1);
		break;
	case OP_READ:
		m->size = pick_size(&s->rng, max);
		m->remote_off = below(&s->rng, v->lay.rsrc_len - m->size + 1);
		break;
	case OP_CAS:
		m->size = 8;
		m->expect = s->cas_value;
		m->swap = next64(&s->rng);
		if (below(&s->rng, 4) == 0) {
			/* A miss: wrong compare value, the word must stay. */
			m->compare_add = s->cas_value ^ (next64(&s->rng) | 1);
		} else {
			m->compare_add = s->cas_value;
			s->cas_value = m->swap;
		}
		break;
	case OP_FADD:
		m->size = 8;
		m->compare_add = 1 + (next64(&s->rng) >> 32);
		s->fadd_sum += m->compare_add;
		break;
	}
}

/*
 * Generate the current round (d->round) of the requests `side` sends on
 * qp: up to WINDOW requests, then the fence SEND.
 */
static void gen_round(struct verify *v, struct dir *d, unsigned int side,
		      unsigned int qp)
{
	struct stream *s = &d->gen;
	uint32_t n = umin(v->cfg.window, v->cfg.msgs - d->round * v->cfg.window);
	uint32_t nrecv = 0;

	for (uint32_t j = 0; j <= n; j++) {
		struct msg *m = &d->m[j];

		memset(m, 0, sizeof(*m));
		m->key = key_of(v, K_PAYLOAD, side, qp, d->round, j);
		if (j < n) {
			gen_msg(v, s, m);
		} else {
			m->fence = true;
			m->op = OP_SEND;
			m->size = below(&s->rng, FENCE_SIZE + 1);
		}
		if (op_uses_recv(m->op))
			d->recv_msg[nrecv++] = j;
	}
	d->count = n + 1;
	d->nrecv = nrecv;
}

/*
 * Lay `len` bytes out in a slot as up to `maxp` pieces, starting at a random
 * offset (any alignment, any position in a page) with random gaps between
 * pieces.  A zero-length request gets no SGE or one empty SGE.
 */
static void lay_out(uint64_t *rng, uint32_t len, unsigned int maxp,
		    struct msg *m)
{
	uint32_t off = GUARD + below(rng, OFFSET_SPAN);
	uint32_t left = len;
	unsigned int n;

	n = len ? 1 + below(rng, umin(maxp, len)) : below(rng, 2);
	m->lo = off - GUARD;
	for (unsigned int i = 0; i < n; i++) {
		uint32_t l = i == n - 1 ? left : 1 + below(rng, left - (n - 1 - i));

		m->pc[i].off = off;
		m->pc[i].len = l;
		off += l;
		left -= l;
		if (i < n - 1)
			off += below(rng, MAX_GAP + 1);
	}
	m->npc = n;
	m->hi = off + GUARD;
}

/* ------------------------------------------------------------------------ */
/* Checking memory */

struct mismatch {
	uint64_t bad;
	uint64_t unwritten;	/* bad bytes that still hold poison */
	uint32_t first;		/* offset in the slot of the first bad byte */
	uint8_t got, want;
};

/*
 * Compare span [lo, hi) of a slot with what it must hold: poison, except
 * that the pieces, taken in order, hold `filled` bytes of pattern `key`
 * starting at pattern position pos0 (and poison after those).
 */
static bool check_span(struct verify *v, const uint8_t *slot, uint32_t lo,
		       uint32_t hi, const struct piece *pc, unsigned int npc,
		       uint64_t key, uint64_t pos0, uint32_t filled,
		       struct mismatch *mm)
{
	uint8_t *want = v->scratch;
	uint32_t done = 0;

	memset(want, POISON, hi - lo);
	for (unsigned int i = 0; i < npc && done < filled; i++) {
		uint32_t n = umin(pc[i].len, filled - done);

		pattern_fill(want + pc[i].off - lo, key, pos0 + done, n);
		done += n;
	}
	memset(mm, 0, sizeof(*mm));
	if (!memcmp(slot + lo, want, hi - lo))
		return true;
	for (uint32_t i = 0; i < hi - lo; i++) {
		if (slot[lo + i] == want[i])
			continue;
		mm->unwritten += slot[lo + i] == POISON;
		if (!mm->bad++) {
			mm->first = lo + i;
			mm->got = slot[lo + i];
			mm->want = want[i];
		}
	}
	return false;
}

static void msg_desc(char *buf, size_t len, const struct qpc *q,
		     const struct dir *d, const struct msg *m)
{
	snprintf(buf, len, "qp %u round %u msg %td %s %u B", q->idx, d->round,
		 m - d->m, m->fence ? "fence" : op_name[m->op], m->size);
}

static void count_corrupt(struct verify *v, const struct qpc *q,
			  const struct dir *d, const struct msg *m,
			  const char *where, uint32_t data_off,
			  const struct mismatch *mm)
{
	char desc[128];

	msg_desc(desc, sizeof(desc), q, d, m);
	v->c.corrupt += mm->bad;
	/* Telling "never placed" from "placed wrong" helps find the bug. */
	report(v, "corrupt data: %s, %s: %" PRIu64 " bytes differ, first at %+" PRId64
	       " from the data start (got %#04x, want %#04x)%s", desc, where, mm->bad,
	       (int64_t)mm->first - data_off, mm->got, mm->want,
	       mm->unwritten == mm->bad ? "; all of them still poison (never written)" : "");
}

/* ------------------------------------------------------------------------ */
/* TCP control channel */

/* Read exactly len bytes (and no more) before the deadline: 0 or -errno. */
static int recv_exact(struct verify *v, void *buf, size_t len)
{
	switch (recv_all(v->sock, buf, len, v->deadline)) {
	case OOB_OK:
		return 0;
	case OOB_TIMEOUT:
		return -ETIMEDOUT;
	case OOB_EOF:
		return -ECONNRESET;
	default:
		return -errno;
	}
}

static void ctl_send(struct verify *v, uint32_t type, uint32_t qp, uint64_t a,
		     uint64_t b)
{
	uint8_t rec[CTL_LEN];

	put_be32(rec, type);
	put_be32(rec + 4, qp);
	put_be64(rec + 8, a);
	put_be64(rec + 16, b);
	if (!send_all(v->sock, rec, sizeof(rec)) && type != CTL_ABORT) {
		int sock = v->sock;

		v->sock = -1;	/* no ABORT on a broken connection */
		close(sock);
		stop(v, EXIT_FAIL, "lost the TCP connection to the peer: %s",
		     strerror(errno));
	}
}

static void tcp_accept(struct verify *v)
{
	int lfd, gai_err;

	lfd = oob_listen(v->cfg.port, &gai_err);
	if (gai_err)
		stop(v, EXIT_SETUP, "port %s: %s", v->cfg.port, gai_strerror(gai_err));
	if (lfd < 0)
		stop(v, EXIT_SETUP, "cannot listen on TCP port %s: %s",
		     v->cfg.port, strerror(errno));
	say(v, "waiting for the client on TCP port %s", v->cfg.port);
	v->sock = oob_accept(lfd, v->deadline);
	if (v->sock < 0)
		stop(v, EXIT_TIMEOUT, "timeout: no client connected within %u s",
		     v->cfg.timeout);
	close(lfd);
}

/* The server may not listen yet: retry until the deadline. */
static void tcp_connect(struct verify *v)
{
	struct addrinfo *res;
	int ret;

	ret = oob_resolve(v->cfg.server, v->cfg.port, &res);
	if (ret)
		stop(v, EXIT_SETUP, "%s port %s: %s", v->cfg.server, v->cfg.port,
		     gai_strerror(ret));
	say(v, "connecting to %s port %s", v->cfg.server, v->cfg.port);
	v->sock = oob_connect(res, v->deadline);
	if (v->sock < 0)
		stop(v, EXIT_TIMEOUT, "timeout: cannot connect to %s port %s: %s",
		     v->cfg.server, v->cfg.port, strerror(errno));
	freeaddrinfo(res);
}

/* ------------------------------------------------------------------------ */
/* Device and QP setup */

static const char *gid_str(const union ibv_gid *gid, char *buf)
{
	return inet_ntop(AF_INET6, gid->raw, buf, INET6_ADDRSTRLEN);
}

static const char *gid_type_str(unsigned int type)
{
	switch (type) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	default:
		return "unknown type";
	}
}

/*
 * Without -g, use the IPv4-mapped RoCE v2 GID.  The table is filled from
 * the netdev's addresses asynchronously, so give it a few seconds after a
 * fresh `rdma link add`.
 */
static void pick_gid(struct verify *v)
{
	struct ibv_gid_entry e;
	char buf[INET6_ADDRSTRLEN];
	double give_up = dmin(now() + 5, v->deadline);

	if (v->cfg.gid_index >= 0) {
		if (ibv_query_gid_ex(v->ctx, v->cfg.ib_port, v->cfg.gid_index, &e, 0))
			stop(v, EXIT_SETUP, "GID index %d of %s port %u: %s",
			     v->cfg.gid_index, v->cfg.dev, v->cfg.ib_port,
			     strerror(errno));
		goto found;
	}
	if (!find_ipv4_roce_gid(v->ctx, v->cfg.ib_port, v->port_attr.gid_tbl_len,
				give_up, &e))
		stop(v, EXIT_SETUP, "%s port %u has no IPv4 RoCE v2 GID (use -g)",
		     v->cfg.dev, v->cfg.ib_port);
found:
	v->gid_index = e.gid_index;
	v->gid = e.gid;
	say(v, "%s port %u GID %u %s (%s)", v->cfg.dev, v->cfg.ib_port,
	    e.gid_index, gid_str(&e.gid, buf), gid_type_str(e.gid_type));
}

static void open_device(struct verify *v)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	if (!list)
		stop(v, EXIT_SETUP, "ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), v->cfg.dev))
			v->ctx = ibv_open_device(list[i]);
	if (!v->ctx) {
		fprintf(stderr, "mroce-verify: devices:");
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %s", ibv_get_device_name(list[i]));
		fprintf(stderr, "%s\n", n ? "" : " none");
		stop(v, EXIT_SETUP, "cannot open device %s", v->cfg.dev);
	}
	ibv_free_device_list(list);

	if (ibv_query_device(v->ctx, &v->dev_attr))
		stop(v, EXIT_SETUP, "ibv_query_device: %s", strerror(errno));
	if (ibv_query_port(v->ctx, v->cfg.ib_port, &v->port_attr))
		stop(v, EXIT_SETUP, "ibv_query_port %u: %s", v->cfg.ib_port,
		     strerror(errno));
	if (v->port_attr.state != IBV_PORT_ACTIVE)
		stop(v, EXIT_SETUP, "%s port %u is not active", v->cfg.dev,
		     v->cfg.ib_port);
	if (v->port_attr.link_layer != IBV_LINK_LAYER_ETHERNET)
		stop(v, EXIT_SETUP, "%s port %u is not RoCE (Ethernet link layer)",
		     v->cfg.dev, v->cfg.ib_port);
	if ((v->cfg.ops & ATOMIC_OPS) && v->dev_attr.atomic_cap == IBV_ATOMIC_NONE)
		stop(v, EXIT_SETUP, "%s has no atomics: leave cas and fadd out of -o",
		     v->cfg.dev);
	if ((v->cfg.ops & (ATOMIC_OPS | 1u << OP_READ)) &&
	    (!v->dev_attr.max_qp_rd_atom || !v->dev_attr.max_qp_init_rd_atom))
		stop(v, EXIT_SETUP, "%s allows no outstanding READ/atomic: leave read, cas and fadd out of -o",
		     v->cfg.dev);
	if ((unsigned int)v->dev_attr.max_qp_wr < v->cfg.window + 1)
		stop(v, EXIT_SETUP, "window %u needs %u WRs per queue, %s allows %d",
		     v->cfg.window, v->cfg.window + 1, v->cfg.dev,
		     v->dev_attr.max_qp_wr);
	v->max_sge = umin(v->cfg.sges, umax(v->dev_attr.max_sge, 1));
	v->max_sge_rd = umin(v->max_sge, umax(v->dev_attr.max_sge_rd, 1));
	v->mtu = v->port_attr.active_mtu;
	pick_gid(v);
}

static void compute_layout(struct verify *v)
{
	struct layout *l = &v->lay;
	size_t w = v->cfg.window;
	size_t big = umax(v->cfg.max_size, FENCE_SIZE);

	/* offset span + data + receive slack + gaps + guards on both sides */
	l->slot = ALIGN64(GUARD + OFFSET_SPAN + big + GUARD +
			  MAX_PIECES * MAX_GAP + GUARD);
	l->rsrc_len = v->cfg.max_size + OFFSET_SPAN;
	l->local = 0;
	l->recv = l->local + (w + 1) * l->slot;
	l->wtgt = l->recv + (w + 1) * l->slot;
	l->rsrc = l->wtgt + w * l->slot;
	l->atom = ALIGN64(l->rsrc + l->rsrc_len);
	l->total = l->atom + ALIGN64(ATOM_LEN);
}

static void setup_resources(struct verify *v)
{
	const struct config *cfg = &v->cfg;
	unsigned int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ;
	int cqe = cfg->nqp * (cfg->window + 1);

	if (cfg->ops & ATOMIC_OPS)
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	compute_layout(v);
	v->scratch = malloc(umax(v->lay.slot, v->lay.rsrc_len));
	v->qps = calloc(cfg->nqp, sizeof(*v->qps));
	if (!v->scratch || !v->qps)
		stop(v, EXIT_SETUP, "out of memory");

	v->pd = ibv_alloc_pd(v->ctx);
	if (!v->pd)
		stop(v, EXIT_SETUP, "ibv_alloc_pd: %s", strerror(errno));
	/*
	 * Completion events rather than busy polling: on a one-CPU VM a
	 * spinning poller would compete with the soft device's own work.
	 */
	v->chan = ibv_create_comp_channel(v->ctx);
	if (!v->chan)
		stop(v, EXIT_SETUP, "ibv_create_comp_channel: %s", strerror(errno));
	if (fcntl(v->chan->fd, F_SETFL, fcntl(v->chan->fd, F_GETFL) | O_NONBLOCK) ||
	    fcntl(v->ctx->async_fd, F_SETFL,
		  fcntl(v->ctx->async_fd, F_GETFL) | O_NONBLOCK))
		stop(v, EXIT_SETUP, "fcntl: %s", strerror(errno));
	/*
	 * One send and one receive CQ shared by all QPs: room for every WR
	 * that can be outstanding, so they cannot overflow.
	 */
	v->scq = ibv_create_cq(v->ctx, cqe, NULL, v->chan, 0);
	v->rcq = ibv_create_cq(v->ctx, cqe, NULL, v->chan, 0);
	if (!v->scq || !v->rcq)
		stop(v, EXIT_SETUP, "ibv_create_cq (%d entries): %s", cqe,
		     strerror(errno));

	for (unsigned int i = 0; i < cfg->nqp; i++) {
		struct qpc *q = &v->qps[i];
		struct ibv_qp_init_attr init = {
			.send_cq = v->scq,
			.recv_cq = v->rcq,
			.qp_type = IBV_QPT_RC,
			.cap = {
				.max_send_wr = cfg->window + 1,
				.max_recv_wr = cfg->window + 1,
				.max_send_sge = v->max_sge,
				.max_recv_sge = v->max_sge,
			},
		};
		struct ibv_qp_attr attr = {
			.qp_state = IBV_QPS_INIT,
			.port_num = cfg->ib_port,
			.qp_access_flags = access & ~IBV_ACCESS_LOCAL_WRITE,
		};
		static const uint32_t inline_try[] = { INLINE_SIZE, 64, 0 };
		uint64_t cas = cas_init(v, v->side, i);
		uint64_t fadd = fadd_init(v, v->side);

		q->idx = i;
		if (posix_memalign((void **)&q->buf, 4096, v->lay.total))
			stop(v, EXIT_SETUP, "out of memory for %zu B buffers",
			     v->lay.total);
		memset(q->buf, POISON, v->lay.total);
		pattern_fill(q->buf + v->lay.rsrc, key_of(v, K_RSRC, v->side, i, 0, 0),
			     0, v->lay.rsrc_len);
		memcpy(q->buf + v->lay.atom + CAS_OFF, &cas, 8);
		if (i == 0)
			memcpy(q->buf + v->lay.atom + FADD_OFF, &fadd, 8);
		q->mr = ibv_reg_mr(v->pd, q->buf, v->lay.total, access);
		if (!q->mr)
			stop(v, EXIT_SETUP, "ibv_reg_mr (%zu B): %s", v->lay.total,
			     strerror(errno));

		/* Ask for inline room, settle for less if refused. */
		for (unsigned int k = 0; k < ARRAY_SIZE(inline_try) && !q->qp; k++) {
			init.cap.max_inline_data = inline_try[k];
			q->qp = ibv_create_qp(v->pd, &init);
		}
		if (!q->qp)
			stop(v, EXIT_SETUP, "ibv_create_qp: %s", strerror(errno));
		v->max_inline = i ? umin(v->max_inline, init.cap.max_inline_data) :
				    init.cap.max_inline_data;
		if (ibv_modify_qp(q->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			stop(v, EXIT_SETUP, "QP %u to INIT: %s", i, strerror(errno));

		/* Some QPs start just below the 24-bit PSN wrap. */
		q->psn = key_of(v, K_PSN, v->side, i, 0, 0) & 0xffffff;
		if (i % 4 == 0)
			q->psn = 0xffffff - (q->psn & 0x3f);

		q->tx.m = calloc(cfg->window + 1, sizeof(struct msg));
		q->rx.m = calloc(cfg->window + 1, sizeof(struct msg));
		q->rx.recv_msg = calloc(cfg->window + 1, sizeof(uint32_t));
		q->tx.recv_msg = calloc(cfg->window + 1, sizeof(uint32_t));
		if (!q->tx.m || !q->rx.m || !q->rx.recv_msg || !q->tx.recv_msg)
			stop(v, EXIT_SETUP, "out of memory");
		/*
		 * The stream this side sends targets the peer's words, the one it
		 * receives targets its own.
		 */
		q->tx.gen.rng = key_of(v, K_SCHED, v->side, i, 0, 0);
		q->tx.gen.cas_value = cas_init(v, !v->side, i);
		q->rx.gen.rng = key_of(v, K_SCHED, !v->side, i, 0, 0);
		q->rx.gen.cas_value = cas_init(v, v->side, i);
	}
	if ((cfg->ops & (1u << OP_SEND_INLINE)) && v->max_inline == 0)
		say(v, "note: QPs have no inline room, send_inline is posted without IBV_SEND_INLINE");
}

static void connect_qps(struct verify *v)
{
	const struct config *cfg = &v->cfg;

	for (unsigned int i = 0; i < cfg->nqp; i++) {
		struct qpc *q = &v->qps[i];
		struct ibv_qp_attr attr = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = v->mtu,
			.dest_qp_num = q->peer_qpn,
			.rq_psn = q->peer_psn,
			.max_dest_rd_atomic = umin(v->dev_attr.max_qp_rd_atom, 16),
			.min_rnr_timer = 12,
			.ah_attr = {
				.is_global = 1,
				.grh = {
					.dgid = v->peer_gid,
					.sgid_index = v->gid_index,
					.hop_limit = 64,
				},
				.port_num = cfg->ib_port,
			},
		};

		if (ibv_modify_qp(q->qp, &attr, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
			stop(v, EXIT_SETUP, "QP %u to RTR: %s", i, strerror(errno));

		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTS;
		attr.timeout = cfg->ack_timeout;
		attr.retry_cnt = 7;
		attr.rnr_retry = 7;
		attr.sq_psn = q->psn;
		attr.max_rd_atomic = umin(v->dev_attr.max_qp_init_rd_atom, 16);
		if (ibv_modify_qp(q->qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC))
			stop(v, EXIT_SETUP, "QP %u to RTS: %s", i, strerror(errno));
	}
}

/*
 * Setup exchange, one message each way: a header of be64 words, then four
 * words per QP.  Both sides must run the same configuration, as both derive
 * the traffic from it.
 */
enum {
	H_MAGIC, H_VERSION, H_NQP, H_MSGS, H_WINDOW, H_MAX_SIZE, H_OPS, H_SEED,
	H_MTU, H_GID_HI, H_GID_LO, H_WORDS
};

#define HELLO_MAGIC	0x6d726f6365766679ULL	/* "mrocevfy" */
#define HELLO_VERSION	1

static void exchange(struct verify *v)
{
	const struct config *cfg = &v->cfg;
	size_t len = (H_WORDS + 4 * cfg->nqp) * 8;
	uint8_t *out = malloc(len), *in = malloc(len);
	static const char *const what[] = {
		[H_NQP] = "-q", [H_MSGS] = "-n", [H_WINDOW] = "-w",
		[H_MAX_SIZE] = "-m", [H_OPS] = "-o (bit mask)", [H_SEED] = "-S",
	};
	uint64_t mine[H_WORDS] = {
		HELLO_MAGIC, HELLO_VERSION, cfg->nqp, cfg->msgs, cfg->window,
		cfg->max_size, cfg->ops, cfg->seed, v->mtu,
	};
	int ret;

	if (!out || !in)
		stop(v, EXIT_SETUP, "out of memory");
	mine[H_GID_HI] = get_be64(v->gid.raw);
	mine[H_GID_LO] = get_be64(v->gid.raw + 8);
	for (unsigned int k = 0; k < H_WORDS; k++)
		put_be64(out + 8 * k, mine[k]);
	for (unsigned int i = 0; i < cfg->nqp; i++) {
		uint8_t *p = out + (H_WORDS + 4 * i) * 8;

		put_be64(p, v->qps[i].qp->qp_num);
		put_be64(p + 8, v->qps[i].psn);
		put_be64(p + 16, (uintptr_t)v->qps[i].buf);
		put_be64(p + 24, v->qps[i].mr->rkey);
	}
	if (!send_all(v->sock, out, len))
		stop(v, EXIT_FAIL, "sending the setup to the peer: %s", strerror(errno));

	ret = recv_exact(v, in, H_WORDS * 8);
	if (ret)
		stop(v, ret == -ETIMEDOUT ? EXIT_TIMEOUT : EXIT_FAIL,
		     "receiving the peer's setup: %s", strerror(-ret));
	if (get_be64(in + 8 * H_MAGIC) != HELLO_MAGIC ||
	    get_be64(in + 8 * H_VERSION) != HELLO_VERSION)
		stop(v, EXIT_SETUP, "the peer is not mroce-verify version %d",
		     HELLO_VERSION);
	for (unsigned int k = H_NQP; k <= H_SEED; k++) {
		uint64_t theirs = get_be64(in + 8 * k);

		if (theirs != mine[k])
			stop(v, EXIT_SETUP, "configuration differs from the peer's: %s %" PRIu64
			     " here, %" PRIu64 " there", what[k], mine[k], theirs);
	}
	ret = recv_exact(v, in + H_WORDS * 8, len - H_WORDS * 8);
	if (ret)
		stop(v, ret == -ETIMEDOUT ? EXIT_TIMEOUT : EXIT_FAIL,
		     "receiving the peer's setup: %s", strerror(-ret));

	v->mtu = umin(v->mtu, get_be64(in + 8 * H_MTU));
	put_be64(v->peer_gid.raw, get_be64(in + 8 * H_GID_HI));
	put_be64(v->peer_gid.raw + 8, get_be64(in + 8 * H_GID_LO));
	for (unsigned int i = 0; i < cfg->nqp; i++) {
		const uint8_t *p = in + (H_WORDS + 4 * i) * 8;
		struct qpc *q = &v->qps[i];

		q->peer_qpn = get_be64(p);
		q->peer_psn = get_be64(p + 8);
		q->peer_addr = get_be64(p + 16);
		q->peer_rkey = get_be64(p + 24);
	}
	free(out);
	free(in);
}

/* ------------------------------------------------------------------------ */
/* Requester side */

static uint8_t *local_slot(struct verify *v, struct qpc *q, uint32_t j)
{
	return q->buf + v->lay.local + j * v->lay.slot;
}

/* Lay out request j locally: its data in place, or poison to read into. */
static void prepare_local(struct verify *v, struct qpc *q, uint32_t j)
{
	struct msg *m = &q->tx.m[j];
	uint8_t *slot = local_slot(v, q, j);
	uint64_t rng = key_of(v, K_LOCAL, v->side, q->idx, q->tx.round, j);

	if (op_atomic(m->op)) {
		uint32_t off = GUARD + below(&rng, OFFSET_SPAN);

		m->pc[0].off = off;
		m->pc[0].len = 8;
		m->npc = 1;
		m->lo = off - GUARD;
		m->hi = off + 8 + GUARD;
		memset(slot + m->lo, POISON, m->hi - m->lo);
		return;
	}
	lay_out(&rng, m->size, m->op == OP_READ ? v->max_sge_rd : v->max_sge, m);
	if (m->op == OP_READ) {
		memset(slot + m->lo, POISON, m->hi - m->lo);
		return;
	}
	for (unsigned int i = 0, pos = 0; i < m->npc; pos += m->pc[i++].len)
		pattern_fill(slot + m->pc[i].off, m->key, pos, m->pc[i].len);
	m->inl = m->op == OP_SEND_INLINE && m->size <= v->max_inline;
}

static void build_send(struct verify *v, struct qpc *q, uint32_t j,
		       struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct layout *l = &v->lay;
	struct msg *m = &q->tx.m[j];
	uint8_t *slot = local_slot(v, q, j);

	memset(wr, 0, sizeof(*wr));
	for (unsigned int i = 0; i < m->npc; i++) {
		sge[i].addr = (uintptr_t)slot + m->pc[i].off;
		sge[i].length = m->pc[i].len;
		sge[i].lkey = q->mr->lkey;
	}
	wr->wr_id = (uint64_t)q->idx << 32 | (uint32_t)(q->tx.base_seq + j);
	wr->sg_list = sge;
	wr->num_sge = m->npc;
	wr->send_flags = IBV_SEND_SIGNALED | (m->inl ? IBV_SEND_INLINE : 0);

	switch (m->op) {
	case OP_SEND:
	case OP_SEND_INLINE:
		wr->opcode = IBV_WR_SEND;
		break;
	case OP_SEND_IMM:
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htonl(m->imm);
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		wr->opcode = m->op == OP_WRITE ? IBV_WR_RDMA_WRITE :
			     IBV_WR_RDMA_WRITE_WITH_IMM;
		wr->imm_data = htonl(m->imm);
		wr->wr.rdma.remote_addr = q->peer_addr + l->wtgt + j * l->slot +
					  m->remote_off;
		wr->wr.rdma.rkey = q->peer_rkey;
		break;
	case OP_READ:
		wr->opcode = IBV_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = q->peer_addr + l->rsrc + m->remote_off;
		wr->wr.rdma.rkey = q->peer_rkey;
		break;
	case OP_CAS:
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.remote_addr = q->peer_addr + l->atom + CAS_OFF;
		wr->wr.atomic.rkey = q->peer_rkey;
		wr->wr.atomic.compare_add = m->compare_add;
		wr->wr.atomic.swap = m->swap;
		break;
	case OP_FADD:
		/* One counter for all QPs, in QP 0's buffer. */
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.remote_addr = v->qps[0].peer_addr + l->atom + FADD_OFF;
		wr->wr.atomic.rkey = v->qps[0].peer_rkey;
		wr->wr.atomic.compare_add = m->compare_add;
		break;
	}
}

/* Post the whole round (requests and fence), in lists of 1..MAX_BATCH WRs. */
static void tx_start_round(struct verify *v, struct qpc *q)
{
	struct dir *d = &q->tx;
	uint64_t rng = key_of(v, K_BATCH, v->side, q->idx, d->round, 0);
	struct ibv_send_wr *bad;
	int ret;

	gen_round(v, d, v->side, q->idx);
	for (uint32_t j = 0; j < d->count; j++)
		prepare_local(v, q, j);
	d->base_seq = d->next_seq;
	d->pending = d->count;
	d->busy = true;

	for (uint32_t j = 0, n; j < d->count; j += n) {
		n = umin(1 + below(&rng, MAX_BATCH), d->count - j);
		for (uint32_t k = 0; k < n; k++) {
			build_send(v, q, j + k, &v->swr[k], v->sge[k]);
			v->swr[k].next = k + 1 < n ? &v->swr[k + 1] : NULL;
		}
		ret = ibv_post_send(q->qp, v->swr, &bad);
		if (ret)
			stop(v, EXIT_FAIL, "qp %u: ibv_post_send of round %u msg %u (opcode %d, %d SGEs, flags %#x) failed: %s",
			     q->idx, d->round, (uint32_t)bad->wr_id - d->base_seq,
			     bad->opcode, bad->num_sge, bad->send_flags,
			     strerror(ret));
		/*
		 * Inline data belongs to the WR once posted: clobber the source
		 * so a provider that still reads it later sends poison.
		 */
		for (uint32_t k = 0; k < n; k++) {
			struct msg *m = &d->m[j + k];

			for (unsigned int i = 0; m->inl && i < m->npc; i++)
				memset(local_slot(v, q, j + k) + m->pc[i].off, POISON,
				       m->pc[i].len);
			v->c.inline_sends += m->inl;
		}
	}
}

static void maybe_start_tx(struct verify *v, struct qpc *q)
{
	if (!q->tx.busy && q->tx.round < v->nrounds && q->peer_ready > q->tx.round)
		tx_start_round(v, q);
}

static void check_fadds(struct verify *v);
static void maybe_finish(struct verify *v);
static void progress(struct verify *v, bool stuck);

/* Count (and report) bytes of slot range [lo, hi) that are no longer poison. */
static uint64_t poison_damage(struct verify *v, const struct qpc *q,
			      const struct dir *d, const struct msg *m,
			      const uint8_t *slot, uint32_t lo, uint32_t hi)
{
	struct mismatch mm = { 0 };

	for (uint32_t i = lo; i < hi; i++) {
		if (slot[i] == POISON)
			continue;
		if (!mm.bad++) {
			mm.first = i;
			mm.got = slot[i];
			mm.want = POISON;
		}
	}
	if (mm.bad)
		count_corrupt(v, q, d, m, "around the atomic result",
			      m->pc[0].off, &mm);
	return mm.bad;
}

/* An atomic result still all poison: the device never wrote it. */
static bool unwritten(uint64_t got)
{
	return got == 0x0101010101010101ULL * POISON;
}

#define UNWRITTEN_NOTE	" (result buffer still poison: never written)"

/* Check what a completed request brought back: READ data, atomic originals. */
static void check_tx_data(struct verify *v, struct qpc *q, struct msg *m)
{
	struct dir *d = &q->tx;
	uint8_t *slot = local_slot(v, q, m - d->m);
	struct mismatch mm;
	uint64_t got;

	if (m->op == OP_READ) {
		if (!check_span(v, slot, m->lo, m->hi, m->pc, m->npc,
				key_of(v, K_RSRC, !v->side, q->idx, 0, 0),
				m->remote_off, m->size, &mm))
			count_corrupt(v, q, d, m, "read back",
				      m->npc ? m->pc[0].off : m->lo + GUARD, &mm);
		v->c.bytes += m->size;
		return;
	}
	if (!op_atomic(m->op))
		return;

	memcpy(&got, slot + m->pc[0].off, 8);
	/* Only the 8 result bytes may have changed. */
	poison_damage(v, q, d, m, slot, m->lo, m->pc[0].off);
	poison_damage(v, q, d, m, slot, m->pc[0].off + 8, m->hi);
	v->c.bytes += 8;

	if (m->op == OP_CAS) {
		if (got != m->expect) {
			char desc[128];

			msg_desc(desc, sizeof(desc), q, d, m);
			v->c.corrupt += 8;
			report(v, "%s: compare-swap returned %#" PRIx64 ", the chain says %#"
			       PRIx64 "%s", desc, got, m->expect,
			       unwritten(got) ? UNWRITTEN_NOTE : "");
		}
		v->c.cas_misses += m->compare_add != m->expect;
		return;
	}

	/*
	 * Fetch-add: a QP's adds execute in order and are all > 0.  A result
	 * never written says nothing about order; the chain check at the end
	 * will miss it.
	 */
	if (unwritten(got)) {
		char desc[128];

		msg_desc(desc, sizeof(desc), q, d, m);
		v->c.corrupt += 8;
		report(v, "%s: fetch-add returned %#" PRIx64 UNWRITTEN_NOTE, desc, got);
		v->fadds_lost++;
		return;
	}
	if (q->any_fadd && got <= q->last_fadd) {
		char desc[128];

		msg_desc(desc, sizeof(desc), q, d, m);
		v->c.order_errors++;
		report(v, "%s: fetch-add returned %#" PRIx64 ", not above this QP's previous %#"
		       PRIx64, desc, got, q->last_fadd);
	}
	q->any_fadd = true;
	q->last_fadd = got;
	if (v->nfadds == v->fadds_cap) {
		v->fadds_cap = v->fadds_cap ? 2 * v->fadds_cap : 1024;
		v->fadds = realloc(v->fadds, v->fadds_cap * sizeof(*v->fadds));
		if (!v->fadds)
			stop(v, EXIT_FAIL, "out of memory");
	}
	v->fadds[v->nfadds].orig = got;
	v->fadds[v->nfadds++].add = m->compare_add;
}

/*
 * An error completion moves its QP to the error state, which flushes the
 * rest of its WRs: report the real errors (the first flush only, for
 * context) and stop once the CQs are drained, as the run cannot complete.
 */
static void wc_failed(struct verify *v, const struct ibv_wc *wc,
		      const char *queue, const char *desc)
{
	bool flush = wc->status == IBV_WC_WR_FLUSH_ERR;

	v->c.wc_errors++;
	if (!flush || !v->flushes++)
		report(v, "%s: %s completion (wr %u) status %s (%d), vendor_err %#x%s",
		       desc, queue, (uint32_t)wc->wr_id,
		       ibv_wc_status_str(wc->status), wc->status, wc->vendor_err,
		       flush ? " (further flushes not shown)" : "");
	v->broken = true;
}

static void on_send_wc(struct verify *v, const struct ibv_wc *wc)
{
	uint32_t qi = wc->wr_id >> 32, seq = (uint32_t)wc->wr_id, j;
	struct qpc *q;
	struct dir *d;
	struct msg *m;
	char desc[128];

	if (qi >= v->cfg.nqp) {
		v->c.order_errors++;
		report(v, "send completion with unknown wr_id %#" PRIx64, wc->wr_id);
		return;
	}
	q = &v->qps[qi];
	d = &q->tx;
	j = seq - d->base_seq;
	if (!d->busy || j >= d->count || d->m[j].done) {
		v->c.order_errors++;
		report(v, "qp %u: unexpected or repeated send completion, wr %u, status %s (round %u, wr %u..%u %s)",
		       qi, seq, ibv_wc_status_str(wc->status), d->round,
		       d->base_seq, d->base_seq + d->count - 1,
		       d->busy ? "posted" : "not posted");
		v->broken |= wc->status != IBV_WC_SUCCESS;
		return;
	}
	m = &d->m[j];
	msg_desc(desc, sizeof(desc), q, d, m);
	if (wc->status != IBV_WC_SUCCESS) {
		wc_failed(v, wc, "send", desc);
		return;
	}
	if (seq != d->next_seq) {
		v->c.order_errors++;
		report(v, "qp %u: send completion for wr %u (%s) while wr %u was next",
		       qi, seq, desc, d->next_seq);
	}
	d->next_seq = seq + 1;
	m->done = true;

	if (wc->opcode != op_wc_opcode(m->op) || wc->qp_num != q->qp->qp_num ||
	    ((m->op == OP_READ || op_atomic(m->op)) && wc->byte_len != m->size)) {
		v->c.wc_errors++;
		report(v, "%s: send completion has opcode %d (want %d), qp_num %#x (want %#x), byte_len %u",
		       desc, wc->opcode, op_wc_opcode(m->op), wc->qp_num,
		       q->qp->qp_num, wc->byte_len);
	}
	check_tx_data(v, q, m);
	if (m->fence) {
		v->c.fences++;
	} else {
		v->c.msgs++;
		v->c.ops[m->op]++;
	}

	if (--d->pending)
		return;
	d->busy = false;
	if (++d->round < v->nrounds) {
		maybe_start_tx(v, q);
	} else if (++v->tx_done == v->cfg.nqp) {
		check_fadds(v);
		maybe_finish(v);
	}
}

static int cmp_fadd(const void *a, const void *b)
{
	const struct fadd_result *x = a, *y = b;

	return x->orig < y->orig ? -1 : x->orig > y->orig;
}

/*
 * All fetch-adds are in: sorted by the original value returned, they must
 * chain from the counter's initial value, each add applied exactly once.
 */
static void check_fadds(struct verify *v)
{
	uint64_t expect = fadd_init(v, !v->side);

	qsort(v->fadds, v->nfadds, sizeof(*v->fadds), cmp_fadd);
	for (size_t i = 0; i < v->nfadds; i++) {
		const struct fadd_result *f = &v->fadds[i];

		if (f->orig != expect) {
			v->c.corrupt += 8;
			report(v, "fetch-add chain broken at %zu of %zu: original %#" PRIx64
			       " returned, %#" PRIx64 " expected%s", i, v->nfadds, f->orig,
			       expect, i && f->orig == f[-1].orig ? " (returned twice)" :
			       v->fadds_lost ? " (results never written leave gaps)" : "");
		}
		expect = f->orig + f->add;
	}
}

/* ------------------------------------------------------------------------ */
/* Target side */

static uint8_t *recv_slot(struct verify *v, struct qpc *q, uint32_t k)
{
	return q->buf + v->lay.recv + k * v->lay.slot;
}

static uint8_t *wtgt_slot(struct verify *v, struct qpc *q, uint32_t j)
{
	return q->buf + v->lay.wtgt + j * v->lay.slot;
}

/*
 * Get ready for the peer's next round: poison the WRITE targets, lay out and
 * post the receives, then tell the peer it may go.
 */
static void rx_start_round(struct verify *v, struct qpc *q)
{
	struct dir *d = &q->rx;
	unsigned int peer = !v->side;
	uint64_t brng = key_of(v, K_BATCH, peer, q->idx, d->round, 1);
	struct ibv_recv_wr *bad;
	int ret;

	gen_round(v, d, peer, q->idx);
	for (uint32_t j = 0; j < d->count; j++) {
		struct msg *m = &d->m[j];

		if (op_writes(m->op))
			memset(wtgt_slot(v, q, j) + m->remote_off - GUARD, POISON,
			       m->size + 2 * GUARD);
	}
	d->base_seq = d->next_seq;
	d->pending = d->nrecv;
	d->busy = true;

	for (uint32_t k = 0; k < d->nrecv; k++) {
		uint32_t j = d->recv_msg[k];
		struct msg *m = &d->m[j];
		uint64_t rng = key_of(v, K_RECV, peer, q->idx, d->round, j);
		uint32_t fill = m->op == OP_WRITE_IMM ? 0 : m->size;

		/* Room for the data plus up to GUARD bytes it must not use. */
		lay_out(&rng, fill + below(&rng, GUARD + 1), v->max_sge, m);
		memset(recv_slot(v, q, k) + m->lo, POISON, m->hi - m->lo);
	}
	for (uint32_t k = 0, n; k < d->nrecv; k += n) {
		n = umin(1 + below(&brng, MAX_BATCH), d->nrecv - k);
		for (uint32_t i = 0; i < n; i++) {
			struct msg *m = &d->m[d->recv_msg[k + i]];
			struct ibv_recv_wr *wr = &v->rwr[i];

			for (unsigned int p = 0; p < m->npc; p++) {
				v->sge[i][p].addr = (uintptr_t)recv_slot(v, q, k + i) +
						    m->pc[p].off;
				v->sge[i][p].length = m->pc[p].len;
				v->sge[i][p].lkey = q->mr->lkey;
			}
			wr->wr_id = (uint64_t)q->idx << 32 | (uint32_t)(d->base_seq + k + i);
			wr->sg_list = v->sge[i];
			wr->num_sge = m->npc;
			wr->next = i + 1 < n ? &v->rwr[i + 1] : NULL;
		}
		ret = ibv_post_recv(q->qp, v->rwr, &bad);
		if (ret)
			stop(v, EXIT_FAIL, "qp %u: ibv_post_recv of round %u failed: %s",
			     q->idx, d->round, strerror(ret));
	}
	ctl_send(v, CTL_READY, q->idx, d->round, 0);
}

static void check_final(struct verify *v);

/* The fence is in, so every WRITE of the round has landed: check them. */
static void rx_round_done(struct verify *v, struct qpc *q)
{
	struct dir *d = &q->rx;
	struct mismatch mm;

	for (uint32_t j = 0; j < d->count; j++) {
		struct msg *m = &d->m[j];
		struct piece pc = { m->remote_off, m->size };

		if (!op_writes(m->op))
			continue;
		if (!check_span(v, wtgt_slot(v, q, j), m->remote_off - GUARD,
				m->remote_off + m->size + GUARD, &pc, 1, m->key, 0,
				m->size, &mm))
			count_corrupt(v, q, d, m, "written at the target",
				      m->remote_off, &mm);
		v->c.bytes += m->size;
	}
	d->busy = false;
	if (++d->round < v->nrounds) {
		rx_start_round(v, q);
	} else if (++v->rx_done == v->cfg.nqp) {
		check_final(v);
		maybe_finish(v);
	}
}

static void on_recv_wc(struct verify *v, const struct ibv_wc *wc)
{
	uint32_t qi = wc->wr_id >> 32, seq = (uint32_t)wc->wr_id, k;
	struct qpc *q;
	struct dir *d;
	struct msg *m;
	struct mismatch mm;
	char desc[128];
	enum ibv_wc_opcode want_op;
	bool want_imm;

	if (qi >= v->cfg.nqp) {
		v->c.order_errors++;
		report(v, "receive completion with unknown wr_id %#" PRIx64, wc->wr_id);
		return;
	}
	q = &v->qps[qi];
	d = &q->rx;
	k = seq - d->base_seq;
	if (!d->busy || k >= d->nrecv || d->m[d->recv_msg[k]].done) {
		v->c.order_errors++;
		report(v, "qp %u: unexpected or repeated receive completion, wr %u, status %s (round %u, wr %u..%u %s)",
		       qi, seq, ibv_wc_status_str(wc->status), d->round,
		       d->base_seq, d->base_seq + d->nrecv - 1,
		       d->busy ? "posted" : "not posted");
		v->broken |= wc->status != IBV_WC_SUCCESS;
		return;
	}
	m = &d->m[d->recv_msg[k]];
	msg_desc(desc, sizeof(desc), q, d, m);
	if (wc->status != IBV_WC_SUCCESS) {
		wc_failed(v, wc, "receive", desc);
		return;
	}
	if (seq != d->next_seq) {
		v->c.order_errors++;
		report(v, "qp %u: receive completion for wr %u (%s) while wr %u was next",
		       qi, seq, desc, d->next_seq);
	}
	d->next_seq = seq + 1;
	m->done = true;

	want_op = m->op == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	want_imm = op_has_imm(m->op);
	if (wc->opcode != want_op || wc->qp_num != q->qp->qp_num ||
	    wc->byte_len != m->size || !(wc->wc_flags & IBV_WC_WITH_IMM) != !want_imm ||
	    (want_imm && ntohl(wc->imm_data) != m->imm)) {
		v->c.wc_errors++;
		report(v, "%s: receive completion has opcode %d (want %d), qp_num %#x (want %#x), byte_len %u, flags %#x, imm %#x (want %#x)",
		       desc, wc->opcode, want_op, wc->qp_num, q->qp->qp_num,
		       wc->byte_len, wc->wc_flags, ntohl(wc->imm_data),
		       want_imm ? m->imm : 0);
	}
	/* A WRITE with immediate leaves the receive buffer alone. */
	if (!check_span(v, recv_slot(v, q, k), m->lo, m->hi, m->pc, m->npc, m->key,
			0, m->op == OP_WRITE_IMM ? 0 : m->size, &mm))
		count_corrupt(v, q, d, m, "received",
			      m->npc ? m->pc[0].off : m->lo + GUARD, &mm);
	if (m->op != OP_WRITE_IMM)
		v->c.bytes += m->size;

	if (!--d->pending)
		rx_round_done(v, q);
}

/*
 * The peer's requests are all done: its CAS chains and fetch-adds must have
 * left exactly the expected values, and nothing may have touched the read
 * sources or the guards around the atomic words.
 */
static void check_final(struct verify *v)
{
	uint64_t fadd = fadd_init(v, v->side), got;
	struct mismatch mm;

	for (unsigned int i = 0; i < v->cfg.nqp; i++) {
		struct qpc *q = &v->qps[i];
		uint8_t *atom = q->buf + v->lay.atom;
		struct piece pc = { 0, v->lay.rsrc_len };

		fadd += q->rx.gen.fadd_sum;
		memcpy(&got, atom + CAS_OFF, 8);
		if (got != q->rx.gen.cas_value) {
			v->c.corrupt += 8;
			report(v, "qp %u: CAS word is %#" PRIx64 " after the peer's chain, want %#"
			       PRIx64, i, got, q->rx.gen.cas_value);
		}
		if (!check_span(v, q->buf + v->lay.rsrc, 0, v->lay.rsrc_len, &pc, 1,
				key_of(v, K_RSRC, v->side, i, 0, 0), 0,
				v->lay.rsrc_len, &mm)) {
			v->c.corrupt += mm.bad;
			report(v, "qp %u: read source changed: %" PRIu64 " bytes, first at %u",
			       i, mm.bad, mm.first);
		}
		/*
		 * Guards: poison everywhere but the words themselves; QP 0
		 * alone holds a fetch-add counter.
		 */
		for (unsigned int b = 0; b < ATOM_LEN; b++) {
			if ((b >= CAS_OFF && b < CAS_OFF + 8) ||
			    (i == 0 && b >= FADD_OFF && b < FADD_OFF + 8) ||
			    atom[b] == POISON)
				continue;
			v->c.corrupt++;
			report(v, "qp %u: atomic area byte %u changed to %#04x", i, b,
			       atom[b]);
		}
	}
	memcpy(&got, v->qps[0].buf + v->lay.atom + FADD_OFF, 8);
	if (got != fadd) {
		v->c.corrupt += 8;
		report(v, "fetch-add counter is %#" PRIx64 ", want %#" PRIx64
		       " (initial value plus every add once)", got, fadd);
	}
	v->final_checked = true;
}

/* ------------------------------------------------------------------------ */
/* Main loop */

static int drain_cq(struct verify *v, struct ibv_cq *cq,
		    void (*handle)(struct verify *, const struct ibv_wc *))
{
	struct ibv_wc wc[16];
	int n, total = 0;

	while ((n = ibv_poll_cq(cq, ARRAY_SIZE(wc), wc)) > 0) {
		for (int i = 0; i < n; i++)
			handle(v, &wc[i]);
		total += n;
	}
	if (n < 0)
		stop(v, EXIT_FAIL, "ibv_poll_cq failed: %d", n);
	return total;
}

static int drain(struct verify *v)
{
	return drain_cq(v, v->scq, on_send_wc) + drain_cq(v, v->rcq, on_recv_wc);
}

static void maybe_finish(struct verify *v)
{
	if (v->fin_sent || v->tx_done < v->cfg.nqp || !v->final_checked)
		return;
	ctl_send(v, CTL_FIN, 0, counters_clean(&v->c), 0);
	v->fin_sent = true;
}

static void on_ctl(struct verify *v, const uint8_t *rec)
{
	uint32_t type = get_be32(rec), qi = get_be32(rec + 4);
	uint64_t a = get_be64(rec + 8);

	switch (type) {
	case CTL_READY:
		if (qi >= v->cfg.nqp || a != v->qps[qi].peer_ready)
			stop(v, EXIT_FAIL, "protocol error: READY qp %u round %" PRIu64, qi, a);
		v->qps[qi].peer_ready++;
		maybe_start_tx(v, &v->qps[qi]);
		break;
	case CTL_FIN:
		v->peer_fin = true;
		v->peer_ok = a;
		break;
	case CTL_ABORT:
		v->sock = -1;	/* the peer is gone; do not answer */
		/* Its failure may show here too (a NAK, say): collect it. */
		usleep(300000);
		drain(v);
		if (!v->fin_sent)
			progress(v, true);
		stop(v, EXIT_FAIL, "the peer gave up (%s), see its log",
		     a == EXIT_TIMEOUT ? "timeout" : "error");
	default:
		stop(v, EXIT_FAIL, "protocol error: control message type %u", type);
	}
}

static void tcp_input(struct verify *v)
{
	ssize_t n = recv(v->sock, v->in + v->inlen, sizeof(v->in) - v->inlen,
			 MSG_DONTWAIT);
	size_t off = 0;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		v->sock = -1;
		stop(v, EXIT_FAIL, "the peer closed the connection%s",
		     v->peer_fin ? "" : " before finishing");
	}
	if (n < 0)
		return;
	v->inlen += n;
	for (; v->inlen - off >= CTL_LEN; off += CTL_LEN)
		on_ctl(v, v->in + off);
	memmove(v->in, v->in + off, v->inlen - off);
	v->inlen -= off;
}

static void get_cq_events(struct verify *v)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	while (!ibv_get_cq_event(v->chan, &cq, &cq_ctx))
		ibv_ack_cq_events(cq, 1);
}

/*
 * Asynchronous events: a QP can go to the error state without an error
 * completion of its own (the responder side of rxe, for one), and this is
 * where the reason shows.
 */
static void get_async_events(struct verify *v)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(v->ctx, &ev)) {
		const char *what = ibv_event_type_str(ev.event_type);
		int qp = -1;

		switch (ev.event_type) {
		case IBV_EVENT_COMM_EST:
		case IBV_EVENT_PORT_ACTIVE:
		case IBV_EVENT_LID_CHANGE:
		case IBV_EVENT_PKEY_CHANGE:
		case IBV_EVENT_GID_CHANGE:
		case IBV_EVENT_SM_CHANGE:
		case IBV_EVENT_CLIENT_REREGISTER:
			break;	/* nothing wrong */
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_PATH_MIG_ERR:
			for (unsigned int i = 0; i < v->cfg.nqp; i++)
				if (v->qps[i].qp == ev.element.qp)
					qp = i;
			v->c.wc_errors++;
			v->broken = true;
			report(v, "async event on qp %d: %s", qp, what);
			break;
		default:
			v->c.wc_errors++;
			v->broken = true;
			report(v, "async event: %s", what);
			break;
		}
		ibv_ack_async_event(&ev);
	}
}

static void progress(struct verify *v, bool stuck)
{
	unsigned int shown = 0;
	uint32_t txr = 0, rxr = 0;

	for (unsigned int i = 0; i < v->cfg.nqp; i++) {
		struct qpc *q = &v->qps[i];

		txr += q->tx.round;
		rxr += q->rx.round;
		if (!stuck || (q->tx.round == v->nrounds && q->rx.round == v->nrounds))
			continue;
		if (shown++ == 16)
			continue;
		say(v, "  qp %u (%s): sending round %u/%u, %u of %u completions missing, peer ready for %u; receiving round %u/%u, %u of %u receives missing",
		    i, qp_state_str(q->qp), q->tx.round, v->nrounds,
		    q->tx.busy ? q->tx.pending : 0, q->tx.busy ? q->tx.count : 0,
		    q->peer_ready, q->rx.round, v->nrounds,
		    q->rx.busy ? q->rx.pending : 0, q->rx.busy ? q->rx.nrecv : 0);
	}
	say(v, "%s %.0f s: rounds sent %u/%u, received %u/%u, %" PRIu64 " requests, %" PRIu64 " bytes checked%s",
	    stuck ? "incomplete after" : "progress", now() - v->start, txr,
	    v->nrounds * v->cfg.nqp, rxr, v->nrounds * v->cfg.nqp, v->c.msgs,
	    v->c.bytes, v->fin_sent && !v->peer_fin ? ", waiting for the peer" : "");
}

static void run(struct verify *v)
{
	struct pollfd pfd[3] = {
		{ .fd = v->chan->fd, .events = POLLIN },
		{ .fd = v->sock, .events = POLLIN },
		{ .fd = v->ctx->async_fd, .events = POLLIN },
	};
	bool idle_wakeup = false;

	for (unsigned int i = 0; i < v->cfg.nqp; i++)
		if (v->nrounds)
			rx_start_round(v, &v->qps[i]);
	if (!v->nrounds) {
		v->tx_done = v->rx_done = v->cfg.nqp;
		v->final_checked = true;
		maybe_finish(v);
	}

	while (!(v->fin_sent && v->peer_fin)) {
		double t = now();
		int n, ms;

		n = drain(v);
		/*
		 * The CQs were armed and empty when the poll below timed out,
		 * so a completion found now must raise an event.  Providers may
		 * signal the channel a little after the CQE is visible: allow
		 * for that before calling the event missed.
		 */
		if (idle_wakeup && n && poll(pfd, 1, 200) == 0)
			v->c.missed_events++;
		idle_wakeup = false;
		if (v->broken) {
			usleep(300000);	/* let the other errors come in */
			drain(v);
			stop(v, EXIT_FAIL, "%" PRIu64 " error completions or events, the run cannot complete",
			     v->c.wc_errors);
		}
		if (n)
			continue;
		if (t >= v->deadline) {
			progress(v, true);
			stop(v, EXIT_TIMEOUT, "timeout: run not complete after %u s (-t)",
			     v->cfg.timeout);
		}
		if (v->cfg.verbose && t >= v->next_progress) {
			progress(v, false);
			v->next_progress = t + 5;
		}

		/*
		 * Arm, then look once more: completions that arrived before
		 * arming raise no event.
		 */
		if (ibv_req_notify_cq(v->scq, 0) || ibv_req_notify_cq(v->rcq, 0))
			stop(v, EXIT_FAIL, "ibv_req_notify_cq failed");
		if (drain(v))
			continue;
		ms = dmin(1000, (v->deadline - t) * 1000 + 1);
		n = poll(pfd, 3, ms);
		if (n < 0 && errno != EINTR)
			stop(v, EXIT_FAIL, "poll: %s", strerror(errno));
		if (n == 0)
			idle_wakeup = true;
		if (pfd[0].revents & POLLIN)
			get_cq_events(v);
		if (pfd[1].revents)
			tcp_input(v);
		if (pfd[2].revents & POLLIN)
			get_async_events(v);
	}
}

/* ------------------------------------------------------------------------ */
/* Teardown and options */

static void teardown(struct verify *v)
{
	for (unsigned int i = 0; i < v->cfg.nqp; i++) {
		struct qpc *q = &v->qps[i];

		if (ibv_destroy_qp(q->qp))
			say(v, "warning: ibv_destroy_qp: %s", strerror(errno));
		if (ibv_dereg_mr(q->mr))
			say(v, "warning: ibv_dereg_mr: %s", strerror(errno));
		free(q->buf);
		free(q->tx.m);
		free(q->rx.m);
		free(q->tx.recv_msg);
		free(q->rx.recv_msg);
	}
	get_cq_events(v);
	if (ibv_destroy_cq(v->scq) || ibv_destroy_cq(v->rcq))
		say(v, "warning: ibv_destroy_cq: %s", strerror(errno));
	if (ibv_destroy_comp_channel(v->chan))
		say(v, "warning: ibv_destroy_comp_channel: %s", strerror(errno));
	if (ibv_dealloc_pd(v->pd))
		say(v, "warning: ibv_dealloc_pd: %s", strerror(errno));
	if (ibv_close_device(v->ctx))
		say(v, "warning: ibv_close_device: %s", strerror(errno));
	close(v->sock);
	free(v->qps);
	free(v->scratch);
	free(v->fadds);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: mroce-verify -d DEV [options]               (server)\n"
"       mroce-verify -d DEV [options] SERVER_ADDR   (client)\n"
"\n"
"Runs deterministic RC traffic both ways and checks every byte, completion\n"
"and ordering rule at both ends.  Both sides need the same -q -n -w -m -o -S.\n"
"\n"
"  -d DEV          RDMA device (e.g. rxe0, mroce0)\n"
"  -i PORT         device port (default 1)\n"
"  -g GID_INDEX    GID to use (default: the IPv4-mapped RoCE v2 GID)\n"
"  -q NQP          RC QPs (default 8)\n"
"  -n MSGS         requests per QP and direction (default 200)\n"
"  -w WINDOW       requests posted together per QP and direction; a fence\n"
"                  SEND follows each such round (default 16)\n"
"  -m MAX_SIZE     largest request, K/M suffixes allowed (default 64K)\n"
"  -o OPS          comma list of send,send_imm,send_inline,write,write_imm,\n"
"                  read,cas,fadd or all (default all)\n"
"  -S SEED         traffic seed (default 1)\n"
"  -p TCP_PORT     TCP port of the setup connection (default 18515)\n"
"  -t TIMEOUT_S    give up after this many seconds (default 120)\n"
"  -s SGES         scatter/gather entries per request, at most (1..3, default 3)\n"
"  -T ACK_TIMEOUT  QP local ACK timeout exponent, 4.096 us * 2^T (default 14)\n"
"  -v              progress every 5 s\n"
"\n"
"Prints 'verify: qps=N msgs=N bytes=N corrupt_bytes=N wc_errors=N order_errors=N'.\n"
"Exit: 0 all checked and clean on both sides, 1 verification failure,\n"
"2 usage or setup error, 3 timeout.\n");
}

static void __attribute__((noreturn, format(printf, 1, 2)))
bad_arg(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs("mroce-verify: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputs(" (-h for help)\n", stderr);
	} else {
		usage(stderr);
	}
	exit(EXIT_SETUP);
}

static bool parse_uint(const char *s, unsigned long long max,
		       unsigned long long *out, bool size)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return false;
	if (size && (*end == 'k' || *end == 'K')) {
		x <<= 10;
		end++;
	} else if (size && (*end == 'm' || *end == 'M')) {
		x <<= 20;
		end++;
	}
	if (*end || x > max)
		return false;
	*out = x;
	return true;
}

static bool parse_ops(const char *s, unsigned int *ops)
{
	char *copy = strdup(s), *save = NULL, *tok;

	*ops = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int i;

		if (!strcmp(tok, "all")) {
			*ops |= ALL_OPS;
			continue;
		}
		for (i = 0; i < NR_OPS && strcmp(tok, op_name[i]); i++)
			;
		if (i == NR_OPS) {
			fprintf(stderr, "mroce-verify: unknown op '%s'\n", tok);
			free(copy);
			return false;
		}
		*ops |= 1u << i;
	}
	free(copy);
	return *ops != 0;
}

static void parse_args(struct verify *v, int argc, char **argv)
{
	struct config *cfg = &v->cfg;
	unsigned long long x;
	int opt;

	*cfg = (struct config) {
		.port = "18515", .gid_index = -1, .ib_port = 1, .nqp = 8,
		.msgs = 200, .window = 16, .max_size = 65536, .timeout = 120,
		.ack_timeout = 14, .sges = MAX_PIECES, .ops = ALL_OPS, .seed = 1,
	};
#define NUM(field, max, size)						\
	do {								\
		if (!parse_uint(optarg, max, &x, size))			\
			bad_arg("bad value '%s' for -%c", optarg, opt);	\
		field = x;						\
	} while (0)

	while ((opt = getopt(argc, argv, "d:i:g:q:n:w:m:o:S:p:s:t:T:vh")) != -1) {
		switch (opt) {
		case 'd':
			cfg->dev = optarg;
			break;
		case 'i':
			NUM(cfg->ib_port, 255, false);
			break;
		case 'g':
			NUM(cfg->gid_index, INT32_MAX, false);
			break;
		case 'q':
			NUM(cfg->nqp, 1024, false);
			break;
		case 'n':
			NUM(cfg->msgs, 100000000, false);
			break;
		case 'w':
			NUM(cfg->window, 4096, false);
			break;
		case 'm':
			NUM(cfg->max_size, 64 << 20, true);
			break;
		case 'o':
			if (!parse_ops(optarg, &cfg->ops))
				bad_arg("bad op list '%s'", optarg);
			break;
		case 'S':
			NUM(cfg->seed, UINT64_MAX, false);
			break;
		case 'p':
			cfg->port = optarg;
			break;
		case 's':
			NUM(cfg->sges, MAX_PIECES, false);
			break;
		case 't':
			NUM(cfg->timeout, 86400, false);
			break;
		case 'T':
			NUM(cfg->ack_timeout, 31, false);
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			bad_arg(NULL);
		}
	}
#undef NUM
	if (optind < argc)
		cfg->server = argv[optind++];
	if (optind < argc)
		bad_arg("one server address at most");
	if (!cfg->dev)
		bad_arg("-d DEV is required");
	if (!cfg->nqp || !cfg->window || !cfg->timeout || !cfg->sges)
		bad_arg("-q, -w, -s and -t must be above 0");
	for (unsigned int i = 0; i < NR_OPS; i++)
		if (cfg->ops & (1u << i))
			v->op_list[v->nops++] = i;
}

int main(int argc, char **argv)
{
	static struct verify verify = { .sock = -1 };
	struct verify *v = &verify;
	char ops[128] = "";
	bool ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	v->role = "setup";
	parse_args(v, argc, argv);
	v->side = v->cfg.server ? 1 : 0;
	v->role = v->side ? "client" : "server";
	v->start = now();
	v->deadline = v->start + v->cfg.timeout;
	v->nrounds = (v->cfg.msgs + v->cfg.window - 1) / v->cfg.window;

	/*
	 * The main loop enforces the deadline; this catches a call that does
	 * not return (a stuck kernel verb, say).
	 */
	signal(SIGALRM, on_alarm);
	alarm(v->cfg.timeout + 15);
	signal(SIGPIPE, SIG_IGN);

	open_device(v);
	setup_resources(v);
	if (v->side)
		tcp_connect(v);
	else
		tcp_accept(v);
	setsockopt(v->sock, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	exchange(v);
	connect_qps(v);

	for (unsigned int i = 0, n = 0; i < v->nops; i++)
		n += snprintf(ops + n, sizeof(ops) - n, "%s%s", i ? "," : "",
			      op_name[v->op_list[i]]);
	say(v, "%u QPs, %u requests per QP each way in rounds of %u, sizes 0..%u, ops %s, seed %" PRIu64 ", MTU %d, inline %u, SGEs %u",
	    v->cfg.nqp, v->cfg.msgs, v->cfg.window, v->cfg.max_size, ops,
	    v->cfg.seed, 128 << v->mtu, v->max_inline, v->max_sge);

	run(v);

	ok = counters_clean(&v->c) && v->peer_ok;
	alarm(30);	/* teardown must not hang either */
	summary(v);
	if (!v->peer_ok)
		say(v, "the peer found errors, see its log");
	printf("mroce-verify[%s]: %s\n", v->role, ok ? "PASS" : "FAIL");
	fflush(stdout);
	teardown(v);
	return ok ? 0 : EXIT_FAIL;
}

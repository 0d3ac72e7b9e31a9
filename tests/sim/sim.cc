// SPDX-License-Identifier: GPL-2.0-only
/*
 * mroce-sim: a workload of RDMA WRITEs between the hosts of a simulated
 * fabric (fabric.h), each host running mroce's protocol core through
 * endpoint.c.  Prints one line of results (key=value) for
 * tests/sim/run to tabulate; with --check, fails unless every message
 * was placed exactly once and acknowledged.
 *
 *   mroce-sim --hosts=64 --planes=8 --workload=alltoall --loss=0.01
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "endpoint.h"
#include "fabric.h"

using namespace ns3;
using namespace mroce_sim;

namespace
{

struct Options {
	FabricConfig fabric;
	std::string workload = "alltoall";
	uint64_t size = 1 << 20;	/* bytes per peer (per host for ring) */
	uint64_t chunk = 256 << 10;	/* bytes per message */
	unsigned int window = 2;	/* messages in flight per peer */
	unsigned int senders = 0;	/* incast: 0 = every other host */
	unsigned int paths = 8;
	unsigned int mtu = 4096;
	unsigned int min_rto_us = 100;
	unsigned int nic_ring = 8;	/* packets; 0: no limit */
	unsigned int delay_target_us = 0;
	unsigned int init_rto_us = 0;	/* 0: the module's default */
	bool share = false;		/* receivers give their share */
	double share_hold_rtts = 8;	/* share_hold_us, in base RTTs */
	bool congestive_loss = true;	/* module parameter congestive_loss */
	std::string fail = "none";	/* link, plane */
	double fail_at_us = 0;
	double repair_at_us = 0;
	double limit_ms = 10000;
	double sample_us = 0;		/* print throughput every this long */
	bool check = false;
	const sim_transport *transport = &sim_mroce;
};

class Workload;

/* One host: its endpoint, its timers, its NICs' routing. */
class Host
{
  public:
	Host(unsigned int id, Fabric *fabric, const Options &o, Workload *w);
	~Host() { m_t->destroy(m_ep); }

	void Rx(unsigned int src, uint16_t sport, Ptr<Packet> p, bool ce);
	void Drained(unsigned int plane);
	void Post(unsigned int dst, uint64_t len, uint64_t cookie)
	{
		m_t->post(m_ep, dst, len, cookie, NowUs());
	}
	const sim_ep_stats *Stats() const { return m_t->counters(m_ep); }
	uint64_t Outstanding() const { return m_t->outstanding(m_ep); }

	/*
	 * The hosts' clock, in microseconds: it reads kClockStartUs when the
	 * simulation starts, as a machine's clock that has run a while does.
	 * The core takes a time of 0 for "never" (no packet delivered, none
	 * sent), as it can in a kernel, whose clock started at boot.
	 */
	static constexpr uint64_t kClockStartUs = 1000000;
	static uint64_t NowUs()
	{
		return kClockStartUs + Simulator::Now().GetMicroSeconds();
	}

  private:
	static void Xmit(void *host, unsigned int dst, uint16_t sport,
			 const void *hdr, unsigned int hlen,
			 unsigned int payload_len, bool ect);
	static void Arm(void *host, unsigned int peer, uint64_t when_us);
	static void Completed(void *host, unsigned int dst, uint64_t cookie,
			      uint64_t now_us);
	static void Delivered(void *host, unsigned int src, uint64_t len,
			      uint64_t now_us);
	static void Placed(void *host, unsigned int src, uint64_t len,
			   uint64_t now_us);
	static uint64_t RoutePlane(void *host, unsigned int dst, uint16_t sport);
	static uint16_t RandomSport(void *host);
	static bool NicRoom(void *host, unsigned int peer, uint64_t plane_key,
			    unsigned int pending);

	static const sim_ep_ops s_ops;

	unsigned int m_id;
	Fabric *m_fabric;
	Workload *m_work;
	const sim_transport *m_t;
	void *m_ep;
	std::vector<EventId> m_timer;
	std::mt19937 m_rng;
	std::vector<uint8_t> m_buf;
	unsigned int m_nicRing;
	uint64_t m_routeKey;
	/* m_waiting[plane]: peers whose new packets wait for that NIC */
	std::vector<std::vector<unsigned int>> m_waiting;
	std::vector<bool> m_waits;	/* [WaitSlot(plane, peer)] */
	size_t WaitSlot(unsigned int plane, unsigned int peer) const
	{
		return size_t(plane) * m_fabric->Config().hosts + peer;
	}
};

/* What the hosts do: which messages, and when they may be posted. */
class Workload
{
  public:
	Workload(const Options &o, std::vector<Host *> &hosts)
		: m_o(o), m_hosts(hosts) {}

	void Start();
	void Completed(unsigned int src, unsigned int dst, uint64_t cookie);
	void Delivered(unsigned int src, unsigned int dst, uint64_t len);
	void Placed(unsigned int src, unsigned int dst, uint64_t len);
	bool Done() const { return m_delivered == m_total && m_completed == m_total; }
	uint64_t Total() const { return m_total; }
	uint64_t TotalBytes() const { return m_bytes; }
	uint64_t Expected(unsigned int dst) const { return m_expect[dst]; }
	uint64_t ExpectedBytes(unsigned int dst) const { return m_expectBytes[dst]; }
	double FinishUs() const { return m_finishUs; }
	/* Payload bytes the busiest host NIC set must carry, for the ideal. */
	uint64_t BottleneckBytes() const { return m_bottleneck; }
	void Sample(double every_us, const Fabric &fabric);

  private:
	/* A stream of @count messages of @len from @src to @dst, windowed. */
	struct Flow {
		unsigned int src, dst;
		uint64_t left;		/* bytes not yet posted */
		unsigned int inflight;
		uint64_t delivered;	/* bytes placed at the destination */
		uint64_t sampled;	/* ... at the last sample */
		uint64_t bytes;		/* all it carries */
	};
	void Pump(unsigned int f);
	void Add(unsigned int src, unsigned int dst, uint64_t bytes);

	const Options &m_o;
	std::vector<Host *> &m_hosts;
	unsigned int m_n = 0;
	std::vector<Flow> m_flows;
	std::map<std::pair<unsigned int, unsigned int>, unsigned int> m_flowOf;
	std::vector<uint64_t> m_expect, m_expectBytes;
	uint64_t m_total = 0, m_bytes = 0;
	uint64_t m_delivered = 0, m_completed = 0;
	uint64_t m_drops = 0, m_marks = 0;	/* the fabric's, at the last sample */
	uint64_t m_bottleneck = 0;
	double m_finishUs = 0;
	/* ring: messages each host may still send before it must receive */
	bool m_ring = false;
	std::vector<uint64_t> m_ringSent, m_ringRecv, m_ringTotal;
	uint64_t m_ringChunks = 0;
};

const sim_ep_ops Host::s_ops = {
	Host::Xmit, Host::Arm, Host::Completed, Host::Delivered, Host::Placed,
	Host::RoutePlane, Host::RandomSport, Host::NicRoom,
};

Host::Host(unsigned int id, Fabric *fabric, const Options &o, Workload *w)
	: m_id(id), m_fabric(fabric), m_work(w), m_t(o.transport),
	  m_timer(o.fabric.hosts), m_rng(o.fabric.seed * 7919U + id),
	  m_buf(o.transport->max_hdr), m_nicRing(o.nic_ring),
	  m_routeKey(0x9e3779b97f4a7c15ULL * (o.fabric.seed + 1)),
	  m_waiting(o.fabric.planes),
	  m_waits(size_t(o.fabric.planes) * o.fabric.hosts)
{
	sim_ep_config cfg = { o.paths, o.mtu, o.min_rto_us, o.delay_target_us,
			      o.fabric.gbps, o.init_rto_us, 0, 0,
			      o.congestive_loss };

	/* A host's inbound capacity is all its NICs'. */
	if (o.share) {
		cfg.capacity_mbps = o.fabric.gbps * 1000 * o.fabric.planes;
		cfg.share_hold_us = std::max(1.0, std::ceil(o.share_hold_rtts *
			fabric->BaseRttUs(o.mtu + 64, 56)));
	}

	m_ep = m_t->create(id, o.fabric.hosts, &cfg, &s_ops, this);
}

void Host::Xmit(void *host, unsigned int dst, uint16_t sport, const void *hdr,
		unsigned int hlen, unsigned int payload_len, bool ect)
{
	Host *h = static_cast<Host *>(host);
	Ptr<Packet> p = Create<Packet>(static_cast<const uint8_t *>(hdr), hlen);

	if (payload_len)
		p->AddPaddingAtEnd(payload_len);
	h->m_fabric->Send(h->m_id, RoutePlane(host, dst, sport) - 1, dst, sport,
			  p, ect);
}

void Host::Arm(void *host, unsigned int peer, uint64_t when_us)
{
	Host *h = static_cast<Host *>(host);
	EventId &ev = h->m_timer[peer];
	uint64_t now = NowUs();

	/*
	 * A timer due no later can stay: its expiry runs a send pass, which
	 * arms the timer again.  Only an earlier one replaces it, so the
	 * scheduler does not fill with cancelled events.
	 */
	if (!when_us || (ev.IsRunning() &&
			 ev.GetTs() <= MicroSeconds(when_us - kClockStartUs).GetTimeStep()))
		return;
	Simulator::Remove(ev);
	ev = Simulator::Schedule(
		MicroSeconds(when_us > now ? when_us - now : 0), [h, peer]() {
			h->m_t->timer(h->m_ep, peer, NowUs());
		});
}

void Host::Completed(void *host, unsigned int dst, uint64_t cookie, uint64_t)
{
	Host *h = static_cast<Host *>(host);

	h->m_work->Completed(h->m_id, dst, cookie);
}

void Host::Delivered(void *host, unsigned int src, uint64_t len, uint64_t)
{
	Host *h = static_cast<Host *>(host);

	h->m_work->Delivered(src, h->m_id, len);
}

void Host::Placed(void *host, unsigned int src, uint64_t len, uint64_t)
{
	Host *h = static_cast<Host *>(host);

	h->m_work->Placed(src, h->m_id, len);
}

/*
 * The host's routing: an equal-cost route to the peer over every plane's
 * NIC, hashed by the UDP source port (as Linux's with
 * fib_multipath_hash_policy=1), so the port picks the plane.  Like
 * Linux's, the hash is keyed and mixes all of its input, so the plane a
 * peer's ACKs take back (their 5-tuple has the addresses the other way
 * round) has nothing to do with the plane of the DATA they answer.
 */
uint64_t Host::RoutePlane(void *host, unsigned int dst, uint16_t sport)
{
	Host *h = static_cast<Host *>(host);
	uint64_t x = (uint64_t)h->m_id << 40 | (uint64_t)dst << 16 | sport;

	/* splitmix64's finalizer, keyed by the seed */
	x ^= h->m_routeKey;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x % h->m_fabric->Config().planes + 1;
}

/*
 * A NIC's transmit ring takes m_nicRing packets of any kind; new DATA
 * waits in the transport beyond that, as a driver's byte queue limits
 * (BQL) hold it back, so ACKs and resends queue behind a ring, not
 * behind a window.
 */
bool Host::NicRoom(void *host, unsigned int peer, uint64_t plane_key,
		   unsigned int pending)
{
	Host *h = static_cast<Host *>(host);
	unsigned int plane = plane_key - 1;
	size_t w = h->WaitSlot(plane, peer);

	if (!h->m_nicRing || !plane_key ||
	    h->m_fabric->NicQueue(h->m_id, plane) + pending < h->m_nicRing)
		return true;
	if (!h->m_waits[w]) {
		h->m_waits[w] = true;
		h->m_waiting[plane].push_back(peer);
	}
	return false;
}

/*
 * The NIC on @plane sent a packet on: once its ring has drained to half,
 * the peers waiting for it get a send pass, after the device's own
 * dequeue has finished.  A driver wakes its stopped queue so, with a
 * threshold of free descriptors; waking every waiting peer at every
 * packet ran a pass per peer per packet, nearly all finding the ring
 * full again (Documentation/simulator.rst, "The simulated host").
 */
void Host::Drained(unsigned int plane)
{
	std::vector<unsigned int> peers;

	if (m_waiting[plane].empty() ||
	    m_fabric->NicQueue(m_id, plane) > m_nicRing / 2)
		return;
	peers.swap(m_waiting[plane]);
	for (unsigned int peer : peers)
		m_waits[WaitSlot(plane, peer)] = false;
	Simulator::ScheduleNow([this, peers]() {
		for (unsigned int peer : peers)
			m_t->timer(m_ep, peer, NowUs());
	});
}

uint16_t Host::RandomSport(void *host)
{
	Host *h = static_cast<Host *>(host);

	return 49152 + h->m_rng() % 16384;
}

void Host::Rx(unsigned int src, uint16_t sport, Ptr<Packet> p, bool ce)
{
	unsigned int len = p->GetSize();
	unsigned int n = std::min<unsigned int>(len, m_buf.size());

	p->CopyData(m_buf.data(), n);
	m_t->rx(m_ep, src, m_buf.data(), n, len, ce, sport, NowUs());
}

void Workload::Add(unsigned int src, unsigned int dst, uint64_t bytes)
{
	m_flowOf[{ src, dst }] = m_flows.size();
	m_flows.push_back({ src, dst, bytes, 0, 0, 0, bytes });
	m_total += (bytes + m_o.chunk - 1) / m_o.chunk;
	m_expect[dst] += (bytes + m_o.chunk - 1) / m_o.chunk;
	m_expectBytes[dst] += bytes;
	m_bytes += bytes;
}

void Workload::Start()
{
	unsigned int h, k;

	m_n = m_hosts.size();
	m_expect.assign(m_n, 0);
	m_expectBytes.assign(m_n, 0);
	if (m_o.workload == "alltoall") {
		/* Each host starts with a different peer, as collectives do. */
		for (h = 0; h < m_n; h++)
			for (k = 1; k < m_n; k++)
				Add(h, (h + k) % m_n, m_o.size);
		m_bottleneck = (m_n - 1) * m_o.size;
	} else if (m_o.workload == "ring") {
		/*
		 * Ring all-reduce of m_o.size bytes per host: 2(N-1) steps of
		 * size/N each to the right neighbour, a step's chunk sent
		 * once the previous step's chunk arrived from the left.
		 */
		uint64_t step = m_o.size / m_n;
		uint64_t chunks = (step + m_o.chunk - 1) / m_o.chunk;

		m_ring = true;
		m_ringChunks = chunks;
		m_ringSent.assign(m_n, 0);
		m_ringRecv.assign(m_n, 0);
		m_ringTotal.assign(m_n, 2 * (m_n - 1) * chunks);
		for (h = 0; h < m_n; h++)
			Add(h, (h + 1) % m_n, 2 * (m_n - 1) * chunks * m_o.chunk);
		m_bottleneck = 2 * (m_n - 1) * chunks * m_o.chunk;
	} else if (m_o.workload == "permutation") {
		std::mt19937 rng(m_o.fabric.seed);
		std::vector<unsigned int> perm(m_n);

		for (h = 0; h < m_n; h++)
			perm[h] = (h + 1) % m_n;
		/* A random derangement: shuffle until no host sends to itself. */
		for (;;) {
			std::shuffle(perm.begin(), perm.end(), rng);
			for (h = 0; h < m_n && perm[h] != h; h++)
				;
			if (h == m_n)
				break;
		}
		for (h = 0; h < m_n; h++)
			Add(h, perm[h], m_o.size);
		m_bottleneck = m_o.size;
	} else if (m_o.workload == "incast") {
		unsigned int senders = m_o.senders ? m_o.senders : m_n - 1;

		for (h = 1; h <= senders && h < m_n; h++)
			Add(h, 0, m_o.size);
		m_bottleneck = senders * m_o.size;
	} else {
		NS_FATAL_ERROR("unknown workload " << m_o.workload);
	}
	for (size_t f = 0; f < m_flows.size(); f++)
		Pump(f);
}

void Workload::Pump(unsigned int f)
{
	Flow &fl = m_flows[f];

	while (fl.left && fl.inflight < m_o.window) {
		uint64_t len = std::min<uint64_t>(fl.left, m_o.chunk);

		if (m_ring && m_ringSent[fl.src] >= m_ringChunks + m_ringRecv[fl.src])
			break;
		fl.left -= len;
		fl.inflight++;
		if (m_ring)
			m_ringSent[fl.src]++;
		m_hosts[fl.src]->Post(fl.dst, len, f);
	}
}

void Workload::Completed(unsigned int src, unsigned int dst, uint64_t cookie)
{
	m_completed++;
	m_flows[cookie].inflight--;
	Pump(cookie);
	if (Done()) {
		m_finishUs = Simulator::Now().GetNanoSeconds() / 1e3;
		Simulator::Stop();
	}
}

void Workload::Placed(unsigned int src, unsigned int dst, uint64_t len)
{
	m_flows[m_flowOf[{ src, dst }]].delivered += len;
}

void Workload::Delivered(unsigned int src, unsigned int dst, uint64_t len)
{
	m_delivered++;
	if (m_ring) {
		/* What arrived lets the receiver send its next chunk on. */
		m_ringRecv[dst]++;
		Pump(m_flowOf[{ dst, (dst + 1) % m_n }]);
	}
	if (Done()) {
		m_finishUs = Simulator::Now().GetNanoSeconds() / 1e3;
		Simulator::Stop();
	}
}

/*
 * One line per interval: payload bytes placed in it, Jain's fairness
 * index over the flows that were still unfinished when it began, the
 * queue into host 0 (the incast's receiver) at its end, and the fabric's
 * drops and marks in it.
 */
void Workload::Sample(double every_us, const Fabric &fabric)
{
	double sum = 0, sq = 0;
	uint64_t bytes = 0;
	unsigned int n = 0;
	uint64_t drops = fabric.SwitchDrops(), marks = fabric.Marks();

	for (Flow &f : m_flows) {
		uint64_t d = f.delivered - f.sampled;

		if (f.sampled < f.bytes) {
			sum += d;
			sq += double(d) * d;
			n++;
		}
		bytes += d;
		f.sampled = f.delivered;
	}
	printf("sample t_us=%.1f bytes=%llu flows=%u jain=%.4f queue=%u "
	       "drops=%llu marks=%llu\n",
	       Simulator::Now().GetNanoSeconds() / 1e3,
	       (unsigned long long)bytes, n, sq > 0 ? sum * sum / (n * sq) : 1.0,
	       fabric.QueueTo(0, 0), (unsigned long long)(drops - m_drops),
	       (unsigned long long)(marks - m_marks));
	m_drops = drops;
	m_marks = marks;
	if (!Done())
		Simulator::Schedule(MicroSeconds(every_us),
				    [this, every_us, &fabric]() {
					    Sample(every_us, fabric);
				    });
}

void ScheduleFailure(Fabric &fabric, const Options &o)
{
	if (o.fail == "none")
		return;
	if (o.fail != "link" && o.fail != "plane")
		NS_FATAL_ERROR("--fail is none, link or plane");
	auto set = [&fabric, &o](bool up) {
		if (o.fail == "link")
			fabric.SetUplink(0, 0, 0, up);
		else
			fabric.SetPlane(0, up);
	};
	Simulator::Schedule(MicroSeconds(o.fail_at_us), [set]() { set(false); });
	if (o.repair_at_us > o.fail_at_us)
		Simulator::Schedule(MicroSeconds(o.repair_at_us),
				    [set]() { set(true); });
}

} // namespace

int main(int argc, char **argv)
{
	Options o;
	CommandLine cmd(__FILE__);
	auto wall0 = std::chrono::steady_clock::now();

	cmd.AddValue("hosts", "hosts", o.fabric.hosts);
	cmd.AddValue("planes", "NICs per host, one network each", o.fabric.planes);
	cmd.AddValue("leaves", "leaf switches per plane", o.fabric.leaves);
	cmd.AddValue("spines", "spine switches per plane", o.fabric.spines);
	cmd.AddValue("gbps", "link rate", o.fabric.gbps);
	cmd.AddValue("delay-ns", "link propagation delay", o.fabric.delay_ns);
	cmd.AddValue("buffer", "switch port buffer, packets", o.fabric.buffer_pkts);
	cmd.AddValue("ecn", "ECN marking threshold, packets", o.fabric.ecn_pkts);
	cmd.AddValue("loss", "random loss on the link into each host", o.fabric.loss);
	cmd.AddValue("host-queue", "a host NIC's queue, packets",
		     o.fabric.host_queue_pkts);
	cmd.AddValue("nic-ring", "packets a NIC's ring takes before new DATA "
		     "waits in the transport; 0: no limit", o.nic_ring);
	cmd.AddValue("seed", "random seed", o.fabric.seed);
	cmd.AddValue("workload", "alltoall, ring, permutation, incast", o.workload);
	cmd.AddValue("size", "bytes per peer (ring: per host)", o.size);
	cmd.AddValue("chunk", "bytes per message", o.chunk);
	cmd.AddValue("window", "messages in flight per peer", o.window);
	cmd.AddValue("senders", "incast senders (0: all others)", o.senders);
	cmd.AddValue("paths", "paths per connection", o.paths);
	cmd.AddValue("mtu", "payload bytes per packet", o.mtu);
	cmd.AddValue("min-rto-us", "minimum retransmission timeout", o.min_rto_us);
	cmd.AddValue("delay-target-us", "delay that counts as a mark (0: off)",
		     o.delay_target_us);
	cmd.AddValue("init-rto-us",
		     "module parameter init_rto_us: RTO before a path's first RTT sample (0: its default)",
		     o.init_rto_us);
	cmd.AddValue("share", "receivers give senders their share (mroce)",
		     o.share);
	cmd.AddValue("share-hold-rtts",
		     "how long a quiet sender keeps its share, in base RTTs",
		     o.share_hold_rtts);
	cmd.AddValue("congestive-loss",
		     "module parameter congestive_loss: loss well above the usual cuts windows (mroce)",
		     o.congestive_loss);
	cmd.AddValue("fail", "none, link (plane 0, leaf 0 to spine 0), plane (0)",
		     o.fail);
	cmd.AddValue("fail-at-us", "when it fails", o.fail_at_us);
	cmd.AddValue("repair-at-us", "when it is repaired (0: never)", o.repair_at_us);
	cmd.AddValue("limit-ms", "simulated time limit", o.limit_ms);
	cmd.AddValue("sample-us", "print throughput this often (0: never)",
		     o.sample_us);
	cmd.AddValue("check", "fail unless every message arrived exactly once",
		     o.check);
	std::string transport = "mroce";
	cmd.AddValue("transport", "mroce, or rocev2 (the reference model)",
		     transport);
	cmd.Parse(argc, argv);
	if (transport == "rocev2")
		o.transport = &sim_rocev2;
	else if (transport != "mroce")
		NS_FATAL_ERROR("--transport is mroce or rocev2");
	if (o.fabric.hosts < 2 || !o.chunk || !o.size || !o.window ||
	    o.fabric.planes > SIM_MAX_PLANES ||
	    o.mtu < 64 || o.mtu > 8192)
		NS_FATAL_ERROR("bad options");

	std::vector<Host *> hosts;
	Workload work(o, hosts);
	Fabric fabric(o.fabric, [&hosts](unsigned int src, unsigned int dst,
					 uint16_t sport, Ptr<Packet> p, bool ce) {
		hosts[dst]->Rx(src, sport, p, ce);
	}, [&hosts](unsigned int h, unsigned int plane) {
		hosts[h]->Drained(plane);
	});
	for (unsigned int h = 0; h < o.fabric.hosts; h++)
		hosts.push_back(new Host(h, &fabric, o, &work));

	ScheduleFailure(fabric, o);
	Simulator::Schedule(Seconds(0), [&work]() { work.Start(); });
	if (o.sample_us > 0)
		Simulator::Schedule(MicroSeconds(o.sample_us),
				    [&work, &o, &fabric]() {
					    work.Sample(o.sample_us, fabric);
				    });
	Simulator::Stop(MilliSeconds(o.limit_ms));
	Simulator::Run();

	double wall = std::chrono::duration<double>(
		std::chrono::steady_clock::now() - wall0).count();
	uint64_t events = Simulator::GetEventCount();
	sim_ep_stats sum = {};
	bool ok = work.Done();
	unsigned int bad_host = 0;

	for (unsigned int h = 0; h < hosts.size(); h++) {
		const sim_ep_stats *s = hosts[h]->Stats();

		sim_stats_add(&sum, s);
		/* Exactly once: each host got what was sent to it, no more. */
		if (s->msgs_delivered != work.Expected(h) ||
		    s->bytes_placed != work.ExpectedBytes(h) ||
		    s->placed_twice || s->stream_drops || s->malformed ||
		    hosts[h]->Outstanding()) {
			if (ok)
				bad_host = h;
			ok = false;
		}
	}

	/* The ideal: the busiest host's bytes at the rate of all its NICs. */
	double wire = double(o.mtu + o.transport->data_hdr + Fabric::Overhead()) /
		      o.mtu;
	double ideal_us = work.BottleneckBytes() * wire * 8 /
			  (fabric.LinkBps() * o.fabric.planes) * 1e6;
	double t = work.Done() ? work.FinishUs() : o.limit_ms * 1e3;

	printf("transport=%s workload=%s hosts=%u senders=%u planes=%u gbps=%g loss=%g "
	       "init_rto_us=%u share=%d closs=%d fail=%s done=%d exact=%d time_us=%.1f ideal_us=%.1f frac=%.4f "
	       "base_rtt_us=%.2f goodput_gbps=%.2f conns=%llu tx_data=%llu retransmits=%llu "
	       "timeouts=%llu sack_lost=%llu tail_probes=%llu rerolls=%llu returns=%llu "
	       "ecn_cuts=%llu marks=%llu switch_drops=%llu host_drops=%llu "
	       "link_drops=%llu peak_queue=%llu paced=%llu loss_cuts=%llu nic_full=%llu events=%llu wall_s=%.2f "
	       "events_per_s=%.0f\n",
	       o.transport->name, o.workload.c_str(), o.fabric.hosts, o.senders,
	       o.fabric.planes, o.fabric.gbps,
	       o.fabric.loss, o.init_rto_us, o.share, o.congestive_loss, o.fail.c_str(), work.Done(), ok, t, ideal_us,
	       ideal_us / t, fabric.BaseRttUs(o.mtu + 64, 56),
	       work.TotalBytes() * 8 / (t * 1e3),
	       (unsigned long long)sum.conns,
	       (unsigned long long)sum.tx_data,
	       (unsigned long long)sum.retransmits,
	       (unsigned long long)sum.timeouts, (unsigned long long)sum.lost,
	       (unsigned long long)sum.tail_probes,
	       (unsigned long long)sum.rerolls, (unsigned long long)sum.returns,
	       (unsigned long long)sum.ecn_cuts,
	       (unsigned long long)fabric.Marks(),
	       (unsigned long long)fabric.SwitchDrops(),
	       (unsigned long long)fabric.HostQueueDrops(),
	       (unsigned long long)fabric.LinkDrops(),
	       (unsigned long long)fabric.PeakQueue(),
	       (unsigned long long)sum.paced,
	       (unsigned long long)sum.loss_cuts,
	       (unsigned long long)sum.nic_full,
	       (unsigned long long)events, wall, events / wall);
	if (o.check && !ok)
		fprintf(stderr, "mroce-sim: host %u: delivered %llu of %llu "
			"messages, %llu of %llu bytes, %llu bytes placed twice, "
			"%llu dropped by the message window, %llu malformed, "
			"%llu not acknowledged\n", bad_host,
			(unsigned long long)hosts[bad_host]->Stats()->msgs_delivered,
			(unsigned long long)work.Expected(bad_host),
			(unsigned long long)hosts[bad_host]->Stats()->bytes_placed,
			(unsigned long long)work.ExpectedBytes(bad_host),
			(unsigned long long)hosts[bad_host]->Stats()->placed_twice,
			(unsigned long long)hosts[bad_host]->Stats()->stream_drops,
			(unsigned long long)hosts[bad_host]->Stats()->malformed,
			(unsigned long long)hosts[bad_host]->Outstanding());
	Simulator::Destroy();
	for (Host *h : hosts)
		delete h;
	return o.check && !ok ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated fabric; see fabric.h.
 */
#include "fabric.h"

#include <cstring>

using namespace ns3;

namespace mroce_sim
{

static constexpr uint16_t IPV4 = 0x0800;
static constexpr uint16_t MROCE_PORT = 4796;

TypeId LinkErrors::GetTypeId()
{
	static TypeId tid = TypeId("mroce_sim::LinkErrors")
				    .SetParent<ErrorModel>()
				    .AddConstructor<LinkErrors>();
	return tid;
}

LinkErrors::LinkErrors() : m_rng(CreateObject<UniformRandomVariable>()) {}

void LinkErrors::Setup(double loss, int64_t stream)
{
	m_loss = loss;
	m_rng->SetStream(stream);
}

bool LinkErrors::DoCorrupt(Ptr<Packet>)
{
	if (m_down || (m_loss > 0 && m_rng->GetValue() < m_loss)) {
		m_drops++;
		return true;
	}
	return false;
}

NS_OBJECT_ENSURE_REGISTERED(LinkErrors);

static void CountDrop(uint64_t *n, Ptr<const Packet>)
{
	++*n;
}

uint32_t HostAddr(unsigned int h, unsigned int plane)
{
	return (10U << 24) | (plane << 16) | (h + 1);
}

unsigned int AddrHost(uint32_t addr)
{
	return (addr & 0xffff) - 1;
}

Fabric::Fabric(const FabricConfig &cfg, FabricRx rx, FabricDrained drained)
	: m_cfg(cfg), m_rx(std::move(rx)), m_drained(std::move(drained))
{
	unsigned int p, h, l, s;

	if (!cfg.hosts || !cfg.planes || !cfg.leaves || !cfg.spines ||
	    cfg.hosts % cfg.leaves)
		NS_FATAL_ERROR("hosts must be a multiple of leaves");
	m_perLeaf = cfg.hosts / cfg.leaves;
	/* The receive handlers hold pointers into it: never reallocated. */
	m_switches.reserve(cfg.planes * (cfg.leaves + cfg.spines));
	for (h = 0; h < cfg.hosts; h++)
		m_hosts.push_back(CreateObject<Node>());
	m_nic.assign(cfg.hosts,
		     std::vector<Ptr<PointToPointNetDevice>>(cfg.planes));
	m_up.resize(cfg.planes);
	m_hostLinks.resize(cfg.planes);

	for (p = 0; p < cfg.planes; p++) {
		size_t first = m_switches.size();

		for (l = 0; l < cfg.leaves; l++)
			m_switches.push_back({ p, true, l, {}, {} });
		for (s = 0; s < cfg.spines; s++)
			m_switches.push_back({ p, false, s, {}, {} });
		std::vector<Ptr<Node>> nodes;
		for (size_t i = first; i < m_switches.size(); i++)
			nodes.push_back(CreateObject<Node>());

		for (h = 0; h < cfg.hosts; h++) {
			Switch &leaf = m_switches[first + h / m_perLeaf];
			Ptr<PointToPointNetDevice> dh, dl;

			m_hostLinks[p].push_back(Connect(m_hosts[h],
							 nodes[h / m_perLeaf],
							 cfg.host_queue_pkts,
							 cfg.buffer_pkts, 0,
							 &dh, &dl, &m_hostDrops));
			/* The loss is on the link into the host. */
			m_hostLinks[p].back().a->Setup(cfg.loss,
						       cfg.seed * 100003ULL + p * 4099 + h);
			m_nic[h][p] = dh;
			dh->GetQueue()->TraceConnectWithoutContext(
				"Dequeue", MakeBoundCallback(&NicDequeued, this, h, p));
			leaf.down.push_back(dl);
			m_hosts[h]->RegisterProtocolHandler(
				Node::ProtocolHandler(
					[this, h](Ptr<NetDevice> d, Ptr<const Packet> pk,
						  uint16_t proto, const Address &from,
						  const Address &, NetDevice::PacketType) {
						HostRx(h, d, pk, proto, from);
					}),
				IPV4, dh);
		}
		for (l = 0; l < cfg.leaves; l++) {
			for (s = 0; s < cfg.spines; s++) {
				Switch &leaf = m_switches[first + l];
				Switch &spine = m_switches[first + cfg.leaves + s];
				Ptr<PointToPointNetDevice> dl, ds;

				m_up[p].push_back(Connect(nodes[l],
							  nodes[cfg.leaves + s],
							  cfg.buffer_pkts,
							  cfg.buffer_pkts, 0,
							  &dl, &ds, &m_swDrops));
				leaf.up.push_back(dl);
				spine.down.push_back(ds);
			}
		}
		for (size_t i = first; i < m_switches.size(); i++) {
			Switch *sw = &m_switches[i];
			Ptr<Node> n = nodes[i - first];

			for (uint32_t k = 0; k < n->GetNDevices(); k++)
				n->RegisterProtocolHandler(
					Node::ProtocolHandler(
						[this, sw](Ptr<NetDevice> d, Ptr<const Packet> pk,
							   uint16_t proto, const Address &from,
							   const Address &, NetDevice::PacketType) {
							Forward(sw, d, pk, proto, from);
						}),
					IPV4, n->GetDevice(k));
		}
	}
}

Fabric::Link Fabric::Connect(Ptr<Node> a, Ptr<Node> b, unsigned int qa,
			     unsigned int qb, double loss_into_b,
			     Ptr<PointToPointNetDevice> *da,
			     Ptr<PointToPointNetDevice> *db, uint64_t *drops_a)
{
	PointToPointHelper p2p;
	Link link;

	p2p.SetDeviceAttribute("DataRate",
			       DataRateValue(DataRate(uint64_t(LinkBps()))));
	p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
	p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(m_cfg.delay_ns)));
	NetDeviceContainer d = p2p.Install(a, b);
	*da = DynamicCast<PointToPointNetDevice>(d.Get(0));
	*db = DynamicCast<PointToPointNetDevice>(d.Get(1));
	(*da)->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, qa));
	(*db)->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, qb));
	(*da)->GetQueue()->TraceConnectWithoutContext(
		"Drop", MakeBoundCallback(&CountDrop, drops_a));
	(*db)->GetQueue()->TraceConnectWithoutContext(
		"Drop", MakeBoundCallback(&CountDrop, &m_swDrops));
	/* Errors are applied by the receiving end: a is hit going into a. */
	link.a = CreateObject<LinkErrors>();
	link.b = CreateObject<LinkErrors>();
	link.b->Setup(loss_into_b, 0);
	(*da)->SetReceiveErrorModel(link.a);
	(*db)->SetReceiveErrorModel(link.b);
	m_errors.push_back(link.a);
	m_errors.push_back(link.b);
	return link;
}

void Fabric::NicDequeued(Fabric *f, unsigned int host, unsigned int plane,
			 Ptr<const Packet>)
{
	f->m_drained(host, plane);
}

/* The 5-tuple hash of a switch: FNV-1a over addresses and ports. */
uint32_t Fabric::Hash(const uint8_t *hdr, unsigned int salt) const
{
	uint32_t h = 2166136261U ^ (m_cfg.seed * 0x9e3779b9U) ^ salt;
	static const unsigned int at[] = { 12, 13, 14, 15, 16, 17, 18, 19,
					   20, 21, 22, 23, 9 };

	for (unsigned int i : at) {
		h ^= hdr[i];
		h *= 16777619U;
	}
	return h ^ (h >> 16);
}

bool Fabric::Forward(Switch *sw, Ptr<NetDevice>, Ptr<const Packet> p,
		     uint16_t, const Address &)
{
	uint8_t hdr[28];
	Ptr<PointToPointNetDevice> out;
	unsigned int dst;

	p->CopyData(hdr, sizeof(hdr));
	dst = AddrHost((uint32_t)hdr[16] << 24 | hdr[17] << 16 |
		       hdr[18] << 8 | hdr[19]);
	if (dst >= m_cfg.hosts)
		return false;
	if (!sw->leaf)
		out = sw->down[dst / m_perLeaf];
	else if (dst / m_perLeaf == sw->index)
		out = sw->down[dst % m_perLeaf];
	else
		out = sw->up[Hash(hdr, sw->plane * 1000 + sw->index) %
			     sw->up.size()];

	Ptr<Packet> fwd = p->Copy();
	uint32_t q = out->GetQueue()->GetNPackets();

	if (q > m_peakQueue)
		m_peakQueue = q;
	/* ECN: ECT(0) or ECT(1) above the threshold becomes CE. */
	if (q >= m_cfg.ecn_pkts && (hdr[1] & 3) && (hdr[1] & 3) != 3) {
		Ipv4Header ip;

		fwd->RemoveHeader(ip);
		ip.SetEcn(Ipv4Header::ECN_CE);
		fwd->AddHeader(ip);
		m_marks++;
	}
	m_forwarded++;
	out->Send(fwd, out->GetBroadcast(), IPV4);
	return true;
}

bool Fabric::HostRx(unsigned int host, Ptr<NetDevice>, Ptr<const Packet> p,
		    uint16_t, const Address &)
{
	Ptr<Packet> pk = p->Copy();
	Ipv4Header ip;
	UdpHeader udp;
	unsigned int src;

	pk->RemoveHeader(ip);
	pk->RemoveHeader(udp);
	src = AddrHost(ip.GetSource().Get());
	if (src >= m_cfg.hosts || udp.GetDestinationPort() != MROCE_PORT)
		return false;
	m_rx(src, host, udp.GetSourcePort(), pk,
	     ip.GetEcn() == Ipv4Header::ECN_CE);
	return true;
}

void Fabric::Send(unsigned int src, unsigned int plane, unsigned int dst,
		  uint16_t sport, Ptr<Packet> p, bool ect)
{
	Ipv4Header ip;
	UdpHeader udp;

	udp.SetSourcePort(sport);
	udp.SetDestinationPort(MROCE_PORT);
	p->AddHeader(udp);
	ip.SetSource(Ipv4Address(HostAddr(src, plane)));
	ip.SetDestination(Ipv4Address(HostAddr(dst, plane)));
	ip.SetProtocol(17);
	ip.SetTtl(64);
	ip.SetPayloadSize(p->GetSize());
	ip.SetEcn(ect ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
	p->AddHeader(ip);
	m_nic[src][plane]->Send(p, m_nic[src][plane]->GetBroadcast(), IPV4);
}

void Fabric::SetUplink(unsigned int plane, unsigned int leaf,
		       unsigned int spine, bool up)
{
	Link &l = m_up.at(plane).at(leaf * m_cfg.spines + spine);

	l.a->SetDown(!up);
	l.b->SetDown(!up);
}

void Fabric::SetPlane(unsigned int plane, bool up)
{
	for (Link &l : m_up.at(plane)) {
		l.a->SetDown(!up);
		l.b->SetDown(!up);
	}
	for (Link &l : m_hostLinks.at(plane)) {
		l.a->SetDown(!up);
		l.b->SetDown(!up);
	}
}

uint64_t Fabric::LinkDrops() const
{
	uint64_t n = 0;

	for (const auto &e : m_errors)
		n += e->Drops();
	return n;
}

uint32_t Fabric::QueueTo(unsigned int host, unsigned int plane) const
{
	const Switch &leaf = m_switches[plane * (m_cfg.leaves + m_cfg.spines) +
					host / m_perLeaf];

	return leaf.down[host % m_perLeaf]->GetQueue()->GetNPackets();
}

double Fabric::BaseRttUs(unsigned int fwd, unsigned int rev) const
{
	double bits = (fwd + rev + 2.0 * Overhead()) * 8;

	/* Four links each way, store and forward at each. */
	return 8 * m_cfg.delay_ns / 1e3 + 4 * bits / LinkBps() * 1e6;
}

} // namespace mroce_sim

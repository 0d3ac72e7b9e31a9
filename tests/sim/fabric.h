/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated fabric, on ns-3: hosts with one NIC per plane, each
 * plane a two-tier leaf/spine network of ns-3 point-to-point links.
 * Packets are real IPv4/UDP datagrams (ns-3's header classes) carrying
 * mroce's wire bytes.  Switches forward by destination, ECMP over the
 * uplinks by a hash of the 5-tuple, mark ECN-capable packets CE when the
 * egress queue holds more than a threshold, and drop when it is full.
 * Links into hosts lose packets at random; links and whole planes fail
 * (black-hole every packet) and come back at chosen times.
 *
 * Switches are not IP nodes: each forwards in its devices' receive
 * handler, which is all a leaf/spine switch does and far cheaper than
 * ns-3's IP stack at every hop.
 */
#ifndef MROCE_SIM_FABRIC_H
#define MROCE_SIM_FABRIC_H

#include <cstdint>
#include <functional>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/ipv4-header.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/udp-header.h"

namespace mroce_sim
{

/**
 * struct FabricConfig - the shape of a fabric
 * @hosts: hosts, a multiple of @leaves
 * @planes: NICs per host, one separate leaf/spine network each
 * @leaves: leaf switches per plane
 * @spines: spine switches per plane
 * @gbps: rate of every link
 * @delay_ns: propagation delay of every link
 * @buffer_pkts: egress buffer of a switch port, packets
 * @ecn_pkts: queue length above which a switch marks ECN-capable packets
 * @host_queue_pkts: a host NIC's transmit queue (the qdisc), packets
 * @loss: probability a packet is lost on its last link (into the host)
 * @seed: ECMP salt and loss streams
 */
struct FabricConfig {
	unsigned int hosts = 16;
	unsigned int planes = 1;
	unsigned int leaves = 4;
	unsigned int spines = 4;
	double gbps = 100;
	unsigned int delay_ns = 1000;
	unsigned int buffer_pkts = 128;
	unsigned int ecn_pkts = 24;
	unsigned int host_queue_pkts = 100000;
	double loss = 0;
	uint32_t seed = 1;
};

/* A datagram arrived at host @dst from @src, UDP source port @sport. */
using FabricRx = std::function<void(unsigned int src, unsigned int dst,
				    uint16_t sport, ns3::Ptr<ns3::Packet> p,
				    bool ce)>;
/* Host @host's NIC on @plane took a packet off its queue to send it. */
using FabricDrained = std::function<void(unsigned int host,
					 unsigned int plane)>;

/*
 * What a link does to the packets it delivers: loses a fraction at
 * random, or all of them while the link is down.
 */
class LinkErrors : public ns3::ErrorModel
{
  public:
	static ns3::TypeId GetTypeId();

	LinkErrors();
	void Setup(double loss, int64_t stream);
	void SetDown(bool down) { m_down = down; }
	uint64_t Drops() const { return m_drops; }

  private:
	bool DoCorrupt(ns3::Ptr<ns3::Packet>) override;
	void DoReset() override {}

	ns3::Ptr<ns3::UniformRandomVariable> m_rng;
	double m_loss = 0;
	bool m_down = false;
	uint64_t m_drops = 0;
};


class Fabric
{
  public:
	Fabric(const FabricConfig &cfg, FabricRx rx, FabricDrained drained);

	/* Send @p (mroce bytes) from @src's NIC @plane to @dst's, UDP @sport. */
	void Send(unsigned int src, unsigned int plane, unsigned int dst,
		  uint16_t sport, ns3::Ptr<ns3::Packet> p, bool ect);

	/* Fail (or repair) the link from @leaf to @spine of @plane. */
	void SetUplink(unsigned int plane, unsigned int leaf,
		       unsigned int spine, bool up);
	/* Fail (or repair) every link of @plane. */
	void SetPlane(unsigned int plane, bool up);

	const FabricConfig &Config() const { return m_cfg; }
	double LinkBps() const { return m_cfg.gbps * 1e9; }
	uint64_t PeakQueue() const { return m_peakQueue; }
	uint64_t SwitchDrops() const { return m_swDrops; }
	uint64_t HostQueueDrops() const { return m_hostDrops; }
	uint64_t Marks() const { return m_marks; }
	uint64_t LinkDrops() const;
	uint64_t Forwarded() const { return m_forwarded; }
	/* Packets waiting in @host's NIC on @plane. */
	uint32_t NicQueue(unsigned int host, unsigned int plane) const
	{
		return m_nic[host][plane]->GetQueue()->GetNPackets();
	}
	/* Packets queued at the leaf's port down to @host on @plane. */
	uint32_t QueueTo(unsigned int host, unsigned int plane) const;
	/* Base RTT through a spine: a @fwd-byte packet, a @rev-byte answer. */
	double BaseRttUs(unsigned int fwd, unsigned int rev) const;
	/* Bytes of IPv4, UDP and point-to-point framing around a datagram. */
	static unsigned int Overhead() { return 20 + 8 + 2; }

  private:
	struct Switch {
		unsigned int plane;
		bool leaf;
		unsigned int index;
		std::vector<ns3::Ptr<ns3::PointToPointNetDevice>> down;
		std::vector<ns3::Ptr<ns3::PointToPointNetDevice>> up;
	};
	struct Link {
		ns3::Ptr<LinkErrors> a, b;
	};

	Link Connect(ns3::Ptr<ns3::Node> a, ns3::Ptr<ns3::Node> b,
		     unsigned int qa, unsigned int qb, double loss_into_b,
		     ns3::Ptr<ns3::PointToPointNetDevice> *da,
		     ns3::Ptr<ns3::PointToPointNetDevice> *db,
		     uint64_t *drops_a);
	bool Forward(Switch *sw, ns3::Ptr<ns3::NetDevice> dev,
		     ns3::Ptr<const ns3::Packet> p, uint16_t proto,
		     const ns3::Address &from);
	bool HostRx(unsigned int host, ns3::Ptr<ns3::NetDevice> dev,
		    ns3::Ptr<const ns3::Packet> p, uint16_t proto,
		    const ns3::Address &from);
	uint32_t Hash(const uint8_t *hdr, unsigned int salt) const;
	static void NicDequeued(Fabric *f, unsigned int host, unsigned int plane,
				ns3::Ptr<const ns3::Packet> p);

	FabricConfig m_cfg;
	FabricRx m_rx;
	FabricDrained m_drained;
	unsigned int m_perLeaf;
	std::vector<ns3::Ptr<ns3::Node>> m_hosts;
	std::vector<Switch> m_switches;	/* per plane: leaves, then spines */
	/* m_nic[host][plane] */
	std::vector<std::vector<ns3::Ptr<ns3::PointToPointNetDevice>>> m_nic;
	/* m_up[plane][leaf * spines + spine] */
	std::vector<std::vector<Link>> m_up;
	std::vector<std::vector<Link>> m_hostLinks;	/* [plane][host] */
	std::vector<ns3::Ptr<LinkErrors>> m_errors;
	uint64_t m_peakQueue = 0;
	uint64_t m_swDrops = 0;
	uint64_t m_hostDrops = 0;
	uint64_t m_marks = 0;
	uint64_t m_forwarded = 0;
};

/* Host @h's address on @plane, and back. */
uint32_t HostAddr(unsigned int h, unsigned int plane);
unsigned int AddrHost(uint32_t addr);

} // namespace mroce_sim

#endif /* MROCE_SIM_FABRIC_H */

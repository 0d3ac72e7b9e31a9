/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the transport: where it finds packets lost, sends them
 * again and moves a path to another route.
 *   echo 1 > /sys/kernel/tracing/events/mroce/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mroce

#if !defined(MROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MROCE_TRACE_H

#include <linux/tracepoint.h>

#include "compat.h"
#include "transport.h"

DECLARE_EVENT_CLASS(mroce_path_psn,
		    TP_PROTO(const struct mroce_conn *conn, unsigned int path, u32 psn),
		    TP_ARGS(conn, path, psn),
		    TP_STRUCT__entry(__string(dev, dev_name(&conn->mdev->ibdev.dev))
				     __array(u8, raddr, sizeof(struct in6_addr))
				     __field(unsigned int, path)
				     __field(u32, psn)),
		    TP_fast_assign(mroce_assign_str(dev, dev_name(&conn->mdev->ibdev.dev));
				   memcpy(__entry->raddr, &conn->raddr, sizeof(struct in6_addr));
				   __entry->path = path;
				   __entry->psn = psn;),
		    TP_printk("%s peer %pI6c path %u psn %u", __get_str(dev),
			      __entry->raddr, __entry->path, __entry->psn)
);

/* A SACK gap showed the packet lost. */
DEFINE_EVENT(mroce_path_psn, mroce_lost,
	     TP_PROTO(const struct mroce_conn *conn, unsigned int path, u32 psn),
	     TP_ARGS(conn, path, psn));

/* The retransmission timer expired for the packet. */
DEFINE_EVENT(mroce_path_psn, mroce_timeout,
	     TP_PROTO(const struct mroce_conn *conn, unsigned int path, u32 psn),
	     TP_ARGS(conn, path, psn));

/* The packet was sent again. */
DEFINE_EVENT(mroce_path_psn, mroce_retransmit,
	     TP_PROTO(const struct mroce_conn *conn, unsigned int path, u32 psn),
	     TP_ARGS(conn, path, psn));

/*
 * A path changes its UDP source port, so its ECMP hash; with the output
 * device each port was routed to (0: unknown), which names the plane.
 */
DECLARE_EVENT_CLASS(mroce_path_sport,
		    TP_PROTO(const struct mroce_conn *conn, unsigned int path,
			     u16 old_sport, u64 old_plane, u16 new_sport,
			     u64 new_plane),
		    TP_ARGS(conn, path, old_sport, old_plane, new_sport, new_plane),
		    TP_STRUCT__entry(__string(dev, dev_name(&conn->mdev->ibdev.dev))
				     __array(u8, raddr, sizeof(struct in6_addr))
				     __field(unsigned int, path)
				     __field(u16, old_sport)
				     __field(u16, new_sport)
				     __field(u32, old_oif)
				     __field(u32, new_oif)),
		    TP_fast_assign(mroce_assign_str(dev, dev_name(&conn->mdev->ibdev.dev));
				   memcpy(__entry->raddr, &conn->raddr, sizeof(struct in6_addr));
				   __entry->path = path;
				   __entry->old_sport = old_sport;
				   __entry->new_sport = new_sport;
				   __entry->old_oif = mroce_plane_ifindex(old_plane);
				   __entry->new_oif = mroce_plane_ifindex(new_plane);),
		    TP_printk("%s peer %pI6c path %u sport %u -> %u oif %u -> %u",
			      __get_str(dev), __entry->raddr, __entry->path,
			      __entry->old_sport, __entry->new_sport,
			      __entry->old_oif, __entry->new_oif)
);

/* Its route was found dead: a random new port. */
DEFINE_EVENT(mroce_path_sport, mroce_reroll,
	     TP_PROTO(const struct mroce_conn *conn, unsigned int path,
		      u16 old_sport, u64 old_plane, u16 new_sport,
		      u64 new_plane),
	     TP_ARGS(conn, path, old_sport, old_plane, new_sport, new_plane));

/* Its home port answered a route probe: back to it. */
DEFINE_EVENT(mroce_path_sport, mroce_route_return,
	     TP_PROTO(const struct mroce_conn *conn, unsigned int path,
		      u16 old_sport, u64 old_plane, u16 new_sport,
		      u64 new_plane),
	     TP_ARGS(conn, path, old_sport, old_plane, new_sport, new_plane));

#endif /* MROCE_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

-- SPDX-License-Identifier: GPL-2.0-only
--
-- Wireshark/tshark dissector for mroce, the UDP-encapsulated multipath
-- RDMA transport, written from Documentation/wire-protocol.rst (version 2).
--
-- Use it for one run:
--   tshark -X lua_script:tools/wireshark/mroce.lua -r capture.pcap
-- or install it where Wireshark loads Lua plugins ("scripts/install" puts
-- it in the global Lua plugin folder that "tshark -G folders" names).
-- The UDP port is a preference (mroce.udp_port, 4796 by default):
--   tshark -o mroce.udp_port:5000 ...
--
-- Every field's filter name starts with "mroce." (tshark -G fields | grep
-- '\bmroce\.').  Packets that are short or break a rule of the spec get an
-- expert info; the dissector never raises a Lua error on bad input.

local DEFAULT_PORT = 4796
local WIRE_VERSION = 2   -- "Common header"; see "Versions"

local mroce = Proto("mroce", "mroce multipath RDMA transport")

-- ---------------------------------------------------------------------------
-- Constants of the spec
-- ---------------------------------------------------------------------------

local HDR_LEN = 16       -- common header
local DATA_HDR_LEN = 40  -- common header + stream header
local ACK_FIXED_LEN = 56 -- common header + sack .. capacity
local RECORD_LEN = 16    -- ACK stream record
local HELLO_LEN = 24
local PROBE_LEN = 24
local DATAGRAM_HDR_LEN = 32
local MAX_PATHS = 64
local MAX_STREAMS = 64
local MAX_PAYLOAD = 4096
local SACK_BITS = 256

local T_DATA, T_ACK, T_HELLO, T_PROBE, T_DATAGRAM = 1, 2, 3, 4, 5
local type_names = {
	[T_DATA] = "DATA",
	[T_ACK] = "ACK",
	[T_HELLO] = "HELLO",
	[T_PROBE] = "PROBE",
	[T_DATAGRAM] = "DATAGRAM",
}

local F_ACK_REQ, F_SOLICITED, F_IMM, F_ROUTE = 0x01, 0x02, 0x04, 0x08
-- Flag bits each type defines; any other bit is reserved.
local type_flags = {
	[T_DATA] = F_ACK_REQ + F_SOLICITED,
	[T_ACK] = F_ROUTE,
	[T_HELLO] = 0,
	[T_PROBE] = F_ROUTE,
	[T_DATAGRAM] = F_SOLICITED + F_IMM,
}
local flag_names = {
	{ F_ACK_REQ, "ACK_REQ" },
	{ F_SOLICITED, "SOLICITED" },
	{ F_IMM, "IMM" },
	{ F_ROUTE, "ROUTE" },
}

local OP_SEND, OP_SEND_IMM, OP_SEND_INV, OP_WRITE, OP_WRITE_IMM = 1, 2, 3, 4, 5
local OP_READ_REQ, OP_READ_RESP, OP_CMP_SWAP, OP_FETCH_ADD = 6, 7, 8, 9
local OP_ATOMIC_RESP = 10
local opcode_names = {
	[OP_SEND] = "SEND",
	[OP_SEND_IMM] = "SEND_IMM",
	[OP_SEND_INV] = "SEND_INV",
	[OP_WRITE] = "WRITE",
	[OP_WRITE_IMM] = "WRITE_IMM",
	[OP_READ_REQ] = "READ_REQ",
	[OP_READ_RESP] = "READ_RESP",
	[OP_CMP_SWAP] = "CMP_SWAP",
	[OP_FETCH_ADD] = "FETCH_ADD",
	[OP_ATOMIC_RESP] = "ATOMIC_RESP",
}

local nak_names = {
	[0] = "none",
	[1] = "RNR",
	[2] = "REMOTE_ACCESS",
	[3] = "INVALID_REQUEST",
	[4] = "REMOTE_OPERATION",
}

-- IB-encoded minimum RNR NAK timer (IBA table "RNR timer field encoding").
local rnr_timer_names = {
	[0] = "655.36 ms", [1] = "0.01 ms", [2] = "0.02 ms", [3] = "0.03 ms",
	[4] = "0.04 ms", [5] = "0.06 ms", [6] = "0.08 ms", [7] = "0.12 ms",
	[8] = "0.16 ms", [9] = "0.24 ms", [10] = "0.32 ms", [11] = "0.48 ms",
	[12] = "0.64 ms", [13] = "0.96 ms", [14] = "1.28 ms", [15] = "1.92 ms",
	[16] = "2.56 ms", [17] = "3.84 ms", [18] = "5.12 ms", [19] = "7.68 ms",
	[20] = "10.24 ms", [21] = "15.36 ms", [22] = "20.48 ms",
	[23] = "30.72 ms", [24] = "40.96 ms", [25] = "61.44 ms",
	[26] = "81.92 ms", [27] = "122.88 ms", [28] = "163.84 ms",
	[29] = "245.76 ms", [30] = "327.68 ms", [31] = "491.52 ms",
}

-- ---------------------------------------------------------------------------
-- Fields
-- ---------------------------------------------------------------------------

local f = {}
local function field(key, pf)
	f[key] = pf
end

-- Common header
field("version", ProtoField.uint8("mroce.version", "Version", base.DEC, nil, 0xf0))
field("reserved0", ProtoField.uint8("mroce.reserved", "Reserved", base.HEX, nil, 0x0f))
field("type", ProtoField.uint8("mroce.type", "Type", base.DEC, type_names))
field("flags", ProtoField.uint8("mroce.flags", "Flags", base.HEX))
field("flag_ack_req", ProtoField.bool("mroce.flags.ack_req", "ACK_REQ (acknowledge now)", 8, nil, F_ACK_REQ))
field("flag_solicited", ProtoField.bool("mroce.flags.solicited", "SOLICITED (solicited event)", 8, nil, F_SOLICITED))
field("flag_imm", ProtoField.bool("mroce.flags.imm", "IMM (imm is valid)", 8, nil, F_IMM))
field("flag_route", ProtoField.bool("mroce.flags.route", "ROUTE (route probe / its answer)", 8, nil, F_ROUTE))
field("flag_reserved", ProtoField.uint8("mroce.flags.reserved", "Reserved flag bits", base.HEX))
field("path", ProtoField.uint8("mroce.path", "Path", base.DEC))
field("src_epoch", ProtoField.uint32("mroce.src_epoch", "Source epoch", base.HEX))
field("dst_epoch", ProtoField.uint32("mroce.dst_epoch", "Destination epoch", base.HEX))
field("psn", ProtoField.uint32("mroce.psn", "PSN", base.DEC))

-- DATA: stream header
field("d_dst_qpn", ProtoField.uint32("mroce.data.dst_qpn", "Destination QPN", base.HEX, nil, 0x00ffffff))
field("d_dst_qpn_res", ProtoField.uint32("mroce.data.dst_qpn_reserved", "Destination QPN reserved bits", base.HEX, nil, 0xff000000))
field("d_src_qpn", ProtoField.uint32("mroce.data.src_qpn", "Source QPN", base.HEX, nil, 0x00ffffff))
field("d_src_qpn_res", ProtoField.uint32("mroce.data.src_qpn_reserved", "Source QPN reserved bits", base.HEX, nil, 0xff000000))
field("d_opcode", ProtoField.uint8("mroce.data.opcode", "Opcode", base.DEC, opcode_names))
field("d_gen", ProtoField.uint8("mroce.data.gen", "Generation", base.DEC))
field("d_reserved", ProtoField.uint16("mroce.data.reserved", "Reserved", base.HEX))
field("d_msn", ProtoField.uint32("mroce.data.msn", "MSN", base.DEC))
field("d_msg_len", ProtoField.uint32("mroce.data.msg_len", "Message length", base.DEC))
field("d_offset", ProtoField.uint32("mroce.data.offset", "Offset", base.DEC))
-- DATA: operation extensions
field("d_ssn", ProtoField.uint32("mroce.data.ssn", "SSN", base.DEC))
field("d_imm", ProtoField.uint32("mroce.data.imm", "Immediate data", base.HEX))
field("d_inv_rkey", ProtoField.uint32("mroce.data.inv_rkey", "Invalidate rkey", base.HEX))
field("d_va", ProtoField.uint64("mroce.data.va", "Virtual address", base.HEX))
field("d_rkey", ProtoField.uint32("mroce.data.rkey", "rkey", base.HEX))
field("d_swap", ProtoField.uint64("mroce.data.swap", "Swap", base.HEX))
field("d_compare", ProtoField.uint64("mroce.data.compare", "Compare", base.HEX))
field("d_add", ProtoField.uint64("mroce.data.add", "Add", base.HEX))
field("d_orig", ProtoField.uint64("mroce.data.orig", "Original value", base.HEX))
field("d_ext_res", ProtoField.uint32("mroce.data.ext_reserved", "Reserved", base.HEX))
field("d_ext_len", ProtoField.uint32("mroce.data.ext_len", "Extension length", base.DEC))
field("d_payload_len", ProtoField.uint32("mroce.data.payload_len", "Payload length", base.DEC))
field("d_payload", ProtoField.bytes("mroce.data.payload", "Payload"))
field("body", ProtoField.bytes("mroce.body", "Undecoded body"))

-- ACK
field("a_cum", ProtoField.uint32("mroce.ack.cum", "Cumulative sequence (cum)", base.DEC))
field("a_sack", ProtoField.bytes("mroce.ack.sack", "SACK bitmap"))
field("a_sack_count", ProtoField.uint16("mroce.ack.sack.count", "Sequences reported received", base.DEC))
field("a_sack_seq", ProtoField.uint32("mroce.ack.sack.seq", "Received sequence", base.DEC))
field("a_sack_ranges", ProtoField.string("mroce.ack.sack.ranges", "Received sequences"))
field("a_ce_count", ProtoField.uint16("mroce.ack.ce_count", "CE count", base.DEC))
field("a_share", ProtoField.uint16("mroce.ack.share", "Share (1/65535 of capacity)", base.DEC))
field("a_share_frac", ProtoField.double("mroce.ack.share_fraction", "Share fraction"))
field("a_share_mbps", ProtoField.double("mroce.ack.share_mbps", "Share (Mbit/s)"))
field("a_nstreams", ProtoField.uint8("mroce.ack.nstreams", "Stream records", base.DEC))
field("a_capacity", ProtoField.uint24("mroce.ack.capacity", "Capacity (Mbit/s)", base.DEC))
field("a_s_qpn", ProtoField.uint32("mroce.ack.stream.qpn", "QPN", base.HEX))
field("a_s_msn_done", ProtoField.uint32("mroce.ack.stream.msn_done", "MSN done", base.DEC))
field("a_s_nak_msn", ProtoField.uint32("mroce.ack.stream.nak_msn", "NAK MSN", base.DEC))
field("a_s_nak", ProtoField.uint8("mroce.ack.stream.nak", "NAK", base.DEC, nak_names))
field("a_s_nak_gen", ProtoField.uint8("mroce.ack.stream.nak_gen", "NAK generation", base.DEC))
field("a_s_rnr_timer", ProtoField.uint8("mroce.ack.stream.rnr_timer", "RNR timer", base.DEC, rnr_timer_names))
field("a_s_reserved", ProtoField.uint8("mroce.ack.stream.reserved", "Reserved", base.HEX))

-- PROBE
field("p_qpn", ProtoField.uint32("mroce.probe.qpn", "QPN", base.HEX, { [0xffffffff] = "none" }))
field("p_reserved", ProtoField.uint32("mroce.probe.reserved", "Reserved", base.HEX))

-- HELLO
field("h_paths", ProtoField.uint16("mroce.hello.paths", "Paths", base.DEC))
field("h_reserved16", ProtoField.uint16("mroce.hello.reserved16", "Reserved", base.HEX))
field("h_reserved32", ProtoField.uint32("mroce.hello.reserved", "Reserved", base.HEX))

-- DATAGRAM
field("g_dst_qpn", ProtoField.uint32("mroce.datagram.dst_qpn", "Destination QPN", base.HEX, nil, 0x00ffffff))
field("g_dst_qpn_res", ProtoField.uint32("mroce.datagram.dst_qpn_reserved", "Destination QPN reserved bits", base.HEX, nil, 0xff000000))
field("g_src_qpn", ProtoField.uint32("mroce.datagram.src_qpn", "Source QPN", base.HEX, nil, 0x00ffffff))
field("g_src_qpn_res", ProtoField.uint32("mroce.datagram.src_qpn_reserved", "Source QPN reserved bits", base.HEX, nil, 0xff000000))
field("g_qkey", ProtoField.uint32("mroce.datagram.qkey", "Q_Key", base.HEX))
field("g_imm", ProtoField.uint32("mroce.datagram.imm", "Immediate data", base.HEX))
field("g_payload_len", ProtoField.uint32("mroce.datagram.payload_len", "Payload length", base.DEC))
field("g_payload", ProtoField.bytes("mroce.datagram.payload", "Payload"))

local field_list = {}
for _, pf in pairs(f) do
	field_list[#field_list + 1] = pf
end
mroce.fields = field_list

-- ---------------------------------------------------------------------------
-- Expert infos
-- ---------------------------------------------------------------------------

local e = {
	short = ProtoExpert.new("mroce.short", "Packet shorter than its type's fixed length",
		expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("mroce.bad_version", "Version is not " .. WIRE_VERSION .. " (a receiver drops it)",
		expert.group.MALFORMED, expert.severity.ERROR),
	type = ProtoExpert.new("mroce.unknown_type", "Unknown packet type (a receiver drops it)",
		expert.group.MALFORMED, expert.severity.ERROR),
	path = ProtoExpert.new("mroce.bad_path", "Path id is 64 or more (a receiver drops it)",
		expert.group.MALFORMED, expert.severity.ERROR),
	opcode = ProtoExpert.new("mroce.unknown_opcode", "Unknown DATA opcode",
		expert.group.MALFORMED, expert.severity.ERROR),
	nstreams = ProtoExpert.new("mroce.bad_nstreams", "More than 64 stream records",
		expert.group.MALFORMED, expert.severity.ERROR),
	trailing = ProtoExpert.new("mroce.trailing", "Bytes after the last stream record",
		expert.group.MALFORMED, expert.severity.WARN),
	reserved = ProtoExpert.new("mroce.reserved_nonzero", "Reserved field is not zero",
		expert.group.PROTOCOL, expert.severity.WARN),
	length = ProtoExpert.new("mroce.bad_length", "Payload length breaks a rule of the spec",
		expert.group.PROTOCOL, expert.severity.WARN),
	value = ProtoExpert.new("mroce.bad_value", "Field value out of the spec's range",
		expert.group.PROTOCOL, expert.severity.WARN),
	nak = ProtoExpert.new("mroce.nak", "NAK",
		expert.group.RESPONSE_CODE, expert.severity.NOTE),
	nak_code = ProtoExpert.new("mroce.unknown_nak", "Unknown NAK code (a receiver drops the ACK)",
		expert.group.MALFORMED, expert.severity.ERROR),
	epoch = ProtoExpert.new("mroce.zero_epoch", "Source epoch 0 outside a DATAGRAM (a receiver drops it)",
		expert.group.MALFORMED, expert.severity.ERROR),
}
mroce.experts = { e.short, e.version, e.type, e.path, e.opcode, e.nstreams,
	e.trailing, e.reserved, e.length, e.value, e.nak, e.nak_code, e.epoch }

-- ---------------------------------------------------------------------------
-- Preferences
-- ---------------------------------------------------------------------------

mroce.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT,
	"UDP port of mroce (the module parameter udp_port; 4796 by default)")

local udp_table = DissectorTable.get("udp.port")
local registered_port = nil

local function register_port()
	local port = mroce.prefs.udp_port
	if registered_port == port then
		return
	end
	if registered_port ~= nil then
		udp_table:remove(registered_port, mroce)
	end
	if port ~= 0 then
		udp_table:add(port, mroce)
		registered_port = port
	else
		registered_port = nil
	end
end

function mroce.prefs_changed()
	register_port()
end

-- ---------------------------------------------------------------------------
-- Helpers
-- ---------------------------------------------------------------------------

local band, rshift = bit32.band, bit32.rshift

-- add_reserved: a reserved field, flagged when not zero (value: its value
-- after any mask).
local function add_reserved(tree, pf, range, value)
	local item = tree:add(pf, range)
	if value ~= 0 then
		item:add_proto_expert_info(e.reserved)
	end
	return item
end

-- Set by short() while a packet is dissected, for the Info column.
local truncated = false

local function short(tree, tvb, need, what)
	truncated = true
	tree:add_proto_expert_info(e.short, string.format(
		"Short %s: %d bytes, at least %d needed", what, tvb:len(), need))
end

local function flag_text(flags)
	local t = {}
	for _, fl in ipairs(flag_names) do
		if band(flags, fl[1]) ~= 0 then
			t[#t + 1] = fl[2]
		end
	end
	return table.concat(t, ",")
end

local function hex_qpn(v)
	return string.format("0x%06x", v)
end

-- ---------------------------------------------------------------------------
-- Common header
-- ---------------------------------------------------------------------------

-- Returns type, flags, path, psn, ok (ok: the body may be dissected).
local function dissect_common(tvb, pinfo, tree)
	local len = tvb:len()
	if len < HDR_LEN then
		short(tree, tvb, HDR_LEN, "common header")
		if len >= 2 then
			tree:add(f.version, tvb(0, 1))
			tree:add(f.type, tvb(1, 1))
		end
		return nil
	end
	local vbyte = tvb(0, 1):uint()
	local version = rshift(vbyte, 4)
	local ptype = tvb(1, 1):uint()
	local flags = tvb(2, 1):uint()
	local path = tvb(3, 1):uint()
	local psn = tvb(12, 4):uint()

	local vi = tree:add(f.version, tvb(0, 1))
	if version ~= WIRE_VERSION then
		vi:add_proto_expert_info(e.version, string.format("Version %d, not %d", version, WIRE_VERSION))
	end
	add_reserved(tree, f.reserved0, tvb(0, 1), band(vbyte, 0x0f))
	local ti = tree:add(f.type, tvb(1, 1))
	if not type_names[ptype] then
		ti:add_proto_expert_info(e.type, string.format("Unknown type %d", ptype))
	end

	local defined = type_flags[ptype] or 0
	local fi = tree:add(f.flags, tvb(2, 1))
	local ft = flag_text(band(flags, defined))
	if ft ~= "" then
		fi:append_text(" (" .. ft .. ")")
	end
	if band(defined, F_ACK_REQ) ~= 0 then fi:add(f.flag_ack_req, tvb(2, 1)) end
	if band(defined, F_SOLICITED) ~= 0 then fi:add(f.flag_solicited, tvb(2, 1)) end
	if band(defined, F_IMM) ~= 0 then fi:add(f.flag_imm, tvb(2, 1)) end
	if band(defined, F_ROUTE) ~= 0 then fi:add(f.flag_route, tvb(2, 1)) end
	local undefined = band(flags, 0xff - defined)
	if undefined ~= 0 and type_names[ptype] then
		add_reserved(fi, f.flag_reserved, tvb(2, 1), undefined)
	end

	local pi = tree:add(f.path, tvb(3, 1))
	if path >= MAX_PATHS then
		pi:add_proto_expert_info(e.path, string.format("Path %d, at most %d allowed",
			path, MAX_PATHS - 1))
	end
	local ei = tree:add(f.src_epoch, tvb(4, 4))
	if tvb(4, 4):uint() == 0 and ptype ~= T_DATAGRAM and type_names[ptype] then
		ei:add_proto_expert_info(e.epoch)
	end
	tree:add(f.dst_epoch, tvb(8, 4))
	local si = tree:add(f.psn, tvb(12, 4))
	if ptype == T_ACK then
		si:append_text(" (cum)")
	end
	return ptype, flags, path, psn, version == WIRE_VERSION and type_names[ptype] ~= nil
end

-- ---------------------------------------------------------------------------
-- DATA
-- ---------------------------------------------------------------------------

-- Extension layouts: {field key, size} in order; "res" is a reserved word.
local ext_layout = {
	[OP_SEND] = { { "d_ssn", 4 }, { "res", 4 } },
	[OP_SEND_IMM] = { { "d_ssn", 4 }, { "d_imm", 4 } },
	[OP_SEND_INV] = { { "d_ssn", 4 }, { "d_inv_rkey", 4 } },
	[OP_WRITE] = { { "d_va", 8 }, { "d_rkey", 4 }, { "res", 4 } },
	[OP_WRITE_IMM] = { { "d_va", 8 }, { "d_rkey", 4 }, { "d_imm", 4 },
		{ "d_ssn", 4 }, { "res", 4 } },
	[OP_READ_REQ] = { { "d_va", 8 }, { "d_rkey", 4 }, { "res", 4 } },
	[OP_READ_RESP] = {},
	[OP_CMP_SWAP] = { { "d_va", 8 }, { "d_rkey", 4 }, { "res", 4 },
		{ "d_swap", 8 }, { "d_compare", 8 } },
	[OP_FETCH_ADD] = { { "d_va", 8 }, { "d_rkey", 4 }, { "res", 4 },
		{ "d_add", 8 } },
	[OP_ATOMIC_RESP] = { { "d_orig", 8 } },
}

local function ext_size(layout)
	local n = 0
	for _, ent in ipairs(layout) do
		n = n + ent[2]
	end
	return n
end

local function dissect_data(tvb, pinfo, tree, flags, path, psn)
	local len = tvb:len()
	local info = string.format("DATA path %d psn %d", path, psn)
	if len < DATA_HDR_LEN then
		short(tree, tvb, DATA_HDR_LEN, "DATA stream header")
		return info
	end
	local st = tree:add(mroce, tvb(HDR_LEN, DATA_HDR_LEN - HDR_LEN), "Stream header")
	local dq = tvb(16, 4):uint()
	local sq = tvb(20, 4):uint()
	local opcode = tvb(24, 1):uint()
	local msn = tvb(28, 4):uint()
	local msg_len = tvb(32, 4):uint()
	local offset = tvb(36, 4):uint()

	st:add(f.d_dst_qpn, tvb(16, 4))
	add_reserved(st, f.d_dst_qpn_res, tvb(16, 4), rshift(dq, 24))
	st:add(f.d_src_qpn, tvb(20, 4))
	add_reserved(st, f.d_src_qpn_res, tvb(20, 4), rshift(sq, 24))
	local oi = st:add(f.d_opcode, tvb(24, 1))
	st:add(f.d_gen, tvb(25, 1))
	add_reserved(st, f.d_reserved, tvb(26, 2), tvb(26, 2):uint())
	st:add(f.d_msn, tvb(28, 4))
	st:add(f.d_msg_len, tvb(32, 4))
	st:add(f.d_offset, tvb(36, 4))

	local opname = opcode_names[opcode] or string.format("opcode-%d", opcode)
	info = string.format("DATA %s path %d psn %d msn %d off %d", opname, path,
		psn, msn, offset)
	st:append_text(string.format(": %s qpn %s -> %s msn %d", opname,
		hex_qpn(band(sq, 0xffffff)), hex_qpn(band(dq, 0xffffff)), msn))

	local layout = ext_layout[opcode]
	if not layout then
		oi:add_proto_expert_info(e.opcode, string.format("Unknown opcode %d", opcode))
		if len > DATA_HDR_LEN then
			tree:add(f.body, tvb(DATA_HDR_LEN))
		end
		return info
	end

	local esize = ext_size(layout)
	local hlen = DATA_HDR_LEN + esize
	if esize > 0 then
		local avail = math.min(esize, len - DATA_HDR_LEN)
		local et
		if avail > 0 then
			et = tree:add(mroce, tvb(DATA_HDR_LEN, avail), opname .. " extension")
		else
			et = tree:add(mroce, opname .. " extension")
		end
		et:add(f.d_ext_len, esize):set_generated()
		if len < hlen then
			short(et, tvb, hlen, opname .. " extension")
			return info
		end
		local off = DATA_HDR_LEN
		for _, ent in ipairs(layout) do
			local key, size = ent[1], ent[2]
			if key == "res" then
				add_reserved(et, f.d_ext_res, tvb(off, size), tvb(off, size):uint())
			else
				et:add(f[key], tvb(off, size))
			end
			off = off + size
		end
	end

	local plen = len - hlen
	local pli
	if plen > 0 then
		tree:add(f.d_payload, tvb(hlen, plen))
		pli = tree:add(f.d_payload_len, plen)
	else
		pli = tree:add(f.d_payload_len, 0)
	end
	pli:set_generated()
	info = info .. string.format(" len %d", plen)

	if plen > MAX_PAYLOAD then
		pli:add_proto_expert_info(e.length, string.format(
			"Payload of %d bytes exceeds %d", plen, MAX_PAYLOAD))
	end
	if offset + plen > msg_len then
		pli:add_proto_expert_info(e.length, string.format(
			"offset %d + payload %d exceeds msg_len %d", offset, plen, msg_len))
	end
	if opcode == OP_READ_REQ or opcode == OP_CMP_SWAP or opcode == OP_FETCH_ADD or
		opcode == OP_ATOMIC_RESP then
		if plen ~= 0 or offset ~= 0 then
			pli:add_proto_expert_info(e.length, opname ..
				" carries no payload and has offset 0")
		end
		if opcode ~= OP_READ_REQ and msg_len ~= 8 then
			pli:add_proto_expert_info(e.length, opname .. " has msg_len 8")
		end
	end
	return info
end

-- ---------------------------------------------------------------------------
-- ACK
-- ---------------------------------------------------------------------------

local function seq_add(a, b)
	return (a + b) % 4294967296
end

local function dissect_ack(tvb, pinfo, tree, flags, path, psn)
	local len = tvb:len()
	local cum = psn
	local info = string.format("ACK path %d cum %d", path, cum)
	tree:add(f.a_cum, tvb(12, 4)):set_generated()
	if len < ACK_FIXED_LEN then
		short(tree, tvb, ACK_FIXED_LEN, "ACK")
		return info
	end

	-- SACK: bit i (byte i/8, bit i%8 LSB first) set: cum + 1 + i received.
	local si = tree:add(f.a_sack, tvb(16, 32))
	local seqs = {}
	for i = 0, SACK_BITS - 1 do
		local byte = tvb(16 + math.floor(i / 8), 1):uint()
		if band(rshift(byte, i % 8), 1) ~= 0 then
			seqs[#seqs + 1] = i
		end
	end
	si:add(f.a_sack_count, #seqs):set_generated()
	-- Ranges of consecutive bits, as sequence numbers.
	local ranges = {}
	local k = 1
	while k <= #seqs do
		local j = k
		while j < #seqs and seqs[j + 1] == seqs[j] + 1 do
			j = j + 1
		end
		local a = seq_add(cum, 1 + seqs[k])
		if j == k then
			ranges[#ranges + 1] = string.format("%d", a)
		else
			ranges[#ranges + 1] = string.format("%d-%d", a, seq_add(cum, 1 + seqs[j]))
		end
		k = j + 1
	end
	local rtext = #ranges > 0 and table.concat(ranges, ",") or "none"
	si:add(f.a_sack_ranges, rtext):set_generated()
	si:append_text(string.format(" (%d received: %s)", #seqs, rtext))
	for _, i in ipairs(seqs) do
		local byte_off = 16 + math.floor(i / 8)
		si:add(f.a_sack_seq, tvb(byte_off, 1), seq_add(cum, 1 + i)):set_generated()
	end

	tree:add(f.a_ce_count, tvb(48, 2))
	local share = tvb(50, 2):uint()
	local capacity = tvb(53, 3):uint()
	local shi = tree:add(f.a_share, tvb(50, 2))
	local frac = share / 65535
	tree:add(f.a_share_frac, tvb(50, 2), frac):set_generated()
	if capacity ~= 0 then
		tree:add(f.a_share_mbps, tvb(50, 2), frac * capacity):set_generated()
		shi:append_text(string.format(" (%.4f of capacity, %.1f Mbit/s)", frac,
			frac * capacity))
	else
		shi:append_text(string.format(" (%.4f; capacity 0: no share)", frac))
		if share ~= 65535 then
			shi:add_proto_expert_info(e.value, "capacity 0 goes with share 65535")
		end
	end
	local nstreams = tvb(52, 1):uint()
	local ni = tree:add(f.a_nstreams, tvb(52, 1))
	local ci = tree:add(f.a_capacity, tvb(53, 3))
	if capacity == 0 then
		ci:append_text(" (no share given)")
	end
	if nstreams > MAX_STREAMS then
		ni:add_proto_expert_info(e.nstreams, string.format(
			"%d stream records, at most %d", nstreams, MAX_STREAMS))
	end

	info = info .. string.format(" sack %d streams %d", #seqs, nstreams)
	local need = ACK_FIXED_LEN + RECORD_LEN * nstreams
	if len < need then
		short(tree, tvb, need, string.format("ACK with %d stream records", nstreams))
	elseif len > need then
		tree:add_proto_expert_info(e.trailing, string.format(
			"%d bytes after %d stream records", len - need, nstreams))
	end

	local naks = {}
	for r = 0, nstreams - 1 do
		local o = ACK_FIXED_LEN + RECORD_LEN * r
		if o + RECORD_LEN > len then
			break
		end
		local qpn = tvb(o, 4):uint()
		local nak = tvb(o + 12, 1):uint()
		local rt = tree:add(mroce, tvb(o, RECORD_LEN), string.format(
			"Stream record %d: qpn 0x%x msn_done %d", r, qpn, tvb(o + 4, 4):uint()))
		rt:add(f.a_s_qpn, tvb(o, 4))
		rt:add(f.a_s_msn_done, tvb(o + 4, 4))
		rt:add(f.a_s_nak_msn, tvb(o + 8, 4))
		local nki = rt:add(f.a_s_nak, tvb(o + 12, 1))
		rt:add(f.a_s_nak_gen, tvb(o + 13, 1))
		local rti = rt:add(f.a_s_rnr_timer, tvb(o + 14, 1))
		if tvb(o + 14, 1):uint() > 31 then
			rti:add_proto_expert_info(e.value, "RNR timer is 5 bits (0-31)")
		end
		add_reserved(rt, f.a_s_reserved, tvb(o + 15, 1), tvb(o + 15, 1):uint())
		if nak ~= 0 then
			local nname = nak_names[nak] or string.format("nak-%d", nak)
			local msn = tvb(o + 8, 4):uint()
			rt:append_text(string.format(" NAK %s msn %d gen %d", nname, msn,
				tvb(o + 13, 1):uint()))
			nki:add_proto_expert_info(e.nak, string.format("NAK %s of msn %d, qpn 0x%x",
				nname, msn, qpn))
			if not nak_names[nak] then
				nki:add_proto_expert_info(e.nak_code, string.format("Unknown NAK code %d", nak))
			end
			naks[#naks + 1] = string.format("%s msn %d", nname, msn)
		end
	end
	if #naks > 0 then
		info = info .. " NAK " .. table.concat(naks, ",")
	end
	return info
end

-- ---------------------------------------------------------------------------
-- PROBE, HELLO, DATAGRAM
-- ---------------------------------------------------------------------------

local function dissect_probe(tvb, pinfo, tree, flags, path, psn)
	local info = string.format("PROBE path %d", path)
	if tvb:len() < PROBE_LEN then
		short(tree, tvb, PROBE_LEN, "PROBE")
		return info
	end
	local qpn = tvb(16, 4):uint()
	tree:add(f.p_qpn, tvb(16, 4))
	add_reserved(tree, f.p_reserved, tvb(20, 4), tvb(20, 4):uint())
	if qpn == 0xffffffff then
		info = info .. " qpn none"
	else
		info = info .. string.format(" qpn 0x%x", qpn)
	end
	return info
end

local function dissect_hello(tvb, pinfo, tree, flags, path, psn)
	local info = string.format("HELLO epoch 0x%08x -> 0x%08x", tvb(4, 4):uint(),
		tvb(8, 4):uint())
	if tvb:len() < HELLO_LEN then
		short(tree, tvb, HELLO_LEN, "HELLO")
		return info
	end
	local paths = tvb(16, 2):uint()
	local pi = tree:add(f.h_paths, tvb(16, 2))
	if paths < 1 or paths > MAX_PATHS then
		pi:add_proto_expert_info(e.value, string.format("%d paths, 1-%d allowed",
			paths, MAX_PATHS))
	end
	add_reserved(tree, f.h_reserved16, tvb(18, 2), tvb(18, 2):uint())
	add_reserved(tree, f.h_reserved32, tvb(20, 4), tvb(20, 4):uint())
	return info .. string.format(" paths %d", paths)
end

local function dissect_datagram(tvb, pinfo, tree, flags, path, psn)
	local len = tvb:len()
	local info = "DATAGRAM"
	if len < DATAGRAM_HDR_LEN then
		short(tree, tvb, DATAGRAM_HDR_LEN, "DATAGRAM")
		return info
	end
	local dq = tvb(16, 4):uint()
	local sq = tvb(20, 4):uint()
	tree:add(f.g_dst_qpn, tvb(16, 4))
	add_reserved(tree, f.g_dst_qpn_res, tvb(16, 4), rshift(dq, 24))
	tree:add(f.g_src_qpn, tvb(20, 4))
	add_reserved(tree, f.g_src_qpn_res, tvb(20, 4), rshift(sq, 24))
	tree:add(f.g_qkey, tvb(24, 4))
	tree:add(f.g_imm, tvb(28, 4))
	local plen = len - DATAGRAM_HDR_LEN
	if plen > 0 then
		tree:add(f.g_payload, tvb(DATAGRAM_HDR_LEN, plen))
	end
	tree:add(f.g_payload_len, plen):set_generated()
	info = string.format("DATAGRAM qpn %s -> %s len %d", hex_qpn(band(sq, 0xffffff)),
		hex_qpn(band(dq, 0xffffff)), plen)
	if band(flags, F_IMM) ~= 0 then
		info = info .. string.format(" imm 0x%08x", tvb(28, 4):uint())
	end
	return info
end

local body = {
	[T_DATA] = dissect_data,
	[T_ACK] = dissect_ack,
	[T_HELLO] = dissect_hello,
	[T_PROBE] = dissect_probe,
	[T_DATAGRAM] = dissect_datagram,
}

-- ---------------------------------------------------------------------------
-- Entry point
-- ---------------------------------------------------------------------------

function mroce.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	if len == 0 then
		return 0
	end
	pinfo.cols.protocol = "MROCE"
	local root = tree:add(mroce, tvb(), "mroce")
	truncated = false
	local ptype, flags, path, psn, ok = dissect_common(tvb, pinfo, root)
	local info
	if ptype == nil then
		info = string.format("%d bytes", len)
	elseif not ok then
		local version = rshift(tvb(0, 1):uint(), 4)
		info = type_names[ptype] or string.format("type %d", ptype)
		if version ~= WIRE_VERSION then
			info = info .. string.format(" version %d", version)
		end
		info = info .. " (not decoded)"
		if len > HDR_LEN then
			root:add(f.body, tvb(HDR_LEN))
		end
	else
		info = body[ptype](tvb, pinfo, root, flags, path, psn)
		local ft = flag_text(band(flags, type_flags[ptype]))
		if ft ~= "" then
			info = info .. " [" .. ft .. "]"
		end
	end
	if truncated then
		info = info .. " [short]"
	end
	root:append_text(", " .. info)
	pinfo.cols.info:set(info)
	return len
end

register_port()

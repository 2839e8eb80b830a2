"""pcap and pcapng files: the Cozmo datagrams in a packet capture (tcpdump, Wireshark, dumpcap).

A capture taken on the robot's Wi-Fi (``tcpdump -i wlan0 -w cozmo.pcap`` on a machine joined to
the robot, or on a bridge between the app and the robot) holds every packet the interface saw.
This module walks the file's records, peels the link layer (Ethernet with or without VLAN tags,
Linux cooked captures v1 and v2, BSD loopback, raw IP) and IPv4, and keeps the UDP datagrams to
or from the robot's port: to the port is the engine's, from it the robot's.

Other traffic (ARP, DHCP, other ports, IPv6) is reported as
:class:`~driver.capture.items.Skipped`; records that
cannot be read (cut short by the snap length, IP fragments, a link type not listed above, a
damaged file) as :class:`~driver.capture.items.Unreadable`. Pure: bytes in, items out.

File layouts (both little- and big-endian files are read):

* pcap: a 24-byte header (magic 0xa1b2c3d4 for microsecond or 0xa1b23c4d for nanosecond
  times, version, zone, accuracy, snap length, link type), then per packet a 16-byte record
  header (seconds, fraction, captured length, original length) and the captured bytes;
* pcapng: blocks of (type, total length, body, total length). A Section Header (0x0a0d0d0a)
  gives the byte order, Interface Descriptions (1) the link type and time resolution
  (option ``if_tsresol``), Enhanced Packets (6) and the old Packet blocks (2) carry packets with
  64-bit times, Simple Packets (3) packets without one.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from .items import FROM_ROBOT, ROBOT_PORT, TO_ROBOT, Datagram, Item, Skipped, Unreadable

__all__ = ["PCAPNG_MAGIC", "PCAP_MAGICS", "parse_pcap", "parse_pcapng", "udp_datagram"]

#: A pcap file's first four bytes: (byte order, ticks per second) by magic as stored.
PCAP_MAGICS: dict[bytes, tuple[str, int]] = {
    b"\xd4\xc3\xb2\xa1": ("<", 1_000_000),
    b"\xa1\xb2\xc3\xd4": (">", 1_000_000),
    b"\x4d\x3c\xb2\xa1": ("<", 1_000_000_000),
    b"\xa1\xb2\x3c\x4d": (">", 1_000_000_000),
}
#: A pcapng file starts with a Section Header Block, whose type reads the same in both orders.
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"

_ETHERNET = 1
_NULL = 0
_LOOP = 108
_RAW = frozenset({101, 12, 14, 228})
_SLL = 113
_SLL2 = 276
_ETH_IPV4 = 0x0800
_ETH_VLAN = frozenset({0x8100, 0x88A8, 0x9100})
_UDP = 17


def udp_datagram(linktype: int, frame: bytes) -> tuple[int, int, bytes] | str:
    """(source port, destination port, UDP payload) of one captured frame, or why there is none.

    A reason starting with ``not`` means the frame is other traffic; any other reason means it
    could not be read.
    """
    if linktype == _ETHERNET:
        if len(frame) < 14:
            return "Ethernet header cut short"
        pos, ethertype = 14, int.from_bytes(frame[12:14], "big")
        while ethertype in _ETH_VLAN and len(frame) >= pos + 4:
            ethertype = int.from_bytes(frame[pos + 2:pos + 4], "big")
            pos += 4
        if ethertype != _ETH_IPV4:
            return f"not IPv4 (EtherType 0x{ethertype:04x})"
        ip = frame[pos:]
    elif linktype == _SLL:
        if len(frame) < 16:
            return "Linux cooked header cut short"
        if int.from_bytes(frame[14:16], "big") != _ETH_IPV4:
            return "not IPv4"
        ip = frame[16:]
    elif linktype == _SLL2:
        if len(frame) < 20:
            return "Linux cooked v2 header cut short"
        if int.from_bytes(frame[0:2], "big") != _ETH_IPV4:
            return "not IPv4"
        ip = frame[20:]
    elif linktype in (_NULL, _LOOP):
        if len(frame) < 4:
            return "loopback header cut short"
        family = frame[:4]
        if 2 not in (int.from_bytes(family, "little"), int.from_bytes(family, "big")):
            return "not IPv4"
        ip = frame[4:]
    elif linktype in _RAW:
        ip = frame
    else:
        return f"link type {linktype} is not read (Ethernet, Linux cooked, loopback and raw IP are)"
    return _ipv4_udp(ip)


def _ipv4_udp(ip: bytes) -> tuple[int, int, bytes] | str:
    if len(ip) < 20 or ip[0] >> 4 != 4:
        return "not IPv4" if ip and ip[0] >> 4 == 6 else "IPv4 header cut short or damaged"
    header = (ip[0] & 0x0F) * 4
    total = int.from_bytes(ip[2:4], "big")
    if header < 20 or total < header or len(ip) < header:
        return "IPv4 header damaged"
    if ip[9] != _UDP:
        return f"not UDP (IP protocol {ip[9]})"
    if int.from_bytes(ip[6:8], "big") & 0x3FFF:
        return "an IP fragment (Cozmo datagrams are never fragmented; reassembly is not done)"
    udp = ip[header:total]
    if len(udp) < 8:
        return "UDP header cut short"
    src, dst, length = struct.unpack_from(">HHH", udp)
    if length < 8 or length > len(udp):
        return f"UDP length {length} does not fit the {len(udp)} bytes captured"
    return src, dst, bytes(udp[8:length])


def _classify(t: float, linktype: int, frame: bytes, where: str, robot_port: int) -> Item:
    got = udp_datagram(linktype, frame)
    if isinstance(got, str):
        return Skipped(where, got) if got.startswith("not ") else Unreadable(where, got, t)
    src, dst, payload = got
    if dst == robot_port:
        return Datagram(t, TO_ROBOT, payload, where)
    if src == robot_port:
        return Datagram(t, FROM_ROBOT, payload, where)
    return Skipped(where, f"not Cozmo traffic (UDP {src} -> {dst})")


def parse_pcap(data: bytes, source: str, *, robot_port: int = ROBOT_PORT) -> Iterator[Item]:
    """The Cozmo datagrams of a pcap file's bytes."""
    if len(data) < 24 or data[:4] not in PCAP_MAGICS:
        yield Unreadable(source, "not a pcap file (no pcap header)")
        return
    order, ticks = PCAP_MAGICS[data[:4]]
    linktype = struct.unpack_from(order + "I", data, 20)[0] & 0x0FFFFFFF
    record = struct.Struct(order + "IIII")
    pos, number = 24, 0
    while pos < len(data):
        number += 1
        where = f"{source}#{number}"
        if pos + 16 > len(data):
            yield Unreadable(where, f"record header cut short at byte {pos} (the file ends early)")
            return
        seconds, fraction, captured, original = record.unpack_from(data, pos)
        pos += 16
        if pos + captured > len(data):
            yield Unreadable(where, f"record of {captured} bytes runs past the end of the file")
            return
        t = seconds + fraction / ticks
        frame = data[pos:pos + captured]
        pos += captured
        if captured < original:
            yield Unreadable(where, f"cut to {captured} of {original} bytes by the capture's snap length", t)
            continue
        yield _classify(t, linktype, frame, where, robot_port)


@dataclass
class _Interface:
    linktype: int
    ticks: float = 1e6  # time units per second


def parse_pcapng(data: bytes, source: str, *, robot_port: int = ROBOT_PORT) -> Iterator[Item]:
    """The Cozmo datagrams of a pcapng file's bytes (every section, every interface)."""
    order = "<"
    interfaces: list[_Interface] = []
    pos, number = 0, 0
    while pos < len(data):
        if pos + 12 > len(data):
            yield Unreadable(f"{source}@{pos}", "block header cut short (the file ends early)")
            return
        raw_type = data[pos:pos + 4]
        if raw_type == PCAPNG_MAGIC:
            if pos + 12 > len(data) or data[pos + 8:pos + 12] not in (b"\x4d\x3c\x2b\x1a", b"\x1a\x2b\x3c\x4d"):
                yield Unreadable(f"{source}@{pos}", "section header without a byte-order magic")
                return
            order = "<" if data[pos + 8:pos + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            interfaces = []
        block_type, length = struct.unpack_from(order + "II", data, pos)
        if length < 12 or length % 4 or pos + length > len(data):
            yield Unreadable(f"{source}@{pos}", f"block of length {length} does not fit the file")
            return
        body = data[pos + 8:pos + length - 4]
        where_block = pos
        pos += length
        if block_type == 1:
            interfaces.append(_interface(body, order))
            continue
        if block_type not in (2, 3, 6):
            continue
        number += 1
        where = f"{source}#{number}"
        got = _packet_block(block_type, body, order, interfaces)
        if isinstance(got, str):
            yield Unreadable(where, f"{got} (block at byte {where_block})")
            continue
        t, linktype, frame, original = got
        if len(frame) < original:
            yield Unreadable(where, f"cut to {len(frame)} of {original} bytes by the capture's snap length", t)
            continue
        yield _classify(t, linktype, frame, where, robot_port)


def _interface(body: bytes, order: str) -> _Interface:
    linktype = struct.unpack_from(order + "H", body, 0)[0] if len(body) >= 2 else -1
    iface = _Interface(linktype)
    pos = 8
    while pos + 4 <= len(body):
        code, size = struct.unpack_from(order + "HH", body, pos)
        if code == 0:
            break
        if code == 9 and size >= 1:  # if_tsresol: 10^-v, or 2^-v with the top bit set
            v = body[pos + 4]
            iface.ticks = float(2 ** (v & 0x7F)) if v & 0x80 else float(10 ** v)
        pos += 4 + size + (-size % 4)
    return iface


def _packet_block(block_type: int, body: bytes, order: str, interfaces: list[_Interface],
                  ) -> tuple[float, int, bytes, int] | str:
    """(time, link type, captured bytes, original length) of a packet block, or why not."""
    if block_type == 3:  # Simple Packet: on the first interface, with no time (NaN: unknown)
        if len(body) < 4 or not interfaces:
            return "simple packet block without an interface"
        original = struct.unpack_from(order + "I", body, 0)[0]
        return float("nan"), interfaces[0].linktype, body[4:4 + original], original
    if block_type == 6:
        if len(body) < 20:
            return "enhanced packet block cut short"
        iface_id, high, low, captured, original = struct.unpack_from(order + "IIIII", body, 0)
        start = 20
    else:  # 2: the obsolete Packet block
        if len(body) < 20:
            return "packet block cut short"
        iface_id, _drops, high, low, captured, original = struct.unpack_from(order + "HHIIII", body, 0)
        start = 20
    if iface_id >= len(interfaces):
        return f"packet on interface {iface_id}, which the file does not describe"
    if start + captured > len(body):
        return f"packet of {captured} bytes runs past its block"
    iface = interfaces[iface_id]
    return ((high << 32) | low) / iface.ticks, iface.linktype, body[start:start + captured], original

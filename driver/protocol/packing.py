"""Packets into frames: how a session fills the datagrams it sends.

A frame holds one contiguous run of sequence numbers (in sending order) and at most
:data:`~.frame.MAX_PACKET_PAYLOAD` bytes of packets (each 3 bytes of header and its body);
out-of-band packets ride in the last frame when they fit, else in frames of their own that
name the next number on the wire; an acknowledgement nothing else carries goes in an empty frame.
"""

from __future__ import annotations

from .arq import Outstanding
from .frame import MAX_PACKET_PAYLOAD, MAX_SEQ, Frame, FrameType, RawPacket

__all__ = ["pack_frames"]


def pack_frames(seqd: list[Outstanding], oob: list[RawPacket], with_ack: bool, *, ftype: FrameType, ack: int,
                next_seq: int, wire_next: int) -> list[Frame]:
    """The frames that carry ``seqd`` (sequenced packets, resends among them), ``oob`` and, when
    ``with_ack`` and nothing else goes, a bare acknowledgement. ``ack`` is the last sequence
    number received in order, ``next_seq`` the number the next new packet will get (the order
    of ``seqd`` counts from it) and ``wire_next`` the next number on the wire."""
    if not seqd and not oob and not with_ack:
        return []
    wire_last = (wire_next - 1) % MAX_SEQ
    frames: list[Frame] = []
    run: list[RawPacket] = []
    size = 0
    prev = -1
    for entry in sorted(seqd, key=lambda e: (e.seq - next_seq) % MAX_SEQ):
        plen = 3 + len(entry.packet.body)
        if run and (entry.seq != (prev + 1) % MAX_SEQ or size + plen > MAX_PACKET_PAYLOAD):
            frames.append(Frame(ftype, run[0].seq, run[-1].seq, ack, run))
            run, size = [], 0
        run.append(entry.packet)
        size += plen
        prev = entry.seq
    if run:
        frames.append(Frame(ftype, run[0].seq, run[-1].seq, ack, run))
    for pkt in oob:
        plen = 3 + len(pkt.body)
        last = frames[-1] if frames else None
        if last is not None and _payload(last) + plen <= MAX_PACKET_PAYLOAD:
            last.packets.append(pkt)
        else:
            frames.append(Frame(ftype, wire_next, wire_last, ack, [pkt]))
    if not frames and with_ack:
        frames.append(Frame(ftype, wire_next, wire_last, ack, []))
    return frames


def _payload(frame: Frame) -> int:
    return sum(3 + len(p.body) for p in frame.packets)

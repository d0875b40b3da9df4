#!/usr/bin/env python3
"""An independent IEX capture decoder: the source of the tests' expected values.

Written from the byte layouts in the IEX specifications (pcap, pcapng, Ethernet/IPv4/UDP,
IEX-TP v1, DEEP 1.0, TOPS 1.6, DEEP+ 1.0) with Python's standard library only, and nothing of
md-shootout's: its counts and sums are what our Rust code must agree with, so they must not
come from it.

    python3 scripts/iex_decode.py CAPTURE [CAPTURE ...]

Reads each capture (classic pcap or pcapng, gzip'd or not, told apart by magic bytes), and
prints one JSON object of counts and summaries (a JSON list of them for several files). A capture cut short at its end (the last record or block incomplete,
or a gzip stream that stops early) is read up to its last whole packet, with a note on stderr
and a `truncated_tail` entry in the output. Damage elsewhere is an error (exit 1) naming the
byte offset.

Prices stay in the spec's fixed point (4 implied decimals) and sums are exact Python integers.
"""

import gzip
import json
import struct
import sys

CHUNK = 1 << 20

# IEX-TP message protocol ids.
PROTOCOLS = {0x8003: "tops", 0x8004: "deep", 0x8005: "deep-plus"}

# The length of each known message type (spec tables); a longer message is parsed by its known
# prefix (IEX may append fields), a shorter one is malformed.
LENGTHS = {
    b"S"[0]: 10,
    b"D"[0]: 31,
    b"H"[0]: 22,
    b"O"[0]: 18,
    b"P"[0]: 19,
    b"E"[0]: 18,
    b"I"[0]: 18,
    b"8"[0]: 30,
    b"5"[0]: 30,
    b"T"[0]: 38,
    b"B"[0]: 38,
    b"X"[0]: 26,
    b"A"[0]: 80,
    b"Q"[0]: 42,
    b"a"[0]: 38,
    b"M"[0]: 38,
    b"R"[0]: 26,
    b"L"[0]: 46,
    b"C"[0]: 18,
}

# Little-endian message fields (offsets from the spec tables).
TIMESTAMP = struct.Struct("<q")  # at 2, in every message
TRADE = struct.Struct("<8sIqq")  # T / B at 10: symbol, size, price, trade id
LEVEL = struct.Struct("<8sIq")  # 8 / 5 at 10: symbol, size, price
QUOTE = struct.Struct("<8sIqqI")  # Q at 10: symbol, bid size, bid price, ask price, ask size
ORDER = struct.Struct("<8sqIq")  # a / M at 10: symbol, order id, size, price
EXECUTED = struct.Struct("<8sqIqq")  # L at 10: symbol, order id, size, price, trade id
OFFICIAL = struct.Struct("<8sq")  # X at 10: symbol, price
AUCTION = struct.Struct("<8sIqqIBBIqqqq")  # A at 10
DIRECTORY = struct.Struct("<8sIqB")  # D at 10: symbol, round lot, adjusted POC price, LULD tier

# IEX-TP segment header (40 bytes).
SEGMENT = struct.Struct("<BBHIIHHQQq")


class Damaged(Exception):
    """Bytes that are not what the spec says, not at the end of the capture."""


class Source:
    """The capture's bytes, decompressed if gzip'd, read in chunks (bounded memory)."""

    def __init__(self, path):
        raw = open(path, "rb")
        magic = raw.read(2)
        raw.seek(0)
        self.gzip = magic == b"\x1f\x8b"
        self.file = gzip.GzipFile(fileobj=raw, mode="rb") if self.gzip else raw
        self.raw = raw
        self.buf = b""
        self.pos = 0
        self.offset = 0  # capture offset of buf[pos]
        self.eof = False
        self.gzip_cut_short = False

    def _fill(self, n):
        while len(self.buf) - self.pos < n and not self.eof:
            try:
                chunk = self.file.read(CHUNK)
            except EOFError:
                # The gzip stream stops before its end marker: a cut download.
                self.gzip_cut_short = True
                chunk = b""
            if not chunk:
                self.eof = True
                break
            self.buf = self.buf[self.pos :] + chunk
            self.pos = 0

    def peek(self, n):
        self._fill(n)
        return self.buf[self.pos : self.pos + n]

    def read(self, n):
        """Up to `n` bytes: fewer only at the end of the capture."""
        out = self.peek(n)
        self.pos += len(out)
        self.offset += len(out)
        return out

    def at_end(self):
        return not self.peek(1)

    def rest(self):
        """How many bytes are left (reads to the end)."""
        n = 0
        while True:
            got = len(self.read(CHUNK))
            n += got
            if got == 0:
                return n


def records_pcap(src, out):
    """Yields (link type, frame bytes) of each record of a classic pcap."""
    header = src.read(24)
    if len(header) < 24:
        raise Damaged("pcap global header cut short at byte 0")
    magic = header[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        order = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        order = ">"
    else:
        raise Damaged("not a pcap magic at byte 0")
    link = struct.unpack(order + "I", header[20:24])[0] & 0xFFFF
    rec = struct.Struct(order + "IIII")
    packet = 0
    while not src.at_end():
        packet += 1
        start = src.offset
        head = src.read(16)
        if len(head) < 16:
            out.cut(packet, start, len(head), 16, "pcap record")
            return
        _, _, incl, _ = rec.unpack(head)
        data = src.read(incl)
        if len(data) < incl:
            # Like the pcapng blocks': the record's bytes, its 16-byte header included.
            out.cut(packet, start, 16 + len(data), 16 + incl, "pcap record")
            return
        out.capture_bytes = src.offset
        yield link, data


def records_pcapng(src, out):
    """Yields (link type, frame bytes) of each packet block of a pcapng, every section."""
    order = None
    links = []
    packet = 0
    while not src.at_end():
        start = src.offset
        head = src.peek(12)
        if len(head) >= 4 and head[:4] == b"\x0a\x0d\x0d\x0a":
            if len(head) < 12:
                out.cut(packet + 1, start, len(head), 12, "pcapng section header")
                return
            bom = head[8:12]
            if bom == b"\x4d\x3c\x2b\x1a":
                order = "<"
            elif bom == b"\x1a\x2b\x3c\x4d":
                order = ">"
            else:
                raise Damaged("pcapng byte-order magic unknown at byte %d" % (start + 8))
            links = []
        elif order is None:
            raise Damaged("pcapng does not start with a section header block")
        if len(head) < 8:
            src.read(len(head))
            out.cut(packet + 1, start, len(head), 8, "pcapng block header")
            return
        kind, total = struct.unpack(order + "II", head[:8])
        if total < 12 or total % 4:
            raise Damaged("pcapng block length %d at byte %d" % (total, start))
        block = src.read(total)
        if len(block) < total:
            # The capture ends inside this block.
            out.cut(packet + 1, start, len(block), total, "pcapng block")
            return
        out.capture_bytes = src.offset
        body = block[8:-4]
        if kind == 1:
            links.append(struct.unpack_from(order + "H", body, 0)[0])
        elif kind == 6:
            iface, _, _, caplen, _ = struct.unpack_from(order + "IIIII", body, 0)
            packet += 1
            yield links[iface] if iface < len(links) else None, body[20 : 20 + caplen]
        elif kind == 3:
            orig = struct.unpack_from(order + "I", body, 0)[0]
            packet += 1
            yield links[0] if links else None, body[4 : 4 + min(orig, len(body) - 4)]
        elif kind == 2:
            iface, _, _, _, caplen, _ = struct.unpack_from(order + "HHIIII", body, 0)
            packet += 1
            yield links[iface] if iface < len(links) else None, body[20 : 20 + caplen]


def udp_payload(frame, skipped):
    """The UDP payload of an Ethernet II / IPv4 frame, or None (and why, in `skipped`)."""
    if len(frame) < 14:
        skipped["malformed_frames"] += 1
        return None
    at = 12
    ethertype = struct.unpack_from(">H", frame, at)[0]
    while ethertype in (0x8100, 0x88A8):  # 802.1Q / 802.1ad tags
        at += 4
        if len(frame) < at + 2:
            skipped["malformed_frames"] += 1
            return None
        ethertype = struct.unpack_from(">H", frame, at)[0]
    at += 2
    if ethertype != 0x0800:
        skipped["non_ipv4"] += 1
        return None
    if len(frame) < at + 20 or frame[at] >> 4 != 4:
        skipped["malformed_frames"] += 1
        return None
    ihl = (frame[at] & 0x0F) * 4
    total, = struct.unpack_from(">H", frame, at + 2)
    flags_offset, = struct.unpack_from(">H", frame, at + 6)
    proto = frame[at + 9]
    if ihl < 20 or total < ihl or len(frame) < at + total:
        skipped["malformed_frames"] += 1
        return None
    if proto != 17:
        skipped["non_udp"] += 1
        return None
    if flags_offset & 0x3FFF:  # more fragments, or a fragment offset
        skipped["fragments"] += 1
        return None
    ip = frame[at : at + total]  # Ethernet padding after the datagram is dropped
    udp = ip[ihl:]
    if len(udp) < 8:
        skipped["malformed_frames"] += 1
        return None
    length, = struct.unpack_from(">H", udp, 4)
    if length < 8 or length > len(udp):
        skipped["malformed_frames"] += 1
        return None
    return udp[8:length]


def symbol(raw):
    """A symbol as text: trailing spaces dropped, anything not printable ASCII as '?'."""
    return "".join(chr(b) if 0x21 <= b <= 0x7E else "?" for b in raw.rstrip(b" "))


def type_key(kind):
    return chr(kind) if 0x21 <= kind <= 0x7E else "0x%02x" % kind


class Output:
    """Everything counted and summed."""

    def __init__(self, path, source):
        self.path = path
        self.source = source
        self.capture = None
        self.capture_bytes = 0
        self.frames = 0
        self.packets = 0
        self.heartbeats = 0
        self.messages = 0
        self.by_type = {}
        self.unknown = 0
        self.longer = 0
        self.short = 0
        self.feeds = {}
        self.skipped = {
            "unsupported_link": 0,
            "non_ipv4": 0,
            "non_udp": 0,
            "fragments": 0,
            "non_iex": 0,
            "malformed_frames": 0,
            "malformed_segments": 0,
        }
        # Sequence numbers per (channel, session): next expected, and the segments seen at 1.
        self.streams = {}
        self.gaps = 0
        self.missing = 0
        self.duplicates = 0
        self.restarts = 0
        self.first_send = None
        self.last_send = None
        self.min_send = None
        self.max_send = None
        self.msg_ts_min = None
        self.msg_ts_max = None
        self.symbols = set()
        self.trades = {}  # symbol -> [count, size, notional] (T)
        self.breaks = {}  # symbol -> [count, size, notional] (B)
        self.executions = {}  # symbol -> [count, size, notional] (DEEP+ L)
        self.levels = {}  # symbol -> {"buy": [count, size sum, price sum], "sell": ...}
        self.quotes = [0, 0, 0, 0, 0, 0, 0]  # count, bid size, bid price, ask price, ask size, no bid, no ask
        self.agg = {}  # the per-symbol summary `run --summary` writes
        self.system_events = []
        self.status = {}  # trading status byte -> count
        self.halts = {}
        self.short_sale = {}
        self.security_events = {}
        self.retail = {}
        self.official = []
        self.auctions = [0, 0, 0, 0, 0]  # count, paired shares, reference price, imbalance shares, clearing
        self.directory = []
        self.orders = {}  # a / M / R / C counts
        self.truncated_tail = None

    def cut(self, packet, offset, present, needed, what):
        self.truncated_tail = {
            "packet": packet,
            "offset": offset,
            "present": present,
            "needed": needed,
            "what": what,
        }

    def agg_entry(self, sym):
        e = self.agg.get(sym)
        if e is None:
            e = self.agg[sym] = {
                "trade_volume": 0,
                "trade_notional": 0,
                "bid_high": None,
                "bid_low": None,
                "ask_high": None,
                "ask_low": None,
            }
        return e

    def bid(self, sym, price):
        e = self.agg_entry(sym)
        e["bid_high"] = price if e["bid_high"] is None else max(e["bid_high"], price)
        e["bid_low"] = price if e["bid_low"] is None else min(e["bid_low"], price)

    def ask(self, sym, price):
        e = self.agg_entry(sym)
        e["ask_high"] = price if e["ask_high"] is None else max(e["ask_high"], price)
        e["ask_low"] = price if e["ask_low"] is None else min(e["ask_low"], price)

    def sequence(self, channel, session, first_seq, count, segment):
        key = (channel, session)
        stream = self.streams.get(key)
        end = first_seq + count
        if stream is None:
            self.streams[key] = [end, {segment} if first_seq == 1 else set()]
            return
        expected = stream[0]
        if first_seq == expected:
            stream[0] = end
        elif first_seq > expected:
            self.gaps += 1
            self.missing += first_seq - expected
            stream[0] = end
        elif first_seq == 1 and segment not in stream[1]:
            # Back to 1 with a segment this stream never began with: a new recording.
            self.restarts += 1
            stream[0] = end
        else:
            self.duplicates += 1
            stream[0] = max(expected, end)
        if first_seq == 1:
            stream[1].add(segment)

    def segment(self, data):
        if len(data) < 40:
            self.skipped["non_iex"] += 1
            return
        (version, _, protocol, channel, session, payload_len, count, _, first_seq, send) = (
            SEGMENT.unpack_from(data, 0)
        )
        if version != 1 or protocol not in PROTOCOLS:
            self.skipped["non_iex"] += 1
            return
        payload = data[40 : 40 + payload_len]
        blocks = []
        at = 0
        ok = len(payload) == payload_len
        while ok and len(blocks) < count:
            if at + 2 > len(payload):
                ok = False
                break
            n, = struct.unpack_from("<H", payload, at)
            if n == 0 or at + 2 + n > len(payload):
                ok = False
                break
            blocks.append(payload[at + 2 : at + 2 + n])
            at += 2 + n
        if not ok or at != payload_len:
            self.skipped["malformed_segments"] += 1
            return
        feed = PROTOCOLS[protocol]
        self.feeds[feed] = self.feeds.get(feed, 0) + 1
        self.packets += 1
        if count == 0:
            self.heartbeats += 1
        if self.first_send is None:
            self.first_send = send
            self.min_send = send
            self.max_send = send
        self.last_send = send
        self.min_send = min(self.min_send, send)
        self.max_send = max(self.max_send, send)
        self.sequence(channel, session, first_seq, count, bytes(data[: 40 + payload_len]))
        for m in blocks:
            self.message(m)

    def message(self, m):
        kind = m[0]
        self.messages += 1
        key = type_key(kind)
        self.by_type[key] = self.by_type.get(key, 0) + 1
        need = LENGTHS.get(kind)
        if need is None:
            self.unknown += 1
            return
        if len(m) < need:
            self.short += 1
            return
        if len(m) > need:
            self.longer += 1
        ts, = TIMESTAMP.unpack_from(m, 2)
        self.msg_ts_min = ts if self.msg_ts_min is None else min(self.msg_ts_min, ts)
        self.msg_ts_max = ts if self.msg_ts_max is None else max(self.msg_ts_max, ts)
        flag = m[1]
        if kind == 0x53:  # S
            self.system_events.append(chr(flag))
            return
        sym = symbol(m[10:18])
        self.symbols.add(bytes(m[10:18]))
        if kind in (0x54, 0x42):  # T, B
            _, size, price, _ = TRADE.unpack_from(m, 10)
            t = (self.trades if kind == 0x54 else self.breaks).setdefault(sym, [0, 0, 0])
            t[0] += 1
            t[1] += size
            t[2] += size * price
            if kind == 0x54:
                e = self.agg_entry(sym)
                e["trade_volume"] += size
                e["trade_notional"] += size * price
        elif kind in (0x38, 0x35):  # 8 buy, 5 sell
            _, size, price = LEVEL.unpack_from(m, 10)
            side = "buy" if kind == 0x38 else "sell"
            s = self.levels.setdefault(sym, {"buy": [0, 0, 0], "sell": [0, 0, 0]})[side]
            s[0] += 1
            s[1] += size
            s[2] += price
            (self.bid if kind == 0x38 else self.ask)(sym, price)
        elif kind == 0x51:  # Q
            _, bid_size, bid, ask, ask_size = QUOTE.unpack_from(m, 10)
            q = self.quotes
            q[0] += 1
            q[1] += bid_size
            q[2] += bid
            q[3] += ask
            q[4] += ask_size
            q[5] += bid == 0
            q[6] += ask == 0
            # A zero price is no quote on that side.
            if bid != 0:
                self.bid(sym, bid)
            if ask != 0:
                self.ask(sym, ask)
        elif kind == 0x4C:  # L
            _, _, size, price, _ = EXECUTED.unpack_from(m, 10)
            t = self.executions.setdefault(sym, [0, 0, 0])
            t[0] += 1
            t[1] += size
            t[2] += size * price
            e = self.agg_entry(sym)
            e["trade_volume"] += size
            e["trade_notional"] += size * price
        elif kind == 0x61:  # a
            _, _, _, price = ORDER.unpack_from(m, 10)
            self.orders["a"] = self.orders.get("a", 0) + 1
            if flag == 0x38:
                self.bid(sym, price)
            elif flag == 0x35:
                self.ask(sym, price)
        elif kind in (0x4D, 0x52, 0x43):  # M, R, C
            self.orders[chr(kind)] = self.orders.get(chr(kind), 0) + 1
        elif kind == 0x48:  # H
            k = chr(flag) + "/" + m[18:22].decode("latin-1").rstrip(" ")
            self.status[k] = self.status.get(k, 0) + 1
        elif kind == 0x4F:  # O
            self.halts[chr(flag)] = self.halts.get(chr(flag), 0) + 1
        elif kind == 0x50:  # P
            k = "%d/%s" % (flag, chr(m[18]))
            self.short_sale[k] = self.short_sale.get(k, 0) + 1
        elif kind == 0x45:  # E
            self.security_events[chr(flag)] = self.security_events.get(chr(flag), 0) + 1
        elif kind == 0x49:  # I
            self.retail[chr(flag)] = self.retail.get(chr(flag), 0) + 1
        elif kind == 0x58:  # X
            _, price = OFFICIAL.unpack_from(m, 10)
            self.official.append([sym, chr(flag), price])
        elif kind == 0x41:  # A
            f = AUCTION.unpack_from(m, 10)
            a = self.auctions
            a[0] += 1
            a[1] += f[1]
            a[2] += f[2]
            a[3] += f[4]
            a[4] += f[3]
        elif kind == 0x44:  # D
            _, lot, poc, tier = DIRECTORY.unpack_from(m, 10)
            self.directory.append([sym, flag, lot, poc, tier])

    def to_json(self):
        feeds = sorted(self.feeds)
        sums = lambda d: {s: {"count": v[0], "size": v[1], "notional": v[2]} for s, v in sorted(d.items())}
        return {
            "decoder": "scripts/iex_decode.py",
            "compression": "gzip" if self.source.gzip else "none",
            "capture": self.capture,
            "capture_bytes": self.capture_bytes,
            "frames": self.frames,
            "packets": self.packets,
            "heartbeats": self.heartbeats,
            "messages": self.messages,
            "by_type": dict(sorted(self.by_type.items())),
            "unknown": self.unknown,
            "longer": self.longer,
            "shorter": self.short,
            "feed": None if not feeds else feeds[0] if len(feeds) == 1 else "mixed",
            "packets_by_feed": dict(sorted(self.feeds.items())),
            "skipped": self.skipped,
            "streams": len(self.streams),
            "gaps": self.gaps,
            "missing_messages": self.missing,
            "duplicates": self.duplicates,
            "restarts": self.restarts,
            "symbols": len(self.symbols),
            "first_send_time": self.first_send,
            "last_send_time": self.last_send,
            "min_send_time": self.min_send,
            "max_send_time": self.max_send,
            "min_message_timestamp": self.msg_ts_min,
            "max_message_timestamp": self.msg_ts_max,
            "truncated_tail": self.truncated_tail,
            "gzip_cut_short": self.source.gzip_cut_short,
            # What `run --summary` writes (plus the trade notional), one entry per symbol a
            # trade (T), an order execution (L), a price level update, a quote with a price or
            # an add order named.
            "summary": {
                s: self.agg[s] for s in sorted(self.agg)
            },
            "trades": sums(self.trades),
            "trade_breaks": sums(self.breaks),
            "order_executions": sums(self.executions),
            "price_levels": {
                s: {side: {"count": v[0], "size": v[1], "price_sum": v[2]} for side, v in d.items()}
                for s, d in sorted(self.levels.items())
            },
            "quotes": dict(
                zip(
                    ["count", "bid_size_sum", "bid_price_sum", "ask_price_sum", "ask_size_sum", "no_bid", "no_ask"],
                    self.quotes,
                )
            ),
            "orders": dict(sorted(self.orders.items())),
            "system_events": "".join(self.system_events),
            "trading_status": dict(sorted(self.status.items())),
            "operational_halts": dict(sorted(self.halts.items())),
            "short_sale_tests": dict(sorted(self.short_sale.items())),
            "security_events": dict(sorted(self.security_events.items())),
            "retail_liquidity": dict(sorted(self.retail.items())),
            "official_prices": self.official,
            "auctions": dict(
                zip(
                    ["count", "paired_shares_sum", "reference_price_sum", "imbalance_shares_sum", "indicative_price_sum"],
                    self.auctions,
                )
            ),
            "security_directory": self.directory,
        }


def decode(path):
    src = Source(path)
    out = Output(path, src)
    head = src.peek(4)
    if head == b"\x0a\x0d\x0d\x0a":
        out.capture = "pcapng"
        records = records_pcapng(src, out)
    else:
        out.capture = "pcap"
        records = records_pcap(src, out)
    for link, frame in records:
        out.frames += 1
        if link != 1:
            out.skipped["unsupported_link"] += 1
            continue
        payload = udp_payload(frame, out.skipped)
        if payload is not None:
            out.segment(payload)
    if src.gzip_cut_short and out.truncated_tail is None:
        # The gzip stream stopped exactly at a record boundary: still a cut download.
        out.cut(out.frames + 1, src.offset, 0, None, "gzip stream")
    t = out.truncated_tail
    if t is not None:
        print(
            "%s: capture cut short: it ends inside packet %d (%s at byte %d: %d of its %s bytes "
            "are there%s); read the %d whole packets before it"
            % (
                path,
                t["packet"],
                t["what"],
                t["offset"],
                t["present"],
                t["needed"],
                ", and the gzip stream stops early" if src.gzip_cut_short else "",
                out.frames,
            ),
            file=sys.stderr,
        )
    return out.to_json()


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = []
    for path in argv[1:]:
        try:
            results.append(decode(path))
        except (OSError, Damaged, struct.error) as e:
            print("%s: %s" % (path, e), file=sys.stderr)
            return 1
    json.dump(results[0] if len(results) == 1 else results, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

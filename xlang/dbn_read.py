#!/usr/bin/env python3
"""md-shootout, issue 37: DBN bytes read by Python. Reads a DBN version 3 stream (a metadata
header, then the records md-shootout's `dbn` format writes) from stdin with Databento's own reader
(PyPI `databento-dbn`, pinned by scripts/bootstrap.sh), splits the records into IEX-TP packets
and maps each record back to the IEX message it stands for, written from the mapping table in
README ("dbn: the mapping") and not from md-shootout's Rust decoder. Writes one JSON line per
packet: {"seq", "send_time", "messages": [{"TradeReport": {fields}}, ...]}, symbols as strings,
byte fields as their values. The Rust side (src/capability/cross_language/dbn.rs) compares every
field with the source as `dbn` carries it.

Packets: a packet that starts with a SystemMsg (a heartbeat, or a count of records in its text)
is that many records after it, its sequence number in the SystemMsg's instrument_id; any other
packet runs to its record flagged F_LAST, its sequence number the first `sequence` less that
record's index. SymbolMappingMsg records name instrument ids and are no messages."""
import json
import sys

import databento_dbn as db

F_LAST = 1 << 7
F_PUBLISHER_SPECIFIC = 1 << 1
UNDEF_PRICE = (1 << 63) - 1
SCALE = 100_000

# StatusReason codes with an IEX trading status reason (README's table).
REASONS = {30: "T1  ", 31: "T2  ", 15: "IPO1", 120: "MCB1", 121: "MCB2", 122: "MCB3", 0: "    "}
# StatusAction codes.
NONE, QUOTING, TRADING, HALT, PAUSE, CLOSE, SSR_CHANGE = 0, 3, 7, 8, 9, 12, 14
OPERATIONAL = 60
CHANGE_TRADING_SESSION = 2


def num(v):
    """An enum or an integer field as an integer."""
    return int(getattr(v, "value", v))


def char(v):
    """A c_char field (a one-character string or an enum of one) as its byte value."""
    v = getattr(v, "value", v)
    if isinstance(v, str):
        return ord(v) if v else 0
    return int(v)


def price(x):
    if x == UNDEF_PRICE:
        return 0
    if x % SCALE:
        raise ValueError(f"price {x} is not a whole number of 1e-4")
    return x // SCALE


def message(r, symbols):
    """The IEX message record `r` stands for, tagged with its model name."""
    ts = r.ts_event
    sym = lambda: symbols[r.instrument_id]  # noqa: E731
    if isinstance(r, db.MBOMsg):
        action, side = chr(char(r.action)), chr(char(r.side))
        common = {"timestamp": ts, "symbol": sym()}
        if action == "A":
            side = {"B": ord("8"), "A": ord("5")}.get(side, 0)
            return {"AddOrder": dict(common, side=side, order_id=r.order_id, size=r.size, price=price(r.price))}
        if action == "M":
            return {"OrderModify": dict(common, flags=0, order_id=r.order_id, size=r.size, price=price(r.price))}
        if action == "C":
            return {"OrderDelete": dict(common, order_id=r.order_id)}
        if action == "F":
            fields = dict(common, flags=0, order_id=r.order_id, size=r.size, price=price(r.price), trade_id=0)
            return {"OrderExecuted": fields}
        if action == "R":
            return {"ClearBook": common}
        if action in "TN":
            trade = dict(common, flags=0, size=r.size, price=price(r.price), trade_id=r.order_id)
            return {"TradeReport" if action == "T" else "TradeBreak": trade}
        raise ValueError(f"MBO action {action!r}")
    if isinstance(r, db.MBP1Msg):
        side = chr(char(r.side))
        if side in "BA":
            done = 1 if num(r.flags) & F_PUBLISHER_SPECIFIC else 0
            fields = {"side": "Buy" if side == "B" else "Sell", "flags": done, "timestamp": ts,
                      "symbol": sym(), "size": r.size, "price": price(r.price)}
            return {"PriceLevelUpdate": fields}
        level = r.levels[0]
        return {"QuoteUpdate": {"flags": 0, "timestamp": ts, "symbol": sym(), "bid_size": level.bid_sz,
                                "bid_price": price(level.bid_px), "ask_price": price(level.ask_px),
                                "ask_size": level.ask_sz}}
    if isinstance(r, db.StatusMsg):
        action, reason = num(r.action), num(r.reason)
        if r.instrument_id == 0:
            return {"SystemEvent": {"event": 0, "timestamp": ts}}
        common = {"timestamp": ts, "symbol": sym()}
        if action == SSR_CHANGE:
            # The reader gives a tristate as True, False or None (`~`, not available).
            flag = r.is_short_sell_restricted
            restricted = flag is True or (isinstance(flag, str) and flag == "Y")
            return {"ShortSalePriceTest": dict(common, status=int(restricted), detail=0)}
        if reason == OPERATIONAL:
            return {"OperationalHalt": dict(common, status=ord("O" if action == HALT else "N"))}
        if num(r.trading_event) == CHANGE_TRADING_SESSION:
            return {"SecurityEvent": dict(common, event=ord("O" if action == TRADING else "C"))}
        if action == NONE:
            return {"RetailLiquidity": dict(common, indicator=0)}
        status = {HALT: "H", QUOTING: "O", PAUSE: "P", TRADING: "T"}[action]
        return {"TradingStatus": dict(common, status=ord(status), reason=REASONS[reason])}
    if isinstance(r, db.StatMsg):
        price_type = {1: "Q", 11: "M"}[num(r.stat_type)]
        return {"OfficialPrice": {"price_type": ord(price_type), "timestamp": ts, "symbol": sym(),
                                  "price": price(r.price)}}
    if isinstance(r, db.ImbalanceMsg):
        seconds, rest = divmod(r.auction_time, 1_000_000_000)
        if rest:
            raise ValueError(f"auction time {r.auction_time} is not whole seconds")
        side = {"B": "B", "A": "S", "N": "N"}[chr(char(r.side))]
        return {"AuctionInformation": {
            "auction_type": char(r.auction_type), "timestamp": ts, "symbol": sym(),
            "paired_shares": r.paired_qty, "reference_price": price(r.ref_price),
            "indicative_clearing_price": price(r.ind_match_price),
            "imbalance_shares": r.total_imbalance_qty, "imbalance_side": ord(side),
            "extension_number": r.num_extensions, "scheduled_auction_time": seconds,
            "auction_book_clearing_price": price(r.auct_interest_clr_price),
            "collar_reference_price": 0, "lower_auction_collar": price(r.lower_collar),
            "upper_auction_collar": price(r.upper_collar)}}
    if isinstance(r, db.InstrumentDefMsg):
        return {"SecurityDirectory": {"flags": 0, "timestamp": ts, "symbol": sym(),
                                      "round_lot_size": r.min_lot_size_round_lot,
                                      "adjusted_poc_price": 0, "luld_tier": 0}}
    raise ValueError(f"a record dbn does not write: {type(r).__name__}")


def packets(records):
    """The records split into packets: (seq, send_time, data records)."""
    i = 0
    while i < len(records):
        r = records[i]
        data, seq = [], None
        if isinstance(r, db.SystemMsg):
            count = 0 if r.is_heartbeat() else int(r.msg)
            seq, send = r.instrument_id, r.ts_event
            i += 1
            while len(data) < count:
                if not isinstance(records[i], db.SymbolMappingMsg):
                    data.append(records[i])
                i += 1
        else:
            while True:
                r = records[i]
                i += 1
                if isinstance(r, db.SymbolMappingMsg):
                    continue
                if seq is None and hasattr(r, "sequence"):
                    seq = (r.sequence - len(data)) % (1 << 32)
                data.append(r)
                if isinstance(r, (db.MBOMsg, db.MBP1Msg)) and num(r.flags) & F_LAST:
                    break
            send = data[0].ts_recv
        yield seq, send, data


def main():
    decoder = db.DBNDecoder()
    decoder.write(sys.stdin.buffer.read())
    records = decoder.decode()
    if not records or not isinstance(records[0], db.Metadata):
        sys.exit("no DBN metadata header")
    records = records[1:]
    # Symbols: every mapping of the stream; an id is never reused, so one map serves all.
    symbols = {r.instrument_id: r.stype_out_symbol for r in records if isinstance(r, db.SymbolMappingMsg)}
    lines = []
    for seq, send, data in packets(records):
        messages = [message(r, symbols) for r in data]
        lines.append(json.dumps({"seq": seq, "send_time": send, "messages": messages}))
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))


if __name__ == "__main__":
    main()

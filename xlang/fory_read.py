#!/usr/bin/env python3
"""md-shootout, issue 48: Fory bytes read by Python. Reads the packets md-shootout's `fory` format
writes (Fory xlang root objects back to back, compatible mode) from stdin with Apache Fory's own
Python implementation (PyPI `pyfory`, pinned by scripts/bootstrap.sh). Its types are declared here
from the message table (schemas/iex-messages.txt, the path in argv[1]), not from md-shootout's Rust
code: one dataclass per message type named as the Message variant and registered as `iex.<name>`,
a Fory union `iex.Message` of them in the table's order, the enum `iex.Side`, and the struct
`iex.Packet { seq, send_time, messages }`. Writes one JSON line per packet:
{"seq", "send_time", "messages": [{"TradeReport": {fields}}, ...]}, symbols and reason codes as
their byte values, the side by name. The Rust side (src/capability/cross_language/fory.rs)
compares every field with the source."""
import dataclasses
import enum
import json
import sys
from typing import List

import pyfory
from pyfory.union import Union

# The table's field types as pyfory annotations: what the Rust `fory` crate writes for the
# codec's field types (u8, u32 and u64 as UINT8, VAR_UINT32, VAR_UINT64; i64 as VARINT64;
# [u8; N] as a uint8 array).
TYPES = {
    "u8": pyfory.UInt8,
    "u32": pyfory.UInt32,
    "u64": pyfory.UInt64,
    "i64": pyfory.Int64,
    "Timestamp": pyfory.Int64,
    "Price": pyfory.Int64,
    "Symbol": pyfory.UInt8Array,
    "Bytes4": pyfory.UInt8Array,
}


class Side(enum.Enum):
    Buy = 0
    Sell = 1


def table(path):
    """The message variants in order, each with its carried fields [(name, type)]."""
    variants, fields, current = [], {}, None
    for line in open(path, encoding="utf-8"):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "struct":
            current = []
        elif words[0] == "variant" and words[1] not in fields:
            variants.append(words[1])
            fields[words[1]] = current
        elif words[0] == "field":
            current.append((words[1], words[2]))
    return [(v, fields[v]) for v in variants]


def dataclass(name, fields):
    annotations = [(f, Side if t == "Side" else TYPES[t]) for f, t in fields]
    return dataclasses.make_dataclass(name, annotations)


def value(v):
    if isinstance(v, Side):
        return v.name
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if hasattr(v, "tolist"):
        return [int(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return v


def main():
    messages = table(sys.argv[1])
    fory = pyfory.Fory(xlang=True, compatible=True, ref=False)
    fory.register_type(Side, name="iex.Side")
    classes = {}
    for name, fields in messages:
        classes[name] = dataclass(name, fields)
        fory.register_type(classes[name], name="iex." + name)

    class Message(Union):
        @classmethod
        def _from_case_id(cls, case_id, value):
            return cls(case_id, value)

    fory.register_union(Message, name="iex.Message",
                        serializer=pyfory.union.UnionSerializer(
                            fory.type_resolver, Message,
                            {i: classes[n] for i, (n, _) in enumerate(messages)}))

    @dataclasses.dataclass
    class Packet:
        seq: pyfory.UInt64
        send_time: pyfory.Int64
        messages: List[Message]

    fory.register_type(Packet, name="iex.Packet")
    data = sys.stdin.buffer.read()
    buffer = pyfory.Buffer(data)
    out = sys.stdout
    while buffer.get_reader_index() < len(data):
        p = fory.deserialize(buffer)
        ms = []
        for m in p.messages:
            body = m.value() if isinstance(m, Union) else m
            ms.append({type(body).__name__: {f.name: value(getattr(body, f.name))
                                              for f in dataclasses.fields(body)}})
        out.write(json.dumps({"seq": p.seq, "send_time": p.send_time, "messages": ms}) + "\n")


if __name__ == "__main__":
    main()

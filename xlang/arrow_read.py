#!/usr/bin/env python3
"""md-shootout, issue 37: Arrow IPC bytes read by Python. Reads the window written by md-shootout's
`arrow` format (one Arrow IPC stream: its schema, one record batch, end of stream) from stdin
with PyPI's `pyarrow` (installed by scripts/bootstrap.sh into tools/arrow-venv) and writes back,
one JSON line per packet, what pyarrow read: the `message` dense union walked row by row (a
`packet` row starts a packet, any other row is a message of the child of that name), every
column of the child by the name the schema gives it. Timestamps as their integer nanoseconds,
fixed-size binaries as arrays of byte values; a price level's `side` column holds the wire's
type byte (`8` buy, `5` sell) and is written as the side's name. The Rust side
(src/capability/cross_language/arrow.rs) compares every field with the source.

Usage: arrow_read.py < window"""
import json
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

SIDES = {ord("8"): "buy", ord("5"): "sell"}


def plain(column):
    """A child's column as Python values JSON can carry."""
    if pa.types.is_timestamp(column.type):
        column = column.cast(pa.int64())
    values = column.to_pylist()
    if pa.types.is_fixed_size_binary(column.type):
        return [list(v) for v in values]
    return values


def main():
    reader = ipc.open_stream(pa.py_buffer(sys.stdin.buffer.read()))
    batches = list(reader)
    if len(batches) != 1:
        sys.exit(f"{len(batches)} record batches where a window has one")
    union = batches[0].column("message")
    kind = union.type
    if kind.mode != "dense":
        sys.exit(f"a {kind.mode} union where the window has a dense one")
    children = {}
    for i in range(kind.num_fields):
        child = union.field(i)
        names = [child.type.field(j).name for j in range(child.type.num_fields)]
        columns = {n: plain(child.field(j)) for j, n in enumerate(names)}
        children[kind.type_codes[i]] = (kind.field(i).name, columns)
    packets = []
    for code, at in zip(union.type_codes.to_pylist(), union.offsets.to_pylist()):
        name, columns = children[code]
        row = {n: values[at] for n, values in columns.items()}
        if name == "packet":
            packets.append({"seq": row["seq"], "send_time": row["send_time"], "messages": []})
            continue
        if not packets:
            sys.exit("a message before any packet")
        if name == "price_level_update":
            row["side"] = SIDES[row["side"]]
        packets[-1]["messages"].append({name: row})
    for p in packets:
        print(json.dumps(p))


if __name__ == "__main__":
    main()

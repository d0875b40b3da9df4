#!/usr/bin/env python3
"""md-shootout, issue 26: MessagePack and CBOR bytes read by Python. Reads the packets written by
md-shootout's `msgpack` or `cbor` format (one data item per packet, back to back) from stdin with
PyPI's `msgpack` or `cbor2` (installed by scripts/bootstrap.sh into tools/serde-venv) and writes
back, one JSON line per packet, exactly what the library read: maps stay objects, arrays stay
arrays (MessagePack's compact structs are positional: the Rust side names the fields), integers
stay integers, and byte strings become arrays of their byte values. The Rust side
(src/capability/cross_language/serde_formats.rs) compares every field with the source.

Usage: serde_read.py msgpack|cbor < packets"""
import io
import json
import sys


def plain(value):
    """What the library read, as JSON can carry it; anything unexpected is an error."""
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, float)) or value is None:
        sys.exit(f"a {type(value).__name__} where the packets hold integers, strings and bytes")
    if isinstance(value, (int, str)):
        return value
    sys.exit(f"an unexpected {type(value).__name__}: {value!r}")


def msgpack_items(data):
    import msgpack

    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    yield from unpacker
    if unpacker.tell() != len(data):
        sys.exit(f"{len(data) - unpacker.tell()} bytes after the last whole packet")


def cbor_items(data):
    import cbor2

    stream = io.BytesIO(data)
    decoder = cbor2.CBORDecoder(stream)
    while stream.tell() < len(data):
        yield decoder.decode()


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("msgpack", "cbor"):
        sys.exit(__doc__.rsplit("\n", 1)[-1])
    items = msgpack_items if sys.argv[1] == "msgpack" else cbor_items
    out = []
    try:
        for item in items(sys.stdin.buffer.read()):
            out.append(json.dumps(plain(item), sort_keys=True))
    except Exception as e:  # msgpack's and cbor2's decode errors, named for the Rust side
        sys.exit(f"packet {len(out) + 1}: {type(e).__name__}: {e}")
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()

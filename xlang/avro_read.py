#!/usr/bin/env python3
"""md-shootout, issue 26: Avro bytes read by Python. Reads the datums md-shootout's `avro` format
writes (one Avro binary datum per packet, back to back, no framing) from stdin with Apache Avro's
Python implementation (PyPI `avro`, pinned by scripts/bootstrap.sh) on the schema whose file is
the first argument, and writes back, one JSON line per packet, what it read: each message as
{"RecordName": {fields}}, `fixed` values as lists of byte values, enum symbols as strings. The
Rust side (src/capability/cross_language/avro.rs) compares every field with the source.

With a second schema file (issue 37), the first is the writer's and the second the reader's: the
library resolves each datum from one into the other (the specification's "Schema Resolution"),
and each message is named by the reader's record it was resolved into. The schema-evolution
check (src/capability/evolution/reference/avro.rs) reads one version's bytes as the other.

The library's generic reader returns a record as a plain dict, without the name of the union
branch it was read from; `NamingReader` keeps that name (the message type) beside the dict."""
import io
import json
import sys

import avro.io
import avro.schema


class Named(dict):
    """A record as the library read it, and its schema's name."""

    name = None


class NamingReader(avro.io.DatumReader):
    """avro.io.DatumReader, each record read tagged with its record schema's name."""

    def read_record(self, writers_schema, readers_schema, decoder):
        record = Named(super().read_record(writers_schema, readers_schema, decoder))
        record.name = readers_schema.name
        return record


def plain(value):
    """A value the library read, as JSON: bytes as their values, records as dicts."""
    if isinstance(value, bytes):
        return list(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: avro_read.py WRITER.avsc [READER.avsc] < datums")
    schemas = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            schemas.append(avro.schema.parse(f.read()))
    data = sys.stdin.buffer.read()
    stream = io.BytesIO(data)
    decoder = avro.io.BinaryDecoder(stream)
    reader = NamingReader(*schemas)
    out = []
    while stream.tell() < len(data):
        packet = reader.read(decoder)
        messages = [{m.name: plain(m)} for m in packet["messages"]]
        out.append(json.dumps({**plain(packet), "messages": messages}, sort_keys=True))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one line the caller shows, rather than a traceback
        sys.exit(f"{type(e).__name__}: {e}")

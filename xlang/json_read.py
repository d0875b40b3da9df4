#!/usr/bin/env python3
"""md-shootout, issue 25: JSON bytes read by Python. Reads packets written by md-shootout's `json`
format (one JSON object a line) from stdin with the standard library's `json` module and writes
back, one line per packet, what it read: every value with its Python type kept (an integer stays
an integer, a float would show as one). The Rust side (src/capability/cross_language/json.rs)
compares every field with the source. Standard library only."""
import json
import sys


def main():
    out = []
    for number, line in enumerate(sys.stdin.buffer, 1):
        packet = json.loads(line)
        if not isinstance(packet, dict):
            sys.exit(f"packet {number}: not a JSON object")
        out.append(json.dumps(packet, sort_keys=True))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()

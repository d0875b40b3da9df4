#!/usr/bin/env python3
"""Checks, on a release binary, that each A/A twin and positive control times code of its own.

An A/A twin (`sbe.twin`) and a positive control (`sbe.plus5`) are meant to measure the codec a
second time from machine code of their own, so that the gap between a twin and its original
includes where the codec's code landed (issue 46). LLVM's function merging folds identical
functions into one address, so this reads the binary: for every format whose twin is linked in,
the runner's timed pass (`<FormatRunner<F> as Runner>::pass`) of the original, the twin and the
control, and the codec functions each calls (`<F as Format>::encode`, `::decode`,
`::decode_all`). A codec function the original and a copy both call at one address is code the
two share: a failure. A workload whose codec calls were inlined into the pass is a copy of its
own with the pass (each pass is at its own address, checked too).

Usage: scripts/twin_copies.py BINARY [FORMAT ...]   (default formats: raw sbe)
Prints one line per format and runner; exits 1 on shared code, 2 on a binary it cannot read.
Needs binutils (nm, objdump), which scripts/bootstrap.sh installs.
"""

import re
import struct
import subprocess
import sys
from collections import defaultdict

CODEC = re.compile(r"as md_shootout::formats::codec::Format>::(encode|decode_all|decode)(::|$)")
PASS = re.compile(
    r"^<md_shootout::measure::runner::FormatRunner<F> as "
    r"md_shootout::measure::runner::Runner>::pass(::h[0-9a-f]+)?$"
)
CALL = re.compile(r"^\s*([0-9a-f]+):\s+(call|jmp)\s+([0-9a-f]+)\s")
# `lea -0x4bf048(%rip),%rax   # e0af6 <...>`: the absolute address objdump works out.
LEA = re.compile(r"^\s*[0-9a-f]+:\s+lea\s+\S+\(%rip\),%\w+\s+#\s+([0-9a-f]+)")


def symbols(binary):
    """Address -> (size, [names]) of every defined function."""
    out = subprocess.run(
        ["nm", "-C", "-S", "--defined-only", binary],
        check=True, capture_output=True, text=True,
    ).stdout
    by_addr = defaultdict(lambda: [0, []])
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in "tTwW":
            addr, size, _, name = parts
            entry = by_addr[int(addr, 16)]
            entry[0] = max(entry[0], int(size, 16))
            entry[1].append(name)
    return by_addr


class Image:
    """The bytes of a 64-bit little-endian ELF file by virtual address (its PT_LOAD segments)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        if self.data[:4] != b"\x7fELF" or self.data[4] != 2 or self.data[5] != 1:
            raise ValueError("not a 64-bit little-endian ELF file")
        phoff, = struct.unpack_from("<Q", self.data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", self.data, 0x36)
        self.loads = []
        for i in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
                "<IIQQQQ", self.data, phoff + i * phentsize)
            if p_type == 1:
                self.loads.append((p_vaddr, p_offset, p_filesz))

    def read(self, vaddr, n):
        for start, offset, size in self.loads:
            if start <= vaddr and vaddr + n <= start + size:
                at = offset + vaddr - start
                return self.data[at:at + n]
        return b""


def disassemble(binary, addr, size):
    """The direct call and jump targets of the function at `addr`, and its rip-relative leas."""
    out = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", "-w",
         f"--start-address={addr:#x}", f"--stop-address={addr + size:#x}", binary],
        check=True, capture_output=True, text=True,
    ).stdout
    targets, leas = set(), set()
    for line in out.splitlines():
        m = CALL.match(line)
        if m:
            targets.add(int(m.group(3), 16))
        m = LEA.match(line)
        if m:
            leas.add(int(m.group(1), 16))
    return targets, leas


def runner_of(image, leas, names):
    """Which of `names` a timed pass belongs to: the longest whose bytes a lea of it points at
    (`FormatRunner::pass` passes its format's name to `black_box`)."""
    found = [n for n in names if any(image.read(a, len(n)) == n.encode() for a in leas)]
    return max(found, key=len) if found else None


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    binary, wanted = argv[1], argv[2:] or ["raw", "sbe"]
    try:
        by_addr = symbols(binary)
        image = Image(binary)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"error: {binary}: cannot read its symbols: {e}", file=sys.stderr)
        return 2
    names = [n for fmt in wanted for n in (fmt, f"{fmt}.twin", f"{fmt}.plus5")]
    passes = {}
    for addr, (size, syms) in by_addr.items():
        if any(PASS.match(s) for s in syms):
            targets, leas = disassemble(binary, addr, size)
            runner = runner_of(image, leas, names)
            if runner:
                passes[runner] = (addr, targets)
    shared = checked = 0
    for fmt in wanted:
        if fmt not in passes:
            print(f"error: {binary}: no timed pass of {fmt} found", file=sys.stderr)
            return 2
        seen = {}
        for runner in (fmt, f"{fmt}.twin", f"{fmt}.plus5"):
            if runner not in passes:
                print(f"{runner}: no timed pass in the binary")
                continue
            addr, targets = passes[runner]
            codec = defaultdict(set)
            for target in targets:
                for name in by_addr.get(target, (0, []))[1]:
                    m = CODEC.search(name)
                    if m:
                        codec[m.group(1)].add(target)
            seen[runner] = (addr, codec)
            parts = [f"pass {addr:#x}"]
            for work in ("encode", "decode", "decode_all"):
                at = codec.get(work)
                where = ",".join(f"{a:#x}" for a in sorted(at)) if at else "inlined"
                parts.append(f"{work} {where}")
            print(f"{runner}: " + "; ".join(parts))
        base = seen[fmt]
        for runner, (addr, codec) in seen.items():
            if runner == fmt:
                continue
            checked += 1
            if addr == base[0]:
                print(f"SHARED: {runner}'s timed pass is {fmt}'s ({addr:#x})")
                shared += 1
            for work, targets in codec.items():
                common = targets & base[1].get(work, set())
                if common:
                    print(f"SHARED: {runner}'s {work} calls {fmt}'s at "
                          + ",".join(f"{a:#x}" for a in sorted(common)))
                    shared += 1
    if shared:
        print(f"{shared} piece(s) of timed code shared between a format and its copies")
        return 1
    print(f"every copy's timed pass and codec calls at addresses of their own ({checked} copies)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

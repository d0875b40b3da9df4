#!/usr/bin/env node
// md-shootout, issue 26: borsh bytes read by JavaScript, with borsh-js (npm `borsh`, near's
// reference implementation for JavaScript; scripts/bootstrap.sh installs it into tools/borsh-js).
//
//   node borsh_read.js BORSH_MODULE_DIR SCHEMA_JSON < packets
//
// stdin holds md-shootout's `borsh` packets back to back behind a u32 little-endian count: by
// borsh's specification, the encoding of a Vec of packets. The schema (borsh-js's own schema
// notation) is written by src/capability/cross_language/borsh.rs from the message table.
// borsh-js does not say how many bytes it read, so the script encodes what it read again and
// requires the input back byte for byte (borsh gives each value one encoding). It writes one
// JSON line per packet: 64-bit integers as decimal strings, byte arrays as arrays of numbers, a
// field-less enum value (the side) as its variant's name. The Rust side compares every field.
'use strict';
const fs = require('fs');

function plain(value) {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    const inner = keys.length === 1 ? value[keys[0]] : undefined;
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        && Object.keys(inner).length === 0) {
      return keys[0];
    }
    const out = {};
    for (const k of keys) out[k] = plain(value[k]);
    return out;
  }
  return value;
}

function main() {
  const [moduleDir, schemaFile] = process.argv.slice(2);
  const borsh = require(moduleDir);
  const packet = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  const schema = { array: { type: packet } };
  const input = new Uint8Array(fs.readFileSync(0));
  const packets = borsh.deserialize(schema, input);
  const again = borsh.serialize(schema, packets);
  if (again.length !== input.length || again.some((b, i) => b !== input[i])) {
    const used = again.length;
    throw new Error(`read ${packets.length} packets in ${used} of the ${input.length} bytes given, `
      + 'or they encode back to other bytes');
  }
  process.stdout.write(packets.map((p) => JSON.stringify(plain(p)) + '\n').join(''));
}

try {
  main();
} catch (e) {
  process.stderr.write(`borsh_read.js: ${e.message}\n`);
  process.exit(1);
}

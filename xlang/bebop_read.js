#!/usr/bin/env node
// md-shootout, issue 48: bebop bytes read by TypeScript, with Bebop's TypeScript runtime (npm
// `bebop` 3.2.3) and the TypeScript bebopc 3.2.3 generates from schemas/marketdata.bop
// (scripts/bootstrap.sh installs both, and npm's `typescript`, into tools/bebop-tools).
//
//   node bebop_read.js NODE_MODULES_DIR MARKETDATA_TS < packets
//
// stdin holds md-shootout's `bebop` packets back to back. The generated TypeScript is turned into
// JavaScript with typescript's transpileModule and run with the runtime as its `bebop` import.
// Each packet is read with the generated `Packet.readFrom` from one BebopView, which says where
// the packet ended; every byte must be read. The union's branches are named, and enum values
// turned into their members' names, through the binary schema bebopc embeds in the generated
// code (`BEBOP_SCHEMA`, read by the runtime's BinarySchema). One JSON line per packet: 64-bit
// integers as decimal strings, each message `{"Branch": {field: value}}` in the schema's names.
'use strict';
const fs = require('fs');
const path = require('path');

/// The generated module, its TypeScript turned into JavaScript and run with `bebop` as its import.
function load(modules, tsFile) {
  const ts = require(path.join(modules, 'typescript'));
  const bebop = require(path.join(modules, 'bebop'));
  const js = ts.transpileModule(fs.readFileSync(tsFile, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 },
  }).outputText;
  const module = { exports: {} };
  const imports = (name) => (name === 'bebop' ? bebop : require(name));
  new Function('exports', 'require', 'module', js)(module.exports, imports, module);
  return { bebop, generated: module.exports };
}

function plain(value) {
  return typeof value === 'bigint' ? value.toString() : value;
}

/// `sale_condition_flags` and `saleConditionFlags` alike.
function key(name) {
  return name.replace(/_/g, '').toLowerCase();
}

/// A message's fields in the schema's names, enum values as their members' names.
function fields(definition, value, byIndex) {
  const given = new Map(Object.entries(value).map(([k, v]) => [key(k), v]));
  const out = {};
  for (const field of Object.values(definition.fields)) {
    const v = given.get(key(field.name));
    if (v === undefined) continue;
    const type = field.typeId >= 0 ? byIndex.get(field.typeId) : undefined;
    if (type !== undefined && type.members !== undefined) {
      const member = Object.values(type.members).find((m) => BigInt(m.value) === BigInt(v));
      if (member === undefined) throw new Error(`${field.name}: ${v} is no member of ${type.name}`);
      out[field.name] = member.name;
    } else {
      out[field.name] = plain(v);
    }
  }
  return out;
}

function main() {
  const [modules, tsFile] = process.argv.slice(2);
  const { bebop, generated } = load(modules, tsFile);
  const schema = new bebop.BinarySchema(generated.BEBOP_SCHEMA);
  schema.get();
  const byIndex = new Map(Object.values(schema.ast.definitions).map((d) => [d.index, d]));
  const branches = new Map(schema.ast.definitions.Message.branches
    .map((b) => [b.discriminator, byIndex.get(b.typeId)]));
  const input = new Uint8Array(fs.readFileSync(0));
  const view = bebop.BebopView.getInstance();
  view.startReading(input);
  const lines = [];
  while (view.index < input.length) {
    const p = generated.Packet.readFrom(view);
    const messages = p.messages.map((m) => {
      const branch = branches.get(m.tag);
      if (branch === undefined) throw new Error(`union discriminator ${m.tag} is not in the schema`);
      return { [branch.name]: fields(branch, m.value, byIndex) };
    });
    lines.push(JSON.stringify({ seq: plain(p.seq), send_time: plain(p.sendTime), messages }) + '\n');
  }
  if (view.index !== input.length) {
    throw new Error(`read ${view.index} of the ${input.length} bytes given`);
  }
  process.stdout.write(lines.join(''));
}

try {
  main();
} catch (e) {
  process.stderr.write(`bebop_read.js: ${e.message}\n`);
  process.exit(1);
}

#!/usr/bin/env python3
"""The import graph of src/ (issue 27, "one direction"): import cycles between files (a `super::X`
for an item defined in or re-exported by a mod.rs counts as an import of that mod.rs; inline
`mod x { }` blocks are skipped) and imports up the pipeline (layers below).
Usage: python3 scripts/imports.py [src]; exits 1 when it finds either (scripts/test.sh runs it)."""
import os, re, sys
src = sys.argv[1] if len(sys.argv) > 1 else 'src'
LAYER = {'error':0,'bytes':0,'sys':0,'alloc_count':0,'output':0,'net':1,'capture':1,'fetch':4,
         'model':2,'iex':3,'source':4,'stream':4,'gen':4,'inspect':5,'formats':5,'profile':4,
         'measure':6,'capability':6.5,'export':7,'report':8,'bench':9,'main':10,'lib':10}
def modpath(p):
    rel = os.path.relpath(p, src)[:-3].split('/')
    if rel[-1] == 'mod': rel = rel[:-1]
    return rel
files = {}
for root, _, fs in os.walk(src):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(root, f); files[tuple(modpath(p))] = open(p).read()
mods = set(files)
def resolve(cur, path):
    parts = path.split('::')
    if parts[0] == 'crate': base = []; parts = parts[1:]
    elif parts[0] in ('super', 'self'):
        base = list(cur) if cur[-1:] != () else []
        # file module: self = cur, super = cur[:-1]
        base = list(cur)
        while parts and parts[0] in ('super', 'self'):
            if parts[0] == 'super': base = base[:-1]
            parts = parts[1:]
    else: return None
    full = base + parts
    # longest prefix that is a module
    for k in range(len(full), 0, -1):
        if tuple(full[:k]) in mods: return tuple(full[:k])
    return None
edges = {}
for m, text in files.items():
    text = re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*', '', text, flags=re.S)
    text = re.sub(r'//.*', '', text)
    # inline modules (`mod x { ... }` at column 0): their `super` is this file, not its parent
    text = re.sub(r'\n(pub(\([^)]*\))? )?mod \w+ \{.*?\n\}', '', text, flags=re.S)
    deps = set()
    for u in re.findall(r'\b((?:crate|super|self)(?:::\w+)+)', text):
        d = resolve(m, u)
        if d and d != m: deps.add(d)
    for u in re.findall(r'use\s+(crate|super)::\{([^;]*)\};', text, flags=re.S):
        for item in re.split(r'[,\s]+', u[1]):
            item = item.split('::')[0].strip('{} ')
            if item:
                d = resolve(m, u[0] + '::' + item)
                if d and d != m: deps.add(d)
    # relative paths to child modules (`child::item` in a parent) and `use child::...`
    for child in [x for x in mods if len(x) == len(m) + 1 and x[:len(m)] == m]:
        if re.search(r'(?<![\w:])' + child[-1] + r'::', text): deps.add(child)
    edges[m] = deps
# cycles between modules: strongly connected components
idx = {}; low = {}; st = []; on = set(); sccs = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(comp)
for v in edges:
    if v not in idx: sc(v)
n = lambda m: '::'.join(m) or 'crate'
print(f'{len(sccs)} import cycles')
for comp in sccs: print('  cycle:', ', '.join(sorted(n(m) for m in comp)))
ups = []
for m, ds in edges.items():
    for d in ds:
        lm, ld = LAYER.get(m[0], 5), LAYER.get(d[0], 5)
        if ld > lm: ups.append((n(m), n(d)))
print(f'{len(ups)} imports up the pipeline')
for a, b in sorted(ups): print(f'  {a} -> {b}')
if sccs or ups: sys.exit(1)

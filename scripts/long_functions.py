#!/usr/bin/env python3
"""Functions longer than 100 lines in a tree of Rust files (issue 27: at most three outside
src/formats/). Counts from the `fn` line to its closing brace.
Usage: python3 scripts/long_functions.py src [--skip DIR] [--at-most N]
  --skip DIR    leave out the files below DIR (scripts/test.sh: src/formats, the codecs)
  --at-most N   exit 1 when more than N functions are listed (scripts/test.sh: 3)"""
import argparse,re,sys,os
ap=argparse.ArgumentParser(usage=__doc__.split('Usage: ')[1].split('\n')[0])
ap.add_argument('tree'); ap.add_argument('--skip',action='append',default=[])
ap.add_argument('--at-most',type=int)
args=ap.parse_args()
skip=[os.path.normpath(d) for d in args.skip]
res=[]
for root,_,files in os.walk(args.tree):
    if any(os.path.normpath(root)==d or os.path.normpath(root).startswith(d+os.sep) for d in skip): continue
    for f in files:
        if not f.endswith('.rs'): continue
        p=os.path.join(root,f); lines=open(p).read().split('\n')
        i=0
        while i<len(lines):
            m=re.match(r'\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)',lines[i])
            if m and not lines[i].strip().startswith('//'):
                depth=0; started=False; j=i
                while j<len(lines):
                    l=re.sub(r'"(\\.|[^"\\])*"','""',lines[j]); l=re.sub(r"//.*","",l)
                    depth+=l.count('{')-l.count('}')
                    if '{' in l: started=True
                    if started and depth<=0: break
                    if not started and l.rstrip().endswith(';'): break
                    j+=1
                n=j-i+1
                if started and n>100: res.append((n,p,i+1,m.group(6)))
                i+=1
            else: i+=1
for r in sorted(res,reverse=True): print(*r)
if args.at_most is not None:
    print(f'{len(res)} functions over 100 lines (at most {args.at_most} allowed)')
    if len(res)>args.at_most: sys.exit(1)

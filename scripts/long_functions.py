#!/usr/bin/env python3
"""Functions longer than 100 lines in a tree of Rust files (issue 27: at most three outside
src/formats/). Counts from the `fn` line to its closing brace. Usage: python3
scripts/long_functions.py src"""
import re,sys,os
res=[]
for root,_,files in os.walk(sys.argv[1]):
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

import sys,re,collections
for f in sys.argv[1:]:
    tot=collections.Counter(); n=0
    for line in open(f):
        if not line.startswith('spill'): continue
        n+=1
        for m in re.finditer(r' r(\d+):(\d+)/(\d+)(W?)', line):
            role,used,live,w=int(m[1]),int(m[2]),int(m[3]),m[4]
            st='empty' if used==0 else ('dead' if live==0 else ('W' if w else ('part' if used<2000 else 'full')))
            tot[(role,st)]+=1
    print(f, n, sorted(((k,round(v/max(n,1),1)) for k,v in tot.items())))

import sys, collections
for f in sys.argv[1:]:
    small=[]; big=0; bigb=0
    for line in open(f):
        t,off,n,w=line.split(); t=float(t); off=int(off); n=int(n); w=int(w)
        if w: continue
        if n<=16384: small.append((t,off,n))
        else: big+=1; bigb+=n
    c=collections.Counter(o for _,o,_ in small)
    sizes=collections.Counter(n for _,_,n in small)
    rep=sum(v-1 for v in c.values())
    print(f, 'small reads', len(small), 'distinct', len(c), 'repeats', rep, '%.1f%%'%(100*rep/len(small)), 'big', big, bigb>>20, 'MiB')
    print('  sizes', sizes.most_common(6))
    hist=collections.Counter(min(v,10) for v in c.values())
    print('  reads-per-block hist', sorted(hist.items()))
    # top blocks share
    top=sorted(c.values(), reverse=True)
    for k in (100,1000,4000):
        print('  top',k,'blocks take', sum(top[:k]), 'reads = %.1f%%'%(100*sum(top[:k])/len(small)))

import re,sys,collections,glob
sys.path.insert(0,'.')
from lvl import levels
for pat in sys.argv[1:]:
    fl=sorted(glob.glob(pat)); agg=collections.Counter(); n=0
    for errf in fl:
        lv=levels(errf[:-4]+'.LOG')
        for line in open(errf):
            m=re.match(r'slowzones /db/(\d+)\.sst:(.*)',line)
            if not m or lv.get(int(m.group(1)))!=2: continue
            n+=1
            for z in re.finditer(r' r(\d+):(\d+)/(\d+)(W?)( /\S+)?',m.group(2)):
                role,used,live,w,h=z.groups(); used=int(used); live=int(live)
                st='empty' if used==0 else ('W' if w else ('dead' if live==0 else 'full'))
                agg[(int(role),st)]+=1; agg[('livefrac',int(role))]+=live
    print(pat,'L2 slow allocations',n/len(fl))
    for k,v in sorted(agg.items(),key=str): print('  ',k,'%.2f'%(v/max(n,1)) if k[0]!='livefrac' else '%.0f KiB'%(v/max(n,1)))

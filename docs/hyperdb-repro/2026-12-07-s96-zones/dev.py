import sys,re,glob,collections
for pat in sys.argv[1:]:
    for f in sorted(glob.glob(pat)):
        t=open(f).read()
        agg=collections.defaultdict(float); cnt=collections.defaultdict(int)
        for m in re.finditer(r'device trace \S+/(\w+)\.img (read|write) (\S+): (\d+) requests, \d+ with access latency, (\d+) bytes, ([\d.]+) ms, ([\d.]+) ms from arrival', t):
            dev,op,sz,n,b,ms,arr=m.groups()
            agg[(dev,op,sz)]+=float(ms); cnt[(dev,op,sz)]+=int(n)
        run=re.search(r'^run\s+(\d+) ops/s\s+([\d.]+) s.*?busy fast/slow (\d+)/(\d+)%', t, re.M)
        sata=sum(v for k,v in agg.items() if k[0]=='sata'); nvme=sum(v for k,v in agg.items() if k[0]=='nvme')
        sr=cnt[('sata','read','<=16KiB')]
        print(f.split('/')[-1][:40], run.group(1), run.group(2), 'sata ms %.0f nvme ms %.0f sata small reads %d (%.0f ms) big r %.0f w %.0f' % (sata,nvme,sr,agg[('sata','read','<=16KiB')], agg[('sata','read','>256KiB')]+agg[('sata','read','<=256KiB')], sum(v for k,v in agg.items() if k[0]=='sata' and k[1]=='write')))
